/*
 * disrupt-t.c -- failures, spot preemptions, GC and the fast path against
 * formulas (Kokolis et al. 2025, the renewal theorem; doc/sources.md
 * section 8) and against brute force.  Checkpoint intervals against Young
 * and Daly are in ckpt-daly-t.c.
 *
 * The statistical tests use common random numbers (the same seeds for every
 * setting compared: failure times depend only on the seed), and bands of
 * 4 standard errors, so a correct model fails them with odds below 1e-4.
 */
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "tap.h"
#include "formula-run.h"
#include "sim/cfg.h"
#include "sim/report.h"
#include "models/evaluation.h"
#include "models/gc.h"
#include "models/run.h"

/* One figure of a formula run of the tiny scenario (formula-run.h). */
static double run1(const char *const *ov, size_t n, uint64_t seed, const char *key,
		   struct report **keep)
{
	return formula_figure("scenarios/tiny.cfg", ov, n, seed, key, keep);
}

#define N_OV(a) (sizeof(a) / sizeof((a)[0]))

/* GC: E[max] against brute force, by rank count. */
static void test_gc_max(void)
{
	struct gc g = { GC_AUTO, 10.0, 1.3, false, 0 };
	gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
	long ranks[] = { 1, 8, 64, 512 };
	double step = 2.0, prev = 0;
	int grows = 1;

	gsl_rng_set(rng, 7);
	tap_near(gc_expected_max_s(&g, step, 1), 1.3 * step / 10, 1e-12,
		 "one rank: E[pause] = pause x step / interval");
	for (int pe = 0; pe < 2; pe++) {
		g.pause_exponential = pe;
		for (size_t i = 0; i < 4; i++) {
			double exact = gc_expected_max_s(&g, step, ranks[i]), s = 0, s2 = 0;
			int trials = 20000;
			for (int t = 0; t < trials; t++) {
				double mx = 0;
				for (long rk = 0; rk < ranks[i]; rk++) {
					unsigned k = gsl_ran_poisson(rng, step / g.interval_s);
					double tot = 0;
					for (unsigned j = 0; j < k; j++)
						tot += pe ? gsl_ran_exponential(rng, g.pause_s) : g.pause_s;
					if (tot > mx)
						mx = tot;
				}
				s += mx;
				s2 += mx * mx;
			}
			double m = s / trials, se = sqrt((s2 / trials - m * m) / trials);
			tap_ok(fabs(exact - m) <= 4 * se + 1e-12, "%s pauses, %ld ranks: E[max] %.4f s "
			       "= sampled %.4f +- %.4f", pe ? "exponential" : "fixed", ranks[i],
			       exact, m, se);
			if (!pe) {
				grows &= exact > prev;
				prev = exact;
			}
		}
	}
	tap_ok(grows, "the expected maximum grows with the rank count");
	gsl_rng_free(rng);
}

/* GC in the run: auto slowdown = E[max] over the job's ranks, growing with
 * GPUs; manual adds pause / every to every iteration, whatever the GPUs. */
static void test_gc_run(void)
{
	const char *gpus[] = { "cluster.gpus=16", "cluster.gpus=64", "cluster.gpus=256" };
	long n[] = { 16, 64, 256 };
	double prev = 0;
	int grows = 1;

	for (int i = 0; i < 3; i++) {
		const char *ov[] = { gpus[i], "parallel.global_batch=1024", "gc.mode=\"auto\"",
				     "gc.interval_s=60", "failures.enabled=false" };
		const char *off[] = { gpus[i], "parallel.global_batch=1024",
				      "failures.enabled=false" };
		const char *man[] = { gpus[i], "parallel.global_batch=1024",
				      "gc.mode=\"manual\"", "gc.every_iters=50",
				      "failures.enabled=false" };
		double base = run1(off, 3, 1, "iteration_time_s", NULL);
		double it = run1(ov, 5, 1, "iteration_time_s", NULL);
		double im = run1(man, 5, 1, "iteration_time_s", NULL);
		struct gc g = { GC_AUTO, 60, 1.3, false, 0 };
		double slow = (it - base) / base;
		tap_near(it - base, gc_expected_max_s(&g, base, n[i]), 1e-9,
			 "auto: iteration gains E[max over ranks]");
		tap_near(im - base, 1.3 / 50, 1e-9, "manual: iteration gains pause / every_iters");
		tap_diag("%ld GPUs: auto slowdown %.4f%%, manual %.4f%%", n[i], 100 * slow,
			 100 * (im - base) / base);
		grows &= slow > prev;
		prev = slow;
	}
	tap_ok(grows, "auto GC slowdown grows with rank count");
}

