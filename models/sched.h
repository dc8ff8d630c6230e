/*
 * sched.h -- the batch scheduler of trainsim cluster: a queue of waiting
 * jobs, the running ones ordered by their expected end, and a pass that
 * decides which to start (or to preempt) now.
 *
 * Policies (sched.policy):
 *   fifo      start jobs in submit order while the first one fits; a job that
 *             does not fit blocks all behind it.
 *   easy      EASY backfilling (Lifka 1995; Mu'alem and Feitelson, IEEE TPDS
 *             12(6), 2001): the first waiting job gets a reservation at the
 *             earliest time enough nodes are expected free (the shadow time,
 *             from the running jobs' requested times); a later job may start
 *             now if it fits and either ends by the shadow time or uses only
 *             nodes the first job will not need then.  At most
 *             sched.backfill_depth jobs are examined per pass (Slurm's
 *             bf_max_job_test, whose default is 500: slurm.conf(5)).
 *   priority  jobs ordered by priority (then submit time); when the first
 *             cannot start, running jobs of lower priority are preempted
 *             (lowest priority, then latest start, first) until it can: each
 *             writes a checkpoint for sched.preempt_checkpoint_s, releases
 *             its nodes and is queued again, its work kept up to that
 *             checkpoint.
 * Every policy gang-schedules: a job starts on all its nodes at once or not
 * at all (no partial starts), as the training frameworks require.
 */
#ifndef MODELS_SCHED_H
#define MODELS_SCHED_H

#include <stddef.h>

#include "sim/cfg.h"
#include "models/cjob.h"

enum sched_policy { SP_FIFO, SP_EASY, SP_PRIORITY };

struct sched_cfg {
	enum sched_policy policy;
	int backfill_depth;
	double preempt_checkpoint_s;
};

/* What the pass asks of the cluster. */
struct sched_env {
	void *ctx;
	int (*free_nodes)(void *ctx);
	int (*start)(void *ctx, int job, struct err *e);	/* must fit */
	int (*preempt)(void *ctx, int job, struct err *e);	/* starts stopping it */
	int stopping_nodes;		/* held by jobs being preempted */
};

struct sched {
	struct sched_cfg cfg;
	struct cjob *jobs;		/* the table (not owned) */
	int *queue;			/* waiting, in policy order */
	size_t nq, capq;
	int *run;			/* running, by expected end */
	double *run_end;
	size_t nr, capr;
};

extern const struct cfg_setting sched_settings[];
void sched_cfg_from_scenario(const struct scenario *sc, struct sched_cfg *c);

void sched_init(struct sched *s, const struct sched_cfg *c, struct cjob *jobs);
void sched_free(struct sched *s);
/* Queue job (new, or back after an interruption). */
int sched_enqueue(struct sched *s, int job, struct err *e);
/* The job started (at now) or stopped running. */
int sched_started(struct sched *s, int job, double now_s, struct err *e);
void sched_stopped(struct sched *s, int job);
/* Start what the policy allows now. */
int sched_pass(struct sched *s, const struct sched_env *env, double now_s, struct err *e);

#endif
