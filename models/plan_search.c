/*
 * plan_search.c -- the planner's search: the candidates (every layout and
 * pricing mix that fits in memory), their evaluation by the run model, the
 * checkpoint intervals tried around Daly's optimum, and branch and bound
 * over the candidates in order of their bounds (plan_bound.c), so that the
 * ranking is the one evaluating every candidate would give, at a fraction
 * of the runs.
 * Part of the planner (see plan.c, plan_int.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg.h"
#include "sim/forkjobs.h"
#include "sim/report.h"
#include "models/plan_int.h"
#include "models/run.h"

/* --- evaluation ----------------------------------------------------------- */

double plan_figure(const struct report *rep, const char *name)
{
	double v = rep_summary_get(rep, name);

	return isnan(v) ? 0 : v;
}

/* Did the run finish its tokens?  (A report without the figure: yes.) */
bool plan_completed(const struct report *rep)
{
	double v = rep_summary_get(rep, "completed");

	return isnan(v) || v > 0;
}

double plan_objective(const struct plan *p, const struct report *rep)
{
	switch (p->goal) {
	case GOAL_CARBON:
		return plan_figure(rep, "carbon_kg") + plan_figure(rep, "embodied_carbon_kg");
	case GOAL_TIME: return plan_figure(rep, "duration_s");
	default: return plan_figure(rep, "cost_usd");
	}
}

/* Run the model on the scenario with the candidate's overrides (and extra
 * ones).  Returns 1 when the scenario rejects the candidate (a layout or
 * memory error: not a failure of the search), 0 when run, -1 on failure.
 * The report is returned for the caller to free. */
int plan_evaluate(struct plan *p, const struct cand *c, const char *const *extra,
		  size_t n_extra, struct report **out, struct err *e)
{
	const char *ov[PLAN_OV_MAX + 8];
	size_t n = 0;
	struct err ce = { 0 };
	struct scenario *sc;
	struct report *rep;
	struct run_opts o = { 0 };
	int rc;

	*out = NULL;
	for (int i = 0; i < c->n_ov; i++)
		ov[n++] = c->ov[i];
	for (size_t i = 0; i < n_extra && n < sizeof ov / sizeof *ov; i++)
		ov[n++] = extra[i];
	sc = plan_load(p, c, ov, n, &ce);
	if (sc == NULL) {
		if (ce.status == ERR_USAGE) {
			snprintf(p->reject_msg, sizeof p->reject_msg, "%.199s", ce.msg);
			return 1;
		}
		*e = ce;
		return -1;
	}
	if ((rep = rep_new()) == NULL) {
		sc_free(sc);
		return err_set(e, ERR_RUN, "out of memory");
	}
	o.seed = (uint64_t)sc_int(sc, "run.seed");
	o.pace_cache = p->paces;	/* candidates differ only in the cache's key */
	rc = run_simulate(sc, &o, rep, &ce);
	sc_free(sc);
	p->runs++;
	if (rc < 0) {
		rep_free(rep);
		if (ce.status == ERR_USAGE) {
			snprintf(p->reject_msg, sizeof p->reject_msg, "%.199s", ce.msg);
			return 1;
		}
		*e = ce;
		return -1;
	}
	*out = rep;
	return 0;
}

const char *const plan_reject_names[REJ_COUNT] = {
	"over the GPU's memory", "refused by the scenario",
	"late even without failures", "incomplete even without failures",
	"late with failures and preemptions", "incomplete with failures and preemptions",
};

/* Count c as dropped for `why`; days: its run's duration (NaN: none). */
void plan_reject(struct plan *p, const struct cand *c, enum plan_reject why, double days)
{
	struct plan_group *g = NULL;

	for (size_t i = 0; p->why && i < p->n_gpu_list; i++)
		if (p->gpu_list[i] == c->gpus)
			g = &p->why[i];
	if (g == NULL)
		return;
	g->n[why]++;
	if (why == REJ_SCENARIO && !g->msg[0])
		snprintf(g->msg, sizeof g->msg, "%s", p->reject_msg);
	if (days < g->best_days)
		g->best_days = days;
}

/* --- candidates ----------------------------------------------------------- */

/* The scenario's pools scaled to c's nodes, largest remainder last: each
 * keeps its share (at least one node), the last takes what is left. */
static void pool_overrides(struct cand *c, const struct plan *p)
{
	int nodes = c->gpus / p->gpus_per_node, total = 0, left = nodes;

	for (int i = 0; i < p->n_pools; i++)
		total += p->pool_nodes[i];
	if (total == nodes || total <= 0)
		return;
	for (int i = 0; i < p->n_pools; i++) {
		int k = i == p->n_pools - 1 ? left
			: (int)fmax(1, lround((double)p->pool_nodes[i] * nodes / total));

		if (k > left - (p->n_pools - 1 - i))
			k = left - (p->n_pools - 1 - i);
		left -= k;
		snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "pools.%s.nodes=%d",
			 p->pool_name[i], k);
	}
}

