/*
 * gpu.c -- the GPU catalog's schema and reader.  The figures themselves, and
 * their sources, are in scenarios/catalog/gpus.cfg; measured kernel tables
 * in scenarios/catalog/kernels/.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/gpu.h"
#include "models/kpower.h"
#include "models/stack.h"

const struct cfg_setting gpu_settings[] = {
	{ "gpus.*.peak_bf16_tflops", CFG_FLOAT, "TFLOP/s", 1, 1e5, NULL, NULL,
	  "dense FP16/BF16 tensor-core peak" },
	{ "gpus.*.peak_fp8_tflops", CFG_FLOAT, "TFLOP/s", 0, 1e5, "0", NULL,
	  "dense FP8 tensor-core peak (0: no FP8)" },
	{ "gpus.*.hbm_gb", CFG_FLOAT, "GB", 1, 1e4, NULL, NULL,
	  "HBM capacity as the datasheet names it (10^9 bytes); the memory "
	  "check's limit where hbm_mib is 0" },
	{ "gpus.*.hbm_mib", CFG_FLOAT, "MiB", 0, 1e8, "0", NULL,
	  "device memory as the driver exposes it, in MiB (2^20 bytes): the "
	  "total nvidia-smi or NVML prints, which a job's peak is held to (0: "
	  "hbm_gb x 10^9, below it: the datasheets' \"80 GB\" is 80 GiB of "
	  "stacks)" },
	{ "gpus.*.hbm_bw_gbyte_s", CFG_FLOAT, "GB/s", 1, 1e6, NULL, NULL,
	  "HBM bandwidth (10^9 bytes/s)" },
	CFG_RENAMED_TO("gpus.*.hbm_bw_gbps", "gpus.*.hbm_bw_gbyte_s"),
	{ "gpus.*.tdp_w", CFG_FLOAT, "W", 1, 1e4, NULL, NULL,
	  "board power limit" },
	{ "gpus.*.idle_w", CFG_FLOAT, "W", 0, 1e4, NULL, NULL,
	  "power with memory allocated and no kernels running" },
	{ "gpus.*.gemm_w", CFG_FLOAT, "W", 1, 1e4, NULL, NULL,
	  "power while tensor-core GEMMs run back to back" },
	{ "gpus.*.mem_w", CFG_FLOAT, "W", 1, 1e4, NULL, NULL,
	  "power while memory-bound (streaming) kernels run" },
	{ "gpus.*.comm_w", CFG_FLOAT, "W", 1, 1e4, NULL, NULL,
	  "power while waiting on communication (NCCL kernels spinning)" },
	{ "gpus.*.nvlink", CFG_STRING, "", 0, 0, "", NULL,
	  "NVLink generation, a name in the links catalog" },
	{ "gpus.*.sms", CFG_INT, "", 1, 1e4, "108", NULL,
	  "streaming multiprocessors (GEMM tiles run in waves over them)" },
	{ "gpus.*.calibration", CFG_ENUM, "", 0, 0, "none", "none|kernels|end_to_end",
	  "what the kernel laws were fitted to: measured kernels, published "
	  "training runs, or nothing (uncalibrated: a warning, calibrated = 0)" },
	{ "gpus.*.band", CFG_FLOAT, "", 0, 1, "0.25", NULL,
	  "relative uncertainty of an iteration's time from this GPU's kernel "
	  "laws (combined with the stack's band)" },
	{ "gpus.*.validated_band.*", CFG_FLOAT, "", 0, 10, NULL, NULL,
	  "the band of this GPU under the stack named by the key: the largest "
	  "|error| of its independent validation rows (make validate); where "
	  "given it replaces the combination of the GPU's and the stack's bands "
	  "(above 1 a run's low side is 0: no lower bound)" },
	{ "gpus.*.validated_band_moe.*", CFG_FLOAT, "", 0, 10, NULL, NULL,
	  "the band of this GPU under the stack named by the key for a model "
	  "with experts (model.moe.experts > 0): the largest |error| of its "
	  "mixture-of-experts validation rows; where given, such a run reports "
	  "it in place of validated_band (MoE layers add costs dense rows do "
	  "not test: routing, dispatch, many small expert kernels)" },
	{ "gpus.*.kernels", CFG_STRING, "", 0, 0, "", NULL,
	  "folder of measured kernel tables (gemm-bf16.tsv, gemm-fp8.tsv, "
	  "attention.tsv), relative to the file that names it (\"\": none)" },
	{ "gpus.*.gemm_tflops", CFG_FLOAT, "TFLOP/s", 1, 1e5, NULL, NULL,
	  "GEMM law: achievable BF16 rate of all SMs together (fitted)" },
	{ "gpus.*.gemm_wave_us", CFG_FLOAT, "us", 0, 1e3, NULL, NULL,
	  "GEMM law: per wave of output tiles, prologue and epilogue (fitted)" },
	{ "gpus.*.gemm_launch_us", CFG_FLOAT, "us", 0, 1e3, NULL, NULL,
	  "GEMM law: per call (fitted)" },
	{ "gpus.*.gemm_fp8_tflops", CFG_FLOAT, "TFLOP/s", 0, 1e5, "0", NULL,
	  "GEMM law: achievable FP8 rate (fitted; 0: no FP8)" },
	{ "gpus.*.gemm_mxfp8_ratio", CFG_FLOAT, "", 0, 10, "0", NULL,
	  "block-scaled MXFP8 GEMM time over per-tensor FP8's on the same shape "
	  "(measured; 0: no block-scaled FP8 tensor cores, fp8_recipe mxfp8 "
	  "refused)" },
	{ "gpus.*.gemm_nvfp4_ratio", CFG_FLOAT, "", 0, 10, "0", NULL,
	  "NVFP4 GEMM time over per-tensor FP8's on the same shape (measured; 0: "
	  "no FP4 tensor cores, fp8_recipe nvfp4 refused)" },
	{ "gpus.*.gemm_fp8_block_ratio", CFG_FLOAT, "", 0, 10, "0", NULL,
	  "FP8 GEMM with block scales (an FP32 scale per 1 x 128 of the input, "
	  "per 128 x 128 of the weight: cuBLAS on Hopper) time over per-tensor "
	  "FP8's on the same shape (measured; 0: none, fp8_recipe blockwise "
	  "refused)" },
	{ "gpus.*.attn_kernel", CFG_ENUM, "", 0, 0, "flash2", ATTN_LAW_CHOICES,
	  "the attention implementation the attn_* laws describe (the kernel "
	  "they were measured or published for); other implementations are "
	  "priced against it by their published speed ratios (attn_impl.h)" },
	{ "gpus.*.attn_fwd_tflops", CFG_FLOAT, "TFLOP/s", 1, 1e5, NULL, NULL,
	  "flash attention forward: rate on the FLOPs the causal kernel executes" },
	{ "gpus.*.attn_fwd_block_us", CFG_FLOAT, "us", 0, 1e3, NULL, NULL,
	  "flash attention forward: per query block per SM" },
	{ "gpus.*.attn_bwd_tflops", CFG_FLOAT, "TFLOP/s", 1, 1e5, NULL, NULL,
	  "flash attention backward: rate on 2.5x the forward FLOPs" },
	{ "gpus.*.attn_bwd_block_us", CFG_FLOAT, "us", 0, 1e3, NULL, NULL,
	  "flash attention backward: per query block per SM" },
	{ "gpus.*.launch_us", CFG_FLOAT, "us", 0, 1000, "4", NULL,
	  "per-kernel launch and tail overhead (elementwise and attention kernels)" },
	{ "gpus.*.stream.copy", CFG_FLOAT, "", 0.05, 2, NULL, NULL,
	  "achieved fraction of HBM bandwidth: copy and fused one-pass kernels" },
	{ "gpus.*.stream.layernorm", CFG_FLOAT, "", 0.05, 2, NULL, NULL,
	  "achieved fraction of HBM bandwidth: LayerNorm (read + write counted)" },
	{ "gpus.*.stream.gelu", CFG_FLOAT, "", 0.05, 2, NULL, NULL,
	  "achieved fraction of HBM bandwidth: eager GeLU" },
	{ "gpus.*.stream.add", CFG_FLOAT, "", 0.05, 2, NULL, NULL,
	  "achieved fraction of HBM bandwidth: eager add (2 reads + write counted)" },
	{ "gpus.*.stream.dropout_add", CFG_FLOAT, "", 0.05, 2, NULL, NULL,
	  "achieved fraction of HBM bandwidth: eager dropout then add" },
	{ "gpus.*.stream.softmax", CFG_FLOAT, "", 0.05, 2, NULL, NULL,
	  "achieved fraction of HBM bandwidth: softmax" },
	{ "gpus.*.stream.adam", CFG_FLOAT, "", 0.05, 2, NULL, NULL,
	  "achieved fraction of HBM bandwidth: fused multi-tensor Adam" },
	{ "gpus.*.source", CFG_STRING, "", 0, 0, "", NULL,
	  "where the figures come from (datasheet, paper, URL, date; trainsim list)" },
	CFG_END
};

/* The entry's kernel folder, resolved against the file naming it; 0 when
 * it names none. */
