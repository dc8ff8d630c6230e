/*
 * gpu.c -- the GPU catalog's schema and reader.  The figures themselves, and
 * their sources, are in scenarios/catalog/gpus.cfg; measured kernel tables
 * in scenarios/catalog/kernels/.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

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
	{ "gpus.*.sms", CFG_INT, "", 1, 1e4, "108", NULL,
	  "streaming multiprocessors (GEMM tiles run in waves over them)" },
	{ "gpus.*.calibration", CFG_ENUM, "", 0, 0, "none", "none|kernels|end_to_end",
	  "what the kernel laws were fitted to: measured kernels, published "
	  "training runs, or nothing (uncalibrated: a warning, calibrated = 0)" },
	{ "gpus.*.band", CFG_FLOAT, "", 0, 1, "0.25", NULL,
	  "relative uncertainty of an iteration's time from this GPU's kernel "
	  "laws (combined with the stack's band)" },
	{ "gpus.*.kernels", CFG_STRING, "", 0, 0, "", NULL,
	  "measured kernel tables: a name in the kernels group (\"\": none)" },
	{ "gpus.*.gemm_tflops", CFG_FLOAT, "TFLOP/s", 1, 1e5, NULL, NULL,
	  "GEMM law: achievable BF16 rate of all SMs together (fitted)" },
	{ "gpus.*.gemm_wave_us", CFG_FLOAT, "us", 0, 1e3, NULL, NULL,
	  "GEMM law: per wave of output tiles, prologue and epilogue (fitted)" },
	{ "gpus.*.gemm_launch_us", CFG_FLOAT, "us", 0, 1e3, NULL, NULL,
	  "GEMM law: per call (fitted)" },
	{ "gpus.*.gemm_fp8_tflops", CFG_FLOAT, "TFLOP/s", 0, 1e5, "0", NULL,
	  "GEMM law: achievable FP8 rate (fitted; 0: no FP8)" },
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
	{ "kernels.*.gemm_bf16", CFG_FLOAT_LIST, "", 0, 1e9, "[]", NULL,
	  "measured BF16 GEMMs: M, N, K, seconds per row" },
	{ "kernels.*.gemm_fp8", CFG_FLOAT_LIST, "", 0, 1e9, "[]", NULL,
	  "measured FP8 GEMMs: M, N, K, seconds per row" },
	{ "kernels.*.attention", CFG_FLOAT_LIST, "", 0, 1e9, "[]", NULL,
	  "measured causal flash attention: batch, heads, seq, head_dim, forward "
	  "seconds, forward+backward seconds per row" },
	CFG_END
};

#define GEMM_COLS 4
#define ATTN_COLS 6

static void read_gemm(const struct scenario *sc, const char *tab, const char *list,
		      struct kern_gemm_rows *r, int max)
{
	size_t n = tab[0] ? sc_list_len(sc, "kernels.%s.%s", tab, list) / GEMM_COLS : 0;

	r->n = n > (size_t)max ? max : (int)n;
	for (int i = 0; i < r->n; i++) {
		size_t o = (size_t)i * GEMM_COLS;
		r->m[i] = sc_list_float(sc, o, "kernels.%s.%s", tab, list);
		r->nn[i] = sc_list_float(sc, o + 1, "kernels.%s.%s", tab, list);
		r->k[i] = sc_list_float(sc, o + 2, "kernels.%s.%s", tab, list);
		r->s[i] = sc_list_float(sc, o + 3, "kernels.%s.%s", tab, list);
	}
}

static void read_attn(const struct scenario *sc, const char *tab, struct kern_attn_rows *r)
{
	size_t n = tab[0] ? sc_list_len(sc, "kernels.%s.attention", tab) / ATTN_COLS : 0;

	r->n = n > KERN_ATTN_MAX ? KERN_ATTN_MAX : (int)n;
	for (int i = 0; i < r->n; i++) {
		double v[ATTN_COLS];
		for (int c = 0; c < ATTN_COLS; c++)
			v[c] = sc_list_float(sc, (size_t)i * ATTN_COLS + c,
					     "kernels.%s.attention", tab);
		r->bh[i] = v[0] * v[1];
		r->seq[i] = v[2];
		r->d[i] = v[3];
		r->fwd_s[i] = v[4];
		r->bwd_s[i] = v[5] - v[4];
	}
}

void gpu_from_scenario(const struct scenario *sc, const char *name,
		       struct gpu_spec *out)
{
	const char *cal = sc_str(sc, "gpus.%s.calibration", name);
	const char *tab = sc_str(sc, "gpus.%s.kernels", name);
	struct kern_gpu *k = &out->k;

	out->name = name;
	out->peak_bf16_flops = sc_float(sc, "gpus.%s.peak_bf16_tflops", name) * 1e12;
	out->peak_fp8_flops = sc_float(sc, "gpus.%s.peak_fp8_tflops", name) * 1e12;
	out->peak_tf32_flops = sc_float(sc, "gpus.%s.peak_tf32_tflops", name) * 1e12;
	out->hbm_bytes = sc_float(sc, "gpus.%s.hbm_gb", name) * 1e9;
	out->hbm_bw_Bps = sc_float(sc, "gpus.%s.hbm_bw_gbps", name) * 1e9;
	out->tdp_w = sc_float(sc, "gpus.%s.tdp_w", name);
	out->idle_w = sc_float(sc, "gpus.%s.idle_w", name);
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
	k->attn.fwd_flops = sc_float(sc, "gpus.%s.attn_fwd_tflops", name) * 1e12;
	k->attn.fwd_block_s = sc_float(sc, "gpus.%s.attn_fwd_block_us", name) * 1e-6;
	k->attn.bwd_flops = sc_float(sc, "gpus.%s.attn_bwd_tflops", name) * 1e12;
	k->attn.bwd_block_s = sc_float(sc, "gpus.%s.attn_bwd_block_us", name) * 1e-6;
	k->attn.launch_s = k->launch_s;
	read_gemm(sc, tab, "gemm_bf16", &k->gemm_bf16, KERN_GEMM_MAX);
	read_gemm(sc, tab, "gemm_fp8", &k->gemm_fp8, KERN_GEMM_MAX);
	read_attn(sc, tab, &k->attn_rows);
	kern_residuals(k);
}

static int check_list(const struct scenario *sc, const char *tab, const char *list,
		      size_t cols, size_t max_rows, struct err *e)
{
	char path[256];
	size_t n = sc_list_len(sc, "kernels.%s.%s", tab, list);

	snprintf(path, sizeof path, "kernels.%s.%s", tab, list);
	if (n % cols != 0)
		return sc_error(sc, e, path, "%zu numbers (expected %zu per row)", n, cols);
	if (n / cols > max_rows)
		return sc_error(sc, e, path, "%zu rows (expected at most %zu)",
				n / cols, max_rows);
	for (size_t i = 0; i < n; i++)
		if (!(sc_list_float(sc, i, "%s", path) > 0))
			return sc_error(sc, e, path, "row %zu: %g (expected sizes and "
					"times > 0)", i / cols + 1,
					sc_list_float(sc, i, "%s", path));
	return 0;
}

/* One kernels.NAME group: whole rows of positive numbers. */
static int check_tables(const struct scenario *sc, const char *tab, struct err *e)
{
	char path[256];

	if (check_list(sc, tab, "gemm_bf16", GEMM_COLS, KERN_GEMM_MAX, e) < 0 ||
	    check_list(sc, tab, "gemm_fp8", GEMM_COLS, KERN_GEMM_MAX, e) < 0 ||
	    check_list(sc, tab, "attention", ATTN_COLS, KERN_ATTN_MAX, e) < 0)
		return -1;
	/* forward+backward must outlast the forward */
	size_t n = sc_list_len(sc, "kernels.%s.attention", tab) / ATTN_COLS;
	snprintf(path, sizeof path, "kernels.%s.attention", tab);
	for (size_t i = 0; i < n; i++)
		if (sc_list_float(sc, i * ATTN_COLS + 5, "%s", path) <=
		    sc_list_float(sc, i * ATTN_COLS + 4, "%s", path))
			return sc_error(sc, e, path, "row %zu: forward+backward %g s not "
					"above forward %g s", i + 1,
					sc_list_float(sc, i * ATTN_COLS + 5, "%s", path),
					sc_list_float(sc, i * ATTN_COLS + 4, "%s", path));
	return 0;
}

int gpu_check(const struct scenario *sc, const char *name, struct err *e)
{
	const char *tab = sc_str(sc, "gpus.%s.kernels", name);
	const char *const *tabs;
	size_t n = sc_children(sc, "kernels", &tabs);
	char path[256];

	for (size_t i = 0; i < n; i++)	/* every table the catalog holds */
		if (check_tables(sc, tabs[i], e) < 0)
			return -1;
	if (tab[0] && !sc_has(sc, "kernels.%s", tab)) {
		snprintf(path, sizeof path, "gpus.%s.kernels", name);
		return sc_error(sc, e, path, "no kernel tables named %s (expected a "
				"group kernels.%s in the catalog)", tab, tab);
	}
	return 0;
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
