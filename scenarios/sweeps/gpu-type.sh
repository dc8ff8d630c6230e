#!/bin/sh
# gpu-type.sh -- which GPU?  GPT-3 175B (scenarios/175b.cfg) on 1024 GPUs of
# each type at its price per GPU-hour (catalog/prices.cfg, sources in
# doc/sources.md section 4): A100 40GB $4.10 (AWS p4d on demand), A100 80GB $5.12 (p4de on
# demand), H100 $12.29 (p5 on demand before the June 2025 cut), H200 $5.408
# (p5e capacity block, late 2024).  Works on main, where every GPU reaches
# the scenario's training.efficiency of its peak (the first-run model); the
# step model will make efficiency and memory limits per GPU.
. "$(dirname "$0")/lib.sh"
sweep_init gpu-type "$@"
sweep_scenario scenarios/175b.cfg
sweep_axis - a100_40gb:cluster.gpu=a100_40gb,cost.gpu_hour_usd=4.10 \
	a100_80gb:cluster.gpu=a100_80gb,cost.gpu_hour_usd=5.12 \
	h100_sxm:cluster.gpu=h100_sxm,cost.gpu_hour_usd=12.29 \
	h200_sxm:cluster.gpu=h200_sxm,cost.gpu_hour_usd=5.408
sweep_seeds 2 20
sweep_plot() {
	plot_groups @1 cost_usd,duration_days,carbon_kg \
		"GPT-3 175B on 1024 GPUs: GPU type (A100, H100 on-demand; H200 capacity-block price)"
}
sweep_go
