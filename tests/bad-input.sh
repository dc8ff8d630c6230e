#!/bin/sh
# Every row of tests/bad-input.tsv is bad input: trainsim must exit 2, say
# where and what on stderr (the row's pattern: FILE:LINE: KEY: ...), and leave
# no output file.  A row whose arguments start with collect, export,
# collective, cluster, plan or list runs that subcommand (collect and
# cluster with -o).
# TRAINSIM_WRAPPER (e.g. "valgrind --error-exitcode=99 --leak-check=full
# --errors-for-leak-kinds=definite") runs each case under a checker; its own
# exit code then differs from 2 and the case fails.
cd "$SRCDIR" || exit 1
. tests/tap.sh
table=tests/bad-input.tsv

n=$(grep -c -v -e '^#' -e '^$' "$table")
plan $((n * 3))
grep -v -e '^#' -e '^$' "$table" | while IFS='	' read -r name args pattern; do
	out="$tmp/$name.h5"
	# Rows for the run-file tools start with the subcommand's name.
	# shellcheck disable=SC2086 # args is a word list on purpose
	case $args in
	collect\ *) set -- collect -o "$out" ${args#collect } ;;
	cluster\ *) set -- cluster -q -o "$out" ${args#cluster } ;;
	export\ *|collective\ *|plan\ *|list\ *) set -- $args ;;
	*) set -- -q -o "$out" $args ;;
	esac
	${TRAINSIM_WRAPPER:-} "$TRAINSIM" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	status=$?
	[ "$status" -eq 2 ]
	ok $? "$name: exit 2" || { diag "exit $status, want 2"; diag "$(cat "$tmp/stderr")"; }
	grep -E -q -e "$pattern" "$tmp/stderr"
	ok $? "$name: message" || { diag "stderr lacks /$pattern/"; diag "$(cat "$tmp/stderr")"; }
	! ls -a "$tmp" | grep -q "^\.\?$name\.h5"
	ok $? "$name: no output file"
done
