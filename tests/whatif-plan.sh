#!/bin/sh
# trainsim plan: its best configuration, run through trainsim with the
# printed overrides, reproduces the reported summary exactly; Daly's interval
# and the deadline are honoured.
. "$SRCDIR/tests/tap.sh"
cd "$tmp" || exit 1
plan 20
sc="$SRCDIR/scenarios/tiny.cfg"

"$TRAINSIM" plan "$sc" --deadline-days 1 --top 3 --json >p.txt; ok $? "plan exits 0"
grep -c '^ *trainsim -s' p.txt | grep -qx 3; ok $? "three ranked configurations with their commands"
cmd=$(grep -m1 '^ *trainsim -s' p.txt | sed 's/^ *trainsim//')
eval "\"$TRAINSIM\" -q --json -o best.h5 $cmd" >run.json; ok $? "the best configuration runs"
tail -1 p.txt >plan.json
cmp -s plan.json run.json; ok $? "trainsim reproduces the planned summary bit for bit"
# Minimize time with failures on: a deadline no layout meets is reported.
"$TRAINSIM" plan "$sc" --deadline-days 0.0001 >none.txt 2>none.err; [ $? -eq 3 ]
ok $? "impossible deadline exits 3"
grep -q 'no configuration .* completes within 0.0001 days' none.err &&
	grep -q '^  16 GPUs:.* late even without failures' none.err
ok $? "and says why, per cluster size"
# Daly 2006 eq. 37 by hand for tiny.cfg: checkpoint 125,948,928 params x 14 B
# / 2 GB/s = 0.881642496 s; 2 nodes x 6.5 / 1000 node-days: M = 6,646,153.8 s;
# sqrt(2 d M) (1 + sqrt(d/2M)/3 + d/(18 M)) - d = 3422.72 s.
"$TRAINSIM" plan --daly "$sc" >d.txt; ok $? "plan --daly"
awk '$1=="daly_interval_s"{exit !($2 > 3422.7 && $2 < 3422.75)}' d.txt
ok $? "Daly's interval for tiny.cfg = 3422.72 s (by hand)"
"$TRAINSIM" plan "$sc" --deadline-days 1 --minimize nonsense 2>/dev/null; [ $? -eq 2 ]
ok $? "bad --minimize: exit 2"

# The pricing mix (two pools) and the table of what was evaluated.
"$TRAINSIM" plan "$sc" --deadline-days 1 --top 50 --gpus 32 --spot-fractions 0,0.5 \
	--tsv plan.tsv --json >q.txt; ok $? "plan --spot-fractions --tsv"
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "pools.sp.nodes") c = i; next }
	c && $c == 2 { f = 1 } END { exit !f }' plan.tsv
ok $? "half of 4 nodes in a spot pool evaluated: pools.sp.nodes=2"
cmd=$(grep -m1 '^ *trainsim -s' q.txt | sed 's/^ *trainsim//')
eval "\"$TRAINSIM\" -q --json -o best2.h5 $cmd" >run2.json && tail -1 q.txt | cmp -s - run2.json
ok $? "the best configuration with pools reproduces bit for bit"
[ "$(awk -F'\t' 'NR > 1 && $NF == 1' plan.tsv | wc -l)" -ge 2 ]; ok $? "--tsv holds the evaluated configurations"
"$SRCDIR/plots/plot-sweep" -o pp --kind pareto plan.tsv >/dev/null && [ -s pp/sweep-pareto.png ]
ok $? "plot-sweep draws the planner's table"

# Issue 7: the 175B case plans (the step model, on two cluster sizes: the
# whole search is the benchmark, make bench-plan), and its best
# configuration run through trainsim reproduces the figures exactly.  How
# long the search takes is a benchmark, not a test: under ASan or valgrind
# a wall-clock limit measures the instrumentation.
"$TRAINSIM" plan "$SRCDIR/scenarios/175b.cfg" --deadline-days 40 --top 1 \
	--gpus 768,1024 --json >b.txt
ok $? "plan 175b.cfg --deadline-days 40 --gpus 768,1024"
cmd=$(grep -m1 '^ *trainsim -s' b.txt | sed 's/^ *trainsim//')
eval "\"$TRAINSIM\" -q --json -o b175.h5 $cmd" >b175.json && tail -1 b.txt | cmp -s - b175.json
ok $? "175B: trainsim reproduces the planned summary bit for bit"

# Helpers only warm the pace cache: the answer and the table are the same
# with one process or several.
for j in 1 3; do
	"$TRAINSIM" plan "$sc" --deadline-days 1 --top 3 --jobs $j --tsv j$j.tsv >j$j.txt || echo "exit $?" >>j$j.txt
done
cmp -s j1.txt j3.txt && cmp -s j1.tsv j3.tsv
ok $? "--jobs 1 and --jobs 3: the same plan and the same table"
"$TRAINSIM" plan "$sc" --deadline-days 1 --jobs 0 >/dev/null 2>err.txt
[ $? -eq 2 ] && grep -q -- '--jobs 0: expected 1..16' err.txt
ok $? "--jobs 0: exit 2, says what is expected"

# The user's settings of the spot pool reach the candidates that have one
# (and only those: a candidate all on demand has no pool "sp"); the best
# configuration still reproduces bit for bit.
"$TRAINSIM" plan "$sc" --deadline-days 1 --top 1 --spot-fractions 0,1 \
	-s pools.sp.price_usd_per_node_hour=1 -s pools.sp.preemption_per_node_hour=0.05 \
	-s spot.policy=elastic --json >sp.txt
ok $? "--spot-fractions with the spot pool's price and preemptions given"
cmd=$(grep -m1 '^ *trainsim -s' sp.txt | sed 's/^ *trainsim//')
eval "\"$TRAINSIM\" -q --json -o sp.h5 $cmd" >sp.json && tail -1 sp.txt | cmp -s - sp.json
ok $? "... its best configuration reproduces bit for bit"
