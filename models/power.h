/*
 * power.h -- IT power of the job: GPUs by what they are doing, the hosts
 * of their nodes, and the facility's PUE.
 *
 * A GPU draws its catalog power for what the step model says it does
 * during an iteration (gpus.cfg: gemm_w, mem_w, comm_w, idle_w; the H200's
 * measured, the others' scaled from it, with sources there):
 *
 *   P = gemm_w x tensor_active + mem_w x (busy - tensor_active)
 *     + comm_w x (1 - busy)
 *
 * with busy the compute-busy fraction and tensor_active the share of time
 * in tensor-core (GEMM) kernels; the rest is exposed communication and the
 * pipeline bubble, both spent in spinning NCCL kernels.  Without a
 * breakdown (busy = 0: the formula iteration model) the training level is
 * idle + power.gpu_busy_fraction x (TDP - idle), 0.8 by default: training
 * nodes average 76-82% of nameplate (Latif et al., "Empirical Measurements
 * of AI Training Power Demand on a GPU-Accelerated Node", 2025; Newkirk et
 * al., arXiv:2506.14551, 2025; doc/sources.md section 6).  A GPU that is held but not training
 * (checkpoint stall, restart, waiting for capacity) draws idle_w.
 *
 * Each node's host (CPUs, memory, host NICs, fans, drives, NVSwitches) is
 * the node catalog's, busy while its GPUs train and idle otherwise, and the
 * power supplies' loss comes on top of GPUs and host (models/node.h).  The
 * network is not described here: its NICs, switches and energy per bit are
 * those of the platform as built (topologies/platform.h), read by
 * accounting.  Facility power = IT power x PUE (constant, or an hourly
 * trace).
 */
#ifndef MODELS_POWER_H
#define MODELS_POWER_H

#include <stdbool.h>

#include "sim/cfg.h"
#include "models/gpu.h"
#include "models/node.h"

struct power {
	double gpu_idle_w, gpu_tdp_w;
	double gemm_w, mem_w, comm_w;	/* the GPU's activity levels */
	double busy_fraction;	/* training level without a breakdown */
	struct node_spec node;
	int gpus_per_node;
	double host_busy_w, host_idle_w;	/* one job node's host, DC */
	double pue;		/* constant PUE, unless pue_trace is set */
	const char *pue_trace;
};

extern const struct cfg_setting power_settings[];
/* Fill p; an error at the GPU's or the node's key when they do not hold. */
int power_from_scenario(const struct scenario *sc, const struct gpu_spec *g,
			struct power *p, struct err *e);
/* Power of one training GPU; busy <= 0 means no breakdown is known. */
double power_train_gpu_w(const struct power *p, double busy, double tensor);

#endif