static void cand_set_overrides(struct cand *c, const struct plan *p)
{
	c->n_ov = 0;
	snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "cluster.gpus=%d", c->gpus);
	snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "parallel.tp=%d", c->tp);
	snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "parallel.pp=%d", c->pp);
	snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "parallel.micro_batch=%d", c->mb);
	snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "parallel.recompute=%s",
		 c->recompute ? "full" : "none");
	if (p->rc_modules)	/* modules live only within selective */
		snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "parallel.recompute_modules=\"\"");
	if (p->has_zero)
		snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "parallel.zero_stage=%d", c->zero);
	if (p->uneven && c->pp != p->pp0) {	/* the scenario's split is for its pp */
		snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "parallel.first_stage_layers=0");
		snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "parallel.last_stage_layers=0");
	}
	if (c->ckpt_s > 0 && !p->ckpt_fixed)
		snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "training.checkpoint.policy=time");
	if (c->ckpt_s > 0)
		snprintf(c->ov[c->n_ov++], PLAN_OV_LEN,
			 "training.checkpoint.interval_s=%.0f", c->ckpt_s);
	pool_overrides(c, p);
	if (p->n_spot > 0) {
		/* Two pools, "od" and "sp"; an empty one is left out (a pool
		 * holds at least one node). */
		int nodes = c->gpus / p->gpus_per_node;

		if (c->spot_nodes < nodes) {
			snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "pools.od.class=on_demand");
			snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "pools.od.nodes=%d",
				 nodes - c->spot_nodes);
		}
		if (c->spot_nodes > 0) {
			snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "pools.sp.class=spot");
			snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "pools.sp.nodes=%d",
				 c->spot_nodes);
		}
	}
}

static int cands_push(struct cands *cs, const struct cand *c)
{
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? 2 * cs->cap : 256;
		struct cand *v = realloc(cs->v, cap * sizeof *v);

		if (v == NULL)
			return -1;
		cs->v = v;
		cs->cap = cap;
	}
	cs->v[cs->n++] = *c;
	return 0;
}

/* The candidate once per pricing mix (once as it is without --spot-fractions). */
static int push_pricing(const struct plan *p, struct cands *cs, struct cand *c)
{
	int nodes = c->gpus / p->gpus_per_node, last = -1;

	for (size_t i = 0; i < (p->n_spot ? p->n_spot : 1); i++) {
		c->spot_nodes = p->n_spot ? (int)lround(p->spot_fractions[i] * nodes) : 0;
		if (c->spot_nodes == last)
			continue;	/* two fractions round to the same split */
		last = c->spot_nodes;
		cand_set_overrides(c, p);
		if (cands_push(cs, c) < 0)
			return -1;
	}
	return 0;
}

/* Every layout that passes the rules this file can check without the
 * scenario loader and the memory bound. */
static int enumerate(struct plan *p, struct cands *cs)
{
	static const int mbs[] = { 1, 2, 4, 8 };
	int zmax = p->has_zero ? 3 : 0;

	for (size_t gi = 0; gi < p->n_gpu_list; gi++) {
		int gpus = p->gpu_list[gi];

		for (int tp = 1; tp <= p->gpus_per_node; tp *= 2) {
			/* TP stays inside a node: its all-reduces are on the
			 * critical path (Narayanan et al. 2021, sec. 3.2). */
			if (p->m.heads % tp || gpus % tp)
				continue;
			for (int pp = 1; pp <= p->m.layers; pp++) {
				/* stages of unequal layer counts are the
				 * loader's to accept or refuse */
				if (gpus % (tp * pp))
					continue;
				int dp = gpus / (tp * pp);
				for (size_t k = 0; k < sizeof mbs / sizeof *mbs; k++) {
					if (p->global_batch % (dp * mbs[k]))
						continue;
					for (int rec = 1; rec >= 0; rec--)
						for (int z = 0; z <= zmax; z++) {
							struct cand c = { .gpus = gpus, .tp = tp,
								.pp = pp, .dp = dp, .mb = mbs[k],
								.zero = z, .recompute = rec };

							c.mem_bound_bytes = plan_mem_bound_bytes(
								&p->m, tp, pp, dp, mbs[k], rec, z,
								p->fp8, p->cp);
							if (c.mem_bound_bytes > p->hbm_bytes) {
								plan_reject(p, &c, REJ_MEMORY, NAN);
								continue;
							}
							if (push_pricing(p, cs, &c) < 0)
								return -1;
						}
				}
			}
		}
	}
	return 0;
}

