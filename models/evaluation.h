/*
 * evaluation.h -- the evaluation on held-out data that a training run
 * stops for: every every_iters iterations, eval_iters forward-only passes
 * over one global batch each (Megatron-LM --eval-interval and --eval-iters,
 * megatron/training/training.py evaluate() with forward_only=True;
 * NeMo's val_check_interval and limit_val_batches).
 *
 * What one forward-only batch costs, from the training iteration it runs
 * beside (evl_batch_s):
 *
 *   batch_s = (compute_s + tp_exposed_s + pp_exposed_s) / m
 *             x f x (m + fill),       f = forward FLOPs / executed FLOPs
 *
 * the critical path of one microbatch's forward (its share f of the
 * microbatch's work: 1/3 without recomputation, 1/4 with full) through a
 * pipeline that fills and drains once for m microbatches: fill = p - 1
 * slots for p stages, (p - 1) / v with v interleaved chunks a stage (a
 * chunk's forward is 1/v of a stage's; Narayanan et al. SC'21 sec. 2.2);
 * no gradient reduction, no optimizer.  The formula model has no pipeline:
 * its iteration's compute time x f.  Assumed, stated: a forward runs at
 * its backward's efficiency (one FLOP rate for the whole pass), and
 * evaluation takes the training batch's shape.
 *
 * Checked, not fitted: BigScience's chronicles of BLOOM-176B (train/
 * tr11-176B-ml/chronicles.md, 2022-03-18) measure "about 12 min" for one
 * evaluation (one iteration on each of 29 datasets, every 1,000
 * iterations: "about 7 iterations or 0.7% of training"); trainsim gives
 * 11.4 min for that scenario (tests/eval-t).
 *
 * The run model adds the pauses to its analytic progress as it does
 * manual GC (pace.h): exact, without events.  An evaluation is redone
 * when an interruption rolls training back past it (Megatron evaluates
 * whenever the iteration count reaches a multiple of the interval).
 */
#ifndef MODELS_EVALUATION_H
#define MODELS_EVALUATION_H

#include <stdint.h>

#include "sim/cfg.h"
#include "models/step.h"

struct evl {
	int64_t every_iters;	/* 0: no evaluation */
	int64_t eval_iters;	/* forward-only global batches per evaluation */
};

extern const struct cfg_setting evl_settings[];
void evl_from_scenario(const struct scenario *sc, struct evl *v);

/* One forward-only global batch after a training iteration whose step
 * model result is st (NULL: the formula model, whose iteration computes
 * for compute_s), executing exec_flops of which fwd_flops are the
 * forward's, with m microbatches a pipeline whose fill and drain take
 * fill_slots microbatch slots. */
double evl_batch_s(const struct step_result *st, double compute_s, double exec_flops,
		   double fwd_flops, int m, double fill_slots);
/* One evaluation: eval_iters such batches (0 when evaluation is off). */
double evl_pause_s(const struct evl *v, double batch_s);

#endif
