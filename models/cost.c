/* cost.c -- see cost.h. */
#include "models/cost.h"

const struct cfg_setting cost_settings[] = {
	{ "cost.gpu_hour_usd", CFG_FLOAT, "USD/GPU-h", 0, 1e4, NULL, NULL,
	  "price of one GPU for one hour (instance price / GPUs per instance)" },
	CFG_END
};

void cost_from_scenario(const struct scenario *sc, struct cost *c)
{
	c->gpu_hour_usd = sc_float(sc, "cost.gpu_hour_usd");
}
