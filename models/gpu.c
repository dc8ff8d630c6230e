/*
 * gpu.c -- the GPU catalog's schema and reader.  The figures themselves, and
 * their sources, are in scenarios/catalog/gpus.cfg.
 */
#include <stdio.h>

#include "models/gpu.h"

const struct cfg_setting gpu_settings[] = {
	{ "gpus.*.peak_bf16_tflops", CFG_FLOAT, "TFLOP/s", 1, 1e5, NULL, NULL,
	  "dense FP16/BF16 tensor-core peak" },
	{ "gpus.*.peak_fp8_tflops", CFG_FLOAT, "TFLOP/s", 0, 1e5, "0", NULL,
	  "dense FP8 tensor-core peak (0: no FP8)" },
	{ "gpus.*.peak_tf32_tflops", CFG_FLOAT, "TFLOP/s", 0, 1e5, "0", NULL,
	  "dense TF32 tensor-core peak (0: no TF32)" },
	{ "gpus.*.hbm_gb", CFG_FLOAT, "GB", 1, 1e4, NULL, NULL,
	  "HBM capacity (10^9 bytes)" },
	{ "gpus.*.hbm_bw_gbyte_s", CFG_FLOAT, "GB/s", 1, 1e6, NULL, NULL,
	  "HBM bandwidth (10^9 bytes/s)" },
	CFG_RENAMED_TO("gpus.*.hbm_bw_gbps", "gpus.*.hbm_bw_gbyte_s"),
	{ "gpus.*.tdp_w", CFG_FLOAT, "W", 1, 1e4, NULL, NULL,
	  "board power limit" },
	{ "gpus.*.idle_w", CFG_FLOAT, "W", 0, 1e4, NULL, NULL,
	  "power with memory allocated and no kernels running" },
	{ "gpus.*.nvlink", CFG_STRING, "", 0, 0, "", NULL,
	  "NVLink generation, a name in the links catalog" },
	{ "gpus.*.gemm_eff_gflop", CFG_FLOAT_LIST, "GFLOP", 1e-6, 1e9, "[1.0]", NULL,
	  "GEMM sizes (10^9 FLOPs, ascending) of the efficiency curve" },
	{ "gpus.*.gemm_eff", CFG_FLOAT_LIST, "", 0.01, 1, "[0.7]", NULL,
	  "achieved fraction of the tensor peak at each gemm_eff_gflop size" },
	{ "gpus.*.mem_eff", CFG_FLOAT, "", 0.05, 1, "0.8", NULL,
	  "achieved fraction of HBM bandwidth in streaming (elementwise) kernels" },
	{ "gpus.*.launch_us", CFG_FLOAT, "us", 0, 1000, "4", NULL,
	  "per-kernel launch and tail overhead" },
	{ "gpus.*.flash_eff", CFG_FLOAT, "", 0.01, 1, "0.5", NULL,
	  "fused flash-attention kernel: achieved fraction of the tensor peak" },
	{ "gpus.*.source", CFG_STRING, "", 0, 0, "", NULL,
	  "where the figures come from (datasheet, paper, URL, date; trainsim list)" },
	CFG_END
};

void gpu_from_scenario(const struct scenario *sc, const char *name,
		       struct gpu_spec *out)
{
	out->name = name;
	out->peak_bf16_flops = sc_float(sc, "gpus.%s.peak_bf16_tflops", name) * 1e12;
	out->peak_fp8_flops = sc_float(sc, "gpus.%s.peak_fp8_tflops", name) * 1e12;
	out->peak_tf32_flops = sc_float(sc, "gpus.%s.peak_tf32_tflops", name) * 1e12;
	out->hbm_bytes = sc_float(sc, "gpus.%s.hbm_gb", name) * 1e9;
	out->hbm_bw_Bps = sc_float(sc, "gpus.%s.hbm_bw_gbyte_s", name) * 1e9;
	out->tdp_w = sc_float(sc, "gpus.%s.tdp_w", name);
	out->idle_w = sc_float(sc, "gpus.%s.idle_w", name);
	out->nvlink = sc_str(sc, "gpus.%s.nvlink", name);

	size_t n = sc_list_len(sc, "gpus.%s.gemm_eff_gflop", name);
	size_t ne = sc_list_len(sc, "gpus.%s.gemm_eff", name);
	out->gemm_sizes_given = (int)n;
	out->gemm_effs_given = (int)ne;
	if (ne < n)
		n = ne;		/* gpu_check_curve() reports the mismatch */
	if (n > GPU_CURVE_MAX)
		n = GPU_CURVE_MAX;
	if (n == 0) {		/* schema defaults: a flat curve */
		out->gemm_points = 1;
		out->gemm_gflop[0] = 1.0;
		out->gemm_eff[0] = 0.7;
	} else {
		out->gemm_points = (int)n;
		for (size_t i = 0; i < n; i++) {
			out->gemm_gflop[i] = sc_list_float(sc, i, "gpus.%s.gemm_eff_gflop", name);
			out->gemm_eff[i] = sc_list_float(sc, i, "gpus.%s.gemm_eff", name);
		}
	}
	out->mem_eff = sc_float(sc, "gpus.%s.mem_eff", name);
	out->launch_s = sc_float(sc, "gpus.%s.launch_us", name) * 1e-6;
	out->flash_eff = sc_float(sc, "gpus.%s.flash_eff", name);
}

int gpu_check_curve(const struct gpu_spec *g, const struct sc_where *w,
		    struct err *e)
{
	int n = g->gemm_sizes_given, ne = g->gemm_effs_given;
	char eff_path[256], size_path[256];

	snprintf(eff_path, sizeof eff_path, "gpus.%s.gemm_eff", g->name);
	snprintf(size_path, sizeof size_path, "gpus.%s.gemm_eff_gflop", g->name);
	if (n != ne)
		return sc_where_error(w, e, eff_path, "%d efficiencies for %d sizes "
				      "(expected one per gemm_eff_gflop entry)", ne, n);
	if (n > GPU_CURVE_MAX)
		return sc_where_error(w, e, size_path, "%d points (expected at most %d)",
				      n, GPU_CURVE_MAX);
	/* n points were read (n <= GPU_CURVE_MAX, as many as efficiencies) */
	for (int i = 1; i < n; i++)
		if (g->gemm_gflop[i] <= g->gemm_gflop[i - 1])
			return sc_where_error(w, e, size_path, "sizes not ascending at "
					      "entry %d (expected increasing GFLOP values)", i);
	return 0;
}
