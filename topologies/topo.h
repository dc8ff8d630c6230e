/*
 * topo.h -- inside the network: the parameters net_new() builds from, the
 * struct net, and the faces of the builders and routers that net.c joins.
 * The rest of trainsim uses net.h only; tests and benchmarks use this to
 * build networks from plain parameters without a scenario file.
 *
 * Layers of a path from GPU s to GPU d:
 *   same scale-up domain:  s -nvlink-> NVSwitch -nvlink-> d
 *   otherwise:             s [-pcie-> NIC] -> fabric (fat tree or dragonfly)
 *                          -> [NIC -pcie->] d
 * A GPU with its own NIC (nics_per_node == gpus_per_node, as in DGX
 * systems) is itself the fabric endpoint: GPUDirect RDMA puts its PCIe
 * switch out of the way, so no PCIe link is modelled.
 */
#ifndef TOPOLOGIES_TOPO_H
#define TOPOLOGIES_TOPO_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/err.h"
#include "topologies/graph.h"
#include "topologies/net.h"

#define NET_PATH_MAX 16		/* links on the longest route (Valiant: 10) */

/* One entry of the links catalog (scenarios/catalog/links.cfg). */
struct link_spec {
	char name[48];
	double bw_Bps;		/* per direction, nominal */
	double efficiency;	/* achievable fraction of bw_Bps (protocol) */
	double nvls_efficiency;	/* NVLink SHARP all-reduce: each GPU's rate as a
				 * fraction of bw_Bps (0: the switch cannot
				 * reduce; coll.c) */
	double latency_ns;	/* one hop: port to port plus cable */
	double pj_per_bit;	/* energy per bit per link crossed, beyond idle */
	int switch_radix;	/* ports of the matching switch (0: none) */
	double switch_w;	/* power of that switch (0: not switched) */
	double nic_w;		/* power of one NIC of this link (0: none) */
	double transceiver_w;	/* per cable end (0: passive copper) */
	double switch_embodied_kg;	/* manufacturing footprint of that switch */
	double nic_embodied_kg;		/* of one NIC of this link */
};

enum net_topology { TOPO_NONE, TOPO_FAT_TREE, TOPO_DRAGONFLY };
enum ecmp_mode { ECMP_SPREAD, ECMP_HASH };
enum df_arrangement { DF_ABSOLUTE, DF_RELATIVE };
enum df_routing { DF_MINIMAL, DF_VALIANT, DF_UGAL };

struct ft_params {
	int tiers;		/* 2 or 3; 0: the fewest that fit */
	int radix;		/* ports per switch (even) */
	double oversub[2];	/* down:up at leaf, at spine/aggregation */
	bool rail_optimized;	/* NIC i of each node on leaf i of its unit */
	enum ecmp_mode ecmp;
};

struct df_params {
	int p, a, h, g;		/* 0 in all four: balanced, smallest that fits */
	enum df_arrangement arrangement;
	enum df_routing routing;
};

struct net_params {
	int gpus, gpus_per_node, nics_per_node, domain_gpus;
	struct link_spec nvlink, pcie, scale_out;
	enum net_topology topology;
	struct ft_params ft;
	struct df_params df;
	enum coll_algo algo;	/* for COLL_AUTO requests */
	int channels;		/* rings per collective; 0: nics_per_node */
	bool same_nic;		/* a ring leaves a node by the NIC it came in by */
	double base_latency_ns;	/* once per collective */
	double step_nvlink_ns;	/* per algorithm step inside a domain */
	double step_net_ns;	/* per algorithm step across the fabric */
	double tree_channel_busbw_Bps[3];	/* 1, 2, 4+ nodes; 0: no cap */
	const int *placement;	/* rank -> GPU, or NULL for identity */
	int n_placement;
};
/* Defaults for the fields a test does not care about (DGX A100 + HDR):
 * the schema's network.* defaults and copies of the links catalog's
 * nvlink3, pcie_gen4 and ib_hdr (net-cfg-t checks both stay equal). */
void net_params_default(struct net_params *p);

