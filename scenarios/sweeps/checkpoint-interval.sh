#!/bin/sh
# checkpoint-interval.sh -- what does the checkpoint interval cost?  The
# GPT-3 175B run (scenarios/175b.cfg: 128 nodes, 6.5 failures per 1,000
# node-days, 24 s checkpoints) at intervals from 5 minutes to 6 hours, each
# with replicas (seeds), against Daly's optimum (trainsim plan --daly).
# Works on main.  Options: see lib.sh (--small, -j, --dry-run, --slurm, ...).
. "$(dirname "$0")/lib.sh"
sweep_init checkpoint-interval "$@"
sweep_scenario scenarios/175b.cfg
if [ "$SWEEP_SMALL" = 1 ]; then
	sweep_axis training.checkpoint.interval_s 600 2400 10800
	sweep_axis run.seed 1 2
else
	sweep_axis training.checkpoint.interval_s 300 600 900 1200 1800 2400 3000 3600 \
		5400 7200 10800 14400 21600
	sweep_axis run.seed $(seq 1 40)
fi
sweep_plot() {
	# Daly's interval for the scenario as run (with the -s given to us).
	set --
	oldifs=$IFS; IFS='	'
	for ov in $SWEEP_FIXED; do [ -n "$ov" ] && set -- "$@" -s "$ov"; done
	IFS=$oldifs
	daly=$("$TRAINSIM" plan --daly "$@" "$SWEEP_SCENARIO" | awk '$1 == "daly_interval_s" { print $2 }')
	plot_sweep --kind interval --x training.checkpoint.interval_s --daly "${daly:-0}" \
		--title "GPT-3 175B on 1024 A100: checkpoint interval"
}
sweep_go
