/*
 * plan_warm.c -- warming the pace cache on idle cores.
 *
 * Tightening a bound (plan_bound_undisrupted) costs one step-model
 * simulation of the layout, which the pace cache keeps for every later run
 * of it.  While the search goes on, forked helpers run the simulations of
 * the candidates it will tighten next (least bound first, at most the
 * cut-off) and send back the paces they computed; before tightening a
 * candidate the search waits for its layout's pace if a helper has it on
 * the way, and keeps the helpers busy meanwhile.  The search itself runs
 * exactly as it would alone, finding those paces in the cache: the answer
 * and the table do not depend on the number of helpers.  A helper that
 * fails sends nothing; the search then meets the same failure itself and
 * reports it.
 * Part of the planner (see plan.c, plan_int.h; struct warm is there).
 */
#include "sim/forkjobs.h"
#include "models/pace.h"
#include "models/plan_int.h"

static bool same_layout(const struct cand *a, const struct cand *b)
{
	return a->gpus == b->gpus && a->tp == b->tp && a->pp == b->pp &&
	       a->mb == b->mb && a->zero == b->zero && a->recompute == b->recompute;
}

static bool on_the_way(const struct warm *w, const struct cand *c)
{
	for (int i = 0; i < fj_running(w->pool); i++)
		if (same_layout(&w->cs->v[w->inflight[i]], c))
			return true;
	return false;
}

static void warm_job(void *ctx, int tag, int fd)
{
	struct warm *w = ctx;
	size_t n0 = pace_cache_size(w->p->paces);
	struct err e = { 0 };

	if (plan_bound_undisrupted(w->p, &w->cs->v[tag], &e) >= 0)
		pace_cache_send(w->p->paces, n0, fd);
}

static int warm_start(struct warm *w, long i, struct err *e)
{
	int k = fj_running(w->pool);

	w->cs->v[i].warmed = true;
	if (on_the_way(w, &w->cs->v[i]))
		return 0;
	if (fj_start(w->pool, (int)i, warm_job, w, e) < 0)
		return -1;
	w->inflight[k] = (int)i;
	return 0;
}

/* Wait for a helper to finish and take its paces. */
static int warm_collect(struct warm *w, struct err *e)
{
	const void *data;
	size_t len;
	int tag;

	if (fj_wait(w->pool, &tag, &data, &len, NULL, e) < 0)
		return -1;
	for (int i = 0, n = fj_running(w->pool); i <= n; i++)
		if (w->inflight[i] == tag) {
			w->inflight[i] = w->inflight[n];
			break;
		}
	return pace_cache_take(w->p->paces, data, len, e);
}

/* Idle helpers take the next candidates to tighten. */
static int warm_fill(struct warm *w, double cutoff, struct err *e)
{
	while (fj_running(w->pool) < w->p->jobs) {
		long next = -1;
		for (size_t i = 0; i < w->cs->n; i++) {
			const struct cand *x = &w->cs->v[i];
			if (x->level == LB_ANALYTIC && !x->warmed && x->bound <= cutoff &&
			    (next < 0 || plan_by_bound(x, &w->cs->v[next]) < 0))
				next = (long)i;
		}
		if (next < 0)
			return 0;
		if (warm_start(w, next, e) < 0)
			return -1;
	}
	return 0;
}

/* Before c's bound is tightened: its layout's pace in the cache, unless
 * no helper has it (then the search computes it). */
int plan_warm_for(struct warm *w, struct cand *c, double cutoff, struct err *e)
{
	if (!c->warmed) {
		while (fj_running(w->pool) == w->p->jobs)
			if (warm_collect(w, e) < 0)
				return -1;
		if (warm_start(w, c - w->cs->v, e) < 0)
			return -1;
	}
	if (warm_fill(w, cutoff, e) < 0)
		return -1;
	while (on_the_way(w, c))
		if (warm_collect(w, e) < 0 || warm_fill(w, cutoff, e) < 0)
			return -1;
	return 0;
}
