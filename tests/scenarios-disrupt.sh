#!/bin/sh
# The disruption scenarios run, and llama3-405b.cfg reproduces what it was
# built from (Llama 3 paper, arXiv:2407.21783, Table 5): 419 unexpected
# interruptions in 54 days on 16,384 H100, i.e. 7.76 a day -- the simulated
# rate must lie within 4 standard errors (Poisson: sqrt(N)) -- and Meta's
# ">90% effective training time", which our goodput (new training time /
# duration) should reach with 10-minute restarts and in-memory checkpoints.
cd "$SRCDIR" || exit 1
. tests/tap.sh
. tests/outputs.sh
plan 6

"$TRAINSIM" -q --json -o "$tmp/l.h5" scenarios/llama3-405b.cfg >"$tmp/l.json"
ok $? "llama3-405b.cfg runs"
n=$(json "$tmp/l.json" failures); d=$(json "$tmp/l.json" duration_days)
awk -v n="$n" -v d="$d" 'BEGIN { r = 419 / 54; want = r * d
	printf "# %d interruptions in %.1f days: %.2f a day (Llama 3: %.2f)\n", n, d, n / d, r
	exit !(n - want < 4 * sqrt(want) && want - n < 4 * sqrt(want)) }'
ok $? "interruptions a day = Llama 3's 419 / 54 d within 4 standard errors"
g=$(json "$tmp/l.json" goodput)
echo "# goodput $g"
awk -v g="$g" 'BEGIN { exit !(g > 0.90 && g < 1) }'; ok $? "goodput above 90% (Llama 3)"

"$TRAINSIM" -q --json -o "$tmp/s.h5" scenarios/175b-spot.cfg >"$tmp/s.json"
ok $? "175b-spot.cfg runs"
p=$(json "$tmp/s.json" preemptions); r=$(json "$tmp/s.json" resizes)
[ "$p" -gt 0 ] && [ "$r" -gt 0 ]; ok $? "175b-spot: preemptions ($p) and elastic resizes ($r)"
n0=$(series_len "$tmp/s.h5" time_s); same=0
for s in state dp nodes_held storage_write_Bps checkpoint_stall_s lost_work_s; do
	[ "$(series_len "$tmp/s.h5" $s)" = "$n0" ] || same=1
done
ok $same "state, dp, nodes, storage I/O, stall and lost-work series ($n0 samples)"
