/*
 * net-topo-t.c -- fat trees and dragonflies: shape, and throughput of
 * traffic patterns under max-min fair sharing.
 *
 * Fat-tree counts are Al-Fares et al.'s (k pods, (k/2)^2 cores, 5k^2/4
 * switches, k^3/4 hosts).  A permutation that sends every host to a host
 * in another pod crosses the bisection; on a 1:1 tree with ECMP spread
 * every flow gets the full line rate, and 2:1 oversubscription at one tier
 * halves it.  Dragonfly (Kim et al. 2008): with all of group i sending to
 * group i+1, minimal routing puts all a*p flows of a group on its single
 * global link to the next group (1/(a*p) of injection each); Valiant's
 * detour through a random group spreads them over the a*h global links and
 * reaches about half; UGAL-L picks per flow.  Line rate here is HDR's
 * 25 GB/s times the catalog efficiency 0.97.
 */
#include <stdlib.h>

#include "tap.h"
#include "topologies/flow.h"
#include "topologies/topo.h"

#define LINE (25e9 * 0.97)

static struct net *make(struct net_params *p, const char **bad, struct err *e)
{
	struct net *net = net_new(p, bad, e);

	if (net == NULL && bad == NULL)
		tap_diag("net_new: %s", e->msg);
	return net;
}

static void one_gpu_nodes(struct net_params *p, int hosts)
{
	net_params_default(p);
	p->gpus = hosts;
	p->gpus_per_node = p->nics_per_node = p->domain_gpus = 1;
}

/* Flow k goes from src[k] to dst[k]; per source, the sum of its flows'
 * rates over LINE: the min and mean over sources. */
static void pairs(struct net *net, int n_flows, const int *src, const int *dst,
		  double *min, double *mean)
{
	struct err e = { 0 };
	struct flow_sys *fs = flow_sys_new(net->g.n_links, net->g.bw_Bps, NULL, 0, &e);
	int32_t path[NET_PATH_MAX], *ids = malloc(sizeof *ids * (size_t)n_flows);
	int n = net->p.gpus;
	double *per = calloc((size_t)n, sizeof *per);

	for (int k = 0; k < n_flows; k++) {
		int len = net_route(net, src[k], dst[k], 0, flow_link_load(fs), path);
		ids[k] = flow_add(fs, path, len, 1e9, 0, 0, 0, &e);
	}
	flow_solve(fs, 0);
	for (int k = 0; k < n_flows; k++)
		per[src[k]] += flow_rate_Bps(fs, ids[k]) / LINE;
	*min = 1e300;
	*mean = 0;
	for (int i = 0; i < n; i++) {
		*min = per[i] < *min ? per[i] : *min;
		*mean += per[i] / n;
	}
	free(per);
	free(ids);
	flow_sys_free(fs);
}

/* Every host i sends to dst[i]. */
static void pattern(struct net *net, const int *dst, double *min, double *mean)
{
	int n = net->p.gpus, *src = malloc(sizeof *src * (size_t)n);

	for (int i = 0; i < n; i++)
		src[i] = i;
	pairs(net, n, src, dst, min, mean);
	free(src);
}

static void shift(int n, int by, int *dst)
{
	for (int i = 0; i < n; i++)
		dst[i] = (i + by) % n;
}

/* Every host i sends to host i + by (mod hosts): the min over sources of
 * their rate over LINE; *mean, when asked, the mean. */
static double shifted_min(struct net *net, int by, double *mean)
{
	int n = net->p.gpus, *dst = malloc(sizeof *dst * (size_t)n);
	double mn, mn_mean;

	shift(n, by, dst);
	pattern(net, dst, &mn, &mn_mean);
	free(dst);
	if (mean)
		*mean = mn_mean;
	return mn;
}

/* A fat tree of radix k and this many tiers over one-GPU hosts. */
static void fat_tree_hosts(struct net_params *p, int hosts, int k, int tiers)
{
	one_gpu_nodes(p, hosts);
	p->ft.radix = k;
	p->ft.tiers = tiers;
}

