/*
 * rng.h -- named random streams.
 *
 * One GSL generator per source of randomness (failures, preemptions, GC, ...),
 * seeded from the scenario seed and the stream's name, so adding a stream
 * never shifts the numbers another stream draws.
 */
#ifndef SIM_RNG_H
#define SIM_RNG_H

#include <stdint.h>
#include <gsl/gsl_rng.h>

/* A new mt19937 generator; free with gsl_rng_free(). NULL on no memory. */
gsl_rng *rng_stream(uint64_t seed, const char *name);
/* The 32-bit seed rng_stream gives that name (never 0: mt19937 maps 0 to 4357). */
unsigned long rng_seed_for(uint64_t seed, const char *name);

#endif
