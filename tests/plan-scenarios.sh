#!/bin/sh
# trainsim plan answers for every scenario and every checkpoint policy: each
# scenarios/*.cfg at its own size with a generous deadline (10 years) gets a
# ranked configuration.  The formula iteration model keeps it fast: what is
# tested is the planner's handling of the scenario (Daly and Young need the
# failure rate its bound runs switch off; spot pools must scale with the
# cluster and be calm in bound runs), not the step model.
set -u
. "$SRCDIR/tests/tap.sh"
# Run scenarios only: a shared-cluster scenario (a fleet group, `trainsim
# cluster`) has no single job to plan.
runs=$(grep -L '^fleet *=' scenarios/*.cfg)
n=$(echo "$runs" | wc -l)
echo "1..$((n + 4))"
for f in $runs; do
	g=$("$TRAINSIM" --check "$f" | sed -n 's/^gpus  *\([0-9]*\) .*/\1/p')
	"$TRAINSIM" plan "$f" -s training.iteration_model=formula --deadline-days 3650 \
		--top 1 --gpus "$g" >"$tmp/p.txt" 2>"$tmp/p.err" &&
		grep -q '^ *1  ' "$tmp/p.txt"
	ok $? "$f at $g GPUs: an answer ($(sed -n 's/^ *1 *[0-9]* *\([0-9.]*\) .*/\1 days/p' "$tmp/p.txt"))"
done
# Daly's policy: the best configuration keeps it (no interval override) and
# trainsim with the printed overrides reproduces the planned cost.
"$TRAINSIM" plan scenarios/llama3-405b.cfg --deadline-days 1000 --top 1 --gpus 16384 \
	--json >"$tmp/l.txt"; ok $? "llama3-405b.cfg (policy daly): plan exits 0"
cmd=$(grep -m1 '^ *trainsim -s' "$tmp/l.txt" | sed 's/^ *trainsim//')
echo "$cmd" | grep -qv 'interval_s\|policy' || echo "$cmd" | grep -q 'policy=time'
ok $? "... its overrides keep Daly's policy or name policy=time with an interval"
tail -1 "$tmp/l.txt" >"$tmp/l.json"
eval "\"$TRAINSIM\" -q --json -o $tmp/l.h5 $cmd" | cmp -s - "$tmp/l.json"
ok $? "... and reproduce its summary bit for bit"
# Spot pools of the scenario's own scale with the cluster: 512 GPUs = 64
# nodes, 64 + 64 of 128 scaled by half = 32 + 32.
"$TRAINSIM" plan scenarios/175b-spot.cfg -s training.iteration_model=formula \
	--deadline-days 3650 --top 1 --gpus 512 >"$tmp/s.txt"
grep -q 'pools.base.nodes=32 -s pools.spot.nodes=32' "$tmp/s.txt"
ok $? "175b-spot.cfg at 512 GPUs: its pools scaled to 32 + 32 nodes"