static void fat_tree_k4(void)
{
	struct net_params p;
	struct err e = { 0 };

	fat_tree_hosts(&p, 16, 4, 3);
	struct net *net = make(&p, NULL, &e);
	struct ft *ft = net->ft;
	tap_ok(ft->n_pods == 4 && ft->n_leaf == 8 && ft->n_spine == 8 && ft->n_core == 4,
	       "k=4: 4 pods, 8 edge, 8 aggregation, (k/2)^2 = 4 core switches");
	tap_int(net->g.n_nodes - 16, 5 * 4 * 4 / 4, "k=4: 5k^2/4 = 20 switches");
	/* 16 host links + 8 edges x 2 up + 8 aggregation x 2 up, both ways. */
	tap_int(net->g.n_links, 2 * (16 + 16 + 16), "k=4: 48 cables, 96 directed links");
	tap_near(shifted_min(net, 4, NULL), 1.0, 1e-9,
		 "k=4 1:1, permutation across pods, ECMP spread: line rate");
	net_free(net);

	/* 2:1 at the leaf: 2 hosts and 1 uplink per edge switch (one port
	 * dark); pods of 2 edges x 2 hosts, 4 pods: the pod shift is 4. */
	p.ft.oversub[0] = 2;
	net = make(&p, NULL, &e);
	tap_ok(net->ft->d0 == 2 && net->ft->u0 == 1, "k=4 at 2:1: 2 down, 1 up");
	tap_near(shifted_min(net, 4, NULL), 0.5, 1e-9,
		 "k=4 2:1, permutation across pods: half rate");
	net_free(net);

	/* 1.3:1 has no whole split of 4 ports. */
	p.ft.oversub[0] = 1.3;
	const char *bad = NULL;
	net = make(&p, &bad, &e);
	tap_ok(net == NULL && bad && strcmp(bad, "network.fat_tree.oversubscription") == 0,
	       "k=4 at 1.3:1 is refused: %s", e.msg);
	net_free(net);
}

static void fat_tree_oversubscribed(void)
{
	struct net_params p;
	struct err e = { 0 };
	int dst[72];
	double mn, mean;

	/* k=6, leaves 4 down : 2 up; 6 pods of 3 leaves of 4 hosts = 72. */
	fat_tree_hosts(&p, 72, 6, 3);
	p.ft.oversub[0] = 2;
	struct net *net = make(&p, NULL, &e);
	tap_near(shifted_min(net, 12, NULL), 0.5, 1e-9,
		 "k=6, 2:1 at the leaf: permutation across pods at half rate");
	net_free(net);

	/* 2:1 at aggregation: leaves 3:3, aggregation 4 down : 2 up;
	 * 6 pods of 4 leaves of 3 hosts = 72. */
	p.ft.oversub[0] = 1;
	p.ft.oversub[1] = 2;
	net = make(&p, NULL, &e);
	tap_int(net->ft->d1, 4, "k=6, 2:1 at aggregation: 4 leaves per pod");
	tap_near(shifted_min(net, 12, NULL), 0.5, 1e-9,
		 "k=6, 2:1 at aggregation: permutation across pods at half rate");
	/* Inside a pod the spine tier is not crossed: line rate. */
	for (int i = 0; i < 72; i++)
		dst[i] = (i / 12) * 12 + (i % 12 + 3) % 12;
	pattern(net, dst, &mn, &mean);
	tap_near(mn, 1.0, 1e-9, "k=6, 2:1 at aggregation: permutation inside pods at line rate");
	net_free(net);
}

