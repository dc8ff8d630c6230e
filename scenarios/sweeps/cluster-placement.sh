#!/bin/sh
# cluster-placement.sh -- does topology-aware placement spare jobs from
# slowing each other on the fabric?  The shared fleet of
# scenarios/cluster-4096.cfg, its jobs placed topology-aware (as few leaf
# switches as they fit) or first fit (the lowest free nodes, wherever they
# are), over seeds.  Each running job's ring shares the fabric max-min
# with its neighbours' (models/cfabric.h, doc/cluster.txt); the groups
# picture shows the mean and worst fabric slowdown, the jobs slowed, the
# mean wait and the leaves per job for each placement.  The scenario's
# communication shares come from the step model (pretraining 2.5%,
# fine-tuning 1.0% of their time in scale-out collectives); for jobs that
# scale poorly, e.g.
#   cluster-placement.sh -s classes.pretrain.comm_fraction=0.25 \
#       -s classes.finetune.comm_fraction=0.25
. "$(dirname "$0")/lib.sh"
sweep_init cluster-placement "$@"
sweep_scenario scenarios/cluster-4096.cfg
sweep_command cluster
sweep_axis fleet.placement topology first_fit
if [ "$SWEEP_SMALL" = 1 ]; then
	# One seed, three days of jobs: seconds in all (CI).
	SWEEP_FIXED="$SWEEP_FIXED	workload.days=3"
	sweep_axis cluster_run.seed 1
else
	sweep_axis cluster_run.seed 1 2 3 4 5
fi
sweep_plot() {
	plot_sweep --kind groups --group fleet.placement \
		--y mean_fabric_slowdown,max_fabric_slowdown,jobs_fabric_slowed,mean_wait_s,mean_leaves_per_job \
		--title "4,096-GPU shared fleet: placement and fabric interference"
}
sweep_go
