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

#include <stdbool.h>
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

/* A phase's transfers as the flows they became (identical ones fold into
 * one that stands for w of them), kept for a plan that is started again. */
struct coll_flow {
	int32_t path[NET_PATH_MAX];
	int32_t n;		/* links */
	int32_t w;		/* transfers it stands for */
	double bytes;		/* of each */
	double max_Bps;
	int64_t lat_ns;
};

struct coll_phase {
	struct coll_xfer *x;
	int32_t n, cap;
	double latency_ns;	/* step latencies of the phase */
	struct coll_flow *flow;	/* kept flows (plan->keep), NULL until started */
	int32_t n_flow;
};

#define COLL_PHASES_MAX 3
struct coll_plan {
	enum coll_algo algo;	/* as resolved */
	struct coll_phase ph[COLL_PHASES_MAX];
	int n_phases;
	/* Keep each phase's flows at its first start and add those at later
	 * starts: the same flows in the same order, so the same results,
	 * without routing and folding again.  Only where routes do not depend
	 * on the links' load (fat trees and NVLink, not UGAL on a dragonfly). */
	bool keep;
};

/* algo must not be COLL_AUTO.  Ops other than all-reduce use rings. */
int coll_plan_build(const struct net *net, const struct coll *c,
		    enum coll_algo algo, struct coll_plan *p, struct err *e);
void coll_plan_free(struct coll_plan *p);
/* Plans kept by collective, so that one started again (the same group,
 * operation, algorithm and size: every layer's ZeRO-3 gather) is neither
 * built nor routed again (collcache.c).  coll_cache_plan() gives c's plan,
 * kept or built; *owned says whether the caller frees it (when the cache is
 * full, or routes depend on load and nothing is kept). */
struct coll_cache;
struct coll_cache *coll_cache_new(struct err *e);
void coll_cache_free(struct coll_cache *cc);
struct coll_plan *coll_cache_plan(struct coll_cache *cc, const struct net *net,
				  const struct coll *c, enum coll_algo algo,
				  bool *owned, struct err *e);

/* The links transfer x crosses (its via's NIC included); returns how many. */
int coll_xfer_route(struct net *net, const struct coll_xfer *x,
		    const int32_t *load, int32_t *out);

/* One collective in flight on a flow system. */
struct coll_run {
	struct coll_plan *plan;	/* a cache's, or the caller's */
	bool own_plan;		/* the caller frees plan when the run ends */
	int phase;
	int64_t pending;	/* flows of the phase not yet delivered */
	int64_t end_ns;
	coll_done_fn done;
	void *ctx;
	uint64_t tag;
};
/* Start the current phase (and skip empty ones); sets r->pending.  Flows
 * carry `owner`.  When no phase is left, r->pending is 0 and r->phase is
 * plan->n_phases. */
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
