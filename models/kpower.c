/* kpower.c -- see kpower.h. */
#include "models/kpower.h"

/* gpu_from_scenario() keeps both rates in the spec (the step model asks
 * for them per kernel); a spec filled by hand has them computed here. */
double kpw_ref_gemm_flops_s(const struct gpu_spec *g)
{
	double n = KPW_REF_GEMM, t;

	if (g->ref_gemm_flops_s > 0)
		return g->ref_gemm_flops_s;
	t = kern_gemm_s(&g->k, false, 1, n, n, n);
	return t > 0 ? 2 * n * n * n / t : 0;
}

double kpw_ref_copy_Bps(const struct gpu_spec *g)
{
	double t;

	if (g->ref_copy_Bps > 0)
		return g->ref_copy_Bps;
	t = kern_stream_s(&g->k, KS_COPY, KPW_REF_COPY_BYTES);
	return t > 0 ? KPW_REF_COPY_BYTES / t : 0;
}

/* (level - idle) x work / rate, at most (TDP - idle) x t. */
static double dyn_j(const struct gpu_spec *g, double level_w, double work,
		    double rate, double t)
{
	double j, cap;

	if (work <= 0 || t <= 0 || rate <= 0 || level_w <= g->idle_w)
		return 0;
	j = (level_w - g->idle_w) * work / rate;
	cap = (g->tdp_w - g->idle_w) * t;
	return j < cap ? j : cap;
}

double kpw_tensor_j(const struct gpu_spec *g, double flops, double t)
{
	return dyn_j(g, g->gemm_w, flops, kpw_ref_gemm_flops_s(g), t);
}

double kpw_stream_j(const struct gpu_spec *g, double bytes, double t)
{
	return dyn_j(g, g->mem_w, bytes, kpw_ref_copy_Bps(g), t);
}

double kpw_stream_run_j(const struct gpu_spec *g, enum kern_stream kind, double t)
{
	return kpw_stream_j(g, t * g->k.stream_frac[kind] * g->k.hbm_Bps, t);
}
