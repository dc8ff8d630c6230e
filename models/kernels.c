/* kernels.c -- see kernels.h. */
#include <math.h>
#include <stddef.h>

#include "models/kernels.h"

const char *const kern_stream_names[KS_COUNT] = {
	"copy", "layernorm", "gelu", "add", "dropout_add", "softmax", "adam"
};

/* Tile shapes cuBLAS picks among on Hopper/Ampere (CUTLASS's common
 * threadblock tiles) and the K splits it tries for small outputs. */
static const double tiles[][2] = {
	{ 128, 256 }, { 256, 128 }, { 128, 128 }, { 64, 256 }, { 256, 64 },
	{ 64, 128 }, { 128, 64 },
};
static const double splits[] = { 1, 2, 4 };
#define N_TILES (sizeof tiles / sizeof tiles[0])
#define N_SPLITS (sizeof splits / sizeof splits[0])
#define ACT_BYTES 2.0
#define PARTIAL_BYTES 4.0	/* fp32 partial sums of a split K */
#define NEAR_LN 0.6931471805599453	/* residuals reach a factor of 2 */

double kern_gemm_law_s(const struct kern_gpu *k, const struct kern_gemm_law *law,
		       double batch, double M, double N, double K)
{
	double sms = k->sms, roof = k->hbm_Bps * k->stream_frac[KS_COPY];
	double best = INFINITY;

	for (size_t i = 0; i < N_TILES; i++) {
		double tm = tiles[i][0], tn = tiles[i][1];
		double out_tiles = ceil(M / tm) * ceil(N / tn) * batch;
		for (size_t j = 0; j < N_SPLITS; j++) {
			double sk = splits[j], n = out_tiles * sk;
			double waves = n / sms > 1 ? n / sms : 1;
			double t = waves * (2.0 * tm * tn * ceil(K / sk) / law->sm_flops +
					    law->wave_s);
			if (sk > 1)	/* partials written, then read and summed */
				t += 2.0 * PARTIAL_BYTES * M * N * sk * batch / roof;
			if (t < best)
				best = t;
		}
	}
	double mem = ACT_BYTES * (M * K + K * N + M * N) * batch / roof;
	return (best > mem ? best : mem) + law->launch_s;
}

/* Modified Shepard interpolation of the residual ln r over points within
 * NEAR_LN (Euclidean, in log coordinates): exact at a point, zero beyond
 * the radius.  x[d][i] are the points' coordinates, q the query's. */
static double residual(int n, int dims, const double *const *x, const double *lnr,
		       const double *q)
{
	double wsum = 1.0 / (NEAR_LN * NEAR_LN), acc = 0, hit = 0;
	int hits = 0;

	for (int i = 0; i < n; i++) {
		double d2 = 0;
		for (int d = 0; d < dims; d++) {
			double dx = log(x[d][i]) - q[d];
			d2 += dx * dx;
		}
		if (d2 < 1e-18) {	/* a measured shape (the mean if measured twice) */
			hit += lnr[i];
			hits++;
			continue;
		}
		if (d2 >= NEAR_LN * NEAR_LN)
			continue;
		double w = 1.0 / d2 - 1.0 / (NEAR_LN * NEAR_LN);
		wsum += w;
		acc += w * lnr[i];
	}
	return hits ? hit / hits : acc / wsum;
}

/* ln(measured / law) of table r at a shape: 0 far from its rows. */
static double gemm_residual(const struct kern_gemm_rows *r, double M, double N, double K)
{
	const double *x[3] = { r->m, r->nn, r->k };
	double q[3] = { log(M), log(N), log(K) };

	return r->n > 0 ? residual(r->n, 3, x, r->lnr, q) : 0;
}

double kern_gemm_s(const struct kern_gpu *k, bool fp8, double batch,
		   double M, double N, double K)
{
	double t = kern_gemm_law_s(k, fp8 ? &k->fp8 : &k->bf16, batch, M, N, K);

	if (batch != 1)		/* the tables hold single GEMMs */
		return t;
	double lnr = gemm_residual(&k->gemm_bf16, M, N, K);
	if (fp8)		/* the shape's, then FP8's own (kernels.h) */
		lnr += gemm_residual(&k->gemm_fp8, M, N, K);
	return t * exp(lnr);
}

