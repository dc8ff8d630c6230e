#!/bin/sh
# Every row of tests/bad-input.tsv is bad input: trainsim must exit 2, say
# where and what on stderr (the row's pattern: FILE:LINE: KEY: ...), and leave
# no output file.  TRAINSIM_WRAPPER (e.g. "valgrind --error-exitcode=99
# --leak-check=full --errors-for-leak-kinds=definite") runs each case under a
# checker; its own exit code then differs from 2 and the case fails.
cd "$SRCDIR" || exit 1
. tests/tap.sh
table=tests/bad-input.tsv

n=$(grep -c -v -e '^#' -e '^$' "$table")
plan $((n * 3))
grep -v -e '^#' -e '^$' "$table" | while IFS='	' read -r name args pattern; do
	out="$tmp/$name.h5"
	# A row whose arguments start with "cluster" runs that command.
	cmd=
	case $args in cluster\ *) cmd=cluster; args=${args#cluster } ;; esac
	# shellcheck disable=SC2086 # args is a word list on purpose
	${TRAINSIM_WRAPPER:-} "$TRAINSIM" $cmd -q -o "$out" $args >"$tmp/stdout" 2>"$tmp/stderr"
	status=$?
	[ "$status" -eq 2 ]
	ok $? "$name: exit 2" || { diag "exit $status, want 2"; diag "$(cat "$tmp/stderr")"; }
	grep -E -q -e "$pattern" "$tmp/stderr"
	ok $? "$name: message" || { diag "stderr lacks /$pattern/"; diag "$(cat "$tmp/stderr")"; }
	! ls -a "$tmp" | grep -q "^\.\?$name\.h5"
	ok $? "$name: no output file"
done
