/*
 * plan.h -- the planner: which cluster size, parallel layout and checkpoint
 * interval finish a run by a deadline at the least cost, carbon or time.
 *
 *   trainsim plan SCENARIO.cfg --deadline-days D [--minimize cost|carbon|time]
 *
 * It searches cluster.gpus, parallel.tp, .pp, .micro_batch,
 * training.recompute, parallel.zero_stage (when the scenario schema has it)
 * and training.checkpoint.interval_s; the global batch is kept (it is a
 * training hyperparameter, not a systems choice).  Every candidate is
 * evaluated by the real run model, in-process, on the scenario with
 * overrides, so `trainsim -s ... SCENARIO.cfg` with the printed overrides
 * reproduces the reported figures bit for bit.  Pruning, cheapest first:
 *   1. layout rules (the scenario loader's own errors) and a lower bound on
 *      the memory per GPU (plan_mem_bound_bytes) against the GPU's HBM;
 *   2. a lower bound on the objective and on the duration: the same run with
 *      failures and checkpoints off (they only add time and cost);
 *      candidates whose bound misses the deadline are dropped;
 *   3. branch and bound: layouts are evaluated in order of their bound, with
 *      checkpoint intervals around Daly's optimum, and the search stops once
 *      the next bound exceeds the worst of the N best found.
 */
#ifndef MODELS_PLAN_H
#define MODELS_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/attn_impl.h"
#include "models/gpu.h"
#include "models/pace.h"
#include "models/transformer.h"

enum goal { GOAL_COST, GOAL_CARBON, GOAL_TIME };

#define PLAN_POOLS_MAX 16	/* the scenario's pools the planner rescales */
#define PLAN_OV_MAX (13 + PLAN_POOLS_MAX)	/* overrides that define a candidate */
#define PLAN_OV_LEN 64
#define PLAN_JOBS_MAX 16	/* helpers warming paces at once */

/* One configuration of the search and, once evaluated, its figures. */
struct cand {
	int gpus, tp, pp, dp, mb, zero, recompute;
	int spot_nodes;			/* with spot_fractions */
	double ckpt_s;			/* 0 until a full evaluation picks one */
	double mem_bound_bytes;
	double bound;			/* lower bound on the objective */
	int level;			/* of the bound: LB_* (plan_int.h) */
	bool warmed;			/* its pace asked of a helper (plan_warm_for) */
	double obj, duration_s, cost_usd, carbon_kg, peak_mem_gib;
	double op_carbon_kg, embodied_kg;
	int feasible;
	char ov[PLAN_OV_MAX][PLAN_OV_LEN];
	int n_ov;
	char *json;			/* summary of the chosen evaluation */
};

struct cands {
	struct cand *v;
	size_t n, cap;
};

/* Why candidates were dropped, per cluster size: the report of a search
 * that finds nothing says which (cli/plan.c). */
enum plan_reject {
	REJ_MEMORY,		/* the memory bound exceeds the GPU's HBM */
	REJ_SCENARIO,		/* the scenario loader or the run model refused it */
	REJ_BOUND_LATE,		/* even undisrupted it ends after the deadline */
	REJ_BOUND_INCOMPLETE,	/* even undisrupted it does not complete */
	REJ_LATE,		/* with failures (or preemptions) it ends too late */
	REJ_INCOMPLETE,		/* with failures it does not complete (run.max_days) */
	REJ_COUNT
};
extern const char *const plan_reject_names[REJ_COUNT];
struct plan_group {
	long n[REJ_COUNT];
	double best_days;		/* least duration of a rejected run, days */
	char msg[200];			/* the first REJ_SCENARIO message */
};
struct plan;
/* Called with every configuration evaluated in full that completes. */
typedef void (*plan_result_fn)(void *ctx, const struct plan *p, const struct cand *c);

/* The search's options (set by the caller before plan_init), the figures
 * plan_init reads once from the scenario as given, and the counts the
 * search leaves for its report. */
