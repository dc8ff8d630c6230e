/* carbon.c -- see carbon.h. */
#include <string.h>

#include "models/carbon.h"
#include "models/region.h"

const struct cfg_setting carbon_settings[] = {
	{ "carbon.grid_g_per_kwh", CFG_FLOAT, "gCO2e/kWh", 0, 5000, "475", NULL,
	  "grid carbon intensity of the electricity used (world average 475, IEA "
	  "2019; see scenarios/regions)" },
	{ "carbon.grid_trace", CFG_STRING, "", 0, 0, "", NULL,
	  "hourly intensity trace (Electricity Maps CSV, or datetime_utc,g_per_kwh), "
	  "relative to the scenario; overrides the constant" },
	{ "carbon.trace_column", CFG_ENUM, "", 0, 0, "lifecycle", "lifecycle|direct",
	  "Electricity Maps column: life-cycle (LCA) or direct emissions" },
	{ "carbon.basis", CFG_ENUM, "", 0, 0, "location", "location|market",
	  "which figure carbon_kg reports (GHG Protocol Scope 2)" },
	{ "carbon.market_g_per_kwh", CFG_FLOAT, "gCO2e/kWh", 0, 5000, "0", NULL,
	  "contractual (market-based) factor; unset: equal to the grid's" },
	{ "carbon.embodied_gpu_kg", CFG_FLOAT, "kgCO2e", 0, 1e6, "150", NULL,
	  "manufacturing footprint of one GPU (A100: 150, BLOOM study)" },
	{ "carbon.embodied_server_kg", CFG_FLOAT, "kgCO2e", 0, 1e7, "2500", NULL,
	  "manufacturing footprint of one server without its GPUs (BLOOM study)" },
	CFG_REMOVED_FOR("carbon.embodied_switch_kg", "the network is counted as built "
			"(links.*.switch_embodied_kg per switch, nic_embodied_kg per NIC)"),
	{ "carbon.service_life_years", CFG_FLOAT, "years", 0.1, 50, "6", NULL,
	  "years over which the embodied footprint is amortised" },
	CFG_END
};

void carbon_from_scenario(const struct scenario *sc, struct carbon *c)
{
	c->grid_g_per_kwh = region_float(sc, "carbon.grid_g_per_kwh", "grid_g_per_kwh");
	c->grid_trace = sc_str(sc, "carbon.grid_trace");
	c->trace_column = sc_str(sc, "carbon.trace_column");
	c->market_basis = strcmp(sc_str(sc, "carbon.basis"), "market") == 0;
	c->has_market = sc_has(sc, "carbon.market_g_per_kwh");
	c->market_g_per_kwh = sc_float(sc, "carbon.market_g_per_kwh");
	c->embodied_gpu_kg = sc_float(sc, "carbon.embodied_gpu_kg");
	c->embodied_server_kg = sc_float(sc, "carbon.embodied_server_kg");
	c->service_life_h = sc_float(sc, "carbon.service_life_years") * 365.25 * 24;
}

double carbon_kg(double kwh, double g_per_kwh)
{
	return kwh * g_per_kwh * 1e-3;
}

double carbon_embodied_kg_per_s(const struct carbon *c, double gpus, double nodes,
				double network_kg)
{
	double kg = gpus * c->embodied_gpu_kg + nodes * c->embodied_server_kg + network_kg;

	return kg / (c->service_life_h * 3600.0);
}
