/*
 * power.h -- IT power of the job: GPUs by what they are doing, node
 * overhead, the network's share, and the facility's PUE.
 *
 * A GPU draws between its idle power and its TDP (both from the GPU
 * catalog).  While training, the level depends on what the step model says
 * the GPU does during an iteration:
 *
 *   P = idle + (TDP - idle) x ( L_tensor x tensor_active
 *                             + L_other  x (busy - tensor_active)
 *                             + L_comm   x comm
 *                             + L_bubble x (1 - busy - comm) )
 *
 * with busy the compute-busy fraction, tensor_active the share of time in
 * tensor-core (GEMM) kernels, comm the exposed communication wait (NCCL
 * kernels spinning) and the rest pipeline bubble.  Without a breakdown
 * (busy = 0: no step model yet) the training level is the measured average
 * power.gpu_busy_fraction, 0.8 by default: training nodes average 76-82% of
 * nameplate (Latif et al., arXiv preprint; Newkirk et al. 2025,
 * arXiv:2506.14551; doc/sources.md section 6).  The per-activity levels are
 * our assumptions (no per-kernel measurement was found), chosen so that a
 * typical breakdown (tensor 0.55, other 0.25, comm 0.1, bubble 0.1) gives
 * 0.80.  A GPU that is held but not training (checkpoint stall, restart,
 * waiting for capacity) draws its catalog idle power, which is measured with
 * memory allocated and no kernels (V100: 53 W at P0).
 *
 * Per node: power.node_overhead_w (CPUs, memory, fans; default 0 keeps the
 * GPU-only figure of the first model; a DGX A100 peaks at 6.5 kW with 3.2 kW
 * of GPUs).  The network is not described here: its NICs, switches and
 * energy per bit are those of the platform as built (topologies/
 * platform.h), read by accounting.  Facility power = IT power x PUE
 * (constant, or an hourly trace).
 */
#ifndef MODELS_POWER_H
#define MODELS_POWER_H

#include <stdbool.h>

#include "sim/cfg.h"
#include "models/gpu.h"

struct power {
	double gpu_idle_w, gpu_tdp_w;
	double busy_fraction;	/* training level without a breakdown */
	double level_tensor, level_other, level_comm, level_bubble;
	double node_overhead_w;
	double pue;		/* constant PUE, unless pue_trace is set */
	const char *pue_trace;
};

extern const struct cfg_setting power_settings[];
void power_from_scenario(const struct scenario *sc, const struct gpu_spec *g,
			 struct power *p);
/* Power of one training GPU; busy <= 0 means no breakdown is known. */
double power_train_gpu_w(const struct power *p, double busy, double tensor, double comm);

#endif
