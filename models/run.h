/*
 * run.h -- the run model: a whole training run, first token to last, as
 * events on the engine.
 *
 * The run is a state machine:
 *
 *   TRAIN --(reached checkpoint iteration)--> CKPT --(written)--> TRAIN
 *   TRAIN/CKPT/RESTART --(failure)--> RESTART --(restored)--> TRAIN
 *   TRAIN --(last iteration)--> done
 *
 * Training advances analytically between events (iterations done = a linear
 * function of time at the cached iteration time), so the number of events
 * grows with checkpoints, failures and samples, never with iterations.
 * Accounting (acct.h) integrates piecewise-constant rates between events.
 *
 * run_simulate() writes the summary, time series, events and step data into
 * the report; the scenario has been loaded and validated by the caller.
 */
#ifndef MODELS_RUN_H
#define MODELS_RUN_H

#include <stdint.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "sim/report.h"

/* Called now and then with the share of tokens done and the simulated time. */
typedef void (*run_progress_fn)(void *ctx, double done_frac, double sim_s);

struct run_opts {
	uint64_t seed;
	run_progress_fn progress;	/* may be NULL */
	void *progress_ctx;
};

/* The schema of every setting the run model and its parts read. */
struct cfg_schema *run_schema_new(void);

/* Check the scenario (layout, derived figures) without running. */
int run_check(const struct scenario *sc, FILE *out, struct err *e);
int run_simulate(const struct scenario *sc, const struct run_opts *o,
		 struct report *rep, struct err *e);

#endif
