/*
 * fattree.c -- folded-Clos fabrics: two-tier leaf/spine and three-tier
 * k-ary fat trees (Al-Fares, Loukissas, Vahdat, SIGCOMM 2008), any size up
 * to the radix's limit (the last unit or pod may be partial).
 *
 * All switches have `radix` ports (even).  A leaf uses d0 down to NICs
 * and u0 up, with d0:u0 the leaf oversubscription (1:1 gives Al-Fares' k/2
 * and k/2; 2:1 on 40 ports is 26 and 13, one port dark).  Two tiers: u0 spines, leaf l's uplink j goes to spine j,
 * so a spine needs one port per leaf (at most radix leaves).  Three tiers:
 * a pod holds d1 leaves and u0 aggregation switches (leaf uplink j to the
 * pod's aggregation switch j); aggregation splits d1 down and u1 up, d1:u1
 * being the spine oversubscription; core switches form u0 groups of u1 and
 * aggregation switch j of every pod reaches core group j, one port per pod
 * (at most radix pods).  Full k-ary: k pods, (k/2)^2 cores, k^3/4 hosts.
 *
 * Endpoints (NIC ports, or GPUs with their own NIC) fill leaves in order,
 * or rail-optimised as in NVIDIA's DGX SuperPOD: a scalable unit of d0
 * nodes has one leaf per NIC index (rail), NIC i of each node on leaf i,
 * so traffic between the same rails of two nodes of a unit stays on one
 * leaf.
 *
 * Routing is up/down: up to the lowest common ancestor, choosing among the
 * equal-cost uplinks by ECMP (route.c), then down the unique path.  With
 * `spread` the uplink follows the source's port (plus the flow's key), so a
 * leaf's flows take distinct uplinks: a shift permutation runs at line rate
 * on a 1:1 tree, the textbook full-bisection result.
 */
#include <stdlib.h>
#include <math.h>

#include "topologies/topo.h"

/* Ports down and up for a down:up ratio r on k ports: the most uplinks
 * u with u + r*u <= k and r*u whole (spare ports stay dark, as when a
 * radix-40 switch runs 2:1 as 26 down and 13 up).  -1 if none. */
static int split_ports(int k, double r, int *down, int *up)
{
	for (int u = (int)floor(k / (1.0 + r) + 1e-9); u >= 1; u--) {
		double d = r * u, di = floor(d + 0.5);
		if (fabs(d - di) <= 1e-9 && di >= 1 && di + u <= k) {
			*down = (int)di;
			*up = u;
			return 0;
		}
	}
	return -1;
}

int ft_leaf_down_ports(const struct ft_params *p, int k)
{
	int d0, u0;

	return k >= 4 && k % 2 == 0 && split_ports(k, p->oversub[0], &d0, &u0) == 0 ? d0 : -1;
}

static struct ft *ft_fail(struct ft *ft)
{
	ft_free(ft);
	return NULL;
}

/* Where each endpoint sits: leaf and port; returns the number of leaves. */
static int32_t place_endpoints(struct ft *ft, int nics_per_node)
{
	int d0 = ft->d0;

	if (ft->rail && nics_per_node > 1) {
		int nodes = ft->n_ep / nics_per_node;
		int units = (nodes + d0 - 1) / d0;
		for (int e = 0; e < ft->n_ep; e++) {
			int node = e / nics_per_node, i = e % nics_per_node;
			ft->ep_leaf[e] = (node / d0) * nics_per_node + i;
			ft->ep_port[e] = node % d0;
		}
		return (int32_t)units * nics_per_node;
	}
	for (int e = 0; e < ft->n_ep; e++) {
		ft->ep_leaf[e] = e / d0;
		ft->ep_port[e] = e % d0;
	}
	return (ft->n_ep + d0 - 1) / d0;
}

static int check_shape(struct ft *ft, const struct ft_params *p,
		       const char **bad_key, struct err *e)
{
	int k = ft->radix;

	if (k < 4 || k % 2 != 0) {
		*bad_key = "network.fat_tree.radix";
		return err_set(e, ERR_USAGE, "radix %d cannot build a fat tree "
			       "(expected an even number of ports, at least 4)", k);
	}
	if (p->tiers != 0 && p->tiers != 2 && p->tiers != 3) {
		*bad_key = "network.fat_tree.tiers";
		return err_set(e, ERR_USAGE, "%d tiers (expected 2, 3, or 0 for the "
			       "fewest that fit)", p->tiers);
	}
	if (split_ports(k, p->oversub[0], &ft->d0, &ft->u0) < 0 ||
	    split_ports(k, p->oversub[1], &ft->d1, &ft->u1) < 0) {
		*bad_key = "network.fat_tree.oversubscription";
		return err_set(e, ERR_USAGE, "no whole numbers of ports down and up "
			       "on %d ports give %g:1 (expected a ratio such as 1, 2, "
			       "3 or 1.5)", k, p->oversub[0] != 1 &&
			       split_ports(k, p->oversub[0], &ft->d0, &ft->u0) < 0 ?
			       p->oversub[0] : p->oversub[1]);
	}
	return 0;
}

struct ft *ft_build(struct graph *g, const struct ft_params *p, int n_ep,
		    int nics_per_node, const int32_t *ep_node,
		    const struct link_spec *link, const char **bad_key,
		    struct err *e)
{
	struct ft *ft = calloc(1, sizeof *ft);

