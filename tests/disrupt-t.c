/*
 * disrupt-t.c -- checkpoints, failures, GC and the fast path against
 * formulas (Young 1974, Daly 2006, Kokolis et al. 2025; doc/sources.md
 * section 8) and against
 * brute force.
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
#include "models/checkpoint.h"
#include "models/gc.h"
#include "models/run.h"

/* One run's summary figure (NaN on failure). */
static double run1(const char *const *ov, size_t n, uint64_t seed, const char *key,
		   struct report **keep)
{
	struct report *r = rep_new();
	double v = NAN;

	if (formula_run("scenarios/tiny.cfg", ov, n, seed, r) == 0)
		v = rep_summary_get(r, key);
	if (keep)
		*keep = r;
	else
		rep_free(r);
	return v;
}

#define N_OV(a) (sizeof(a) / sizeof((a)[0]))

/* doc/sources.md section 8: Daly's worked values (R = 10 min, delta = 5 min) and Young. */
static void test_daly_formula(void)
{
	double d = 300;
	/* minutes, and half a unit of their last digit */
	struct { double M, daly_min, half, young_min; } w[] = {
		{ 24 * 3600.0, 116.7, 0.05, 120.0 }, { 6 * 3600.0, 56.7, 0.05, 60.0 },
		{ 15 * 60.0, 9.14, 0.005, 12.25 },
	};

	for (size_t i = 0; i < 3; i++) {
		double M = w[i].M, x = d / (2 * M);
		double by_hand = sqrt(2 * d * M) * (1 + sqrt(x) / 3 + x / 9) - d;
		tap_near(ckpt_daly_s(d, M), by_hand, 1e-15, "Daly eq. 37 as written");
		tap_near(ckpt_daly_s(d, M) / 60, w[i].daly_min, w[i].half / w[i].daly_min,
			 "Daly's worked value (doc/sources.md section 8), to its last digit");
		tap_near(ckpt_young_s(d, M) / 60, w[i].young_min, 0.005 / w[i].young_min,
			 "Young sqrt(2 delta M)");
	}
	tap_near(ckpt_daly_s(900, 300), 300, 1e-15, "Daly: delta >= 2M gives tau = M");
}

/*
 * A tiny run made long (T_s ~ 100 h of training) with a job MTTI of 1 h
 * (2 nodes x 12000 per 1000 node-days = 1/h), checkpoint write delta = 60 s
 * (1.7633 GB = 125.95M parameters x 14 B at 0.029388 GB/s), restart R =
 * detect 0 + 50 s + load (the same bytes at 0.175 GB/s).
 */
static const char *const long_run[] = {
	"run.tokens=6.5e11", "failures.per_node_per_1000_days=12000",
	"failures.detect_s=0", "failures.restart_s=50", "failures.spares=10000000",
	"training.checkpoint.write_bw_gbyte_s=0.029388",
	"training.checkpoint.read_bw_gbyte_s=0.175",
	"output.sample_interval_s=1e9", "training.checkpoint.policy=\"iterations\"",
	"training.checkpoint.interval_iters=1",
};
#define LONG_N N_OV(long_run)
#ifndef SEEDS
#define SEEDS 24	/* cc -DSEEDS=200 for a finer sweep */
#endif

/* Mean and standard error of a figure over SEEDS seeds at interval k iterations. */
static void sweep_point(long k, const char *key, double *mean, double *se, double *aux)
{
	const char *ov[LONG_N];
	char buf[64];
	double s = 0, s2 = 0;

	for (size_t i = 0; i < LONG_N; i++)
		ov[i] = long_run[i];
	snprintf(buf, sizeof buf, "training.checkpoint.interval_iters=%ld", k);
	ov[LONG_N - 1] = buf;
	for (int seed = 1; seed <= SEEDS; seed++) {
		struct report *r;
		double v = run1(ov, LONG_N, (uint64_t)seed, key, &r);
		if (aux && seed == 1) {
			aux[0] = rep_summary_get(r, "checkpoint_stall_s");
			aux[1] = rep_summary_get(r, "mtti_s");
			aux[2] = rep_summary_get(r, "iteration_time_s");
			aux[3] = rep_summary_get(r, "iterations");
			aux[4] = rep_summary_get(r, "daly_interval_s");
		}
		rep_free(r);
		s += v;
		s2 += v * v;
	}
	*mean = s / SEEDS;
	*se = sqrt(fmax(0, s2 / SEEDS - *mean * *mean) / (SEEDS - 1));
}

