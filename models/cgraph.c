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

/* A part's kernels as issued: none but the replay's launch if captured. */
static double part(unsigned scope, unsigned bit, double kernels)
{
	if (kernels <= 0)
		return 0;
	return scope & bit ? 1 : kernels;
}

double cg_issued_kernels(unsigned scope, const struct cmp_cost *pass,
			 const struct cmp_cost *second, const struct cmp_cost *routed)
{
	bool moe = routed->kernels > 0;
	double second_k = fmin(second->kernels, pass->kernels);
	double routed_k = fmin(routed->kernels, second_k);
	double first_k = pass->kernels - second_k;

	if (scope & CG_FULL)
		return 0;	/* one launch for the whole iteration */
	if (!moe)
		return part(scope, CG_ATTN, first_k) + part(scope, CG_MLP, second_k);
	return part(scope, CG_ATTN, first_k) +
	       part(scope, CG_MOE_ROUTER, second_k - routed_k) + routed_k;
}
