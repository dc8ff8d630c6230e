/*
 * acct-budget-t.c -- budget alerts fire at the first poll at or after the
 * projected total crosses a threshold, and a budget stop ends the run.
 *
 * budget.cfg: 4 on-demand nodes at $36 per node-hour = $0.04/s; budget $160
 * with alerts at 0.5, 0.8 and 1.0 and stop = true.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acct-load.h"
#include "formula-run.h"
#include "sim/h5in.h"
#include "sim/report.h"

/* Training with 3600 s of work left: projection = 0.04 x 3600 = $144 =
 * 0.9 of the budget, so 0.5 and 0.8 fire at once.  At 1000 s the run stops
 * training (a restart) with 2600 s left: the projection then grows as
 * 0.04 x (t + 2600) and reaches $160 at t* = 4000 - 2600 = 1400 s.  Polling
 * every 60 s, the 1.0 alert comes at 1440 s, the first poll after t*.  The
 * alerts are read back from the /events acct_poll writes (kind
 * budget_cost, who = the threshold in percent, value = the projection). */
static void test_alert_timing(void)
{
	struct fixture f;
	struct activity train = held(4, 32), restart = held(4, 0);
	struct report *rep = rep_new();
	struct h5in_event *ev = NULL;
	struct h5in *in = NULL;
	struct err e = { 0 };
	int64_t poll_ns = 60 * S, stopped_ns = -1;
	const char *tmp = getenv("TMPDIR");
	char dir[4096], path[4200];
	size_t n = 0;

	snprintf(dir, sizeof dir, "%s/acct-budget-t.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		tap_ok(0, "mkdtemp: %s", strerror(errno));
		rep_free(rep);
		return;
	}
	snprintf(path, sizeof path, "%s/alerts.h5", dir);
	if (fixture_open(&f, "budget.cfg", NULL, 0) < 0) {
		rep_free(rep);
		rmdir(dir);
		return;
	}
	train.work_left_s = 3600;
	acct_set_activity(f.a, 0, &train);
	if (acct_series(f.a, rep) < 0 || rep_open(rep, path, &e) < 0)
		goto out;
	for (int64_t t = 0; t <= 3000 * S; t += poll_ns) {
		if (t == 1020 * S) {	/* the restart began at 1000 s, between polls */
			restart.work_left_s = 2600;
			acct_set_activity(f.a, 1000 * S, &restart);
		}
		int rc = acct_poll(f.a, t, rep, &e);

		if (rc < 0)
			goto out;
		if (rc > 0 && stopped_ns < 0)
			stopped_ns = t;
	}
	if (rep_commit(rep, &e) < 0 || (in = h5in_open(path, &e)) == NULL ||
	    h5in_read_events(in, &ev, &n, &e) < 0)
		goto out;
	tap_int((long long)n, 3, "three alerts");
	if (n == 3) {
		tap_ok(strcmp(ev[0].kind, "budget_cost") == 0 && strcmp(ev[1].kind, "budget_cost") == 0 &&
		       strcmp(ev[2].kind, "budget_cost") == 0, "all three are budget_cost events");
		tap_ok(ev[0].time_s == 0 && ev[1].time_s == 0 && ev[0].who == 50 && ev[1].who == 80,
		       "0.5 and 0.8 fire at the first poll (projection $144 from the start)");
		tap_near(ev[0].value, 144, 1e-12, "projected total at start = $0.04/s x 3600 s");
		tap_ok(ev[2].who == 100 && ev[2].time_s >= 1400 && ev[2].time_s < 1400 + 60,
		       "1.0 fires within one poll after t* = 1400 s (at %.0f s)", ev[2].time_s);
		tap_near(ev[2].value, 0.04 * (1440 + 2600), 1e-12,
			 "projection at 1440 s = $0.04 x (1440 + 2600)");
	}
	tap_ok(stopped_ns == 1440 * S, "stop requested at the same poll");
out:
	if (e.status)
		tap_ok(0, "alerts to %s: %s", path, e.msg);
	free(ev);
	h5in_close(in);
	rep_free(rep);
	fixture_close(&f);
	unlink(path);
	rmdir(dir);
}

/* Through the run model: with a budget below the projection, the run stops
 * at the first sample (60 s), uncompleted. */
static void test_run_stops(void)
{
	const char *ov[] = { "budget.cost_usd=10" };
	struct report *rep = rep_new();

	if (scenario_run("tests/acct/budget.cfg", ov, 1, 1, rep) < 0) {
		tap_ok(0, "budget.cfg runs");
	} else {
		tap_near(rep_summary_get(rep, "duration_s"), 60, 1e-12,
			 "the run ends at the first sample (60 s)");
		tap_int((long long)rep_summary_get(rep, "completed"), 0, "not completed");
		tap_int((long long)rep_summary_get(rep, "budget_stopped"), 1, "budget_stopped = 1");
		tap_near(rep_summary_get(rep, "cost_usd"), 0.04 * 60, 1e-12,
			 "cost = $0.04/s x 60 s");
	}
	rep_free(rep);
}

int main(void)
{
	test_alert_timing();
	test_run_stops();
	return tap_done();
}
