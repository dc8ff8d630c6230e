/*
 * power.h -- IT power of the job: GPUs by what they are doing, the hosts
 * of their nodes, and the facility's PUE.
 *
 * A GPU draws idle_w plus what its kernels' work costs (models/kpower.h):
 * dynamic power follows the rate of work, so a GEMM at half the rate at
 * which gemm_w was measured draws idle + half of (gemm_w - idle), and a
 * memory-bound kernel likewise against mem_w and the copy rate, each at
 * most TDP.  The step model sums that energy over an iteration's kernels
 * (optimizer included; struct step_result kernel_dyn_w), so
 *
 *   P = idle_w + kernel_dyn_w + (comm_w - idle_w) x (1 - kernel_frac)
 *
 * with kernel_frac the share of the iteration in compute kernels: the
 * rest is exposed communication and the pipeline bubble, spent spinning
 * in an NCCL kernel at comm_w (gpus.cfg: a V100 spinning in a collective
 * drew 66 W against 53 W idle; the collectives' own data movement is
 * not charged).
 *
 * Without a breakdown (the formula iteration model) the training level is
 * the same law at the formula's own utilisation: every FLOP of its count
 * in a tensor kernel, at training.efficiency of peak on average:
 * idle + (gemm_w - idle) x efficiency x peak / R_gemm (at most TDP).  It
 * leaves out the memory-bound kernels, which the step model finds add
 * 3-45% to the kernels' dynamic energy (more for smaller models): a lower
 * bound.  power.gpu_busy_fraction, when set, replaces it with
 * idle + fraction x (TDP - idle).  A GPU that is held but not training
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
	double formula_w;	/* training level without a breakdown */
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
/* Power of one training GPU: kernel_frac of the iteration in kernels
 * whose energy above idle is kernel_dyn_w on average (step_result);
 * kernel_frac <= 0: no breakdown known, the formula level. */
double power_train_gpu_w(const struct power *p, double kernel_frac, double kernel_dyn_w);
/* The training level without a breakdown (see above). */
double power_formula_w(const struct scenario *sc, const struct gpu_spec *g);

#endif
