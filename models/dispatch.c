/* dispatch.c -- see dispatch.h. */
#include <math.h>

#include "models/dispatch.h"

static double log_choose(double n, double k)
{
	return lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1);
}

/* The chance that k experts drawn without replacement from a pool of P
 * all miss the x of them in one bin: C(P - x, k) / C(P, k). */
static double miss(double P, double x, int k)
{
	double q = 1;

	for (int i = 0; i < k; i++)
		q *= P - x - i > 0 ? (P - x - i) / (P - i) : 0;
	return q;
}

double disp_distinct(const struct tfm_moe *x, int bins)
{
	int E = x->experts, k = x->top_k;
	int G = x->groups > 0 ? x->groups : 1;
	int tk = x->groups > 0 && x->group_topk > 0 ? x->group_topk : G;
	double pool = (double)tk * E / G, p_miss = 0;

	if (bins <= 1 || E <= 0)
		return bins == 1 ? 1 : 0;
	if (G >= bins && G % bins == 0) {
		/* r groups per bin; how many of them are chosen is
		 * hypergeometric, and a chosen one brings E/G experts */
		int r = G / bins;
		for (int c = 0; c <= r && c <= tk; c++) {
			if (tk - c > G - r)
				continue;
			double p = exp(log_choose(r, c) + log_choose(G - r, tk - c) -
				       log_choose(G, tk));
			p_miss += p * miss(pool, (double)c * E / G, k);
		}
	} else if (G < bins && bins % G == 0) {
		/* a bin lies inside one group: in the pool or not */
		double chosen = (double)tk / G;
		p_miss = 1 - chosen + chosen * miss(pool, (double)E / bins, k);
	} else {
		return -1;
	}
	return bins * (1 - p_miss);
}
