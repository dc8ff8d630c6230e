/*
 * kernels-t.c -- the kernel laws (models/kernels.h) against the H200
 * micro-benchmarks they were fitted to (scenarios/catalog/kernels/h200_sxm/,
 * measured on one NVIDIA H200 SXM, 2026-12-01, with tests/bench/measure.py):
 *   - the catalog's fitted constants are what the fit gives today (0.5%);
 *   - held out: the GEMM law fitted on the tokens = 4096 rows predicts the
 *     tokens = 16384 rows with the error printed (the law's real accuracy),
 *     and the law with the residual of the training rows as well;
 *   - with the whole table, every GEMM measured at sustained clocks, FP8
 *     GEMM and attention row is reproduced within 2%; the sweep's first
 *     rows, measured at boost clocks (kernels.h KERN_WARM_S), are left
 *     out, and run faster than the model;
 *   - the stream fractions are the measured elementwise rates / 4.8 TB/s;
 *   - launch_us against the copy rows' intercept (test_launch), and the
 *     H100 entry (the H200's laws under its own HBM roof) against an
 *     independent H100 measurement (test_h100);
 *   - the B200's laws against the third-party published micro-benchmarks
 *     they were fitted to (scenarios/catalog/kernels/b200/, test_b200),
 *     and, as the gb200 entry's, against Azure's GB200 FP8 sweep, held
 *     out (test_gb200);
 *   - the A100's attention law against the FlashAttention-2 paper's A100
 *     bars it is fitted to, and its GEMM and attention laws against
 *     Azure's ND A100 v4 measurements, held out (test_a100);
 *   - the memory a job may fill: the driver's total in MiB, not the
 *     datasheet's decimal GB (test_hbm).
 */
#define _XOPEN_SOURCE 700	/* realpath */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/tap.h"
#include "sim/cfg.h"
#include "models/compute.h"
#include "models/gpu.h"
#include "models/attn_impl.h"

#define KDIR "/scenarios/catalog/kernels/h200_sxm/"

static struct gpu_spec g;

static int load_gpu(const char *name)
{
	char path[] = "/tmp/kernels-t-XXXXXX";
	char *src = realpath(tap_srcdir(), NULL);
	struct cfg_schema *s = cfg_schema_new();
	struct err e = { 0 };
	int fd = src ? mkstemp(path) : -1;

	if (fd < 0 || !s) {
		free(src);
		cfg_schema_free(s);
		return -1;
	}
	FILE *f = fdopen(fd, "w");
	fprintf(f, "@include \"..%s/scenarios/catalog/gpus.cfg\"\n", src);
	fclose(f);
	free(src);
	cfg_schema_add(s, gpu_settings);
	struct scenario *sc = sc_load(s, path, NULL, 0, &e);
	unlink(path);
	if (!sc) {
		tap_diag("%s", e.msg);
		cfg_schema_free(s);
		return -1;
	}
	gpu_from_scenario(sc, name, &g);
	int rc = gpu_check(&g, sc_where_of(sc), &e);
	if (rc < 0)
		tap_diag("%s", e.msg);
	g.name = NULL;
	g.nvlink = NULL;	/* strings die with sc */
	sc_free(sc);
	cfg_schema_free(s);
	return rc;
}

static FILE *open_tsv(const char *file)
{
	char path[4096];

	snprintf(path, sizeof path, "%s" KDIR "%s", tap_srcdir(), file);
	return fopen(path, "r");
}

/* gemm-bf16.tsv with its tokens and hidden columns (0 for the square
 * GEMMs) and whether each row was measured at sustained clocks (its
 * warm_s, column 11, at least KERN_WARM_S). */
static int read_gemm(struct kern_gemm_rows *r, double *tokens, double *hidden,
		     bool *steady)
{
	FILE *f = open_tsv("gemm-bf16.tsv");
	char line[512];

	if (!f)
		return -1;
	r->n = 0;
	while (fgets(line, sizeof line, f) && r->n < KERN_GEMM_MAX) {
		char *fld[11];
		int n = 0;
		if (line[0] == '#' || strncmp(line, "tokens", 6) == 0)
			continue;
		for (char *p = line; n < 11; n++) {
			fld[n] = p;
			p = strchr(p, '\t');
			if (!p) {
				n++;
				break;
			}
			*p++ = 0;
		}
		if (n < 11)
			continue;
		steady[r->n] = atof(fld[10]) >= KERN_WARM_S;
		tokens[r->n] = atof(fld[0]);
		hidden[r->n] = atof(fld[1]);
		r->m[r->n] = atof(fld[5]);
		r->nn[r->n] = atof(fld[6]);
		r->k[r->n] = atof(fld[7]);
		r->s[r->n++] = atof(fld[8]);
	}
	fclose(f);
	return r->n;
}

/* Mean and max |error| of kern_gemm_s on rows where use[i]. */
static void gemm_error(const struct kern_gpu *k, const struct kern_gemm_rows *r,
		       const bool *use, bool law_only, double *mean, double *max)
{
	double sum = 0;
	int n = 0;

	*max = 0;
	for (int i = 0; i < r->n; i++) {
		if (!use[i])
			continue;
		double t = law_only ? kern_gemm_law_s(k, &k->bf16, 1, r->m[i], r->nn[i], r->k[i]) :
				      kern_gemm_s(k, false, 1, r->m[i], r->nn[i], r->k[i]);
		double e = fabs(t / r->s[i] - 1);
		sum += e;
		*max = fmax(*max, e);
		n++;
	}
	*mean = sum / n;
}

/* The loaded GPU's catalog constants against the fit's, 0.5% each. */
static void pin_fit(const char *gpu, const struct kern_gemm_law *law,
		    const struct kern_gemm_law *f8, const struct kern_attn_law *a)
{
	/* the catalog's figure, the fit's, in the catalog's unit */
	const struct { const char *key; double catalog, fit, unit; } pin[] = {
		{ "gemm_tflops", g.k.bf16.sm_flops, law->sm_flops, 1e12 / g.k.sms },
		{ "gemm_wave_us", g.k.bf16.wave_s, law->wave_s, 1e-6 },
		{ "gemm_launch_us", g.k.bf16.launch_s, law->launch_s, 1e-6 },
		{ "gemm_fp8_tflops", g.k.fp8.sm_flops, f8->sm_flops, 1e12 / g.k.sms },
		{ "attn_fwd_tflops", g.k.attn.fwd_flops, a->fwd_flops, 1e12 },
		{ "attn_fwd_block_us", g.k.attn.fwd_block_s, a->fwd_block_s, 1e-6 },
		{ "attn_bwd_tflops", g.k.attn.bwd_flops, a->bwd_flops, 1e12 },
		{ "attn_bwd_block_us", g.k.attn.bwd_block_s, a->bwd_block_s, 1e-6 },
	};
	for (size_t i = 0; i < sizeof pin / sizeof pin[0]; i++) {
		char name[160];
		snprintf(name, sizeof name, "%s: catalog %s = %.4g is the fit's %.4g (0.5%%)",
			 gpu, pin[i].key, pin[i].catalog / pin[i].unit, pin[i].fit / pin[i].unit);
		tap_near(pin[i].catalog, pin[i].fit, 0.005, name);
	}
}

static struct kern_gemm_rows fp8_on_bf16;

static void test_fit(void)
{
	struct kern_gemm_law law = g.k.bf16, f8 = g.k.fp8;
	struct kern_attn_law a = g.k.attn;

	kern_fit_gemm(&g.k, &g.k.gemm_bf16, NULL, 3, &law);
	kern_fp8_rows_on_bf16(&g.k, &g.k.gemm_fp8, &fp8_on_bf16);
	kern_fit_gemm(&g.k, &fp8_on_bf16, NULL, 1, &f8);
	kern_fit_attn(&g.k, &g.k.attn_rows, &a);
	pin_fit("h200_sxm", &law, &f8, &a);
}

/* The geometric mean of the FP8 table's measurements of row i's shape. */
static double fp8_shape_s(const struct kern_gemm_rows *f, int i)
{
	double sum = 0;
	int n = 0;

	for (int j = 0; j < f->n; j++)
		if (f->m[j] == f->m[i] && f->nn[j] == f->nn[i] && f->k[j] == f->k[i]) {
			sum += log(f->s[j]);
			n++;
		}
	return exp(sum / n);
}

#define TE_T 15872.0
#define TE_H 4096.0
#define TE_F 16384.0
/* M, N, K of the twelve GEMMs of Transformer Engine's GEMM-profiling
 * example (NVIDIA/TransformerEngine docs/examples/gemm_profiling, 2026:
 * 15,872 tokens, hidden 4096, FFN 16384; te.Linear(K, N) on [M, K]):
 * fprop, dgrad, wgrad of QKV, proj, FC1, FC2 */
