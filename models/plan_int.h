/*
 * plan_int.h -- the planner's private parts, shared by its files only:
 * models/plan.c (the command), plan_bound.c (lower bounds), plan_search.c
 * (candidates and branch and bound) and plan_warm.c (helpers warming the
 * pace cache) may include it; nothing else may (the API is plan.h).
 *
 * struct plan holds the options and the figures read once from the
 * scenario as given; struct cand one configuration of the search.  Every
 * function shared between the files is prefixed plan_ and declared here.
 */
#ifndef MODELS_PLAN_INT_H
#define MODELS_PLAN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "sim/forkjobs.h"
#include "sim/report.h"
#include "models/gpu.h"
#include "models/pace.h"
#include "models/plan.h"
#include "models/transformer.h"

enum goal { GOAL_COST, GOAL_CARBON, GOAL_TIME };

#define PLAN_OV_MAX 12		/* overrides that define a candidate */
#define PLAN_OV_LEN 64
#define PLAN_JOBS_MAX 16	/* helpers warming paces at once */

/* The levels of a candidate's bound, each a true lower bound on its full
 * evaluation (the argument is in plan_bound.c); LB_DONE: evaluated in full
 * or dropped. */
enum { LB_ANALYTIC, LB_UNDISRUPTED, LB_DONE };

struct cand {
	int gpus, tp, pp, dp, mb, zero, recompute;
	int spot_nodes;			/* with --spot-fractions */
	double ckpt_s;			/* 0 until a full evaluation picks one */
	double mem_bound_bytes;
	double bound;			/* lower bound on the objective */
	int level;			/* of the bound: LB_* */
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
	bool fp8;			/* parallel.dtype: which peak that is */
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
	size_t n_layouts;		/* that fit in memory, for the report */
	size_t n_may_meet;		/* of which may meet the deadline */
	int *gpu_list;
	size_t n_gpu_list;
	double *spot_fractions;		/* NULL: pricing as the scenario has it */
	size_t n_spot;
	FILE *tsv;			/* --tsv: every configuration evaluated */
	struct pace_cache *paces;	/* step results shared by candidates */
	bool tsv_started;
};

/* The helpers warming paces (plan_warm.c); the search owns one. */
struct warm {
	struct plan *p;
	struct cands *cs;
	struct fj_pool *pool;
	int inflight[PLAN_JOBS_MAX];	/* candidates the helpers simulate */
};

/* plan.c: the scenario and the user's overrides, the table. */
bool plan_ov_applies(const struct plan *p, const struct cand *c, const char *ov);
struct scenario *plan_load(const struct plan *p, const struct cand *c,
			   const char *const *extra, size_t n_extra, struct err *e);
void plan_tsv_row(struct plan *p, const struct cand *c);

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
int plan_daly_for(struct plan *p, const struct cand *c, double *tau_s,
		  double *write_s, double *mtbf_s, struct err *e);
int plan_search(struct plan *p, struct cands *done, struct err *e);
void plan_cands_free(struct cands *cs);

/* plan_warm.c */
int plan_warm_for(struct warm *w, struct cand *c, double cutoff, struct err *e);

#endif
