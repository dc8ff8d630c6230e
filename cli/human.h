/*
 * human.h -- the run summary as a person reads it (trainsim without --json
 * or -q): figures grouped under time, throughput, disruptions, energy,
 * cost, carbon and run, each with its unit and, for long spans, in days
 * or hours too, and the model's error band when the run gives KEY_lo and
 * KEY_hi.  With --replicas the report holds KEY_mean and KEY_ci95:
 * those come first as "mean ± 95% CI unit", and the seed's own values only
 * when verbose (-v).
 *
 *   human_print(rep, verbose, stdout);
 */
#ifndef CLI_HUMAN_H
#define CLI_HUMAN_H

#include <stdbool.h>
#include <stdio.h>

#include "sim/report.h"

void human_print(const struct report *r, bool verbose, FILE *out);

#endif
