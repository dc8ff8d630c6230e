/*
 * failure.h -- first failure model: node failures arrive as a Poisson
 * process (exponential gaps) with a per-node rate, so the job fails at
 * nodes x rate.  A failure stops the job; it restarts after restart_s
 * (detection, rescheduling, initialisation) plus the checkpoint load, and
 * redoes the work since the last completed checkpoint.
 *
 * Default rate: 6.50 failures per 1000 node-days, Meta RSC-1 (A100 nodes of
 * 8; Kokolis et al., HPCA 2025).  Default restart: 10 min, inside RSC's
 * 5-20 min restart overhead (both in shared/reference/formulas.md).
 */
#ifndef MODELS_FAILURE_H
#define MODELS_FAILURE_H

#include <stdbool.h>

#include <gsl/gsl_rng.h>

#include "sim/cfg.h"

struct failure {
	bool enabled;
	double job_rate_per_s;	/* nodes x per-node rate */
	double restart_s;
};

extern const struct cfg_setting failure_settings[];
void failure_from_scenario(const struct scenario *sc, int nodes, struct failure *f);
/* Seconds until the next failure of the job. */
double failure_next_gap_s(const struct failure *f, gsl_rng *rng);

#endif
