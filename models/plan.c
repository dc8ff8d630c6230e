/*
 * plan.c -- see plan.h.  The command `trainsim plan` and its search.
 *
 * Options:
 *   --deadline-days D      required: the run must complete within D days
 *   --minimize cost|carbon|time   objective (default cost); carbon is
 *                          operational plus embodied
 *   --gpus N,N,...         cluster sizes to try (default: the scenario's
 *                          size x 1/4, 1/2, 3/4, 1, 3/2, 2, 3, 4 in whole nodes)
 *   --top N                configurations to list (default 10)
 *   --spot-fractions F,... also search the pricing mix: the share of nodes
 *                          in a spot pool (pools.sp, the rest in pools.od;
 *                          for a scenario without pools of its own)
 *   --tsv FILE             every configuration evaluated, as a table that
 *                          plots/plot-sweep --kind pareto draws
 *   --jobs N               step-model simulations side by side (default:
 *                          the online CPUs); the answer does not depend on it
 *   --json                 print the best one's summary as --json would
 *   --daly                 print Daly's interval for the scenario and exit
 *   -s KEY=VALUE           applied to every candidate (and printed with it)
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg.h"
#include "sim/cmd.h"
#include "sim/forkjobs.h"
#include "sim/report.h"
#include "models/compute.h"
#include "models/pace.h"
#include "models/plan.h"
#include "models/run.h"
#include "topologies/topo.h"

/* --- bounds ------------------------------------------------------------- */

double plan_mem_bound_bytes(const struct tfm *m, int tp, int pp, int dp,
			    int micro_batch, bool recompute, int zero_stage)
{
	/* Model states, mixed-precision Adam (Rajbhandari et al. 2020, ZeRO,
	 * sec. 3.1): 2 bytes fp16 weights + 2 fp16 gradients + 12 fp32 master
	 * weights, momentum and variance per parameter, split tp x pp ways;
	 * ZeRO stage 1 shards the 12 over dp, stage 2 also the gradients,
	 * stage 3 also the weights.  Embeddings on the first and last stages
	 * are left out, which only lowers the bound. */
	double psi = tfm_params(m) / ((double)tp * pp);
	double w = 2, g = 2, o = 12;
	double s = m->seq_len, h = m->hidden, a = m->heads, L = m->layers;
	double b = micro_batch, layer_full, act;

	if (zero_stage >= 1)
		o /= dp;
	if (zero_stage >= 2)
		g /= dp;
	if (zero_stage >= 3)
		w /= dp;
	/* Activations per transformer layer and microbatch, 16-bit, with tensor
	 * and sequence parallelism (Korthikanti et al. 2022, "Reducing
	 * Activation Recomputation", Table 2): s b h (34/t + 5 a s / (h t)).
	 * Sequence parallelism only lowers memory, so assuming it keeps this a
	 * lower bound whether or not the step model uses it.  With full
	 * recomputation a layer keeps only its input, 2 s b h / t, and one
	 * layer's full activations exist while it is recomputed. */
	layer_full = s * b * h * (34.0 / tp + 5.0 * a * s / (h * tp));
	/* 1F1B: the first stage holds pp microbatches of L/pp layers = L layers. */
	if (recompute)
		act = L * 2.0 * s * b * h / tp + layer_full;
	else
		act = L * layer_full;
	return psi * (w + g + o) + act;
}

double plan_daly_interval_s(double write_s, double mtbf_s)
{
	double r;

	if (write_s >= 2 * mtbf_s)
		return mtbf_s;
	r = write_s / (2 * mtbf_s);
	return sqrt(2 * write_s * mtbf_s) * (1 + sqrt(r) / 3 + r / 9) - write_s;
}

/* --- candidates ----------------------------------------------------------- */

enum goal { GOAL_COST, GOAL_CARBON, GOAL_TIME };
static const char *const goal_names[] = { "cost", "carbon", "time", NULL };

#define PLAN_OV_MAX 12		/* overrides that define a candidate */
#define PLAN_OV_LEN 64
#define PLAN_JOBS_MAX 16	/* helpers warming paces at once */

struct cand {
	int gpus, tp, pp, dp, mb, zero, recompute;
	int spot_nodes;			/* with --spot-fractions */
	double ckpt_s;			/* 0 until a full evaluation picks one */
	double mem_bound_bytes;
	double bound;			/* lower bound on the objective */
	int level;			/* of the bound: LB_* */
	bool warmed;			/* its pace asked of a helper (warm_for) */
	double obj, duration_s, cost_usd, carbon_kg, peak_mem_gib;
	double op_carbon_kg, embodied_kg;
	int feasible;
	char ov[PLAN_OV_MAX][PLAN_OV_LEN];
	int n_ov;
	char *json;			/* summary of the chosen evaluation */
};

