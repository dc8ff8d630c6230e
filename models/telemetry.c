/* telemetry.c -- see telemetry.h. */
#include <math.h>
#include <stdio.h>

#include "models/telemetry.h"

static const struct { const char *field, *unit; } fields[TELEMETRY_PER_POOL] = {
	{ "DCGM_FI_DEV_POWER_USAGE", "W" },
	{ "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "mJ" },
	{ "DCGM_FI_DEV_GPU_UTIL", "%" },
	{ "DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", "ratio" },
};

int telemetry_series(const struct pools *pools, struct report *rep)
{
	char name[256];

	for (int i = 0; i < pools->n; i++)
		for (int f = 0; f < TELEMETRY_PER_POOL; f++) {
			snprintf(name, sizeof name, "%s{pool=%s}", fields[f].field,
				 pools->p[i].name);
			if (rep_series(rep, name, fields[f].unit) < 0)
				return -1;
		}
	return 0;
}

int telemetry_columns(const struct pools *pools)
{
	return pools->n * TELEMETRY_PER_POOL;
}

void telemetry_sample(const struct pools *pools, const struct telemetry_pool *p,
		      const struct telemetry_util *u, double *v)
{
	bool known = u->busy_frac > 0;
	double util = known ? fmin(1.0, u->busy_frac + u->comm_frac) : 1.0;

	for (int i = 0; i < pools->n; i++, v += TELEMETRY_PER_POOL) {
		double share = p[i].gpus_held > 0 ? p[i].gpus_training / p[i].gpus_held : 0;
		v[0] = p[i].gpu_power_w;
		v[1] = p[i].gpu_energy_j * 1e3;
		v[2] = 100.0 * share * util;
		v[3] = known ? share * u->tensor_active_frac : NAN;
	}
}
