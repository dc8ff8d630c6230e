/*
 * carbon.h -- carbon of the run.
 *
 * Operational: facility energy x grid intensity, integrated exactly: a
 * constant carbon.grid_g_per_kwh (region presets in scenarios/regions) or an
 * hourly trace (carbon.grid_trace, Electricity Maps CSV, see trace.h; its
 * "direct" or "lifecycle" column).  That is the location-based figure.
 * The market-based figure (GHG Protocol Scope 2) uses the contractual
 * factor carbon.market_g_per_kwh (0 for fully matched renewable supply, as
 * Llama 3.1's model card reports) and equals the location-based one when
 * it is not set.  carbon.basis picks which one is carbon_kg; both are in
 * the summary.
 *
 * Embodied: the manufacturing footprint of GPUs, servers, switches and
 * NICs, amortised linearly over their service life by the time this run
 * holds them:  rate = (gpus x gpu_kg + nodes x server_kg + network_kg) /
 * life.  Defaults: 150 kgCO2e per A100 and 2,500 kgCO2e per server
 * without GPUs (BLOOM, Luccioni et al. 2022, as used by Boavizta
 * e-footprint), six years.  network_kg is the platform as built
 * (topologies/platform.h): its switches and NICs at the links catalog's
 * switch_embodied_kg and nic_embodied_kg, the held nodes' share of it.
 */
#ifndef MODELS_CARBON_H
#define MODELS_CARBON_H

#include <stdbool.h>

#include "sim/cfg.h"

struct carbon {
	double grid_g_per_kwh;
	const char *grid_trace, *trace_column;
	bool market_basis;
	bool has_market;
	double market_g_per_kwh;
	double embodied_gpu_kg;
	double embodied_server_kg;
	double service_life_h;
};

extern const struct cfg_setting carbon_settings[];
void carbon_from_scenario(const struct scenario *sc, struct carbon *c);
/* kgCO2e of `kwh` facility energy at `g_per_kwh`. */
double carbon_kg(double kwh, double g_per_kwh);
/* Embodied kgCO2e per second of holding gpus, nodes and network_kg of
 * switches and NICs (the platform's embodied_kg, or the share held). */
double carbon_embodied_kg_per_s(const struct carbon *c, double gpus, double nodes,
				double network_kg);

#endif
