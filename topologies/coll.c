/*
 * coll.c -- collectives decomposed into phases of flows (see coll.h), the
 * runner, and the nccl-tests-style table.
 *
 * Participants are taken in GPU order and grouped by node (a host, or a
 * whole multi-node NVLink domain, as NCCL groups them: group_gpus).
 * Algorithms:
 *   ring  C channels (network.collective.channels, default one per NIC):
 *         channel c visits each node's GPUs rotated by c, so the ring leaves
 *         every node through a different GPU (and NIC) per channel, as NCCL's
 *         rings do on DGX systems.  With network.collective.same_nic (the
 *         default) a channel leaves each node by the NIC it came in by: the
 *         node's last GPU hands its data over NVLink to the first, whose NIC
 *         sends it (NCCL's ring search keeps a channel's network device the
 *         same in and out unless NCCL_CROSS_NIC=1, src/graph/search.cc; the
 *         hand-over is PXN).  On a rail-optimised fabric a ring then stays
 *         on one rail per channel instead of crossing rails at the spines.
 *         Each channel carries S/C.  Per ring edge:
 *         all-reduce 2(n-1)/n of its share, reduce-scatter and all-gather
 *         (n-1)/n, broadcast the whole share along the chain from the root.
 *   tree  NCCL's double binary tree for all-reduce across nodes: a tree
 *         over the nodes and its mirror, so a node is inner in at most one;
 *         inside a node a chain.  Like NCCL, one tree per channel (at least
 *         two, alternating tree and mirror), each led in a node by a
 *         different GPU and so through a different NIC, each with S/C.
 *         Reduce goes up while broadcast comes down (pipelined), so every
 *         tree and chain edge carries S/C each way at once.  NCCL's tree
 *         kernels reach only a set busbw per channel (tuning.cc,
 *         perChMaxTreeBw: Ampere 24, 22.5, 16 GB/s for 1, 2, 4+ nodes):
 *         network.collective.tree_channel_busbw_Bps caps each tree flow
 *         accordingly.  One node: ring.
 *   hier  NVLink reduce-scatter in each node, ring all-reduce across nodes
 *         per rail (local GPU j of every node, S/m each), NVLink all-gather.
 *   nvls  NVLink SHARP all-reduce inside one NVLink domain whose switch
 *         reduces (plan_nvls): S up and S down each GPU's link.
 *   all-to-all: every pair, S/n each, at once.  sendrecv: [src, dst] one
 *         flow of S; with more than two GPUs, each sends S to the next (the
 *         pattern of nccl-tests' sendrecv_perf).
 * Latency, after NCCL's tuning model (src/graph/tuning.cc, Simple
 * protocol): the base latency once, plus a per-step latency for each
 * algorithm step, NVLink's inside a domain and the network's across it;
 * a ring all-reduce spends 2(N-1) of its 2(n-1) steps crossing N nodes, a
 * tree 2(m-1) in a node's chain and 2*ceil(log2 N) across.  Each flow adds
 * its path's wire latency once.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/coll.h"

static int add_xfer(struct coll_phase *ph, int32_t src, int32_t dst,
		    uint32_t key, double bytes, struct err *e)
{
	if (ph->n == ph->cap) {
		int32_t cap = ph->cap ? ph->cap * 2 : 16;
		struct coll_xfer *x = realloc(ph->x, sizeof *x * (size_t)cap);
		if (x == NULL)
			return err_set(e, ERR_RUN, "out of memory for a collective");
		ph->x = x;
		ph->cap = cap;
	}
	ph->x[ph->n++] = (struct coll_xfer){ src, dst, -1, key, bytes, 0 };
	return 0;
}

void coll_plan_free(struct coll_plan *p)
{
	for (int i = 0; i < COLL_PHASES_MAX; i++) {
		free(p->ph[i].x);
		free(p->ph[i].flow);
	}
	memset(p, 0, sizeof *p);
}

/* Participants sorted, grouped by node: gpu[start[k] .. start[k+1]). */
struct groups {
	int *gpu, *start;
	int n, n_groups;
	int equal;		/* every group the same size */
	int multi_domain;	/* some pair is in different scale-up domains */
};

/*
 * The "node" NCCL builds its rings and trees over: a host, or where one
 * NVLink domain spans several hosts (multi-node NVLink: GB200 NVL72's
 * trays of 4 in a rack) the whole domain.  NCCL fuses the topologies of
 * an MNNVL clique's ranks into one system before its graph search
 * (src/graph/topo.cc, ncclTopoGetSystem: "MNNVL clique support", the
 * clique's ranks taken as the local ranks) and then counts nodes by the
 * ring's first rank (init.cc), so the clique is one node: a ring goes
 * round the clique's GPUs over NVLink and leaves it by a different GPU's
 * NIC per channel, whichever host that GPU sits in.  Grouping by host
 * there made a group with one GPU a tray (a data-parallel group at a
 * stride of TP) cross every domain boundary by one NIC on every channel.
 */
