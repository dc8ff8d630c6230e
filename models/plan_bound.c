/*
 * plan_bound.c -- lower bounds on a candidate: the memory per GPU, and the
 * objective and duration of its run, so that the planner drops layouts that
 * cannot fit or meet the deadline and evaluates the rest best bound first.
 * Each bound is argued sound next to its code: a bound above what the full
 * evaluation finds would change the ranking.
 * Part of the planner (see plan.c, plan_int.h).
 */
#include <math.h>
#include <stdio.h>

#include "sim/report.h"
#include "models/compute.h"
#include "models/memory.h"
#include "models/step.h"
#include "models/plan_int.h"
#include "models/zero.h"

/* --- memory --------------------------------------------------------------- */

double plan_mem_bound_bytes(const struct tfm *m, int tp, int pp, int dp,
			    int micro_batch, bool recompute, int zero_stage,
			    bool fp8, int cp)
{
	/* Model states, mixed-precision Adam (Rajbhandari et al. 2020, ZeRO,
	 * sec. 3.1): 2 bytes fp16 weights + 2 fp16 gradients + 12 fp32 master
	 * weights, momentum and variance per parameter, split tp x pp ways;
	 * ZeRO stage 1 shards the 12 over dp, stage 2 also the gradients,
	 * stage 3 also the weights.  Embeddings on the first and last stages
	 * are left out, which only lowers the bound.  Routed experts split
	 * over at most dp EP ranks: counted / dp, whatever the EP degree. */
	double psi = tfm_params(m) / ((double)tp * pp);
	if (m->moe.experts > 0) {
		double x = tfm_layer_expert_params(m, true) *
			   (m->layers - m->moe.dense_layers + m->mtp_layers);
		psi = (tfm_params(m) - x + x / dp) / ((double)tp * pp);
	}
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
	 * Activation Recomputation", Table 2): s b h (34/t + 5 a s / (h t)),
	 * the 34 following the shape (memory.h) and the datatype (FP8 GEMM
	 * inputs stored in a byte), s/cp tokens per GPU with context
	 * parallelism (the scores s/cp x s: the same 5 a s / h).
	 * Sequence parallelism only lowers memory, so assuming it keeps this a
	 * lower bound whether or not the step model uses it.  With full
	 * recomputation a layer keeps only its input, 2 s b h / t, and one
	 * layer's full activations exist while it is recomputed. */
	double units = fmin(mem_act_units(m, false, fp8),	/* 34 for GPT */
			    mem_act_units(m, m->moe.experts > 0, fp8));
	s /= cp > 1 ? cp : 1;
	layer_full = s * b * h * (units / tp + 5.0 * a * m->seq_len / (h * tp));
	/* 1F1B: the first stage holds pp microbatches of L/pp layers = L layers. */
	if (recompute)
		act = L * 2.0 * s * b * h / tp + layer_full;
	else
		act = L * layer_full;
	return psi * (w + g + o) + act;
}

/* --- the objective and the duration --------------------------------------- */

