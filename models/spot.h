/*
 * spot.h -- spot pools: capacity that the provider takes back.
 *
 * Per-pool settings, for pools of class spot (pool.h):
 *
 *   pools.burst = { class = "spot"; nodes = 64;
 *                   notice_s = 120;            # AWS 120 s, GCP/Azure 30 s
 *                   preemption_per_node_hour = 0.01;   # or
 *                   interruption_band = "5to10";       # AWS advisor band, or
 *                   capacity_trace = "traces/skypilot-16node-us-east-2b.json";
 *                   capacity_scale = 4; };     # nodes per trace instance
 *
 * Rate model: each held node is preempted as a Poisson process; a
 * preempted node comes back after replacement_s.  An AWS interruption band
 * is the share of capacity reclaimed per trailing month (AWS Spot Instance
 * Advisor); we take its midpoint (25% for >20%) per node per 730 h month.
 * Trace model: the pool holds min(nodes, trace count x capacity_scale) nodes
 * at every instant of the trace (from capacity_offset_s, wrapping at its end
 * when capacity_loop); every drop is one preemption of the nodes lost, at the
 * trace's time, announced notice_s before; every rise returns capacity.
 *
 * After a preemption the run (run.c) follows spot.policy: wait for the
 * pools to be full again, or elastic: restart at once with the whole
 * data-parallel replicas the remaining nodes hold, and grow back at the
 * next checkpoint once capacity returns.  spot.batch says whether a smaller
 * cluster keeps the global batch (more accumulation, slower iterations) or
 * shrinks it with the replicas (same iteration time, fewer tokens each).
 */
#ifndef MODELS_SPOT_H
#define MODELS_SPOT_H

#include <stdbool.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/pool.h"
#include "models/replay.h"

struct spot_pool {
	int pool;		/* index into struct pools */
	int nodes;
	double notice_s, replacement_s;
	double rate_per_node_s;	/* rate model (0 with a trace) */
	bool has_trace;
	struct replay_cap tr;
	int scale;
	double offset_s;
	bool loop;
};

struct spot {
	int n;
	struct spot_pool sp[POOLS_MAX];
	bool elastic;		/* spot.policy = elastic */
	bool shrink_batch;	/* spot.batch = shrink */
	double rate_per_s;	/* all spot nodes held: expected preemptions/s */
};

extern const struct cfg_setting spot_settings[];
int spot_from_scenario(const struct scenario *sc, const struct pools *pools,
		       struct spot *s, struct err *e);
void spot_free(struct spot *s);

/* Nodes the pool can hold at simulated time t_s (trace model). */
int spot_avail_at(const struct spot_pool *p, double t_s);
/* The next change of spot_avail_at strictly after t_s: its time (INFINITY
 * if none) and the count from then. */
double spot_next_change(const struct spot_pool *p, double t_s, int *avail);

#endif
