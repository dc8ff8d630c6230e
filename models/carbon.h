/*
 * carbon.h -- first carbon model.
 *
 * Operational: facility energy x a constant grid intensity (gCO2e/kWh).
 * Embodied: the manufacturing footprint of GPUs and servers, amortised
 * linearly over their service life by the hours this run holds them:
 *   embodied_kg = (gpus x gpu_kg + nodes x server_kg) x hours / life_hours.
 * Defaults: 150 kgCO2e per A100 and 2,500 kgCO2e per server without GPUs
 * (BLOOM, Luccioni et al. 2022, as used by Boavizta e-footprint); a six-year
 * service life is our assumption.
 */
#ifndef MODELS_CARBON_H
#define MODELS_CARBON_H

#include "sim/cfg.h"

struct carbon {
	double grid_g_per_kwh;
	double embodied_gpu_kg;
	double embodied_server_kg;
	double service_life_h;
};

extern const struct cfg_setting carbon_settings[];
void carbon_from_scenario(const struct scenario *sc, struct carbon *c);
double carbon_embodied_kg(const struct carbon *c, int gpus, int nodes, double hours);

#endif
