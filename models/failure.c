/* failure.c -- see failure.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_gamma.h>

#include "models/failure.h"

const struct cfg_setting failure_settings[] = {
	{ "failures.enabled", CFG_BOOL, "", 0, 0, "true", NULL,
	  "simulate hardware and software failures" },
	{ "failures.per_node_per_1000_days", CFG_FLOAT, "1/(1000 node-days)", 0, 1e6,
	  "6.5", NULL, "node (host) failure rate (Meta RSC-1: 6.50)" },
	{ "failures.gpu_per_1000_gpu_days", CFG_FLOAT, "1/(1000 GPU-days)", 0, 1e6, "0", NULL,
	  "GPU failure rate, per GPU (Llama 3: 0.289, arXiv:2407.21783 Table 5)" },
	{ "failures.nic_per_1000_node_days", CFG_FLOAT, "1/(1000 node-days)", 0, 1e6, "0", NULL,
	  "network (NIC, switch, cable) failure rate per node" },
	{ "failures.software_per_1000_node_days", CFG_FLOAT, "1/(1000 node-days)", 0, 1e6,
	  "0", NULL, "software and other interruptions per node" },
	{ "failures.distribution", CFG_ENUM, "", 0, 0, "exponential", "exponential|weibull",
	  "gaps between failures of each component process" },
	{ "failures.weibull_shape", CFG_FLOAT, "", 0.05, 20, "0.7", NULL,
	  "Weibull shape k (k < 1: clustered failures)" },
	{ "failures.trace", CFG_STRING, "", 0, 0, "", NULL,
	  "failure trace (CSV time_s,node,kind) replayed instead of the rates" },
	{ "failures.detect_s", CFG_FLOAT, "s", 0, 1e7, "60", NULL,
	  "time to notice a failure (timeouts, health checks)" },
	{ "failures.restart_s", CFG_FLOAT, "s", 0, 1e7, "540", NULL,
	  "rescheduling + initialisation before the checkpoint load" },
	{ "failures.spares", CFG_INT, "nodes", -1, 1e7, "-1", NULL,
	  "spare nodes ready to replace failed ones; -1: sized to the cluster, the "
	  "nodes in repair at once at spares_confidence (Poisson quantile)" },
	{ "failures.spares_confidence", CFG_FLOAT, "", 0.5, 0.999999, "0.999", NULL,
	  "spares = -1: chance that the pool covers every node in repair at a time" },
	{ "failures.repair_s", CFG_FLOAT, "s", 0, 1e9, "86400", NULL,
	  "time until a failed node is back in the spare pool (replacement delay)" },
	CFG_END
};

static void set_proc(struct failure_proc *p, double units, double per_1000_days,
		     double shape)
{
	p->rate_per_s = units * per_1000_days / 1000.0 / 86400.0;
	p->shape = shape;
	/* mean of Weibull(scale, k) = scale Gamma(1 + 1/k) */
	p->scale_s = p->rate_per_s > 0 ? 1.0 / p->rate_per_s / gsl_sf_gamma(1.0 + 1.0 / shape)
				       : INFINITY;
}

int failure_from_scenario(const struct scenario *sc, int nodes, int gpus_per_node,
			  struct failure *f, struct err *e)
{
	bool weibull = strcmp(sc_str(sc, "failures.distribution"), "weibull") == 0;
	double k = weibull ? sc_float(sc, "failures.weibull_shape") : 1.0;
	const char *trace = sc_str(sc, "failures.trace");

	memset(f, 0, sizeof *f);
	set_proc(&f->p[FK_GPU], (double)nodes * gpus_per_node,
		 sc_float(sc, "failures.gpu_per_1000_gpu_days"), k);
	set_proc(&f->p[FK_NODE], nodes, sc_float(sc, "failures.per_node_per_1000_days"), k);
	set_proc(&f->p[FK_NIC], nodes, sc_float(sc, "failures.nic_per_1000_node_days"), k);
	set_proc(&f->p[FK_SOFTWARE], nodes,
		 sc_float(sc, "failures.software_per_1000_node_days"), k);
	for (int i = 0; i < FK_COUNT; i++)
		f->job_rate_per_s += f->p[i].rate_per_s;
	f->detect_s = sc_float(sc, "failures.detect_s");
	f->restart_s = sc_float(sc, "failures.restart_s");
	f->repair_s = sc_float(sc, "failures.repair_s");
	f->enabled = sc_bool(sc, "failures.enabled") && (f->job_rate_per_s > 0 || trace[0]);
	if (sc_bool(sc, "failures.enabled") && trace[0]) {
		char path[4096];
		if (sc_path(sc, "failures.trace", trace, path, sizeof path, e) < 0)
			return -1;
		if (replay_read_failures(path, nodes, &f->trace, &f->trace_n, e) < 0)
			return sc_where_named(sc_where_of(sc), e, "failures.trace");
		f->job_rate_per_s = 0;	/* the trace replaces the processes */
		for (int i = 0; i < FK_COUNT; i++)
			f->p[i].rate_per_s = 0;
	}
	f->spares = (int)sc_int(sc, "failures.spares");
	if (f->spares < 0)
		f->spares = failure_spares_for(failure_in_repair(f),
					       sc_float(sc, "failures.spares_confidence"));
	return 0;
}

double failure_in_repair(const struct failure *f)
{
	double rate_per_s = f->job_rate_per_s;

	/* a trace: its mean rate over the time it spans */
	if (f->trace_n > 0 && f->trace[f->trace_n - 1].t_s > 0)
		rate_per_s = (double)f->trace_n / f->trace[f->trace_n - 1].t_s;
	return f->enabled ? rate_per_s * f->repair_s : 0;
}

int failure_spares_for(double in_repair, double confidence)
{
	int s = 0;

	/* Palm's theorem: with Poisson failures and any repair-time law, the
	 * nodes in repair at once are Poisson(rate x mean repair time); the
	 * pool is its `confidence` quantile. */
	if (!(in_repair > 0))
		return 0;
	while (s < 10000000 && gsl_cdf_poisson_P((unsigned)s, in_repair) < confidence)
		s++;
	return s;
}

void failure_free(struct failure *f)
{
	free(f->trace);
	f->trace = NULL;
	f->trace_n = 0;
}

double failure_next_gap_s(const struct failure_proc *p, gsl_rng *rng)
{
	/* gsl_ran_exponential takes the mean; gsl_ran_weibull is (scale, shape). */
	if (p->shape == 1.0)
		return gsl_ran_exponential(rng, 1.0 / p->rate_per_s);
	return gsl_ran_weibull(rng, p->scale_s, p->shape);
}

double failure_mtti_s(const struct failure *f)
{
	return f->enabled && f->job_rate_per_s > 0 ? 1.0 / f->job_rate_per_s : INFINITY;
}