static const double te_shapes[12][3] = {
	{ TE_T, 3 * TE_H, TE_H }, { TE_T, TE_H, TE_H }, { TE_T, TE_F, TE_H }, { TE_T, TE_H, TE_F },
	{ TE_T, TE_H, 3 * TE_H }, { TE_T, TE_H, TE_H }, { TE_T, TE_H, TE_F }, { TE_T, TE_F, TE_H },
	{ 3 * TE_H, TE_H, TE_T }, { TE_H, TE_H, TE_T }, { TE_F, TE_H, TE_T }, { TE_H, TE_F, TE_T },
};

/* The loaded GPU's GEMM model over te_shapes: seconds a layer. */
static double te_layer_s(bool fp8)
{
	double sum = 0;

	for (int i = 0; i < 12; i++)
		sum += kern_gemm_s(&g.k, fp8, 1, te_shapes[i][0], te_shapes[i][1],
				   te_shapes[i][2]);
	return sum;
}

/* FP8 against BF16 at layer shapes (kernels.h: FP8 takes the BF16
 * table's shape residual).  On the squares 4096^3 to 16384^3, where the
 * H200 measured BF16 too, FP8 runs 1.82-2.00x BF16 (the geometric mean of
 * each square's three FP8 measurements, kernels/h200_sxm/gemm-fp8.tsv,
 * against the BF16 model there; 1.94-1.99x with trainsim's short runs
 * alone, 1.76-2.02x for single rows); at te_shapes the model must stay
 * inside that range (the old law, fitted to the squares alone, gave
 * 2.08x).  TE's own figure there is 1.905x (31.968 ms BF16, 16.785 ms FP8
 * per layer), on an H200 NVL at 600 W, not this 700 W part: printed, not
 * asserted. */
static void test_fp8_layer_ratio(void)
{
	double bf = te_layer_s(false), f8 = te_layer_s(true), sq_min = INFINITY, sq_max = 0;
	const struct kern_gemm_rows *r = &g.k.gemm_fp8;

	for (int i = 0; i < r->n; i++) {
		/* 2048^3 is launch- and wave-bound; no BF16 square above 16384 */
		if (r->m[i] < 4096 || r->m[i] > 16384 || r->m[i] != r->nn[i] ||
		    r->m[i] != r->k[i])
			continue;
		double q = kern_gemm_s(&g.k, false, 1, r->m[i], r->nn[i], r->k[i]) /
			   fp8_shape_s(r, i);
		sq_max = fmax(sq_max, q);
		sq_min = fmin(sq_min, q);
	}
	tap_diag("FP8/BF16 per layer at TE's profiling shapes: %.3f (TE on an H200 NVL: "
		 "1.905; measured squares 4096^3-16384^3 %.3f-%.3f)", bf / f8, sq_min, sq_max);
	tap_ok(bf / f8 <= sq_max && bf / f8 >= sq_min, "FP8 at layer shapes %.3fx BF16: "
	       "within the measured squares' %.3f-%.3fx", bf / f8, sq_min, sq_max);
}

/* FP8 current scaling's amax passes (models/fp8.c) against Transformer
 * Engine's own measurement: its GEMM-profiling page (NVIDIA/
 * TransformerEngine docs/examples/gemm_profiling, 2026) times 12
 * te.Linear forwards (te_shapes), each quantizing its input and its weight, at
 * 20.285 ms a layer with current scaling and 18.978 with delayed, on an
 * H200 NVL (the same 4.8 TB/s HBM3e as this entry; memory-bound passes do
 * not feel its lower power cap much).  The difference, 1.307 ms, is the
 * amax reads; the model's must be within 15% of it. */
static void test_fp8_current(void)
{
	struct cmp_shape sh = { .b = 1, .s = TE_T, .h = TE_H, .a = 32, .tp = 1, .fp8 = true };
	struct cmp_cost cur, del;
	double extra = 0;

	for (int i = 0; i < 12; i++) {
		double M = te_shapes[i][0], N = te_shapes[i][1], K = te_shapes[i][2];
		sh.fp8_scaling = CMP_FP8_CURRENT;
		cmp_fp8_io(&g, &sh, CMP_TE_COL, false, M, N, K, &cur);
		sh.fp8_scaling = CMP_FP8_DELAYED;
		cmp_fp8_io(&g, &sh, CMP_TE_COL, false, M, N, K, &del);
		extra += cur.time_s - del.time_s +
			 cmp_fp8_weights_s(&g, N * K, CMP_FP8_CURRENT) - cmp_fp8_weights_s(&g, N * K, CMP_FP8_DELAYED);
	}
	tap_ok(fabs(extra / 1.307e-3 - 1) < 0.15, "FP8 current scaling's amax passes: "
	       "%.3f ms a layer at TE's profiling shapes (TE measured 1.307 on an H200 NVL)",
	       extra * 1e3);
}

/* FP8 block scaling on Hopper (gpus.cfg gemm_fp8_block_ratio, fp8.c):
 * the same page times the 12 te.Linear forwards with Float8BlockScaling's
 * quantization at 22.882 ms a layer and per-tensor FP8 GEMMs alone
 * (pre-quantized) at 16.785.  The entry's ratio was derived from those
 * two and this model's quantization of the 2.48 G elements; the model's
 * layer -- the measured per-tensor GEMMs times the ratio, plus its block
 * quantization -- must give the page's 22.882 back within 2%. */
static void test_fp8_block(void)
{
	struct cmp_shape sh = { .b = 1, .s = TE_T, .h = TE_H, .a = 32, .tp = 1, .fp8 = true,
				.fp8_scaling = CMP_FP8_BLOCK };
	double quant = 0;

	for (int i = 0; i < 12; i++) {
		double M = te_shapes[i][0], N = te_shapes[i][1], K = te_shapes[i][2];
		struct cmp_cost c;
		cmp_fp8_io(&g, &sh, CMP_TE_COL, false, M, N, K, &c);
		quant += c.time_s + cmp_fp8_weights_s(&g, N * K, CMP_FP8_BLOCK);
	}
	double layer_ms = 16.785 * g.fp8_block_gemm_ratio + quant * 1e3;
	tap_ok(fabs(layer_ms / 22.882 - 1) < 0.02, "FP8 block scaling: %.3f ms a layer at "
	       "TE's profiling shapes, %.3f of it quantization (TE measured 22.882 on an "
	       "H200 NVL)", layer_ms, quant * 1e3);
}

static struct kern_gemm_rows rows;
static double tokens[KERN_GEMM_MAX], hidden[KERN_GEMM_MAX];
static bool steady[KERN_GEMM_MAX];

/* Fit on tokens = 4096, check tokens = 16384. */
static void test_held_out(void)
{
	static struct kern_gpu k;
	static bool train[KERN_GEMM_MAX], test[KERN_GEMM_MAX];
	double mean, max;

	for (int i = 0; i < rows.n; i++) {
		train[i] = tokens[i] == 4096 && steady[i];
		test[i] = tokens[i] == 16384;
	}
	k = g.k;
	kern_fit_gemm(&k, &rows, train, 3, &k.bf16);
	gemm_error(&k, &rows, train, true, &mean, &max);
	tap_diag("GEMM law fitted on the 161 sustained-clock tokens = 4096 rows: train "
		 "mean %.2f%%, max %.2f%%",
		 100 * mean, 100 * max);
	gemm_error(&k, &rows, test, true, &mean, &max);
	tap_diag("held out (180 tokens = 16384 rows), law alone: mean %.2f%%, max %.2f%%",
		 100 * mean, 100 * max);
	/* pinned: the figures the catalog's band and the report quote */
	tap_near(100 * mean, 3.034, 0.005, "held-out GEMM law: mean error 3.03% (0.5%)");
	tap_near(100 * max, 20.25, 0.005, "held-out GEMM law: max error 20.25% (0.5%)");
	/* the residual of the training rows only */
	k.gemm_bf16.n = 0;
	for (int i = 0; i < rows.n; i++)
		if (train[i]) {
			int j = k.gemm_bf16.n++;
			k.gemm_bf16.m[j] = rows.m[i];
			k.gemm_bf16.nn[j] = rows.nn[i];
			k.gemm_bf16.k[j] = rows.k[i];
			k.gemm_bf16.s[j] = rows.s[i];
		}
	kern_residuals(&k);
	gemm_error(&k, &rows, test, false, &mean, &max);
	tap_diag("held out, law with the training rows' residual: mean %.2f%%, max %.2f%%",
		 100 * mean, 100 * max);
	tap_ok(mean < 0.05, "held-out GEMM with residual: mean error under 5%%");

	/* the other cut: fit on hidden 2048, 8192, 16384; check 4096, 12288 */
	k = g.k;
	for (int i = 0; i < rows.n; i++) {
		train[i] = (hidden[i] == 2048 || hidden[i] == 8192 || hidden[i] == 16384) &&
			   steady[i];
		test[i] = hidden[i] == 4096 || hidden[i] == 12288;
	}
	kern_fit_gemm(&k, &rows, train, 3, &k.bf16);
	gemm_error(&k, &rows, test, true, &mean, &max);
	tap_diag("held out (144 rows at hidden 4096 and 12288, law fitted on 2048, "
		 "8192, 16384), law alone: mean %.2f%%, max %.2f%%", 100 * mean, 100 * max);
	tap_ok(mean < 0.05, "held-out hidden sizes: mean error under 5%% (%.2f%%)", 100 * mean);
}