/* Daly's expected wall-clock time, segment by segment (Daly 2006, FGCS
 * 22(3), the complete model with exponential failures): a segment of w
 * seconds of work and checkpoint, restart R, takes M e^{R/M} (e^{w/M} - 1)
 * on average.  Full segments are tau + delta, the last the remaining
 * training without a checkpoint. */
static double daly_expected(double it_s, double iters, long k, double delta, double R,
			    double M)
{
	double segs = floor((iters - 1) / k), last = (iters - segs * k) * it_s;

	return segs * M * exp(R / M) * expm1((k * it_s + delta) / M) +
	       M * exp(R / M) * expm1(last / M);
}

static void test_daly_sweep(void)
{
	double aux[5], mean, se, best = INFINITY, it_s, delta, M, R, daly_s;
	long ks[] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	double f[] = { 0.4, 0.55, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.45, 1.7, 2.1 };
	double means[11];
	int nk = 11, ib = 0, ok = 1;

	sweep_point(1000, "duration_s", &mean, &se, aux);
	delta = aux[0];
	M = aux[1];
	it_s = aux[2];
	daly_s = ckpt_daly_s(delta, M);
	R = 50 + delta * 0.029388 / 0.175;
	tap_near(delta, 60, 1e-4, "checkpoint write = 1.7633 GB / 0.029388 GB/s = 60 s");
	tap_near(M, 3600, 1e-12, "job MTTI = 1 / (2 nodes x 12000 / 1000 node-days) = 1 h");
	tap_near(aux[4], daly_s, 1e-12, "summary daly_interval_s = Daly eq. 37");
	for (int i = 0; i < nk; i++) {
		double se_i;
		ks[i] = lround(f[i] * daly_s / it_s);
		sweep_point(ks[i], "duration_s", &means[i], &se_i, NULL);
		double want = daly_expected(it_s, aux[3], ks[i], delta, R, M);
		ok &= fabs(means[i] - want) <= 4 * se_i;
		tap_diag("tau %7.1f s (%.2f x Daly): mean %.6g s +- %.3g, Daly's model %.6g",
			 ks[i] * it_s, f[i], means[i], se_i, want);
		if (means[i] < best) {
			best = means[i];
			ib = i;
		}
	}
	tap_ok(ok, "mean durations match Daly's complete model M e^{R/M}(e^{(tau+delta)/M}-1) "
	       "T_s/tau within 4 standard errors at every interval");
	/* the minimum of a least-squares parabola in log tau (where the curve
	 * is nearly symmetric) through the points from 0.55 to 1.7 x Daly */
	{
		double S[5] = { 0 }, T[3] = { 0 }, m[3][4], c[3];
		for (int i = 1; i < nk - 1; i++) {
			double x = log(f[i]), y = (means[i] - best) / best, p = 1;
			for (int j = 0; j < 5; j++, p *= x)
				S[j] += p;
			T[0] += y;
			T[1] += x * y;
			T[2] += x * x * y;
		}
		for (int r = 0; r < 3; r++) {
			for (int j = 0; j < 3; j++)
				m[r][j] = S[r + j];
			m[r][3] = T[r];
		}
		for (int r = 0; r < 3; r++)	/* Gauss-Jordan, the matrix is SPD */
			for (int q = 0; q < 3; q++) {
				if (q == r)
					continue;
				double k = m[q][r] / m[r][r];
				for (int j = 0; j < 4; j++)
					m[q][j] -= k * m[r][j];
			}
		for (int r = 0; r < 3; r++)
			c[r] = m[r][3] / m[r][r];
		double tau_min = c[2] > 0 ? exp(-c[1] / (2 * c[2])) * daly_s : NAN;
		tap_diag("simulated optimum %.1f s (best grid point %.2f x), Daly %.1f s: ratio %.3f",
			 tau_min, f[ib], daly_s, tau_min / daly_s);
		tap_near(tau_min / daly_s, 1, 0.10, "sweep minimum within 10%% of Daly's optimum");
	}
}

