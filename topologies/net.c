/*
 * net.c -- the network assembled: GPUs, scale-up domains, NICs and one
 * fabric in a graph; routes from GPU to GPU; one collective alone on the
 * fabric (net_coll_time_s), with NCCL's way of choosing an algorithm.
 *
 * The scenario adapter (net_build, the settings table) is netcfg.c; the
 * shared, event-driven use is netsim.c.
 *
 * Algorithm choice (COLL_AUTO with network.collective.algo = auto): like
 * NCCL's tuner, predict each applicable algorithm's time and take the
 * fastest -- but the prediction is this model itself run on the idle
 * fabric, not a fitted formula.  Idle-fabric times are cached per (op,
 * algorithm, GPUs, bytes), so asking again costs a hash of the GPU list.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/coll.h"
#include "topologies/flow.h"
#include "topologies/topo.h"

/* Times of collectives alone on the idle fabric, by (op, algorithm, GPUs,
 * bytes): direct-mapped, deterministic, so a hit is exact. */
#define TIME_CACHE 512
struct net_time_cache {
	uint64_t key[TIME_CACHE];
	int64_t t_ns[TIME_CACHE];
	uint8_t used[TIME_CACHE];
};

void net_params_default(struct net_params *p)
{
	/* DGX A100 with HDR InfiniBand: links copied from
	 * scenarios/catalog/links.cfg, the rest from net_settings' defaults
	 * (tests/net-cfg-t.c fails if either drifts). */
	*p = (struct net_params){
		.gpus = 8, .gpus_per_node = 8, .nics_per_node = 8, .domain_gpus = 8,
		.nvlink = { .name = "nvlink3", .bw_Bps = 300e9, .efficiency = 0.767,
			    .latency_ns = 300 },
		.pcie = { .name = "pcie_gen4", .bw_Bps = 31.5e9, .efficiency = 0.914,
			  .latency_ns = 300 },
		.scale_out = { .name = "ib_hdr", .bw_Bps = 200e9 / 8, .efficiency = 0.97,
			       .latency_ns = 130, .switch_radix = 40, .switch_w = 253,
			       .nic_w = 15, .pj_per_bit = 1.58,
			       .switch_embodied_kg = 280, .nic_embodied_kg = 17 },
		.topology = TOPO_FAT_TREE,
		.ft = { .oversub = { 1, 1 }, .rail_optimized = true, .ecmp = ECMP_SPREAD },
		.df = { .arrangement = DF_ABSOLUTE, .routing = DF_UGAL },
		.algo = COLL_AUTO,
		.same_nic = true,
		.base_latency_ns = 8400,
		.step_nvlink_ns = 3400,
		.step_net_ns = 9600,
		.tree_channel_busbw_Bps = { 24e9, 22.5e9, 16e9 },
	};
}

static int check_link(const struct link_spec *s, const char **bad_key,
		      struct err *e)
{
	static char key[96];

	if (!(s->bw_Bps > 0) || !isfinite(s->bw_Bps)) {
		snprintf(key, sizeof key, "links.%s.bw_gbit_s", s->name);
		*bad_key = key;
		return err_set(e, ERR_USAGE, "link '%s' has bandwidth %g B/s "
			       "(expected more than zero)", s->name, s->bw_Bps);
	}
	if (!(s->efficiency > 0 && s->efficiency <= 1)) {
		snprintf(key, sizeof key, "links.%s.efficiency", s->name);
		*bad_key = key;
		return err_set(e, ERR_USAGE, "link '%s' has efficiency %g "
			       "(expected 0 < efficiency <= 1)", s->name, s->efficiency);
	}
	return 0;
}

/* Memory for the graph, routes and flow state grows with the GPUs: the
 * estimate is per GPU, measured (peak RSS of `trainsim --check` on
 * scenarios/175b.cfg with 400,000 GPUs, 8 a node, fat-tree radix 512:
 * 491 MB, 1.23 KB a GPU; rounded up).  A network whose estimate passes the
 * budget is refused before anything is allocated, instead of running for
 * minutes into "out of memory" (10^7 GPUs: 8 GB and more).  4 GiB is
 * 3.3 million GPUs, an order of magnitude past the largest cluster built
 * (xAI Colossus, 200,000 GPUs, 2025). */
#define NET_EST_BYTES_PER_GPU 1300.0
#define NET_MAX_EST_BYTES (4.0 * 1073741824.0)