static void test_rows(void)
{
	int bad = 0, dup = 0;
	double worst = 0, spread = 0;

	int n_steady = 0, n_boost = 0, n_faster = 0;
	double boost_lnr = 0;

	/* A shape measured more than once (FC1's data gradient and FC2's
	 * forward share one, so do some square and layer shapes) is reproduced
	 * as the mean of its measurements: within 2% of that mean.  The rows
	 * measured at boost clocks are not in the model's table: they run
	 * faster than the model, by the clocks' ratio. */
	for (int i = 0; i < rows.n; i++) {
		double sum = 0, lo = INFINITY, hi = 0;
		int n = 0;
		double model = kern_gemm_s(&g.k, false, 1, rows.m[i], rows.nn[i], rows.k[i]);
		if (!steady[i]) {
			n_boost++;
			n_faster += rows.s[i] < model;
			boost_lnr += log(model / rows.s[i]);
			continue;
		}
		n_steady++;
		for (int j = 0; j < rows.n; j++)
			if (steady[j] && rows.m[j] == rows.m[i] && rows.nn[j] == rows.nn[i] &&
			    rows.k[j] == rows.k[i]) {
				sum += log(rows.s[j]);
				lo = fmin(lo, rows.s[j]);
				hi = fmax(hi, rows.s[j]);
				n++;
			}
		dup += n > 1;
		spread = fmax(spread, hi / lo - 1);
		double e = fabs(model / exp(sum / n) - 1);
		worst = fmax(worst, e);
		bad += e > 0.02;
	}
	tap_diag("%d rows share their shape with another; their measurements differ by "
		 "up to %.1f%%", dup, 100 * spread);
	tap_ok(n_steady == 346 && g.k.gemm_bf16.n == n_steady && bad == 0,
	       "all %d BF16 GEMMs measured at sustained clocks within 2%% (worst %.3f%%)",
	       n_steady, 100 * worst);
	tap_diag("the %d boost-clock rows: the model %.1f%% slower on geometric mean",
		 n_boost, 100 * (exp(boost_lnr / n_boost) - 1));
	tap_ok(n_boost == 19 && boost_lnr / n_boost > log(1.03),
	       "the %d boost-clock rows run faster than the sustained-clock model, over "
	       "3%% on geometric mean (%d of them faster)", n_boost, n_faster);
	/* FP8: three sources measured most squares (trainsim's H200, Azure's
	 * H200 and H100: kernels/h200_sxm/gemm-fp8.tsv); a shape is
	 * reproduced as the geometric mean of its measurements */
	const struct kern_gemm_rows *f = &g.k.gemm_fp8;
	bad = 0;
	for (int i = 0; i < f->n; i++)
		bad += fabs(kern_gemm_s(&g.k, true, 1, f->m[i], f->nn[i], f->k[i]) /
			    fp8_shape_s(f, i) - 1) > 0.02;
	tap_ok(f->n == 22 && bad == 0, "all 22 measured FP8 GEMMs within 2%% of their "
	       "shape's geometric mean");
	const struct kern_attn_rows *a = &g.k.attn_rows;
	bad = 0;
	for (int i = 0; i < a->n; i++) {
		bad += fabs(kern_attn_fwd_s(&g.k, a->bh[i], a->seq[i], a->d[i], 0) / a->fwd_s[i] - 1) > 0.02;
		bad += fabs(kern_attn_bwd_s(&g.k, a->bh[i], a->seq[i], a->d[i], 0) / a->bwd_s[i] - 1) > 0.02;
	}
	tap_ok(a->n == 9 && bad == 0, "all 9 measured attention rows, forward and backward, within 2%%");
	/* the law alone on attention: its fit error */
	double worst_law = 0;
	struct kern_gpu k = g.k;
	k.attn_rows.n = 0;
	for (int i = 0; i < a->n; i++)
		worst_law = fmax(worst_law, fabs(kern_attn_fwd_s(&k, a->bh[i], a->seq[i], a->d[i], 0) /
						 a->fwd_s[i] - 1));
	tap_diag("attention law alone: worst forward row %.2f%%", 100 * worst_law);
}

/* elementwise.tsv: GB/s per kind, mean of the sizes, / 4800 GB/s. */
static void test_streams(void)
{
	FILE *f = open_tsv("elementwise.tsv");
	char line[256], op[64];
	double sum[KS_COUNT] = { 0 }, n[KS_COUNT] = { 0 }, rows_, hid, sec, gbps;

	if (!f) {
		tap_ok(0, "elementwise.tsv readable");
		return;
	}
	while (fgets(line, sizeof line, f))
		if (line[0] != '#' && sscanf(line, "%63s %lf %lf %lf %lf", op, &rows_, &hid,
					     &sec, &gbps) == 5)
			for (int k = 0; k < KS_COUNT; k++)
				if (strcmp(op, kern_stream_names[k]) == 0) {
					sum[k] += gbps;
					n[k]++;
				}
	fclose(f);
	const enum kern_stream measured[] = { KS_COPY, KS_LAYERNORM, KS_GELU, KS_ADD,
					      KS_DROPOUT_ADD };
	for (size_t i = 0; i < sizeof measured / sizeof measured[0]; i++) {
		enum kern_stream k = measured[i];
		/* measure.py's add is x + x: two of its three counted
		 * tensors are one in HBM */
		double moved = k == KS_ADD ? 2.0 / 3.0 : 1.0;
		double frac = moved * sum[k] / n[k] * 1e9 / 4.8e12;
		char name[128];
		snprintf(name, sizeof name, "stream.%s = measured %.0f GB/s (as moved) / 4800 (0.5%%)",
			 kern_stream_names[k], sum[k] / n[k]);
		tap_near(g.k.stream_frac[k], frac, 0.005, name);
	}
}

/*
 * launch_us (4.0: the per-kernel cost of memory-bound and attention
 * kernels, the gap between dependent kernels included) against the H200
 * copy rows, t = bytes / bw + launch at two sizes (elementwise.tsv, read +
 * write of a [16384, h] bf16 tensor): 268.4 MB in 66.18 us (h 4096) and
 * 805.3 MB in 191.14 us (h 12288), so bw = 536.9 MB / 124.96 us = 4.297
 * TB/s and launch = 66.18 - 268.4 / 4.297 = 3.71 us (by hand).
 */
static void test_launch(void)
{
	FILE *f = open_tsv("elementwise.tsv");
	char line[256], op[64];
	double rows_, hid, sec, gbps, b[2] = { 0 }, t[2] = { 0 };
	int n = 0;

	if (!f) {
		tap_ok(0, "elementwise.tsv readable");
		tap_ok(0, "launch_us");
		return;
	}
	while (fgets(line, sizeof line, f))
		if (line[0] != '#' && n < 2 &&
		    sscanf(line, "%63s %lf %lf %lf %lf", op, &rows_, &hid, &sec, &gbps) == 5 &&
		    strcmp(op, "copy") == 0) {
			b[n] = rows_ * hid * 2 * 2;	/* bf16, read + write */
			t[n++] = sec;
		}
	fclose(f);
	double launch = n == 2 ? t[0] - b[0] * (t[1] - t[0]) / (b[1] - b[0]) : 0;
	tap_near(launch, 3.71e-6, 0.01, "copy rows' intercept: 3.71 us (by hand)");
	tap_near(g.k.launch_s, 3.71e-6, 0.10, "launch_us within 10% of the copy rows' 3.71 us");
}

/* The forward+backward time FlashAttention-2's benchmark implies when it
 * prints `tflops` for seq tokens a sequence at head dim d (hidden 2048, so
 * 2048 / d heads, and 16k tokens a batch), its FLOPs counted as it counts
 * them: forward 4 s^2 d a head, halved for causal, backward 2.5x. */
static double fa2_bench_s(double seq, double d, double tflops)
{
	double heads = 2048 / d, batch = 16384 / seq;

	return 3.5 * 4 * batch * heads * seq * seq * d / 2 / (tflops * 1e12);
}

static double attn_total_s(const struct kern_gpu *k, double seq, double d)
{
	double bh = 16384 / seq * (2048 / d);

	return kern_attn_fwd_s(k, bh, seq, d, 0) + kern_attn_bwd_s(k, bh, seq, d, 0);
}

