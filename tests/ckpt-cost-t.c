/*
 * ckpt-cost-t.c -- checkpoint intervals that minimise money
 * (training.checkpoint.minimize = cost, models/checkpoint.h) and the
 * storage prices accounting charges for checkpoints (models/storage.h),
 * against optima and bills derived by hand.
 *
 * The optimum: a run spending R USD/s, a checkpoint costing delta seconds
 * of training and c USD of storage, failures at mean interval M; per
 * second of useful work cost(T) = R (1 + delta/T + T/2M) + c/T, least at
 * T = sqrt(2 M (delta + c/R)).
 */
#include <math.h>
#include <stdio.h>

#include "tap.h"
#include "formula-run.h"
#include "models/checkpoint.h"
#include "models/storage.h"

/* The formula alone: delta 10 s, c $90, R $1/s, M 20,000 s. */
static void test_formula(void)
{
	struct ckpt c = { .enabled = true, .mode = CKPT_SYNC, .policy = CKPT_YOUNG,
			  .stall_s = 10, .write_s = 10, .minimize_cost = true };

	/* sqrt(2 x 20,000 x (10 + 90 / 1)) = sqrt(4e6) = 2000 s */
	ckpt_minimize_cost(&c, 90, 1, 1, 20000);
	tap_near(c.interval_s, 2000, 1e-12, "young on money: sqrt(2 M (delta + c/R)) = 2000 s");
	tap_near((double)c.interval_iters, 2000, 0, "2000 iterations of 1 s");
	/* Daly eq. 37 with delta 100: x = 100 / 40,000 = 0.0025;
	 * 2000 x (1 + 0.05/3 + 0.0025/9) - 100 = 1933.8889 s */
	c.policy = CKPT_DALY;
	ckpt_minimize_cost(&c, 90, 1, 1, 20000);
	tap_near(c.interval_s, 2000 * (1 + 0.05 / 3 + 0.0025 / 9) - 100, 1e-12,
		 "daly on money: eq. 37 at delta + c/R = 100 s (1933.89 s)");
	/* minimize = time: the interval is left alone, only c recorded */
	c.minimize_cost = false;
	c.interval_s = 3600;
	ckpt_minimize_cost(&c, 90, 1, 1, 20000);
	tap_ok(c.interval_s == 3600 && c.usd_per_ckpt == 90,
	       "minimize = time keeps the interval, records $90 a checkpoint");
}

/* What one more checkpoint costs: writes on every tier, holding on the
 * tiers that keep all (half the run on average). */
static void test_per_checkpoint(void)
{
	struct storage s = { .n = 2 };

	s.t[0] = (struct storage_tier){ "all", 0.023, 0.0006, 0, 0 };
	s.t[1] = (struct storage_tier){ "two", 0.14, 0.001, 0, 2 };
	/* 1e12 B = 1000 GB: writes 1000 x (0.0006 + 0.001) = $1.6; held on
	 * "all" for 730 h / 2 of a 730 h run: 1000 x 0.023 / 2 = $11.5 */
	tap_near(storage_usd_per_checkpoint(&s, 1e12, STORAGE_MONTH_S), 1.6 + 11.5, 1e-12,
		 "c = writes $1.6 + half a month held on the keep-all tier $11.5");
}

/* tiny.cfg end to end: 16 GPUs at $3.6 per GPU-hour (R = 16 x 3.6 / 3600
 * = $0.016/s), checkpoints to a store at $0.01 per GB written keeping the
 * last one (no holding term): c = params x 14 B / 1e9 x 0.01. */
static void test_run(void)
{
	const char *ov[] = {
		"cost.gpu_hour_usd=3.6", "storage_types.t.write_bw_per_node_gbyte_s=0.5",
		"storage_types.t.read_bw_per_node_gbyte_s=1",
		"storage_types.t.usd_per_gb_written=0.01", "training.checkpoint.storage=\"t\"",
		"training.checkpoint.keep=1", "training.checkpoint.policy=\"young\"",
		"training.checkpoint.minimize=\"cost\"",
	};
	struct report *r = rep_new();

	if (formula_run("scenarios/tiny.cfg", ov, sizeof ov / sizeof *ov, 1, r) < 0) {
		tap_ok(0, "tiny.cfg with minimize = cost runs");
		rep_free(r);
		return;
	}
	double it_s = rep_summary_get(r, "iteration_time_s");
	double delta = rep_summary_get(r, "checkpoint_stall_s");
	double M = rep_summary_get(r, "mtti_s");
	double gb = rep_summary_get(r, "params") * 14 / 1e9;
	double c = gb * 0.01, R = 16 * 3.6 / 3600;

	tap_diag("c = $%.4f a checkpoint, c/R = %.1f s, delta = %.3f s", c, c / R, delta);
	tap_near(rep_summary_get(r, "checkpoint_interval_iters"),
		 round(sqrt(2 * M * (delta + c / R)) / it_s), 0,
		 "young on money in iterations: sqrt(2 M (delta + c/R))");
	tap_near(rep_summary_get(r, "cost_storage_usd"),
		 rep_summary_get(r, "checkpoints") * c, 1e-9,
		 "cost_storage_usd = checkpoints x c written (keep 1: nothing held billed)");
	rep_free(r);
}

int main(void)
{
	test_formula();
	test_per_checkpoint();
	test_run();
	return tap_done();
}