/* --- orderings ------------------------------------------------------------ */

/* Last resort of both orders, so that the ranking is the same on every
 * libc: the overrides as text. */
static int by_overrides(const struct cand *x, const struct cand *y)
{
	for (int i = 0; i < x->n_ov && i < y->n_ov; i++) {
		int c = strcmp(x->ov[i], y->ov[i]);

		if (c)
			return c;
	}
	return x->n_ov - y->n_ov;
}

int plan_by_bound(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->bound != y->bound)
		return x->bound < y->bound ? -1 : 1;
	if (x->duration_s != y->duration_s)
		return x->duration_s < y->duration_s ? -1 : 1;
	return by_overrides(x, y);
}

static int by_objective(const void *a, const void *b)
{
	const struct cand *x = a, *y = b;

	if (x->feasible != y->feasible)
		return y->feasible - x->feasible;
	if (x->obj != y->obj)
		return x->obj < y->obj ? -1 : 1;
	if (x->duration_s != y->duration_s)
		return x->duration_s < y->duration_s ? -1 : 1;
	if (x->gpus != y->gpus)
		return x->gpus - y->gpus;
	if (x->tp * x->pp != y->tp * y->pp)
		return x->tp * x->pp - y->tp * y->pp;
	return by_overrides(x, y);
}

/* --- checkpoint intervals and full evaluation ----------------------------- */

double plan_daly_interval_s(double write_s, double mtbf_s)
{
	double r;

	if (write_s >= 2 * mtbf_s)
		return mtbf_s;
	r = write_s / (2 * mtbf_s);
	return sqrt(2 * write_s * mtbf_s) * (1 + sqrt(r) / 3 + r / 9) - write_s;
}

/* Mean time between failures of the candidate's job, and its checkpoint
 * write time, from the settings the run model reads (run.h's model), read
 * once in plan_setup: no candidate changes them. */
int plan_daly_for(struct plan *p, const struct cand *c, double *tau_s,
		  double *write_s, double *mtbf_s, struct err *e)
{
	double rate = p->fail_per_node_per_s * (c->gpus / p->gpus_per_node);

	(void)e;
	*write_s = tfm_params(&p->m) * p->ckpt_bytes_per_param / p->ckpt_write_Bps;
	*mtbf_s = rate > 0 ? 1.0 / rate : INFINITY;
	*tau_s = isinf(*mtbf_s) ? p->ckpt_s : plan_daly_interval_s(*write_s, *mtbf_s);
	return 0;
}

/* Full evaluation at checkpoint intervals around Daly's optimum (and the
 * scenario's own); keeps the best feasible one in c. */
static int evaluate_full(struct plan *p, struct cand *c, struct err *e)
{
	double tau, write_s, mtbf_s, tries[4], days = INFINITY;
	struct cand best = *c;
	enum plan_reject why = REJ_SCENARIO;

	best.feasible = 0;
	best.obj = INFINITY;
	if (plan_daly_for(p, c, &tau, &write_s, &mtbf_s, e) < 0)
		return -1;
	tries[0] = tau;
	tries[1] = tau / 2;
	tries[2] = tau * 2;
	tries[3] = p->ckpt_s;
	if (!p->ckpt_fixed)	/* the scenario's own policy, then around its interval */
		tries[0] = 0;
	for (int i = 0; i < 4; i++) {
		struct cand t = *c;
		struct report *rep;
		int rc;

		if (!p->ckpt_fixed && i == 3)
			break;
		t.ckpt_s = i == 0 && !p->ckpt_fixed ? 0 : fmax(1, round(tries[i]));
		cand_set_overrides(&t, p);
		rc = plan_evaluate(p, &t, NULL, 0, &rep, e);
		if (rc < 0)
			return -1;
		if (rc > 0) {
			why = REJ_SCENARIO;
			continue;
		}
		if (i == 0 && !p->ckpt_fixed) {
			/* the interval the policy chose, in training time */
			double ival = plan_figure(rep, "checkpoint_interval_s");
			tries[1] = ival / 2;
			tries[2] = ival * 2;
			t.ckpt_s = round(ival);	/* shown; the policy is the override */
		}
		t.obj = plan_objective(p, rep);
		t.duration_s = plan_figure(rep, "duration_s");
		t.cost_usd = plan_figure(rep, "cost_usd");
		t.op_carbon_kg = plan_figure(rep, "carbon_kg");
		t.embodied_kg = plan_figure(rep, "embodied_carbon_kg");
		t.carbon_kg = t.op_carbon_kg + t.embodied_kg;
		t.peak_mem_gib = rep_summary_get(rep, "peak_memory_gib");
		t.feasible = plan_completed(rep) && t.duration_s <= p->deadline_s &&
			     !(t.peak_mem_gib * 1073741824.0 > p->hbm_bytes);
		if (!plan_completed(rep))
			why = REJ_INCOMPLETE;
		else if (t.duration_s > p->deadline_s)
			why = REJ_LATE;
		else if (!t.feasible)
			why = REJ_MEMORY;
		if (!t.feasible)
			days = fmin(days, t.duration_s / 86400);
		if (t.feasible && (!best.feasible || by_objective(&t, &best) < 0)) {
			char *json = NULL;
			size_t len = 0;
			FILE *m = open_memstream(&json, &len);

			if (m == NULL) {
				rep_free(rep);
				return err_set(e, ERR_RUN, "out of memory");
			}
			rep_print_json(rep, m);
			fclose(m);
			free(best.json);
			best = t;
			best.json = json;
		}
		rep_free(rep);
	}
	if (!best.feasible)
		plan_reject(p, c, why, days);
	*c = best;
	return 0;
}

