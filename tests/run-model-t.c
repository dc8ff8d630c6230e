/*
 * run-model-t.c -- the first run model against numbers derived by hand.
 *
 * Sources: Megatron FLOPs and the 8TP/(nX) training-time estimate are from
 * Narayanan et al. SC'21 (doc/sources.md section 8); the rest is
 * arithmetic on the scenario's own figures, written out below.
 */
#include <math.h>
#include <stdio.h>

#include "tap.h"
#include "formula-run.h"
#include "sim/cfg.h"
#include "sim/report.h"
#include "models/run.h"

static double get(const struct report *r, const char *k)
{
	return rep_summary_get(r, k);
}

/* tiny.cfg: l=12 h=768 a=12 s=2048 V=51200, 16 A100 (312 TFLOP/s), batch
 * 256, 2e9 tokens, efficiency 0.44 (default), recomputation on.  Its fabric
 * as built (default rail-optimised HDR): 2 nodes fill one unit of 8 rail
 * leaves; 20 spines of 8 ports fit 4 switches of 40; 12 QM8700 x 253 W +
 * 16 ConnectX-6 x 15 W, all the time (the formula model measures no
 * traffic). */
#define FABRIC_W (12 * 253.0 + 16 * 15.0)
/* Its 2 nodes are the node catalog's dgx_a100 (the default for a100_80gb):
 * hosts of 1,751 W busy and 729 W idle, supplies 95% efficient, so a node
 * draws (GPUs + host) / 0.95 at the wall. */
#define HOST_BUSY_W 1751.0
#define HOST_IDLE_W 729.0
#define PSU_EFF 0.95
static void test_undisturbed_tiny(void)
{
	/* the GPUs' training level set to idle + 0.8 (TDP - idle): the sums
	 * are this test's, the level kpower-t's */
	const char *ov[] = { "failures.enabled=false", "training.checkpoint.enabled=false",
			     "power.gpu_busy_fraction=0.8" };
	struct report *r = rep_new();
	double l = 12, h = 768, s = 2048, V = 51200, B = 256;
	double F = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
	double iters = ceil(2e9 / (B * s));		/* 3815 */
	double iter_s = F / (16 * 312e12 * 0.44);
	double dur_s = iters * iter_s;
	double busy_w = 50 + 0.8 * (400 - 50);		/* idle + 0.8 (TDP - idle) */

	if (formula_run("scenarios/tiny.cfg", ov, 3, 1, r) < 0) {
		tap_ok(0, "tiny undisturbed run");
		rep_free(r);
		return;
	}
	tap_near(get(r, "iterations"), 3815, 0, "iterations = ceil(2e9 / (256 x 2048))");
	tap_near(get(r, "iteration_time_s"), iter_s, 1e-12, "iteration time = F / (n x peak x eff)");
	tap_near(get(r, "duration_s"), dur_s, 1e-9, "duration = iterations x iteration time");
	tap_near(get(r, "tokens") / get(r, "duration_s"), iters * B * s / dur_s, 1e-9,
		 "throughput = tokens / duration");
	tap_near(get(r, "tflops_per_gpu"), 312 * 0.44, 1e-9, "tflops per GPU = efficiency x peak");
	double it_w = (16 * busy_w + 2 * HOST_BUSY_W) / PSU_EFF + FABRIC_W;

	tap_near(get(r, "it_energy_kwh"), it_w * dur_s / 3.6e6, 1e-9,
		 "IT energy = ((GPUs x busy power + busy hosts) / PSU + fabric) x duration");
	tap_near(get(r, "energy_kwh"), 1.1 * it_w * dur_s / 3.6e6, 1e-9,
		 "facility energy = IT energy x PUE 1.1");
	/* Two 8-GPU instances billed per second (AWS: held time rounded up to
	 * whole seconds, 60 s minimum) at 8 x $5.12 per instance-hour. */
	tap_near(get(r, "cost_usd"), 2 * ceil(dur_s) / 3600 * 8 * 5.12, 1e-9,
		 "cost = 2 instances x ceil(duration) s x $40.96/h (per-second billing)");
	tap_near(get(r, "gpu_hours"), 16 * dur_s / 3600, 1e-9, "GPU-hours = GPUs x hours");
	tap_near(get(r, "carbon_kg"), get(r, "energy_kwh") * 369.5e-3, 1e-9,
		 "carbon = facility kWh x 369.5 g/kWh");
	tap_near(get(r, "goodput"), 1, 1e-9, "goodput 1 with no disruption");
	tap_int((long long)get(r, "failures"), 0, "no failures");
	rep_free(r);
}

