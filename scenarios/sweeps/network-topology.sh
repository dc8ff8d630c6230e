#!/bin/sh
# network-topology.sh -- fat tree or dragonfly?  GPT-3 175B
# (scenarios/175b.cfg) at three cluster sizes on each fabric: the default
# rail-optimised HDR fat tree, and a dragonfly of the same links sized by
# network.dragonfly's defaults (trainsim --schema).
. "$(dirname "$0")/lib.sh"
sweep_init network-topology "$@"
sweep_scenario scenarios/175b.cfg
sweep_axis network.topology fat_tree dragonfly
if [ "$SWEEP_SMALL" = 1 ]; then
	sweep_axis cluster.gpus 1024
	sweep_axis run.seed 1
else
	sweep_axis cluster.gpus 512 1024 2048
	sweep_axis run.seed $(seq 1 5)
fi
sweep_plot() {
	plot_groups network.topology iteration_time_s,cost_usd,duration_days \
		"GPT-3 175B: fat tree vs dragonfly"
}
sweep_go