struct plan {
	/* Options. */
	const char *file;
	const char **base_ov;		/* the user's -s, applied to every candidate */
	size_t n_base;
	enum goal goal;
	double deadline_s;
	int top;			/* configurations to rank */
	int jobs;			/* helpers warming paces */
	int *gpu_list;			/* sizes to try (malloc'd; plan_free frees) */
	size_t n_gpu_list;
	double *spot_fractions;		/* NULL: pricing as the scenario has it
					 * (else malloc'd; plan_free frees) */
	size_t n_spot;
	plan_result_fn on_result;	/* may be NULL */
	void *on_result_ctx;
	/* From the scenario as given (plan_init). */
	struct cfg_schema *schema;
	bool has_zero;
	bool rc_modules;		/* parallel.recompute_modules set: cleared
					 * where a candidate recomputes all or none */
	struct tfm m;
	int gpus, gpus_per_node, global_batch;
	double hbm_bytes, ckpt_s;
	double ckpt_bytes_per_param, ckpt_write_Bps;	/* Daly's interval */
	double fail_per_node_per_s;	/* 0: failures off */
	bool ckpt_fixed;		/* policy time or iterations (else Daly, Young) */
	int pp0;			/* the scenario's pp ... */
	bool uneven;			/* ... with first/last_stage_layers set */
	int n_pools;			/* the scenario's pools, rescaled with the size */
	char pool_name[PLAN_POOLS_MAX][32];
	int pool_nodes[PLAN_POOLS_MAX];
	bool pool_spot[PLAN_POOLS_MAX];
	char gpu_name[64];
	double peak_tflops;		/* of the datatype the step model uses */
	bool fp8;			/* parallel.dtype: which peak that is */
	int cp;				/* parallel.cp: the scenario's, kept */
	double eff_max;			/* top of the kernel efficiency curves */
	int virtual_stages;		/* 1 unless the interleaved schedule */
	struct gpu_spec gpu;		/* for the kernel model (compute.h) */
	bool sp, flash;			/* parallel.sequence_parallel, .flash_attention */
	enum attn_impl attn;		/* parallel.attention_kernel, where written */
	bool step_model;		/* training.iteration_model = step */
	double formula_eff;		/* training.efficiency (the formula model's) */
	double nic_Bps;			/* scale-out bandwidth per GPU, one way */
	int domain_gpus;		/* GPUs of a scale-up (NVLink) domain */
	bool placed;			/* network.placement given: ranks anywhere */
	bool dist_opt;			/* parallel.distributed_optimizer */
	struct pace_cache *paces;	/* step results shared by candidates */
	/* Counts, for the report. */
	long runs;			/* evaluations made */
	long formula_runs;		/* of which analytic bounds (formula pace) */
	size_t n_layouts;		/* that fit in memory */
	size_t n_may_meet;		/* of which may meet the deadline */
	struct plan_group *why;		/* per gpu_list entry (malloc'd) */
	char reject_msg[200];		/* the last refusal plan_evaluate saw */
};

/* Read what the search needs from the scenario as given (p->file with the
 * user's overrides): 0, or -1 with e filled (the loader's own errors). */
int plan_init(struct plan *p, struct err *e);
/* Everything p owns; p may be partly set up. */
void plan_free(struct plan *p);
/* The sizes tried when the user names none: the scenario's size x 1/4,
 * 1/2, 3/4, 1, 3/2, 2, 3, 4, in whole nodes (after plan_init). */
int plan_default_gpus(struct plan *p, struct err *e);
/* Does the user's override ov apply to candidate c (NULL: the scenario as
 * given)?  Not a spot pool's setting where c has no such pool. */
bool plan_ov_applies(const struct plan *p, const struct cand *c, const char *ov);
/* The search: the configurations evaluated in full that complete by the
 * deadline, best first; the first p->top are the best of all candidates.
 * Free with plan_cands_free. */
int plan_search(struct plan *p, struct cands *done, struct err *e);
void plan_cands_free(struct cands *cs);
/* Daly's interval for c, with the checkpoint's write time and the mean
 * time between interruptions it comes from. */
int plan_daly_for(struct plan *p, const struct cand *c, double *tau_s,
		  double *write_s, double *mtbf_s, struct err *e);

/* A lower bound on the bytes one GPU holds: model states under tp x pp
 * (and ZeRO over dp) plus 1F1B activations of the first pipeline stage.
 * See plan_bound.c for the formulas and their sources. */
double plan_mem_bound_bytes(const struct tfm *m, int tp, int pp, int dp,
			    int micro_batch, bool recompute, int zero_stage,
			    bool fp8, int cp);

/* Daly's optimum checkpoint interval (compute time between checkpoints)
 * for a checkpoint of write_s seconds and a mean time between
 * interruptions of mtbf_s (Daly 2006, eq. 37; valid for write_s < 2 mtbf_s,
 * else mtbf_s). */
double plan_daly_interval_s(double write_s, double mtbf_s);

#endif