void kern_fp8_rows_on_bf16(const struct kern_gpu *k, const struct kern_gemm_rows *rows,
			   struct kern_gemm_rows *out)
{
	*out = *rows;
	for (int i = 0; i < rows->n; i++)
		out->s[i] = rows->s[i] /
			    exp(gemm_residual(&k->gemm_bf16, rows->m[i], rows->nn[i], rows->k[i]));
}

/* Block pairs a head's causal kernel visits: query block i reads key
 * blocks 0..i, or with a window of w tokens only the wb = ceil(w/128)
 * blocks before it and its own (those holding keys within w). */
static double attn_pairs(double seq, double window)
{
	double nb = ceil(seq / KERN_BLOCK), wb = ceil(window / KERN_BLOCK);

	if (window <= 0 || nb <= wb + 1)
		return nb * (nb + 1) / 2;
	return (wb + 1) * (wb + 2) / 2 + (nb - wb - 1) * (wb + 1);
}

double kern_attn_fwd_flops(double bh, double seq, double d, double window)
{
	return bh * attn_pairs(seq, window) * 4.0 * KERN_BLOCK * KERN_BLOCK * d;
}

/*
 * The work the busiest SM does, as (FLOPs the whole GPU is held for, tiles
 * on that SM).  Fluid: the causal work spread evenly, bh x nb / sms tiles
 * an SM.  In waves (a->waves): the kernel's tiles (a query block of a
 * head forward, a key block backward: the same lengths, 1..nb key blocks,
 * or up to the window's) go out longest first, one an SM, SM j taking
 * tiles j, j + sms, ...: the SM that takes the first tile of every wave
 * takes its longest, and the kernel ends when that SM does.  So the time
 * is the sum over waves of each wave's longest tile, as if every SM were
 * busy that long.  With few heads a wave spans many lengths: 8 heads of
 * 2k tokens are 128 tiles, one wave, lasting the longest tile (16 blocks)
 * where the fluid count gives the mean (8.2 on 132 SMs).  Summed over the
 * query blocks, not the waves: block i's bh tiles stand at positions
 * [start, start + bh) of the longest-first order, and every wave that
 * starts there lasts block i's length.
 */
static void attn_work(const struct kern_gpu *k, const struct kern_attn_law *a, double bh,
		      double seq, double d, double window, double *flops, double *tiles)
{
	double nb = ceil(seq / KERN_BLOCK), sms = k->sms;

	if (!a->waves || bh < 1) {
		*flops = kern_attn_fwd_flops(bh, seq, d, window);
		*tiles = bh * nb / sms;
		return;
	}
	double wb = window > 0 ? ceil(window / KERN_BLOCK) : nb, pairs = 0;
	for (double i = nb - 1; i >= 0; i--) {
		double start = (nb - 1 - i) * bh;
		double waves = ceil((start + bh) / sms) - ceil(start / sms);
		pairs += waves * (fmin(i, wb) + 1);
	}
	*flops = pairs * sms * 4.0 * KERN_BLOCK * KERN_BLOCK * d;
	*tiles = ceil(bh * nb / sms);
}

/* The same for a full block: bh heads of q queries, each attending to all
 * kv keys (no mask), so every tile is nk key blocks long and a wave lasts
 * one tile. */
static double block_tile_flops(double kv, double d)
{
	return ceil(kv / KERN_BLOCK) * 4.0 * KERN_BLOCK * KERN_BLOCK * d;
}

static void block_work(const struct kern_gpu *k, const struct kern_attn_law *a, double bh,
		       double q, double kv, double d, double *flops, double *tiles)
{
	double n = bh * ceil(q / KERN_BLOCK), sms = k->sms, tile = block_tile_flops(kv, d);

	*tiles = a->waves ? ceil(n / sms) : n / sms;
	*flops = a->waves ? *tiles * sms * tile : n * tile;
}

static double law_s(const struct kern_attn_law *a, bool bwd, double f, double blocks)
{
	if (bwd)
		return 2.5 * f / a->bwd_flops + blocks * a->bwd_block_s + a->launch_s;
	return f / a->fwd_flops + blocks * a->fwd_block_s + a->launch_s;
}

static double attn_law_s(const struct kern_gpu *k, const struct kern_attn_law *a,
			 bool bwd, double bh, double seq, double d, double window)
{
	double f, blocks;

	attn_work(k, a, bh, seq, d, window, &f, &blocks);
	return law_s(a, bwd, f, blocks);
}