struct plan {
	const char *file;
	const char **base_ov;		/* the user's -s */
	size_t n_base;
	struct cfg_schema *schema;
	enum goal goal;
	double deadline_s;
	int top;
	bool has_zero;
	/* From the scenario as given. */
	struct tfm m;
	int gpus, gpus_per_node, global_batch;
	double hbm_bytes, ckpt_s;
	char gpu_name[64];
	double peak_tflops;		/* of the datatype the step model uses */
	double eff_max;			/* top of the kernel efficiency curves */
	int virtual_stages;		/* 1 unless the interleaved schedule */
	struct gpu_spec gpu;		/* for the kernel model (compute.h) */
	bool sp, flash;			/* parallel.sequence_parallel, .flash_attention */
	bool step_model;		/* training.iteration_model = step */
	double formula_eff;		/* training.efficiency (the formula model's) */
	double nic_Bps;			/* scale-out bandwidth per GPU, one way */
	int domain_gpus;		/* GPUs of a scale-up (NVLink) domain */
	bool placed;			/* network.placement given: ranks anywhere */
	bool dist_opt;			/* parallel.distributed_optimizer */
	int jobs;			/* helpers warming paces (--jobs) */
	long runs;			/* evaluations made, for the report */
	long formula_runs;		/* of which analytic bounds (formula pace) */
	int *gpu_list;
	size_t n_gpu_list;
	double *spot_fractions;		/* NULL: pricing as the scenario has it */
	size_t n_spot;
	FILE *tsv;			/* --tsv: every configuration evaluated */
	struct pace_cache *paces;	/* step results shared by candidates */
	bool tsv_started;
};

static const char plan_usage[] =
	"usage: trainsim plan [-s KEY=VALUE]... SCENARIO.cfg --deadline-days D\n"
	"                     [--minimize cost|carbon|time] [--gpus N,N,...] [--top N]\n"
	"                     [--spot-fractions F,F,...] [--tsv FILE] [--json] [--daly]\n"
	"                     [--jobs N]\n"
	"Search cluster size, TP, PP, microbatch, recomputation, ZeRO stage and\n"
	"checkpoint interval for the best run that completes by the deadline.\n";

/* Does the user's override apply to candidate c?  With --spot-fractions a
 * candidate may lack the pool "sp" (no node on spot) or "od" (all on spot):
 * the user's settings of that pool (its price, its preemptions) are left
 * out of it, here and in the command printed (and out of the scenario as
 * given, c NULL, which has pools of neither name). */
static bool ov_applies(const struct plan *p, const struct cand *c, const char *ov)
{
	if (p->n_spot == 0)
		return true;
	if (strncmp(ov, "pools.sp.", 9) == 0)
		return c && c->spot_nodes > 0;
	if (strncmp(ov, "pools.od.", 9) == 0)
		return c && c->spot_nodes < c->gpus / p->gpus_per_node;
	return true;
}

/* Load the scenario with the user's overrides (those that apply to c, or
 * all for NULL) and extra ones. */
static struct scenario *plan_load(const struct plan *p, const struct cand *c,
				  const char *const *extra, size_t n_extra, struct err *e)
{
	const char *ov[64];
	size_t n = 0;

	if (p->n_base + n_extra > sizeof ov / sizeof *ov) {
		err_set(e, ERR_USAGE, "plan: too many -s overrides");
		return NULL;
	}
	for (size_t i = 0; i < p->n_base; i++)
		if (ov_applies(p, c, p->base_ov[i]))
			ov[n++] = p->base_ov[i];
	for (size_t i = 0; i < n_extra; i++)
		ov[n++] = extra[i];
	return sc_load(p->schema, p->file, ov, n, e);
}

static double figure(const struct report *rep, const char *name)
{
	double v = rep_summary_get(rep, name);

	return isnan(v) ? 0 : v;
}

/* Did the run finish its tokens?  (A report without the figure: yes.) */
static bool completed(const struct report *rep)
{
	double v = rep_summary_get(rep, "completed");

	return isnan(v) || v > 0;
}

static double objective(const struct plan *p, const struct report *rep)
{
	switch (p->goal) {
	case GOAL_CARBON: return figure(rep, "carbon_kg") + figure(rep, "embodied_carbon_kg");
	case GOAL_TIME: return figure(rep, "duration_s");
	default: return figure(rep, "cost_usd");
	}
}

/* Run the model on the scenario with the candidate's overrides (and extra
 * ones).  Returns 1 when the scenario rejects the candidate (a layout or
 * memory error: not a failure of the search), 0 when run, -1 on failure.
 * The report is returned for the caller to free. */
static int evaluate(struct plan *p, const struct cand *c, const char *const *extra,
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
		if (ce.status == ERR_USAGE)
			return 1;
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
		if (ce.status == ERR_USAGE)
			return 1;
		*e = ce;
		return -1;
	}
	*out = rep;
	return 0;
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
	if (p->has_zero)
		snprintf(c->ov[c->n_ov++], PLAN_OV_LEN, "parallel.zero_stage=%d", c->zero);
	if (c->ckpt_s > 0)
		snprintf(c->ov[c->n_ov++], PLAN_OV_LEN,
			 "training.checkpoint.interval_s=%.0f", c->ckpt_s);
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

/* --- the search ----------------------------------------------------------- */

