/*
 * formula-run.h -- run a scenario file of the source tree through the run
 * model into a report: scenario_run() as the file says, formula_run() with
 * the formula iteration model (Megatron's FLOPs at training.efficiency of
 * peak, full recomputation), whose times a test can derive by hand.  The
 * step model has its own tests.  Include after tap.h.
 */
#ifndef TESTS_FORMULA_RUN_H
#define TESTS_FORMULA_RUN_H

#include <math.h>
#include <stdio.h>

#include "sim/cfg.h"
#include "sim/report.h"
#include "models/run.h"

#define FORMULA_RUN_OV_MAX 64

/* FILE (relative to the source tree) with overrides ov, seed: 0, or -1
 * after printing "FILE: error" as a TAP diagnostic. */
static inline int scenario_run(const char *file, const char *const *ov, size_t n_ov,
			       uint64_t seed, struct report *rep)
{
	char path[4096];
	struct err e = { 0 };
	struct cfg_schema *schema = run_schema_new();
	struct scenario *sc;
	struct run_opts o = { .seed = seed };
	int rc = -1;

	snprintf(path, sizeof path, "%s/%s", tap_srcdir(), file);
	sc = sc_load(schema, path, ov, n_ov, &e);
	if (sc && run_simulate(sc, &o, rep, &e) == 0)
		rc = 0;
	if (rc < 0)
		tap_diag("%s: %s", file, e.msg);
	sc_free(sc);
	cfg_schema_free(schema);
	return rc;
}

static inline int formula_run(const char *file, const char *const *ov_in, size_t n_in,
			      uint64_t seed, struct report *rep)
{
	const char *ov[FORMULA_RUN_OV_MAX] = {
		"training.iteration_model=formula", "parallel.recompute=full"
	};
	size_t n_ov = 2;

	for (size_t i = 0; i < n_in && n_ov < FORMULA_RUN_OV_MAX; i++)
		ov[n_ov++] = ov_in[i];
	return scenario_run(file, ov, n_ov, seed, rep);
}

/* One summary figure of a formula run of FILE (NaN when the run fails);
 * keep (optional) receives the whole report, for the caller to free. */
static inline double formula_figure(const char *file, const char *const *ov, size_t n,
				    uint64_t seed, const char *key, struct report **keep)
{
	struct report *r = rep_new();
	double v = NAN;

	if (formula_run(file, ov, n, seed, r) == 0)
		v = rep_summary_get(r, key);
	if (keep)
		*keep = r;
	else
		rep_free(r);
	return v;
}

#endif
