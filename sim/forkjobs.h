/*
 * forkjobs.h -- jobs run side by side in forked children of this process,
 * each sending its result back as bytes.
 *
 * For independent work spread over cores (the planner warms its pace cache
 * so, replicas.c runs its seeds so): a child is a copy of the parent at the
 * fork, its job writes what it found to the descriptor it is given
 * (fj_send) and returns, and the parent has the bytes, and how the child
 * ended, when the job ends.  While it waits the parent reads every running
 * child's pipe as data comes, so a job may send any amount without
 * blocking on a full pipe for long.  A job that fails sends what it sends
 * (nothing, say); the parent decides.  Children end with _exit(), so
 * nothing the parent has buffered is written twice, and hold no descriptor
 * of the pool but their own pipe's.
 *
 *   pool = fj_pool_new(workers, e);
 *   fj_start(pool, tag, job, ctx, e);         while fj_running(pool) < workers
 *   fj_wait(pool, &tag, &data, &len, &st, e); the next job to end, its bytes
 *   fj_pool_free(pool);                       stops and reaps what still runs
 */
#ifndef SIM_FORKJOBS_H
#define SIM_FORKJOBS_H

#include <stddef.h>

#include "sim/err.h"

typedef void (*fj_job_fn)(void *ctx, int tag, int fd);

struct fj_pool;
struct fj_pool *fj_pool_new(int workers, struct err *e);
void fj_pool_free(struct fj_pool *pool);
int fj_running(const struct fj_pool *pool);
/* Fork a child running job(ctx, tag, fd); at most `workers` at once. */
int fj_start(struct fj_pool *pool, int tag, fj_job_fn job, void *ctx, struct err *e);
/* Block until a running job ends: its tag, its bytes (valid until the next
 * call) and its child's wait status (status may be NULL; 0: the job
 * returned).  -1 with e filled on failure, or when nothing runs. */
int fj_wait(struct fj_pool *pool, int *tag, const void **data, size_t *len,
	    int *status, struct err *e);
/* In a job: all of data to fd; -1 if it cannot (the parent gone, say). */
int fj_send(int fd, const void *data, size_t len);

/* Online CPUs (at least 1). */
int fj_cpus(void);

#endif