struct cands {
	struct cand *v;
	size_t n, cap;
};

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
static int enumerate(const struct plan *p, struct cands *cs)
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
				if (p->m.layers % pp || gpus % (tp * pp))
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
								&p->m, tp, pp, dp, mbs[k], rec, z);
							if (c.mem_bound_bytes > p->hbm_bytes)
								continue;
							if (push_pricing(p, cs, &c) < 0)
								return -1;
						}
				}
			}
		}
	}
	return 0;
}

/*
 * Lower bounds on a candidate's objective, two levels, each a true lower
 * bound on what evaluate_full() finds (so branch and bound returns the same
 * ranking as evaluating everything):
 *
 * LB_UNDISRUPTED: the same run with failures and checkpoints off.  They only
 * add time (restarts, lost work, checkpoint writes) and with it held-GPU
 * time, energy and storage, never less.  Costs one step-model simulation of
 * the layout, which the pace cache then hands to the full runs for free.
 *
 * LB_ANALYTIC: needs no step simulation.  The undisrupted run again, but
 * with the iteration time of the formula model at an efficiency no layout
 * reaches, and the GPUs drawing idle power:
 *  - time: an iteration does tfm_flops() (with the extra forward pass of
 *    full recomputation, as the step model does) on gpus x the tensor peak
 *    of the datatype in use; no kernel runs above the top of the catalog's
 *    GEMM curve or the flash-attention efficiency (compute.h), and every
 *    GEMM, attention and logit FLOP is in the count, so the busiest GPU needs
 *    at least FLOPs / (gpus x peak x eff_max).  A 1F1B pipeline of pp stages
 *    and m microbatches (v model chunks per stage) idles a fraction
 *    (pp-1)/(v m) of that on top at the least (Narayanan et al. 2021,
 *    sec. 2.2: bubble over ideal = (p-1)/(v m)); communication, launches
 *    and memory-bound kernels only add.  So the iteration takes at least
 *    FLOPs (1 + (pp-1)/(v m)) / (gpus x peak x eff_max), which is the formula
 *    model's at efficiency eff_max / (1 + (pp-1)/(v m)).
 *  - rates: every accounted rate (acct.c) is held nodes x price (cloud
 *    billing, capex, opex, embodied carbon: the same cluster and pools in
 *    both runs, billing never charges a shorter run more), storage (same),
 *    or facility power times a price or grid intensity, which grows with the
 *    GPU power level (power.c: idle + level x (TDP - idle), level in
 *    [0, 1]); power.gpu_busy_fraction=0 holds level at 0, the idle floor.
 *    Both runs start at the same instant, so a time-varying intensity or PUE
 *    is the same function of time in both; the bound run integrates smaller
 *    rates over a shorter span [0, D_lb] of it.
 * The run is the run model's own in formula mode, a few events long, so
 * the bound costs a scenario load (~1 ms).  A duration bound over the
 * deadline drops the candidate at either level.
 */
enum { LB_ANALYTIC, LB_UNDISRUPTED, LB_DONE };

/* The bound runs are undisrupted: no failures, no checkpoints, and no
 * preemptions of a spot pool the planner made (pools.sp) -- the spot price
 * stays.  (Preemptions are not monotone: with an elastic job on a smaller
 * data-parallel degree, or a capacity trace met at other times, a
 * preempted run can cost less than the undisrupted one; with spot pools
 * the bounds are a guide, not a proof.  See doc/whatif.txt.) */
static const char *const calm[] = {
	"failures.enabled=false", "training.checkpoint.enabled=false",
	"pools.sp.preemption_per_node_hour=0", "pools.sp.interruption_band=none",
	"pools.sp.capacity_trace=",
};

static int bound_run(struct plan *p, struct cand *c, const char *const *extra,
		     size_t n_extra, struct err *e)
{
	const char *ov[8 + sizeof calm / sizeof *calm];
	size_t n = 0, n_calm = c->spot_nodes > 0 ? sizeof calm / sizeof *calm : 2;
	struct report *rep;
	int rc;

	for (size_t i = 0; i < n_calm; i++)
		ov[n++] = calm[i];
	for (size_t i = 0; i < n_extra && n < sizeof ov / sizeof *ov; i++)
		ov[n++] = extra[i];
	rc = evaluate(p, c, ov, n, &rep, e);
	if (rc != 0)
		return rc;
	c->bound = objective(p, rep);
	c->duration_s = figure(rep, "duration_s");
	rc = completed(rep) && c->duration_s <= p->deadline_s ? 0 : 1;
	rep_free(rep);
	return rc;
}

/* The kernel bound on one iteration (see above): the busiest stage's
 * microbatches, each through its L/pp layers forward and backward (and the
 * forward again with full recomputation) as compute.h prices the kernels,
 * plus the pipeline's fill and drain, (pp-1)/v of one microbatch's stage
 * time.  The step model runs these same kernels one after another on each
 * GPU, with communication, embeddings, logits and optimizer on top. */
