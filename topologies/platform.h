/*
 * platform.h -- the platform as built: what net_build() put in the graph
 * (GPUs, nodes, NICs, switches, cables per tier), counted with the links
 * catalog's power figures, for power, cost and carbon to read.  This is
 * the one description of the hardware: nothing else re-describes it.
 *
 *   struct platform pf;
 *   platform_from_cfg(net_cfg, &pf, e);       // builds the network once
 *   platform_idle_w(&pf);                     // W, whether busy or not
 *   platform_traffic_w(&pf, bytes_per_s);     // W on top, per tier's load
 *
 * Tiers are the graph's link tiers (graph.h).  Each tier's switches are
 * those at the upper end of its links: leaf switches for TIER_LEAF (NIC to
 * leaf), spines or aggregation switches for TIER_SPINE, cores for
 * TIER_CORE, dragonfly routers for TIER_TERMINAL, the NVSwitch fabric of a
 * scale-up domain for TIER_NVLINK (its power is in the node, as NVLink's is
 * in the GPU's: no switch power is counted for it).
 *
 * Switches are physical switches of the scale-out link's switch_radix
 * ports.  Leaves, aggregation switches and dragonfly routers are one each
 * (a router with more ports than the catalog's switch counts as several).
 * The spines of a two-tier tree and the cores of a three-tier tree each
 * take one port per leaf or pod, so with fewer leaves or pods than ports
 * several of them fit one physical crossbar of the same capacity: they
 * count as ceil(ports in use / radix), as a fabric would be bought.  A
 * cluster that is one scale-up domain (one node, or one NVL72 rack) sends
 * nothing over its fabric: no switch of it counts, only its NICs.
 *
 * Idle power = switches x switch_w + NICs x nic_w + cable ends x
 * transceiver_w (0 with passive copper); traffic power = bytes/s crossing
 * each tier's links x 8 x pj_per_bit of that tier's link.
 *
 * Embodied carbon = switches x switch_embodied_kg + NICs x nic_embodied_kg
 * of the scale-out link (a fat tree of another radix than the catalog's
 * switch: per port, as its power); NVSwitch fabrics are in the node's.
 */
#ifndef TOPOLOGIES_PLATFORM_H
#define TOPOLOGIES_PLATFORM_H

#include <stdint.h>
#include <stdio.h>

#include "sim/err.h"
#include "topologies/graph.h"
#include "topologies/net.h"

struct platform_tier {
	const char *name;	/* graph_tier_names[tier] */
	char link[48];		/* links catalog entry ("" if the tier is empty) */
	int64_t cables;		/* duplex links */
	int64_t switches;	/* physical switches at the upper end */
	int64_t switch_ports;	/* of theirs, ports in use */
	double switch_w;	/* per switch (links.*.switch_w) */
	double transceiver_w;	/* per cable end (links.*.transceiver_w) */
	double pj_per_bit;	/* per bit per link crossed (links.*.pj_per_bit) */
	double idle_w;		/* the tier's switches and cable ends */
};

struct platform {
	int gpus, gpus_per_node, nodes;
	int nics;		/* scale-out NIC ports (0: no fabric) */
	double nic_w;		/* per NIC (links.*.nic_w of the scale-out link) */
	int switch_radix;	/* ports per physical switch */
	int64_t switches;	/* all tiers, NVSwitch fabrics not included */
	struct platform_tier tier[TIER_COUNT];
	double idle_w;		/* switches + NICs + transceivers */
	double switch_embodied_kg;	/* per physical switch (links.*.switch_embodied_kg) */
	double nic_embodied_kg;		/* per NIC (links.*.nic_embodied_kg) */
	double embodied_kg;	/* switches x switch_embodied_kg + NICs x nic_embodied_kg */
};

/* Count what net holds. */
void platform_of_net(const struct net *net, struct platform *pf);
/* Build the network of settings c (net_build), count it and let it go. */
int platform_from_cfg(const struct net_cfg *c, struct platform *pf, struct err *e);
/* The tier of a graph tier name ("leaf", ...), or -1. */
int platform_tier_index(const char *name);
/* Power of the traffic: bytes_per_s[t] crossing tier t's links. */
double platform_traffic_w(const struct platform *pf,
			  const double bytes_per_s[TIER_COUNT]);
/* One line per non-empty tier and a total, for --check. */
void platform_print(const struct platform *pf, FILE *out);

#endif
