#!/bin/sh
# spot-vs-ondemand.sh -- spot, on-demand or a mix?  GPT-3 175B
# (scenarios/175b.cfg, 128 nodes of p4de.24xlarge) all on demand, all spot,
# and half and half, each over seeds (the failures differ): the cost and
# duration distributions with their 95% confidence intervals.
#
# Spot capacity replays the real 16-instance skypilot trace of us-east-2b
# (scenarios/traces, as scenarios/175b-spot.cfg does), each instance
# standing for 8 nodes (all spot) or 4 (the half on spot); the job
# continues elastically on what it holds.  Spot price: 60% below the
# $40.97/h on-demand list price, $16.39 per node-hour (GPU spot in practice
# runs 50-65% below on-demand: digiterialabs.com, Q1 2026; doc/sources.md
# section 4).
. "$(dirname "$0")/lib.sh"
sweep_init spot-vs-ondemand "$@"
sweep_scenario scenarios/175b.cfg
trace=traces/skypilot-16node-us-east-2b.json
sweep_axis - on_demand:pools.all.class=on_demand,pools.all.nodes=128 \
	spot:pools.all.class=spot,pools.all.nodes=128,pools.all.capacity_trace=$trace,pools.all.capacity_scale=8,pools.all.price_usd_per_node_hour=16.39,spot.policy=elastic \
	mixed:pools.od.class=on_demand,pools.od.nodes=64,pools.sp.class=spot,pools.sp.nodes=64,pools.sp.capacity_trace=$trace,pools.sp.capacity_scale=4,pools.sp.price_usd_per_node_hour=16.39,spot.policy=elastic
sweep_seeds 3 30
sweep_plot() {
	plot_groups @1 cost_usd,duration_days,preemptions "GPT-3 175B: spot vs on-demand"
}
sweep_go