/* Mean lost work per failure = E[X | X < L] = M - L/(e^{L/M} - 1) for
 * exponential failures and a segment L = tau + delta, ~ L/2 - L^2/12M
 * (Daly 2006; doc/sources.md section 8); failures during restarts lose nothing more and are
 * left out (interrupted_restarts). */
static void test_lost_work(void)
{
	const char *ov[LONG_N];
	double lost = 0, n = 0, sq = 0, L, M = 3600, per, want, sd;
	long k;
	double it_s = run1(long_run, LONG_N, 1, "iteration_time_s", NULL);

	for (size_t i = 0; i < LONG_N; i++)
		ov[i] = long_run[i];
	k = lround(600 / it_s);
	char buf[64];
	snprintf(buf, sizeof buf, "training.checkpoint.interval_iters=%ld", k);
	ov[LONG_N - 1] = buf;
	for (int seed = 1; seed <= SEEDS; seed++) {
		struct report *r;
		run1(ov, LONG_N, (uint64_t)seed, "failures", &r);
		double nf = rep_summary_get(r, "failures") -
			    rep_summary_get(r, "interrupted_restarts");
		lost += rep_summary_get(r, "lost_work_s");
		n += nf;
		rep_free(r);
	}
	L = k * it_s + 60;
	per = lost / n;
	want = M - L / expm1(L / M);
	/* sd of X | X < L: ~ L / sqrt(12) (near-uniform); computed exactly */
	sq = 2 * M * M - (L * L + 2 * M * L) / expm1(L / M);	/* E[X^2 | X < L] */
	sd = sqrt(sq - want * want);
	tap_diag("lost per failure %.2f s over %.0f failures; exact %.2f, (tau+delta)/2 = %.2f, "
		 "band %.2f", per, n, want, L / 2, 4 * sd / sqrt(n));
	tap_ok(fabs(per - want) <= 4 * sd / sqrt(n),
	       "mean lost work per failure = M - L/(e^{L/M}-1) within 4 standard errors");
	tap_near(per, L / 2, 0.05, "... and within 5%% of (tau + delta)/2");
}

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

