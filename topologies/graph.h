/*
 * graph.h -- the network as nodes and directed links, each link in a tier.
 *
 * Links are added in duplex pairs: link l and its reverse l ^ 1 join the
 * same two nodes in opposite directions with the same bandwidth (per
 * direction) and latency.  Builders (nvlink.c, fattree.c, dragonfly.c) add
 * links in a fixed order, so their routers can compute a link's id from its
 * position instead of searching adjacency lists.
 *
 * Tiers name the part of the fabric a link belongs to, for the per-tier
 * byte counters reported to /step.
 */
#ifndef TOPOLOGIES_GRAPH_H
#define TOPOLOGIES_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

enum tier {
	TIER_NVLINK,		/* GPU <-> NVSwitch of its scale-up domain */
	TIER_PCIE,		/* GPU <-> NIC when NICs are shared */
	TIER_LEAF,		/* NIC <-> leaf (edge) switch */
	TIER_SPINE,		/* leaf <-> spine (aggregation) */
	TIER_CORE,		/* aggregation <-> core (three tiers) */
	TIER_TERMINAL,		/* dragonfly: NIC <-> router */
	TIER_LOCAL,		/* dragonfly: router <-> router in a group */
	TIER_GLOBAL,		/* dragonfly: between groups */
	TIER_COUNT
};
extern const char *const graph_tier_names[TIER_COUNT];

enum node_kind { NODE_GPU, NODE_NIC, NODE_NVSWITCH, NODE_SWITCH };

struct graph {
	int32_t n_nodes, cap_nodes;
	uint8_t *node_kind;
	int32_t n_links, cap_links;
	int32_t *src, *dst;
	double *bw_Bps;		/* usable bandwidth per direction */
	int32_t *latency_ns;
	uint8_t *tier;
};

void graph_init(struct graph *g);
void graph_free(struct graph *g);
/* Add count nodes of one kind; returns the first id or -1. */
int32_t graph_add_nodes(struct graph *g, enum node_kind kind, int32_t count,
			struct err *e);
/* Add a -> b and b -> a; returns the id of a -> b (even) or -1. */
int32_t graph_add_duplex(struct graph *g, int32_t a, int32_t b, double bw_Bps,
			 int32_t latency_ns, enum tier tier, struct err *e);
/* Reserve room for n more links (optional, saves regrowth). */
int graph_reserve_links(struct graph *g, int32_t n, struct err *e);
/* Is every node reachable from node 0?  -1 with a message naming an
 * unreachable node otherwise. */
int graph_check_connected(const struct graph *g, struct err *e);
/* Bytes of memory held. */
size_t graph_bytes(const struct graph *g);

#endif