static int check_shape(struct net_params *p, const char **bad_key,
		       struct err *e)
{
	if (p->gpus < 1) {
		*bad_key = "cluster.gpus";
		return err_set(e, ERR_USAGE, "%d GPUs (expected at least 1)", p->gpus);
	}
	if (p->gpus * NET_EST_BYTES_PER_GPU > NET_MAX_EST_BYTES) {
		*bad_key = "cluster.gpus";
		return err_set(e, ERR_USAGE, "%d GPUs: the network model would need about "
			       "%.1f GB (expected at most %.0f GPUs, %.1f GB of network "
			       "and flow state)", p->gpus,
			       p->gpus * NET_EST_BYTES_PER_GPU / 1e9,
			       floor(NET_MAX_EST_BYTES / NET_EST_BYTES_PER_GPU),
			       NET_MAX_EST_BYTES / 1e9);
	}
	if (p->gpus_per_node < 1 || p->gpus % p->gpus_per_node != 0) {
		*bad_key = "cluster.gpus_per_node";
		return err_set(e, ERR_USAGE, "%d GPUs do not fill whole nodes of %d",
			       p->gpus, p->gpus_per_node);
	}
	if (p->nics_per_node == 0)
		p->nics_per_node = p->gpus_per_node;
	if (p->nics_per_node < 1 || p->nics_per_node > p->gpus_per_node ||
	    p->gpus_per_node % p->nics_per_node != 0) {
		*bad_key = "network.nics_per_node";
		return err_set(e, ERR_USAGE, "%d NICs cannot be shared evenly by %d "
			       "GPUs per node (expected a divisor of %d)",
			       p->nics_per_node, p->gpus_per_node, p->gpus_per_node);
	}
	if (p->domain_gpus == 0)
		p->domain_gpus = p->gpus_per_node;
	if (p->domain_gpus < 1 || p->gpus % p->domain_gpus != 0 ||
	    (p->domain_gpus % p->gpus_per_node != 0 &&
	     p->gpus_per_node % p->domain_gpus != 0)) {
		*bad_key = "network.scale_up_domain_gpus";
		return err_set(e, ERR_USAGE, "a scale-up domain of %d GPUs does not "
			       "tile %d GPUs in nodes of %d (expected whole nodes, or "
			       "a divisor of a node)", p->domain_gpus, p->gpus,
			       p->gpus_per_node);
	}
	return 0;
}

void net_free(struct net *net)
{
	if (net == NULL)
		return;
	graph_free(&net->g);
	free(net->ep_node);
	ft_free(net->ft);
	df_free(net->df);
	free(net->rank_gpu);
	flow_sys_free(net->idle);
	free(net->time_cache);
	free(net);
}

static int add_endpoints(struct net *net, struct err *e)
{
	const struct net_params *p = &net->p;
	int nics = p->nics_per_node, gpn = p->gpus_per_node;

	net->n_nodes = p->gpus / gpn;
	net->n_ep = net->n_nodes * nics;
	net->ep_node = malloc(sizeof *net->ep_node * (size_t)net->n_ep);
	if (net->ep_node == NULL)
		return err_set(e, ERR_RUN, "out of memory for the network");
	net->pcie_link0 = -2;
	if (nics == gpn) {
		for (int i = 0; i < net->n_ep; i++)
			net->ep_node[i] = i;
		return 0;
	}
	int32_t nic0 = graph_add_nodes(&net->g, NODE_NIC, net->n_ep, e);
	if (nic0 < 0)
		return -1;
	for (int i = 0; i < net->n_ep; i++)
		net->ep_node[i] = nic0 + i;
	double bw = p->pcie.bw_Bps * p->pcie.efficiency;
	for (int gpu = 0; gpu < p->gpus; gpu++) {
		int32_t l = graph_add_duplex(&net->g, gpu,
					     nic0 + net_endpoint_of_gpu(net, gpu), bw,
					     (int32_t)p->pcie.latency_ns, TIER_PCIE, e);
		if (l < 0)
			return -1;
		if (gpu == 0)
			net->pcie_link0 = l;
	}
	return 0;
}

struct net *net_new(const struct net_params *p_in, const char **bad_key,
		    struct err *e)
{
	static const char *no_key;
	struct net *net;

