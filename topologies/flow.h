/*
 * flow.h -- flows sharing links max-min fairly (progressive filling).
 *
 * A flow is a path of links, a byte count and a latency.  Rates are the
 * max-min fair allocation over link capacities: repeatedly the link with the
 * smallest fair share (remaining capacity / unfrozen flows) fixes the rate
 * of its flows, which are then removed from the other links -- the
 * bottleneck model of SimGrid and SimAI.  A flow sends its bytes at its rate
 * as the rate changes, leaves the links when done, and is delivered
 * `latency` later (the tail of the pipe).
 *
 * Incremental: adding or ending a flow marks its links dirty; flow_solve()
 * re-solves only the connected components (links sharing flows) that hold a
 * dirty link, and settles the bytes sent by their flows first.  Flows
 * elsewhere keep their rates.  Time is integer nanoseconds; a transfer's end
 * is rounded up to the next nanosecond.
 *
 *   fs = flow_sys_new(n_links, cap_Bps, tier, e);
 *   flow_add(fs, path, n, bytes, lat_ns, owner, now, e);   ... more adds
 *   flow_solve(fs, now);
 *   t = flow_next_ns(fs);            // next transfer end or delivery
 *   flow_advance(fs, t, on_delivered, ctx, e); flow_solve(fs, t); ...
 */
#ifndef TOPOLOGIES_FLOW_H
#define TOPOLOGIES_FLOW_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

struct flow_sys;
typedef int (*flow_done_fn)(void *ctx, uint64_t owner, struct err *e);

/* cap_Bps and tier (may be NULL) are borrowed and must outlive fs. */
struct flow_sys *flow_sys_new(int32_t n_links, const double *cap_Bps,
			      const uint8_t *tier, int n_tiers, struct err *e);
void flow_sys_free(struct flow_sys *fs);
/* Returns the flow's id (>= 0) or -1. */
int32_t flow_add(struct flow_sys *fs, const int32_t *path, int n, double bytes,
		 int64_t latency_ns, uint64_t owner, int64_t now_ns, struct err *e);
/* One more flow just like id (same path, this many bytes, the same
 * latency and ceiling), folded into it before the next solve: id then
 * stands for w flows, counts w times in every link's fair share and moves
 * w times the bytes at w times one share -- exactly what w separate flows
 * get, since max-min fairness gives identical flows identical rates. */
void flow_grow(struct flow_sys *fs, int32_t id, double bytes);
/* A ceiling on one flow's rate (0: none), as if on a private link; for a
 * grown flow, on each of the flows it stands for. */
void flow_set_max(struct flow_sys *fs, int32_t id, double max_Bps);
/* Drop a flow now, sent or not, delivering nothing and counting none of
 * its bytes (its links are re-solved at the next flow_solve): trainsim
 * cluster's standing flows, which end with their job. */
void flow_cancel(struct flow_sys *fs, int32_t id);
/* The flow's links; returns how many. */
int flow_path(const struct flow_sys *fs, int32_t id, const int32_t **path);
void flow_solve(struct flow_sys *fs, int64_t now_ns);
int64_t flow_next_ns(const struct flow_sys *fs);	/* INT64_MAX: nothing */
/* End transfers and deliver flows due at or before now_ns (in time order),
 * calling done for each delivery; done may add flows. */
int flow_advance(struct flow_sys *fs, int64_t now_ns, flow_done_fn done,
		 void *ctx, struct err *e);

double flow_rate_Bps(const struct flow_sys *fs, int32_t id);
uint64_t flow_owner(const struct flow_sys *fs, int32_t id);
size_t flow_count(const struct flow_sys *fs);		/* not yet delivered */
const int32_t *flow_link_load(const struct flow_sys *fs); /* flows per link */
const double *flow_link_bytes(const struct flow_sys *fs);
const double *flow_tier_bytes(const struct flow_sys *fs);
/* The flows the last flow_solve rated (whose rates may have changed;
 * every other flow kept its rate); valid until the next solve. */
int32_t flow_solved(const struct flow_sys *fs, const int32_t **ids);
/* Work done by solves so far: flows (re)rated, components solved. */
uint64_t flow_stat_rated(const struct flow_sys *fs);
size_t flow_sys_bytes(const struct flow_sys *fs);

#endif