static int group_gpus(const struct net *net)
{
	return net->p.domain_gpus > net->p.gpus_per_node ? net->p.domain_gpus :
							   net->p.gpus_per_node;
}

/* Distinct NICs among gpu[a .. b) (sorted GPUs: a NIC's GPUs adjacent). */
static int group_nics(const struct net *net, const int *gpu, int a, int b)
{
	int n = 0;

	for (int i = a; i < b; i++)
		if (i == a || net_endpoint_of_gpu(net, gpu[i]) !=
			      net_endpoint_of_gpu(net, gpu[i - 1]))
			n++;
	return n;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static void groups_free(struct groups *g)
{
	free(g->gpu);
	free(g->start);
}

static int groups_make(const struct net *net, const struct coll *c,
		       struct groups *g, struct err *e)
{
	memset(g, 0, sizeof *g);
	if (c->n_gpus < 1 || c->gpus == NULL)
		return err_set(e, ERR_RUN, "a collective needs at least one GPU");
	g->n = c->n_gpus;
	g->gpu = malloc(sizeof *g->gpu * (size_t)g->n);
	g->start = malloc(sizeof *g->start * (size_t)(g->n + 1));
	if (!g->gpu || !g->start) {
		groups_free(g);
		return err_set(e, ERR_RUN, "out of memory for a collective");
	}
	for (int i = 0; i < g->n; i++) {
		if (c->gpus[i] < 0 || c->gpus[i] >= net->p.gpus) {
			groups_free(g);
			return err_set(e, ERR_RUN, "collective names GPU %d of %d",
				       c->gpus[i], net->p.gpus);
		}
		g->gpu[i] = c->gpus[i];
	}
	/* SENDRECV keeps its order: [src, dst]. */
	if (c->op != COLL_SENDRECV)
		qsort(g->gpu, (size_t)g->n, sizeof *g->gpu, cmp_int);
	int gpn = group_gpus(net);
	for (int i = 0; i < g->n; i++) {
		if (i == 0 || g->gpu[i] / gpn != g->gpu[i - 1] / gpn)
			g->start[g->n_groups++] = i;
		if (i > 0 && g->gpu[i] == g->gpu[i - 1] && c->op != COLL_SENDRECV) {
			int dup = g->gpu[i];
			groups_free(g);
			return err_set(e, ERR_RUN, "collective names GPU %d twice", dup);
		}
		if (!net_same_domain(net, g->gpu[i], g->gpu[0]))
			g->multi_domain = 1;
	}
	g->start[g->n_groups] = g->n;
	g->equal = 1;
	for (int k = 1; k < g->n_groups; k++)
		if (g->start[k + 1] - g->start[k] != g->start[1] - g->start[0])
			g->equal = 0;
	return 0;
}

/* Channels across domains: network.collective.channels, else one per NIC
 * of a node, or on a multi-node NVLink domain one per NIC the group's GPUs
 * have in the domain where they have fewest (each channel leaves by its
 * own). */
static int channels(const struct net *net, const struct groups *g)
{
	if (!g->multi_domain)
		return 1;
	if (net->p.channels > 0)
		return net->p.channels;
	if (group_gpus(net) == net->p.gpus_per_node)
		return net->p.nics_per_node;
	int fewest = g->n;
	for (int k = 0; k < g->n_groups; k++) {
		int nics = group_nics(net, g->gpu, g->start[k], g->start[k + 1]);
		if (nics < fewest)
			fewest = nics;
	}
	return fewest;
}

/* Ring channel c: each group's GPUs rotated by c, groups in order. */
static void ring_order(const struct groups *g, int c, int *order)
{
	int i = 0;

	for (int k = 0; k < g->n_groups; k++) {
		int m = g->start[k + 1] - g->start[k];
		for (int j = 0; j < m; j++)
			order[i++] = g->gpu[g->start[k] + (j + c) % m];
	}
}

/* The GPU whose NIC the ring edge src -> dst leaves by, src having entered
 * its node at GPU entry: entry's with same_nic when the edge crosses
 * domains and entry's NIC is not src's own; else -1 (src's). */
static int32_t ring_via(const struct net *net, int src, int dst, int entry)
{
	if (!net->p.same_nic || entry == src || net_same_domain(net, src, dst) ||
	    net_endpoint_of_gpu(net, entry) == net_endpoint_of_gpu(net, src))
		return -1;
	return entry;
}

/* A ring over all participants, C channels; per edge `frac` of S/C.
 * chain: leave out the edge back into the first GPU (broadcast). */
static int ring_flows(const struct net *net, const struct groups *g, int C,
		      double S, double frac, int chain, struct coll_phase *ph,
		      struct err *e)
{
	int *order = malloc(sizeof *order * (size_t)g->n);
	int unit = group_gpus(net);

	if (order == NULL)
		return err_set(e, ERR_RUN, "out of memory for a collective");
	for (int c = 0; c < C; c++) {
		int entry = 0;	/* where the ring came into the current node */
		ring_order(g, c, order);
		for (int i = 0; i < g->n - chain; i++) {
			int src = order[i], dst = order[(i + 1) % g->n];
			if (i > 0 && src / unit != order[i - 1] / unit)
				entry = i;
			if (add_xfer(ph, src, dst, (uint32_t)c, frac * S / C, e) < 0) {
				free(order);
				return -1;
			}
			ph->x[ph->n - 1].via = ring_via(net, src, dst, order[entry]);
		}
	}
	free(order);
	return 0;
}

int coll_xfer_route(struct net *net, const struct coll_xfer *x,
		    const int32_t *load, int32_t *out)
{
	return net_route_via(net, x->src, x->via, x->dst, x->key, load, out);
}

static double step_ns(const struct net *net, int inter)
{
	return inter ? net->p.step_net_ns : net->p.step_nvlink_ns;
}

/* NCCL's ring latency: inter-node steps at the network's step latency. */
static double ring_latency(const struct net *net, const struct groups *g,
			   int steps, int inter_steps)
{
	if (!g->multi_domain)
		inter_steps = 0;
	return (steps - inter_steps) * step_ns(net, 0) + inter_steps * step_ns(net, 1);
}

static int plan_ring(const struct net *net, const struct coll *c,
		     const struct groups *g, struct coll_plan *p, struct err *e)
{
	int n = g->n, N = g->n_groups, C = channels(net, g);
	struct coll_phase *ph = &p->ph[0];
	double frac;
	int steps, inter, chain = 0;

	p->n_phases = 1;
	switch (c->op) {
	case COLL_ALL_REDUCE:
		frac = 2.0 * (n - 1) / n;
		steps = 2 * (n - 1);
		inter = 2 * (N - 1);
		break;
	case COLL_BROADCAST:
		frac = 1;
		steps = inter = n - 1;
		chain = 1;
		inter = N - 1;
		break;
	default:		/* reduce-scatter, all-gather */
		frac = (double)(n - 1) / n;
		steps = n - 1;
		inter = N - 1;
		break;
	}
	ph->latency_ns = net->p.base_latency_ns + ring_latency(net, g, steps, inter);
	if (n == 1)
		return 0;
	return ring_flows(net, g, C, c->bytes, frac, chain, ph, e);
}

/* Heap-shaped binary tree over positions 0..N-1, mirrored for tree 1. */
static int tree_parent(int t, int N, int i)
{
	int pos = t ? N - 1 - i : i;

	if (pos == 0)
		return -1;
	pos = (pos - 1) / 2;
	return t ? N - 1 - pos : pos;
}

static int plan_tree(const struct net *net, const struct coll *c,
		     const struct groups *g, struct coll_plan *p, struct err *e)
{
	int N = g->n_groups, depth = 0, max_m = 0;
	/* Channels in pairs: the even ones use the tree, the odd ones its
	 * mirror, each with its own node leader (so its own NIC). */
	int C = channels(net, g);
	C += C % 2;
	struct coll_phase *ph = &p->ph[0];
	double share = c->bytes / C;
	/* NCCL's tree kernels move at most a fixed busbw per channel; a
	 * channel's flows all carry S/C, so each runs at most at that busbw
	 * over nccl-tests' factor 2(n-1)/n. */
	double ch_busbw = net->p.tree_channel_busbw_Bps[N <= 2 ? N - 1 : 2];
	double cap = ch_busbw > 0 ? ch_busbw * g->n / (2.0 * (g->n - 1)) : 0;

	p->n_phases = 1;
	while ((1 << depth) < N)
		depth++;
	for (int ch = 0; ch < C; ch++)
		for (int k = 0; k < N; k++) {
			int t = ch % 2, m = g->start[k + 1] - g->start[k];
			int rot = ch * m / C;
			const int *gk = g->gpu + g->start[k];
			if (m > max_m)
				max_m = m;
			/* The node's chain, from its leader gk[rot]. */
			for (int j = 0; j + 1 < m; j++) {
				int a = gk[(j + rot) % m], b = gk[(j + 1 + rot) % m];
				if (add_xfer(ph, a, b, (uint32_t)ch, share, e) < 0 ||
				    add_xfer(ph, b, a, (uint32_t)ch, share, e) < 0)
					return -1;
			}
			int par = tree_parent(t, N, k);
			if (par < 0)
				continue;
			int mp = g->start[par + 1] - g->start[par];
			int lead = gk[rot], plead = g->gpu[g->start[par] + ch * mp / C];
			if (add_xfer(ph, lead, plead, (uint32_t)ch, share, e) < 0 ||
			    add_xfer(ph, plead, lead, (uint32_t)ch, share, e) < 0)
				return -1;
		}
	for (int32_t i = 0; i < ph->n; i++)
		ph->x[i].max_Bps = cap;
	ph->latency_ns = net->p.base_latency_ns +
			 2 * ((max_m - 1) * step_ns(net, 0) + depth * step_ns(net, 1));
	return 0;
}

static int plan_hier(const struct net *net, const struct coll *c,
		     const struct groups *g, struct coll_plan *p, struct err *e)
{
	int N = g->n_groups, m = g->start[1] - g->start[0];
	double S = c->bytes;

	if (!g->equal)
		return err_set(e, ERR_USAGE, "hierarchical all-reduce needs the same "
			       "number of GPUs in every node (expected ring or tree)");
	p->n_phases = 3;
	for (int k = 0; k < N; k++) {
		const int *gk = g->gpu + g->start[k];
		for (int j = 0; j < m && m > 1; j++) {
			double b = (double)(m - 1) / m * S;
			if (add_xfer(&p->ph[0], gk[j], gk[(j + 1) % m], 0, b, e) < 0 ||
			    add_xfer(&p->ph[2], gk[j], gk[(j + 1) % m], 0, b, e) < 0)
				return -1;
		}
		for (int j = 0; j < m && N > 1; j++) {
			int next = g->gpu[g->start[(k + 1) % N] + j];
			double b = 2.0 * (N - 1) / N * S / m;
			if (add_xfer(&p->ph[1], gk[j], next, (uint32_t)j, b, e) < 0)
				return -1;
		}
	}
	p->ph[0].latency_ns = net->p.base_latency_ns + (m - 1) * step_ns(net, 0);
	p->ph[1].latency_ns = 2 * (N - 1) * step_ns(net, 1);
	p->ph[2].latency_ns = (m - 1) * step_ns(net, 0);
	return 0;
}

static int plan_all_to_all(const struct net *net, const struct coll *c,
			   const struct groups *g, struct coll_plan *p,
			   struct err *e)
{
	int n = g->n;

	if ((int64_t)n * (n - 1) > (1 << 24))
		return err_set(e, ERR_RUN, "all-to-all over %d GPUs is %lld flows "
			       "(at most 2^24)", n, (long long)n * (n - 1));
	/* alltoallv: gpus[0] (the busiest) gets F/n of each buffer, the others
	 * (n-F)/(n(n-1)) each; balanced, 1/n.  The combine is this pattern's
	 * mirror (the busiest sends F times the mean): the same time on
	 * full-duplex links. */
	double F = c->skew > 1 ? c->skew : 1;
	if (F > n)
		return err_set(e, ERR_USAGE, "all-to-all imbalance %g over %d ranks: "
			       "expected 1 to %d (the busiest takes at most all)", F, n, n);
	int hot = c->gpus[0];
	double to_hot = c->bytes * F / n;
	double to_rest = n > 1 ? c->bytes * (n - F) / ((double)n * (n - 1)) : 0;
	p->n_phases = 1;
	p->ph[0].latency_ns = net->p.base_latency_ns + step_ns(net, g->multi_domain);
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			if (i != j && add_xfer(&p->ph[0], g->gpu[i], g->gpu[j], 0,
					       g->gpu[j] == hot ? to_hot : to_rest, e) < 0)
				return -1;
	return 0;
}

/*
 * NVLS: NVLink SHARP, the NVSwitch reducing in the fabric (NVSwitch gen 3,
 * DGX/HGX H100 on; NCCL's NVLS algorithm, NCCL 2.17+): every GPU pushes
 * its buffer to the switch, which sums it and multicasts the sum back, so
 * each GPU's link carries S each way where a ring's carries 2(n-1)/n S,
 * at the rate links.*.nvls_efficiency of the link each GPU reaches
 * (measured: netcfg.c's catalog).  As flows, GPU i sends S to GPU i+1
 * through the switch at that ceiling: each link's load is the same.
 * Latency: the base and two NVLink steps, the reduction and the multicast
 * (an assumption).  Inside one NVLink domain only; NCCL's NVLS across
 * nodes (NVLS tree) is not modelled.
 */
static bool nvls_ok(const struct net *net, const struct coll *c, const struct groups *g)
{
	return c->op == COLL_ALL_REDUCE && !g->multi_domain && g->n >= 2 &&
	       net->nvl_link0 >= 0 && net->p.nvlink.nvls_efficiency > 0;
}

static int plan_nvls(const struct net *net, const struct coll *c,
		     const struct groups *g, struct coll_plan *p, struct err *e)
{
	struct coll_phase *ph = &p->ph[0];
	double cap = net->p.nvlink.bw_Bps * net->p.nvlink.nvls_efficiency;

	p->n_phases = 1;
	ph->latency_ns = net->p.base_latency_ns + 2 * step_ns(net, 0);
	for (int i = 0; i < g->n; i++) {
		if (add_xfer(ph, g->gpu[i], g->gpu[(i + 1) % g->n], 0, c->bytes, e) < 0)
			return -1;
		ph->x[ph->n - 1].max_Bps = cap;
	}
	return 0;
}

static int plan_sendrecv(const struct net *net, const struct coll *c,
			 const struct groups *g, struct coll_plan *p,
			 struct err *e)
{
	p->n_phases = 1;
	p->ph[0].latency_ns = net->p.base_latency_ns + step_ns(net, g->multi_domain);
	if (g->n == 2)
		return add_xfer(&p->ph[0], g->gpu[0], g->gpu[1], 0, c->bytes, e);
	for (int i = 0; i < g->n && g->n > 1; i++)
		if (add_xfer(&p->ph[0], g->gpu[i], g->gpu[(i + 1) % g->n], 0,
			     c->bytes, e) < 0)
			return -1;
	return 0;
}

int coll_plan_build(const struct net *net, const struct coll *c,
		    enum coll_algo algo, struct coll_plan *p, struct err *e)
{
	struct groups g;
	int rc;

	memset(p, 0, sizeof *p);
	if (!(c->bytes >= 0) || !isfinite(c->bytes))
		return err_set(e, ERR_RUN, "collective of %g bytes", c->bytes);
	if (groups_make(net, c, &g, e) < 0)
		return -1;
	if (algo == COLL_NVLS && !nvls_ok(net, c, &g))
		algo = COLL_RING;	/* no NVLink SHARP here */
	if (algo != COLL_NVLS &&
	    (c->op != COLL_ALL_REDUCE || g.n_groups < 2 || algo == COLL_AUTO))
		algo = COLL_RING;
	if (algo == COLL_HIER && g.start[1] - g.start[0] < 2 && g.equal)
		algo = COLL_RING;	/* one GPU per node: nothing to do inside */
	p->algo = algo;
	switch (c->op) {
	case COLL_ALL_TO_ALL:
		rc = plan_all_to_all(net, c, &g, p, e);
		break;
	case COLL_SENDRECV:
		rc = plan_sendrecv(net, c, &g, p, e);
		break;
	default:
		rc = algo == COLL_TREE ? plan_tree(net, c, &g, p, e) :
		     algo == COLL_HIER ? plan_hier(net, c, &g, p, e) :
		     algo == COLL_NVLS ? plan_nvls(net, c, &g, p, e) :
		     plan_ring(net, c, &g, p, e);
	}
	groups_free(&g);
	if (rc < 0)
		coll_plan_free(p);
	return rc;
}

/* --- running -------------------------------------------------------------- */

/* Transfers of one phase with the same route, bytes and ceiling (ring
 * channels that visit the GPUs in the same order and whose routes do not
 * depend on the channel: inside a leaf, over NVLink) become one flow that
 * stands for all of them (flow_grow): the same rates, far fewer flows. */
struct same {
	int32_t *id;		/* flow per slot, -1 empty */
	uint64_t *key;
	int32_t *kept;		/* its coll_flow in the phase (plan->keep) */
	size_t mask;
};

static uint64_t same_key(const struct coll_xfer *x, const int32_t *path, int n)
{
	uint64_t h = 0x9e3779b97f4a7c15u;
	uint64_t b, m;

	memcpy(&b, &x->bytes, sizeof b);
	memcpy(&m, &x->max_Bps, sizeof m);
	h = (h ^ b) * 0x100000001b3u;
	h = (h ^ m) * 0x100000001b3u;
	for (int k = 0; k < n; k++)
		h = (h ^ (uint64_t)(uint32_t)path[k]) * 0x100000001b3u;
	return h ^ (h >> 29);
}

/* The flow already added for a transfer like x on this path, or -1; *slot
 * is where it is, or where it goes. */
static int32_t same_find(const struct same *t, const struct flow_sys *fs,
			 uint64_t key, const int32_t *path, int n, size_t *slot)
{
	size_t i = key & t->mask;

	for (; t->id[i] >= 0; i = (i + 1) & t->mask) {
		const int32_t *p;
		if (t->key[i] == key && flow_path(fs, t->id[i], &p) == n &&
		    memcmp(p, path, (size_t)n * sizeof *path) == 0) {
			*slot = i;
			return t->id[i];
		}
	}
	*slot = i;
	return -1;
}

/* Add the phase's kept flows: what its first start added, in order. */
static int replay_phase(struct flow_sys *fs, struct coll_run *r,
			const struct coll_phase *ph, uint64_t owner,
			int64_t now_ns, struct err *e)
{
	r->pending = 0;
	for (int32_t i = 0; i < ph->n_flow; i++) {
		const struct coll_flow *f = &ph->flow[i];
		int32_t id = flow_add(fs, f->path, f->n, f->bytes, f->lat_ns, owner,
				      now_ns, e);
		if (id < 0)
			return -1;
		if (f->max_Bps > 0)
			flow_set_max(fs, id, f->max_Bps);
		for (int32_t k = 1; k < f->w; k++)
			flow_grow(fs, id, f->bytes);
		r->pending++;
	}
	return 0;
}

/* Note a flow added for the phase, to add it again at later starts. */
static int32_t keep_flow(struct coll_phase *ph, const int32_t *path, int n,
			 const struct coll_xfer *x, int64_t lat_ns)
{
	struct coll_flow *f = &ph->flow[ph->n_flow];

	memcpy(f->path, path, (size_t)n * sizeof *path);
	f->n = n;
	f->w = 1;
	f->bytes = x->bytes;
	f->max_Bps = x->max_Bps;
	f->lat_ns = lat_ns;
	return ph->n_flow++;
}

static int start_phase(struct net *net, struct flow_sys *fs, struct coll_run *r,
		       uint64_t owner, int64_t now_ns, struct err *e)
{
	struct coll_phase *ph = &r->plan->ph[r->phase];
	const int32_t *load = flow_link_load(fs);
	int32_t path[NET_PATH_MAX];
	size_t cap = 16;
	struct same t;
	int rc = 0;

	if (ph->flow != NULL)
		return replay_phase(fs, r, ph, owner, now_ns, e);
	while (cap < 2 * (size_t)ph->n)
		cap *= 2;
	t.id = malloc(cap * sizeof *t.id);
	t.key = malloc(cap * sizeof *t.key);
	t.kept = malloc(cap * sizeof *t.kept);
	t.mask = cap - 1;
	if (r->plan->keep)
		ph->flow = malloc((size_t)ph->n * sizeof *ph->flow);
	if (!t.id || !t.key || !t.kept || (r->plan->keep && !ph->flow)) {
		free(t.id);
		free(t.key);
		free(t.kept);
		free(ph->flow);
		ph->flow = NULL;
		return err_set(e, ERR_RUN, "out of memory for a collective");
	}
	memset(t.id, 0xff, cap * sizeof *t.id);
	ph->n_flow = 0;
	r->pending = 0;
	for (int32_t i = 0; i < ph->n && rc == 0; i++) {
		const struct coll_xfer *x = &ph->x[i];
		int n = coll_xfer_route(net, x, load, path);
		uint64_t key = same_key(x, path, n);
		size_t slot = 0;
		int32_t id = n > 0 && x->bytes > 0 ? same_find(&t, fs, key, path, n, &slot) : -1;
		if (id >= 0) {
			flow_grow(fs, id, x->bytes);
			if (ph->flow)
				ph->flow[t.kept[slot]].w++;
			continue;
		}
		double wire = 0;
		for (int k = 0; k < n; k++)
			wire += net->g.latency_ns[path[k]];
		int64_t lat = llround(ph->latency_ns + wire);
		id = flow_add(fs, path, n, x->bytes, lat, owner, now_ns, e);
		if (id < 0) {
			rc = -1;
			break;
		}
		if (x->max_Bps > 0)
			flow_set_max(fs, id, x->max_Bps);
		int32_t k = ph->flow ? keep_flow(ph, path, n, x, lat) : -1;
		if (n > 0 && x->bytes > 0) {
			t.id[slot] = id;
			t.key[slot] = key;
			t.kept[slot] = k;
		}
		r->pending++;
	}
	free(t.id);
	free(t.key);
	free(t.kept);
	if (rc < 0) {
		free(ph->flow);	/* half kept: not to be replayed */
		ph->flow = NULL;
	} else if (ph->flow && ph->n_flow > 0) {
		struct coll_flow *f = realloc(ph->flow, (size_t)ph->n_flow * sizeof *f);
		if (f)
			ph->flow = f;	/* (folding left fewer flows than transfers) */
	}
	return rc;
}

int coll_run_start(struct net *net, struct flow_sys *fs, struct coll_run *r,
		   uint64_t owner, int64_t now_ns, struct err *e)
{
	/* A phase without flows (one GPU) still costs its latency: it is
	 * folded into the end time. */
	while (r->phase < r->plan->n_phases) {
		if (r->plan->ph[r->phase].n > 0)
			return start_phase(net, fs, r, owner, now_ns, e);
		r->end_ns = now_ns + llround(r->plan->ph[r->phase].latency_ns);
		now_ns = r->end_ns;
		r->phase++;
	}
	r->pending = 0;
	return 0;
}

int coll_run_delivered(struct net *net, struct flow_sys *fs, struct coll_run *r,
		       uint64_t owner, int64_t now_ns, struct err *e)
{
	if (--r->pending > 0)
		return 0;
	r->end_ns = now_ns;
	r->phase++;
	if (coll_run_start(net, fs, r, owner, now_ns, e) < 0)
		return -1;
	return r->phase >= r->plan->n_phases && r->pending == 0;
}

/* --- names, factors, the table -------------------------------------------- */

static const char *const op_names[] = {
	"all_reduce", "reduce_scatter", "all_gather", "all_to_all", "broadcast",
	"sendrecv",
};
static const char *const algo_names[] = { "auto", "ring", "tree", "hier", "nvls" };
#define N_OPS (int)(sizeof op_names / sizeof *op_names)
#define N_ALGOS (int)(sizeof algo_names / sizeof *algo_names)

const char *coll_op_name(enum coll_op op)
{
	return (unsigned)op < (unsigned)N_OPS ? op_names[op] : "?";
}

const char *coll_algo_name(enum coll_algo algo)
{
	return (unsigned)algo < (unsigned)N_ALGOS ? algo_names[algo] : "?";
}

int coll_op_parse(const char *s, enum coll_op *op)
{
	for (int i = 0; i < N_OPS; i++)
		if (strcmp(s, op_names[i]) == 0) {
			*op = (enum coll_op)i;
			return 0;
		}
	/* nccl-tests' name (alltoall_perf); alltoallv: the same with
	 * --imbalance */
	if (strcmp(s, "alltoall") == 0 || strcmp(s, "alltoallv") == 0) {
		*op = COLL_ALL_TO_ALL;
		return 0;
	}
	return -1;
}

int coll_algo_parse(const char *s, enum coll_algo *algo)
{
	for (int i = 0; i < N_ALGOS; i++)
		if (strcmp(s, algo_names[i]) == 0) {
			*algo = (enum coll_algo)i;
			return 0;
		}
	return -1;
}

double coll_busbw_factor(enum coll_op op, int n)
{
	switch (op) {
	case COLL_ALL_REDUCE:
		return 2.0 * (n - 1) / n;
	case COLL_REDUCE_SCATTER:
	case COLL_ALL_GATHER:
	case COLL_ALL_TO_ALL:
		return (double)(n - 1) / n;
	default:
		return 1;
	}
}

/* The one algorithm of each operation but all-reduce, in words. */
static const char *const one_algo[] = {
	[COLL_REDUCE_SCATTER] = "ring", [COLL_ALL_GATHER] = "ring",
	[COLL_ALL_TO_ALL] = "direct: every rank sends to every other at once",
	[COLL_BROADCAST] = "pipelined ring chain from the root",
	[COLL_SENDRECV] = "one transfer from each rank to the next",
};

/* The algorithm c really runs with: --algo or auto's pick, then the
 * plan's own fallbacks (one node: ring; hierarchical with one GPU per
 * node: ring). */
static int used_algo(struct net *net, const struct coll *c, enum coll_algo *out,
		     struct err *e)
{
	struct coll_plan p;
	enum coll_algo a;

	memset(&p, 0, sizeof p);
	int rc = net_coll_resolve(net, c, &a, e) < 0 ? -1 :
		 coll_plan_build(net, c, a, &p, e);
	*out = p.algo;
	coll_plan_free(&p);
	return rc;
}

/* "8 B", "64 KiB", "1 GiB": a size as nccl-tests users read it. */
static void size_words(double bytes, char *buf, size_t n)
{
	static const char *const unit[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (bytes >= 1024 && u < 4 && fmod(bytes, 1024) == 0) {
		bytes /= 1024;
		u++;
	}
	snprintf(buf, n, "%.0f %s", bytes, unit[u]);
}

/* The footer's "auto chose" line, one run of sizes at a time: the run
 * [from, to] of algorithm a. */
static void chose_add(char *buf, size_t n, enum coll_algo a, double from, double to)
{
	char f[32], t[32];
	size_t k = strlen(buf);

	size_words(from, f, sizeof f);
	size_words(to, t, sizeof t);
	if (from == to)
		snprintf(buf + k, n - k, "%s%s for %s", k ? ", " : "", coll_algo_name(a), f);
	else
		snprintf(buf + k, n - k, "%s%s for %s to %s", k ? ", " : "",
			 coll_algo_name(a), f, t);
}

int coll_table_print(struct net *net, enum coll_op op, enum coll_algo algo,
		     double min_bytes, double max_bytes, double factor,
		     int n_ranks, double skew, FILE *out, struct err *e)
{
	int n = n_ranks > 0 ? n_ranks : net_gpu_count(net);

	if (n > net_gpu_count(net))
		return err_set(e, ERR_USAGE, "--ranks %d: the cluster has %d GPUs",
			       n, net_gpu_count(net));
	if (!(min_bytes > 0) || !(max_bytes >= min_bytes) || !(factor > 1))
		return err_set(e, ERR_USAGE, "sizes: expected 0 < MIN <= MAX and "
			       "FACTOR > 1 (got %g, %g, %g)", min_bytes, max_bytes, factor);
	if (skew > 1 && (op != COLL_ALL_TO_ALL || skew > n))
		return err_set(e, ERR_USAGE, op != COLL_ALL_TO_ALL ?
			       "--imbalance: only for all_to_all (alltoallv)" :
			       "--imbalance %g: at most the %d ranks (the busiest "
			       "takes in everything)", skew, n);
	if (op == COLL_SENDRECV && n < 2)
		return err_set(e, ERR_USAGE, "sendrecv needs at least 2 ranks");
	int *gpus = malloc(sizeof *gpus * (size_t)n);
	if (gpus == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (int r = 0; r < n; r++)
		gpus[r] = net_rank_gpu(net, r);
	fprintf(out, "# trainsim collective: %s, %d ranks, algorithm %s",
		coll_op_name(op), n, coll_algo_name(algo));
	if (skew > 1)
		fprintf(out, ", imbalance %g (rank 0 takes in %g x the mean)", skew, skew);
	fputc('\n', out);
	if (op != COLL_ALL_REDUCE)
		fprintf(out, "# %s has one algorithm (%s)%s%s%s\n", coll_op_name(op),
			one_algo[op], algo != COLL_AUTO ? ": --algo " : "",
			algo != COLL_AUTO ? coll_algo_name(algo) : "",
			algo != COLL_AUTO ? " does not apply" : "");
	fprintf(out, "#\n#%12s %13s %9s %7s %7s %10s %8s %8s %7s\n",
		"size", "count", "type", "redop", "root", "time", "algbw",
		"busbw", "#wrong");
	fprintf(out, "#%12s %13s %9s %7s %7s %10s %8s %8s %7s\n",
		"(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "");
	int rc = 0, rows = 0;
	double sum_busbw = 0, run_from = 0, prev = 0;
	enum coll_algo run_algo = COLL_AUTO;
	char chose[512] = "";
	for (double S = min_bytes; S <= max_bytes * (1 + 1e-12); S *= factor) {
		double bytes = floor(S / 4) * 4;	/* whole floats */
		struct coll c = { op, algo, gpus, n, bytes, skew };
		double t = net_coll_time_s(net, &c, e);
		if (!(t >= 0)) {
			rc = -1;
			break;
		}
		double algbw = t > 0 ? bytes / t / 1e9 : 0;
		double busbw = algbw * coll_busbw_factor(op, n);
		int per_rank = op == COLL_ALL_GATHER || op == COLL_REDUCE_SCATTER ||
			       op == COLL_ALL_TO_ALL;
		fprintf(out, " %12.0f %13.0f %9s %7s %7d %10.2f %8.2f %8.2f %7s\n",
			bytes, bytes / 4 / (per_rank ? n : 1), "float",
			op == COLL_ALL_REDUCE || op == COLL_REDUCE_SCATTER ? "sum" : "none",
			op == COLL_BROADCAST ? 0 : -1, t * 1e6, algbw, busbw, "N/A");
		sum_busbw += busbw;
		rows++;
		if (op == COLL_ALL_REDUCE) {
			enum coll_algo a;
			if (used_algo(net, &c, &a, e) < 0) {
				rc = -1;
				break;
			}
			if (rows > 1 && a != run_algo)
				chose_add(chose, sizeof chose, run_algo, run_from, prev);
			if (rows == 1 || a != run_algo) {
				run_algo = a;
				run_from = bytes;
			}
		}
		prev = bytes;
	}
	free(gpus);
	if (rc < 0)
		return rc;
	/* What auto chose; or what an --algo that does not fit ran as
	 * (tree and hier need ranks on two or more nodes). */
	if (op == COLL_ALL_REDUCE && rows > 0 &&
	    (algo == COLL_AUTO || chose[0] || run_algo != algo)) {
		char what[32];
		snprintf(what, sizeof what, algo == COLL_AUTO ? "auto chose" :
			 "--algo %s ran as", coll_algo_name(algo));
		const char *why = algo == COLL_AUTO ? "" : " (tree and hier need ranks "
			"on two or more nodes, hier more than one GPU on a node, nvls "
			"one NVLink domain whose switch reduces)";
		if (chose[0] == '\0')
			fprintf(out, "# %s %s for every size%s\n", what,
				coll_algo_name(run_algo), why);
		else {
			chose_add(chose, sizeof chose, run_algo, run_from, prev);
			fprintf(out, "# %s %s%s\n", what, chose, why);
		}
	}
	/* nccl-tests' closing lines: the mean of busbw over the sizes. */
	fprintf(out, "# Avg bus bandwidth    : %g\n#\n", rows ? sum_busbw / rows : 0);
	return 0;
}
