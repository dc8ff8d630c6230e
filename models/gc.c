/* gc.c -- see gc.h. */
#include <math.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_randist.h>

#include "models/gc.h"

const struct cfg_setting gc_settings[] = {
	{ "gc.mode", CFG_ENUM, "", 0, 0, "off", "off|auto|manual",
	  "off; auto: each rank pauses on its own; manual: all ranks every every_iters" },
	{ "gc.interval_s", CFG_FLOAT, "s", 1e-3, 1e9, "300", NULL,
	  "auto: mean compute time between two pauses of one rank (assumed)" },
	{ "gc.pause_s", CFG_FLOAT, "s", 0, 1e5, "1.3", NULL,
	  "length of one collection (marin PR #9224: 1.25-1.46 s gen-2)" },
	{ "gc.pause_distribution", CFG_ENUM, "", 0, 0, "fixed", "fixed|exponential",
	  "auto: pause lengths fixed or exponential with mean pause_s" },
	{ "gc.every_iters", CFG_INT, "iterations", 1, 1e9, "100", NULL,
	  "manual: iterations between collections (Megatron --manual-gc-interval)" },
	CFG_END
};

void gc_from_scenario(const struct scenario *sc, struct gc *g)
{
	const char *m = sc_str(sc, "gc.mode");

	memset(g, 0, sizeof *g);
	g->mode = strcmp(m, "auto") == 0 ? GC_AUTO : strcmp(m, "manual") == 0 ? GC_MANUAL
									       : GC_OFF;
	g->interval_s = sc_float(sc, "gc.interval_s");
	g->pause_s = sc_float(sc, "gc.pause_s");
	g->pause_exponential = strcmp(sc_str(sc, "gc.pause_distribution"), "exponential") == 0;
	g->every_iters = sc_int(sc, "gc.every_iters");
}

/* Fixed pauses d: S = K d, K ~ Poisson(mu), so
 * E[max] = d sum_{k>=0} (1 - P(K <= k)^N). */
static double max_fixed(double mu, double d, long n)
{
	double sum = 0;

	for (unsigned k = 0; k < 100000; k++) {
		double q = gsl_cdf_poisson_Q(k, mu);	/* P(K > k) */
		double term = -expm1((double)n * log1p(-q));
		if (q >= 1)
			term = 1;
		sum += term;
		if (term < 1e-17 * (sum > 0 ? sum : 1) && k > mu)
			break;
	}
	return d * sum;
}

struct expo {
	double mu, d;
	long n;
	unsigned kmax;
};

/* 1 - F(x)^N with P(S > x) = sum_{k>=1} Pois(k; mu) Q_Gamma(x; k, d). */
static double expo_integrand(double x, void *arg)
{
	const struct expo *a = arg;
	double tail = 0;

	for (unsigned k = 1; k <= a->kmax; k++)
		tail += gsl_ran_poisson_pdf(k, a->mu) * gsl_cdf_gamma_Q(x, k, a->d);
	if (tail >= 1)
		return 1;
	return -expm1((double)a->n * log1p(-tail));
}

static double max_exponential(double mu, double d, long n)
{
	struct expo a = { mu, d, n, 0 };
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(200);
	gsl_function f = { expo_integrand, &a };
	double result = NAN, abserr;

	while (gsl_cdf_poisson_Q(a.kmax, mu) > 1e-18 && a.kmax < 100000)
		a.kmax++;
	if (w == NULL)
		return NAN;
	gsl_set_error_handler_off();
	gsl_integration_qagiu(&f, 0, 1e-12, 1e-10, 200, w, &result, &abserr);
	gsl_integration_workspace_free(w);
	return result;
}

double gc_expected_max_s(const struct gc *g, double step_s, long ranks)
{
	double mu = step_s / g->interval_s;	/* pauses per rank per step */

	if (g->pause_s <= 0 || ranks < 1 || mu <= 0)
		return 0;
	return g->pause_exponential ? max_exponential(mu, g->pause_s, ranks)
				    : max_fixed(mu, g->pause_s, ranks);
}

double gc_auto_s(const struct gc *g, double step_s, long ranks)
{
	return g->mode == GC_AUTO ? gc_expected_max_s(g, step_s, ranks) : 0;
}

double gc_manual_s(const struct gc *g)
{
	return g->mode == GC_MANUAL ? g->pause_s : 0;
}
