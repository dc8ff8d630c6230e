/*
 * region.h -- region presets (scenarios/regions/regions.cfg): grid
 * intensity, PUE and electricity price by place, chosen with
 * `region = "NAME"`.  A setting present in the scenario wins over the
 * preset; a figure that neither gives (and no trace replaces) is an error
 * naming the region and the figure, not a silent default.
 *
 *   double g = region_float(sc, "carbon.grid_g_per_kwh", "grid_g_per_kwh");
 */
#ifndef MODELS_REGION_H
#define MODELS_REGION_H

#include "sim/cfg.h"
#include "sim/err.h"

extern const struct cfg_setting region_settings[];
/* The setting at path, else the region's key, else path's default. */
double region_float(const struct scenario *sc, const char *path, const char *key);
/* A named region must exist in the catalog and give every figure the
 * scenario does not. */
int region_check(const struct scenario *sc, struct err *e);

#endif
