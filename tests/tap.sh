# tests/tap.sh -- the Test Anything Protocol for the shell tests, the twin of
# tests/tap.h.  Every shell test sources it first:
#
#   . "$SRCDIR/tests/tap.sh"
#   plan 3
#   "$TRAINSIM" ...; ok $? "trainsim runs"
#   ok_near "$busbw" 230 0.05 "busbw within 5% of 230 GB/s (nccl-tests#149)"
#   ok_eq "$rows" 28 "8 B to 1 GiB by 2: 28 rows"
#
# Each check says in its name where its expected number comes from.  Sourcing
# also sets -u, moves to the source tree ($SRCDIR) and gives the test a
# scratch folder, $tmp, removed on exit.
set -u
cd "$SRCDIR" || exit 1
tap_n=0

# plan N: the number of checks to come.
plan() { echo "1..$1"; }

# ok STATUS NAME: passes when STATUS (usually $?) is 0.
tap_todo=
ok() {
	tap_n=$((tap_n + 1))
	if [ "$1" -eq 0 ]; then echo "ok $tap_n - $2$tap_todo"; else echo "not ok $tap_n - $2$tap_todo"; fi
	tap_todo=
	return "$1"
}

# todo WHY: the next check is a known bug, WHY says which; its failure is
# counted as expected (XFAIL), its passing as unexpected (XPASS, a failure of
# the suite), so that whoever fixes the bug removes the mark.
todo() { tap_todo=" # TODO $1"; }

# diag TEXT...: a comment line (or lines) in the TAP stream.
diag() { printf '%s\n' "$*" | sed 's/^/# /'; }

# skip NAME WHY: a check that could not run here, counted as passed.
skip() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $1 # SKIP $2"; }

# near GOT WANT REL_TOL: status 0 when both are numbers and |GOT - WANT| <=
# REL_TOL x |WANT| (<= REL_TOL when WANT is 0).  An empty or non-numeric GOT
# (a missing key) fails.
near() {
	awk -v g="$1" -v w="$2" -v t="$3" 'function num(x) {
			return x ~ /^[-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?$/ }
		BEGIN { if (!num(g) || !num(w)) exit 1
			s = w < 0 ? -w : w; if (s == 0) s = 1
			d = g - w; if (d < 0) d = -d
			exit !(d <= t * s) }'
}

# ok_near GOT WANT REL_TOL NAME: near as a check, saying both on failure.
ok_near() {
	near "$1" "$2" "$3"
	ok $? "$4" || diag "got '$1', want $2 (rel tol $3)"
}

# ok_eq GOT WANT NAME: the same string (integers, names, exact digits).
ok_eq() {
	[ "$1" = "$2" ]
	ok $? "$3" || diag "got '$1', want '$2'"
}

# ok_pinned NAME GOT: a fitted model's figure within 0.5% of its value in
# tests/fitted.tsv, the one table a refit updates (`make pin`).  A row whose
# value is "-" is not pinned yet: the check is skipped.  With TAP_PIN_OUT set
# (make pin), "NAME<TAB>GOT" is also appended to that file.
ok_pinned() {
	[ -z "${TAP_PIN_OUT:-}" ] || printf '%s\t%s\n' "$1" "$2" >>"$TAP_PIN_OUT"
	tap_want=$(awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$SRCDIR/tests/fitted.tsv")
	case $tap_want in
	'') ok 1 "$1 pinned"; diag "tests/fitted.tsv has no row $1" ;;
	-) skip "$1 = $2 as pinned" "not pinned yet in tests/fitted.tsv (make pin)" ;;
	*) ok_near "$2" "$tap_want" 0.005 "$1 = $2 within 0.5% of $tap_want (tests/fitted.tsv)" ;;
	esac
}

# calc EXPR: an awk expression's value with 17 digits, e.g. calc "1024 * $d / 3600".
calc() { awk "BEGIN { printf \"%.17g\", $1 }"; }

tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
