/* acct.c -- see acct.h. */
#include <stdlib.h>
#include <string.h>

#include "models/acct.h"
#include "models/carbon.h"
#include "models/cost.h"
#include "models/power.h"

const struct cfg_setting *const acct_setting_tables[] = {
	power_settings, cost_settings, carbon_settings, NULL
};

struct acct {
	struct power pw;
	struct cost cost;
	struct carbon co2;
	int gpus, nodes;

	int64_t last_ns;	/* books are exact up to here */
	/* rates in force since last_ns */
	double it_power_w;
	double cost_usd_per_s;
	/* totals */
	double it_energy_j;
	double facility_energy_j;
	double cost_usd;
	double carbon_kg;
	double gpu_held_s;	/* for embodied carbon */
	int gpus_held;
};

enum { COL_IT_POWER, COL_FAC_POWER, COL_IT_ENERGY, COL_ENERGY, COL_COST,
       COL_CARBON, COL_COUNT };
static const struct { const char *name, *unit; } columns[COL_COUNT] = {
	{ "it_power_w", "W" }, { "facility_power_w", "W" },
	{ "it_energy_kwh", "kWh" }, { "energy_kwh", "kWh" },
	{ "cost_usd", "USD" }, { "carbon_kg", "kgCO2e" },
};

struct acct *acct_new(const struct scenario *sc, const struct gpu_spec *g,
		      const struct layout *L, const struct pools *pools, struct err *e)
{
	struct acct *a = calloc(1, sizeof *a);

	if (a == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		return NULL;
	}
	power_from_scenario(sc, g, &a->pw);
	cost_from_scenario(sc, &a->cost);
	carbon_from_scenario(sc, &a->co2);
	(void)pools;	/* one price for every pool in this first model */
	a->gpus = L->gpus;
	a->nodes = L->nodes;
	return a;
}

void acct_free(struct acct *a)
{
	free(a);
}

void acct_advance(struct acct *a, int64_t now_ns)
{
	double dt_s = (double)(now_ns - a->last_ns) * 1e-9;
	double it_j = a->it_power_w * dt_s;
	double fac_j = it_j * a->pw.pue;

	a->it_energy_j += it_j;
	a->facility_energy_j += fac_j;
	a->cost_usd += a->cost_usd_per_s * dt_s;
	a->carbon_kg += fac_j / ACCT_J_PER_KWH * a->co2.grid_g_per_kwh * 1e-3;
	a->gpu_held_s += a->gpus_held * dt_s;
	a->last_ns = now_ns;
}

void acct_set_activity(struct acct *a, int64_t now_ns, const struct activity *act)
{
	int idle = act->gpus_held - act->gpus_training;

	acct_advance(a, now_ns);
	a->gpus_held = act->gpus_held;
	a->it_power_w = act->gpus_training * a->pw.gpu_busy_w + idle * a->pw.gpu_idle_w +
			act->nodes_held * a->pw.node_overhead_w;
	a->cost_usd_per_s = act->gpus_held * a->cost.gpu_hour_usd / 3600.0;
}

int acct_series(struct acct *a, struct report *rep)
{
	(void)a;
	for (int i = 0; i < COL_COUNT; i++)
		if (rep_series(rep, columns[i].name, columns[i].unit) < 0)
			return -1;
	return 0;
}

int acct_columns(const struct acct *a)
{
	(void)a;
	return COL_COUNT;
}

void acct_sample(struct acct *a, int64_t now_ns, double *v)
{
	acct_advance(a, now_ns);
	v[COL_IT_POWER] = a->it_power_w;
	v[COL_FAC_POWER] = a->it_power_w * a->pw.pue;
	v[COL_IT_ENERGY] = a->it_energy_j / ACCT_J_PER_KWH;
	v[COL_ENERGY] = a->facility_energy_j / ACCT_J_PER_KWH;
	v[COL_COST] = a->cost_usd;
	v[COL_CARBON] = a->carbon_kg;
}

void acct_summarize(struct acct *a, int64_t end_ns, struct report *rep)
{
	double nodes_per_gpu = (double)a->nodes / a->gpus;
	double held_h;

	acct_advance(a, end_ns);
	held_h = a->gpu_held_s / 3600.0;
	rep_summary(rep, "gpu_hours", held_h, "GPU-h");
	rep_summary(rep, "energy_kwh", a->facility_energy_j / ACCT_J_PER_KWH, "kWh");
	rep_summary(rep, "it_energy_kwh", a->it_energy_j / ACCT_J_PER_KWH, "kWh");
	rep_summary(rep, "carbon_kg", a->carbon_kg, "kgCO2e");
	/* GPU-hours held, with servers in proportion. */
	rep_summary(rep, "embodied_carbon_kg",
		    carbon_embodied_kg(&a->co2, 1, 0, held_h) +
		    carbon_embodied_kg(&a->co2, 0, 1, held_h * nodes_per_gpu), "kgCO2e");
	rep_summary(rep, "cost_usd", a->cost_usd, "USD");
}