/* The measured rows' residual at (bh, seq, d): 0 without rows. */
static double attn_residual(const struct kern_gpu *k, bool bwd, double bh, double seq,
			    double d)
{
	const struct kern_attn_rows *r = &k->attn_rows;
	const double *x[3] = { r->bh, r->seq, r->d };
	double q[3] = { log(bh), log(seq), log(d) };

	return r->n > 0 ? residual(r->n, 3, x, bwd ? r->lnr_bwd : r->lnr_fwd, q) : 0;
}

double kern_attn_block_s(const struct kern_gpu *k, bool bwd, double bh, double q, double kv,
			 double d)
{
	double f, blocks;

	block_work(k, &k->attn, bh, q, kv, d, &f, &blocks);
	return law_s(&k->attn, bwd, f, blocks) * exp(attn_residual(k, bwd, bh, q, d));
}

double kern_attn_block_flops(double bh, double q, double kv, double d)
{
	return bh * ceil(q / KERN_BLOCK) * block_tile_flops(kv, d);
}

static double attn_s(const struct kern_gpu *k, bool bwd, double bh, double seq,
		     double d, double window)
{
	return attn_law_s(k, &k->attn, bwd, bh, seq, d, window) *
	       exp(attn_residual(k, bwd, bh, seq, d));
}

double kern_attn_fwd_s(const struct kern_gpu *k, double bh, double seq, double d,
		       double window)
{
	return attn_s(k, false, bh, seq, d, window);
}

double kern_attn_bwd_s(const struct kern_gpu *k, double bh, double seq, double d,
		       double window)
{
	return attn_s(k, true, bh, seq, d, window);
}

double kern_stream_s(const struct kern_gpu *k, enum kern_stream kind, double bytes)
{
	return bytes / (k->hbm_Bps * k->stream_frac[kind]) + k->launch_s;
}

static double gemm_loss(const struct kern_gpu *k, const struct kern_gemm_rows *r,
			const bool *use, const struct kern_gemm_law *law)
{
	double sum = 0;

	for (int i = 0; i < r->n; i++) {
		if (use && !use[i])
			continue;
		double e = log(kern_gemm_law_s(k, law, 1, r->m[i], r->nn[i], r->k[i]) / r->s[i]);
		sum += e * e;
	}
	return sum;
}

/* Coordinate descent on the logs of the three constants, halving the step
 * when no move helps: deterministic, and the loss is smooth enough. */
void kern_fit_gemm(const struct kern_gpu *k, const struct kern_gemm_rows *rows,
		   const bool *use, int nfree, struct kern_gemm_law *law)
{
	double *p[3] = { &law->sm_flops, &law->wave_s, &law->launch_s };
	double step[3] = { 0.3, 1.0, 1.0 };
	double best = gemm_loss(k, rows, use, law);

	for (int it = 0; it < 400; it++) {
		bool moved = false;
		for (int i = 0; i < nfree; i++)
			for (int dir = 1; dir >= -1; dir -= 2) {
				double keep = *p[i];
				*p[i] = keep * exp(dir * step[i]);
				double l = gemm_loss(k, rows, use, law);
				if (l < best) {
					best = l;
					moved = true;
				} else {
					*p[i] = keep;
				}
			}
		if (!moved) {
			double mx = 0;
			for (int i = 0; i < 3; i++) {
				step[i] /= 2;
				mx = step[i] > mx ? step[i] : mx;
			}
			if (mx < 1e-5)
				break;
		}
	}
}

/* min sum ((a F_i + b G_i + c) / t_i - 1)^2 over a, b with c fixed:
 * the 2x2 normal equations. */
static void ls2(int n, const double *F, const double *G, const double *t, double c,
		double *a, double *b)
{
	double s11 = 0, s12 = 0, s22 = 0, r1 = 0, r2 = 0;

	for (int i = 0; i < n; i++) {
		double f = F[i] / t[i], g = G[i] / t[i], y = 1 - c / t[i];
		s11 += f * f;
		s12 += f * g;
		s22 += g * g;
		r1 += f * y;
		r2 += g * y;
	}
	double det = s11 * s22 - s12 * s12;
	*a = (r1 * s22 - r2 * s12) / det;
	*b = (s11 * r2 - s12 * r1) / det;
}

void kern_fit_attn(const struct kern_gpu *k, const struct kern_attn_rows *r,
		   struct kern_attn_law *law)
{
	double F[KERN_ATTN_MAX], G[KERN_ATTN_MAX], a, b;

