/*
 * pace.h -- how fast the job trains with dp data-parallel replicas: the
 * iteration time the run model advances by, cached per cluster state.
 *
 * Two sources, chosen by training.iteration_model:
 *   step     one iteration simulated by the step model (models/step.h) on
 *            the scenario's network, for the layout with dp replicas;
 *   formula  Megatron's FLOPs per iteration over GPUs x peak x
 *            training.efficiency (quick, network-blind).
 * On top come garbage collection (models/gc.h): the expected maximum of
 * per-rank pauses folded into every iteration, or a manual pause every N;
 * and evaluation (models/evaluation.h), a pause every N of its own.
 *
 * A smaller dp (an elastic job after preemptions) either keeps the global
 * batch, each replica running ceil(global / (dp x micro_batch)) microbatches
 * (so the iteration may process slightly more sequences than the batch when
 * dp does not divide it; the run still counts the global batch), or shrinks
 * it in proportion (spot.batch = shrink).
 */
#ifndef MODELS_PACE_H
#define MODELS_PACE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/evaluation.h"
#include "models/gc.h"
#include "models/gpu.h"
#include "models/layout.h"
#include "models/step.h"
#include "models/transformer.h"
#include "topologies/platform.h"

/*
 * A cache of paces shared by runs of scenarios that differ only in what its
 * key holds (cluster size, tp, pp, dp, micro-batch, microbatches, global
 * batch, recomputation, ZeRO stage, iteration model and the formula's
 * efficiency) and in settings the step model does not
 * read (checkpoints, failures, pools, prices): the planner's candidates.
 * The caller guarantees that; a plain run passes none.
 */
struct pace_cache;
struct pace_cache *pace_cache_new(void);
void pace_cache_free(struct pace_cache *c);
/* Paces computed in a forked copy of this process (the planner's warm-up,
 * sim/forkjobs.h): the entries from index `from` on, written to fd, and
 * taken in.  The bytes mean something only to the same binary (they hold
 * pointers to static strings); keys already held are skipped, and so is
 * a piece of an entry at the end (a helper that died while writing). */
size_t pace_cache_size(const struct pace_cache *c);
int pace_cache_send(const struct pace_cache *c, size_t from, int fd);
int pace_cache_take(struct pace_cache *c, const void *data, size_t len,
		    struct err *e);
/* The platform as built (topologies/platform.h) from net, for a cluster of
 * gpus in nodes of gpus_per_node, built once per shape: the planner's
 * candidates differ in cluster size only, never in network settings.  c
 * may be NULL (built each time). */
int pace_cache_platform(struct pace_cache *c, const struct net_cfg *net,
			int gpus, int gpus_per_node, struct platform *out,
			struct err *e);

/* What every pace is computed from (pointers into the run's model, all
 * read once per load). */
struct pace_src {
	const struct step_cfg *step;	/* the step model's settings */
	const struct tfm *m;
	const struct layout *L;		/* the full cluster's layout */
	const struct gpu_spec *g;
	const struct gc *gc;
	const struct evl *eval;		/* NULL: none */
	bool shrink_batch;
	bool use_step;			/* else the formula */
	double efficiency;		/* formula: achieved / peak */
	struct pace_cache *cache;	/* NULL: none */
};

/* The tensor peak of the datatype in use (parallel.dtype). */
double pace_peak_flops(const struct pace_src *src);

struct pace {
	bool ready;
	int dp;
	double compute_s;		/* one iteration without GC */
	double iter_s;			/* with the expected auto-GC maximum */
	double manual_s;		/* manual GC pause ... */
	int64_t every;			/* ... every this many iterations (0: none) */
	double eval_s;			/* an evaluation's pause ... */
	int64_t eval_every;		/* ... every this many iterations (0: none) */
	int64_t tokens_per_iter;
	double flops_per_iter;		/* incl. recomputation (Megatron's count) */
	struct step_result step;	/* step model only (else zero) */
};

extern const struct cfg_setting pace_settings[];

/* training.iteration_model and .efficiency; the rest the caller points to. */
void pace_src_from_scenario(const struct scenario *sc, struct pace_src *src);
int pace_compute(const struct pace_src *src, int dp, struct pace *p, struct err *e);
/* The rules and the memory of the layout at dp replicas (what pace_compute
 * would meet), without computing the pace. */
int pace_check_dp(const struct pace_src *src, int dp, struct err *e);
/* The pace of a global batch between those of a and b (the same dp, the
 * batch of a below it, of b above), by linear interpolation in the
 * sequences per iteration: an iteration of one layout is affine in its
 * microbatches (each adds a pipeline slot; the rest does not move); the
 * caller checks that against a computed pace (run_model.c). */
void pace_lerp(const struct pace_src *src, const struct pace *a, const struct pace *b,
	       int global_batch, struct pace *out);
/* GC or evaluation lengthen its iterations. */
bool pace_has_pauses(const struct pace *p);
/* Time for iterations i0+1 .. i1 (a manual pause ends every every-th, an
 * evaluation every eval_every-th). */
double pace_time_s(const struct pace *p, int64_t i0, int64_t i1);
/* Iterations done (fractional) tau seconds after iteration i0 completed;
 * inside a pause, the iteration it follows. */
double pace_iters_at(const struct pace *p, int64_t i0, double tau);
/* Evaluation time in iterations i0+1 .. i1 (the pauses that end there). */
double pace_eval_s(const struct pace *p, int64_t i0, int64_t i1);

#endif
