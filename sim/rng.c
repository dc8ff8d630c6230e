/*
 * rng.c -- named random streams (see rng.h).
 *
 * The 32-bit seed of stream NAME under scenario seed S is
 *
 *	z    = splitmix64(splitmix64(S) ^ fnv1a64(NAME))
 *	seed = (uint32_t)(z ^ (z >> 32)),  with 0 replaced by RNG_SEED_FOR_ZERO
 *
 * FNV-1a (Fowler, Noll, Vo; 64-bit offset basis 0xcbf29ce484222325, prime
 * 0x100000001b3) turns the name into 64 bits; splitmix64 (Steele, Lea, Flood,
 * "Fast splittable pseudorandom number generators", OOPSLA 2014; the
 * finaliser of Vigna's splitmix64.c) spreads the seed and mixes the two so
 * that nearby seeds and similar names give unrelated streams.  The fold keeps
 * all 64 bits in play, because GSL's mt19937 uses only the low 32 bits of a
 * seed.  mt19937 silently replaces seed 0 by 4357, which could equal another
 * stream's seed, so 0 is mapped to a fixed odd constant instead.
 *
 * A stream depends on nothing but (S, NAME): creating, drawing from or
 * freeing other streams never changes it.
 */
#include <gsl/gsl_errno.h>

#include "sim/rng.h"

/* The first 32 bits of the fractional part of sqrt(2) (as in SHA-2's H0). */
#define RNG_SEED_FOR_ZERO 0x6a09e667UL

static uint64_t fnv1a64(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(0x100000001b3);
	}
	return h;
}

static uint64_t splitmix64(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

unsigned long rng_seed_for(uint64_t seed, const char *name)
{
	uint64_t z = splitmix64(splitmix64(seed) ^ fnv1a64(name ? name : ""));
	unsigned long s = (unsigned long)(uint32_t)(z ^ (z >> 32));

	return s != 0 ? s : RNG_SEED_FOR_ZERO;
}

gsl_rng *rng_stream(uint64_t seed, const char *name)
{
	/*
	 * GSL's default error handler aborts when gsl_rng_alloc cannot get
	 * memory; turn it off for the call so we can return NULL instead.
	 */
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);

	gsl_set_error_handler(old);
	if (r != NULL)
		gsl_rng_set(r, rng_seed_for(seed, name));
	return r;
}
