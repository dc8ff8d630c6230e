#!/bin/sh
# Every sweep script end to end on its small grid, and the sweep library's
# contract: grid expansion, dry run, resume, failures reported without
# stopping the sweep, the Slurm array script.
. "$SRCDIR/tests/tap.sh"
cd "$tmp" || exit 1
export TRAINSIM
sw=$SRCDIR/scenarios/sweeps
rows() { echo $(( $(wc -l <"$1") - 1 )); }
plan 44

# name:runs in the small grid:pictures
for s in checkpoint-interval:6:sweep-interval cluster-size:6:sweep-groups \
	 gpu-type:8:sweep-groups region:3:sweep-groups \
	 zero-vs-megatron:3:sweep-groups network-topology:2:sweep-pareto \
	 spot-vs-ondemand:9:sweep-groups cluster-reservation:3:sweep-tradeoff \
	 cluster-placement:2:sweep-groups; do
	name=${s%%:*}; rest=${s#*:}; n=${rest%%:*}; pic=${rest#*:}
	sh "$sw/$name.sh" --small -j 2 -o "$name" >/dev/null 2>"$name.err"
	ok $? "$name.sh --small exits 0"
	[ "$(rows "$name/results.tsv")" -eq "$n" ]; ok $? "$name: $n rows in results.tsv"
	[ -s "$name/plots/$pic.png" ] && [ -s "$name/plots/$pic.svg" ]; ok $? "$name: $pic.png and .svg"
done

# The checkpoint study: Daly's optimum for 175b.cfg (by hand: 1.746e11
# params x 14 B / 100 GB/s = 24.45 s; 128 nodes x 6.5 / 1000 node-days:
# M = 103,846 s; eq. 37 gives 2,237 s) is drawn, and the grid's cheapest
# interval is the one nearest to it (600, 2400, 10800 s on the small grid).
grep -q "Daly's optimum 2237 s" checkpoint-interval/plots/sweep-interval.svg
ok $? "Daly's optimum 2237 s marked"
grep -q "simulated minimum 2400 s" checkpoint-interval/plots/sweep-interval.svg
ok $? "simulated minimum at 2400 s, the grid point nearest Daly's"

# The spot study: all-spot replays the capacity trace (preemptions) at the
# spot price and costs less than all on demand, which is never preempted.
col() { awk -F'\t' -v k="$2" -v r="$3" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == k) c = i; next }
	index($1, r) { s += $c; n++ } END { if (n) printf "%.0f\n", s / n }' "$1"; }
t=spot-vs-ondemand/results.tsv
[ "$(col $t preemptions /on_demand,)" -eq 0 ] && [ "$(col $t preemptions /spot,)" -gt 0 ] &&
	[ "$(col $t cost_usd /spot,)" -lt "$(col $t cost_usd /on_demand,)" ]
ok $? "spot: preempted, cheaper than on demand (\$$(col $t cost_usd /spot,) vs \$$(col $t cost_usd /on_demand,))"

# Resume: a second run skips every scenario.
sh "$sw/checkpoint-interval.sh" --small -o checkpoint-interval >/dev/null 2>again.err
ok $? "rerun exits 0"
grep -q '6 runs, 6 already done, 0 to run' again.err; ok $? "rerun skips the 6 runs already done"
rm checkpoint-interval/runs/training.checkpoint.interval_s=600,run.seed=2.h5
sh "$sw/checkpoint-interval.sh" --small -o checkpoint-interval >/dev/null 2>again.err
grep -q '6 runs, 5 already done, 1 to run' again.err; ok $? "a removed run is the only one rerun"

# Dry run: the commands, nothing run.
sh "$sw/cluster-size.sh" --small --dry-run -o dry >dry.out 2>/dev/null; ok $? "--dry-run exits 0"
[ "$(grep -c " -o '$tmp/dry/runs/" dry.out)" -eq 6 ]; ok $? "--dry-run prints 6 commands"
[ ! -d dry/runs ] || [ -z "$(ls dry/runs)" ]; ok $? "--dry-run runs nothing"
grep -q "'cluster.gpus=512' -s 'run.seed=1'" dry.out; ok $? "commands carry the grid's overrides"

# A study with failing points: reported, the rest collected, exit 1.
cat >bad.sh <<EOS
SWEEP_ROOT='$SRCDIR'
. '$sw/lib.sh'
sweep_init bad "\$@"
sweep_scenario scenarios/tiny.cfg
# 24 GPUs: dp 6 does not divide the global batch of 256 (x micro-batch 4).
sweep_axis cluster.gpus 16 24 32
sweep_go
EOS
sh bad.sh -o badrun --no-plot >/dev/null 2>bad.err; rc=$?
[ $rc -eq 1 ]; ok $? "a sweep with failures exits 1 (got $rc)"
grep -q 'FAILED cluster.gpus=24: .*global_batch' bad.err; ok $? "the failed run is named with its error"
[ "$(rows badrun/results.tsv)" -eq 2 ]; ok $? "the other two runs are collected"

# Slurm: the array script and the collect job, without submitting.
sh "$sw/region.sh" --small --slurm --dry-run -o sl >sl.out 2>/dev/null; ok $? "--slurm --dry-run exits 0"
grep -q '^#SBATCH --array=1-3$' sl/slurm-run.sh; ok $? "array job of 3 tasks"
grep -q 'sbatch --dependency=afterany' sl.out; ok $? "collect job depends on the array"
sh -n sl/slurm-run.sh && sh -n sl/slurm-collect.sh; ok $? "both job scripts parse"
