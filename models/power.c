/* power.c -- see power.h. */
#include "models/power.h"

const struct cfg_setting power_settings[] = {
	{ "power.gpu_busy_fraction", CFG_FLOAT, "", 0, 1, "0.8", NULL,
	  "training power as a fraction of the way from idle to TDP" },
	{ "power.node_overhead_w", CFG_FLOAT, "W", 0, 1e6, "0", NULL,
	  "per-node power besides the GPUs (CPUs, memory, NICs, fans)" },
	{ "power.pue", CFG_FLOAT, "", 1, 5, "1.1", NULL,
	  "power usage effectiveness: facility / IT power (Google fleet 1.10, "
	  "CNBC 2022-04-13)" },
	CFG_END
};

void power_from_scenario(const struct scenario *sc, const struct gpu_spec *g,
			 struct power *p)
{
	double f = sc_float(sc, "power.gpu_busy_fraction");

	p->gpu_idle_w = g->idle_w;
	p->gpu_busy_w = g->idle_w + f * (g->tdp_w - g->idle_w);
	p->node_overhead_w = sc_float(sc, "power.node_overhead_w");
	p->pue = sc_float(sc, "power.pue");
}