static int kernel_dir(const struct scenario *sc, const char *name, char *dir, size_t n)
{
	const char *rel = sc_str(sc, "gpus.%s.kernels", name);
	char base[4096];

	if (!rel[0])
		return 0;
	if (rel[0] == '/') {
		snprintf(dir, n, "%s", rel);
		return 1;
	}
	sc_dir_of(sc, base, sizeof base, "gpus.%s.kernels", name);
	snprintf(dir, n, "%s/%s", base, rel);
	return 1;
}

double gpu_hbm_bytes(const struct scenario *sc, const char *name)
{
	double mib = sc_float(sc, "gpus.%s.hbm_mib", name);

	return mib > 0 ? mib * 1048576.0 : sc_float(sc, "gpus.%s.hbm_gb", name) * 1e9;
}

void gpu_from_scenario(const struct scenario *sc, const char *name,
		       struct gpu_spec *out)
{
	const char *cal = sc_str(sc, "gpus.%s.calibration", name);
	struct kern_gpu *k = &out->k;

	out->name = name;
	out->peak_bf16_flops = sc_float(sc, "gpus.%s.peak_bf16_tflops", name) * 1e12;
	out->peak_fp8_flops = sc_float(sc, "gpus.%s.peak_fp8_tflops", name) * 1e12;
	out->hbm_bytes = gpu_hbm_bytes(sc, name);
	out->hbm_bw_Bps = sc_float(sc, "gpus.%s.hbm_bw_gbyte_s", name) * 1e9;
	out->tdp_w = sc_float(sc, "gpus.%s.tdp_w", name);
	out->idle_w = sc_float(sc, "gpus.%s.idle_w", name);
	out->gemm_w = sc_float(sc, "gpus.%s.gemm_w", name);
	out->mem_w = sc_float(sc, "gpus.%s.mem_w", name);
	out->comm_w = sc_float(sc, "gpus.%s.comm_w", name);
	out->nvlink = sc_str(sc, "gpus.%s.nvlink", name);
	out->calibration = strcmp(cal, "kernels") == 0 ? GPU_CAL_KERNELS :
			   strcmp(cal, "end_to_end") == 0 ? GPU_CAL_END_TO_END : GPU_CAL_NONE;
	out->band = sc_float(sc, "gpus.%s.band", name);

