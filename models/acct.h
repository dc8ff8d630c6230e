/*
 * acct.h -- accounting: power, energy, cost and carbon integrated exactly
 * between events.
 *
 * Between two events every rate is constant (the run model sets it when the
 * state changes), so integrating is a product, not a sample: acct_advance()
 * moves the books to `now` with the rates in force, then the caller changes
 * the rates.  Energy is kept in joules internally to avoid drift.
 */
#ifndef MODELS_ACCT_H
#define MODELS_ACCT_H

#include <stdint.h>

struct acct {
	int64_t last_ns;	/* books are exact up to here */
	/* rates in force since last_ns */
	double it_power_w;	/* GPUs + node overhead */
	double pue;		/* facility / IT */
	double cost_usd_per_s;
	double grid_g_per_kwh;	/* carbon intensity of facility energy */
	/* totals */
	double it_energy_j;
	double facility_energy_j;
	double cost_usd;
	double carbon_kg;
};

void acct_init(struct acct *a, int64_t now_ns);
void acct_advance(struct acct *a, int64_t now_ns);

#define ACCT_J_PER_KWH 3.6e6

#endif
