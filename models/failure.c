/* failure.c -- see failure.h. */
#include <gsl/gsl_randist.h>

#include "models/failure.h"

const struct cfg_setting failure_settings[] = {
	{ "failures.enabled", CFG_BOOL, "", 0, 0, "true", NULL,
	  "simulate hardware failures" },
	{ "failures.per_node_per_1000_days", CFG_FLOAT, "1/(1000 node-days)", 0, 1e6,
	  "6.5", NULL, "node failure rate (Meta RSC-1: 6.50)" },
	{ "failures.restart_s", CFG_FLOAT, "s", 0, 1e7, "600", NULL,
	  "detection + rescheduling + initialisation before the checkpoint load" },
	CFG_END
};

void failure_from_scenario(const struct scenario *sc, int nodes, struct failure *f)
{
	double per_node_per_s = sc_float(sc, "failures.per_node_per_1000_days") / 1000.0 / 86400.0;

	f->enabled = sc_bool(sc, "failures.enabled") && per_node_per_s > 0;
	f->job_rate_per_s = nodes * per_node_per_s;
	f->restart_s = sc_float(sc, "failures.restart_s");
}

double failure_next_gap_s(const struct failure *f, gsl_rng *rng)
{
	/* gsl_ran_exponential takes the mean, not the rate. */
	return gsl_ran_exponential(rng, 1.0 / f->job_rate_per_s);
}