/*
 * The H100 entry runs the H200's GEMM law and rows (gpus.cfg: same GH100
 * die, SMs, clocks and 700 W cap).  An independent H100 measurement:
 * NVIDIA/TransformerEngine issue #2053 (2025-08-11), torch.nn.Linear
 * forward in bf16, hidden 2048, 8192 tokens (C[8192, 2048] = A[8192, 2048]
 * W[2048, 2048]) on an H100 DGX (Xeon Platinum 8480C): 100.06 us of GPU
 * time, 687 TFLOP/s.  The same kernel on a GH200 (same die, higher power
 * limit) took 91.64 us, 9% less: at 700 W the GEMM is power-bound, and the
 * H200 table, measured under the same 700 W cap, should give the H100's
 * time, not the GH200's.  The entry gives 109.5 us (2026-12-02): 9% slower
 * than the H100 measured, so the H100 rows' optimism is not a GEMM rate
 * the H100 lacks.  Held within 10% (the H100 band, 6%, plus the H200
 * table's spread near this shape: 4096 and 16384 tokens at 739 and
 * 634-649 TFLOP/s).  Loaded last: it replaces the H200 in g.
 *
 * Held out too: FlashAttention-2 on Hopper, which trainsim prices as the
 * H200's measured (FA3-class) law times the FA3 paper's FA2/FA3 ratios
 * (attn_impl.c), against Azure's ND H100 v5 run of FA2's own benchmark
 * (Azure/AI-benchmarking-guide "Azure Results/ND_H100_v5_results.md",
 * commit f350e7e6: head dim 128, causal, 2 x 8192 tokens, 327.9 TFLOP/s
 * forward+backward; the ND H200 v5 read 329.3): trainsim 299 TFLOP/s, its
 * time 9.7% long (the backward's ratio is the paper's non-causal one),
 * held within 12%.
 */
/*
 * Flash attention's waves (kernels.c attn_work), by hand on a GPU of 132
 * SMs with a law of 1 PFLOP/s and no fixed costs: a block pair is 4 x 128
 * x 128 x 128 = 8,388,608 FLOPs.  8 heads of 2,048 tokens are 8 x 16 =
 * 128 tiles, one wave, lasting the longest (16 key blocks): 16 x 132
 * pairs, where the fluid count is 8 x 136.  A window of 512 tokens (4
 * blocks) makes the longest 5.  At 4,096 tokens 256 tiles are two waves,
 * the second starting at tile 132, query block 31 - 132 / 8 = 15: 32 + 16
 * pairs an SM, and a per-block cost of 1 us is paid twice.
 */
static void test_attn_waves_by_hand(void)
{
	struct kern_gpu k = { .sms = 132 };
	const double pair = 4.0 * 128 * 128 * 128;

	k.attn = (struct kern_attn_law){ .fwd_flops = 1e15, .bwd_flops = 1e15, .waves = true };
	tap_near(kern_attn_fwd_s(&k, 8, 2048, 128, 0), 16 * 132 * pair / 1e15, 1e-12,
		 "waves: 8 heads x 2k tokens on 132 SMs last the longest tile, 16 x 132 pairs");
	tap_near(kern_attn_fwd_s(&k, 8, 2048, 128, 512), 5 * 132 * pair / 1e15, 1e-12,
		 "waves: a 512-token window makes the longest tile 5 blocks");
	k.attn.fwd_block_s = 1e-6;
	tap_near(kern_attn_fwd_s(&k, 8, 4096, 128, 0), 48 * 132 * pair / 1e15 + 2e-6, 1e-12,
		 "waves: 8 heads x 4k tokens are two waves, 32 + 16 pairs an SM and 2 blocks");
	k.attn.waves = false;
	k.attn.fwd_block_s = 0;
	tap_near(kern_attn_fwd_s(&k, 8, 2048, 128, 0), 8 * 136 * pair / 1e15, 1e-12,
		 "fluid (flash2): the causal work spread evenly, 8 x 136 pairs");
}

/*
 * Held out, nothing fitted to it: cuDNN 9.27's causal forward on an H200
 * (NVIDIA/cudnn-frontend benchmark/attention_inference/results/
 * prefill_sweep/h200/prefill_sweep_20260923_175600.csv; batch 1, head dim
 * 128, Llama 3.1 70B's 64 query heads at TP 1, 2, 4, 8), ms.  The H200
 * law with its waves is within 7.3% of all sixteen (8 heads at 2k the
 * worst); spreading the work evenly it was 34.5% fast there.
 */
static void test_attn_waves_held_out(void)
{
	static const double ms[4][4] = {
		{ 0.140864, 0.461028, 1.700029, 6.544172 },
		{ 0.079232, 0.253373, 0.879029, 3.313815 },
		{ 0.049472, 0.145973, 0.471548, 1.707372 },
		{ 0.029695, 0.091392, 0.271295, 0.908129 },
	};
	double worst = 0;

	if (load_gpu("h200_sxm") < 0) {
		tap_ok(0, "h200_sxm loads");
		return;
	}
	for (int h = 0; h < 4; h++)
		for (int j = 0; j < 4; j++) {
			double heads = 64 >> h, seq = 2048 << j;
			double e = kern_attn_fwd_s(&g.k, heads, seq, 128, 0) / (ms[h][j] * 1e-3) - 1;
			tap_diag("h200 cuDNN 9.27 forward, %2.0f heads x %5.0f tokens: %+.1f%%",
				 heads, seq, 100 * e);
			worst = fmax(worst, fabs(e));
		}
	tap_ok(worst < 0.08, "held out: cuDNN 9.27's forward on H200 at 8-64 heads, 2k-16k "
	       "tokens, within 8%% by the law with its waves (worst %.1f%%)", 100 * worst);
}

/*
 * The H100's memory-bound kernels, held out: its catalog entry carries the
 * H200's measured fractions of HBM bandwidth to its own 3.35 TB/s (gpus.cfg
 * stream, an assumption), which nothing fitted on an H100.  Liger-Kernel's
 * published benchmark data (linkedin/Liger-Kernel benchmark/data/
 * all_benchmark_data.csv at ead96b61, 2026-08-21; triton.testing.do_bench
 * medians, L2 flushed between calls) timed PyTorch's own kernels on an
 * "NVIDIA H100 80GB HBM3" over M = 4096 rows of N:
 *   relu_squared, torch provider (benchmark_relu_squared.py at 39a1f454:
 *     F.relu then torch.square, two kernels each reading and writing a bf16
 *     tensor), forward, Liger 0.7.0 (2026-03-27): 0.0532, 0.0979, 0.1855 ms
 *     at N = 4096, 8192, 16384 -- two copy-kind kernels of 4 M N bytes;
 *   layer_norm, huggingface provider (torch.nn.LayerNorm, fp32;
 *     benchmark_layer_norm.py at 0bd8292d), forward, Liger 0.6.0
 *     (2025-07-17): 0.1527 and 0.3068 ms at N = 8192, 16384 -- one
 *     LayerNorm kernel reading and writing 8 M N bytes (the bf16 LayerNorm
 *     the fraction was measured on moves 4; fp32 is taken at the same
 *     fraction, an approximation).
 * And Azure's measured HBM copy rates (ND H100 v5 2.90 TB/s, ND A100 v4
 * 1.61: the A100's copy fraction, fitted, held to a measurement too).
 * The same file's A100-SXM4-80GB LayerNorm (0.2576 and 0.5067 ms, Liger
 * 0.2.1, 2024-09-03) is printed against the a100_80gb entry, whose
 * fractions are H200's x 0.90 fitted to Megatron Table 1 (gpus.cfg): not a
 * test, a lead (see the diag).
 */
static double liger_stream_err(enum kern_stream kind, double kernels, double bytes,
			       double ms)
{
	return kernels * kern_stream_s(&g.k, kind, bytes / kernels) / (ms * 1e-3) - 1;
}

