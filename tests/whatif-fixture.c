/*
 * whatif-fixture.c -- writes a small run file with everything plots/plot
 * can draw, under the names the step model writes (models/step_report.c on
 * the step branch: compute_s, tp_exposed_s, ..., tier_bytes with
 * tier_names, peak_memory_bytes) and every event category of the timeline,
 * so the plot test exercises each panel before the models emit them all.
 * Not a test by itself: tests/whatif-plot.sh runs it.
 *
 *   tests/whatif-fixture OUT.h5
 */
#include <stdio.h>

#include "sim/report.h"

static int write_fixture(const char *path, struct err *e)
{
	static const char *const tiers[] = { "nvlink", "leaf", "spine" };
	static const double tier_bytes[] = { 4.0e11, 6.0e10, 1.5e10 };
	static const char *const kinds[] = {
		"failure", "preemption", "checkpoint_end", "budget_alert"
	};
	struct report *r = rep_new();
	int rc = -1;

	/* trainsim_version: the marker export and collect require of a run. */
	if (r == NULL || rep_open(r, path, e) < 0 ||
	    rep_attr_str(r, "trainsim_version", PACKAGE_VERSION, e) < 0)
		goto out;
	for (int k = 0; k < 4; k++)
		if (rep_event_kind(r, kinds[k], "a fixture event") < 0)
			goto out;
	if (rep_series(r, "tokens", "tokens") < 0 ||
	    rep_series(r, "facility_power_w", "W") < 0 ||
	    rep_series(r, "cost_usd", "USD") < 0 || rep_series(r, "carbon_kg", "kgCO2e") < 0)
		goto out;
	/* Four hours at 1 MW, 1,000 USD and 400 kg per hour. */
	for (int h = 0; h <= 4; h++) {
		double row[4] = { h * 1e9, 1e6, h * 1000.0, h * 400.0 };

		if (rep_sample(r, h * 3600.0, row, e) < 0)
			goto out;
	}
	for (int k = 0; k < 4; k++)
		if (rep_event(r, 3000.0 * (k + 1), kinds[k], k, 1.0, e) < 0)
			goto out;
	rep_summary(r, "duration_s", 4 * 3600.0, "s");
	rep_summary(r, "duration_days", 4 / 24.0, "days");
	rep_summary(r, "cost_usd", 4000.0, "USD");
	rep_summary(r, "gpus", 64, "");
	rep_summary(r, "iteration_time_s", 10.0, "s");
	rep_summary(r, "peak_memory_gib", 61.5, "GiB");
	rep_step_scalar(r, "iteration_s", 10.0, "s");
	rep_step_scalar(r, "compute_s", 6.0, "s");
	rep_step_scalar(r, "tp_exposed_s", 1.0, "s");
	rep_step_scalar(r, "pp_exposed_s", 0.5, "s");
	rep_step_scalar(r, "dp_exposed_s", 0.5, "s");
	rep_step_scalar(r, "bubble_s", 2.0, "s");
	rep_step_scalar(r, "peak_memory_bytes", 61.5 * 1073741824.0, "bytes");
	if (rep_step_vector(r, "tier_bytes", tier_bytes, 3, "bytes", e) < 0 ||
	    rep_step_labels(r, "tier_names", tiers, 3, e) < 0)
		goto out;
	rc = rep_commit(r, e);
out:
	rep_free(r);
	return rc;
}

int main(int argc, char **argv)
{
	struct err e = { 0 };

	if (argc != 2) {
		fprintf(stderr, "usage: whatif-fixture OUT.h5\n");
		return 2;
	}
	if (write_fixture(argv[1], &e) < 0) {
		fprintf(stderr, "%s\n", e.msg[0] ? e.msg : "whatif-fixture: failed");
		return 1;
	}
	return 0;
}
