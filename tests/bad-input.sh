#!/bin/sh
# Every row of tests/bad-input.tsv is bad input: trainsim must exit 2, say
# where and what on stderr (the row's pattern: FILE:LINE: KEY: ...), and leave
# no output file.  A row whose arguments start with collect, export,
# collective, cluster, plan or list runs that subcommand (collect and
# cluster with -o).
# TRAINSIM_WRAPPER (e.g. "valgrind --error-exitcode=99 --leak-check=full
# --errors-for-leak-kinds=definite") runs each case under a checker; its own
# exit code then differs from 2 and the case fails.
# The cases run in BAD_INPUT_JOBS (default: one per core) shards at once,
# each case in its own directory; the results are reported in table order.
# Under valgrind the table is the CI's longest test, so this halves it.
cd "$SRCDIR" || exit 1
. tests/tap.sh
table=tests/bad-input.tsv
jobs=${BAD_INPUT_JOBS:-$(nproc 2>/dev/null || echo 1)}

# Case i of the table (its row) in $tmp/i/: status, stdout, stderr.
run_case() {
	i=$1 name=$2 args=$3
	dir="$tmp/$i"
	out="$dir/$name.h5"
	mkdir "$dir" || return
	# Rows for the run-file tools start with the subcommand's name.
	# shellcheck disable=SC2086 # args is a word list on purpose
	case $args in
	collect\ *) set -- collect -o "$out" ${args#collect } ;;
	cluster\ *) set -- cluster -q -o "$out" ${args#cluster } ;;
	export\ *|collective\ *|plan\ *|list\ *) set -- $args ;;
	*) set -- -q -o "$out" $args ;;
	esac
	${TRAINSIM_WRAPPER:-} "$TRAINSIM" "$@" >"$dir/stdout" 2>"$dir/stderr"
	echo $? >"$dir/status"
}

# Shard s runs the cases i with i mod jobs = s.
run_shard() {
	s=$1 i=0
	grep -v -e '^#' -e '^$' "$table" | while IFS='	' read -r name args pattern; do
		[ $((i % jobs)) -eq "$s" ] && run_case "$i" "$name" "$args"
		i=$((i + 1))
	done
}

n=$(grep -c -v -e '^#' -e '^$' "$table")
plan $((n * 3))
s=0
while [ "$s" -lt "$jobs" ]; do
	run_shard "$s" &
	s=$((s + 1))
done
wait

i=0
grep -v -e '^#' -e '^$' "$table" | while IFS='	' read -r name args pattern; do
	dir="$tmp/$i"
	status=$(cat "$dir/status" 2>/dev/null || echo none)
	[ "$status" = 2 ]
	ok $? "$name: exit 2" || { diag "exit $status, want 2"; diag "$(cat "$dir/stderr")"; }
	grep -E -q -e "$pattern" "$dir/stderr"
	ok $? "$name: message" || { diag "stderr lacks /$pattern/"; diag "$(cat "$dir/stderr")"; }
	! ls -a "$dir" | grep -q "^\.\?$name\.h5"
	ok $? "$name: no output file"
	i=$((i + 1))
done