static double iter_lb_s(const struct plan *p, const struct cand *c, int m)
{
	struct cmp_shape sh = {
		.b = c->mb, .s = p->m.seq_len, .h = p->m.hidden, .a = p->m.heads,
		.V = p->m.vocab, .tp = c->tp, .sp = p->sp, .flash = p->flash,
		.peak_flops = p->peak_tflops * 1e12,
	};
	struct cmp_cost f, b;
	double layer_s;

	cmp_layer_fwd(&p->gpu, &sh, &f);
	cmp_layer_bwd(&p->gpu, &sh, &b);
	layer_s = f.time_s + b.time_s + (c->recompute ? f.time_s : 0);
	return (m + (double)(c->pp - 1) / p->virtual_stages) *
	       ((double)p->m.layers / c->pp) * layer_s;
}

/* The data-parallel bound on one iteration: what the scale-out links of a
 * GPU must carry in one direction, at their full rate.  The step model's
 * reduce-scatters and all-gathers are rings (coll.c) whose channels enter
 * each scale-up domain once per run of consecutive members, every ring
 * edge carrying (n-1)/n of the channel's share: a domain takes in at least
 * (n-1)/n S per collective of a group of n on S bytes, whatever the group's
 * q members inside it do over NVLink.  A domain of D GPUs holds at least
 * D/q groups of its stage and has D GPUs' worth of scale-out links, so each
 * GPU's link carries at least (n-1)/(n q) S per collective.  With TP
 * innermost a domain holds at most ceil(D/tp) GPUs of one group (any
 * min(n, D) under a placement of the user's).  All-reduce may run as a
 * tree: it counts as bringing in (n-q)/n S, the data of the members
 * outside.  Per iteration, in the direction of the rings: ZeRO-3 gathers
 * the stage's weights before each forward and each backward of every
 * microbatch and reduce-scatters the gradients after each backward (3m
 * collectives), ZeRO-2 reduce-scatters every microbatch and gathers once
 * (m + 1), ZeRO-1 and the distributed optimizer one of each (2).  S counts
 * only the transformer layers' weight matrices, 12 h^2 per layer in fp16,
 * of the stage with the fewest layers. */
static double comm_lb_s(const struct plan *p, const struct cand *c, int m)
{
	int n = c->dp, D = p->domain_gpus;
	int q = p->placed ? D : (D + c->tp - 1) / c->tp;
	double h = p->m.hidden;
	double S = 2.0 * 12.0 * h * h * (p->m.layers / c->pp) / c->tp;
	double per_gpu;

	if (q >= n || q < 1 || !(p->nic_Bps > 0))
		return 0;	/* the group may sit in one domain */
	if (c->zero == 0 && !p->dist_opt)
		per_gpu = S * (double)(n - q) / ((double)n * q);
	else
		per_gpu = (c->zero == 3 ? 3.0 * m : c->zero == 2 ? m + 1.0 : 2.0) *
			  S * (double)(n - 1) / ((double)n * q);
	return per_gpu / p->nic_Bps;
}

/* Returns 0 with c->bound set, 1 when the candidate cannot meet the
 * deadline or the scenario rejects it, -1 on failure. */
static int bound_analytic(struct plan *p, struct cand *c, struct err *e)
{
	char eff[PLAN_OV_LEN], peak[PLAN_OV_LEN];
	const char *ov[] = {
		"training.iteration_model=formula", "power.gpu_busy_fraction=0",
		eff, peak
	};
	int m = p->global_batch / (c->dp * c->mb);
	double bubble = 1 + (double)(c->pp - 1) / ((double)p->virtual_stages * m);
	double iter_s = fmax(iter_lb_s(p, c, m), comm_lb_s(p, c, m));
	double flops = tfm_flops(&p->m, p->global_batch, c->recompute);
	double peak_flops = p->peak_tflops * 1e12;
	double bound_eff = fmin(p->eff_max / bubble, flops / (c->gpus * peak_flops * iter_s));

	/* The tighter of the two bounds on the iteration: the larger time,
	 * the smaller efficiency.  The formula model runs at its own
	 * efficiency: that is its bound. */
	if (!p->step_model)
		bound_eff = p->formula_eff;
	snprintf(eff, sizeof eff, "training.efficiency=%.17g", fmax(1e-3, bound_eff));
	snprintf(peak, sizeof peak, "gpus.%s.peak_bf16_tflops=%.17g", p->gpu_name,
		 p->peak_tflops * (1 + 1e-12));	/* printing's rounding: stay below */
	c->level = LB_ANALYTIC;
	p->formula_runs++;
	return bound_run(p, c, ov, sizeof ov / sizeof *ov, e);
}

static int bound_undisrupted(struct plan *p, struct cand *c, struct err *e)
{
	c->level = LB_UNDISRUPTED;
	return bound_run(p, c, NULL, 0, e);
}

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

static int by_bound(const void *a, const void *b)
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

/* Mean time between failures of the candidate's job, and its checkpoint
 * write time, from the settings the run model reads (run.h's model). */
