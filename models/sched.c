/*
 * sched.c -- the batch scheduler: queue, running set and the policies'
 * pass (see sched.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/grow.h"
#include "models/sched.h"

const struct cfg_setting sched_settings[] = {
	{ "sched.policy", CFG_ENUM, "", 0, 0, "easy", "fifo|easy|priority",
	  "fifo, EASY backfilling, or priority with preemption" },
	{ "sched.backfill_depth", CFG_INT, "jobs", 1, 1e9, "500", NULL,
	  "jobs examined per backfill pass (Slurm bf_max_job_test default 500, "
	  "slurm.conf(5))" },
	{ "sched.preempt_checkpoint_s", CFG_FLOAT, "s", 0, 86400, "60", NULL,
	  "a preempted job's checkpoint before its nodes are free (an assumption: "
	  "an asynchronous snapshot to host memory takes seconds to minutes)" },
	CFG_END
};

void sched_cfg_from_scenario(const struct scenario *sc, struct sched_cfg *c)
{
	const char *p = sc_str(sc, "sched.policy");

	c->policy = strcmp(p, "fifo") == 0 ? SP_FIFO :
		    strcmp(p, "priority") == 0 ? SP_PRIORITY : SP_EASY;
	c->backfill_depth = (int)sc_int(sc, "sched.backfill_depth");
	c->preempt_checkpoint_s = sc_float(sc, "sched.preempt_checkpoint_s");
}

void sched_init(struct sched *s, const struct sched_cfg *c, struct cjob *jobs)
{
	memset(s, 0, sizeof *s);
	s->cfg = *c;
	s->jobs = jobs;
}

void sched_free(struct sched *s)
{
	free(s->queue);
	free(s->run);
	free(s->run_end);
}

/* Does job a go before job b in the queue? */
static int before(const struct sched *s, int a, int b)
{
	const struct cjob *x = &s->jobs[a], *y = &s->jobs[b];

	if (s->cfg.policy == SP_PRIORITY && x->priority != y->priority)
		return x->priority > y->priority;
	if (x->submit_s != y->submit_s)
		return x->submit_s < y->submit_s;
	return a < b;
}