/* The fast path and one event per iteration give the same run. */
static void test_full_fidelity(void)
{
	const char *modes[] = { "training.checkpoint.mode=\"sync\"",
				"training.checkpoint.mode=\"async\"" };

	for (int m = 0; m < 2; m++) {
		const char *ov[] = { "failures.per_node_per_1000_days=200000",
				     "training.checkpoint.interval_s=120", "gc.mode=\"manual\"",
				     "gc.every_iters=7", "failures.restart_s=20", "failures.spares=10000000",
				     "training.checkpoint.write_bw_gbyte_s=0.1", modes[m],
				     "run.full_fidelity=false" };
		size_t nov = sizeof ov / sizeof ov[0];
		const char *keys[] = { "duration_s", "lost_work_s", "time_gc_s",
				       "time_redo_s", "checkpoints", "failures", "tokens" };
		struct report *a, *b;
		int same = 1;

		run1(ov, nov, 3, "duration_s", &a);
		ov[nov - 1] = "run.full_fidelity=true";
		run1(ov, nov, 3, "duration_s", &b);
		for (size_t k = 0; k < 7; k++) {
			double x = rep_summary_get(a, keys[k]), y = rep_summary_get(b, keys[k]);
			if (!(fabs(x - y) <= 1e-9 * fabs(x))) {
				same = 0;
				tap_diag("%s: fast %.15g, full %.15g", keys[k], x, y);
			}
		}
		tap_ok(rep_summary_get(a, "failures") > 3 && rep_summary_get(a, "checkpoints") > 3,
		       "%s: the run has failures and checkpoints", m ? "async" : "sync");
		tap_ok(same, "%s: full fidelity equals the fast path to 1e-9 (duration, lost "
		       "work, GC, redo, counts)", m ? "async" : "sync");
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

/* Young and Daly policies pick their formula's interval. */
static void test_policies(void)
{
	const char *y[] = { "training.checkpoint.policy=\"young\"" };
	const char *d[] = { "training.checkpoint.policy=\"daly\"" };
	struct report *r;
	double it_s, delta, M;

	run1(y, 1, 1, "duration_s", &r);
	it_s = rep_summary_get(r, "iteration_time_s");
	delta = rep_summary_get(r, "checkpoint_stall_s");
	M = rep_summary_get(r, "mtti_s");
	tap_near(M, 1000 * 86400 / (2 * 6.5), 1e-12, "tiny: MTTI = 1 / (2 nodes x 6.5 / 1000 d)");
	tap_near(rep_summary_get(r, "checkpoint_interval_iters"),
		 round(sqrt(2 * delta * M) / it_s), 0, "young: sqrt(2 delta M) in iterations");
	rep_free(r);
	run1(d, 1, 1, "duration_s", &r);
	tap_near(rep_summary_get(r, "checkpoint_interval_iters"),
		 round(ckpt_daly_s(delta, M) / it_s), 0, "daly: eq. 37 in iterations");
	rep_free(r);
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

/* Storage tier: write = latency + size / min(nodes x per-node, tier cap,
 * write_bw_gbyte_s); async stalls for the snapshot (shard / 25 GB/s) plus
 * the drain's interference (each of the 2 nodes drains 0.8 / 2 GB/s through
 * 8 HDR NICs at 25 GB/s x 0.97: a share k = 0.4 / 194 of its bandwidth,
 * for W), and a checkpoint due while the previous drains waits for it:
 * with a drain W longer than the interval tau, every checkpoint after the
 * first stalls snapshot + k W + W - tau. */
static void test_storage_async(void)
{
	double l = 12, h = 768, s = 2048, V = 51200;
	double P = 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
	double size = P * 14, W = 3 + size / 0.8e9, snap = size / 16 / 25e9;
	double k = 0.4e9 / (8 * 25e9 * 0.97), stall = snap + k * W;
	const char *tier[] = { "storage_types.t.write_bw_per_node_gbyte_s=0.5",
			       "storage_types.t.read_bw_per_node_gbyte_s=1",
			       "storage_types.t.write_bw_max_gbyte_s=0.8",
			       "storage_types.t.latency_s=3", "training.checkpoint.storage=\"t\"",
			       "failures.enabled=false", "training.checkpoint.mode=\"sync\"",
			       "training.checkpoint.policy=\"iterations\"",
			       "training.checkpoint.interval_iters=10" };
	struct report *r;
	double it_s, n, tau;

	run1(tier, 9, 1, "duration_s", &r);
	tap_near(rep_summary_get(r, "checkpoint_stall_s"), W, 1e-12,
		 "sync write = 3 s + size / min(2 x 0.5, 0.8, 2) GB/s");
	rep_free(r);
	tier[6] = "training.checkpoint.mode=\"async\"";
	run1(tier, 9, 1, "duration_s", &r);
	it_s = rep_summary_get(r, "iteration_time_s");
	tau = 10 * it_s;
	n = ceil(3815 / 10.0) - 1;
	tap_ok(W > tau, "drain %.2f s longer than the interval %.2f s", W, tau);
	tap_near(rep_summary_get(r, "checkpoint_stall_s"), stall, 1e-12,
		 "async stall = shard / 25 GB/s + drain share x write");
	tap_near(rep_summary_get(r, "time_checkpoint_s"), n * stall + (n - 1) * (W - tau), 1e-9,
		 "async: each later checkpoint waits for the previous drain");
	double bytes = rep_summary_get(r, "checkpoint_bytes_written");
	tap_ok(bytes >= (n - 1) * size * (1 - 1e-12) && bytes <= n * size * (1 + 1e-12),
	       "bytes written: the drains done, and part of the last (%.4g of %g checkpoints)",
	       bytes / size, n);
	rep_free(r);
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
	test_storage_async();
	test_failure_trace();
	test_weibull_rate();
	test_daly_formula();
	test_policies();
	test_gc_max();
	test_gc_run();
	test_full_fidelity();
	test_events_flat();
	test_lost_work();
	test_daly_sweep();
	return tap_done();
}