static int daly_for(struct plan *p, const struct cand *c, double *tau_s,
		    double *write_s, double *mtbf_s, struct err *e)
{
	struct scenario *sc;
	const char *ov[PLAN_OV_MAX];
	double rate;

	for (int i = 0; i < c->n_ov; i++)
		ov[i] = c->ov[i];
	if ((sc = plan_load(p, c, ov, (size_t)c->n_ov, e)) == NULL)
		return -1;
	*write_s = tfm_params(&p->m) * sc_float(sc, "training.checkpoint.bytes_per_param") /
		   (sc_float(sc, "training.checkpoint.write_bw_gbps") * 1e9);
	rate = sc_bool(sc, "failures.enabled") ?
	       sc_float(sc, "failures.per_node_per_1000_days") / 1000.0 / 86400.0 *
	       (c->gpus / p->gpus_per_node) : 0;
	sc_free(sc);
	*mtbf_s = rate > 0 ? 1.0 / rate : INFINITY;
	*tau_s = isinf(*mtbf_s) ? p->ckpt_s : plan_daly_interval_s(*write_s, *mtbf_s);
	return 0;
}

/* Full evaluation at checkpoint intervals around Daly's optimum (and the
 * scenario's own); keeps the best feasible one in c. */
static int evaluate_full(struct plan *p, struct cand *c, struct err *e)
{
	double tau, write_s, mtbf_s, tries[4];
	struct cand best = *c;

	best.feasible = 0;
	best.obj = INFINITY;
	if (daly_for(p, c, &tau, &write_s, &mtbf_s, e) < 0)
		return -1;
	tries[0] = tau;
	tries[1] = tau / 2;
	tries[2] = tau * 2;
	tries[3] = p->ckpt_s;
	for (int i = 0; i < 4; i++) {
		struct cand t = *c;
		struct report *rep;
		int rc;

		t.ckpt_s = fmax(1, round(tries[i]));
		cand_set_overrides(&t, p);
		rc = evaluate(p, &t, NULL, 0, &rep, e);
		if (rc < 0)
			return -1;
		if (rc > 0)
			continue;
		t.obj = objective(p, rep);
		t.duration_s = figure(rep, "duration_s");
		t.cost_usd = figure(rep, "cost_usd");
		t.op_carbon_kg = figure(rep, "carbon_kg");
		t.embodied_kg = figure(rep, "embodied_carbon_kg");
		t.carbon_kg = t.op_carbon_kg + t.embodied_kg;
		t.peak_mem_gib = rep_summary_get(rep, "peak_memory_gib");
		t.feasible = completed(rep) && t.duration_s <= p->deadline_s &&
			     !(t.peak_mem_gib * 1073741824.0 > p->hbm_bytes);
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
	*c = best;
	return 0;
}

static void print_cand_line(const struct plan *p, int rank, const struct cand *c)
{
	printf("%4d %14.0f %9.2f %11.1f %6d %3d %3d %4d %3d %4s", rank, c->cost_usd,
	       c->duration_s / 86400.0, c->carbon_kg / 1000.0, c->gpus, c->tp, c->pp,
	       c->dp, c->mb, c->recompute ? "yes" : "no");
	if (p->has_zero)
		printf(" %4d", c->zero);
	if (p->n_spot)
		printf(" %4d", c->spot_nodes);
	printf(" %8.0f %7.1f\n", c->ckpt_s, c->mem_bound_bytes / 1073741824.0);
}

static void print_command(const struct plan *p, const struct cand *c)
{
	printf("     trainsim");
	for (size_t i = 0; i < p->n_base; i++)
		if (ov_applies(p, c, p->base_ov[i]))
			printf(" -s %s", p->base_ov[i]);
	for (int i = 0; i < c->n_ov; i++)
		printf(" -s %s", c->ov[i]);
	printf(" %s\n", p->file);
}

/* --tsv: the configurations evaluated, as a table plots/plot-sweep reads
 * (the shape of trainsim collect's: run, overrides, figures). */
static void tsv_row(struct plan *p, const struct cand *c)
{
	if (!p->tsv_started) {
		fputs("run\tcluster.gpus\tparallel.tp\tparallel.pp\tparallel.micro_batch"
		      "\tparallel.recompute", p->tsv);
		if (p->has_zero)
			fputs("\tparallel.zero_stage", p->tsv);
		if (p->n_spot)
			fputs("\tpools.sp.nodes", p->tsv);
		fputs("\ttraining.checkpoint.interval_s\tcost_usd\tcarbon_kg"
		      "\tembodied_carbon_kg\tduration_s\tcompleted\n", p->tsv);
		p->tsv_started = true;
	}
	fprintf(p->tsv, "gpus%d,tp%d,pp%d,mb%d%s", c->gpus, c->tp, c->pp, c->mb,
		c->recompute ? ",rec" : "");
	if (p->has_zero)
		fprintf(p->tsv, ",z%d", c->zero);
	if (p->n_spot)
		fprintf(p->tsv, ",spot%d", c->spot_nodes);
	fprintf(p->tsv, "\t%d\t%d\t%d\t%d\t%s", c->gpus, c->tp, c->pp, c->mb,
		c->recompute ? "full" : "none");
	if (p->has_zero)
		fprintf(p->tsv, "\t%d", c->zero);
	if (p->n_spot)
		fprintf(p->tsv, "\t%d", c->spot_nodes);
	fprintf(p->tsv, "\t%.0f\t%.17g\t%.17g\t%.17g\t%.17g\t1\n", c->ckpt_s, c->cost_usd,
		c->op_carbon_kg, c->embodied_kg, c->duration_s);
}

/* --- warming the pace cache on idle cores ----------------------------------
 * Tightening a bound (bound_undisrupted) costs one step-model simulation of
 * the layout, which the pace cache keeps for every later run of it.  While
 * the search goes on, forked helpers run the simulations of the candidates
 * it will tighten next (least bound first, at most the cut-off) and send
 * back the paces they computed; before tightening a candidate the search
 * waits for its layout's pace if a helper has it on the way, and keeps the
 * helpers busy meanwhile.  The search itself runs exactly as it would
 * alone, finding those paces in the cache: the answer and the table do not
 * depend on the number of helpers.  A helper that fails sends nothing; the
 * search then meets the same failure itself and reports it. */
struct warm {
	struct plan *p;
	struct cands *cs;
	struct fj_pool *pool;
	int inflight[PLAN_JOBS_MAX];	/* candidates the helpers simulate */
};

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

	if (bound_undisrupted(w->p, &w->cs->v[tag], &e) >= 0)
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

	if (fj_wait(w->pool, &tag, &data, &len, e) < 0)
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
			    (next < 0 || by_bound(x, &w->cs->v[next]) < 0))
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
static int warm_for(struct warm *w, struct cand *c, double cutoff, struct err *e)
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