	memset(k, 0, sizeof *k);
	k->sms = (int)sc_int(sc, "gpus.%s.sms", name);
	k->hbm_Bps = out->hbm_bw_Bps;
	for (int i = 0; i < KS_COUNT; i++)
		k->stream_frac[i] = sc_float(sc, "gpus.%s.stream.%s", name,
					     kern_stream_names[i]);
	k->launch_s = sc_float(sc, "gpus.%s.launch_us", name) * 1e-6;
	k->bf16.sm_flops = sc_float(sc, "gpus.%s.gemm_tflops", name) * 1e12 / k->sms;
	k->bf16.wave_s = sc_float(sc, "gpus.%s.gemm_wave_us", name) * 1e-6;
	k->bf16.launch_s = sc_float(sc, "gpus.%s.gemm_launch_us", name) * 1e-6;
	k->fp8 = k->bf16;
	k->fp8.sm_flops = sc_float(sc, "gpus.%s.gemm_fp8_tflops", name) * 1e12 / k->sms;
	if (k->fp8.sm_flops <= 0)	/* no FP8: step.c refuses fp8 before */
		k->fp8.sm_flops = k->bf16.sm_flops;
	out->mx_gemm_ratio = sc_float(sc, "gpus.%s.gemm_mxfp8_ratio", name);
	out->nvfp4_gemm_ratio = sc_float(sc, "gpus.%s.gemm_nvfp4_ratio", name);
	out->fp8_block_gemm_ratio = sc_float(sc, "gpus.%s.gemm_fp8_block_ratio", name);
	k->attn.fwd_flops = sc_float(sc, "gpus.%s.attn_fwd_tflops", name) * 1e12;
	k->attn.fwd_block_s = sc_float(sc, "gpus.%s.attn_fwd_block_us", name) * 1e-6;
	k->attn.bwd_flops = sc_float(sc, "gpus.%s.attn_bwd_tflops", name) * 1e12;
	k->attn.bwd_block_s = sc_float(sc, "gpus.%s.attn_bwd_block_us", name) * 1e-6;
	k->attn.launch_s = k->launch_s;
	out->attn_law = attn_impl_find(sc_str(sc, "gpus.%s.attn_kernel", name));
	k->attn.waves = attn_impl_waves(out->attn_law);
	char dir[8192];
	struct kern_tables t;
	struct err e = { 0 };
	out->kernels_error[0] = 0;
	if (kernel_dir(sc, name, dir, sizeof dir) &&
	    kern_tables_load(dir, &t, &e) == 0) {
		k->gemm_bf16 = t.bf16;
		k->gemm_fp8 = t.fp8;
		k->attn_rows = t.attn;
	} else if (e.msg[0]) {	/* gpu_check() reports it */
		snprintf(out->kernels_error, sizeof out->kernels_error, "%s", e.msg);
		out->kernels_error_at_key = strstr(e.msg, ": cannot read: ") != NULL;
	}
	kern_residuals(k);
	out->ref_gemm_flops_s = out->ref_copy_Bps = 0;
	out->ref_gemm_flops_s = kpw_ref_gemm_flops_s(out);
	out->ref_copy_Bps = kpw_ref_copy_Bps(out);
}