/* Evaluation (evaluation.h) in the formula model, by hand: the formula's
 * iteration has no pipeline, so a forward-only batch takes the iteration's
 * time x the forward's share of its FLOPs; tiny.cfg recomputes fully, so
 * that share is 1/4 for the layers and 1/3 for the logits, which are not
 * recomputed: between 1/4 and 1/3.  The evaluations counted are the
 * multiples of the interval the run reached; with GC on as well, each
 * keeps its own pauses. */
static void test_eval_run(void)
{
	const char *off[] = { "failures.enabled=false", "training.checkpoint.enabled=false" };
	const char *on[] = { "failures.enabled=false", "training.checkpoint.enabled=false",
			     "training.eval_interval_iters=50", "training.eval_iters=10" };
	const char *both[] = { "failures.enabled=false", "training.checkpoint.enabled=false",
			       "training.eval_interval_iters=50", "training.eval_iters=10",
			       "gc.mode=\"manual\"", "gc.every_iters=7" };
	struct report *a, *b, *c;

	run1(off, N_OV(off), 1, "duration_s", &a);
	run1(on, N_OV(on), 1, "duration_s", &b);
	run1(both, N_OV(both), 1, "duration_s", &c);
	double iters = rep_summary_get(b, "iterations"), it = rep_summary_get(b, "iteration_time_s");
	double evals = floor(iters / 50), ev = rep_summary_get(b, "time_eval_s");
	double share = ev / (evals * 10 * it);

	/* a batch by hand: critical path 8 + 1 + 1 s over 10 microbatches,
	 * a quarter of it forward, 10 + 1.5 slots (4 stages of 2 chunks:
	 * (4 - 1) / 2) = 2.875 s */
	struct step_result st = { 0 };
	st.compute_s = 8;
	st.tp_exposed_s = st.pp_exposed_s = 1;
	tap_near(evl_batch_s(&st, 0, 4, 1, 10, 1.5), 2.875, 1e-12,
		 "a forward-only batch: 1 s x 1/4 x (10 + 1.5) slots = 2.875 s");
	tap_ok(evals >= 2, "the run reaches %g evaluations", evals);
	tap_near(rep_summary_get(b, "duration_s") - rep_summary_get(a, "duration_s"), ev, 1e-9,
		 "the run lengthens by time_eval_s");
	tap_ok(share > 0.25 && share < 1.0 / 3, "an evaluation batch is %.4f of an iteration: "
	       "the forward's share, between 1/4 and 1/3", share);
	tap_near(rep_summary_get(c, "time_eval_s"), ev, 1e-9, "with manual GC too: the same "
		 "evaluation time");
	tap_near(rep_summary_get(c, "time_gc_s"), floor(iters / 7) * 1.3, 1e-9,
		 "... and GC keeps its own: one 1.3 s pause every 7 iterations");
	tap_near(rep_summary_get(c, "duration_s") - rep_summary_get(a, "duration_s"),
		 rep_summary_get(c, "time_eval_s") + rep_summary_get(c, "time_gc_s"), 1e-9,
		 "... and the run lengthens by both");
	rep_free(a);
	rep_free(b);
	rep_free(c);
}

/* The fast path and one event per iteration give the same run; the third
 * case with a batch ramp-up of 64 64 76800 (phases of 400, 200 and 134
 * iterations of 64, 128 and 192 sequences, which failures, checkpoints and
 * redo cross). */
