/*
 * forkjobs.h -- a few jobs run side by side in forked children of this
 * process, each sending its result back as bytes.
 *
 * For work the parent could do itself, done ahead on idle cores (the
 * planner warms its pace cache so): the children are copies of the parent
 * at the fork, a job writes what it found to the descriptor it is given and
 * returns, and the parent hands each job's bytes to `take` in job order.
 * A job that fails sends what it sends (nothing, say); `take` decides.
 * Children end with _exit(), so nothing the parent has buffered is written
 * twice.  Only the parent returns from fj_run().
 */
#ifndef SIM_FORKJOBS_H
#define SIM_FORKJOBS_H

#include <stddef.h>

#include "sim/err.h"

typedef void (*fj_job_fn)(void *ctx, int job, int fd);
typedef int (*fj_take_fn)(void *ctx, int job, const void *data, size_t len,
			  struct err *e);

/* Jobs 0..n-1, at most `workers` at a time (a new one starts as one ends). */
int fj_run(int n, int workers, fj_job_fn job, fj_take_fn take, void *ctx,
	   struct err *e);

/* Online CPUs (at least 1). */
int fj_cpus(void);

#endif
