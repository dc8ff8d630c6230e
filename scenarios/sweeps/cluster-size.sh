#!/bin/sh
# cluster-size.sh -- how many GPUs?  GPT-3 175B (scenarios/175b.cfg, TP 8 x
# PP 16, global batch 1536) on 256 to 3072 A100s (data-parallel degree 2 to
# 24, every one a divisor of the batch), with replicas: a bigger cluster
# finishes sooner but fails more often.  Works on main.
. "$(dirname "$0")/lib.sh"
sweep_init cluster-size "$@"
sweep_scenario scenarios/175b.cfg
if [ "$SWEEP_SMALL" = 1 ]; then
	sweep_axis cluster.gpus 512 1024 2048
	sweep_axis run.seed 1 2
else
	sweep_axis cluster.gpus 256 512 768 1024 1536 2048 3072
	sweep_axis run.seed $(seq 1 20)
fi
sweep_plot() {
	plot_groups cluster.gpus cost_usd,duration_days,carbon_kg,goodput "GPT-3 175B: cluster size"
}
sweep_go