int sched_enqueue(struct sched *s, int job, struct err *e)
{
	size_t lo = 0, hi = s->nq;
	void *grown = grow_room(s->queue, &s->capq, s->nq, sizeof *s->queue, 256);

	if (grown == NULL)
		return err_set(e, ERR_RUN, "scheduler queue: out of memory");
	s->queue = grown;
	while (lo < hi) {		/* first position whose job goes after */
		size_t mid = (lo + hi) / 2;
		if (before(s, s->queue[mid], job))
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(s->queue + lo + 1, s->queue + lo, (s->nq - lo) * sizeof *s->queue);
	s->queue[lo] = job;
	s->nq++;
	s->jobs[job].state = CJ_QUEUED;
	return 0;
}

static size_t run_lower(const struct sched *s, double end_s)
{
	size_t lo = 0, hi = s->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (s->run_end[mid] < end_s)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int sched_started(struct sched *s, int job, double now_s, struct err *e)
{
	struct cjob *j = &s->jobs[job];
	size_t cap = s->capr;
	void *g1 = grow_room(s->run, &cap, s->nr, sizeof *s->run, 256);

	if (g1 == NULL)
		return err_set(e, ERR_RUN, "scheduler: out of memory");
	s->run = g1;
	cap = s->capr;
	void *g2 = grow_room(s->run_end, &cap, s->nr, sizeof *s->run_end, 256);
	if (g2 == NULL)
		return err_set(e, ERR_RUN, "scheduler: out of memory");
	s->run_end = g2;
	s->capr = cap;
	/* Backfilling trusts the user's estimate, never the true run time. */
	j->exp_end_s = now_s + fmax(j->limit_s - j->done_s, 0);
	size_t at = run_lower(s, j->exp_end_s);
	while (at < s->nr && s->run_end[at] == j->exp_end_s)
		at++;			/* equal ends keep their start order */
	memmove(s->run + at + 1, s->run + at, (s->nr - at) * sizeof *s->run);
	memmove(s->run_end + at + 1, s->run_end + at, (s->nr - at) * sizeof *s->run_end);
	s->run[at] = job;
	s->run_end[at] = j->exp_end_s;
	s->nr++;
	return 0;
}

void sched_stopped(struct sched *s, int job)
{
	size_t at = run_lower(s, s->jobs[job].exp_end_s);

	while (at < s->nr && s->run[at] != job)
		at++;
	if (at == s->nr)
		return;
	memmove(s->run + at, s->run + at + 1, (s->nr - at - 1) * sizeof *s->run);
	memmove(s->run_end + at, s->run_end + at + 1,
		(s->nr - at - 1) * sizeof *s->run_end);
	s->nr--;
}

static void queue_remove(struct sched *s, size_t i)
{
	memmove(s->queue + i, s->queue + i + 1, (s->nq - i - 1) * sizeof *s->queue);
	s->nq--;
}

/* EASY: when will the first job's nodes be free, and how many spare then? */
static void shadow(const struct sched *s, int need, int free_now, double now_s,
		   double *shadow_s, int *extra)
{
	int avail = free_now;

	*shadow_s = now_s;
	for (size_t i = 0; i < s->nr && avail < need; i++) {
		const struct cjob *r = &s->jobs[s->run[i]];
		avail += r->nodes;
		*shadow_s = s->run_end[i];
	}
	if (avail < need)		/* never (more nodes may come): no backfill limit */
		*shadow_s = INFINITY;
	*extra = avail - need;
}

static int backfill(struct sched *s, const struct sched_env *env, double now_s,
		    struct err *e)
{
	double shadow_s;
	int extra, head_need = s->jobs[s->queue[0]].nodes;

	shadow(s, head_need, env->free_nodes(env->ctx), now_s, &shadow_s, &extra);
	for (size_t i = 1, seen = 0; i < s->nq && seen < (size_t)s->cfg.backfill_depth;
	     seen++) {
		int job = s->queue[i];
		const struct cjob *j = &s->jobs[job];
		bool ends_first = now_s + (j->limit_s - j->done_s) <= shadow_s;

		if (j->nodes > env->free_nodes(env->ctx) || (!ends_first && j->nodes > extra)) {
			i++;
			continue;
		}
		if (!ends_first)
			extra -= j->nodes;
		queue_remove(s, i);
		if (env->start(env->ctx, job, e) < 0)
			return -1;
	}
	return 0;
}

/* Priority: preempt lower-priority jobs until the first one can start. */
struct victim {
	int priority, job;
	double start_s;
};

static int by_victim_order(const void *a, const void *b)
{
	const struct victim *x = a, *y = b;

	if (x->priority != y->priority)		/* lowest priority first */
		return x->priority < y->priority ? -1 : 1;
	if (x->start_s != y->start_s)		/* then the latest start */
		return x->start_s > y->start_s ? -1 : 1;
	return x->job < y->job ? -1 : x->job > y->job;
}

static int make_room(struct sched *s, const struct sched_env *env, int job, struct err *e)
{
	const struct cjob *w = &s->jobs[job];
	int avail = env->free_nodes(env->ctx) + env->stopping_nodes;
	struct victim *v;
	size_t n = 0, take = 0;
	int rc = 0;

	if (avail >= w->nodes)
		return 0;		/* nodes are on their way */
	if ((v = malloc((s->nr ? s->nr : 1) * sizeof *v)) == NULL)
		return err_set(e, ERR_RUN, "scheduler: out of memory");
	for (size_t i = 0; i < s->nr; i++) {
		const struct cjob *r = &s->jobs[s->run[i]];
		if (r->state == CJ_RUNNING && r->priority < w->priority)
			v[n++] = (struct victim){ r->priority, s->run[i], r->seg_start_s };
	}
	qsort(v, n, sizeof *v, by_victim_order);
	while (take < n && avail < w->nodes)
		avail += s->jobs[v[take++].job].nodes;
	if (avail >= w->nodes)		/* else preempting would not help */
		for (size_t k = 0; k < take && rc == 0; k++)
			rc = env->preempt(env->ctx, v[k].job, e);
	free(v);
	return rc;
}

int sched_pass(struct sched *s, const struct sched_env *env, double now_s, struct err *e)
{
	while (s->nq > 0) {
		int job = s->queue[0];

		if (s->jobs[job].nodes <= env->free_nodes(env->ctx)) {
			queue_remove(s, 0);
			if (env->start(env->ctx, job, e) < 0)
				return -1;
			continue;
		}
		if (s->cfg.policy == SP_EASY)
			return backfill(s, env, now_s, e);
		if (s->cfg.policy == SP_PRIORITY)
			return make_room(s, env, job, e);
		break;
	}
	return 0;
}