static void test_h100_streams(void)
{
	static const double relu_sq[][2] = { { 4096, 0.0532 }, { 8192, 0.0979 },
					     { 16384, 0.1855 } };
	static const double ln_h100[][2] = { { 8192, 0.1527 }, { 16384, 0.3068 } };
	static const double ln_a100[][2] = { { 8192, 0.2576 }, { 16384, 0.5067 } };
	const double M = 4096;
	double worst_relu = 0, worst_ln = 0;

	if (load_gpu("h100_sxm") < 0) {
		tap_ok(0, "h100_sxm loads");
		return;
	}
	for (size_t i = 0; i < 3; i++) {
		double e = liger_stream_err(KS_COPY, 2, 2 * 4 * M * relu_sq[i][0], relu_sq[i][1]);
		tap_diag("h100 torch relu^2 forward, N %5.0f: %+.1f%%", relu_sq[i][0], 100 * e);
		worst_relu = fmax(worst_relu, fabs(e));
	}
	for (size_t i = 0; i < 2; i++) {
		double e = liger_stream_err(KS_LAYERNORM, 1, 8 * M * ln_h100[i][0], ln_h100[i][1]);
		tap_diag("h100 torch LayerNorm fp32 forward, N %5.0f: %+.1f%%", ln_h100[i][0],
			 100 * e);
		worst_ln = fmax(worst_ln, fabs(e));
	}
	/* Azure/AI-benchmarking-guide (commit 8fd0c6e) ND H100 v5 and ND A100
	 * v4 results, "HBM Bandwidth", Copy: 2.90 and 1.61 TB/s, against the
	 * copy fraction's rate (launch left out: their arrays are large) */
	double h100_copy = g.k.hbm_Bps * g.k.stream_frac[KS_COPY] / 2.90e12 - 1;
	tap_ok(fabs(h100_copy) < 0.03, "held out: H100 copy rate %+.1f%% off Azure's "
	       "measured 2.90 TB/s (3%%)", 100 * h100_copy);
	tap_ok(worst_relu < 0.05, "held out: H100 copy-kind kernels (torch relu^2, two "
	       "kernels, Liger's data) within 5%% (worst %.1f%%)", 100 * worst_relu);
	tap_ok(worst_ln < 0.10, "held out: H100 LayerNorm (torch fp32, Liger's data) "
	       "within 10%% (worst %.1f%%)", 100 * worst_ln);
	if (load_gpu("a100_80gb") < 0) {
		tap_ok(0, "a100_80gb loads");
		return;
	}
	double a100_copy = g.k.hbm_Bps * g.k.stream_frac[KS_COPY] / 1.61e12 - 1;
	tap_ok(fabs(a100_copy) < 0.03, "held out: A100 copy rate (H200's fraction x 0.90, "
	       "fitted to Table 1) %+.1f%% off Azure's measured 1.61 TB/s (3%%)",
	       100 * a100_copy);
	for (size_t i = 0; i < 2; i++)
		tap_diag("a100 torch LayerNorm fp32 forward, N %5.0f: the fitted fraction "
			 "%+.1f%% (Liger's A100 data; a lead, not a test)", ln_a100[i][0],
			 100 * liger_stream_err(KS_LAYERNORM, 1, 8 * M * ln_a100[i][0],
						ln_a100[i][1]));
}

#define TE2053_H100_S 100.06e-6
static void test_h100(void)
{
	if (load_gpu("h100_sxm") < 0) {
		tap_ok(0, "h100_sxm loads");
		return;
	}
	double t = kern_gemm_s(&g.k, false, 1, 8192, 2048, 2048);
	tap_diag("h100 8192x2048x2048: %.2f us (TE#2053 H100 DGX 100.06, GH200 91.64)",
		 t * 1e6);
	tap_near(t, TE2053_H100_S, 0.10,
		 "H100 GEMM 8192x2048x2048 within 10% of TE#2053's H100 DGX 100.06 us");
	double bh = 2 * 16, fa2_s = fa2_bench_s(8192, 128, 327.9);
	double ours = kern_attn_fwd_s(&g.k, bh, 8192, 128, 0) *
			      attn_impl_factor(ATTN_FLASH2, g.attn_law, false, 8192, 128) +
		      kern_attn_bwd_s(&g.k, bh, 8192, 128, 0) *
			      attn_impl_factor(ATTN_FLASH2, g.attn_law, true, 8192, 128);
	tap_ok(fabs(ours / fa2_s - 1) < 0.12, "held out: FA2 on H100 (d 128, 2 x 8192 "
	       "tokens) %+.1f%% off Azure's 327.9 TFLOP/s in time (12%%)",
	       100 * (ours / fa2_s - 1));
	/* Held out: the law, fitted at head dim 128 only, charges head dim
	 * 64 through its per-block cost.  On the FA3 paper's shape (4 x 4096
	 * tokens, hidden 2048: 32 heads of 64 or 16 of 128, the same FLOPs)
	 * its backward comes out as much slower as FA3's own bars (Fig. 6,
	 * 4k: 542 / 453 = 1.196); its forward does not (1.03 against Fig. 5's
	 * 579 / 420 = 1.379), which compute.c's flash_dim_factor makes up. */
	double law_bwd = kern_attn_bwd_s(&g.k, 4 * 32, 4096, 64, 0) /
			 kern_attn_bwd_s(&g.k, 4 * 16, 4096, 128, 0);
	tap_diag("h100 law, head dim 64 over 128: forward %.3f, backward %.3f",
		 kern_attn_fwd_s(&g.k, 4 * 32, 4096, 64, 0) /
			 kern_attn_fwd_s(&g.k, 4 * 16, 4096, 128, 0), law_bwd);
	tap_near(law_bwd, 542.0 / 453, 0.02, "held out: the H100 law's backward at head "
		 "dim 64 is FA3's 542 / 453 slower per FLOP (2%)");
}

/*
 * The B200's laws, fitted to third-party published micro-benchmarks
 * (scenarios/catalog/kernels/b200/, each row's source in the file):
 * cuBLAS FP16 and torch BF16 GEMMs (a K sweep at M = N = 8192, Llama
 * shapes at M = 64-2048), cuBLAS FP8 (the same K sweep), cuDNN 9.13
 * causal attention for training, forward and backward, 1k-128k tokens.
 * The catalog's constants are the fit's
 * (0.5%).  The FP8 rate is fitted with the BF16 law's wave and launch
 * costs, as on H200, but only to the rows where the rate decides the time:
 * the per-tensor sweep stops at K = 1024, where the per-wave costs
 * dominate (fitted on it the rate comes out 6,592 TFLOP/s, above the 4,500
 * peak), so the rate is the same source's block-scaled MXFP8 rows' at
 * K = 8192 and 16384; the sweep's rows still correct the law near them.
 * The law alone is within 12% of the training-sized rows (M and K at
 * least 1024; the decode-sized ones, M = 64-256, are printed), and the
 * tables' residuals reproduce every row within 2%.
 */
static void test_b200(void)
{
	if (load_gpu("b200") < 0) {
		tap_ok(0, "b200 loads");
		return;
	}
	struct kern_gemm_law law = g.k.bf16, f8 = g.k.fp8;
	struct kern_attn_law a = g.k.attn;
	const struct kern_gemm_rows *r = &g.k.gemm_bf16, *r8 = &g.k.gemm_fp8;
	const struct kern_attn_rows *ra = &g.k.attn_rows;

	kern_fit_gemm(&g.k, r, NULL, 3, &law);
	bool long_k[KERN_GEMM_MAX];
	for (int i = 0; i < r8->n; i++)
		long_k[i] = r8->k[i] >= 8192;
	kern_fp8_rows_on_bf16(&g.k, r8, &fp8_on_bf16);
	kern_fit_gemm(&g.k, &fp8_on_bf16, long_k, 1, &f8);
	kern_fit_attn(&g.k, ra, &a);
	pin_fit("b200", &law, &f8, &a);
	double worst_law = 0, worst_small = 0, worst = 0;
	for (int i = 0; i < r->n; i++) {
		double e = fabs(kern_gemm_law_s(&g.k, &g.k.bf16, 1, r->m[i], r->nn[i],
						r->k[i]) / r->s[i] - 1);
		if (r->m[i] >= 1024 && r->k[i] >= 1024)
			worst_law = fmax(worst_law, e);
		else
			worst_small = fmax(worst_small, e);
		worst = fmax(worst, fabs(kern_gemm_s(&g.k, false, 1, r->m[i], r->nn[i],
						     r->k[i]) / r->s[i] - 1));
	}
	/* the sweep rows the FP8 rate was not fitted to, by the law and the
	 * BF16 shape residual (FP8's own rows left out): BF16 was measured
	 * at the same shapes */
	struct kern_gpu no_f8 = g.k;
	no_f8.gemm_fp8.n = 0;
	double worst_f8_held = 0, worst_f8_law = 0;
	for (int i = 0; i < r8->n; i++) {
		worst = fmax(worst, fabs(kern_gemm_s(&g.k, true, 1, r8->m[i], r8->nn[i],
						     r8->k[i]) / r8->s[i] - 1));
		if (long_k[i])
			continue;
		worst_f8_held = fmax(worst_f8_held,
				     fabs(kern_gemm_s(&no_f8, true, 1, r8->m[i], r8->nn[i],
						      r8->k[i]) / r8->s[i] - 1));
		worst_f8_law = fmax(worst_f8_law,
				    fabs(kern_gemm_law_s(&g.k, &g.k.fp8, 1, r8->m[i], r8->nn[i],
							 r8->k[i]) / r8->s[i] - 1));
	}
	tap_diag("b200 FP8 on the K = 128-1024 sweep it was not fitted to: worst row %.1f%% "
		 "with the BF16 shape residual, %.1f%% by the law alone",
		 100 * worst_f8_held, 100 * worst_f8_law);
	for (int i = 0; i < ra->n; i++) {
		worst = fmax(worst, fabs(kern_attn_fwd_s(&g.k, ra->bh[i], ra->seq[i], ra->d[i], 0) /
					 ra->fwd_s[i] - 1));
		worst = fmax(worst, fabs(kern_attn_bwd_s(&g.k, ra->bh[i], ra->seq[i], ra->d[i], 0) /
					 ra->bwd_s[i] - 1));
	}
	tap_diag("b200 GEMM law alone: worst row with M or K under 1024 %.2f%%",
		 100 * worst_small);
	tap_ok(r->n == 20 && worst_law < 0.12, "b200: the GEMM law alone within 12%% of "
	       "its published rows with M, K >= 1024 (worst %.1f%%)", 100 * worst_law);
	tap_ok(r8->n == 10 && ra->n == 8 && worst < 0.02, "b200: every published GEMM, FP8 "
	       "GEMM and attention row within 2%% with the residuals (worst %.3f%%)",
	       100 * worst);
}