/*
 * Lower bounds on a candidate's objective, two levels, each a true lower
 * bound on what evaluate_full() (plan_search.c) finds (so branch and bound
 * returns the same ranking as evaluating everything):
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
 *    GPU power level (power.c: the GPU catalog's activity levels, none
 *    below idle_w); power.gpu_busy_fraction=0 holds the GPUs at idle_w,
 *    the floor.  Hosts (node catalog) are busy while training in both
 *    runs, and the bound run trains no longer.
 *    Both runs start at the same instant, so a time-varying intensity or PUE
 *    is the same function of time in both; the bound run integrates smaller
 *    rates over a shorter span [0, D_lb] of it.
 * The run is the run model's own in formula mode, a few events long, so
 * the bound costs a scenario load (~1 ms).  A duration bound over the
 * deadline drops the candidate at either level.
 */


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
	const char *ov[8 + sizeof calm / sizeof *calm + 3 * PLAN_POOLS_MAX + 1];
	char pools[3 * PLAN_POOLS_MAX][PLAN_OV_LEN + 32];
	size_t n = 0, n_calm = c->spot_nodes > 0 ? sizeof calm / sizeof *calm : 2, np = 0;
	struct report *rep;
	int rc;

	for (size_t i = 0; i < n_calm; i++)
		ov[n++] = calm[i];
	/* Daly and Young need a failure rate: the calm run checkpoints never */
	ov[n++] = "training.checkpoint.policy=time";
	/* the scenario's own spot pools: no preemption, the capacity whole */
	for (int i = 0; i < p->n_pools; i++) {
		if (!p->pool_spot[i])
			continue;
		snprintf(pools[np], sizeof pools[np], "pools.%s.preemption_per_node_hour=0",
			 p->pool_name[i]);
		ov[n++] = pools[np++];
		snprintf(pools[np], sizeof pools[np], "pools.%s.interruption_band=none",
			 p->pool_name[i]);
		ov[n++] = pools[np++];
		snprintf(pools[np], sizeof pools[np], "pools.%s.capacity_trace=",
			 p->pool_name[i]);
		ov[n++] = pools[np++];
	}
	for (size_t i = 0; i < n_extra && n < sizeof ov / sizeof *ov; i++)
		ov[n++] = extra[i];
	rc = plan_evaluate(p, c, ov, n, &rep, e);
	if (rc > 0)
		plan_reject(p, c, REJ_SCENARIO, NAN);
	if (rc != 0)
		return rc;
	c->bound = plan_objective(p, rep);
	c->duration_s = plan_figure(rep, "duration_s");
	rc = plan_completed(rep) && c->duration_s <= p->deadline_s ? 0 : 1;
	if (!plan_completed(rep))
		plan_reject(p, c, REJ_BOUND_INCOMPLETE, c->duration_s / 86400);
	else if (rc)
		plan_reject(p, c, REJ_BOUND_LATE, c->duration_s / 86400);
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
	struct cmp_shape sh;
	struct cmp_cost f, b;
	double layer_s;

	step_layer_shape(&p->m, c->mb, c->tp, 1, c->tp, p->sp, p->flash, p->peak_tflops * 1e12,
			 false, &sh);
	sh.attn = p->attn;
	cmp_layer_fwd(&p->gpu, &sh, &f);
	cmp_layer_bwd(&p->gpu, &sh, &b);
	layer_s = f.time_s + b.time_s + (c->recompute ? f.time_s : 0);
	if (p->m.moe.experts > 0) {	/* the cheaper kind of layer */
		step_layer_shape(&p->m, c->mb, c->tp, 1, c->tp, p->sp, p->flash,
				 p->peak_tflops * 1e12, true, &sh);
		sh.attn = p->attn;
		cmp_layer_fwd(&p->gpu, &sh, &f);
		cmp_layer_bwd(&p->gpu, &sh, &b);
		layer_s = fmin(layer_s, f.time_s + b.time_s + (c->recompute ? f.time_s : 0));
	}
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
 * (m + 1), ZeRO-1 and the distributed optimizer one of each (2): zero.h's
 * zero_comm_elems with S for Psi.  S counts only the transformer layers'
 * weight matrices (12 h^2 per layer for GPT; the lighter of a dense and an
 * MoE layer) in fp16, of the stage with the fewest layers. */
static double comm_lb_s(const struct plan *p, const struct cand *c, int m)
{
	int n = c->dp, D = p->domain_gpus;
	int q = p->placed ? D : (D + c->tp - 1) / c->tp;
	double w = fmin(tfm_layer_matrix_params(&p->m, false),
			tfm_layer_matrix_params(&p->m, p->m.moe.experts > 0));
	double S = 2.0 * w * (p->m.layers / c->pp) / c->tp;
	double per_gpu;

	if (q >= n || q < 1 || !(p->nic_Bps > 0))
		return 0;	/* the group may sit in one domain */
	if (c->zero == 0 && !p->dist_opt)
		per_gpu = S * (double)(n - q) / ((double)n * q);
	else
		per_gpu = zero_comm_elems(S, c->zero, p->dist_opt, m) *
			  (double)(n - 1) / ((double)n * q);
	return per_gpu / p->nic_Bps;
}

/* Returns 0 with c->bound set, 1 when the candidate cannot meet the
 * deadline or the scenario rejects it, -1 on failure. */
int plan_bound_analytic(struct plan *p, struct cand *c, struct err *e)
{
	/* Room for any GPU name plan_setup accepts: a cut override would be
	 * an unknown setting, and every candidate would be dropped. */
	char eff[PLAN_OV_LEN], peak[PLAN_OV_LEN + sizeof p->gpu_name];
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
	snprintf(peak, sizeof peak, "gpus.%s.peak_%s_tflops=%.17g", p->gpu_name,
		 p->fp8 ? "fp8" : "bf16",
		 p->peak_tflops * (1 + 1e-12));	/* printing's rounding: stay below */
	c->level = LB_ANALYTIC;
	p->formula_runs++;
	return bound_run(p, c, ov, sizeof ov / sizeof *ov, e);
}

int plan_bound_undisrupted(struct plan *p, struct cand *c, struct err *e)
{
	c->level = LB_UNDISRUPTED;
	return bound_run(p, c, NULL, 0, e);
}
