/*
 * step_sym.c -- may the step model launch one DP group per pipeline stage
 * instead of all tp of them?
 *
 * The tp data-parallel groups of a stage (TP rank i of every replica) start
 * identical collectives at the same instant.  When no fabric link carries
 * traffic of two of them, they cannot slow each other down, max-min fair
 * sharing gives them identical rates, and one of them stands for all: the
 * netsim then carries 1/tp of the flows (tier bytes are scaled back).  This
 * holds on a rail-optimised fat tree, where NIC i of every node sits on the
 * rail-i leaves.  The check routes, on the fat tree, every ring neighbour
 * pair of every group in both directions over several ECMP keys and
 * requires each link to belong to one TP rank only.  Collectives of
 * different stages still share the netsim and contend.  Dragonflies route
 * adaptively, so no such shortcut is taken there.
 */
#include <stdlib.h>

#include "models/step.h"
#include "topologies/topo.h"

#define SYM_KEYS 4	/* ECMP keys tried per pair (NCCL channels differ by key) */

static int claim(int32_t *owner, const int32_t *links, int n, int rank)
{
	for (int l = 0; l < n; l++) {
		if (owner[links[l]] == -1)
			owner[links[l]] = rank;
		else if (owner[links[l]] != rank)
			return -1;
	}
	return 0;
}

int step_dp_rails_disjoint(struct net *net, const int *rank_gpu, int tp, int pp,
			   int dp, bool *disjoint, struct err *e)
{
	int32_t path[NET_PATH_MAX];
	int32_t *owner;

	*disjoint = false;
	if (tp <= 1 || dp <= 1 || net->df || !net->ft)
		return 0;
	owner = malloc((size_t)net->g.n_links * sizeof *owner);
	if (!owner)
		return err_set(e, ERR_RUN, "step: out of memory");
	for (int32_t l = 0; l < net->g.n_links; l++)
		owner[l] = -1;
	*disjoint = true;
	for (int k = 0; k < pp && *disjoint; k++)
		for (int i = 0; i < tp && *disjoint; i++)
			for (int j = 0; j < dp && *disjoint; j++) {
				int a = rank_gpu[i + tp * (j + dp * k)];
				int b = rank_gpu[i + tp * ((j + 1) % dp + dp * k)];
				for (uint64_t key = 0; key < SYM_KEYS && *disjoint; key++) {
					int n = net_route(net, a, b, key, NULL, path);
					int m = n < 0 ? -1 : claim(owner, path, n, i);
					if (m == 0) {
						n = net_route(net, b, a, key, NULL, path);
						m = n < 0 ? -1 : claim(owner, path, n, i);
					}
					if (m < 0)
						*disjoint = false;
				}
			}
	free(owner);
	return 0;
}
