/* acct.c -- see acct.h. */
#include <string.h>

#include "models/acct.h"

void acct_init(struct acct *a, int64_t now_ns)
{
	memset(a, 0, sizeof *a);
	a->last_ns = now_ns;
	a->pue = 1.0;
}

void acct_advance(struct acct *a, int64_t now_ns)
{
	double dt_s = (double)(now_ns - a->last_ns) * 1e-9;
	double it_j = a->it_power_w * dt_s;
	double fac_j = it_j * a->pue;

	a->it_energy_j += it_j;
	a->facility_energy_j += fac_j;
	a->cost_usd += a->cost_usd_per_s * dt_s;
	a->carbon_kg += fac_j / ACCT_J_PER_KWH * a->grid_g_per_kwh * 1e-3;
	a->last_ns = now_ns;
}
