#!/bin/sh
# plan-175b.sh -- the planner benchmark (issue 7: `trainsim plan` on the
# 175B case within 30 s on the 2-core machine): scenarios/175b.cfg with a
# 40-day deadline, the default search (8 cluster sizes, every layout that
# fits), timed with the step model (one process, then --jobs at the online
# CPUs) and with the formula model.  Prints the wall time of each and the
# best configuration.  `make bench-plan`; never run by make check.  Set
# TRAINSIM and SRCDIR (make does), or run it from the source tree after
# building.
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TRAINSIM=${TRAINSIM:-$SRCDIR/trainsim}
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
[ "$cpus" -gt 16 ] && cpus=16
rc=0
run() {
	name=$1; shift
	t0=$(date +%s.%N)
	"$TRAINSIM" plan "$@" "$SRCDIR/scenarios/175b.cfg" --deadline-days 40 --top 3 \
		>"$out/$name.txt" || rc=1
	t1=$(date +%s.%N)
	best=$(awk '$1 == "1" { print $2, "USD,", $3, "days, gpus", $5, "tp", $6, "pp", $7, "mb", $9 }' \
		"$out/$name.txt")
	awk -v a="$t0" -v b="$t1" -v n="$name" -v best="$best" \
		'BEGIN { printf "%-22s %7.1f s   best: %s\n", n, b - a, best }'
}
run "step, --jobs 1" --jobs 1
[ "$cpus" -gt 1 ] && run "step, --jobs $cpus" --jobs "$cpus"
run "formula" -s training.iteration_model=formula
head -1 "$out/step, --jobs 1.txt"
exit $rc
