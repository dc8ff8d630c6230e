/*
 * cjob.h -- one job of a shared cluster (trainsim cluster): what it asks
 * for, where it came from, and what happened to it.  Filled by the job
 * sources (models/jobgen.c: classes, the generator and the inline list;
 * models/swf.c: SWF and CSV traces), run by models/sched.c and
 * models/cluster.c.  Team, project and class are indices into the name
 * tables of struct cjobs.
 */
#ifndef MODELS_CJOB_H
#define MODELS_CJOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

#define CJOB_POOLS_MAX 8

/* CJ_STRANDED: still waiting when nothing could ever start it (the fleet
 * cannot grow to its size and nothing else runs); the run ends then. */
enum cjob_state { CJ_PENDING, CJ_QUEUED, CJ_RUNNING, CJ_STOPPING, CJ_DONE, CJ_STRANDED,
		  CJ_COUNT };

struct cjob {
	/* what it asks for */
	int64_t id;			/* the trace's job number, or its index */
	double submit_s;
	double work_s;			/* run time on its GPUs, undisturbed */
	double limit_s;			/* the user's estimate (EASY's reservations) */
	double ckpt_s;			/* checkpoint interval; 0: restarts from scratch */
	int gpus, nodes;
	int priority;			/* larger runs first (policy priority) */
	int team, project, klass;
	bool training;			/* paced by the run model, else fixed time */
	double comm_frac;		/* of work_s: exposed scale-out communication
					 * (models/cfabric.h) */

	/* what happens to it */
	enum cjob_state state;
	double start_s, end_s;		/* first start; end (or -1) */
	double seg_start_s;		/* current run segment began */
	double done_s;			/* work committed before the segment */
	double lost_s;			/* work lost to failures and preemptions */
	int preemptions, failures;
	double exp_end_s;		/* expected end of the segment (sched.c) */
	double slow;			/* wall s per work s now (shared fabric) */
	double pace_since_s;		/* when slow last changed (or the segment began) */
	double seg_work_s;		/* work done in the segment before then */
	double run_wall_s, run_work_s;	/* over every segment: fabric_slowdown */
	uint64_t end_ev;		/* the pending finish event */
	int leaves;			/* leaf switches its nodes span (last start) */
	int *node;			/* nodes held while running (nodes of them) */
	int pool_nodes[CJOB_POOLS_MAX];	/* of them, per pool */

	/* its books */
	double gpu_s, cost_usd, energy_kwh, carbon_kg;
};

/* The jobs and the names their indices point to. */
struct cjobs {
	struct cjob *v;
	size_t n, cap;
	char **teams, **projects, **classes;
	size_t n_teams, n_projects, n_classes;
	size_t cap_teams, cap_projects, cap_classes;
};

/* A new job at the end (zeroed, end_s -1); NULL when out of memory. */
struct cjob *cjobs_add(struct cjobs *js, struct err *e);
/* The index of name in the table (added if new); -1 when out of memory. */
int cjobs_team(struct cjobs *js, const char *name, struct err *e);
int cjobs_project(struct cjobs *js, const char *name, struct err *e);
int cjobs_class(struct cjobs *js, const char *name, struct err *e);
/* Sort by submit time (stable: equal times keep their order). */
void cjobs_sort(struct cjobs *js);
void cjobs_free(struct cjobs *js);

#endif
