/*
 * netsim.c -- many collectives at once on one fabric, driven by the event
 * engine: the network as the step model sees it.
 *
 * Every running collective (a coll_run) feeds its current phase's flows
 * into one shared flow system, so concurrent collectives (the DP groups of
 * different pipeline stages, TP inside nodes, ...) contend for links max-
 * min fairly.  One engine event stands for "the network's next change": it
 * is kept at the earliest pending transfer end or delivery (or at the
 * current time after a start, so that the starts of one instant are solved
 * together).  Its handler ends and delivers the due flows, starts next
 * phases, calls the completion callbacks, re-solves what changed, and
 * re-arms itself.  Nothing is polled: with no traffic there is no event.
 */
#include <stdlib.h>
#include <string.h>

#include "topologies/coll.h"
#include "topologies/flow.h"
#include "topologies/topo.h"

struct netsim {
	struct net *net;
	struct ev_sim *sim;
	struct flow_sys *fs;
	int kind;
	int armed;		/* an event is pending at ev_ns */
	uint64_t ev_id;
	int64_t ev_ns, now_ns;
	struct coll_run *runs;
	int32_t n_runs, cap_runs, *free_runs, n_free;
	struct coll_cache *plans;	/* by collective (collcache.c) */
};

static int on_event(struct ev_sim *sim, const struct ev *ev, void *ctx,
		    struct err *e);

/* Make sure the handler runs at t (or earlier). */
static void arm(struct netsim *ns, int64_t t)
{
	if (t == INT64_MAX)
		return;
	if (ns->armed && ns->ev_ns <= t)
		return;
	if (ns->armed)
		ev_cancel(ns->sim, ns->ev_id);
	ns->ev_id = ev_at(ns->sim, t, ns->kind, 0);
	ns->ev_ns = t;
	ns->armed = 1;
}

struct netsim *netsim_new(struct net *net, struct ev_sim *sim, struct err *e)
{
	struct netsim *ns = calloc(1, sizeof *ns);

	if (ns == NULL) {
		err_set(e, ERR_RUN, "out of memory for the network simulation");
		return NULL;
	}
	ns->net = net;
	ns->sim = sim;
	ns->fs = flow_sys_new(net->g.n_links, net->g.bw_Bps, net->g.tier,
			      TIER_COUNT, e);
	if (ns->fs == NULL) {
		free(ns);
		return NULL;
	}
	if ((ns->plans = coll_cache_new(e)) == NULL) {
		netsim_free(ns);
		return NULL;
	}
	ns->kind = ev_kind(sim, "network", on_event, ns);
	if (ns->kind < 0) {
		netsim_free(ns);
		err_set(e, ERR_RUN, "the engine has no room for another event kind");
		return NULL;
	}
	return ns;
}

void netsim_free(struct netsim *ns)
{
	if (ns == NULL)
		return;
	for (int32_t i = 0; i < ns->n_runs; i++)
		if (ns->runs[i].own_plan) {
			coll_plan_free(ns->runs[i].plan);
			free(ns->runs[i].plan);
		}
	free(ns->runs);
	free(ns->free_runs);
	coll_cache_free(ns->plans);
	flow_sys_free(ns->fs);
	free(ns);
}

static int32_t new_run(struct netsim *ns, struct err *e)
{
	if (ns->n_free > 0)
		return ns->free_runs[--ns->n_free];
	if (ns->n_runs == ns->cap_runs) {
		int32_t cap = ns->cap_runs ? ns->cap_runs * 2 : 16;
		struct coll_run *r = realloc(ns->runs, sizeof *r * (size_t)cap);
		if (r == NULL)
			return err_set(e, ERR_RUN, "out of memory for collectives");
		ns->runs = r;
		int32_t *f = realloc(ns->free_runs, sizeof *f * (size_t)cap);
		if (f == NULL)
			return err_set(e, ERR_RUN, "out of memory for collectives");
		ns->free_runs = f;
		ns->cap_runs = cap;
	}
	memset(&ns->runs[ns->n_runs], 0, sizeof ns->runs[0]);
	return ns->n_runs++;
}

static void drop_run(struct netsim *ns, int32_t slot)
{
	if (ns->runs[slot].own_plan) {
		coll_plan_free(ns->runs[slot].plan);
		free(ns->runs[slot].plan);
	}
	memset(&ns->runs[slot], 0, sizeof ns->runs[slot]);
	ns->free_runs[ns->n_free++] = slot;
}

int netsim_start(struct netsim *ns, const struct coll *c, coll_done_fn done,
		 void *ctx, uint64_t tag, struct err *e)
{
	enum coll_algo algo;
	int64_t now = ev_now(ns->sim);

	if (net_coll_resolve(ns->net, c, &algo, e) < 0)
		return -1;
	int32_t slot = new_run(ns, e);
	if (slot < 0)
		return -1;
	struct coll_run *r = &ns->runs[slot];
	r->done = done;
	r->ctx = ctx;
	r->tag = tag;
	r->plan = coll_cache_plan(ns->plans, ns->net, c, algo, &r->own_plan, e);
	if (r->plan == NULL || coll_run_start(ns->net, ns->fs, r, (uint64_t)slot, now, e) < 0) {
		drop_run(ns, slot);
		return -1;
	}
	if (r->pending == 0) {
		/* No flows at all (one GPU): complete after the latency, via an
		 * empty flow that is delivered then. */
		r->pending = 1;
		if (flow_add(ns->fs, NULL, 0, 0, r->end_ns - now, (uint64_t)slot,
			     now, e) < 0)
			return -1;
	}
	arm(ns, now);
	return 0;
}

static int on_delivered(void *ctx, uint64_t owner, struct err *e)
{
	struct netsim *ns = ctx;
	struct coll_run *r = &ns->runs[owner];
	int rc = coll_run_delivered(ns->net, ns->fs, r, owner, ns->now_ns, e);

	if (rc <= 0)
		return rc;
	coll_done_fn done = r->done;
	void *dctx = r->ctx;
	uint64_t tag = r->tag;
	drop_run(ns, (int32_t)owner);
	return done ? done(dctx, tag, e) : 0;
}

static int on_event(struct ev_sim *sim, const struct ev *ev, void *ctx,
		    struct err *e)
{
	struct netsim *ns = ctx;

	(void)ev;
	ns->armed = 0;
	ns->now_ns = ev_now(sim);
	if (flow_advance(ns->fs, ns->now_ns, on_delivered, ns, e) < 0)
		return -1;
	flow_solve(ns->fs, ns->now_ns);
	arm(ns, flow_next_ns(ns->fs));
	return 0;
}

size_t netsim_tiers(const struct netsim *ns, const char *const **names,
		    const double **bytes)
{
	*names = graph_tier_names;
	*bytes = flow_tier_bytes(ns->fs);
	return TIER_COUNT;
}

size_t netsim_active_flows(const struct netsim *ns)
{
	return flow_count(ns->fs);
}