/* --- fat tree (fattree.c) ------------------------------------------------ */
struct ft {
	int tiers, radix, rail;
	int d0, u0;		/* leaf: ports down to NICs, up to spines */
	int d1, u1;		/* aggregation (3 tiers): down to leaves, up to cores */
	int n_ep, n_leaf, n_spine, n_core, n_pods;
	enum ecmp_mode ecmp;
	int32_t *ep_leaf, *ep_port;	/* leaf of each endpoint, port on it */
	int32_t ep_link0;	/* endpoint e up: ep_link0 + 2e */
	int32_t leaf_link0;	/* leaf l up j: leaf_link0 + 2(l*u0 + j) */
	int32_t agg_link0;	/* agg s up m: agg_link0 + 2(s*u1 + m) */
};
struct ft *ft_build(struct graph *g, const struct ft_params *p, int n_ep,
		    int nics_per_node, const int32_t *ep_node,
		    const struct link_spec *link, const char **bad_key,
		    struct err *e);
void ft_free(struct ft *ft);
/* A leaf's ports down to NICs (d0) for radix k and the leaf
 * oversubscription of p; -1 when no whole split gives it. */
int ft_leaf_down_ports(const struct ft_params *p, int k);
int ft_route(const struct ft *ft, int32_t es, int32_t ed, uint64_t key,
	     int32_t *out);

/* --- dragonfly (dragonfly.c) --------------------------------------------- */
struct df {
	int p, a, h, g, copies;
	enum df_arrangement arrangement;
	enum df_routing routing;
	int n_ep;
	int32_t term_link0;	/* endpoint e up: term_link0 + 2e */
	int32_t local_link0;	/* see df_local_link() */
	int32_t *global;	/* [group*a*h + channel]: link out of group, -1 */
};
struct df *df_build(struct graph *g, const struct df_params *p, int n_ep,
		    const int32_t *ep_node, const struct link_spec *link,
		    const char **bad_key, struct err *e);
void df_free(struct df *df);
/* load: flows on each link now (UGAL), may be NULL; cap: link bandwidths. */
int df_route(const struct df *df, int32_t es, int32_t ed, uint64_t key,
	     const int32_t *load, const double *cap_Bps, int32_t *out);

/* --- scale-up domains (nvlink.c) ----------------------------------------- */
/* GPU i gets a duplex link to its domain's NVSwitch: returns the id of GPU
 * 0's up link (GPU i up = that + 2i), or -2 when domains are single GPUs. */
int32_t nvl_build(struct graph *g, int gpus, int domain_gpus,
		  const struct link_spec *link, struct err *e);

/* --- ECMP choice (route.c) ----------------------------------------------- */
uint64_t route_mix(uint64_t x);
uint64_t route_hash3(uint64_t a, uint64_t b, uint64_t c);
/* Pick one of n equal-cost choices: spread by `slot` or hash of the flow. */
int route_pick(enum ecmp_mode mode, int n, uint64_t slot, uint64_t hash);

/* --- placement (placement.c) --------------------------------------------- */
int *place_ranks(int gpus, const int *list, int n_list, struct err *e);

/* --- the network --------------------------------------------------------- */
struct flow_sys;
struct net {
	struct net_params p;
	int n_nodes, n_ep;
	struct graph g;
	int32_t nvl_link0;	/* -2: no scale-up links */
	int32_t pcie_link0;	/* -2: GPUs are their own endpoints */
	int32_t *ep_node;	/* graph node of each fabric endpoint */
	struct ft *ft;
	struct df *df;
	int *rank_gpu;
	struct flow_sys *idle;	/* empty flow system for net_coll_time_s */
	struct net_time_cache *time_cache;
};

struct net *net_new(const struct net_params *p, const char **bad_key,
		    struct err *e);
/* Route one flow: fills out[] with link ids, returns how many.  key tells
 * apart flows of one pair (channels); load may be NULL. */
int net_route(struct net *net, int src_gpu, int dst_gpu, uint64_t key,
	      const int32_t *load, int32_t *out);
/* The route from src_gpu to dst_gpu through the NIC of via_gpu, a GPU of
 * src's NVLink domain: over NVLink to via, then via's route (NCCL's PXN).
 * via -1 or src: net_route. */
int net_route_via(struct net *net, int src_gpu, int via_gpu, int dst_gpu,
		  uint64_t key, const int32_t *load, int32_t *out);
int net_endpoint_of_gpu(const struct net *net, int gpu);
const struct link_spec *net_tier_spec(const struct net *net, int tier);
bool net_same_domain(const struct net *net, int a, int b);
size_t net_bytes(const struct net *net);
/* The algorithm a request runs with (AUTO resolved as net.c says). */
int net_coll_resolve(struct net *net, const struct coll *c,
		     enum coll_algo *algo, struct err *e);

#endif
