#!/bin/sh
# spot-vs-ondemand.sh -- spot, on-demand or a mix?  GPT-3 175B
# (scenarios/175b.cfg, 128 nodes) all on demand, all spot, and half and
# half, each with 30 replicas: the cost distributions and their 95%
# confidence intervals.
#
# PENDING on main: pools.NAME.class is declared, but spot prices and
# preemptions arrive with the disruption and accounting work; until then
# the three presets run and cost the same.  Not in the CI subset.
. "$(dirname "$0")/lib.sh"
sweep_init spot-vs-ondemand "$@"
sweep_scenario scenarios/175b.cfg
sweep_axis - on_demand:pools.all.class=on_demand,pools.all.nodes=128 \
	spot:pools.all.class=spot,pools.all.nodes=128 \
	mixed:pools.od.class=on_demand,pools.od.nodes=64,pools.sp.class=spot,pools.sp.nodes=64
if [ "$SWEEP_SMALL" = 1 ]; then
	sweep_axis run.seed 1 2 3
else
	sweep_axis run.seed $(seq 1 30)
fi
sweep_plot() {
	plot_sweep --kind groups --group @1 --y cost_usd,duration_days,preemptions \
		--title "GPT-3 175B: spot vs on-demand" &&
	plot_sweep --kind pareto --title "GPT-3 175B: spot vs on-demand"
}
sweep_go