static void test_full_fidelity(void)
{
	const char *modes[] = { "training.checkpoint.mode=\"sync\"",
				"training.checkpoint.mode=\"async\"",
				"training.checkpoint.mode=\"sync\"" };
	const char *const names[] = { "sync", "async", "sync with a batch ramp-up" };

	for (int m = 0; m < 3; m++) {
		const char *ov[] = { "failures.per_node_per_1000_days=200000",
				     "training.checkpoint.interval_s=120", "gc.mode=\"manual\"",
				     "gc.every_iters=7", "failures.restart_s=20", "failures.spares=10000000",
				     "training.eval_interval_iters=9", "training.eval_iters=2",
				     "training.checkpoint.write_bw_gbyte_s=0.1", modes[m],
				     "parallel.rampup_start_batch=64", "parallel.rampup_increment=64",
				     "parallel.rampup_samples=76800", "run.full_fidelity=false" };
		size_t nov = sizeof ov / sizeof ov[0];

		if (m < 2) {	/* no ramp-up: drop its three settings */
			ov[nov - 4] = ov[nov - 1];
			nov -= 3;
		}
		const char *keys[] = { "duration_s", "lost_work_s", "time_gc_s", "time_eval_s",
				       "time_redo_s", "checkpoints", "failures", "tokens" };
		struct report *a, *b;
		int same = 1;

		run1(ov, nov, 3, "duration_s", &a);
		ov[nov - 1] = "run.full_fidelity=true";
		run1(ov, nov, 3, "duration_s", &b);
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			double x = rep_summary_get(a, keys[k]), y = rep_summary_get(b, keys[k]);
			if (!(fabs(x - y) <= 1e-9 * fabs(x))) {
				same = 0;
				tap_diag("%s: fast %.15g, full %.15g", keys[k], x, y);
			}
		}
		tap_ok(rep_summary_get(a, "failures") > 3 && rep_summary_get(a, "checkpoints") > 3,
		       "%s: the run has failures and checkpoints", names[m]);
		tap_ok(same, "%s: full fidelity equals the fast path to 1e-9 (duration, lost "
		       "work, GC, evaluation, redo, counts)", names[m]);
		tap_ok(rep_summary_get(b, "events") > 10 * rep_summary_get(a, "events"),
		       "... with an event per iteration (%g vs %g events)",
		       rep_summary_get(b, "events"), rep_summary_get(a, "events"));
		rep_free(a);
		rep_free(b);
	}
}

/* Events do not grow with iterations: doubling the tokens adds only the
 * checkpoints' events (segment end + checkpoint end each). */
static void test_events_flat(void)
{
	const char *a[] = { "failures.enabled=false", "output.sample_interval_s=1e9",
			    "run.tokens=2e10" };
	const char *b[] = { "failures.enabled=false", "output.sample_interval_s=1e9",
			    "run.tokens=4e10" };
	double ea = run1(a, 3, 1, "events", NULL), eb = run1(b, 3, 1, "events", NULL);
	double ca = run1(a, 3, 1, "checkpoints", NULL), cb = run1(b, 3, 1, "checkpoints", NULL);
	const char *c[] = { "failures.enabled=false", "output.sample_interval_s=1e9",
			    "run.tokens=2e10", "training.checkpoint.enabled=false" };
	const char *d[] = { "failures.enabled=false", "output.sample_interval_s=1e9",
			    "run.tokens=4e10", "training.checkpoint.enabled=false" };

	tap_ok(cb > ca, "twice the tokens, more checkpoints (%g, %g)", ca, cb);
	tap_int((long long)(eb - ea), (long long)(2 * (cb - ca)),
		"events added = 2 x checkpoints added");
	tap_int((long long)run1(c, 4, 1, "events", NULL), (long long)run1(d, 4, 1, "events", NULL),
		"no checkpoints: the same event count for 2e10 and 4e10 tokens");
}

/* A failure trace with one NIC failure at 300 s, before the first
 * checkpoint: it loses exactly 300 s of training and adds detection (60 s),
 * restart (540 s) and the load of the checkpoint (bytes / 200 GB/s). */