static void fat_tree_misc(void)
{
	struct net_params p;
	struct err e = { 0 };
	double mn, mean;
	const char *bad = NULL;

	/* Two tiers, radix 4: 4 leaves x 2 hosts, 2 spines. */
	one_gpu_nodes(&p, 8);
	p.ft.radix = 4;
	struct net *net = make(&p, NULL, &e);
	tap_ok(net->ft->tiers == 2 && net->ft->n_leaf == 4 && net->ft->n_spine == 2,
	       "leaf/spine radix 4: 4 leaves, 2 spines");
	tap_near(shifted_min(net, 2, NULL), 1.0, 1e-9,
		 "leaf/spine 1:1: permutation across leaves at line rate");
	net_free(net);

	/* Ten hosts need five leaves: a radix-4 spine has four ports. */
	fat_tree_hosts(&p, 10, 4, 2);
	net = make(&p, &bad, &e);
	tap_ok(net == NULL && bad && strcmp(bad, "cluster.gpus") == 0,
	       "more endpoints than a two-tier tree has ports: %s", e.msg);

	/* Partial pods: 12 hosts on k=4 three tiers fill 3 of 4 pods. */
	fat_tree_hosts(&p, 12, 4, 3);
	e.status = 0;
	net = make(&p, NULL, &e);
	tap_ok(net && net->ft->n_pods == 3 && net->ft->n_spine == 6 && net->ft->n_core == 4,
	       "12 hosts on k=4: 3 pods (the last may be partial), 4 cores");
	net_free(net);

	/* ECMP hash on k=8 (128 hosts): some uplinks collide. */
	fat_tree_hosts(&p, 128, 8, 3);
	p.ft.ecmp = ECMP_HASH;
	net = make(&p, NULL, &e);
	mn = shifted_min(net, 16, &mean);
	tap_diag("k=8 ECMP hash, pod shift: min %.3f, mean %.3f of line rate", mn, mean);
	tap_ok(mn < 1.0 && mean < 1.0 && mn > 0,
	       "ECMP hash: collisions lower the permutation below line rate");
	net_free(net);

	/* Rail-optimised: 4 nodes x 4 GPUs/NICs, radix 8 (4 down): NIC i of
	 * every node on leaf i; same-rail traffic crosses one leaf. */
	net_params_default(&p);
	p.gpus = 16;
	p.gpus_per_node = p.nics_per_node = p.domain_gpus = 4;
	p.ft.radix = 8;
	net = make(&p, NULL, &e);
	int ok = 1;
	for (int n = 0; n < 4; n++)
		for (int i = 0; i < 4; i++)
			ok &= net->ft->ep_leaf[n * 4 + i] == i;
	tap_ok(ok, "rail-optimised: NIC i of each node on leaf i");
	int32_t path[NET_PATH_MAX];
	tap_int(net_route(net, 1, 13, 0, NULL, path), 2, "same rail, other node: NIC-leaf-NIC");
	tap_int(net_route(net, 1, 14, 0, NULL, path), 4, "other rail: through a spine");
	tap_int(net_route(net, 1, 2, 0, NULL, path), 2, "same node: NVLink through the NVSwitch");
	net_free(net);
}

static void scale_up_and_pcie(void)
{
	struct net_params p;
	struct err e = { 0 };
	int32_t path[NET_PATH_MAX];

	/* NVL72: 144 GPUs in nodes of 4, NVLink domains of 72 (18 nodes):
	 * GPU 0 and GPU 71 are in different nodes but one domain (2 NVLink
	 * hops); GPU 71 and 72 are in different domains (the fabric). */
	net_params_default(&p);
	p.gpus = 144;
	p.gpus_per_node = p.nics_per_node = 4;
	p.domain_gpus = 72;
	p.ft.radix = 64;
	struct net *net = make(&p, NULL, &e);
	int n = net_route(net, 0, 71, 0, NULL, path);
	tap_ok(n == 2 && net->g.tier[path[0]] == TIER_NVLINK,
	       "NVL72: GPUs 0 and 71 (nodes 0 and 17) talk over NVLink");
	n = net_route(net, 71, 72, 0, NULL, path);
	tap_ok(n >= 2 && net->g.tier[path[0]] == TIER_LEAF,
	       "NVL72: GPUs 71 and 72 (two domains) talk over the fabric");
	net_free(net);

	/* 8 GPUs share 2 NICs per node over PCIe: GPU 5 of node 0 reaches
	 * node 1 via PCIe to NIC 1 (GPUs 4-7), the fabric, PCIe to the GPU;
	 * four GPUs sending at once split their NIC's 25 GB/s. */
	net_params_default(&p);
	p.gpus = 16;
	p.nics_per_node = 2;
	p.domain_gpus = 1;
	net = make(&p, NULL, &e);
	n = net_route(net, 5, 13, 0, NULL, path);
	tap_ok(n == 4 && net->g.tier[path[0]] == TIER_PCIE && net->g.tier[path[3]] == TIER_PCIE,
	       "shared NICs: PCIe, NIC-leaf-NIC, PCIe");
	int dst[16];
	double mn, mean;
	for (int i = 0; i < 16; i++)
		dst[i] = (i + 8) % 16;
	pattern(net, dst, &mn, &mean);
	tap_near(mn, 0.25, 1e-9, "4 GPUs per NIC: a quarter of the NIC each");
	net_free(net);
}

static struct net *dragonfly(int p_, int a, int h, int g, enum df_routing r)
{
	struct net_params p;
	struct err e = { 0 };

	one_gpu_nodes(&p, p_ * a * g);
	p.topology = TOPO_DRAGONFLY;
	p.df = (struct df_params){ p_, a, h, g, DF_ABSOLUTE, r };
	return make(&p, NULL, &e);
}

