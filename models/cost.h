/*
 * cost.h -- first cost model: every GPU of the job is rented for the whole
 * run (held through checkpoints and restarts) at a price per GPU-hour,
 * billed per second.
 */
#ifndef MODELS_COST_H
#define MODELS_COST_H

#include "sim/cfg.h"

struct cost {
	double gpu_hour_usd;
};

extern const struct cfg_setting cost_settings[];
void cost_from_scenario(const struct scenario *sc, struct cost *c);

#endif
