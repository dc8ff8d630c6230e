/*
 * step_sym.c -- may the step model launch one DP group per pipeline stage
 * instead of all tp of them, or time DP collectives alone?
 *
 * The tp data-parallel groups of a stage (TP rank i of every replica) start
 * identical collectives at the same instant.  When no fabric link carries
 * traffic of groups of two TP ranks (of any stages), rail i's groups meet
 * exactly the contention rail 0's meet, max-min fair sharing gives them the
 * same rates, and TP rank 0's group stands for its stage: the netsim then
 * carries 1/tp of the flows (tier bytes are scaled back).  This
 * holds on a rail-optimised fat tree, where NIC i of every node sits on the
 * rail-i leaves.  When moreover no link is shared by groups of different
 * stages (each stage's replicas in their own pod, say), no two DP
 * collectives ever share a link and each takes its time alone on the
 * fabric: the netsim is not needed at all.  The check routes, on the fat
 * tree, every ring-neighbour pair of every group in both directions over
 * several ECMP keys and records which group owns each link.  Otherwise
 * collectives of different stages share the netsim and contend.
 * Dragonflies route adaptively, so no shortcut is taken there.
 */
#include <stdlib.h>

#include "models/step.h"
#include "topologies/topo.h"

#define SYM_KEYS 4	/* ECMP keys tried per pair (NCCL channels differ by key) */

/* Give the links of one route to group g = k tp + i; note a clash with a
 * group of another TP rank (any stage: rail i's groups would no longer see
 * the same contention as rail 0's) or with any other group. */
static void claim(int32_t *owner, const int32_t *links, int n, int g, int tp,
		  struct step_sym *sym)
{
	for (int l = 0; l < n; l++) {
		int o = owner[links[l]];
		if (o == -1) {
			owner[links[l]] = g;
		} else if (o != g) {
			if (o % tp != g % tp)
				sym->rails_disjoint = false;
			sym->all_disjoint = false;
		}
	}
}

int step_dp_symmetry(struct net *net, const int *rank_gpu, int tp, int pp, int dp,
		     struct step_sym *sym, struct err *e)
{
	int32_t path[NET_PATH_MAX];
	int32_t *owner;

	sym->rails_disjoint = sym->all_disjoint = false;
	if (dp <= 1 || net->df || !net->ft)
		return 0;
	owner = malloc((size_t)net->g.n_links * sizeof *owner);
	if (!owner)
		return err_set(e, ERR_RUN, "step: out of memory");
	for (int32_t l = 0; l < net->g.n_links; l++)
		owner[l] = -1;
	sym->rails_disjoint = sym->all_disjoint = true;
	for (int k = 0; k < pp && sym->rails_disjoint; k++)
		for (int i = 0; i < tp && sym->rails_disjoint; i++)
			for (int j = 0; j < dp; j++) {
				int a = rank_gpu[i + tp * (j + dp * k)];
				int b = rank_gpu[i + tp * ((j + 1) % dp + dp * k)];
				for (uint64_t key = 0; key < SYM_KEYS; key++) {
					int n = net_route(net, a, b, key, NULL, path);
					if (n > 0)
						claim(owner, path, n, k * tp + i, tp, sym);
					n = net_route(net, b, a, key, NULL, path);
					if (n > 0)
						claim(owner, path, n, k * tp + i, tp, sym);
				}
			}
	if (!sym->rails_disjoint)
		sym->all_disjoint = false;
	if (tp <= 1)
		sym->rails_disjoint = false;	/* nothing to stand for */
	free(owner);
	return 0;
}
