/*
 * plan_int.h -- the planner's private parts, shared by its files only:
 * plan.c (setup from the scenario), plan_bound.c (lower bounds),
 * plan_search.c (candidates and branch and bound) and plan_warm.c (helpers
 * warming the pace cache) may include it; nothing else may (the API,
 * struct plan and struct cand with it, is plan.h; the command is
 * cli/plan.c).  Every function shared between the files is prefixed plan_
 * and declared here or in plan.h.
 */
#ifndef MODELS_PLAN_INT_H
#define MODELS_PLAN_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "sim/forkjobs.h"
#include "sim/report.h"
#include "models/gpu.h"
#include "models/pace.h"
#include "models/plan.h"
#include "models/transformer.h"

/* The levels of a candidate's bound, each a true lower bound on its full
 * evaluation (the argument is in plan_bound.c); LB_DONE: evaluated in full
 * or dropped. */
enum { LB_ANALYTIC, LB_UNDISRUPTED, LB_DONE };

/* The helpers warming paces (plan_warm.c); the search owns one. */
struct warm {
	struct plan *p;
	struct cands *cs;
	struct fj_pool *pool;
	int inflight[PLAN_JOBS_MAX];	/* candidates the helpers simulate */
};

/* plan.c: the scenario with the user's overrides that apply to c (all for
 * NULL) and extra ones. */
struct scenario *plan_load(const struct plan *p, const struct cand *c,
			   const char *const *extra, size_t n_extra, struct err *e);

/* plan_bound.c: lower bounds.  0 with c->bound set, 1 when c cannot meet
 * the deadline or the scenario rejects it, -1 on failure. */
int plan_bound_analytic(struct plan *p, struct cand *c, struct err *e);
int plan_bound_undisrupted(struct plan *p, struct cand *c, struct err *e);

/* plan_search.c: evaluation and the search. */
double plan_figure(const struct report *rep, const char *name);
bool plan_completed(const struct report *rep);
double plan_objective(const struct plan *p, const struct report *rep);
int plan_evaluate(struct plan *p, const struct cand *c, const char *const *extra,
		  size_t n_extra, struct report **out, struct err *e);
int plan_by_bound(const void *a, const void *b);
void plan_reject(struct plan *p, const struct cand *c, enum plan_reject why, double days);

/* plan_warm.c */
int plan_warm_for(struct warm *w, struct cand *c, double cutoff, struct err *e);

#endif
