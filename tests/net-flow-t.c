/*
 * net-flow-t.c -- max-min fairness and flow timing on hand-built links.
 *
 * Every expected rate and time below is worked out in the comment beside
 * it from the definition of max-min fairness (Bertsekas and Gallager, Data
 * Networks, sec. 6.5: raise all rates together; a link that fills freezes
 * its flows).
 */
#include <stdint.h>

#include "tap.h"
#include "topologies/flow.h"

static int64_t now;
static int delivered;
static uint64_t last_owner;

static int on_done(void *ctx, uint64_t owner, struct err *e)
{
	(void)ctx;
	(void)e;
	delivered++;
	last_owner = owner;
	return 0;
}

/* A flow system on links of these capacities, the clock at t0_ns and no
 * delivery counted yet; fails the whole test when it cannot be built. */
static struct flow_sys *fresh(int32_t n_links, const double *cap_Bps, int64_t t0_ns)
{
	struct err e = { 0 };
	struct flow_sys *fs = flow_sys_new(n_links, cap_Bps, NULL, 0, &e);

	if (!fs) {
		tap_diag("flow_sys_new: %s", e.msg);
		exit(99);
	}
	now = t0_ns;
	delivered = 0;
	return fs;
}

/* One link of cap_Bps, and the path over it.  The system keeps a pointer
 * to its capacities: one such system at a time. */
static const int32_t link0[1] = { 0 };
static double link0_Bps;

static struct flow_sys *one_link(double cap_Bps, int64_t t0_ns)
{
	link0_Bps = cap_Bps;
	return fresh(1, &link0_Bps, t0_ns);
}

/* flow_add, whose errors (none on these hand-built links) are checked by
 * the rates and times the tests compare. */
static int32_t add(struct flow_sys *fs, const int32_t *path, int n, double bytes,
		   int64_t latency_ns, uint64_t owner, int64_t now_ns)
{
	struct err e = { 0 };

	return flow_add(fs, path, n, bytes, latency_ns, owner, now_ns, &e);
}

/* flow_advance to t_ns, deliveries counted by on_done. */
static void advance(struct flow_sys *fs, int64_t t_ns)
{
	struct err e = { 0 };

	flow_advance(fs, t_ns, on_done, NULL, &e);
}

/* Run until idle; returns the time of the last delivery. */
static int64_t run(struct flow_sys *fs)
{
	while (flow_count(fs) > 0) {
		flow_solve(fs, now);
		now = flow_next_ns(fs);
		advance(fs, now);
	}
	return now;
}

/*
 * Max-min rates by hand: flows along paths over links of these capacities,
 * solved at time 0, each flow's rate as derived in the row's comment.
 */
struct rates {
	int32_t n_links;
	double cap_Bps[3];
	int n_flows;
	int32_t path[4][2];
	int len[4];
	double want_Bps[4];
	const char *name[4];
};

static const struct rates rate_cases[] = {
	/* Link 0: 1 B/s, link 1: 2 B/s.  Flow a uses both, b link 0, c link 1.
	 * Link 0's fair share 1/2 is the smallest (link 1: 2/2 = 1), so a and b
	 * get 0.5; link 1 then has 1.5 left for c alone. */
	{ 2, { 1, 2 }, 3, { { 0, 1 }, { 0 }, { 1 } }, { 2, 1, 1 }, { 0.5, 0.5, 1.5 },
	  { "two links, three flows: a = 1/2", "two links, three flows: b = 1/2",
	    "two links, three flows: c = 2 - 1/2" } },
	/* Equal capacities 1 and 1: every link has two flows, all rates 1/2. */
	{ 2, { 1, 1 }, 3, { { 0, 1 }, { 0 }, { 1 } }, { 2, 1, 1 }, { 0.5, 0.5, 0.5 },
	  { "equal links: a at 1/2", "equal links: b at 1/2", "equal links: c at 1/2" } },
	/* Links L0 = 10, L1 = 4 (the bottleneck), L2 = 10.  Flow a: L0 L1,
	 * b: L1 L2, c: L0, d: L2 L0 -- unequal paths through one bottleneck.
	 * Shares: L0 10/3, L1 4/2 = 2, L2 10/2 = 5: L1 first, a = b = 2.
	 * Then L0 has 8 for c and d: 4 each; L2 has 8 for d (already 4). */
	{ 3, { 10, 4, 10 }, 4, { { 0, 1 }, { 1, 2 }, { 0 }, { 2, 0 } }, { 2, 2, 1, 2 },
	  { 2, 2, 4, 4 },
	  { "bottleneck: a = 4/2", "bottleneck: b = 4/2", "bottleneck: c = (10-2)/2",
	    "bottleneck: d = (10-2)/2" } },
};

