/*
 * net-b.c -- network benchmarks (issue 3's performance targets):
 *   - build a 100,000-GPU dragonfly and a 65,536-GPU three-tier fat tree
 *     (target: <= 2 s and <= 2 GB each);
 *   - solve one all-reduce step of 16,384 concurrent flows on a 16,384-GPU
 *     fat tree (target: <= 50 ms), and the incremental update after one
 *     flow starts (target: far cheaper than the full solve);
 *   - a whole 16,384-GPU ring all-reduce through net_coll_time_s.
 * Clusters are DGX-like: 8 GPUs and 8 NDR NICs per node, radix-64 switches.
 */
#include <stdio.h>
#include <stdlib.h>

#include "topologies/coll.h"
#include "topologies/flow.h"
#include "topologies/topo.h"
#include "bench.h"

static void ndr(struct net_params *p, int gpus)
{
	net_params_default(p);
	p->gpus = gpus;
	p->scale_out.bw_Bps = 400e9 / 8;
	p->scale_out.switch_radix = 64;
	p->ft.radix = 64;
}

static struct net *build(const char *what, struct net_params *p)
{
	struct err e = { 0 };
	double t0 = bench_now_s();
	struct net *net = net_new(p, NULL, &e);
	double t = bench_now_s() - t0;

	if (net == NULL) {
		fprintf(stderr, "%s: %s\n", what, e.msg);
		exit(1);
	}
	printf("%-40s %8.3f s  %8.1f MB held  (%d nodes, %d links; peak RSS %.0f MB)  %s\n",
	       what, t, net_bytes(net) / 1e6, net->g.n_nodes, net->g.n_links,
	       bench_peak_rss_kib() / 1024.0, t <= 2 && net_bytes(net) <= 2e9 ? "ok" : "OVER TARGET");
	return net;
}

/* pattern 0: one ring through all GPUs; 1: per-rail ring (same local GPU
 * on the next node); 2: a random permutation (one shared component). */
static void step_solve(struct net *net, const char *what, int pattern)
{
	struct err e = { 0 };
	int n = net->p.gpus, gpn = net->p.gpus_per_node;
	struct flow_sys *fs = flow_sys_new(net->g.n_links, net->g.bw_Bps,
					   net->g.tier, TIER_COUNT, &e);
	int32_t path[NET_PATH_MAX];

	double t0 = bench_now_s();
	for (int g = 0; g < n; g++) {
		/* Per-rail ring: same local GPU on the next node; or one ring
		 * through all GPUs in order. */
		int d = pattern == 1 ? (g + gpn) % n : (g + 1) % n;
		if (pattern == 2)
			d = (int)(route_mix((uint64_t)g) % (uint64_t)n);
		int len = net_route(net, g, d, 0, NULL, path);
		flow_add(fs, path, len, 1e9, 0, 0, 0, &e);
	}
	double t1 = bench_now_s();
	flow_solve(fs, 0);
	double t2 = bench_now_s();
	uint64_t rated0 = flow_stat_rated(fs);
	/* One more flow joins the step. */
	int len = net_route(net, 0, n / 2, 1, NULL, path);
	flow_add(fs, path, len, 1e9, 0, 0, 1000, &e);
	double t3 = bench_now_s();
	flow_solve(fs, 1000);
	double t4 = bench_now_s();
	uint64_t rated = flow_stat_rated(fs);
	printf("%-40s route+add %6.1f ms  solve %6.1f ms %s  +1 flow %6.2f ms (%llu re-rated)\n",
	       what, (t1 - t0) * 1e3, (t2 - t1) * 1e3, t2 - t1 <= 0.05 ? "ok" : "OVER",
	       (t4 - t3) * 1e3, (unsigned long long)(rated - rated0));
	flow_sys_free(fs);
}

/* 512 independent rings (one per rail per scalable unit) and one flow
 * added to one of them: the incremental solve touches one component. */
static void incremental(struct net *net)
{
	struct err e = { 0 };
	int n = net->p.gpus, gpn = net->p.gpus_per_node, su = net->ft->d0;
	struct flow_sys *fs = flow_sys_new(net->g.n_links, net->g.bw_Bps,
					   net->g.tier, TIER_COUNT, &e);
	int32_t path[NET_PATH_MAX];

	for (int g = 0; g < n; g++) {
		int node = g / gpn, unit = node / su;
		int next = unit * su + (node % su + 1) % su;
		int len = net_route(net, g, next * gpn + g % gpn, 0, NULL, path);
		flow_add(fs, path, len, 1e9, 0, 0, 0, &e);
	}
	double t0 = bench_now_s();
	flow_solve(fs, 0);
	double t1 = bench_now_s();
	uint64_t rated = flow_stat_rated(fs);
	int len = net_route(net, 0, gpn, 1, NULL, path);
	flow_add(fs, path, len, 1e9, 0, 0, 1000, &e);
	double t2 = bench_now_s();
	flow_solve(fs, 1000);
	double t3 = bench_now_s();
	printf("%-40s full %6.1f ms  +1 flow %7.3f ms (%llu flows re-rated of %d)  %.0fx cheaper\n",
	       "16,384 flows in 512 rail rings", (t1 - t0) * 1e3, (t3 - t2) * 1e3,
	       (unsigned long long)(flow_stat_rated(fs) - rated), n + 1,
	       (t1 - t0) / (t3 - t2));
	flow_sys_free(fs);
}

static void whole_collective(struct net *net)
{
	struct err e = { 0 };
	int n = net->p.gpus, *gpus = malloc(sizeof *gpus * (size_t)n);

	for (int i = 0; i < n; i++)
		gpus[i] = i;
	net->p.channels = 1;
	struct coll c = { COLL_ALL_REDUCE, COLL_RING, gpus, n, 1 << 30, 0 };
	double t0 = bench_now_s();
	double t = net_coll_time_s(net, &c, &e);
	double t1 = bench_now_s();
	printf("%-40s %6.1f ms to simulate (all-reduce of 1 GiB takes %.1f ms)\n",
	       "16,384-GPU ring all-reduce, 1 channel", (t1 - t0) * 1e3, t * 1e3);
	free(gpus);
}

int main(void)
{
	struct net_params p;

	ndr(&p, 16384);
	struct net *net = build("16,384-GPU fat tree (k=64, 3 tiers)", &p);
	step_solve(net, "16,384 flows, per-rail ring", 1);
	step_solve(net, "16,384 flows, one ring over all GPUs", 0);
	net->ft->ecmp = ECMP_HASH;
	step_solve(net, "16,384 flows, random permutation, hash", 2);
	net->ft->ecmp = ECMP_SPREAD;
	incremental(net);
	whole_collective(net);
	net_free(net);

	ndr(&p, 65536);
	p.ft.tiers = 3;
	net = build("65,536-GPU fat tree (k=64, 3 tiers)", &p);
	net_free(net);

	ndr(&p, 100000);
	p.gpus = 100000;
	p.topology = TOPO_DRAGONFLY;
	net = build("100,000-GPU dragonfly (balanced)", &p);
	printf("%-40s p=%d a=%d h=%d g=%d\n", "", net->df->p, net->df->a,
	       net->df->h, net->df->g);
	net_free(net);
	return 0;
}