static void test_failure_trace(void)
{
	const char *off[] = { "failures.enabled=false" };
	const char *tr[] = { "failures.trace=\"traces/failures-example.csv\"" };
	double l = 12, h = 768, s = 2048, V = 51200;
	double P = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
	double load_s = P * 14 / 200e9;
	double d0 = run1(off, 1, 1, "duration_s", NULL);
	struct report *r;

	run1(tr, 1, 1, "duration_s", &r);
	tap_int((long long)rep_summary_get(r, "failures"), 1, "trace: one failure");
	tap_int((long long)rep_summary_get(r, "failures_nic"), 1, "... of kind nic");
	tap_near(rep_summary_get(r, "lost_work_s"), 300, 1e-9, "... losing the 300 s before it");
	tap_near(rep_summary_get(r, "duration_s"), d0 + 300 + 60 + 540 + load_s, 1e-9,
		 "duration = undisturbed + lost 300 s + detect 60 s + restart 540 s + load");
	tap_ok(fabs(rep_summary_get(r, "time_redo_s") - 300) < rep_summary_get(r, "iteration_time_s"),
	       "redo time = the work lost, but the partial iteration (%.4f s)",
	       rep_summary_get(r, "time_redo_s"));
	rep_free(r);
}

/* Weibull gaps (k = 0.7) keep the configured rate: by the renewal theorem
 * failures / time -> 1 / mean gap.  Count variance per failure is the gaps'
 * squared CV, Gamma(1+2/k)/Gamma(1+1/k)^2 - 1 = 2.2 for k = 0.7.  (Each run
 * starts a fresh renewal, whose early hazard is higher for k < 1: a few
 * percent more failures in runs of ~50 mean gaps, inside the band.) */
static void test_weibull_rate(void)
{
	const char *ov[] = { "failures.per_node_per_1000_days=100000", "failures.restart_s=30",
			     "failures.distribution=\"weibull\"", "failures.weibull_shape=0.7",
			     "failures.spares=10000000", "run.tokens=2e10" };
	double n = 0, t = 0, rate = 2 * 100.0 / 86400.0;

	for (int seed = 1; seed <= 40; seed++) {
		struct report *r;
		run1(ov, 6, (uint64_t)seed, "failures", &r);
		n += rep_summary_get(r, "failures");
		t += rep_summary_get(r, "duration_s");
		rep_free(r);
	}
	tap_diag("Weibull k 0.7: %.0f failures in %.0f s: %.4g/s, want %.4g/s", n, t, n / t, rate);
	tap_near(n / t, rate, 4 * sqrt(2.2 * n) / n, "Weibull failures keep the mean rate "
		 "(4 standard errors)");
}

/* Spot rate model: a held node not yet warned is preempted at r per hour,
 * so E[N] = r x (held node-hours - node-hours under notice), the latter N x
 * notice_s (each preemption is announced notice_s before).  AWS bands: the
 * midpoint share per 730 h month (gt20: 25%). */
static void test_spot_rate(void)
{
	const char *ov[] = { "pools.s.class=\"spot\"", "pools.s.nodes=2",
			     "pools.s.preemption_per_node_hour=2", "pools.s.replacement_s=60",
			     "failures.enabled=false", "spot.policy=\"elastic\"",
			     "run.tokens=1e10" };
	const char *band[] = { "pools.s.class=\"spot\"", "pools.s.nodes=2",
			       "pools.s.interruption_band=\"gt20\"", "failures.enabled=false" };
	double n = 0, h = 0;

	for (int seed = 1; seed <= 30; seed++) {
		struct report *r;
		run1(ov, 7, (uint64_t)seed, "preemptions", &r);
		n += rep_summary_get(r, "preemptions");
		h += rep_summary_get(r, "gpu_hours") / 8;
		rep_free(r);
	}
	double want = 2 * (h - n * 120 / 3600.0);
	tap_diag("spot: %.0f preemptions in %.1f node-hours; expected %.1f", n, h, want);
	tap_ok(fabs(n - want) <= 4 * sqrt(want), "preemptions = rate x node-hours not under "
	       "notice, within 4 standard errors");
	tap_near(run1(band, 4, 1, "mtti_s", NULL), 1 / (2 * 0.25 / 730 / 3600), 1e-12,
		 "band gt20: MTTI = 1 / (2 nodes x 25% per 730 h)");
}