	if (ft == NULL) {
		err_set(e, ERR_RUN, "out of memory for the fat tree");
		return NULL;
	}
	ft->radix = p->radix;
	ft->rail = p->rail_optimized;
	ft->ecmp = p->ecmp;
	ft->n_ep = n_ep;
	if (check_shape(ft, p, bad_key, e) < 0)
		return ft_fail(ft);
	ft->ep_leaf = malloc(sizeof *ft->ep_leaf * (size_t)n_ep);
	ft->ep_port = malloc(sizeof *ft->ep_port * (size_t)n_ep);
	if (!ft->ep_leaf || !ft->ep_port) {
		err_set(e, ERR_RUN, "out of memory for the fat tree");
		return ft_fail(ft);
	}
	int k = ft->radix;
	ft->n_leaf = place_endpoints(ft, nics_per_node);
	ft->tiers = p->tiers ? p->tiers : (ft->n_leaf <= k ? 2 : 3);
	if (ft->tiers == 2) {
		if (ft->n_leaf > k) {
			*bad_key = "cluster.gpus";
			err_set(e, ERR_USAGE, "%d NIC ports need %d leaf switches, but a "
				"two-tier fat tree of radix %d has room for %d (at most "
				"%d endpoints); use network.fat_tree.tiers = 3",
				n_ep, ft->n_leaf, k, k, k * ft->d0);
			return ft_fail(ft);
		}
		ft->n_spine = ft->u0;
		ft->n_pods = 1;
	} else {
		ft->n_pods = (ft->n_leaf + ft->d1 - 1) / ft->d1;
		if (ft->n_pods > k) {
			*bad_key = "cluster.gpus";
			err_set(e, ERR_USAGE, "%d NIC ports need %d pods, but a three-tier "
				"fat tree of radix %d has room for %d (at most %lld "
				"endpoints)", n_ep, ft->n_pods, k, k,
				(long long)k * ft->d1 * ft->d0);
			return ft_fail(ft);
		}
		ft->n_spine = ft->n_pods * ft->u0;
		ft->n_core = ft->u0 * ft->u1;
	}

	int32_t leaf0 = graph_add_nodes(g, NODE_SWITCH, ft->n_leaf, e);
	int32_t spine0 = graph_add_nodes(g, NODE_SWITCH, ft->n_spine, e);
	int32_t core0 = graph_add_nodes(g, NODE_SWITCH, ft->n_core, e);
	int64_t n_links = (int64_t)n_ep + (int64_t)ft->n_leaf * ft->u0 +
			  (int64_t)ft->n_spine * (ft->tiers == 3 ? ft->u1 : 0);
	if (leaf0 < 0 || spine0 < 0 || core0 < 0 || n_links > INT32_MAX / 2 ||
	    graph_reserve_links(g, 2 * (int32_t)n_links, e) < 0)
		return ft_fail(ft);

	double bw = link->bw_Bps * link->efficiency;
	int32_t lat = (int32_t)link->latency_ns;
	ft->ep_link0 = g->n_links;
	for (int i = 0; i < n_ep; i++)
		if (graph_add_duplex(g, ep_node[i], leaf0 + ft->ep_leaf[i], bw, lat,
				     TIER_LEAF, e) < 0)
			return ft_fail(ft);
	ft->leaf_link0 = g->n_links;
	for (int l = 0; l < ft->n_leaf; l++)
		for (int j = 0; j < ft->u0; j++) {
			int32_t up = ft->tiers == 2 ? j : (l / ft->d1) * ft->u0 + j;
			if (graph_add_duplex(g, leaf0 + l, spine0 + up, bw, lat,
					     TIER_SPINE, e) < 0)
				return ft_fail(ft);
		}
	ft->agg_link0 = g->n_links;
	if (ft->tiers == 3)
		for (int s = 0; s < ft->n_spine; s++)
			for (int m = 0; m < ft->u1; m++) {
				int32_t c = (s % ft->u0) * ft->u1 + m;
				if (graph_add_duplex(g, spine0 + s, core0 + c, bw, lat,
						     TIER_CORE, e) < 0)
					return ft_fail(ft);
			}
	return ft;
}

void ft_free(struct ft *ft)
{
	if (ft == NULL)
		return;
	free(ft->ep_leaf);
	free(ft->ep_port);
	free(ft);
}

int ft_route(const struct ft *ft, int32_t es, int32_t ed, uint64_t key,
	     int32_t *out)
{
	int32_t ls = ft->ep_leaf[es], ld = ft->ep_leaf[ed];
	int n = 0;

	out[n++] = ft->ep_link0 + 2 * es;
	if (ls != ld) {
		uint64_t slot = (uint64_t)ft->ep_port[es] + key;
		uint64_t h = route_hash3((uint64_t)es, (uint64_t)ed, key);
		int j = route_pick(ft->ecmp, ft->u0, slot, h);
		int32_t up_s = ft->leaf_link0 + 2 * (ls * ft->u0 + j);
		int32_t up_d = ft->leaf_link0 + 2 * (ld * ft->u0 + j);
		out[n++] = up_s;
		if (ft->tiers == 3 && ls / ft->d1 != ld / ft->d1) {
			/* Leaves of a pod spread over the cores too. */
			int per_up = (ft->d0 + ft->u0 - 1) / ft->u0;
			uint64_t slot1 = (uint64_t)(ls % ft->d1) * per_up + slot / ft->u0;
			int m = route_pick(ft->ecmp, ft->u1, slot1, h / ft->u0);
			int32_t ss = (ls / ft->d1) * ft->u0 + j;
			int32_t sd = (ld / ft->d1) * ft->u0 + j;
			out[n++] = ft->agg_link0 + 2 * (ss * ft->u1 + m);
			out[n++] = (ft->agg_link0 + 2 * (sd * ft->u1 + m)) ^ 1;
		}
		out[n++] = up_d ^ 1;
	}
	out[n++] = (ft->ep_link0 + 2 * ed) ^ 1;
	return n;
}
