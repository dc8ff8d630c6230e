#!/bin/sh
# zero-vs-megatron.sh -- ZeRO-3 or Megatron 3D parallelism?  GPT-3 175B
# (scenarios/175b.cfg, 1024 A100, global batch 1536) as Megatron TP 8 x PP 16
# (ZeRO off), the same with ZeRO-1 over data parallelism, and ZeRO-3 with
# TP 8 and no pipeline (data-parallel degree 128), on the step model.  The
# small grid runs the same layouts on 256 GPUs (a ZeRO-3 iteration on 1024
# GPUs is seconds of simulation: every layer's gathers on the fabric).
. "$(dirname "$0")/lib.sh"
sweep_init zero-vs-megatron "$@"
sweep_scenario scenarios/175b.cfg
sweep_axis - megatron_3d:parallel.zero_stage=0,parallel.tp=8,parallel.pp=16 \
	megatron_3d_zero1:parallel.zero_stage=1,parallel.tp=8,parallel.pp=16 \
	zero3_tp8:parallel.zero_stage=3,parallel.tp=8,parallel.pp=1
if [ "$SWEEP_SMALL" = 1 ]; then
	sweep_axis cluster.gpus 256
	sweep_axis run.seed 1
else
	sweep_axis run.seed $(seq 1 5)
fi
sweep_plot() {
	plot_sweep --kind groups --group @1 \
		--y iteration_time_s,peak_memory_gib,cost_usd --title "GPT-3 175B: ZeRO-3 vs Megatron 3D"
}
sweep_go
