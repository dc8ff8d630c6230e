/* power.c -- see power.h. */
#include "models/power.h"
#include "models/region.h"

const struct cfg_setting power_settings[] = {
	{ "power.gpu_busy_fraction", CFG_FLOAT, "", 0, 1, "0.8", NULL,
	  "training power as a fraction of the way from idle to TDP, when the step "
	  "model gives no breakdown (measured nodes: 0.76-0.82 of nameplate)" },
	{ "power.level.tensor", CFG_FLOAT, "", 0, 1, "1.0", NULL,
	  "level (0 idle .. 1 TDP) while tensor-core kernels run (assumption)" },
	{ "power.level.other", CFG_FLOAT, "", 0, 1, "0.8", NULL,
	  "level while other (memory-bound) kernels run (assumption)" },
	{ "power.level.comm", CFG_FLOAT, "", 0, 1, "0.4", NULL,
	  "level while waiting on exposed communication (assumption)" },
	{ "power.level.bubble", CFG_FLOAT, "", 0, 1, "0.1", NULL,
	  "level in the pipeline bubble (assumption)" },
	{ "power.node_overhead_w", CFG_FLOAT, "W", 0, 1e6, "0", NULL,
	  "per-node power besides the GPUs and the fabric's NICs (CPUs, memory, "
	  "fans); the network's NICs and switches come from the links catalog" },
	/* The network's NICs, ports and switches are counted from the
	 * platform as built; power.nic_w, switch_ports_per_nic, switch_port_w
	 * and switch_radix are gone (links.*.nic_w, switch_w, switch_radix). */
	CFG_RENAMED_TO("power.nics_per_node", "network.nics_per_node"),
	{ "power.pue", CFG_FLOAT, "", 1, 5, "1.1", NULL,
	  "power usage effectiveness: facility / IT power (Google fleet 1.10, "
	  "CNBC 2022-04-13)" },
	{ "power.pue_trace", CFG_STRING, "", 0, 0, "", NULL,
	  "hourly PUE trace (CSV datetime_utc,pue), relative to the scenario; "
	  "overrides power.pue" },
	CFG_END
};

void power_from_scenario(const struct scenario *sc, const struct gpu_spec *g,
			 struct power *p)
{
	p->gpu_idle_w = g->idle_w;
	p->gpu_tdp_w = g->tdp_w;
	p->busy_fraction = sc_float(sc, "power.gpu_busy_fraction");
	p->level_tensor = sc_float(sc, "power.level.tensor");
	p->level_other = sc_float(sc, "power.level.other");
	p->level_comm = sc_float(sc, "power.level.comm");
	p->level_bubble = sc_float(sc, "power.level.bubble");
	p->node_overhead_w = sc_float(sc, "power.node_overhead_w");
	p->pue = region_float(sc, "power.pue", "pue");
	p->pue_trace = sc_str(sc, "power.pue_trace");
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

double power_train_gpu_w(const struct power *p, double busy, double tensor, double comm)
{
	double level;

	if (busy <= 0) {
		level = p->busy_fraction;
	} else {
		busy = clamp01(busy);
		tensor = clamp01(tensor < busy ? tensor : busy);
		comm = clamp01(comm < 1 - busy ? comm : 1 - busy);
		level = p->level_tensor * tensor + p->level_other * (busy - tensor) +
			p->level_comm * comm + p->level_bubble * (1 - busy - comm);
	}
	return p->gpu_idle_w + level * (p->gpu_tdp_w - p->gpu_idle_w);
}