static void max_min_rates(void)
{
	for (size_t k = 0; k < sizeof rate_cases / sizeof *rate_cases; k++) {
		const struct rates *c = &rate_cases[k];
		struct flow_sys *fs = fresh(c->n_links, c->cap_Bps, 0);
		int32_t id[4];

		for (int i = 0; i < c->n_flows; i++)
			id[i] = add(fs, c->path[i], c->len[i], 10, 0, (uint64_t)i, 0);
		flow_solve(fs, 0);
		for (int i = 0; i < c->n_flows; i++)
			tap_near(flow_rate_Bps(fs, id[i]), c->want_Bps[i], 1e-12, c->name[i]);
		flow_sys_free(fs);
	}
}

static void ceilings(void)
{
	/* One link of 10; flows a (ceiling 2), b, c.  a stops at 2, b and c
	 * share the other 8: 4 each.  With a ceiling of 8 instead, a's
	 * ceiling never binds (fair share 10/3): all 10/3. */
	struct flow_sys *fs = one_link(10, 0);
	int32_t a = add(fs, link0, 1, 1, 0, 0, 0);
	int32_t b = add(fs, link0, 1, 1, 0, 0, 0);
	add(fs, link0, 1, 1, 0, 0, 0);

	flow_set_max(fs, a, 2);
	flow_solve(fs, 0);
	tap_ok(flow_rate_Bps(fs, a) == 2 && flow_rate_Bps(fs, b) == 4,
	       "a ceiling of 2 binds: 2, 4, 4");
	flow_set_max(fs, a, 8);
	flow_solve(fs, 0);
	tap_near(flow_rate_Bps(fs, a), 10.0 / 3, 1e-12, "a ceiling of 8 does not: 10/3 each");
	flow_sys_free(fs);
}

static void timing(void)
{
	/* One link of 1e9 B/s.  Flows of 1e9 and 2e9 bytes start together at
	 * 0.5e9 B/s each; the first ends at 2 s, the second has 1e9 bytes left
	 * and finishes alone at 1e9 B/s: 3 s.  With 1 us latency, deliveries
	 * come at 2 s + 1 us and 3 s + 1 us. */
	struct flow_sys *fs = one_link(1e9, 0);

	add(fs, link0, 1, 1e9, 1000, 7, 0);
	add(fs, link0, 1, 2e9, 1000, 8, 0);
	flow_solve(fs, 0);
	tap_int(flow_next_ns(fs), 2000000000, "first transfer ends at 2 s");
	now = flow_next_ns(fs);
	advance(fs, now);
	tap_int(delivered, 0, "nothing delivered before the latency");
	int64_t end = run(fs);
	tap_int(delivered, 2, "both delivered");
	tap_int(end, 3000001000, "second delivered at 3 s + 1 us (sped up after the first)");
	tap_int((long long)last_owner, 8, "the longer flow is delivered last");
	tap_near(flow_link_bytes(fs)[0], 3e9, 1e-12, "link carried 3e9 bytes");
	flow_sys_free(fs);
}

static void components(void)
{
	/* Links 0..9, ten independent flows (one per link), then one more on
	 * link 3: the re-solve must rate only link 3's two flows. */
	double cap[10];
	for (int i = 0; i < 10; i++)
		cap[i] = 1e9;
	struct flow_sys *fs = fresh(10, cap, 0);
	for (int32_t i = 0; i < 10; i++)
		add(fs, &i, 1, 1e9, 0, 0, 0);
	flow_solve(fs, 0);
	uint64_t before = flow_stat_rated(fs);
	int32_t l3 = 3;
	int32_t x = add(fs, &l3, 1, 1e9, 0, 0, 1000);
	flow_solve(fs, 1000);
	tap_int((long long)(flow_stat_rated(fs) - before), 2,
		"adding a flow re-rates only its component (2 flows, not 11)");
	tap_near(flow_rate_Bps(fs, x), 0.5e9, 1e-12, "new flow shares link 3 equally");
	/* The old flow on link 3 sent 1000 ns * 1e9 B/s = 1000 B alone, then
	 * 0.5e9 B/s: it ends at 1000 + (1e9 - 1000) / 0.5e9 s. */
	now = 1000;
	advance(fs, 1000000000);
	tap_int((long long)flow_count(fs), 2, "nine flows done at 1 s, two left on link 3");
	flow_sys_free(fs);
}

