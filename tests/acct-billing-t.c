/*
 * acct-billing-t.c -- per-second billing of preempted spot instances, driven
 * with activities directly.  spot.cfg: one spot pool of 4 nodes at $36 per
 * node-hour, i.e. $0.01 per instance-second; billing defaults: held time
 * rounded up to whole seconds, at least 60 s per instance (AWS EC2 Linux).
 */
#include <math.h>

#include "acct-load.h"

static struct activity spot(int nodes)
{
	return held(nodes, nodes * 8);
}

static void test_preempted(void)
{
	struct fixture f;
	struct activity a4 = spot(4), a3 = spot(3), none = { 0 };
	double seconds;

	if (fixture_open(&f, "spot.cfg", NULL, 0) < 0)
		return;
	/* Four instances from 0; one preempted at 1000.25 s; a replacement
	 * from 1030 s, itself preempted at 1060 s; the rest end at 2000.5 s. */
	acct_set_activity(f.a, 0, &a4);
	acct_set_activity(f.a, 1000 * S + S / 4, &a3);
	tap_near(acct_totals(f.a)->cost_usd, 0.01 * (4 * 1000.25 + 0.75), 1e-12,
		 "at the preemption: 4 x 1000.25 s held, the preempted one rounded up to 1001 s");
	acct_set_activity(f.a, 1030 * S, &a4);
	acct_set_activity(f.a, 1060 * S, &a3);
	tap_near(acct_totals(f.a)->cost_usd,
		 0.01 * (1001 + 3 * 1060 + 60), 1e-12,
		 "the replacement, held 30 s, is billed the 60 s minimum");
	acct_set_activity(f.a, 2000 * S + S / 2, &none);
	seconds = 1001 + 3 * 2001 + 60;		/* 2000.5 s rounds up to 2001 s */
	tap_near(acct_totals(f.a)->cost_usd, 0.01 * seconds, 1e-12,
		 "total: 1001 + 3 x 2001 + 60 instance-seconds at $0.01");
	fixture_close(&f);
}

/* Exact billing (increment and minimum 0) is the plain integral. */
static void test_exact(void)
{
	const char *ov[] = { "cost.billing_increment_s=0", "cost.billing_minimum_s=0" };
	struct fixture f;
	struct activity a4 = spot(4), a3 = spot(3), none = { 0 };

	if (fixture_open(&f, "spot.cfg", ov, 2) < 0)
		return;
	acct_set_activity(f.a, 0, &a4);
	acct_set_activity(f.a, 1000 * S + S / 4, &a3);
	acct_set_activity(f.a, 1030 * S, &a4);
	acct_set_activity(f.a, 1060 * S, &a3);
	acct_set_activity(f.a, 2000 * S + S / 2, &none);
	tap_near(acct_totals(f.a)->cost_usd, 0.01 * (4 * 1000.25 + 3 * 1000.25 + 30), 1e-12,
		 "without rounding: instance-seconds held x $0.01");
	fixture_close(&f);
}

/* Committed capacity: a reserved pool is paid for all its nodes from the
 * first to the last second of the run, even while some are released. */
static void test_committed(void)
{
	const char *ov[] = { "pools.burst.class=\"reserved\"" };
	struct fixture f;
	struct activity a4 = spot(4), a1 = spot(1), none = { 0 };

	if (fixture_open(&f, "spot.cfg", ov, 1) < 0)
		return;
	acct_set_activity(f.a, 0, &a4);
	acct_set_activity(f.a, 500 * S, &a1);
	acct_set_activity(f.a, 1000 * S, &none);
	tap_near(acct_totals(f.a)->cost_usd, 0.01 * 4 * 1000, 1e-12,
		 "reserved (term): 4 nodes x 1000 s although 3 were released at 500 s");
	fixture_close(&f);
}

/* One run of the pool as `cls` (with `extra` overrides) held from 0 to
 * end_s by all four nodes: what it costs and what of it is unused term. */
static void committed_run(const char *cls, const char *extra, double end_s, double *usd,
			  double *unused_usd)
{
	char c[64];
	const char *ov[] = { c, extra ? extra : "cost.billing_increment_s=1" };
	struct fixture f;
	struct activity a4 = spot(4), none = { 0 };

	snprintf(c, sizeof c, "pools.burst.class=\"%s\"", cls);
	*usd = *unused_usd = -1;
	if (fixture_open(&f, "spot.cfg", ov, 2) < 0)
		return;
	acct_set_activity(f.a, 0, &a4);
	acct_set_activity(f.a, (int64_t)(end_s * S), &none);
	*usd = acct_totals(f.a)->cost_usd;
	*unused_usd = acct_totals(f.a)->commitment_unused_usd;
	fixture_close(&f);
}

/* Capacity blocks are sold in whole days up to 14 days, whole weeks up to
 * 182 days (AWS EC2 User Guide, "Find and purchase Capacity Blocks"); a
 * reserved pool with a term is paid for the term; "held" pays the run. */
static void test_terms(void)
{
	const double day = 86400, node_s = 0.01;	/* $ per node-second */
	double usd, unused;

	committed_run("capacity_block", NULL, 1000, &usd, &unused);
	tap_near(usd, 4 * day * node_s, 1e-9, "capacity block, a 1000 s run: one day paid");
	tap_near(unused, 4 * (day - 1000) * node_s, 1e-9,
		 "capacity block: the day's unused 85,400 s are the unused commitment");
	committed_run("capacity_block", NULL, 10.2 * day, &usd, &unused);
	tap_near(usd, 4 * 11 * day * node_s, 1e-6, "capacity block, 10.2 days: 11 days");
	committed_run("capacity_block", NULL, 20 * day, &usd, &unused);
	tap_near(usd, 4 * 21 * day * node_s, 1e-6,
		 "capacity block, 20 days: 21 (past 14 days, whole weeks)");
	committed_run("capacity_block", NULL, 190 * day, &usd, &unused);
	tap_near(usd, 4 * (182 + 8) * day * node_s, 1e-6,
		 "capacity block, 190 days: a 182-day block and an 8-day one");
	committed_run("reserved", "pools.burst.term_days=365", 30 * day, &usd, &unused);
	tap_near(usd, 4 * 365 * day * node_s, 1e-6, "reserved, 1-year term, 30-day run: a year");
	tap_near(unused, 4 * 335 * day * node_s, 1e-6, "of which 335 days unused");
	committed_run("reserved", "pools.burst.term_days=365", 400 * day, &usd, &unused);
	tap_near(usd, 4 * 400 * day * node_s, 1e-6, "reserved, a run past its term: the run");
	tap_near(unused, 0, 1e-9, "nothing unused");
	committed_run("capacity_block", "cost.commitments=\"held\"", 10.2 * day, &usd,
		      &unused);
	tap_near(usd, 4 * 10.2 * day * node_s, 1e-6, "held: a capacity block paid while held");
}

int main(void)
{
	test_preempted();
	test_exact();
	test_committed();
	test_terms();
	return tap_done();
}