/* The unfinished candidate of least bound (by_bound's order), or -1. */
static long next_cand(const struct cands *cs)
{
	long best = -1;

	for (size_t i = 0; i < cs->n; i++)
		if (cs->v[i].level != LB_DONE &&
		    (best < 0 || by_bound(&cs->v[i], &cs->v[best]) < 0))
			best = (long)i;
	return best;
}

static int search(struct plan *p, bool json, struct err *e)
{
	struct cands cs = { 0 }, done = { 0 };
	struct warm w = { p, &cs, NULL, { 0 } };
	size_t n_bounded = 0, n_layouts;
	long i;
	int rc = -1;

	if (enumerate(p, &cs) < 0)
		goto oom;
	n_layouts = cs.n;
	/* Analytic bounds; keep the candidates that may meet the deadline. */
	for (size_t k = 0; k < cs.n; k++) {
		int r = bound_analytic(p, &cs.v[k], e);

		if (r < 0)
			goto out;
		if (r == 0)
			cs.v[n_bounded++] = cs.v[k];
	}
	cs.n = n_bounded;
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
		if (done.n >= (size_t)p->top) {
			qsort(done.v, done.n, sizeof *done.v, by_objective);
			cutoff = done.v[p->top - 1].obj;
			if (c->bound > cutoff)
				break;
		}
		if (c->level == LB_ANALYTIC) {
			if (w.pool && warm_for(&w, c, cutoff, e) < 0)
				goto out;
			if ((r = bound_undisrupted(p, c, e)) < 0)
				goto out;
			if (r > 0)
				c->level = LB_DONE;
			continue;
		}
		struct cand full = *c;

		c->level = LB_DONE;
		if (evaluate_full(p, &full, e) < 0)
			goto out;
		if (full.feasible && p->tsv)
			tsv_row(p, &full);
		if (full.feasible && cands_push(&done, &full) < 0) {
			free(full.json);
			goto oom;
		}
	}
	fj_pool_free(w.pool);	/* helpers still warming what no longer matters */
	w.pool = NULL;
	if (done.n > 0)
		qsort(done.v, done.n, sizeof *done.v, by_objective);
	printf("# plan %s: deadline %.2f days, minimize %s; %zu layouts fit in memory, "
	       "%zu may meet the deadline, %ld runs simulated (%ld of them analytic bounds)\n",
	       p->file, p->deadline_s / 86400.0, goal_names[p->goal], n_layouts, cs.n,
	       p->runs, p->formula_runs);
	if (done.n == 0) {
		printf("# no configuration completes within the deadline\n");
		rc = 0;
		goto out;
	}
	printf("rank       cost_usd      days    carbon_t   gpus  tp  pp   dp  mb  rec%s%s"
	       "   ckpt_s mem_lb_GiB\n", p->has_zero ? " zero" : "",
	       p->n_spot ? " spot" : "");
	for (size_t i = 0; i < done.n && i < (size_t)p->top; i++) {
		print_cand_line(p, (int)i + 1, &done.v[i]);
		print_command(p, &done.v[i]);
	}
	if (json)
		fputs(done.v[0].json, stdout);
	rc = 0;
	goto out;
oom:
	err_set(e, ERR_RUN, "out of memory");
out:
	fj_pool_free(w.pool);
	for (size_t i = 0; i < done.n; i++)
		free(done.v[i].json);
	free(cs.v);
	free(done.v);
	return rc;
}

/* --- the command ----------------------------------------------------------- */

static int parse_gpus(struct plan *p, const char *text, struct err *e)
{
	size_t n = 1;
	const char *s = text;

	for (const char *q = text; *q; q++)
		n += *q == ',';
	if ((p->gpu_list = calloc(n, sizeof *p->gpu_list)) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (p->n_gpu_list = 0; p->n_gpu_list < n; p->n_gpu_list++) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 1 || v > 10000000 || (*end && *end != ','))
			return err_set(e, ERR_USAGE, "plan: --gpus %s: expected "
				       "positive integers separated by commas", text);
		p->gpu_list[p->n_gpu_list] = (int)v;
		s = end + 1;
	}
	return 0;
}