static void dragonfly_shape(void)
{
	struct net *net = dragonfly(2, 4, 2, 9, DF_MINIMAL);
	/* 9 groups x 4 routers; 72 terminal, 9 x 6 local, 9 x 8 / 2 global. */
	tap_int(net->g.n_nodes - 72, 36, "p=2 a=4 h=2 g=9: 36 routers");
	tap_int(net->g.n_links, 2 * (72 + 54 + 36), "72 terminal + 54 local + 36 global cables");
	int all = 1;
	for (int i = 0; i < 9 * 8; i++)
		all &= net->df->global[i] >= 0;
	tap_ok(all, "g = a*h+1: every global port is used");
	net_free(net);

	struct net_params p;
	struct err e = { 0 };
	const char *bad = NULL;
	one_gpu_nodes(&p, 80);
	p.topology = TOPO_DRAGONFLY;
	p.df = (struct df_params){ 2, 4, 2, 10, DF_ABSOLUTE, DF_MINIMAL };
	net = make(&p, &bad, &e);
	tap_ok(net == NULL && bad && strcmp(bad, "network.dragonfly.g") == 0,
	       "g = 10 > a*h+1 = 9 is refused: %s", e.msg);

	/* Relative arrangement, g = 5 < 9: two parallel links per pair. */
	one_gpu_nodes(&p, 40);
	p.topology = TOPO_DRAGONFLY;
	p.df = (struct df_params){ 2, 4, 2, 5, DF_RELATIVE, DF_MINIMAL };
	e.status = 0;
	net = make(&p, NULL, &e);
	tap_ok(net && net->df->copies == 2, "g=5: floor(8/4) = 2 links between each pair");
	tap_near(shifted_min(net, 8, NULL), 2.0 / 8, 1e-9,
		 "relative, group i -> i+1, minimal: 2 links for 8 flows");
	net_free(net);
}

static void dragonfly_traffic(void)
{
	int dst[72];
	double mn, m_min, m_val, m_ugal;

	shift(72, 8, dst);	/* every group to the next (a*p = 8) */
	struct net *net = dragonfly(2, 4, 2, 9, DF_MINIMAL);
	pattern(net, dst, &mn, &m_min);
	net_free(net);
	tap_near(m_min, 1.0 / 8, 1e-9, "adversarial, minimal: 1/(a*p) = 1/8 of injection");
	net = dragonfly(2, 4, 2, 9, DF_VALIANT);
	pattern(net, dst, &mn, &m_val);
	net_free(net);
	tap_diag("adversarial, Valiant: mean %.3f of injection", m_val);
	tap_ok(m_val > 0.35 && m_val <= 0.6, "adversarial, Valiant: about half of injection");
	net = dragonfly(2, 4, 2, 9, DF_UGAL);
	pattern(net, dst, &mn, &m_ugal);
	net_free(net);
	double best = m_val > m_min ? m_val : m_min;
	tap_diag("adversarial, UGAL-L: mean %.3f (best of the two %.3f)", m_ugal, best);
	tap_ok(m_ugal >= 0.85 * best, "adversarial, UGAL-L within 15%% of the better one");

	/* Uniform random traffic: in a flow model, every host sending to
	 * every other host alike (the expected load of uniformly random
	 * packets).  Per group pair 8 x 8 flows share one global link while a
	 * terminal link carries 71: the terminals are the bottleneck. */
	int nf = 72 * 71, *s = malloc(sizeof *s * (size_t)nf);
	int *d = malloc(sizeof *d * (size_t)nf), k = 0;
	for (int i = 0; i < 72; i++)
		for (int j = 0; j < 72; j++)
			if (i != j) {
				s[k] = i;
				d[k++] = j;
			}
	net = dragonfly(2, 4, 2, 9, DF_MINIMAL);
	pairs(net, nf, s, d, &mn, &m_min);
	net_free(net);
	net = dragonfly(2, 4, 2, 9, DF_UGAL);
	pairs(net, nf, s, d, &mn, &m_ugal);
	net_free(net);
	free(s);
	free(d);
	tap_diag("uniform random: minimal %.3f, UGAL-L %.3f of injection", m_min, m_ugal);
	tap_ok(m_min >= 0.9, "uniform random traffic, minimal: near full rate");
	tap_ok(m_ugal >= 0.85 * m_min, "uniform random traffic, UGAL-L within 15%% of minimal");
}

int main(void)
{
	tap_plan(35);
	fat_tree_k4();
	fat_tree_oversubscribed();
	fat_tree_misc();
	scale_up_and_pcie();
	dragonfly_shape();
	dragonfly_traffic();
	return tap_done();
}
