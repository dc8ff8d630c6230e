/*
 * jobgen.h -- where the jobs of trainsim cluster come from: job classes
 * (a generator of Poisson arrivals with sizes and durations drawn from the
 * class's distributions), an inline list, and a trace (models/swf.h).
 *
 * A class or an inline job is either fixed (its duration given or drawn)
 * or a training run: `scenario` names a run scenario (relative to the
 * cluster file) whose GPUs and undisturbed time come from the run model's
 * pace (models/pace.h through run_job_shape), computed once per scenario
 * file.  Teams may carry a budget that raises an alert when crossed.
 */
#ifndef MODELS_JOBGEN_H
#define MODELS_JOBGEN_H

#include <stdint.h>

#include "sim/cfg.h"
#include "models/cjob.h"

struct jobgen_budget {
	double usd;			/* 0: none */
};

extern const struct cfg_setting jobgen_settings[];
/* Fill js with every job of the scenario, sorted by submit time; the
 * fleet's GPU type and node size check the training jobs. */
int jobgen_from_scenario(const struct scenario *sc, const char *gpu, int gpus_per_node,
			 uint64_t seed, struct cjobs *js, struct err *e);
/* The workload's length (the generator's horizon), s. */
double jobgen_days_s(const struct scenario *sc);

#endif
