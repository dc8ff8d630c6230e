/*
 * run.h -- the run model: a whole training run, first token to last, as
 * events on the engine.
 *
 * The run is a state machine (state codes as in the `state` time series):
 *
 *   0 training    new iterations          --> checkpoint, done
 *   1 redo        iterations lost to an interruption, done again
 *   2 checkpoint  training stalled for a checkpoint (sync write, or the
 *                 async snapshot and any wait for the previous drain)
 *   3 detecting   after a failure, until it is noticed
 *   4 waiting     for a spare node, or for spot capacity (policy wait, or
 *                 elastic with not one whole replica left), or for a
 *                 preemption announced after a checkpoint-on-notice
 *   5 restarting  reschedule + init + checkpoint load, at the new dp
 *   6 done
 *
 * A failure (failure.h) or a spot preemption (spot.h) in training, redo or
 * checkpoint loses the work since the last completed checkpoint (and the
 * checkpoint being written); training resumes from that checkpoint.
 *
 * Training advances analytically between events: iterations done are a
 * function of time (iteration time at the current dp, GC slowdown folded
 * in, manual GC pauses added every N iterations, gc.h), so events grow
 * with checkpoints, disruptions and samples, never with iterations.
 * run.full_fidelity = true instead takes one event per iteration, to check
 * that the fast path gives the same run.
 *
 * Accounting (acct.h) is told what the cluster holds and does at every
 * change and integrates piecewise-constant rates between events.
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

/* Called with what the user should know of a run that the summary's
 * numbers do not say (waiting for spares, why it did not complete). */
typedef void (*run_warn_fn)(void *ctx, const char *text);

struct pace_cache;

struct run_opts {
	uint64_t seed;
	run_progress_fn progress;	/* may be NULL */
	void *progress_ctx;
	run_warn_fn warn;		/* may be NULL */
	void *warn_ctx;
	struct pace_cache *pace_cache;	/* may be NULL; see models/pace.h */
};

/* The schema of every setting the run model and its parts read. */
struct cfg_schema *run_schema_new(void);

/* Check the scenario (layout, derived figures, traces) without running.
 * The step model's result goes into cache (may be NULL), so that the run
 * that follows the check does not simulate the iteration again. */
int run_check(const struct scenario *sc, struct pace_cache *cache, FILE *out,
	      struct err *e);
int run_simulate(const struct scenario *sc, const struct run_opts *o,
		 struct report *rep, struct err *e);

/* The same in two steps, for many runs of one job (replicas): the
 * settings read once into typed structs (the model, the accounting and
 * its traces; the scenario must outlive the job, whose errors found later
 * name its keys), then runs that read no setting.  The job's full-cluster
 * pace is computed with cache; the runs use o->pace_cache. */
struct run_job;
struct run_job *run_job_from_scenario(const struct scenario *sc,
				      struct pace_cache *cache, struct err *e);
void run_job_free(struct run_job *j);
int run_simulate_job(const struct run_job *j, const struct run_opts *o,
		     struct report *rep, struct err *e);
/* What trainsim cluster needs of a training job: its GPUs, their type
 * (catalog name) and the time its iterations take on the full cluster,
 * free of failures and checkpoints (the cluster model adds those). */
/* Its checkpoints: training time between two, and what each stalls
 * training (both 0 when checkpointing is off). */
void run_job_checkpoints(const struct run_job *j, double *interval_s, double *stall_s);
void run_job_shape(const struct run_job *j, int *gpus, const char **gpu,
		   double *work_s);
/* What trainsim cluster stretches when jobs share links: the time one
 * iteration's data-parallel traffic takes through a node's NICs at their
 * full rate (0 with the formula model, or on one node), with the
 * iteration's time and the part of its data-parallel communication that
 * compute does not hide (the step model's dp_exposed_s). */
double run_job_fabric_s(const struct run_job *j, double *iteration_s, double *exposed_s);
/* run_check() for a job read already: the network built to check it; with
 * out, the derived figures and what accounting will use. */
int run_job_check(const struct run_job *j, FILE *out, struct err *e);

#endif
