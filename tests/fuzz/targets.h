/*
 * targets.h -- the entry points the fuzzers and the regression replay share.
 *
 * Each takes one input as bytes, feeds it to trainsim's own readers the way
 * a user's file reaches them, and returns 0 whatever the readers say: bad
 * input must come back as an error, never as a crash, a hang or a leak.
 *
 *   fuzz_scenario  the scenario loader and checks (sc_load, run_check); the
 *                  input is the scenario text, and each of its lines
 *                  "#@s KEY=VALUE" (a comment to libconfig) is also given
 *                  as an override -s KEY=VALUE.  @include "catalog/..."
 *                  finds scenarios/catalog.
 *   fuzz_trace     every trace reader on the same bytes: SkyPilot capacity
 *                  (.json), failure (.csv), grid/PUE/price CSV, AWS spot
 *                  price history, SWF and cluster CSV.
 *   fuzz_h5        the run-file readers of collect and export (h5in.h).
 *
 * fuzz_init(srcdir) once first: a scratch directory (removed by
 * fuzz_fini), with a link to SRCDIR/scenarios/catalog.
 */
#ifndef TESTS_FUZZ_TARGETS_H
#define TESTS_FUZZ_TARGETS_H

#include <stddef.h>
#include <stdint.h>

int fuzz_init(const char *srcdir);
void fuzz_fini(void);
int fuzz_scenario(const uint8_t *data, size_t n);
int fuzz_trace(const uint8_t *data, size_t n);
int fuzz_h5(const uint8_t *data, size_t n);

#endif
