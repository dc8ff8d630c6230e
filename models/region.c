/* region.c -- see region.h. */
#include "models/region.h"

const struct cfg_setting region_settings[] = {
	{ "region", CFG_STRING, "", 0, 0, "", NULL,
	  "region preset (scenarios/regions/regions.cfg); empty: none" },
	{ "regions.*.grid_g_per_kwh", CFG_FLOAT, "gCO2e/kWh", 0, 5000, "0", NULL,
	  "location-based grid intensity" },
	{ "regions.*.pue", CFG_FLOAT, "", 1, 5, "1.1", NULL, "typical PUE there" },
	{ "regions.*.electricity_usd_per_kwh", CFG_FLOAT, "USD/kWh", 0, 100, "0", NULL,
	  "industrial electricity price" },
	{ "regions.*.date", CFG_STRING, "", 0, 0, "", NULL, "when the figures held" },
	{ "regions.*.source", CFG_STRING, "", 0, 0, "", NULL, "where they come from" },
	CFG_END
};

double region_float(const struct scenario *sc, const char *path, const char *key)
{
	const char *r = sc_str(sc, "region");

	if (!sc_has(sc, "%s", path) && r[0] && sc_has_child(sc, "regions", r) &&
	    sc_has(sc, "regions.%s.%s", r, key))
		return sc_float(sc, "regions.%s.%s", r, key);
	return sc_float(sc, "%s", path);
}

int region_check(const struct scenario *sc, struct err *e)
{
	const char *r = sc_str(sc, "region");

	if (r[0] && !sc_has_child(sc, "regions", r))
		return sc_error(sc, e, "region", "no region \"%s\" (expected an entry of "
				"scenarios/regions/regions.cfg, included by the scenario)", r);
	return 0;
}