/*
 * Blackwell's memory-bound fractions (gpus.cfg b200 and gb200): H200's
 * measured ones times the GB200/H200 ratio of their fractions of HBM peak
 * on one published RMSNorm benchmark run on both (kernels/b200/norms.tsv,
 * NVIDIA/cudnn-frontend), forward and backward, for the row reductions
 * (norm, softmax): 0.863 by the table, over 18 pairs; the streaming kinds
 * keep H200's (gpus.cfg says why; the forward alone gives 0.944).  Each
 * catalog fraction within 0.5% of H200's times its ratio.
 */
struct norm_row {
	char gpu[16], cfg[48], backend[16];
	double fwd_ms, bwd_ms, fwd_gbps, bwd_gbps;
};

static int read_norms(struct norm_row *r, int max)
{
	char path[4096], line[512];
	FILE *f;
	int n = 0;
	double N, C;

	snprintf(path, sizeof path, "%s/scenarios/catalog/kernels/b200/norms.tsv",
		 tap_srcdir());
	if (!(f = fopen(path, "r")))
		return -1;
	while (n < max && fgets(line, sizeof line, f))
		if (line[0] != '#' &&
		    sscanf(line, "%15s %47s %15s %lf %lf %lf %lf %lf %lf", r[n].gpu, r[n].cfg,
			   r[n].backend, &N, &C, &r[n].fwd_ms, &r[n].bwd_ms, &r[n].fwd_gbps,
			   &r[n].bwd_gbps) == 9)
			n++;
	fclose(f);
	return n;
}

/* Fraction of peak over forward and backward: their bytes over their time. */
static double norm_fb_frac(const struct norm_row *x, double peak_gbps)
{
	return (x->fwd_gbps * x->fwd_ms + x->bwd_gbps * x->bwd_ms) /
	       (x->fwd_ms + x->bwd_ms) / peak_gbps;
}

static void norm_ratios(const struct norm_row *r, int n, double h200_gbps,
			double gb200_gbps, double *fwd, double *fb, int *pairs)
{
	*fwd = *fb = 0;
	*pairs = 0;
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (strcmp(r[i].gpu, "h200") == 0 && strcmp(r[j].gpu, "gb200") == 0 &&
			    strcmp(r[i].cfg, r[j].cfg) == 0 &&
			    strcmp(r[i].backend, r[j].backend) == 0) {
				*fwd += (r[j].fwd_gbps / gb200_gbps) / (r[i].fwd_gbps / h200_gbps);
				*fb += norm_fb_frac(&r[j], gb200_gbps) /
				       norm_fb_frac(&r[i], h200_gbps);
				(*pairs)++;
			}
	if (*pairs > 0) {
		*fwd /= *pairs;
		*fb /= *pairs;
	}
}

static void test_blackwell_streams(void)
{
	struct norm_row r[64];
	double h200[KS_COUNT], h200_gbps, gb200_gbps, fwd, fb;
	int n = read_norms(r, 64), pairs;
	const char *gpus[] = { "b200", "gb200" };

	if (n <= 0 || load_gpu("h200_sxm") < 0) {
		tap_ok(0, "norms.tsv and h200_sxm load");
		return;
	}
	memcpy(h200, g.k.stream_frac, sizeof h200);
	h200_gbps = g.k.hbm_Bps / 1e9;
	if (load_gpu("gb200") < 0) {
		tap_ok(0, "gb200 loads");
		return;
	}
	gb200_gbps = g.k.hbm_Bps / 1e9;
	norm_ratios(r, n, h200_gbps, gb200_gbps, &fwd, &fb, &pairs);
	tap_ok(pairs == 18 && fabs(fwd - 0.944) < 0.001 && fabs(fb - 0.863) < 0.001,
	       "norms.tsv: %d GB200/H200 pairs, forward ratio %.3f, forward+backward %.3f",
	       pairs, fwd, fb);
	for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
		double worst = 0;
		if (load_gpu(gpus[i]) < 0) {
			tap_ok(0, "%s loads", gpus[i]);
			continue;
		}
		for (int k = 0; k < KS_COUNT; k++) {
			double ratio = k == KS_LAYERNORM || k == KS_SOFTMAX ? fb : 1;
			worst = fmax(worst, fabs(g.k.stream_frac[k] / (h200[k] * ratio) - 1));
		}
		tap_ok(worst < 0.005, "%s: norm and softmax fractions H200's x the GB200 "
		       "ratio, the rest H200's (worst %.2f%%)", gpus[i], 100 * worst);
	}
}

/*
 * Blackwell's FP8 recipes against Transformer Engine's GEMM-profiling page
 * (NVIDIA/TransformerEngine docs/examples/gemm_profiling, 2026), the 5B
 * example on a B300 SXM6 (te_shapes, 12 te.Linear forwards a layer, each
 * quantizing its input and weight; Blackwell Ultra's 8 TB/s HBM3e and
 * tensor cores, which the b200 entry's are taken for), per layer:
 *   pre-quantized GEMMs: current scaling 6.812 ms, MXFP8 7.161 ms;
 *   quantization (autocast less pre-quantized): current 9.147 - 6.812 =
 *   2.335 ms, MXFP8 8.984 - 7.161 = 1.823 ms.
 * The b200's GEMM law was fitted to other sources (kernels/b200/) and its
 * quantization is fp8.c's byte counts at its copy rate, with MXFP8's scale
 * swizzles before each GEMM (compute.c): the GEMMs within 3%, the
 * quantization within 10% for each recipe; the MXFP8 GEMM ratio is the
 * page's own (gpus.cfg), so its check is exact.
 */
static void test_blackwell_recipes(void)
{
	struct cmp_shape sh = { .b = 1, .s = TE_T, .h = TE_H, .a = 32, .tp = 1, .fp8 = true };
	double gemm[3] = { 0, 0, 0 }, quant[3] = { 0, 0, 0 };
	enum cmp_fp8_scaling how[3] = { CMP_FP8_CURRENT, CMP_FP8_MX, CMP_FP4_NV };
	struct cmp_cost c;

	if (load_gpu("b200") < 0) {
		tap_ok(0, "b200 loads");
		return;
	}
	for (int r = 0; r < 3; r++) {
		sh.fp8_scaling = how[r];
		for (int i = 0; i < 12; i++) {
			double M = te_shapes[i][0], N = te_shapes[i][1], K = te_shapes[i][2];
			cmp_te_gemm(&g, &sh, 1, M, N, K, &c);
			gemm[r] += c.gemm_s;
			quant[r] += c.time_s - c.gemm_s;	/* MXFP8's scale swizzles */
			cmp_fp8_io(&g, &sh, CMP_TE_COL, false, M, N, K, &c);
			quant[r] += c.time_s + cmp_fp8_weights_s(&g, N * K, how[r]);
		}
	}
	tap_ok(fabs(gemm[0] / 6.812e-3 - 1) < 0.03, "b200 FP8 GEMMs at TE's shapes: "
	       "%.3f ms a layer (B300 measured 6.812)", gemm[0] * 1e3);
	tap_ok(fabs(gemm[1] / gemm[0] / (7.161 / 6.812) - 1) < 1e-3, "MXFP8 GEMMs %.3fx "
	       "per-tensor FP8's (B300: 7.161 / 6.812 ms)", gemm[1] / gemm[0]);
	tap_ok(fabs(quant[0] / 2.335e-3 - 1) < 0.10, "current scaling's quantization "
	       "%.3f ms a layer (B300 measured 2.335)", quant[0] * 1e3);
	tap_ok(fabs(quant[1] / 1.823e-3 - 1) < 0.10, "MXFP8's quantization and scale "
	       "swizzles %.3f ms a layer (B300 measured 1.823)", quant[1] * 1e3);
	/* NVFP4 on the same page: 3.764 ms of pre-quantized GEMMs a layer,
	 * 6.453 with TE's quantization (random Hadamard transforms, 2D weight
	 * scales and stochastic rounding on: the recipe's defaults) */
	tap_ok(fabs(gemm[2] / gemm[0] / (3.764 / 6.812) - 1) < 1e-3, "NVFP4 GEMMs %.3fx "
	       "per-tensor FP8's (B300: 3.764 / 6.812 ms)", gemm[2] / gemm[0]);
	tap_diag("NVFP4's quantization and scale swizzles %.3f ms a layer (B300 measured "
		 "6.453 - 3.764 = 2.689)", quant[2] * 1e3);
	tap_ok(fabs(quant[2] / 2.689e-3 - 1) < 0.15, "NVFP4's quantization and scale "
	       "swizzles %.3f ms a layer (B300 measured 2.689)", quant[2] * 1e3);
}

