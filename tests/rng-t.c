/*
 * rng-t.c -- named random streams.
 *
 * The seed formula is the one written in rng.c's header; the test rebuilds
 * it from FNV-1a and splitmix64, each first checked against its published
 * test vector, and compares.  It also builds, by inverting splitmix64, a
 * scenario seed whose folded 32-bit stream seed is 0, to check the mapping
 * away from mt19937's 0 == 4357 alias.
 */
#include <math.h>
#include <stdint.h>

#include <gsl/gsl_randist.h>

#include "sim/rng.h"
#include "tests/tap.h"

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return h;
}

static uint64_t sm64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

/* Inverse of an odd number modulo 2^64 (Newton: each step doubles the bits). */
static uint64_t inv64(uint64_t a)
{
	uint64_t x = a;

	for (int i = 0; i < 6; i++)
		x *= 2 - a * x;
	return x;
}

static uint64_t sm64_inverse(uint64_t x)
{
	x ^= (x >> 31) ^ (x >> 62);
	x *= inv64(UINT64_C(0x94d049bb133111eb));
	x ^= (x >> 27) ^ (x >> 54);
	x *= inv64(UINT64_C(0xbf58476d1ce4e5b9));
	x ^= (x >> 30) ^ (x >> 60);
	return x - UINT64_C(0x9e3779b97f4a7c15);
}

static unsigned long ref_seed(uint64_t seed, const char *name)
{
	uint64_t z = sm64(sm64(seed) ^ fnv1a64(name));
	return (unsigned long)(uint32_t)(z ^ (z >> 32));
}

static int same_draws(gsl_rng *a, gsl_rng *b, int n)
{
	int same = 1;

	for (int i = 0; i < n; i++)
		same &= gsl_rng_get(a) == gsl_rng_get(b);
	return same;
}

int main(void)
{
	tap_plan(12);

	/* Published vectors: FNV-1a 64 of "a" (isthe.com/chongo/tech/comp/fnv);
	 * first output of Vigna's splitmix64.c from state 0. */
	tap_ok(fnv1a64("a") == UINT64_C(0xaf63dc4c8601ec8c) &&
	       sm64(0) == UINT64_C(0xe220a8397b1dcdaf),
	       "reference FNV-1a and splitmix64 match their published vectors");
	static const char *names[] = { "failures", "preemption", "gc", "" };
	int ok = 1;
	for (int i = 0; i < 4; i++)
		for (uint64_t s = 0; s < 3; s++)
			ok &= rng_seed_for(s * 1000003, names[i]) ==
			      ref_seed(s * 1000003, names[i]);
	tap_ok(ok, "rng_seed_for follows the formula in rng.c (12 cases)");

	gsl_rng *a = rng_stream(42, "failures"), *b = rng_stream(42, "failures");
	tap_ok(same_draws(a, b, 1000), "same seed and name: same 1000 draws");
	gsl_rng *m = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(m, rng_seed_for(42, "failures"));
	gsl_rng_free(b);
	b = rng_stream(42, "failures");
	tap_ok(same_draws(b, m, 1000),
	       "the stream is GSL mt19937 seeded with rng_seed_for()");
	gsl_rng_free(b);

	gsl_rng *c = rng_stream(42, "preemption");
	gsl_rng *d = rng_stream(43, "failures");
	gsl_rng_free(a);
	a = rng_stream(42, "failures");
	tap_ok(gsl_rng_get(a) != gsl_rng_get(c), "different names: different draws");
	gsl_rng_free(a);
	a = rng_stream(42, "failures");
	tap_ok(gsl_rng_get(a) != gsl_rng_get(d), "different seeds: different draws");

	/* Draw 10 from "failures" alone, then again with a new stream in use. */
	unsigned long alone[10];
	gsl_rng_free(a);
	a = rng_stream(7, "failures");
	for (int i = 0; i < 10; i++)
		alone[i] = gsl_rng_get(a);
	gsl_rng_free(a);
	a = rng_stream(7, "failures");
	gsl_rng *extra = rng_stream(7, "spot-notice");
	ok = 1;
	for (int i = 0; i < 10; i++) {
		gsl_rng_get(extra);
		ok &= gsl_rng_get(a) == alone[i];
	}
	tap_ok(ok, "adding and drawing a new stream leaves an existing one unchanged");
	gsl_rng_free(extra);

	tap_ok(rng_seed_for(0, "failures") != 0 &&
	       rng_seed_for(0, "failures") != rng_seed_for(0, "gc"),
	       "scenario seed 0 gives distinct non-zero stream seeds");

	/* A scenario seed whose mixed value folds to 0: z = 0x0123456701234567. */
	uint64_t z0 = UINT64_C(0x0123456701234567);
	uint64_t s0 = sm64_inverse(sm64_inverse(z0) ^ fnv1a64("failures"));
	tap_ok(ref_seed(s0, "failures") == 0, "constructed seed folds to 0 by the formula");
	unsigned long mapped = rng_seed_for(s0, "failures");
	tap_ok(mapped != 0 && mapped != 4357,
	       "rng_seed_for maps it to a fixed non-zero seed, not 0 (0x%lx)", mapped);
	gsl_rng_set(m, 0);	/* GSL: seed 0 means 4357 */
	gsl_rng_free(a);
	a = rng_stream(s0, "failures");
	tap_ok(!same_draws(a, m, 10), "so its stream is not mt19937's seed-0 stream");

	/* Exponential with mean mu: the sample mean of n draws has standard
	 * deviation mu/sqrt(n) (the exponential's sd equals its mean). */
	const double mu = 3600.0;
	const int n = 100000;
	double sum = 0;
	gsl_rng_free(a);
	a = rng_stream(2026, "failures");
	for (int i = 0; i < n; i++)
		sum += gsl_ran_exponential(a, mu);
	double mean = sum / n, sigma = mu / sqrt((double)n);
	tap_ok(fabs(mean - mu) <= 5 * sigma,
	       "gsl_ran_exponential(mu=3600) mean over 1e5 draws %.2f within 5 sigma (%.2f)",
	       mean, 5 * sigma);

	gsl_rng_free(a);
	gsl_rng_free(c);
	gsl_rng_free(d);
	gsl_rng_free(m);
	return tap_done();
}