	if (bad_key == NULL)
		bad_key = &no_key;
	*bad_key = NULL;
	net = calloc(1, sizeof *net);
	if (net == NULL) {
		err_set(e, ERR_RUN, "out of memory for the network");
		return NULL;
	}
	net->p = *p_in;
	net->p.placement = NULL;
	graph_init(&net->g);
	if (check_shape(&net->p, bad_key, e) < 0 ||
	    (net->p.domain_gpus > 1 && check_link(&net->p.nvlink, bad_key, e) < 0) ||
	    (net->p.nics_per_node < net->p.gpus_per_node &&
	     check_link(&net->p.pcie, bad_key, e) < 0) ||
	    (net->p.topology != TOPO_NONE &&
	     check_link(&net->p.scale_out, bad_key, e) < 0))
		goto fail;
	if (graph_add_nodes(&net->g, NODE_GPU, net->p.gpus, e) < 0)
		goto fail;
	net->nvl_link0 = nvl_build(&net->g, net->p.gpus, net->p.domain_gpus,
				   &net->p.nvlink, e);
	if (net->nvl_link0 == -1 || add_endpoints(net, e) < 0)
		goto fail;
	if (net->p.topology == TOPO_FAT_TREE) {
		struct ft_params ft = net->p.ft;
		if (ft.radix == 0)
			ft.radix = net->p.scale_out.switch_radix;
		net->ft = ft_build(&net->g, &ft, net->n_ep, net->p.nics_per_node,
				   net->ep_node, &net->p.scale_out, bad_key, e);
		if (net->ft == NULL)
			goto fail;
	} else if (net->p.topology == TOPO_DRAGONFLY) {
		net->df = df_build(&net->g, &net->p.df, net->n_ep, net->ep_node,
				   &net->p.scale_out, bad_key, e);
		if (net->df == NULL)
			goto fail;
	}
	if (graph_check_connected(&net->g, e) < 0) {
		*bad_key = "network.topology";
		goto fail;
	}
	net->rank_gpu = place_ranks(net->p.gpus, p_in->placement, p_in->n_placement, e);
	if (net->rank_gpu == NULL) {
		*bad_key = "network.placement";
		goto fail;
	}
	net->time_cache = calloc(1, sizeof *net->time_cache);
	if (net->time_cache == NULL) {
		err_set(e, ERR_RUN, "out of memory for the network");
		goto fail;
	}
	return net;
fail:
	net_free(net);
	return NULL;
}

int net_gpu_count(const struct net *net)
{
	return net->p.gpus;
}

int net_gpus_per_node(const struct net *net)
{
	return net->p.gpus_per_node;
}

int net_rank_gpu(const struct net *net, int rank)
{
	if (rank < 0 || rank >= net->p.gpus)
		return -1;
	return net->rank_gpu[rank];
}

/* The catalog entry a link of this tier was built from. */
const struct link_spec *net_tier_spec(const struct net *net, int tier)
{
	switch (tier) {
	case TIER_NVLINK:
		return &net->p.nvlink;
	case TIER_PCIE:
		return &net->p.pcie;
	default:
		return &net->p.scale_out;
	}
}

int net_endpoint_of_gpu(const struct net *net, int gpu)
{
	int gpn = net->p.gpus_per_node, nics = net->p.nics_per_node;

	if (nics == gpn)
		return gpu;	/* a NIC per GPU (DGX): no division on the hot path */
	return (gpu / gpn) * nics + (gpu % gpn) * nics / gpn;
}

bool net_same_domain(const struct net *net, int a, int b)
{
	return a / net->p.domain_gpus == b / net->p.domain_gpus;
}

int net_route(struct net *net, int s, int d, uint64_t key, const int32_t *load,
	      int32_t *out)
{
	int n = 0;

	if (s == d)
		return 0;
	if (net->nvl_link0 >= 0 && net_same_domain(net, s, d)) {
		out[0] = net->nvl_link0 + 2 * s;
		out[1] = (net->nvl_link0 + 2 * d) ^ 1;
		return 2;
	}
	int32_t es = net_endpoint_of_gpu(net, s), ed = net_endpoint_of_gpu(net, d);
	if (net->pcie_link0 >= 0)
		out[n++] = net->pcie_link0 + 2 * s;
	if (es != ed) {
		if (net->ft)
			n += ft_route(net->ft, es, ed, key, out + n);
		else if (net->df)
			n += df_route(net->df, es, ed, key, load,
				      net->g.bw_Bps, out + n);
	}
	if (net->pcie_link0 >= 0)
		out[n++] = (net->pcie_link0 + 2 * d) ^ 1;
	return n;
}

int net_route_via(struct net *net, int s, int via, int d, uint64_t key,
		  const int32_t *load, int32_t *out)
{
	if (via < 0 || via == s || net->nvl_link0 < 0 || !net_same_domain(net, s, via))
		return net_route(net, s, d, key, load, out);
	out[0] = net->nvl_link0 + 2 * s;
	out[1] = (net->nvl_link0 + 2 * via) ^ 1;
	return 2 + net_route(net, via, d, key, load, out + 2);
}

size_t net_bytes(const struct net *net)
{
	size_t b = sizeof *net + graph_bytes(&net->g) +
		   sizeof(int32_t) * (size_t)net->n_ep +
		   sizeof(int) * (size_t)net->p.gpus;

	if (net->ft)
		b += sizeof *net->ft + 2 * sizeof(int32_t) * (size_t)net->ft->n_ep;
	if (net->df)
		b += sizeof *net->df + sizeof(int32_t) *
		     (size_t)net->df->a * net->df->h * net->df->g;
	if (net->idle)
		b += flow_sys_bytes(net->idle);
	return b;
}