static void zero_bytes(void)
{
	struct flow_sys *fs = one_link(1e9, 5);

	add(fs, link0, 1, 0, 250, 1, 5);
	tap_int(run(fs), 255, "an empty flow costs only its latency");
	flow_sys_free(fs);
}

static void grown(void)
{
	/* flow_grow: a flow standing for 3 identical ones.  Link 0 = 8 B/s
	 * carries x (grown to 3 flows of 6 bytes) and y (6 bytes); link 1 = 1
	 * B/s carries y alone too.  Link 1's share 1 is the least: y = 1.
	 * Link 0 then has 7 for the 3 flows of x: 7/3 each, 7 for x, whose
	 * 18 bytes take 18/7 s, as 3 separate flows of 6 bytes at 7/3 would.
	 * y stays at 1 B/s (link 1) and ends at 6 s.  Three separate flows
	 * get the same rates; link 0 carries 18 + 6 bytes either way. */
	double cap[2] = { 8, 1 };
	struct flow_sys *fs = fresh(2, cap, 0);
	int32_t p0[1] = { 0 }, p01[2] = { 0, 1 };
	int32_t x = add(fs, p0, 1, 6, 0, 7, 0);
	int32_t y = add(fs, p01, 2, 6, 0, 8, 0);

	flow_grow(fs, x, 6);
	flow_grow(fs, x, 6);
	flow_solve(fs, 0);
	tap_ok(flow_rate_Bps(fs, y) == 1, "grown: y on the 1 B/s link gets 1");
	tap_near(flow_rate_Bps(fs, x), 7, 1e-12, "grown: x stands for 3 flows at 7/3 each: 7");
	tap_ok(flow_link_load(fs)[0] == 4, "grown: link 0 counts 4 flows");
	run(fs);
	tap_ok(delivered == 2 && now == 6000000000 && flow_link_bytes(fs)[0] == 24,
	       "grown: two deliveries, the last at 6 s, 24 bytes over link 0");
	flow_sys_free(fs);

	fs = fresh(2, cap, 0);
	int32_t x1 = add(fs, p0, 1, 6, 0, 7, 0);
	add(fs, p0, 1, 6, 0, 7, 0);
	add(fs, p0, 1, 6, 0, 7, 0);
	y = add(fs, p01, 2, 6, 0, 8, 0);
	flow_solve(fs, 0);
	tap_near(flow_rate_Bps(fs, x1), 7.0 / 3, 1e-12, "three separate flows: 7/3 each");
	flow_sys_free(fs);
}

static void links_that_cannot_fill(void)
{
	/* Link 0 of 100 carries a (also on link 1 of 10) and b (also on link
	 * 2 of 20): at most 10 + 20 = 30 < 100, so it never binds and the
	 * solver leaves it out; a gets 10 and b 20 all the same.  Then c, with
	 * a ceiling of 5, alone on link 3 of 100 (which it cannot fill): it
	 * runs at its ceiling, 5, though no link of its path is a bottleneck.
	 * With a ceiling of 500 instead, link 3 binds: 100. */
	double cap[4] = { 100, 10, 20, 100 };
	struct flow_sys *fs = fresh(4, cap, 0);
	int32_t p01[2] = { 0, 1 }, p02[2] = { 0, 2 }, p3[1] = { 3 };
	int32_t a = add(fs, p01, 2, 1, 0, 0, 0);
	int32_t b = add(fs, p02, 2, 1, 0, 0, 0);
	int32_t c = add(fs, p3, 1, 1, 0, 0, 0);

	flow_set_max(fs, c, 5);
	flow_solve(fs, 0);
	tap_ok(flow_rate_Bps(fs, a) == 10 && flow_rate_Bps(fs, b) == 20,
	       "a link that cannot fill binds no one: 10 and 20");
	tap_ok(flow_rate_Bps(fs, c) == 5, "a flow on such links alone runs at its ceiling: 5");
	flow_set_max(fs, c, 500);
	flow_solve(fs, 0);
	tap_ok(flow_rate_Bps(fs, c) == 100, "... and at its link's capacity when that is less");
	tap_int(run(fs) > 0, 1, "all three complete");
	flow_sys_free(fs);
}