/* Elastic with spot.batch = shrink: fewer replicas run smaller batches at
 * the full cluster's iteration time, so the run needs more iterations for
 * its tokens; with keep, iterations are slower and as many. */
static void test_elastic_batch(void)
{
	const char *ov[] = { "cluster.gpus=128", "run.tokens=2e11", "failures.enabled=false",
			     "pools.spot.class=\"spot\"", "pools.spot.nodes=16",
			     "pools.spot.capacity_trace=\"traces/skypilot-16node-us-east-2b.json\"",
			     "spot.policy=\"elastic\"", "spot.batch=\"keep\"" };
	struct report *k, *sh;
	double need = ceil(2e11 / (256 * 2048.0));

	run1(ov, 8, 1, "duration_s", &k);
	ov[7] = "spot.batch=\"shrink\"";
	run1(ov, 8, 1, "duration_s", &sh);
	tap_ok(rep_summary_get(k, "dp_min") < 32 && rep_summary_get(k, "resizes") > 0,
	       "the trace shrinks the job (dp down to %g of 32)", rep_summary_get(k, "dp_min"));
	tap_near(rep_summary_get(k, "iterations"), need, 0, "keep: the undisturbed iteration count");
	tap_ok(rep_summary_get(sh, "iterations") > need && rep_summary_get(sh, "completed") == 1,
	       "shrink: more, smaller iterations (%g) for the same tokens",
	       rep_summary_get(sh, "iterations"));
	tap_ok(rep_summary_get(sh, "tokens") >= need * 256 * 2048 &&
	       rep_summary_get(sh, "tokens") < need * 256 * 2048 + 256 * 2048,
	       "shrink: tokens reach the target, overshooting by less than a batch");
	rep_free(k);
	rep_free(sh);
}

/* Checkpoint on notice: one spot node of two drops at 2000 s (trace
 * tests/traces/one-drop.json, 1000-s ticks 2,2,1,2), announced 120 s
 * before.  The sync write (0.88 s) fits: only the partial iteration is
 * lost.  Without it the job loses what it trained since the last checkpoint
 * completed: 2000 - n (k it + write), n = floor(2000 / (k it + write)). */
static void test_notice_checkpoint(void)
{
	const char *ov[] = { "pools.s.class=\"spot\"", "pools.s.nodes=2",
			     "pools.s.capacity_trace=\"../tests/traces/one-drop.json\"",
			     "pools.s.capacity_loop=false", "failures.enabled=false",
			     "run.tokens=1e10", "training.checkpoint.on_notice=true" };
	struct report *on, *off;
	double it_s, k, write_s, cycle, lost;

	run1(ov, 7, 1, "duration_s", &on);
	ov[6] = "training.checkpoint.on_notice=false";
	run1(ov, 7, 1, "duration_s", &off);
	it_s = rep_summary_get(on, "iteration_time_s");
	k = rep_summary_get(on, "checkpoint_interval_iters");
	write_s = rep_summary_get(on, "checkpoint_stall_s");
	cycle = k * it_s + write_s;
	lost = 2000 - floor(2000 / cycle) * cycle;
	tap_int((long long)rep_summary_get(on, "preemptions"), 1, "one preemption");
	tap_int((long long)rep_summary_get(on, "notice_checkpoints"), 1, "one notice checkpoint");
	tap_ok(rep_summary_get(on, "lost_work_s") < it_s, "on notice: only the partial "
	       "iteration is lost (%.4f s)", rep_summary_get(on, "lost_work_s"));
	tap_near(rep_summary_get(off, "lost_work_s"), lost, 1e-9,
		 "without: the work since the last checkpoint is lost");
	tap_ok(rep_summary_get(on, "duration_s") < rep_summary_get(off, "duration_s"),
	       "checkpoint on notice shortens the run");
	rep_free(on);
	rep_free(off);
}

int main(void)
{
	test_notice_checkpoint();
	test_elastic_batch();
	test_spot_rate();
	test_failure_trace();
	test_weibull_rate();
	test_gc_max();
	test_gc_run();
	test_eval_run();
	test_full_fidelity();
	test_events_flat();
	return tap_done();
}
