#!/bin/sh
# whatif-sweep-1000.sh -- the 1,000-scenario sweep benchmark (issue 7: at
# most 5 minutes on the 2-core machine): GPT-3 175B (scenarios/175b.cfg)
# at 50 checkpoint intervals x 20 seeds through the sweep library (GNU
# parallel, -j all cores), then trainsim collect and the interval plot.
# Prints the wall time of each phase.  `make bench-sweep`; never run by
# make check.  Set TRAINSIM and SRCDIR (make does), or run it from the
# source tree after building.
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TRAINSIM=${TRAINSIM:-$SRCDIR/trainsim}
export TRAINSIM
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
SWEEP_ROOT=$SRCDIR
. "$SRCDIR/scenarios/sweeps/lib.sh"
sweep_init bench-1000 -o "$out" --no-plot
sweep_scenario scenarios/175b.cfg
# 50 intervals from 10 minutes to about 6 h, logarithmically spaced.
sweep_axis training.checkpoint.interval_s $(awk 'BEGIN { for (i = 0; i < 50; i++) printf "%d ", 600 * 36 ^ (i / 49) }')
sweep_axis run.seed $(seq 1 20)
t0=$(date +%s.%N)
sweep_go 2>"$out/sweep.err"; rc=$?
t1=$(date +%s.%N)
daly=$("$TRAINSIM" plan --daly "$SWEEP_SCENARIO" | awk '$1 == "daly_interval_s" { print $2 }')
"$SRCDIR/plots/plot-sweep" -o "$out/plots" --kind interval --x training.checkpoint.interval_s \
	--daly "$daly" "$out/results.tsv" >/dev/null || rc=1
t2=$(date +%s.%N)
runs=$(($(wc -l <"$out/results.tsv") - 1))
awk -v a="$t0" -v b="$t1" -v c="$t2" -v n="$runs" -v j="$SWEEP_JOBS" 'BEGIN {
	printf "sweep of %d runs of 175b.cfg with -j %d: %.1f s (%.1f ms per run), plot %.1f s, total %.1f s\n",
		n, j, b - a, 1000 * (b - a) / n, c - b, c - a }'
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "cost_usd") c = i; next } { print $c }' "$out/results.tsv" |
	sort -g | awk '{ v[NR] = $1 } END { printf "cost_usd over the sweep: min %.0f, median %.0f, max %.0f\n", v[1], v[int((NR + 1) / 2)], v[NR] }'
[ "$runs" -eq 1000 ] || { echo "expected 1000 rows, got $runs" >&2; rc=1; }
exit $rc
