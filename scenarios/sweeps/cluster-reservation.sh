#!/bin/sh
# cluster-reservation.sh -- how big should our reservation be?  The shared
# fleet of scenarios/cluster-4096.cfg (a month of mixed jobs from three
# teams; on-demand and spot pools of up to 64 nodes each, grown and shrunk
# by the autoscaler) with 256 to 768 reserved nodes of 8 H100s, over seeds
# (the arrivals, failures and reclaims differ).  A small reservation waits
# and bursts to on-demand at 1.9x the reserved rate; a big one sits idle.
# The tradeoff picture draws the month's cost against the mean wait, one
# point per reservation size; the groups picture adds p95 wait, the idle
# reserved cost and utilisation with their confidence intervals.
. "$(dirname "$0")/lib.sh"
sweep_init cluster-reservation "$@"
sweep_scenario scenarios/cluster-4096.cfg
sweep_command cluster
if [ "$SWEEP_SMALL" = 1 ]; then
	# Three sizes, one seed, three days of jobs: seconds in all (CI).
	sweep_axis fleet.pools.reserved.nodes 256 512 768
	SWEEP_FIXED="$SWEEP_FIXED	workload.days=3"
	sweep_axis cluster_run.seed 1
else
	sweep_axis fleet.pools.reserved.nodes 256 320 384 448 512 576 640 768
	sweep_axis cluster_run.seed 1 2 3 4 5
fi
sweep_plot() {
	t="4,096-GPU shared fleet: reservation size"
	plot_sweep --kind tradeoff --label fleet.pools.reserved.nodes --title "$t" &&
	plot_sweep --kind groups --group fleet.pools.reserved.nodes \
		--y cost_usd,mean_wait_s,p95_wait_s,idle_reserved_usd,utilisation,cost_usd_pool_ondemand \
		--title "$t"
}
sweep_go
