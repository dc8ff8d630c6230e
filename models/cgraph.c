/* cgraph.c -- see cgraph.h. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/cgraph.h"

static const struct { const char *name; unsigned bit; } cg_names[] = {
	{ "attn", CG_ATTN }, { "mlp", CG_MLP }, { "moe_router", CG_MOE_ROUTER },
	{ "moe_preprocess", CG_MOE_ROUTER }, { "full_iteration", CG_FULL },
};

int cg_parse(const char *list, unsigned *bits, char *bad)
{
	const char *p = list;
	size_t k = sizeof cg_names / sizeof cg_names[0];

	*bits = 0;
	bad[0] = '\0';
	if (!*p)
		return 0;		/* "": no graphs */
	for (;; p++) {
		size_t n = strcspn(p, ","), i;
		for (i = 0; i < k; i++)
			if (strlen(cg_names[i].name) == n && strncmp(p, cg_names[i].name, n) == 0)
				break;
		if (i == k) {
			snprintf(bad, 32, "%.*s", (int)(n < 31 ? n : 31), p);
			return -1;
		}
		*bits |= cg_names[i].bit;
		p += n;
		if (*p != ',')
			return 0;
	}
}

/* A part's launches as issued: a captured part leaves only its replay's
 * own launch (replay_n: 1 counting kernels, 0 counting library-loop
 * launches, which the replay does not add). */
static double part(unsigned scope, unsigned bit, double n, double replay_n)
{
	if (n <= 0)
		return 0;
	return scope & bit ? replay_n : n;
}

/* The launches of a pass (pass_n), its second half (second_n: MLP or MoE
 * block) and the routed experts within it (routed_n, which no per-layer
 * graph captures), once the scope's graphs replay their parts. */
static double issued(unsigned scope, bool moe, double pass_n, double second_n,
		     double routed_n, double replay_n)
{
	second_n = fmin(second_n, pass_n);
	routed_n = fmin(routed_n, second_n);
	double first_n = pass_n - second_n;

	if (scope & CG_FULL)
		return 0;	/* one launch for the whole iteration */
	if (!moe)
		return part(scope, CG_ATTN, first_n, replay_n) +
		       part(scope, CG_MLP, second_n, replay_n);
	return part(scope, CG_ATTN, first_n, replay_n) +
	       part(scope, CG_MOE_ROUTER, second_n - routed_n, replay_n) + routed_n;
}

double cg_issued_kernels(unsigned scope, const struct cmp_cost *pass,
			 const struct cmp_cost *second, const struct cmp_cost *routed)
{
	return issued(scope, routed->kernels > 0, pass->kernels, second->kernels,
		      routed->kernels, 1);
}

double cg_issued_lib_kernels(unsigned scope, const struct cmp_cost *pass,
			     const struct cmp_cost *second, const struct cmp_cost *routed)
{
	return issued(scope, routed->kernels > 0, pass->lib_kernels, second->lib_kernels,
		      routed->lib_kernels, 0);
}