int gpu_check(const struct gpu_spec *g, const struct sc_where *w, struct err *e)
{
	char path[256];

	if (!g->kernels_error[0])
		return 0;
	if (g->kernels_error_at_key) {	/* the folder is wrong */
		snprintf(path, sizeof path, "gpus.%s.kernels", g->name);
		return sc_where_error(w, e, path, "%s (expected a folder of measured "
				      "kernel tables)", g->kernels_error);
	}
	snprintf(path, sizeof path, "gpus.%s.kernels", g->name);
	err_set(e, ERR_USAGE, "%s", g->kernels_error);	/* FILE:LINE: column */
	return sc_where_named(w, e, path);
}

void gpu_warn_uncalibrated(const struct gpu_spec *g)
{
	static bool warned;

	if (g->calibration != GPU_CAL_NONE || warned)
		return;
	warned = true;
	fprintf(stderr, "trainsim: warning: %s is uncalibrated (no kernel measurements "
		"or validated runs: its kernel laws are assumptions, +-%.0f%%); "
		"calibrated = 0\n", g->name, 100 * g->band);
}

double gpu_band(const struct scenario *sc, const struct gpu_spec *g, const char *stack,
		double stack_band, bool moe)
{
	/* a pair with validation rows says how far off it was, an MoE model by
	 * the MoE rows where there are some; an untried pair combines the two
	 * independent uncertainties */
	if (moe && sc_has(sc, "gpus.%s.validated_band_moe.%s", g->name, stack))
		return sc_float(sc, "gpus.%s.validated_band_moe.%s", g->name, stack);
	if (sc_has(sc, "gpus.%s.validated_band.%s", g->name, stack))
		return sc_float(sc, "gpus.%s.validated_band.%s", g->name, stack);
	return hypot(g->band, stack_band);
}

/* Every key of gpus.GPU.GROUP names a stack. */
static int check_band_group(const struct scenario *sc, const char *gpu, const char *name,
			    struct err *e)
{
	const char *const *stacks;
	char group[512], path[1024];

	snprintf(group, sizeof group, "gpus.%s.%s", gpu, name);
	size_t m = sc_children(sc, group, &stacks);
	for (size_t j = 0; j < m; j++) {
		if (stack_find(stacks[j]) != NULL)
			continue;
		snprintf(path, sizeof path, "%s.%s", group, stacks[j]);
		return sc_error(sc, e, path, "unknown stack (expected %s)", STACK_CHOICES);
	}
	return 0;
}

int gpu_check_bands(const struct scenario *sc, struct err *e)
{
	const char *const *gpus;
	size_t n = sc_children(sc, "gpus", &gpus);

	for (size_t i = 0; i < n; i++)
		if (check_band_group(sc, gpus[i], "validated_band", e) < 0 ||
		    check_band_group(sc, gpus[i], "validated_band_moe", e) < 0)
			return -1;
	return 0;
}