/* --- the search ----------------------------------------------------------- */

/* The unfinished candidate of least bound (plan_by_bound's order), or -1. */
static long next_cand(const struct cands *cs)
{
	long best = -1;

	for (size_t i = 0; i < cs->n; i++)
		if (cs->v[i].level != LB_DONE &&
		    (best < 0 || plan_by_bound(&cs->v[i], &cs->v[best]) < 0))
			best = (long)i;
	return best;
}

/* Branch and bound over the candidates.  On success *done holds the
 * feasible ones evaluated in full, best first, for the caller to print and
 * free (plan_cands_free); p->n_layouts and p->n_may_meet count the
 * candidates that fit in memory and those whose analytic bound may meet the
 * deadline. */
int plan_search(struct plan *p, struct cands *done, struct err *e)
{
	struct cands cs = { 0 };
	struct warm w = { p, &cs, NULL, { 0 } };
	size_t n_bounded = 0;
	long i;
	int rc = -1;

	*done = (struct cands){ 0 };
	free(p->why);
	if ((p->why = calloc(p->n_gpu_list, sizeof *p->why)) == NULL)
		goto oom;
	for (size_t k = 0; k < p->n_gpu_list; k++)
		p->why[k].best_days = INFINITY;
	if (enumerate(p, &cs) < 0)
		goto oom;
	p->n_layouts = cs.n;
	/* Analytic bounds; keep the candidates that may meet the deadline. */
	for (size_t k = 0; k < cs.n; k++) {
		int r = plan_bound_analytic(p, &cs.v[k], e);

		if (r < 0)
			goto out;
		if (r == 0)
			cs.v[n_bounded++] = cs.v[k];
	}
	cs.n = n_bounded;
	p->n_may_meet = cs.n;
	if (p->step_model && p->jobs > 1 && (w.pool = fj_pool_new(p->jobs, e)) == NULL)
		goto out;
	/* Branch and bound, best bound first: a candidate's bound is tightened
	 * (analytic, then the undisrupted run) before it is evaluated in full,
	 * and the search stops once the least bound left cannot beat the N-th
	 * best found. */
	while ((i = next_cand(&cs)) >= 0) {
		struct cand *c = &cs.v[i];
		int r;

		double cutoff = INFINITY;
		if (done->n >= (size_t)p->top) {
			qsort(done->v, done->n, sizeof *done->v, by_objective);
			cutoff = done->v[p->top - 1].obj;
			if (c->bound > cutoff)
				break;
		}
		if (c->level == LB_ANALYTIC) {
			if (w.pool && plan_warm_for(&w, c, cutoff, e) < 0)
				goto out;
			if ((r = plan_bound_undisrupted(p, c, e)) < 0)
				goto out;
			if (r > 0)
				c->level = LB_DONE;
			continue;
		}
		struct cand full = *c;

		c->level = LB_DONE;
		if (evaluate_full(p, &full, e) < 0)
			goto out;
		if (full.feasible && p->on_result)
			p->on_result(p->on_result_ctx, p, &full);
		if (full.feasible && cands_push(done, &full) < 0) {
			free(full.json);
			goto oom;
		}
	}
	fj_pool_free(w.pool);	/* helpers still warming what no longer matters */
	w.pool = NULL;
	if (done->n > 0)
		qsort(done->v, done->n, sizeof *done->v, by_objective);
	rc = 0;
	goto out;
oom:
	err_set(e, ERR_RUN, "out of memory");
out:
	fj_pool_free(w.pool);
	if (rc < 0)
		plan_cands_free(done);
	free(cs.v);
	return rc;
}

/* The candidates and the summaries they hold. */
void plan_cands_free(struct cands *cs)
{
	for (size_t i = 0; i < cs->n; i++)
		free(cs->v[i].json);
	free(cs->v);
	*cs = (struct cands){ 0 };
}