/* tiny.cfg with Megatron's --rampup-batch-size 64 64 768: 3 steps of 256
 * sequences (ramp.h); 64-sequence iterations until 256 are consumed (4),
 * then 128 until 512 (2), then 192 until past 768 (2: 896); then the full
 * 256 until 2e9 / 2048 = 976,562.5 sequences: ceil(975,666.5 / 256) =
 * 3812 more.  The formula model's iteration time follows the sequences
 * (F is linear in B), so the duration is that of the 976,768 sequences at
 * the full batch's rate, and a ramp-up costs nothing there. */
static void test_rampup(void)
{
	const char *ov[] = { "failures.enabled=false", "training.checkpoint.enabled=false",
			     "parallel.rampup_start_batch=64", "parallel.rampup_increment=64",
			     "parallel.rampup_samples=768" };
	struct report *r = rep_new();
	double l = 12, h = 768, s = 2048, V = 51200, B = 256;
	double F = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
	double iter_s = F / (16 * 312e12 * 0.44), seqs = 896 + 3812 * 256.0;

	if (formula_run("scenarios/tiny.cfg", ov, 5, 1, r) < 0) {
		tap_ok(0, "tiny run with a batch ramp-up");
		rep_free(r);
		return;
	}
	tap_near(get(r, "iterations"), 4 + 2 + 2 + 3812, 0,
		 "ramp-up: 8 iterations of 64, 128, 192 sequences, then 3812 of 256");
	tap_near(get(r, "tokens"), seqs * s, 0, "tokens = (896 + 3812 x 256) x 2048");
	tap_near(get(r, "duration_s"), seqs / B * iter_s, 1e-9,
		 "formula model: the duration of the sequences at the full batch's rate");
	tap_near(get(r, "goodput"), 1, 1e-9, "a ramp-up is no disruption: goodput 1");
	rep_free(r);
}

/* 175b.cfg: duration = iterations x F / (n X) exactly, and Megatron's
 * 8TP/(nX) within the gap between the FLOPs and parameter brackets
 * (1 + s/6h + V/16lh = 1.03049 vs 1 + 13/12h + (V+s)/12lh = 1.00385,
 * i.e. 2.66%), plus the rounding of tokens up to whole iterations. */
static void test_megatron_estimate(void)
{
	const char *ov[] = { "failures.enabled=false", "training.checkpoint.enabled=false" };
	struct report *r = rep_new();
	double n = 1024, X = 0.44 * 312e12, T = 300e9;
	double l = 96, h = 12288, s = 2048, V = 51200;
	double P = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
	double F = 96 * 1536 * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
	double iters = ceil(T / (1536 * s));
	double estimate_s = 8 * T * P / (n * X);
	double bracket_ratio = (1 + s / (6 * h) + V / (16 * l * h)) /
			       (1 + 13 / (12 * h) + (V + s) / (12 * l * h));

	if (formula_run("scenarios/175b.cfg", ov, 2, 1, r) < 0) {
		tap_ok(0, "175b undisturbed run");
		rep_free(r);
		return;
	}
	tap_near(get(r, "params"), P, 1e-12, "175B parameters by the SC'21 formula");
	tap_near(P / 1e9, 174.6, 0.001, "... = 174.6B (GPT-3 paper)");
	tap_near(get(r, "duration_s"), iters * F / (n * X), 1e-9, "duration = iterations x F/(nX)");
	tap_near(get(r, "duration_s"), estimate_s * bracket_ratio * iters * 1536 * s / T, 1e-9,
		 "duration = 8TP/(nX) x bracket ratio x whole-iteration rounding");
	tap_near(get(r, "duration_s") / estimate_s, 1, 0.03, "within 3% of Megatron's 8TP/(nX)");
	rep_free(r);
}

