/*
 * gc.h -- garbage-collection pauses of the training processes.
 *
 * CPython's collector stops one rank at a time, whenever that rank's
 * allocation count crosses a threshold; synchronous training then waits for
 * the slowest rank at the next collective, so a step pays the MAXIMUM over
 * ranks of the pauses that fell in it (github.com/pytorch/torchtitan/issues/696).
 *
 * mode auto: every rank pauses independently.  Pauses arrive as a Poisson
 * process in compute time (allocations happen while computing) with mean
 * gap interval_s per rank; each lasts pause_s (fixed) or an exponential
 * time of mean pause_s.  For a step of compute time T and N ranks the step
 * gains E[max_r S_r], S_r = the rank's total pause in T (compound Poisson),
 * computed exactly from the order statistic:
 *     E[max] = integral_0^inf 1 - F_S(x)^N dx
 * (fixed pauses: a finite sum over Poisson counts; exponential pauses:
 * Poisson-weighted Gamma CDFs, integrated numerically).  This expectation
 * is folded into the iteration time, so GC costs no events.  Per step the
 * pause is random, but over the ~10^4+ steps between two run events the
 * sum concentrates on its mean, which is what the run model advances by.
 *
 * mode manual: automatic collection off; every rank collects together
 * every every_iters iterations (Megatron --manual-gc-interval, torchtitan
 * gc_schedule), one pause_s for everyone, independent of rank count.  The
 * run model adds these pauses to its analytic progress (a pause ends every
 * every_iters-th iteration), exactly, without events.
 *
 * Defaults: pause 1.3 s (a gen-2 collection of a large trainer heap, 1.25-
 * 1.46 s in marin PR #9224), manual every 100 iterations (public Megatron
 * launch scripts use 10-1000); the per-rank auto interval (300 s) is an
 * assumption -- it depends on the trainer's allocation rate.
 */
#ifndef MODELS_GC_H
#define MODELS_GC_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/cfg.h"

enum gc_mode { GC_OFF, GC_AUTO, GC_MANUAL };

struct gc {
	enum gc_mode mode;
	double interval_s;	/* auto: mean compute time between one rank's pauses */
	double pause_s;
	bool pause_exponential;	/* auto: exponential durations, else fixed */
	int64_t every_iters;	/* manual */
};

extern const struct cfg_setting gc_settings[];
void gc_from_scenario(const struct scenario *sc, struct gc *g);

/* E[max over ranks of one rank's total pause] in a step of step_s compute. */
double gc_expected_max_s(const struct gc *g, double step_s, long ranks);
/* What one iteration gains in auto mode (0 otherwise). */
double gc_auto_s(const struct gc *g, double step_s, long ranks);
/* Manual mode: the pause every every_iters iterations (0 otherwise). */
double gc_manual_s(const struct gc *g);

#endif
