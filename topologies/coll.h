/*
 * coll.h -- collectives as phases of flows, and a runner that plays them
 * on a flow system (alone for tables, shared in the netsim).
 *
 * A plan is up to three phases run one after another; a phase is a set of
 * transfers that run at once, each with its latency (NCCL's step
 * latencies: the algorithm's step count times the per-step latency of the
 * hop kind, plus the path's wire latency).  Ring algorithms are pipelined
 * in NCCL, so a ring's 2(n-1) steps are one long flow per ring edge carrying
 * all steps' bytes: alone on the fabric that takes exactly
 * 2(n-1)/n * S/B + latency, and under contention the ring slows as a whole.
 */
#ifndef TOPOLOGIES_COLL_H
#define TOPOLOGIES_COLL_H

#include <stdint.h>
#include <stdio.h>

#include "topologies/flow.h"
#include "topologies/net.h"
#include "topologies/topo.h"

struct coll_xfer {
	int32_t src, dst;	/* GPUs */
	int32_t via;		/* GPU whose NIC the transfer leaves by; -1: src's */
	uint32_t key;		/* channel: tells apart flows of one pair */
	double bytes;
	double max_Bps;		/* ceiling on the flow's rate (0: none) */
};

struct coll_phase {
	struct coll_xfer *x;
	int32_t n, cap;
	double latency_ns;	/* step latencies of the phase */
};

#define COLL_PHASES_MAX 3
struct coll_plan {
	enum coll_algo algo;	/* as resolved */
	struct coll_phase ph[COLL_PHASES_MAX];
	int n_phases;
};

/* algo must not be COLL_AUTO.  Ops other than all-reduce use rings. */
int coll_plan_build(const struct net *net, const struct coll *c,
		    enum coll_algo algo, struct coll_plan *p, struct err *e);
void coll_plan_free(struct coll_plan *p);
/* The links transfer x crosses (its via's NIC included); returns how many. */
int coll_xfer_route(struct net *net, const struct coll_xfer *x,
		    const int32_t *load, int32_t *out);

/* One collective in flight on a flow system. */
struct coll_run {
	struct coll_plan plan;
	int phase;
	int64_t pending;	/* flows of the phase not yet delivered */
	int64_t end_ns;
	coll_done_fn done;
	void *ctx;
	uint64_t tag;
};
/* Start the current phase (and skip empty ones); sets r->pending.  Flows
 * carry `owner`.  When no phase is left, r->pending is 0 and r->phase is
 * plan.n_phases. */
int coll_run_start(struct net *net, struct flow_sys *fs, struct coll_run *r,
		   uint64_t owner, int64_t now_ns, struct err *e);
/* One of r's flows was delivered: 1 if the collective is now complete. */
int coll_run_delivered(struct net *net, struct flow_sys *fs, struct coll_run *r,
		       uint64_t owner, int64_t now_ns, struct err *e);

/* busbw = algbw * this (nccl-tests' PERFORMANCE.md). */
double coll_busbw_factor(enum coll_op op, int n);
const char *coll_op_name(enum coll_op op);
const char *coll_algo_name(enum coll_algo algo);

#endif
