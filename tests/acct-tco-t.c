/*
 * acct-tco-t.c -- owned mode: amortised purchase, operating cost and
 * electricity at an hourly price; PUE from an hourly trace; checkpoint
 * storage by tier and retention.  tests/acct/owned.cfg: 4 nodes of 8 A100
 * (330 W training by default) in DGX A100 hosts, servers $300k + $20k network per node over
 * 5 years, $1.5 per node-hour, electricity 10 then 30 cents/kWh and PUE 1.1
 * then 1.3 (step at 01:00 UTC), storage tiers lustre ($0.14/GB-month,
 * 5 W/TB, newest 2 kept) and s3 ($0.023/GB-month, all kept).
 */
#include <math.h>

#include "acct-load.h"

int main(void)
{
	struct fixture f;
	const struct acct_totals *t;
	const double h = 3600, tb = 1e12;
	/* 32 GPUs training; their 4 hosts busy (the node catalog's dgx_a100:
	 * 1,751 W each, supplies 95% efficient, as in acct-energy-t.c); and
	 * the fabric as built for 4 nodes: 12 QM8700 x 253 W + 32 ConnectX-6
	 * x 15 W (counted in acct-energy-t.c) */
	double gpu_w = 32 * 330.0, host_w = 4 * 1751.0;
	double it_w = (gpu_w + host_w) / 0.95 + 12 * 253.0 + 32 * 15.0;
	double kwh_sum = 0, usd = 0, life_s = 5 * 365.25 * 86400;
	const double storage_w[4] = { 0, 5, 10, 10 };
	double storage_it_j, lustre_gbh, s3_gbh;

	if (fixture_open(&f, "owned.cfg", NULL, 0) < 0)
		return tap_done();
	/* Four hours of training; a 1 TB checkpoint is written at the end of
	 * hours 1, 2 and 3 (counted from the next activity). */
	for (int k = 0; k < 4; k++) {
		struct activity act = held(4, 32);
		act.checkpoint_bytes = tb;
		act.checkpoints_written = k;
		acct_set_activity(f.a, k * 3600 * S, &act);
	}
	acct_advance(f.a, 4 * 3600 * S);
	t = acct_totals(f.a);
	/* Storage: lustre holds 0, 1, 2, 2 TB in hours 0-3; s3 0, 1, 2, 3. */
	lustre_gbh = (0 + 1000 + 2000 + 2000) * 1.0;
	s3_gbh = (0 + 1000 + 2000 + 3000) * 1.0;
	storage_it_j = 5.0 * (lustre_gbh / 1000) * h;
	tap_near(t->storage_energy_j, storage_it_j, 1e-12, "lustre: 5 W/TB x 5 TB-hours");
	tap_near(t->storage_usd, (0.14 * lustre_gbh + 0.023 * s3_gbh) / 730, 1e-12,
		 "storage cost = GB-hours x price / 730 h per month, by tier and retention");
	/* The two-hour traces repeat: PUE 1.1, 1.3, 1.1, 1.3 and 10, 30, 10,
	 * 30 cents/kWh in hours 0-3.  Storage adds 0, 5, 10, 10 W. */
	for (int k = 0; k < 4; k++) {
		double kwh = (k % 2 ? 1.3 : 1.1) * (it_w + storage_w[k]) * h / 3.6e6;
		kwh_sum += kwh;
		usd += kwh * (k % 2 ? 0.30 : 0.10);
	}
	tap_near(t->facility_energy_j / 3.6e6, kwh_sum, 1e-12,
		 "facility energy: IT x PUE 1.1 / 1.3 by hour (the trace repeats)");
	tap_near(t->electricity_usd, usd, 1e-12,
		 "electricity: kWh x 10 or 30 cents by hour (price steps)");
	tap_near(t->capex_usd, 4 * 320000.0 * 4 * h / life_s, 1e-12,
		 "capex: 4 nodes x $320k x 4 h / 5 years");
	tap_near(t->opex_usd, 4 * 1.5 * 4, 1e-12, "opex: 4 nodes x $1.5 x 4 h");
	tap_near(t->compute_usd, 0, 0, "no instance-hours in owned mode");
	tap_near(t->cost_usd, t->storage_usd + t->electricity_usd + t->capex_usd + t->opex_usd,
		 1e-12, "total = storage + electricity + capex + opex");
	fixture_close(&f);
	return tap_done();
}