/* Many flows ending at the same instant (flow_advance takes them in a
 * batch): deliveries still come in time order, ties in the order the flows
 * were added.  300 flows, each alone on a link of 1 B/s with 1 byte, end
 * at 1 s; flow i's latency is (7919 i mod 13) ns, so delivery i is at
 * 1 s + that, and among equal latencies the lower i first.  A delivery
 * callback that adds a flow (an empty one, delivered at once) sees it
 * delivered after every delivery due at the same time and added before. */
static int order_owner[400], n_order;
static struct flow_sys *order_fs;

static int on_order(void *ctx, uint64_t owner, struct err *e)
{
	(void)ctx;
	order_owner[n_order++] = (int)owner;
	if (owner == 0)	/* the first delivery adds flow 1000: nothing, no latency */
		flow_add(order_fs, NULL, 0, 0, 0, 1000, now, e);
	return 0;
}

static void same_instant(void)
{
	enum { N = 300 };
	double cap[N];
	struct err e = { 0 };

	for (int i = 0; i < N; i++)
		cap[i] = 1;
	order_fs = fresh(N, cap, 0);
	for (int i = 0; i < N; i++) {
		int32_t p[1] = { i };
		add(order_fs, p, 1, 1, (7919 * i) % 13, (uint64_t)i, 0);
	}
	now = 0;
	n_order = 0;
	while (flow_count(order_fs) > 0) {
		flow_solve(order_fs, now);
		now = flow_next_ns(order_fs);
		flow_advance(order_fs, now, on_order, NULL, &e);
	}
	int ok = n_order == N + 1, seen_extra = 0;
	for (int k = 1; ok && k < n_order; k++) {
		int a = order_owner[k - 1], b = order_owner[k];
		if (b == 1000) {
			/* the added flow: after every flow with latency 0 */
			seen_extra = 1;
			ok = (7919 * a) % 13 == 0;
			continue;
		}
		int lb = (7919 * b) % 13;
		if (a == 1000) {
			/* ... and before every flow with more */
			ok = lb > 0 && (7919 * order_owner[k - 2]) % 13 == 0;
			a = order_owner[k - 2];
		}
		int la = (7919 * a) % 13;
		ok = ok && (la < lb || (la == lb && a < b));
	}
	tap_ok(ok && seen_extra, "300 flows ending at once: delivered by time, then order added");
	flow_sys_free(order_fs);
}

/* Standing flows cancelled (trainsim cluster's jobs ending): two flows
 * on one 10 B/s link get 5 each; cancelling one gives the other the
 * whole link, and the solve re-rates just it (a flow on a second link,
 * untouched, keeps its rate and is not re-rated). */
static void cancelled(void)
{
	static const double cap[2] = { 10, 4 };
	struct flow_sys *fs = fresh(2, cap, 0);
	const int32_t p0[1] = { 0 }, p1[1] = { 1 };
	const int32_t *ids;
	int32_t a = add(fs, p0, 1, 1e30, 0, 1, 0);
	int32_t b = add(fs, p0, 1, 1e30, 0, 2, 0);
	int32_t c = add(fs, p1, 1, 1e30, 0, 3, 0);

	flow_solve(fs, 0);
	tap_ok(flow_rate_Bps(fs, a) == 5 && flow_rate_Bps(fs, b) == 5,
	       "two flows on a 10 B/s link: 5 each");
	flow_cancel(fs, a);
	flow_solve(fs, 0);
	int32_t n = flow_solved(fs, &ids);
	tap_ok(flow_rate_Bps(fs, b) == 10 && flow_count(fs) == 2,
	       "one cancelled: the other takes all 10 B/s, 2 flows left");
	tap_ok(n == 1 && ids[0] == b && flow_owner(fs, ids[0]) == 2 &&
	       flow_rate_Bps(fs, c) == 4,
	       "the solve re-rated only the cancelled flow's neighbour (owner 2); "
	       "the flow elsewhere keeps 4 B/s");
	flow_sys_free(fs);
}

int main(void)
{
	tap_plan(35);
	max_min_rates();
	ceilings();
	timing();
	components();
	zero_bytes();
	grown();
	links_that_cannot_fill();
	same_instant();
	cancelled();
	return tap_done();
}
