#!/bin/sh
# Every row of tests/bad-input.tsv is bad input: trainsim must exit 2, say
# where and what on stderr (the row's pattern: FILE:LINE: KEY: ...), and leave
# no output file.  TRAINSIM_WRAPPER (e.g. "valgrind --error-exitcode=99
# --leak-check=full --errors-for-leak-kinds=definite") runs each case under a
# checker; its own exit code then differs from 2 and the case fails.
set -u
cd "$SRCDIR" || exit 1
table=tests/bad-input.tsv
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

n=$(grep -c -v -e '^#' -e '^$' "$table")
echo "1..$((n * 3))"
i=0
grep -v -e '^#' -e '^$' "$table" | while IFS='	' read -r name args pattern; do
	out="$tmp/$name.h5"
	# shellcheck disable=SC2086 # args is a word list on purpose
	${TRAINSIM_WRAPPER:-} "$TRAINSIM" -q -o "$out" $args >"$tmp/stdout" 2>"$tmp/stderr"
	status=$?
	i=$((i + 1))
	if [ "$status" -eq 2 ]; then echo "ok $i - $name: exit 2"
	else echo "not ok $i - $name: exit $status, want 2"; sed 's/^/# /' "$tmp/stderr"; fi
	i=$((i + 1))
	if grep -E -q -e "$pattern" "$tmp/stderr"; then echo "ok $i - $name: message"
	else echo "not ok $i - $name: stderr lacks /$pattern/"; sed 's/^/# /' "$tmp/stderr"; fi
	i=$((i + 1))
	if ls -a "$tmp" | grep -q "^\.\?$name\.h5"; then echo "not ok $i - $name: output left behind"
	else echo "ok $i - $name: no output file"; fi
done
