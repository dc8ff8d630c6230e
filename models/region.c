/* region.c -- see region.h. */
#include <stdbool.h>
#include <string.h>

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

/* The figures a preset stands in for, and when the run reads them: grid
 * intensity unless a grid trace replaces it, PUE always, the electricity
 * price when the cluster is owned (cloud prices include it) and no price
 * trace replaces it. */
static const struct {
	const char *key, *path, *trace;
	bool owned_only;
} figures[] = {
	{ "grid_g_per_kwh", "carbon.grid_g_per_kwh", "carbon.grid_trace", false },
	{ "pue", "power.pue", NULL, false },
	{ "electricity_usd_per_kwh", "cost.electricity_usd_per_kwh", "cost.electricity_trace",
	  true },
};

int region_check(const struct scenario *sc, struct err *e)
{
	const char *r = sc_str(sc, "region");
	bool owned = strcmp(sc_str(sc, "cost.mode"), "owned") == 0;

	if (!r[0])
		return 0;
	if (!sc_has_child(sc, "regions", r))
		return sc_error(sc, e, "region", "no region \"%s\" (expected an entry of "
				"scenarios/regions/regions.cfg, included by the scenario)", r);
	/* No silent fallback to a default: a figure the run reads must come
	 * from the scenario, a trace or the preset. */
	for (size_t i = 0; i < sizeof figures / sizeof *figures; i++) {
		if (figures[i].owned_only && !owned)
			continue;
		if (sc_has(sc, "%s", figures[i].path) ||
		    (figures[i].trace && sc_str(sc, "%s", figures[i].trace)[0]) ||
		    sc_has(sc, "regions.%s.%s", r, figures[i].key))
			continue;
		return sc_error(sc, e, "region", "region \"%s\" has no %s (expected "
				"regions.%s.%s in the presets, or %s in the scenario)", r,
				figures[i].key, r, figures[i].key, figures[i].path);
	}
	return 0;
}