/*
 * BF16 at the same page's shapes, held out: no BF16 law was fitted to it.
 * The B300 SXM6's twelve BF16 GEMMs take 13.102 ms a layer pre-quantized
 * and 12.758 ms in autocast (the same kernels timed twice, CUDA events,
 * 10 warm-up and 100 timed iterations); a B300's BF16 tensor rate is a
 * B200's by datasheet (2,250 TFLOP/s dense, HGX) at no less power, so a
 * B200 is no faster there.  The b200 BF16 law (fitted to kernels/b200/)
 * gives 12.22 ms: 4-7% faster than both, where the H200 law, measured
 * sustained, sits 3-6% slower than the same page's short H200 NVL run
 * scaled to the SXM part (31.968 ms x 835.5 / 989.4 TFLOP/s, the two
 * datasheets' dense BF16).  So against one method on both GPUs the B200
 * BF16 law is 8-13% faster relative to H200's -- of the size of the
 * Blackwell rows' excess in make validate (README, Accuracy), but the
 * FP8 law (test_blackwell_recipes) agrees with the page within 0.5%, and
 * those rows are as far off in FP8: recorded, not refitted.  Held: the
 * B200 law within 10% of the B300's mean time, the H200's within 0-10%
 * above its scaled short run.
 */
static void test_te_bf16(void)
{
	double b300_ms = (13.102 + 12.758) / 2, h200_sxm_ms = 31.968 * 835.5 / 989.4;
	double b200_s = load_gpu("b200") < 0 ? -1 : te_layer_s(false);
	double h200_s = load_gpu("h200_sxm") < 0 ? -1 : te_layer_s(false);

	if (b200_s < 0 || h200_s < 0) {
		tap_ok(0, "b200 and h200_sxm load");
		tap_ok(0, "BF16 laws against TE's layer GEMMs");
		return;
	}
	double eb = b200_s * 1e3 / b300_ms - 1, eh = h200_s * 1e3 / h200_sxm_ms - 1;
	tap_diag("BF16 at TE's shapes: b200 law %.3f ms a layer (B300 %.3f, %+.1f%%), "
		 "h200_sxm law %.3f ms (H200 NVL scaled %.3f, %+.1f%%)", b200_s * 1e3,
		 b300_ms, 100 * eb, h200_s * 1e3, h200_sxm_ms, 100 * eh);
	tap_ok(fabs(eb) < 0.10, "b200 BF16 law within 10%% of a B300's layer GEMMs, held "
	       "out (%+.1f%%)", 100 * eb);
	tap_ok(eh > 0 && eh < 0.10, "h200_sxm BF16 law 0-10%% above the short H200 NVL "
	       "run scaled by datasheet peak, held out (%+.1f%%)", 100 * eh);
}

/*
 * The A100 (gpus.cfg, calibration end_to_end): its GEMM rate is fitted to
 * Megatron-LM Table 1, its attention law to FlashAttention-2's own A100
 * measurement, the FA2 paper's Figure 4 (c, d) (arXiv:2307.08691; the
 * twelve forward+backward bars attn_impl.c holds), with H200's measured
 * law giving the split between forward and backward: the catalog's four
 * constants are that fit's (0.5%), its time within 8% of every bar (rms
 * 3.7%).
 * Held out, nothing fitted to them: Azure's ND A100 v4 (Azure/AI-
 * benchmarking-guide Azure_Results/ND_A100_v4_results.md, commit
 * 3bb66cac; one A100-SXM4-80GB, CUDA 12.5) -- FA2 at head dim 64, 2 x
 * 8192 tokens, 179.5 TFLOP/s forward+backward, the law within 6%; and a
 * sustained cuBLASLt FP16 sweep (10,000 warm-up iterations), the GEMM law
 * within 7% at its training-sized shapes (2048^3 up; the small and
 * skinny ones, which it runs 15-38% too fast, printed).
 */
static void test_a100(void)
{
	static const double azure[][4] = {
		{ 2048, 2048, 2048, 221.8 }, { 4096, 4096, 4096, 228.0 },
		{ 8192, 8192, 8192, 253.7 }, { 16384, 16384, 16384, 256.5 },
		{ 6144, 12288, 12288, 250.8 }, { 1024, 1024, 1024, 119.4 },
		{ 1024, 2145, 1024, 132.8 }, { 802816, 192, 768, 157.8 },
	};
	static struct kern_attn_rows r;
	double seq, d, tf, worst = 0, sq = 0;

	if (load_gpu("h200_sxm") < 0) {
		tap_ok(0, "h200_sxm loads");
		return;
	}
	struct kern_attn_law law = g.k.attn;	/* the shape donor */
	if (load_gpu("a100_80gb") < 0) {
		tap_ok(0, "a100_80gb loads");
		return;
	}
	for (r.n = 0; attn_impl_fa2_a100_point(r.n, &seq, &d, &tf); r.n++) {
		r.bh[r.n] = 16384 / seq * (2048 / d);
		r.seq[r.n] = seq;
		r.d[r.n] = d;
		r.fwd_s[r.n] = fa2_bench_s(seq, d, tf);
	}
	law.launch_s = g.k.launch_s;
	law.waves = g.k.attn.waves;	/* the A100's own: fluid (attn_impl.c) */
	kern_fit_attn_total(&g.k, &r, &law);
	const struct kern_attn_law *a = &g.k.attn;
	tap_ok(fabs(a->fwd_flops / law.fwd_flops - 1) < 0.005 &&
	       fabs(a->bwd_flops / law.bwd_flops - 1) < 0.005 &&
	       fabs(a->fwd_block_s / law.fwd_block_s - 1) < 0.005 &&
	       fabs(a->bwd_block_s / law.bwd_block_s - 1) < 0.005,
	       "a100 attention law is FA2 Figure 4's fit (0.5%%): %.1f TFLOP/s + %.3f us "
	       "a block forward, %.1f + %.2f backward", law.fwd_flops / 1e12,
	       law.fwd_block_s * 1e6, law.bwd_flops / 1e12, law.bwd_block_s * 1e6);
	for (int i = 0; i < r.n; i++) {
		double e = attn_total_s(&g.k, r.seq[i], r.d[i]) / r.fwd_s[i] - 1;
		tap_diag("a100 FA2 d %.0f, %5.0f tokens: law %+.1f%% on the bar", r.d[i],
			 r.seq[i], 100 * e);
		worst = fmax(worst, fabs(e));
		sq += e * e;
	}
	tap_ok(worst < 0.08, "a100 attention law's time within 8%% of each of FA2's twelve "
	       "A100 bars (worst %.1f%%, rms %.1f%%)", 100 * worst, 100 * sqrt(sq / r.n));
	/* 16k tokens a batch at 8192: Azure's batch of 2 */
	double e = attn_total_s(&g.k, 8192, 64) / fa2_bench_s(8192, 64, 179.5) - 1;
	tap_ok(fabs(e) < 0.06, "held out: Azure's A100 FA2, d 64, 2 x 8192 tokens: the law's "
	       "time %+.1f%% off 179.5 TFLOP/s (6%%)", 100 * e);
	worst = 0;
	for (size_t i = 0; i < sizeof azure / sizeof azure[0]; i++) {
		const double *x = azure[i];
		double t = 2 * x[0] * x[1] * x[2] / kern_gemm_s(&g.k, false, 1, x[0], x[1], x[2]) / 1e12;
		double err = t / x[3] - 1;
		tap_diag("a100 GEMM %.0fx%.0fx%.0f: %.1f TFLOP/s, Azure %.1f (%+.1f%%)", x[0], x[1],
			 x[2], t, x[3], 100 * err);
		if (i < 5)
			worst = fmax(worst, fabs(err));
	}
	tap_ok(worst < 0.07, "held out: the a100 GEMM law (Table 1's rate) within 7%% of "
	       "Azure's sustained cuBLASLt at its five training-sized shapes (worst %.1f%%)",
	       100 * worst);
}

