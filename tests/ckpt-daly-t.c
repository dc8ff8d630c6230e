/*
 * ckpt-daly-t.c -- checkpoint intervals and their cost in the run against
 * Young (1974) and Daly (2006, FGCS 22(3)): the formulas at Daly's worked
 * values, the policies' intervals, the storage tier's sync and async
 * writes, and a long run with failures whose mean duration and lost work
 * match Daly's complete model (doc/sources.md section 8).
 *
 * The statistical tests use common random numbers (the same seeds for every
 * interval compared: failure times depend only on the seed), and bands of
 * 4 standard errors, so a correct model fails them with odds below 1e-4.
 */
#include <math.h>
#include <stdio.h>

#include "tap.h"
#include "formula-run.h"
#include "sim/report.h"
#include "models/checkpoint.h"

/* One figure of a formula run of the tiny scenario (formula-run.h). */
static double run1(const char *const *ov, size_t n, uint64_t seed, const char *key,
		   struct report **keep)
{
	return formula_figure("scenarios/tiny.cfg", ov, n, seed, key, keep);
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
		tap_near(tau_min / daly_s, 1, 0.10, "sweep minimum within 10% of Daly's optimum");
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
	tap_near(per, L / 2, 0.05, "... and within 5% of (tau + delta)/2");
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

int main(void)
{
	test_daly_formula();
	test_policies();
	test_storage_async();
	test_lost_work();
	test_daly_sweep();
	return tap_done();
}