/* --spot-fractions 0,0.5,1: shares of the nodes in a spot pool. */
static int parse_fractions(struct plan *p, const char *text, struct err *e)
{
	size_t n = 1;
	const char *s = text;

	for (const char *q = text; *q; q++)
		n += *q == ',';
	free(p->spot_fractions);
	if ((p->spot_fractions = calloc(n, sizeof *p->spot_fractions)) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (p->n_spot = 0; p->n_spot < n; p->n_spot++) {
		char *end;
		double v = strtod(s, &end);

		if (end == s || !(v >= 0 && v <= 1) || (*end && *end != ','))
			return err_set(e, ERR_USAGE, "plan: --spot-fractions %s: expected "
				       "numbers from 0 to 1 separated by commas", text);
		p->spot_fractions[p->n_spot] = v;
		s = end + 1;
	}
	return 0;
}

/* Default sizes: the scenario's, scaled, in whole nodes. */
static int default_gpus(struct plan *p, struct err *e)
{
	static const double scale[] = { 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4 };
	int nodes = p->gpus / p->gpus_per_node;

	if ((p->gpu_list = calloc(8, sizeof *p->gpu_list)) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (size_t i = 0; i < 8; i++) {
		int g = (int)fmax(1, round(nodes * scale[i])) * p->gpus_per_node;

		if (p->n_gpu_list == 0 || p->gpu_list[p->n_gpu_list - 1] != g)
			p->gpu_list[p->n_gpu_list++] = g;
	}
	return 0;
}

/* The network figures of the communication bound (comm_lb_s). */
static int plan_net_setup(struct plan *p, const struct scenario *sc, struct err *e)
{
	struct net *net = net_build(sc, e);

	if (!net)
		return -1;
	p->nic_Bps = net->p.scale_out.bw_Bps * net->p.scale_out.efficiency *
		     net->p.nics_per_node / net->p.gpus_per_node;
	p->domain_gpus = net->p.domain_gpus;
	p->placed = sc_list_len(sc, "network.placement") > 0;
	p->dist_opt = sc_bool(sc, "parallel.distributed_optimizer");
	net_free(net);
	return 0;
}

/* What the search needs from the scenario as given. */
static int plan_setup(struct plan *p, struct err *e)
{
	static const char *const zero[] = { "parallel.zero_stage=0" };
	struct err pe = { 0 };
	struct scenario *sc = plan_load(p, NULL, zero, 1, &pe);

	struct gpu_spec g;
	const char *gpu;

	/* Does this trainsim have ZeRO?  Ask the schema. */
	p->has_zero = sc != NULL;
	sc_free(sc);
	if ((sc = plan_load(p, NULL, NULL, 0, e)) == NULL)
		return -1;
	if (run_check(sc, p->paces, NULL, e) < 0) {
		sc_free(sc);
		return -1;
	}
	tfm_from_scenario(sc, &p->m);
	p->gpus = (int)sc_int(sc, "cluster.gpus");
	p->gpus_per_node = (int)sc_int(sc, "cluster.gpus_per_node");
	p->global_batch = (int)sc_int(sc, "parallel.global_batch");
	gpu = sc_str(sc, "cluster.gpu");
	p->hbm_bytes = sc_float(sc, "gpus.%s.hbm_gb", gpu) * 1e9;
	if (strlen(gpu) >= sizeof p->gpu_name) {
		sc_free(sc);
		return err_set(e, ERR_USAGE, "plan: GPU name %s too long", gpu);
	}
	strcpy(p->gpu_name, gpu);
	/* For the analytic bound (see bound_analytic): the peak and the
	 * kernels' best efficiency the step model can reach. */
	gpu_from_scenario(sc, gpu, &g);
	p->peak_tflops = (strcmp(sc_str(sc, "parallel.dtype"), "fp8") == 0 ?
			  g.peak_fp8_flops : g.peak_bf16_flops) / 1e12;
	p->eff_max = g.flash_eff;
	for (int k = 0; k < g.gemm_points; k++)
		p->eff_max = fmax(p->eff_max, g.gemm_eff[k]);
	p->eff_max = fmin(1, p->eff_max);
	p->gpu = g;
	p->gpu.name = p->gpu_name;	/* g's strings die with sc */
	p->gpu.nvlink = NULL;
	p->sp = sc_bool(sc, "parallel.sequence_parallel");
	p->flash = sc_bool(sc, "parallel.flash_attention");
	p->virtual_stages = strcmp(sc_str(sc, "parallel.schedule"), "interleaved") == 0 ?
			    (int)sc_int(sc, "parallel.virtual_stages") : 1;
	p->ckpt_s = sc_float(sc, "training.checkpoint.interval_s");
	p->step_model = strcmp(sc_str(sc, "training.iteration_model"), "step") == 0;
	p->formula_eff = sc_float(sc, "training.efficiency");
	int rc = plan_net_setup(p, sc, e);
	sc_free(sc);
	return rc;
}

static int print_daly(struct plan *p, struct err *e)
{
	struct cand c = { .gpus = p->gpus };
	double tau, write_s, mtbf_s;

	if (daly_for(p, &c, &tau, &write_s, &mtbf_s, e) < 0)
		return -1;
	printf("daly_interval_s %.17g\ncheckpoint_write_s %.17g\nmtbf_s %.17g\n",
	       tau, write_s, mtbf_s);
	return 0;
}

int cmd_plan(int argc, char **argv, struct err *e)
{
	enum { OPT_DEADLINE = 256, OPT_MIN, OPT_GPUS, OPT_TOP, OPT_JSON, OPT_DALY,
	       OPT_SPOT, OPT_TSV, OPT_JOBS };
	static const struct option longs[] = {
		{ "deadline-days", required_argument, NULL, OPT_DEADLINE },
		{ "minimize", required_argument, NULL, OPT_MIN },
		{ "gpus", required_argument, NULL, OPT_GPUS },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "daly", no_argument, NULL, OPT_DALY },
		{ "spot-fractions", required_argument, NULL, OPT_SPOT },
		{ "tsv", required_argument, NULL, OPT_TSV },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct plan p = { .goal = GOAL_COST, .top = 10, .deadline_s = -1 };
	int cpus = fj_cpus();
	bool json = false, daly = false;
	const char *gpus = NULL, *tsv = NULL;
	int ch, rc = -1;
	char *end;

	p.base_ov = calloc((size_t)argc + 1, sizeof *p.base_ov);
	if (p.base_ov == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "s:h", longs, NULL)) != -1) {
		switch (ch) {
		case 's': p.base_ov[p.n_base++] = optarg; break;
		case OPT_DEADLINE:
			p.deadline_s = strtod(optarg, &end) * 86400.0;
			if (end == optarg || *end || !(p.deadline_s > 0) || isinf(p.deadline_s)) {
				err_set(e, ERR_USAGE, "plan: --deadline-days %s: expected "
					"a positive number of days", optarg);
				goto out;
			}
			break;
		case OPT_MIN: {
			int g;
			for (g = 0; goal_names[g] && strcmp(goal_names[g], optarg); g++)
				;
			if (goal_names[g] == NULL) {
				err_set(e, ERR_USAGE, "plan: --minimize %s: expected "
					"cost, carbon or time", optarg);
				goto out;
			}
			p.goal = (enum goal)g;
			break;
		}
		case OPT_GPUS: gpus = optarg; break;
		case OPT_TOP:
			p.top = (int)strtol(optarg, &end, 10);
			if (end == optarg || *end || p.top < 1 || p.top > 1000) {
				err_set(e, ERR_USAGE, "plan: --top %s: expected 1..1000", optarg);
				goto out;
			}
			break;
		case OPT_JSON: json = true; break;
		case OPT_DALY: daly = true; break;
		case OPT_SPOT:
			if (parse_fractions(&p, optarg, e) < 0)
				goto out;
			break;
		case OPT_TSV: tsv = optarg; break;
		case OPT_JOBS:
			p.jobs = (int)strtol(optarg, &end, 10);
			if (end == optarg || *end || p.jobs < 1 || p.jobs > PLAN_JOBS_MAX) {
				err_set(e, ERR_USAGE, "plan: --jobs %s: expected 1..%d", optarg,
					PLAN_JOBS_MAX);
				goto out;
			}
			break;
		case 'h': fputs(plan_usage, stdout); rc = 0; goto out;
		default:
			err_set(e, ERR_USAGE, "plan: bad option %s\n%s", argv[optind - 1],
				plan_usage);
			goto out;
		}
	}
	if (optind != argc - 1 || (!daly && p.deadline_s < 0)) {
		err_set(e, ERR_USAGE, "%s", plan_usage);
		goto out;
	}
	p.file = argv[optind];
	if (p.jobs == 0)
		p.jobs = cpus < PLAN_JOBS_MAX ? cpus : PLAN_JOBS_MAX;
	if ((p.schema = run_schema_new()) == NULL || (p.paces = pace_cache_new()) == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		goto out;
	}
	if (plan_setup(&p, e) < 0)
		goto out;
	if (daly) {
		rc = print_daly(&p, e);
		goto out;
	}
	if ((gpus ? parse_gpus(&p, gpus, e) : default_gpus(&p, e)) < 0)
		goto out;
	if (tsv && (p.tsv = fopen(tsv, "w")) == NULL) {
		err_set(e, ERR_RUN, "plan: --tsv %s: cannot create", tsv);
		goto out;
	}
	rc = search(&p, json, e);
	if (p.tsv && fclose(p.tsv) != 0 && rc == 0)
		rc = err_set(e, ERR_RUN, "plan: --tsv %s: cannot write", tsv);
	p.tsv = NULL;
out:
	if (p.tsv)
		fclose(p.tsv);
	free(p.spot_fractions);
	cfg_schema_free(p.schema);
	pace_cache_free(p.paces);
	free(p.base_ov);
	free(p.gpu_list);
	return rc;
}
