/*
 * straggler.h -- the slowest of N: a synchronous training step waits for
 * its slowest GPU.
 *
 * GPUs of one SKU do not run at one speed: manufacturing variation and
 * power management (clocks under a power or thermal cap) give each its own
 * rate.  In a synchronous job every pipeline is paced by its slowest stage,
 * every stage (a TP group in lockstep) by its slowest GPU, and the
 * iteration ends when the slowest data-parallel replica reaches the
 * gradient collective: the step's compute runs at the speed of the slowest
 * of all N GPUs.  With per-GPU kernel times spread normally (relative
 * standard deviation sigma), the expected slowest is
 *
 *   1 + sigma E[Z(N)],   E[Z(N)] = E[max of N standard normals]
 *
 * which grows like sqrt(2 ln N): with the job's size, without a term keyed
 * on the GPU count.  Deterministic (the expectation, no draw).  Only
 * compute is slowed; communication times are the fabric's.
 *
 * Setting cluster.gpu_speed_sigma; its default and source are in
 * straggler.c.
 */
#ifndef MODELS_STRAGGLER_H
#define MODELS_STRAGGLER_H

#include "sim/cfg.h"

extern const struct cfg_setting strag_settings[];

/* E[max of n iid standard normal draws] (0 for n <= 1). */
double strag_expected_max(long n);
/* The slowest of n GPUs' compute time over the mean's: 1 + sigma E[Z(n)]. */
double strag_factor(double sigma, long n);
/* cluster.gpu_speed_sigma of the scenario. */
double strag_sigma_from_scenario(const struct scenario *sc);

#endif