/* --- one collective alone ------------------------------------------------- */

struct alone {
	struct net *net;
	struct flow_sys *fs;
	struct coll_run *run;
	int64_t now;
};

static int alone_delivered(void *ctx, uint64_t owner, struct err *e)
{
	struct alone *a = ctx;

	return coll_run_delivered(a->net, a->fs, a->run, owner, a->now, e) < 0 ? -1 : 0;
}

static int run_alone(struct net *net, const struct coll *c, enum coll_algo algo,
		     int64_t *t_ns, struct err *e)
{
	struct coll_run r;
	struct coll_plan plan;
	struct alone a = { net, NULL, &r, 0 };

	if (net->idle == NULL) {
		net->idle = flow_sys_new(net->g.n_links, net->g.bw_Bps, net->g.tier,
					 TIER_COUNT, e);
		if (net->idle == NULL)
			return -1;
	}
	a.fs = net->idle;
	memset(&r, 0, sizeof r);
	if (coll_plan_build(net, c, algo, &plan, e) < 0)
		return -1;
	r.plan = &plan;
	int rc = coll_run_start(net, a.fs, &r, 0, 0, e);
	while (rc == 0 && flow_count(a.fs) > 0) {
		flow_solve(a.fs, a.now);
		a.now = flow_next_ns(a.fs);
		if (a.now == INT64_MAX) {
			rc = err_set(e, ERR_RUN, "%s: flows cannot progress",
				     coll_op_name(c->op));
			break;
		}
		rc = flow_advance(a.fs, a.now, alone_delivered, &a, e);
	}
	/* Failure leaves flows behind: drop the idle system, build afresh. */
	if (rc < 0 || flow_count(a.fs) > 0) {
		flow_sys_free(net->idle);
		net->idle = NULL;
	}
	*t_ns = r.end_ns;
	coll_plan_free(&plan);
	return rc;
}

static uint64_t time_key(const struct coll *c, enum coll_algo algo)
{
	uint64_t h = route_hash3((uint64_t)c->op, (uint64_t)c->n_gpus, (uint64_t)algo);
	uint64_t bits;

	memcpy(&bits, &c->bytes, sizeof bits);
	for (int i = 0; i < c->n_gpus; i++)
		h = route_mix(h ^ (uint64_t)c->gpus[i]);
	if (c->skew > 1) {	/* balanced keys as before */
		uint64_t f;
		memcpy(&f, &c->skew, sizeof f);
		h = route_mix(h ^ f);
	}
	return route_mix(h ^ bits);
}

/* run_alone, remembered. */
static int timed(struct net *net, const struct coll *c, enum coll_algo algo,
		 int64_t *t_ns, struct err *e)
{
	struct net_time_cache *tc = net->time_cache;
	uint64_t key = time_key(c, algo);
	size_t i = key % TIME_CACHE;

	if (tc->used[i] && tc->key[i] == key) {
		*t_ns = tc->t_ns[i];
		return 0;
	}
	if (run_alone(net, c, algo, t_ns, e) < 0)
		return -1;
	tc->key[i] = key;
	tc->t_ns[i] = *t_ns;
	tc->used[i] = 1;
	return 0;
}

/* The fastest applicable all-reduce algorithm on the idle fabric. */
static int auto_pick(struct net *net, const struct coll *c, enum coll_algo *out,
		     struct err *e)
{
	int64_t best = INT64_MAX;

	*out = COLL_RING;
	if (c->op != COLL_ALL_REDUCE)
		return 0;
	for (enum coll_algo a = COLL_RING; a <= COLL_NVLS; a++) {
		struct err tmp = { 0 };
		int64_t t;
		if (timed(net, c, a, &t, &tmp) < 0) {
			if (tmp.status == ERR_USAGE)
				continue;	/* not applicable here (hier, nvls) */
			*e = tmp;
			return -1;
		}
		if (t < best) {
			best = t;
			*out = a;
		}
	}
	return 0;
}

int net_coll_resolve(struct net *net, const struct coll *c,
		     enum coll_algo *algo, struct err *e)
{
	*algo = c->algo != COLL_AUTO ? c->algo : net->p.algo;
	if (*algo == COLL_AUTO)
		return auto_pick(net, c, algo, e);
	return 0;
}

double net_coll_time_s(struct net *net, const struct coll *c, struct err *e)
{
	enum coll_algo algo;
	int64_t t;

	if (net_coll_resolve(net, c, &algo, e) < 0 ||
	    timed(net, c, algo, &t, e) < 0)
		return -1;
	return (double)t / 1e9;
}
