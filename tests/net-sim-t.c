/*
 * net-sim-t.c -- collectives sharing the fabric on the event engine.
 *
 * Expected times are worked out by hand from max-min sharing: flows of two
 * collectives on the same links split them equally, and a collective alone
 * takes what net_coll_time_s() says (the same model without an engine).
 * Times are whole nanoseconds (tolerance 1e-5).  Latencies: base 8.4 us,
 * NVLink step 3.4 us, two NVLink hops of 300 ns.
 */
#include <stdlib.h>

#include "tap.h"
#include "sim/ev.h"
#include "topologies/coll.h"
#include "topologies/platform.h"
#include "topologies/topo.h"

#define B_NVL (300e9 * 0.767)

static int64_t done_ns[8];
static struct ev_sim *sim;
static struct netsim *ns;

static int on_done(void *ctx, uint64_t tag, struct err *e)
{
	(void)ctx;
	(void)e;
	done_ns[tag] = ev_now(sim);
	return 0;
}

static int gpus8[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
static int pair01[2] = { 0, 1 };
static struct coll later_coll;

static int start_later(struct ev_sim *s, const struct ev *ev, void *ctx,
		       struct err *e)
{
	(void)s;
	(void)ctx;
	return netsim_start(ns, &later_coll, on_done, NULL, ev->arg, e);
}

static struct net *dgx(int gpus)
{
	struct net_params p;
	struct err e = { 0 };

	net_params_default(&p);
	p.gpus = gpus;
	return net_new(&p, NULL, &e);
}

static void setup(struct net *net)
{
	struct err e = { 0 };

	sim = ev_sim_new();
	ns = netsim_new(net, sim, &e);
	for (int i = 0; i < 8; i++)
		done_ns[i] = -1;
}

static void teardown(void)
{
	netsim_free(ns);
	ev_sim_free(sim);
}

static void alone_and_shared(void)
{
	struct err e = { 0 };
	struct net *net = dgx(8);
	double S = 1e8;
	struct coll ar = { COLL_ALL_REDUCE, COLL_RING, gpus8, 8, S, 0 };
	double alone = net_coll_time_s(net, &ar, &e);

	setup(net);
	netsim_start(ns, &ar, on_done, NULL, 0, &e);
	ev_run(sim, INT64_MAX, &e);
	tap_near(done_ns[0] * 1e-9, alone, 1e-9, "one all-reduce on the engine = alone");
	teardown();

	/* Two at once on the same GPUs: every NVLink port carries one flow of
	 * each, so each gets B/2 and both end at 2 * 2(n-1)/n S/B + latency. */
	setup(net);
	netsim_start(ns, &ar, on_done, NULL, 0, &e);
	netsim_start(ns, &ar, on_done, NULL, 1, &e);
	ev_run(sim, INT64_MAX, &e);
	double lat = 8400e-9 + 14 * 3400e-9 + 600e-9;
	double want = 2 * (2.0 * 7 / 8 * S / B_NVL) + lat;
	tap_near(done_ns[0] * 1e-9, want, 1e-5, "two all-reduces sharing NVLink: twice the transfer");
	tap_ok(done_ns[0] == done_ns[1], "... and they end together");
	const char *const *names;
	const double *bytes;
	size_t nt = netsim_tiers(ns, &names, &bytes);
	/* 8 flows per run, 2 NVLink links each, 2(n-1)/n S bytes each. */
	tap_ok(nt > TIER_NVLINK && strcmp(names[TIER_NVLINK], "nvlink") == 0,
	       "tiers are named (nvlink first)");
	tap_near(bytes[TIER_NVLINK], 2 * 8 * 2 * (2.0 * 7 / 8 * S), 1e-12,
		 "NVLink tier bytes: 2 runs x 8 flows x 2 links x 2(n-1)/n S");
	tap_int((long long)netsim_active_flows(ns), 0, "no flow left behind");
	teardown();
	net_free(net);
}

static void staggered(void)
{
	/* GPU 0 -> 1 twice, the second starting when the first is half done:
	 * the first has S/2 left at B/2 (S/B more), the second then has S/2
	 * left alone at B (S/(2B) more).  Both add the same latency. */
	struct err e = { 0 };
	struct net *net = dgx(8);
	double S = 1e8, T = S / B_NVL, lat = 8400e-9 + 3400e-9 + 600e-9;

	setup(net);
	later_coll = (struct coll){ COLL_SENDRECV, COLL_AUTO, pair01, 2, S, 0 };
	int kind = ev_kind(sim, "later", start_later, NULL);
	netsim_start(ns, &later_coll, on_done, NULL, 0, &e);
	ev_at(sim, llround(T / 2 * 1e9), kind, 1);
	ev_run(sim, INT64_MAX, &e);
	tap_near(done_ns[0] * 1e-9, 1.5 * T + lat, 1e-5, "first send slowed by the second: 1.5 S/B");
	tap_near(done_ns[1] * 1e-9, 2.0 * T + lat, 1e-5, "second send: 2 S/B after the first began");
	teardown();
	net_free(net);
}

static void disjoint_and_tiers(void)
{
	/* Two DGX A100: an all-reduce in each node at once share no link and
	 * each takes its alone time.  Then one over all 16 GPUs: 8 channels,
	 * each with 2 flows between the nodes of 2(n-1)/n S/8 = (15/64) S
	 * bytes.  A channel leaves a node by the NIC it came in by (same_nic):
	 * NIC, leaf, NIC on one rail, leaf tier 2 x 8 x 2 x (15/64) S = 7.5 S
	 * and nothing on the spines; NVLink carries the 7 edges inside each
	 * node plus the hand-over to the entry GPU, 2 x 8 x 8 x 2 x (15/64) S =
	 * 60 S.  Without same_nic the flows leave by the last GPU's NIC, whose
	 * rail is not the next node's entry GPU's: NIC, leaf, spine, leaf, NIC,
	 * spine tier 7.5 S too, and NVLink 2 x 8 x 7 x 2 x (15/64) S = 52.5 S. */
	struct err e = { 0 };
	struct net *net = dgx(16);
	double S = 1e8;
	int a[8], b[8], all[16];

	for (int i = 0; i < 8; i++) {
		a[i] = i;
		b[i] = 8 + i;
	}
	for (int i = 0; i < 16; i++)
		all[i] = i;
	struct coll ca = { COLL_ALL_REDUCE, COLL_RING, a, 8, S, 0 };
	struct coll cb = { COLL_ALL_REDUCE, COLL_RING, b, 8, S, 0 };
	double alone = net_coll_time_s(net, &ca, &e);
	setup(net);
	netsim_start(ns, &ca, on_done, NULL, 0, &e);
	netsim_start(ns, &cb, on_done, NULL, 1, &e);
	ev_run(sim, INT64_MAX, &e);
	tap_near(done_ns[0] * 1e-9, alone, 1e-9, "node 0's all-reduce unaffected by node 1's");
	tap_near(done_ns[1] * 1e-9, alone, 1e-9, "node 1's all-reduce unaffected by node 0's");
	teardown();

	struct coll c16 = { COLL_ALL_REDUCE, COLL_RING, all, 16, S, 0 };
	setup(net);
	netsim_start(ns, &c16, on_done, NULL, 2, &e);
	ev_run(sim, INT64_MAX, &e);
	const char *const *names;
	const double *bytes;
	netsim_tiers(ns, &names, &bytes);
	tap_near(bytes[TIER_LEAF], 7.5 * S, 1e-9, "leaf tier: 7.5 S for a 16-GPU ring");
	tap_near(bytes[TIER_SPINE], 0, 0, "spine tier: nothing (each channel on one rail)");
	tap_near(bytes[TIER_NVLINK], 60 * S, 1e-9, "NVLink tier: 60 S (with the hand-over)");
	tap_ok(done_ns[2] > 0, "16-GPU all-reduce completed");
	/* Energy: the carried bytes at the platform's energy per bit, 7.5 S
	 * on leaf links at HDR's 1.58 pJ/bit (NVLink's is in the GPU: 0). */
	struct platform pf;
	platform_of_net(net, &pf);
	tap_near(platform_traffic_w(&pf, bytes), 7.5 * S * 8 * 1.58e-12, 1e-9,
		 "energy: 7.5 S bytes over HDR links at 1.58 pJ/bit");
	teardown();
	net->p.same_nic = false;
	setup(net);
	netsim_start(ns, &c16, on_done, NULL, 2, &e);
	ev_run(sim, INT64_MAX, &e);
	netsim_tiers(ns, &names, &bytes);
	tap_near(bytes[TIER_LEAF], 7.5 * S, 1e-9, "without same_nic: leaf tier 7.5 S");
	tap_near(bytes[TIER_SPINE], 7.5 * S, 1e-9, "... spine tier 7.5 S (rings cross rails)");
	tap_near(bytes[TIER_NVLINK], 52.5 * S, 1e-9, "... NVLink tier 52.5 S");
	tap_near(platform_traffic_w(&pf, bytes), 15 * S * 8 * 1.58e-12, 1e-9,
		 "... energy: 15 S bytes over HDR links");
	teardown();
	net->p.same_nic = true;

	/* A one-GPU "collective" completes after its latency alone. */
	int one[1] = { 3 };
	struct coll c1 = { COLL_ALL_REDUCE, COLL_RING, one, 1, S, 0 };
	setup(net);
	netsim_start(ns, &c1, on_done, NULL, 3, &e);
	ev_run(sim, INT64_MAX, &e);
	tap_int(done_ns[3], 8400, "one GPU: only the base latency");
	teardown();
	net_free(net);
}

/* Plans kept by collective (collcache.c): a collective started again adds
 * the flows its first start made, so it takes exactly as long again; a
 * different size is another plan; UGAL on a dragonfly keeps nothing. */
static void kept_plans(void)
{
	struct err e = { 0 };
	struct net *net = dgx(16);
	int all[16];
	double S = 1e8;

	for (int i = 0; i < 16; i++)
		all[i] = i;
	struct coll c16 = { COLL_ALL_REDUCE, COLL_RING, all, 16, S, 0 };
	struct coll half = c16;
	half.bytes = S / 2;
	struct coll_cache *cc = coll_cache_new(&e);
	bool own1 = true, own2 = true, own3 = true;
	struct coll_plan *p1 = coll_cache_plan(cc, net, &c16, COLL_RING, &own1, &e);
	struct coll_plan *p2 = coll_cache_plan(cc, net, &c16, COLL_RING, &own2, &e);
	struct coll_plan *p3 = coll_cache_plan(cc, net, &half, COLL_RING, &own3, &e);
	tap_ok(p1 && p1 == p2 && !own1 && !own2 && p1->keep,
	       "the same collective twice: one kept plan");
	tap_ok(p3 && p3 != p1 && !own3, "another size: another plan");
	coll_cache_free(cc);

	setup(net);
	later_coll = c16;
	int kind = ev_kind(sim, "later", start_later, NULL);
	netsim_start(ns, &c16, on_done, NULL, 0, &e);
	ev_run(sim, INT64_MAX, &e);
	int64_t first = done_ns[0];
	ev_at(sim, first, kind, 1);
	ev_run(sim, INT64_MAX, &e);
	tap_ok(first > 0 && done_ns[1] == 2 * first,
	       "started again from its kept flows: exactly as long (%lld ns)", (long long)first);
	teardown();
	net_free(net);

	struct net_params dp;
	net_params_default(&dp);
	dp.gpus = 64;
	dp.topology = TOPO_DRAGONFLY;
	struct net *df = net_new(&dp, NULL, &e);
	cc = coll_cache_new(&e);
	bool own = false;
	struct coll c64 = { COLL_ALL_REDUCE, COLL_RING, all, 16, S, 0 };
	struct coll_plan *pd = df ? coll_cache_plan(cc, df, &c64, COLL_RING, &own, &e) : NULL;
	tap_ok(pd && own && !pd->keep, "UGAL routes by load: the plan is the caller's, not kept");
	if (pd && own) {
		coll_plan_free(pd);
		free(pd);
	}
	coll_cache_free(cc);
	net_free(df);
}

int main(void)
{
	tap_plan(24);
	alone_and_shared();
	staggered();
	disjoint_and_tiers();
	kept_plans();
	return tap_done();
}