	if (r->n < 2)
		return;
	for (int i = 0; i < r->n; i++)
		attn_work(k, law, r->bh[i], r->seq[i], r->d[i], 0, &F[i], &G[i]);
	ls2(r->n, F, G, r->fwd_s, law->launch_s, &a, &b);
	law->fwd_flops = 1 / a;
	law->fwd_block_s = b > 0 ? b : 0;
	for (int i = 0; i < r->n; i++)
		F[i] *= 2.5;
	ls2(r->n, F, G, r->bwd_s, law->launch_s, &a, &b);
	law->bwd_flops = 1 / a;
	law->bwd_block_s = b > 0 ? b : 0;
}

void kern_fit_attn_total(const struct kern_gpu *k, const struct kern_attn_rows *r,
			 struct kern_attn_law *law)
{
	double F[KERN_ATTN_MAX], G[KERN_ATTN_MAX], a, b;
	double flops_ratio = law->fwd_flops / law->bwd_flops;
	double block_ratio = law->fwd_block_s > 0 ? law->bwd_block_s / law->fwd_block_s : 0;

	if (r->n < 2)
		return;
	for (int i = 0; i < r->n; i++) {
		double f, tiles;
		attn_work(k, law, r->bh[i], r->seq[i], r->d[i], 0, &f, &tiles);
		F[i] = f * (1 + 2.5 * flops_ratio);
		G[i] = tiles * (1 + block_ratio);
	}
	ls2(r->n, F, G, r->fwd_s, 2 * law->launch_s, &a, &b);
	law->fwd_flops = 1 / a;
	law->bwd_flops = law->fwd_flops / flops_ratio;
	law->fwd_block_s = b > 0 ? b : 0;
	law->bwd_block_s = law->fwd_block_s * block_ratio;
}

/* shape (may be NULL): the table whose residual the rows' times are
 * taken relative to, as FP8's are to BF16's (kernels.h). */
static void gemm_residuals(const struct kern_gpu *k, const struct kern_gemm_law *law,
			   const struct kern_gemm_rows *shape, struct kern_gemm_rows *r)
{
	for (int i = 0; i < r->n; i++) {
		double t = kern_gemm_law_s(k, law, 1, r->m[i], r->nn[i], r->k[i]);
		if (shape)
			t *= exp(gemm_residual(shape, r->m[i], r->nn[i], r->k[i]));
		r->lnr[i] = log(r->s[i] / t);
	}
}

void kern_residuals(struct kern_gpu *k)
{
	struct kern_attn_rows *a = &k->attn_rows;

	gemm_residuals(k, &k->bf16, NULL, &k->gemm_bf16);
	gemm_residuals(k, &k->fp8, &k->gemm_bf16, &k->gemm_fp8);
	for (int i = 0; i < a->n; i++) {
		a->lnr_fwd[i] = log(a->fwd_s[i] /
				    attn_law_s(k, &k->attn, false, a->bh[i], a->seq[i], a->d[i], 0));
		a->lnr_bwd[i] = log(a->bwd_s[i] /
				    attn_law_s(k, &k->attn, true, a->bh[i], a->seq[i], a->d[i], 0));
	}
}

static double max_lnr(const double *lnr, int n)
{
	double m = 0;

	for (int i = 0; i < n; i++)
		if (-lnr[i] > m)	/* faster than the law */
			m = -lnr[i];
	return m;
}

double kern_best_eff(const struct kern_gpu *k, bool fp8, double peak)
{
	const struct kern_gemm_law *law = fp8 ? &k->fp8 : &k->bf16;
	const struct kern_gemm_rows *r = fp8 ? &k->gemm_fp8 : &k->gemm_bf16;
	/* FP8's residuals sit on BF16's (kernels.h): both at their best */
	double lnr_best = max_lnr(r->lnr, r->n) +
			  (fp8 ? max_lnr(k->gemm_bf16.lnr, k->gemm_bf16.n) : 0);
	double gemm = law->sm_flops * k->sms * exp(lnr_best) / peak;
	double lnr = max_lnr(k->attn_rows.lnr_fwd, k->attn_rows.n);
	double lb = max_lnr(k->attn_rows.lnr_bwd, k->attn_rows.n);
	double rate = fmax(k->attn.fwd_flops, k->attn.bwd_flops) * exp(fmax(lnr, lb));
	double attn = 2.0 * rate / peak;	/* the causal half counted full */

	return fmin(1.0, fmax(gemm, attn));
}
