/*
 * kpower-t.c -- a kernel's dynamic power follows its work (models/kpower.h)
 * and the GPU's training power is built from it (models/power.h).
 *
 * The H200's measured points (scenarios/catalog/kernels/h200_sxm/power.tsv:
 * idle 81.6 W, back-to-back 8192^3 bf16 GEMMs 689.5 W at ~730 TFLOP/s,
 * 2 GiB copies 576.7 W at ~4.1 TB/s) must come back from the kernel model
 * running those kernels; the rest is derived by hand from gpus.cfg.
 */
#include <stdio.h>
#include <string.h>

#include "tests/tap.h"
#include "tests/h200-power.h"
#include "sim/cfg.h"
#include "models/compute.h"
#include "models/gpu.h"
#include "models/kpower.h"
#include "models/power.h"
#include "models/run.h"

static struct cfg_schema *schema;

/* scenarios/tiny.cfg on GPU `name`, with one more override (or NULL);
 * the GPU and the power model filled. */
static struct scenario *load(const char *name, const char *extra, struct gpu_spec *g,
			     struct power *p)
{
	char path[4096], gpu[128];
	const char *ov[2] = { gpu, extra };
	struct err e = { 0 };
	struct scenario *sc;

	snprintf(path, sizeof path, "%s/scenarios/tiny.cfg", tap_srcdir());
	snprintf(gpu, sizeof gpu, "cluster.gpu=\"%s\"", name);
	sc = sc_load(schema, path, ov, extra ? 2 : 1, &e);
	if (sc == NULL) {
		tap_diag("%s", e.msg);
		return NULL;
	}
	gpu_from_scenario(sc, name, g);
	if (gpu_check(g, sc_where_of(sc), &e) < 0 || power_from_scenario(sc, g, p, &e) < 0) {
		tap_diag("%s", e.msg);
		sc_free(sc);
		return NULL;
	}
	return sc;
}

/* The measured H200 kernels draw the measured power. */
static void test_h200_measured(void)
{
	struct gpu_spec g;
	struct power p;
	struct scenario *sc = load("h200_sxm", NULL, &g, &p);
	struct cmp_cost c;

	if (sc == NULL) {
		for (int i = 0; i < 4; i++)
			tap_ok(0, "tiny.cfg with an H200 loads");
		return;
	}
	/* power.tsv's header: the GEMMs ran at ~730 TFLOP/s, the copies at
	 * ~4.1 TB/s; the kernel laws give the rates at those shapes */
	tap_near(kpw_ref_gemm_flops_s(&g), 730e12, 0.02,
		 "H200 R_gemm: its GEMM law at 8192^3 within 2% of the measured ~730 TFLOP/s");
	tap_near(kpw_ref_copy_Bps(&g), 4.1e12, 0.02,
		 "H200 R_copy: its copy law at 2 GiB within 2% of the measured ~4.1 TB/s");
	cmp_gemm(&g, false, 1, 8192, 8192, 8192, &c);
	tap_near(g.idle_w + c.dyn_j / c.time_s, measured_w("gemm"), 0.02,
		 "an 8192^3 bf16 GEMM draws the measured 689.5 W (within 2%)");
	cmp_stream(&g, KS_COPY, KPW_REF_COPY_BYTES, &c);
	tap_near(g.idle_w + c.dyn_j / c.time_s, measured_w("copy"), 0.02,
		 "a 2 GiB copy draws the measured 576.7 W (within 2%)");
	sc_free(sc);
}

/* By hand, H200 (idle 81.6, gemm_w 689.5, mem_w 576.7, TDP 700 W). */
static void test_by_hand(void)
{
	struct gpu_spec g;
	struct power p;
	struct scenario *sc = load("h200_sxm", NULL, &g, &p);

	if (sc == NULL) {
		for (int i = 0; i < 7; i++)
			tap_ok(0, "tiny.cfg with an H200 loads");
		return;
	}
	double R = kpw_ref_gemm_flops_s(&g), B = kpw_ref_copy_Bps(&g);
	/* one second's work at R, done in two seconds: half the rate */
	tap_near(g.idle_w + kpw_tensor_j(&g, R, 2.0) / 2.0, 81.6 + (689.5 - 81.6) / 2, 1e-12,
		 "a GEMM at half R_gemm: idle + half the dynamic, 385.55 W");
	tap_near(g.idle_w + kpw_stream_j(&g, B, 2.0) / 2.0, 81.6 + (576.7 - 81.6) / 2, 1e-12,
		 "a copy at half R_copy: idle + half the dynamic, 329.15 W");
	tap_near(kpw_tensor_j(&g, R, 4.0), kpw_tensor_j(&g, R, 2.0), 1e-12,
		 "the same work slower: the same energy above idle");
	/* 1.5 R would draw 81.6 + 1.5 x 607.9 = 993 W: the cap holds it at TDP */
	tap_near(g.idle_w + kpw_tensor_j(&g, 1.5 * R, 1.0), 700, 1e-12,
		 "a GEMM at 1.5 R_gemm is held at TDP, 700 W");
	tap_near(g.idle_w + kpw_stream_j(&g, 1.5 * B, 1.0), 700, 1e-12,
		 "a stream at 1.5 R_copy is held at TDP, 700 W");
	/* kernels 75% of the iteration at 300 W above idle on average, the
	 * rest spinning at comm_w = 81.6 + 0.053 x 618.4 = 114.4 W */
	tap_near(power_train_gpu_w(&p, 0.75, 300), 81.6 + 300 + (114.4 - 81.6) * 0.25, 1e-12,
		 "training GPU: idle + kernels' 300 W + a quarter at comm_w = 389.8 W");
	tap_near(power_train_gpu_w(&p, 1.0, 650), 700, 1e-12,
		 "never above TDP");
	sc_free(sc);
}

/* The formula model's level: the same law at training.efficiency. */
static void test_formula(void)
{
	struct gpu_spec g;
	struct power p;
	struct scenario *sc = load("a100_80gb", NULL, &g, &p);

	if (sc == NULL) {
		for (int i = 0; i < 3; i++)
			tap_ok(0, "tiny.cfg with an A100 loads");
		return;
	}
	/* gpus.cfg: the A100's fitted GEMM rate, gemm_tflops 248 */
	double R = kpw_ref_gemm_flops_s(&g);
	tap_near(R, 248e12, 0.02, "A100 R_gemm within 2% of its fitted 248 TFLOP/s");
	/* 0.44 x 312 TFLOP/s of tensor work: 50 + 342 x 137.28e12 / R */
	tap_near(power_train_gpu_w(&p, 0, 0), 50 + (392 - 50) * 0.44 * 312e12 / R, 1e-12,
		 "formula level: idle + (gemm_w - idle) x 0.44 x peak / R_gemm (~241 W)");
	sc_free(sc);
	sc = load("a100_80gb", "power.gpu_busy_fraction=0.8", &g, &p);
	tap_near(sc ? power_train_gpu_w(&p, 0, 0) : 0, 50 + 0.8 * 350, 1e-12,
		 "power.gpu_busy_fraction = 0.8 set: idle + 0.8 (TDP - idle) = 330 W");
	sc_free(sc);
}

int main(void)
{
	schema = run_schema_new();
	tap_plan(14);
	test_h200_measured();
	test_by_hand();
	test_formula();
	cfg_schema_free(schema);
	return tap_done();
}
