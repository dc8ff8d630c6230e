/*
 * power.h -- first power model: each GPU draws a busy power while training
 * and its idle power otherwise (checkpoint stall, restart); each node adds a
 * constant overhead (CPUs, memory, NICs, fans); the facility multiplies IT
 * power by the PUE.
 *
 * Busy power = idle + busy_fraction x (TDP - idle).  The default fraction,
 * 0.8, follows measured training nodes averaging 76-82% of nameplate
 * (Latif et al.; Newkirk et al. 2025, in shared/reference/
 * hardware-cost-carbon.md section 1.2).
 */
#ifndef MODELS_POWER_H
#define MODELS_POWER_H

#include "sim/cfg.h"
#include "models/gpu.h"

struct power {
	double gpu_busy_w;
	double gpu_idle_w;
	double node_overhead_w;
	double pue;
};

extern const struct cfg_setting power_settings[];
void power_from_scenario(const struct scenario *sc, const struct gpu_spec *g,
			 struct power *p);

#endif
