/* straggler-t.c -- the slowest of N (models/straggler.h): the expected
 * maximum of n standard normals against closed forms and published
 * tables, and the step model's compute at the slowest GPU's speed. */
#include <math.h>
#include <stdio.h>

#include "tests/tap.h"
#include "tests/step-load.h"
#include "models/straggler.h"

#define PI 3.14159265358979323846

static int run(struct cfg_schema *s, const char *sigma, struct step_job *j, struct err *e)
{
	char file[4096], ov[64];
	const char *const o[] = { ov };

	snprintf(file, sizeof file, "%s/tests/bench/step-175b.cfg", tap_srcdir());
	snprintf(ov, sizeof ov, "cluster.gpu_speed_sigma=%s", sigma);
	return step_job_run(s, file, o, 1, j, e);
}

int main(void)
{
	struct cfg_schema *s = step_schema_new();
	struct step_job a, b;
	struct err e;

	tap_plan(11);
	tap_near(strag_expected_max(1) + 1, 1, 1e-12, "one GPU waits for no one: E[Z(1)] = 0");
	/* E[max(X1, X2)] = 1/sqrt(pi); of three, 3/(2 sqrt(pi)) (order
	 * statistics of the normal, by integration of x n phi F^(n-1)) */
	tap_near(strag_expected_max(2), 1 / sqrt(PI), 1e-6, "E[Z(2)] = 1/sqrt(pi)");
	tap_near(strag_expected_max(3), 1.5 / sqrt(PI), 1e-6, "E[Z(3)] = 3/(2 sqrt(pi))");
	/* Tippett 1925 (Biometrika 17) and Harter 1961 (Biometrika 48) tables
	 * of the expected largest normal: 1.53875 (10), 2.50759 (100), 3.24144
	 * (1000) */
	tap_near(strag_expected_max(10), 1.53875, 1e-5, "E[Z(10)] = 1.53875 (Harter 1961)");
	tap_near(strag_expected_max(100), 2.50759, 1e-5, "E[Z(100)] = 2.50759 (Harter 1961)");
	tap_near(strag_expected_max(1000), 3.24144, 1e-5, "E[Z(1000)] = 3.24144 (Harter 1961)");
	/* below the asymptote sqrt(2 ln n) and growing with n */
	tap_ok(strag_expected_max(16384) < sqrt(2 * log(16384.0)) &&
	       strag_expected_max(16384) > strag_expected_max(1000),
	       "E[Z(16384)] = %.4f: above E[Z(1000)], below sqrt(2 ln n) = %.4f",
	       strag_expected_max(16384), sqrt(2 * log(16384.0)));
	tap_near(strag_factor(0.0148, 2), 1 + 0.0148 / sqrt(PI), 1e-9,
		 "two GPUs at sigma 1.48%: 1 + 0.0148/sqrt(pi)");

	/* The step model: 175B on 1024 A100 (tests/bench/step-175b.cfg) with
	 * a spread of 10% and none.  Every rank's kernels run at the slowest
	 * GPU's speed: compute and Adam take 1 + 0.1 E[Z(1024)] times as long;
	 * the TP collectives do not change. */
	if (!tap_ok(run(s, "0", &a, &e) == 0 && run(s, "0.1", &b, &e) == 0,
		    "175B with sigma 0 and 0.1 (%s)", e.msg)) {
		step_job_free(&a);
		step_job_free(&b);
		cfg_schema_free(s);
		return tap_done();
	}
	double f = 1 + 0.1 * strag_expected_max(1024);
	tap_near(b.r.compute_s / a.r.compute_s, f, 1e-6,
		 "compute x 1 + 0.1 E[Z(1024)] (the slowest of 1024 GPUs)");
	tap_near(b.r.tp_exposed_s, a.r.tp_exposed_s, 1e-9, "TP collectives unchanged");
	step_job_free(&a);
	step_job_free(&b);
	cfg_schema_free(s);
	return tap_done();
}
