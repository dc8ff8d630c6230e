# tap.sh -- the shell tests' TAP helpers (the shell side of tap.h), sourced
# after `set -u`:  . "$SRCDIR/tests/tap.sh"
# It moves to $SRCDIR and makes $tmp, a scratch folder removed on exit.
#   ok STATUS TEXT   "ok N - TEXT" when STATUS is 0, else "not ok N - TEXT"
cd "$SRCDIR" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
i=0
ok() { i=$((i + 1)); if [ "$1" -eq 0 ]; then echo "ok $i - $2"; else echo "not ok $i - $2"; fi; }
