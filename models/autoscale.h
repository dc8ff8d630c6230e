/*
 * autoscale.h -- the rule that grows and shrinks a cluster's elastic pools.
 *
 * Every period_s the cluster samples its GPU utilisation (GPUs running
 * jobs / GPUs held) and the number of jobs waiting.  Once a window_s of
 * samples is in, their means decide:
 *   up    when utilisation > up_util  or waiting > up_queue,
 *   down  when utilisation < down_util and waiting < down_queue,
 * else nothing.  Windows tumble: every window_s there is one decision and
 * the next window starts empty, so a decision never sees samples from
 * before the previous one (a pool that just grew is judged as grown).  The defaults are the rule
 * the seed gives (scale down below 30% utilisation with fewer than
 * 5 waiting, up above 85% or more than 20 waiting, 15 s samples over a
 * 3-minute window).
 */
#ifndef MODELS_AUTOSCALE_H
#define MODELS_AUTOSCALE_H

#include "sim/cfg.h"

#define AS_WINDOW_MAX 4096

struct as_rule {
	double period_s, window_s;
	double up_util, up_queue;
	double down_util, down_queue;
	int step_nodes;			/* nodes added or removed per decision */
	double provision_s;		/* from request to a usable node */
};

struct as_window {
	int n, want;			/* samples in, samples per window */
	double util_sum, queue_sum;
};

enum { AS_DOWN = -1, AS_HOLD = 0, AS_UP = 1 };

extern const struct cfg_setting as_settings[];
/* The rule from the scenario's autoscale group. */
void as_from_scenario(const struct scenario *sc, struct as_rule *r);
void as_window_init(struct as_window *w, const struct as_rule *r);
/* Take one sample; AS_UP, AS_DOWN or AS_HOLD. */
int as_sample(struct as_window *w, const struct as_rule *r, double util, double waiting);

#endif
