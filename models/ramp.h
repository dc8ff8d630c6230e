/*
 * ramp.h -- batch-size ramp-up: the global batch grows from a smaller one
 * to parallel.global_batch over the first sequences of the run, as
 * Megatron-LM's --rampup-batch-size START INCREMENT SAMPLES does it
 * (megatron/core/num_microbatches_calculator.py,
 * RampupBatchsizeNumMicroBatchesCalculator): before each iteration, with c
 * sequences consumed so far, the batch is
 *     start + min(floor(c / (samples / n)), n) x increment,
 *     n = (global_batch - start) / increment increments,
 * so the batch steps up every samples/n sequences and is the full one from
 * c = samples on.  GPT-3 (Brown et al. 2020, appendix B), MT-NLG and BLOOM
 * (bigscience tr11-176B-ml: 192 16 9,765,625) trained so.
 *
 * The ramp is a list of phases, each a batch size and the iteration at
 * which it ends; the run model (run.h) advances at each phase's own pace
 * (an iteration's time at that batch: fewer microbatches fill the pipeline
 * less; run_model.c interpolates the phases between two simulated ones).
 * Each batch must split into whole microbatches over the data-parallel
 * replicas, as Megatron asserts; an elastic job, whose replica count
 * changes, is refused with a ramp-up.
 */
#ifndef MODELS_RAMP_H
#define MODELS_RAMP_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/layout.h"

/* At most this many increments (a bound on the phases' memory and events). */
#define RAMP_MAX_PHASES 4096

struct ramp {
	int n;			/* phases below the full batch (0: no ramp-up) */
	int *batch;		/* sequences per iteration in phase k */
	int64_t *end_iter;	/* iterations done when phase k ends */
};

extern const struct cfg_setting ramp_settings[];

/* The ramp of the scenario's parallel.rampup_* settings for layout L; an
 * error names the setting at fault.  out is zeroed first (n = 0: none). */
int ramp_from_scenario(const struct scenario *sc, const struct layout *L, bool elastic,
		       struct ramp *out, struct err *e);
void ramp_free(struct ramp *r);

/* The phase iteration `iters` + 1 runs in; -1 once the batch is full. */
int ramp_phase(const struct ramp *r, int64_t iters);
/* Sequences consumed by the first `iters` iterations. */
int64_t ramp_sequences(const struct ramp *r, int64_t iters, int global_batch);
/* Iterations until at least `sequences` are consumed. */
int64_t ramp_iters_for(const struct ramp *r, double sequences, int global_batch);

#endif
