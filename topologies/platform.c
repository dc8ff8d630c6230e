/* platform.c -- see platform.h. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "topologies/platform.h"
#include "topologies/topo.h"

static int64_t ceil_div(int64_t a, int64_t b)
{
	return b > 0 ? (a + b - 1) / b : 0;
}

/* Fat tree: the builder's leaves, spines (aggregation) and cores. */
static void count_fat_tree(const struct ft *ft, double switch_w, struct platform *pf)
{
	struct platform_tier *leaf = &pf->tier[TIER_LEAF];
	struct platform_tier *spine = &pf->tier[TIER_SPINE];
	struct platform_tier *core = &pf->tier[TIER_CORE];
	int64_t k = ft->radix;

	leaf->switches = ft->n_leaf;
	leaf->switch_ports = (int64_t)ft->n_ep + (int64_t)ft->n_leaf * ft->u0;
	/* a spine or core: one port per leaf or pod, packed into crossbars */
	spine->switch_ports = (int64_t)ft->n_leaf * ft->u0;
	if (ft->tiers == 2) {
		spine->switches = ceil_div(spine->switch_ports, k);
	} else {
		spine->switches = ft->n_spine;
		spine->switch_ports += (int64_t)ft->n_spine * ft->u1;
		core->switch_ports = (int64_t)ft->n_spine * ft->u1;
		core->switches = ceil_div(core->switch_ports, k);
	}
	leaf->switch_w = spine->switch_w = core->switch_w = switch_w;
	pf->switch_radix = ft->radix;
}

/* Dragonfly: a*g routers of p + (a-1) + h ports, each one switch of the
 * catalog's radix (or several when the router has more ports). */
static void count_dragonfly(const struct df *df, const struct link_spec *s,
			    struct platform *pf)
{
	struct platform_tier *t = &pf->tier[TIER_TERMINAL];
	int64_t ports = (int64_t)df->p + df->a - 1 + df->h;
	int64_t k = s->switch_radix > 0 ? s->switch_radix : ports;

	t->switches = (int64_t)df->a * df->g * ceil_div(ports, k);
	t->switch_ports = pf->tier[TIER_TERMINAL].cables +
			  2 * (pf->tier[TIER_LOCAL].cables + pf->tier[TIER_GLOBAL].cables);
	t->switch_w = s->switch_w;
	pf->switch_radix = (int)k;
}

void platform_of_net(const struct net *net, struct platform *pf)
{
	const struct net_params *p = &net->p;

	memset(pf, 0, sizeof *pf);
	pf->gpus = p->gpus;
	pf->gpus_per_node = p->gpus_per_node;
	pf->nodes = net->n_nodes;
	for (int t = 0; t < TIER_COUNT; t++)
		pf->tier[t].name = graph_tier_names[t];
	for (int32_t l = 0; l < net->g.n_links; l += 2)
		pf->tier[net->g.tier[l]].cables++;
	for (int t = 0; t < TIER_COUNT; t++) {
		struct platform_tier *pt = &pf->tier[t];
		const struct link_spec *s = net_tier_spec(net, t);
		if (pt->cables > 0)
			snprintf(pt->link, sizeof pt->link, "%s", s->name);
		pt->transceiver_w = s->transceiver_w;
		pt->pj_per_bit = s->pj_per_bit;
	}
	if (net->nvl_link0 >= 0) {	/* one NVSwitch fabric per domain */
		pf->tier[TIER_NVLINK].switches = p->gpus / p->domain_gpus;
		pf->tier[TIER_NVLINK].switch_ports = p->gpus;
	}
	/* One scale-up domain holding every GPU: no route leaves it, so the
	 * fabric the builder attached carries nothing and no switch of it is
	 * bought (its NICs, in the nodes, still count). */
	bool fabric_used = p->gpus > p->domain_gpus;
	for (int t = TIER_LEAF; !fabric_used && t < TIER_COUNT; t++)
		pf->tier[t].transceiver_w = 0;
	if (!fabric_used) {
		/* nothing */
	} else if (net->ft) {
		/* A fat tree of another radix than the catalog's switch: that
		 * switch's power per port times the ports built. */
		double ports = p->scale_out.switch_radix > 0 ?
			       (double)net->ft->radix / p->scale_out.switch_radix : 1;
		count_fat_tree(net->ft, p->scale_out.switch_w * ports, pf);
		pf->switch_embodied_kg = p->scale_out.switch_embodied_kg * ports;
	} else if (net->df) {
		count_dragonfly(net->df, &p->scale_out, pf);
		pf->switch_embodied_kg = p->scale_out.switch_embodied_kg;
	}
	if (p->topology != TOPO_NONE) {
		pf->nics = net->n_ep;
		pf->nic_w = p->scale_out.nic_w;
		pf->nic_embodied_kg = p->scale_out.nic_embodied_kg;
	}
	pf->idle_w = pf->nics * pf->nic_w;
	for (int t = 0; t < TIER_COUNT; t++) {
		struct platform_tier *pt = &pf->tier[t];
		pt->idle_w = (double)pt->switches * pt->switch_w +
			     2.0 * (double)pt->cables * pt->transceiver_w;
		pf->idle_w += pt->idle_w;
		if (t != TIER_NVLINK)
			pf->switches += pt->switches;
	}
	pf->embodied_kg = (double)pf->switches * pf->switch_embodied_kg +
			  pf->nics * pf->nic_embodied_kg;
}

int platform_from_cfg(const struct net_cfg *c, struct platform *pf, struct err *e)
{
	struct net *net = net_build(c, e);

	if (net == NULL)
		return -1;
	platform_of_net(net, pf);
	net_free(net);
	return 0;
}

int platform_tier_index(const char *name)
{
	for (int t = 0; t < TIER_COUNT; t++)
		if (strcmp(name, graph_tier_names[t]) == 0)
			return t;
	return -1;
}

double platform_traffic_w(const struct platform *pf,
			  const double bytes_per_s[TIER_COUNT])
{
	double w = 0;

	for (int t = 0; t < TIER_COUNT; t++)
		w += bytes_per_s[t] * 8 * pf->tier[t].pj_per_bit * 1e-12;
	return w;
}

void platform_print(const struct platform *pf, FILE *out)
{
	fprintf(out, "network_idle_w         %.0f  (", pf->idle_w);
	if (pf->switches > 0)
		fprintf(out, "%lld switches of %d ports, ", (long long)pf->switches,
			pf->switch_radix);
	fprintf(out, "%d NICs x %.4g W)\n", pf->nics, pf->nic_w);
	for (int t = 0; t < TIER_COUNT; t++) {
		const struct platform_tier *pt = &pf->tier[t];
		if (pt->cables == 0)
			continue;
		fprintf(out, "  %-20s %s: %lld cables, %.4g pJ/bit", pt->name, pt->link,
			(long long)pt->cables, pt->pj_per_bit);
		if (pt->switches > 0)
			fprintf(out, "; %lld switches above, %.4g W each", (long long)pt->switches,
				pt->switch_w);
		fputc('\n', out);
	}
}
