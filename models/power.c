/* power.c -- see power.h. */
#include <stdio.h>
#include <string.h>

#include "models/kpower.h"
#include "models/power.h"
#include "models/region.h"

const struct cfg_setting power_settings[] = {
	{ "power.gpu_busy_fraction", CFG_FLOAT, "", -1, 1, "-1", NULL,
	  "training power without a step breakdown (formula model), as a fraction "
	  "of the way from idle to TDP; negative (default -1): from the work done, "
	  "idle + (gemm_w - idle) x training.efficiency x peak / the rate gemm_w "
	  "was measured at (models/kpower.h)" },
	/* Settings that re-described the GPU, the host or the platform: their
	 * figures now come from the catalogs and the network as built. */
	CFG_REMOVED_FOR("power.level.*", "GPU power levels are the GPU's catalog "
			"figures (gpus.*.gemm_w, mem_w, comm_w, idle_w)"),
	CFG_REMOVED_FOR("power.node_overhead_w", "host power comes from the node "
			"catalog (cluster.node, scenarios/catalog/nodes.cfg)"),
	CFG_REMOVED_FOR("power.nic_w", "the network is counted as built "
			"(links.*.nic_w)"),
	CFG_REMOVED_FOR("power.switch_ports_per_nic", "the network is counted as "
			"built (switches per tier from the topology)"),
	CFG_REMOVED_FOR("power.switch_port_w", "the network is counted as built "
			"(links.*.switch_w per switch)"),
	CFG_REMOVED_FOR("power.switch_radix", "the network is counted as built "
			"(links.*.switch_radix)"),
	CFG_RENAMED_TO("power.nics_per_node", "network.nics_per_node"),
	{ "power.pue", CFG_FLOAT, "", 1, 5, "1.1", NULL,
	  "power usage effectiveness: facility / IT power (Google fleet 1.10, "
	  "CNBC 2022-04-13)" },
	{ "power.pue_trace", CFG_STRING, "", 0, 0, "", NULL,
	  "hourly PUE trace (CSV datetime_utc,pue), relative to the scenario; "
	  "overrides power.pue" },
	CFG_END
};

/* A GPU's activity levels lie between its idle power and its TDP. */
static int power_check_gpu(const struct scenario *sc, const struct gpu_spec *g,
			   struct err *e)
{
	static const char *const key[] = { "gemm_w", "mem_w", "comm_w" };
	double w[] = { g->gemm_w, g->mem_w, g->comm_w };
	char path[256];

	for (int i = 0; i < 3; i++)
		if (w[i] < g->idle_w || w[i] > g->tdp_w) {
			snprintf(path, sizeof path, "gpus.%s.%s", g->name, key[i]);
			return sc_error(sc, e, path, "%g W is outside idle %g W .. TDP "
					"%g W (expected a board power between them)",
					w[i], g->idle_w, g->tdp_w);
		}
	return 0;
}

int power_from_scenario(const struct scenario *sc, const struct gpu_spec *g,
			struct power *p, struct err *e)
{
	p->gpu_idle_w = g->idle_w;
	p->gpu_tdp_w = g->tdp_w;
	p->gemm_w = g->gemm_w;
	p->mem_w = g->mem_w;
	p->comm_w = g->comm_w;
	p->formula_w = power_formula_w(sc, g);
	p->pue = region_float(sc, "power.pue", "pue");
	p->pue_trace = sc_str(sc, "power.pue_trace");
	if (power_check_gpu(sc, g, e) < 0 || node_from_scenario(sc, &p->node, e) < 0)
		return -1;
	p->gpus_per_node = (int)sc_int(sc, "cluster.gpus_per_node");
	p->host_busy_w = node_host_w(&p->node, p->gpus_per_node, true);
	p->host_idle_w = node_host_w(&p->node, p->gpus_per_node, false);
	return 0;
}

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

double power_formula_w(const struct scenario *sc, const struct gpu_spec *g)
{
	double f = sc_float(sc, "power.gpu_busy_fraction");
	bool fp8 = strcmp(sc_str(sc, "parallel.dtype"), "fp8") == 0;
	double rate = sc_float(sc, "training.efficiency") *
		      (fp8 ? g->peak_fp8_flops : g->peak_bf16_flops);

	if (f >= 0)
		return g->idle_w + f * (g->tdp_w - g->idle_w);
	/* every FLOP of the count runs in a tensor kernel: their energy is
	 * the work's, at whatever rate each kernel runs (one second of it) */
	return g->idle_w + kpw_tensor_j(g, rate, 1.0);
}

double power_train_gpu_w(const struct power *p, double kernel_frac, double kernel_dyn_w)
{
	double w;

	if (kernel_frac <= 0)
		return p->formula_w;
	/* between kernels (exposed communication, the pipeline bubble) the
	 * GPU spins in an NCCL kernel at comm_w */
	w = p->gpu_idle_w + kernel_dyn_w + (p->comm_w - p->gpu_idle_w) * (1 - clamp01(kernel_frac));
	return w < p->gpu_tdp_w ? w : p->gpu_tdp_w;
}
