/*
 * gpu.c -- the GPU catalog's schema and reader.  The figures themselves, and
 * their sources, are in scenarios/catalog/gpus.cfg.
 */
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
	{ "gpus.*.hbm_bw_gbps", CFG_FLOAT, "GB/s", 1, 1e6, NULL, NULL,
	  "HBM bandwidth (10^9 bytes/s)" },
	{ "gpus.*.tdp_w", CFG_FLOAT, "W", 1, 1e4, NULL, NULL,
	  "board power limit" },
	{ "gpus.*.idle_w", CFG_FLOAT, "W", 0, 1e4, NULL, NULL,
	  "power with memory allocated and no kernels running" },
	{ "gpus.*.nvlink", CFG_STRING, "", 0, 0, "", NULL,
	  "NVLink generation, a name in the links catalog" },
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
	out->hbm_bw_Bps = sc_float(sc, "gpus.%s.hbm_bw_gbps", name) * 1e9;
	out->tdp_w = sc_float(sc, "gpus.%s.tdp_w", name);
	out->idle_w = sc_float(sc, "gpus.%s.idle_w", name);
	out->nvlink = sc_str(sc, "gpus.%s.nvlink", name);
}
