/*
 * replicas.h -- one scenario run N times with independent seeds, in
 * parallel, reduced to a mean and a 95% confidence interval per summary
 * figure.
 *
 *   struct replicas *rs;
 *   struct run_job *job = run_job_from_scenario(sc, NULL, e);
 *   replicas_run(job, seed, n, 0, NULL, &rs, e);  // seeds seed .. seed+n-1
 *   ...run seed itself into the report that is written...
 *   replicas_add(rs, rep);                    // KEY_mean, KEY_ci95, replicas
 *   replicas_free(rs);
 *
 * Replica i runs with seed + i (rng.h hashes seed and stream name, so
 * neighbouring seeds give unrelated streams).  The work is shared among
 * forked worker processes (sim/forkjobs.h) -- not threads: the HDF5
 * library is not thread-safe and each run is independent -- worker w
 * running replicas w, w + W, ... and sending their summaries back, which
 * the parent takes as they come.  Results are combined by replica index,
 * so the output does not depend on the number of workers or their timing,
 * and neither does the error when replicas fail: it names the least one
 * that failed, or that a worker which died never sent.
 *
 * The interval is Student's t: mean +- t(0.975, n-1) s / sqrt(n), s the
 * sample standard deviation; with n = 1 it is NaN.  Summary figures that
 * are NaN in any replica have a NaN mean.
 */
#ifndef MODELS_REPLICAS_H
#define MODELS_REPLICAS_H

#include <stdint.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "sim/report.h"

struct replicas;

struct pace_cache;

struct run_job;

/* Runs of job (models/run.h, read once per load) with seeds seed ..
 * seed+n-1; workers = 0: one per online CPU (at most n).  paces (may be
 * NULL): step results known already (models/pace.h), which the workers
 * inherit. */
int replicas_run(const struct run_job *job, uint64_t seed, int n, int workers,
		 struct pace_cache *paces, struct replicas **out, struct err *e);
/* As replicas_run, calling progress(ctx, done, n) as each replica's
 * figures come in (for a progress line). */
typedef void replicas_progress_fn(void *ctx, int done, int n);
int replicas_run_with(const struct run_job *job, uint64_t seed, int n, int workers,
		      struct pace_cache *paces, replicas_progress_fn *progress,
		      void *progress_ctx, struct replicas **out, struct err *e);
/* Add "replicas" and, for every summary figure KEY, KEY_mean and KEY_ci95. */
void replicas_add(const struct replicas *rs, struct report *rep);
void replicas_free(struct replicas *rs);

#endif