/* Synchronous checkpoints every k iterations stall training for size/bw. */
static void test_checkpoints(void)
{
	const char *ov[] = { "failures.enabled=false", "training.checkpoint.interval_s=60",
			     "power.gpu_busy_fraction=0.8" };	/* 330 W, as above */
	struct report *r = rep_new();
	double l = 12, h = 768, s = 2048, V = 51200, B = 256;
	double F = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
	double iter_s = F / (16 * 312e12 * 0.44);
	double k = round(60 / iter_s);			/* iterations per interval */
	double n_ckpt = ceil(3815 / k) - 1;		/* none after the last iteration */
	double P = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
	double write_s = P * 14 / 2e9;			/* 14 B/param at 2 GB/s */

	if (formula_run("scenarios/tiny.cfg", ov, 3, 1, r) < 0) {
		tap_ok(0, "tiny run with checkpoints");
		rep_free(r);
		return;
	}
	tap_near(get(r, "checkpoints"), n_ckpt, 0, "checkpoints = ceil(iterations / k) - 1");
	tap_near(get(r, "duration_s"), 3815 * iter_s + n_ckpt * write_s, 1e-9,
		 "duration = training + checkpoints x write time");
	tap_near(get(r, "time_checkpoint_s"), n_ckpt * write_s, 1e-9, "time in checkpoint state");
	tap_near(get(r, "it_energy_kwh"),
		 (((16 * 330 + 2 * HOST_BUSY_W) * 3815 * iter_s +
		   (16 * 50 + 2 * HOST_IDLE_W) * n_ckpt * write_s) / PSU_EFF +
		  FABRIC_W * (3815 * iter_s + n_ckpt * write_s)) / 3.6e6, 1e-9,
		 "energy = busy GPUs and hosts while training + idle ones while writing "
		 "+ fabric");
	rep_free(r);
}

/* Poisson failures: by Wald's identity E[N] = rate x E[duration], so over
 * many seeds sum(N)/sum(duration) estimates the rate; with ~N failures its
 * relative standard error is 1/sqrt(N), and we allow 4 of them. */
static void test_failure_rate(void)
{
	const char *ov[] = { "failures.per_node_per_1000_days=50000", "failures.restart_s=30" };
	double rate_per_s = 2 * 50.0 / 86400.0;	/* 2 nodes x 50 per node-day */
	double sum_n = 0, sum_t = 0, sum_lost = 0;
	int runs = 200, ok = 1;

	for (int seed = 1; seed <= runs && ok; seed++) {
		struct report *r = rep_new();
		ok = formula_run("scenarios/tiny.cfg", ov, 2, (uint64_t)seed, r) == 0;
		sum_n += get(r, "failures");
		sum_t += get(r, "duration_s");
		sum_lost += get(r, "lost_work_s");
		rep_free(r);
	}
	tap_ok(ok, "%d seeded runs with failures", runs);
	tap_diag("failures %.0f over %.0f s: %.4g/s, expected %.4g/s", sum_n, sum_t,
		 sum_n / sum_t, rate_per_s);
	tap_near(sum_n / sum_t, rate_per_s, 4 / sqrt(sum_n), "failures / time = nodes x rate");
	tap_ok(sum_lost > 0, "failures lose work");
}

int main(void)
{
	test_undisturbed_tiny();
	test_rampup();
	test_megatron_estimate();
	test_checkpoints();
	test_failure_rate();
	return tap_done();
}
