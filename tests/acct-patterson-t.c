/*
 * acct-patterson-t.c -- Patterson et al. 2021 (arXiv:2104.10350, Table 4):
 * GPT-3 on 10,000 V100 for 14.8 days at 330 W average per processor, PUE
 * 1.10 and 429 gCO2e/kWh used 1,287 MWh and emitted 552 tCO2e.  The
 * scenario scenarios/validation/gpt3-patterson.cfg feeds those inputs to the
 * run model (see its header for the mapping); trainsim must agree within 1%.
 */
#include <math.h>

#include "tap.h"
#include "formula-run.h"

int main(void)
{
	struct report *rep = rep_new();

	if (scenario_run("scenarios/validation/gpt3-patterson.cfg", NULL, 0, 1, rep) < 0) {
		tap_ok(0, "gpt3-patterson.cfg runs");
	} else {
		double dur_s = rep_summary_get(rep, "duration_s");
		double mwh = rep_summary_get(rep, "energy_kwh") / 1e3;
		double t = rep_summary_get(rep, "carbon_kg") / 1e3;

		tap_diag("duration %.3f days, %.1f MWh, %.1f tCO2e", dur_s / 86400, mwh, t);
		tap_near(dur_s / 86400, 14.8, 0.01, "duration 14.8 days within 1%");
		tap_near(mwh, 10000 * 330 * dur_s * 1.10 / 3.6e9, 1e-9,
			 "MWh = chips x 330 W x duration x PUE 1.10 (Patterson's formula)");
		tap_near(mwh, 1287, 0.01, "1,287 MWh within 1%");
		tap_near(t, mwh * 429 / 1e3, 1e-9, "tCO2e = MWh x 429 g/kWh / 1000");
		tap_near(t, 552, 0.01, "552 tCO2e within 1%");
		tap_near(rep_summary_get(rep, "gco2e_per_mtok"), t * 1e6 /
			 (rep_summary_get(rep, "tokens") / 1e6), 1e-12,
			 "gCO2e per million tokens = grams / (tokens / 1e6)");
	}
	rep_free(rep);
	return tap_done();
}