/*
 * The gb200 entry takes the b200's laws (gpus.cfg): held out against the
 * one GB200 GEMM sweep found, Azure's (Azure/AI-benchmarking-guide,
 * Azure_Results/ND_GB200_v6_results.md, commit 2a370be6: cuBLASLt FP8,
 * random data, 10,000 warm-up iterations), which nothing was fitted to.
 * Its training-sized shapes, TFLOP/s: the model within 12% of each, and
 * at 8192^3, where the B200 was measured too (2,886), within 0.5% of the
 * GB200's 2,876.6.  The 1.111 of the datasheet peaks the entry took until
 * 2026-12-06 gave 3,234 at 32768^3 (+14%).
 */
static void test_gb200(void)
{
	static const double azure[][4] = {
		{ 4096, 4096, 4096, 2834.6 }, { 8192, 8192, 8192, 2876.6 },
		{ 16384, 16384, 16384, 2906.9 }, { 32768, 32768, 32768, 2825.6 },
		{ 6144, 12288, 12288, 2895.6 },
	};
	double worst = 0, sum = 0;
	int n = sizeof azure / sizeof azure[0];

	if (load_gpu("gb200") < 0) {
		tap_ok(0, "gb200 loads");
		return;
	}
	for (int i = 0; i < n; i++) {
		const double *x = azure[i];
		double tf = 2 * x[0] * x[1] * x[2] / kern_gemm_s(&g.k, true, 1, x[0], x[1], x[2]) / 1e12;
		double e = tf / x[3] - 1;
		tap_diag("gb200 FP8 %.0fx%.0fx%.0f: %.1f TFLOP/s, Azure's GB200 %.1f (%+.1f%%)",
			 x[0], x[1], x[2], tf, x[3], 100 * e);
		worst = fmax(worst, fabs(e));
		sum += fabs(e);
	}
	tap_ok(worst < 0.12, "gb200 FP8 GEMMs (the b200's laws) within 12%% of Azure's GB200 "
	       "sweep it was not fitted to (worst %.1f%%, mean %.1f%%)", 100 * worst, 100 * sum / n);
	double tf8k = 2 * 8192.0 * 8192 * 8192 / kern_gemm_s(&g.k, true, 1, 8192, 8192, 8192) / 1e12;
	tap_ok(fabs(tf8k / 2876.6 - 1) < 0.005, "gb200 FP8 8192^3 at the B200's measured row, "
	       "%.1f TFLOP/s: within 0.5%% of the GB200's 2,876.6", tf8k);
}

/*
 * XLA's GEMM table (scenarios/catalog/kernels/xla-matmul.tsv: OpenXLA's
 * matmul_interpolator_data.h, B200 and sm_90 rows at M, N, K = 256..4096),
 * held out: no law was fitted to it.  Compared by the geometric mean of
 * XLA's TFLOP/s over the law's at two groups of shapes: training-sized
 * (M, N, K all >= 2048: 8 rows) and the mid-sized shapes of MoE experts
 * and TP-sharded projections (all >= 1024, one under 2048: 19 rows).
 * What they say (2026-12-06):
 *  - h100 (sm_90, BF16): XLA 1.13x the law at the training-sized shapes,
 *    1.15x at the mid-sized: the boost-clock premium a GEMM timed on an
 *    idle GPU carries (the H200 sweep's first rows ran up to 1.17x its
 *    sustained ones; kernels.h KERN_WARM_S), so the law is held to
 *    1.0-1.25x there.
 *  - b200, FP8: 0.97x at the training-sized shapes (the law's rate is
 *    the MXFP8 rows' at K = 8192-16384, and XLA's 4096^3 is 2,765 TFLOP/s
 *    against Azure's GB200 2,834.6: test_gb200), held to 10%.
 *  - b200, BF16: 0.91x there, held to 15%; at the mid-sized shapes the
 *    law is faster than XLA's own short runs: BF16 0.83x, FP8 0.80x --
 *    0.72x of the h100's ratio, if XLA timed both GPUs alike.
 *    The BF16 rows the law was fitted to (vLLM PRs #19566/#20071, torch
 *    BF16 under triton's do_bench) read 1,444 and 893 TFLOP/s at
 *    2048x4096x4096 and 256x4096x4096, XLA 1,343 and 651: two public
 *    sources apart by 7-37% on one GPU at one shape.  Not refitted: which
 *    one holds is not known; the spread is part of the B200's band.
 * XLA's sm_90 FP8 column is not used (the file says why).
 */
static int xla_ratios(const char *gpu, bool fp8, double *big, double *mid)
{
	char path[4096], line[256], name[16];
	double m, n, k, tf16, tf8, lb = 0, lm = 0;
	int nb = 0, nm = 0;

	snprintf(path, sizeof path, "%s/scenarios/catalog/kernels/xla-matmul.tsv", tap_srcdir());
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f)) {
		if (sscanf(line, "%15s %lf %lf %lf %lf %lf", name, &m, &n, &k, &tf16, &tf8) != 6 ||
		    strcmp(name, gpu) != 0)
			continue;
		double lo = fmin(m, fmin(n, k)), law = 2 * m * n * k /
			kern_gemm_s(&g.k, fp8, 1, m, n, k) / 1e12;
		double r = log((fp8 ? tf8 : tf16) / law);
		if (lo >= 2048) {
			lb += r;
			nb++;
		} else if (lo >= 1024) {
			lm += r;
			nm++;
		}
	}
	fclose(f);
	*big = exp(lb / (nb > 0 ? nb : 1));
	*mid = exp(lm / (nm > 0 ? nm : 1));
	return nb == 8 && nm == 19 ? 0 : -1;
}

static void test_xla(void)
{
	double hb, hm, bb, bm, fb, fm;
	int rc = load_gpu("h100_sxm") < 0 || xla_ratios("h100", false, &hb, &hm) < 0;

	rc |= load_gpu("b200") < 0 || xla_ratios("b200", false, &bb, &bm) < 0 ||
	      xla_ratios("b200", true, &fb, &fm) < 0;
	if (rc) {
		tap_ok(0, "XLA's GEMM table loads: 8 training-sized and 19 mid-sized rows a GPU");
		tap_ok(0, "b200 GEMM laws against XLA's table");
		return;
	}
	tap_diag("XLA / law, training-sized | mid-sized: h100 BF16 %.3f | %.3f, b200 BF16 "
		 "%.3f | %.3f, b200 FP8 %.3f | %.3f", hb, hm, bb, bm, fb, fm);
	tap_ok(hb > 1.0 && hb < 1.25 && hm > 1.0 && hm < 1.25,
	       "h100 BF16 law under XLA's short runs by their boost premium, 1.0-1.25x "
	       "(%.3f, %.3f)", hb, hm);
	tap_ok(fabs(fb - 1) < 0.10 && fabs(bb - 1) < 0.15,
	       "b200 laws at XLA's training-sized shapes it was not fitted to: FP8 within 10%% "
	       "(%.3f), BF16 within 15%% (%.3f)", fb, bb);
}

/* nvidia-smi's totals (scenarios/catalog/gpus.cfg, "Memory a job may
 * fill"): 81,559 MiB on an H100 80GB is 85.52 x 10^9 bytes, 6.9% above the
 * 80 x 10^9 the check used before; a datasheet-only entry keeps hbm_gb. */
static void test_hbm(void)
{
	const struct { const char *gpu; double mib; } dev[] = {
		{ "h100_sxm", 81559 }, { "a100_80gb", 81920 }, { "b200", 183359 },
	};

	for (size_t i = 0; i < sizeof dev / sizeof dev[0]; i++) {
		int rc = load_gpu(dev[i].gpu);
		tap_ok(rc == 0 && g.hbm_bytes == dev[i].mib * 1048576.0,
		       "%s holds a job to %.0f MiB = %.2f GB (%.2f)", dev[i].gpu, dev[i].mib,
		       dev[i].mib * 1048576.0 / 1e9, g.hbm_bytes / 1e9);
	}
}

int main(void)
{
	tap_plan(71);
	if (load_gpu("h200_sxm") < 0 || read_gemm(&rows, tokens, hidden, steady) < 0) {
		tap_ok(0, "catalog and tables load");
		return tap_done();
	}
	tap_ok(1, "catalog and tables load");
	test_fit();
	test_held_out();
	test_rows();
	test_fp8_layer_ratio();
	test_fp8_current();
	test_fp8_block();
	test_streams();
	test_launch();
	test_attn_waves_by_hand();
	test_attn_waves_held_out();
	test_h100();
	test_h100_streams();
	test_b200();
	test_blackwell_streams();
	test_blackwell_recipes();
	test_te_bf16();
	test_gb200();
	test_a100();
	test_xla();
	test_hbm();
	return tap_done();
}
