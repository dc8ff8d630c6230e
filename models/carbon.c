/* carbon.c -- see carbon.h. */
#include "models/carbon.h"

const struct cfg_setting carbon_settings[] = {
	{ "carbon.grid_g_per_kwh", CFG_FLOAT, "gCO2e/kWh", 0, 5000, NULL, NULL,
	  "grid carbon intensity of the electricity used" },
	{ "carbon.embodied_gpu_kg", CFG_FLOAT, "kgCO2e", 0, 1e6, "150", NULL,
	  "manufacturing footprint of one GPU (A100: 150, BLOOM study)" },
	{ "carbon.embodied_server_kg", CFG_FLOAT, "kgCO2e", 0, 1e7, "2500", NULL,
	  "manufacturing footprint of one server without its GPUs (BLOOM study)" },
	{ "carbon.service_life_years", CFG_FLOAT, "years", 0.1, 50, "6", NULL,
	  "years over which the embodied footprint is amortised" },
	CFG_END
};

void carbon_from_scenario(const struct scenario *sc, struct carbon *c)
{
	c->grid_g_per_kwh = sc_float(sc, "carbon.grid_g_per_kwh");
	c->embodied_gpu_kg = sc_float(sc, "carbon.embodied_gpu_kg");
	c->embodied_server_kg = sc_float(sc, "carbon.embodied_server_kg");
	c->service_life_h = sc_float(sc, "carbon.service_life_years") * 365.25 * 24;
}

double carbon_embodied_kg(const struct carbon *c, int gpus, int nodes, double hours)
{
	double total_kg = gpus * c->embodied_gpu_kg + nodes * c->embodied_server_kg;

	return total_kg * hours / c->service_life_h;
}
