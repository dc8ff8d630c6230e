/*
 * netcfg.c -- the network's settings (network.*, links.*), read once per
 * load by net_cfg_from_scenario() with cluster.* and the GPU's NVLink from
 * the gpus catalog into the plain parameters of net_new(), and
 * net_build(), which builds a network from them as often as asked.
 *
 * Errors found while building (an odd radix, too many groups, a placement
 * naming a missing GPU, a disconnected graph, ...) come back from net_new()
 * with the key they concern, and are reported at that key's file and line.
 * A GPU whose catalog entry names no NVLink ("") has no scale-up domain.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topologies/topo.h"

const struct cfg_setting net_settings[] = {
	{ "network.topology", CFG_ENUM, "", 0, 0, "fat_tree", "fat_tree|dragonfly|none",
	  "scale-out fabric; none: scale-up domains only (one domain, or an error)" },
	{ "network.scale_out_link", CFG_REF, "", 0, 0, "ib_hdr", "links",
	  "NIC ports and fabric links, a links catalog entry" },
	{ "network.pcie_link", CFG_REF, "", 0, 0, "pcie_gen4", "links",
	  "GPU to NIC link when GPUs share NICs, a links catalog entry" },
	{ "network.nics_per_node", CFG_INT, "", 0, 1024, "0", NULL,
	  "scale-out NICs per node, a divisor of cluster.gpus_per_node "
	  "(0: one per GPU, as in DGX systems)" },
	{ "network.scale_up_domain_gpus", CFG_INT, "", 0, 1e7, "0", NULL,
	  "GPUs in one NVLink domain: whole nodes (e.g. 72) or a divisor of a "
	  "node (0: cluster.gpus_per_node)" },
	{ "network.fat_tree.tiers", CFG_INT, "", 0, 3, "0", NULL,
	  "2 (leaf/spine) or 3 (k-ary, pods); 0: the fewest that fit" },
	{ "network.fat_tree.radix", CFG_INT, "", 0, 4096, "0", NULL,
	  "ports per switch, even (0: the link's switch_radix)" },
	{ "network.fat_tree.oversubscription", CFG_FLOAT_LIST, "", 1, 1024, "[1.0, 1.0]",
	  NULL, "down:up port ratio at the leaf and at the spine (aggregation); "
	  "ports that do not fit the ratio stay dark" },
	{ "network.fat_tree.rail_optimized", CFG_BOOL, "", 0, 0, "true", NULL,
	  "NIC i of every node of a scalable unit on leaf i (DGX SuperPOD)" },
	{ "network.fat_tree.ecmp", CFG_ENUM, "", 0, 0, "spread", "spread|hash",
	  "choice among equal-cost uplinks: by port (balanced) or by flow hash" },
	{ "network.dragonfly.p", CFG_INT, "", 0, 1e6, "0", NULL,
	  "terminals per router (all of p, a, h, g 0: balanced a = 2p = 2h)" },
	{ "network.dragonfly.a", CFG_INT, "", 0, 1e6, "0", NULL, "routers per group" },
	{ "network.dragonfly.h", CFG_INT, "", 0, 1e6, "0", NULL, "global links per router" },
	{ "network.dragonfly.g", CFG_INT, "", 0, 1e7, "0", NULL,
	  "groups, at most a*h+1 (0: as many as the GPUs need)" },
	{ "network.dragonfly.arrangement", CFG_ENUM, "", 0, 0, "absolute",
	  "absolute|relative", "which group each global channel reaches" },
	{ "network.dragonfly.routing", CFG_ENUM, "", 0, 0, "ugal",
	  "minimal|valiant|ugal", "per-flow routing (ugal: UGAL-L)" },
	{ "network.collective.algo", CFG_ENUM, "", 0, 0, "auto", "auto|ring|tree|hier|nvls",
	  "all-reduce algorithm (auto: the fastest on the idle fabric, as NCCL's tuner)" },
	{ "network.collective.channels", CFG_INT, "", 0, 64, "0", NULL,
	  "rings per collective across nodes (0: one per NIC)" },
	{ "network.collective.same_nic", CFG_BOOL, "", 0, 0, "true", NULL,
	  "a ring leaves each node by the NIC it came in by, the node's last GPU "
	  "handing its data over NVLink to the GPU of that NIC (NCCL's same-NIC "
	  "rings with PXN); false: by the last GPU's own NIC" },
	{ "network.collective.base_latency_ns", CFG_FLOAT, "ns", 0, 1e9, "8400", NULL,
	  "latency once per collective (NCCL tuning model, ring Simple: 8.4 us)" },
	{ "network.collective.step_latency_nvlink_ns", CFG_FLOAT, "ns", 0, 1e9, "3400",
	  NULL, "latency per algorithm step inside an NVLink domain (NCCL: 3.4 us)" },
	{ "network.collective.step_latency_net_ns", CFG_FLOAT, "ns", 0, 1e9, "9600",
	  NULL, "latency per algorithm step across the fabric (NCCL: 9.6 us)" },
	{ "network.collective.tree_channel_busbw_Bps", CFG_FLOAT_LIST, "B/s", 0, 1e13,
	  "[24e9, 22.5e9, 16e9]", NULL, "most busbw one channel of NCCL's tree "
	  "reaches on 1, 2 and 4+ nodes (NCCL tuning.cc perChMaxTreeBw, Ampere); "
	  "0: no limit" },
	{ "network.placement", CFG_INT_LIST, "", 0, 1e7, "[]", NULL,
	  "GPU of each rank (a permutation of 0..gpus-1); empty: rank r on GPU r" },
	{ "links.*.bw_gbit_s", CFG_FLOAT, "Gb/s", 0, 1e7, "0", NULL,
	  "bandwidth per direction in 10^9 bits/s (or bw_Bps)" },
	CFG_RENAMED_TO("links.*.bw_gbps", "links.*.bw_gbit_s"),
	CFG_REMOVED_FOR("links.*.idle_w", "a link's idle power is its switches', NICs' "
			"and transceivers' (links.*.switch_w, nic_w, transceiver_w)"),
	{ "links.*.bw_Bps", CFG_FLOAT, "B/s", 0, 1e15, "0", NULL,
	  "bandwidth per direction in bytes/s (or bw_gbit_s)" },
	{ "links.*.efficiency", CFG_FLOAT, "", 0, 1, "1", NULL,
	  "achievable fraction of the bandwidth (protocol overhead), > 0" },
	{ "links.*.nvls_efficiency", CFG_FLOAT, "", 0, 1, "0", NULL,
	  "an NVLink link whose NVSwitch reduces (NVLink SHARP): the rate each GPU "
	  "reaches in NCCL's NVLS all-reduce, as a fraction of bw_Bps (0: none)" },
	{ "links.*.latency_ns", CFG_FLOAT, "ns", 0, 1e9, "0", NULL,
	  "one hop: switch port to port plus cable" },
	{ "links.*.pj_per_bit", CFG_FLOAT, "pJ/bit", 0, 1e6, "0", NULL,
	  "energy per bit per link crossed, on top of the idle power" },
	{ "links.*.switch_radix", CFG_INT, "", 0, 4096, "0", NULL,
	  "ports of the matching switch (0: not a switched link)" },
	{ "links.*.switch_w", CFG_FLOAT, "W", 0, 1e6, "0", NULL,
	  "power of that switch, load or not (needed for a scale-out link)" },
	{ "links.*.nic_w", CFG_FLOAT, "W", 0, 1e4, "0", NULL,
	  "power of one NIC of this link (needed for a scale-out link)" },
	{ "links.*.transceiver_w", CFG_FLOAT, "W", 0, 1e3, "0", NULL,
	  "power of the module at each cable end (0: passive copper)" },
	{ "links.*.source", CFG_STRING, "", 0, 0, "", NULL,
	  "where the figures come from (datasheet, paper, URL, date; trainsim list)" },
	{ "links.*.switch_embodied_kg", CFG_FLOAT, "kgCO2e", 0, 1e7, "0", NULL,
	  "manufacturing footprint of that switch (embodied carbon)" },
	{ "links.*.nic_embodied_kg", CFG_FLOAT, "kgCO2e", 0, 1e6, "0", NULL,
	  "manufacturing footprint of one NIC of this link (embodied carbon)" },
	CFG_END
};

/* One catalog entry; `key` is the setting that named it (for errors). */
static int read_link(const struct scenario *sc, const char *name,
		     const char *key, struct link_spec *s, struct err *e)
{
	char path[160];

	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	if (name[0] == '\0' || strlen(name) >= sizeof s->name ||
	    strchr(name, '.') || !sc_has(sc, "links.%s", name))
		return sc_error(sc, e, key, "no link \"%s\" in the links catalog "
				"(expected an entry of links, e.g. from "
				"catalog/links.cfg)", name);
	double gbit_s = sc_float(sc, "links.%s.bw_gbit_s", name);
	double Bps = sc_float(sc, "links.%s.bw_Bps", name);
	bool has_B = sc_has(sc, "links.%s.bw_Bps", name);
	snprintf(path, sizeof path, "links.%s.%s", name, has_B ? "bw_Bps" : "bw_gbit_s");
	if (gbit_s > 0 && Bps > 0)
		return sc_error(sc, e, path, "both bw_gbit_s and bw_Bps are given "
				"(expected one of them)");
	s->bw_Bps = Bps > 0 ? Bps : gbit_s * 1e9 / 8;
	if (!(s->bw_Bps > 0))
		return sc_error(sc, e, path, "link \"%s\" has no bandwidth (expected "
				"more than 0 in bw_gbit_s or bw_Bps)", name);
	s->efficiency = sc_float(sc, "links.%s.efficiency", name);
	if (!(s->efficiency > 0)) {
		snprintf(path, sizeof path, "links.%s.efficiency", name);
		return sc_error(sc, e, path, "efficiency 0 carries nothing "
				"(expected 0 < efficiency <= 1)");
	}
	s->nvls_efficiency = sc_float(sc, "links.%s.nvls_efficiency", name);
	s->latency_ns = sc_float(sc, "links.%s.latency_ns", name);
	s->pj_per_bit = sc_float(sc, "links.%s.pj_per_bit", name);
	s->switch_radix = (int)sc_int(sc, "links.%s.switch_radix", name);
	s->switch_w = sc_float(sc, "links.%s.switch_w", name);
	s->nic_w = sc_float(sc, "links.%s.nic_w", name);
	s->transceiver_w = sc_float(sc, "links.%s.transceiver_w", name);
	s->switch_embodied_kg = sc_float(sc, "links.%s.switch_embodied_kg", name);
	s->nic_embodied_kg = sc_float(sc, "links.%s.nic_embodied_kg", name);
	return 0;
}

/* A fabric's switches and NICs draw power and were manufactured: no
 * silent 0 W or 0 kgCO2e for them. */
static int check_fabric_power(const struct scenario *sc, const char *name,
			      struct err *e)
{
	static const char *const need[] = { "switch_w", "nic_w", "switch_embodied_kg",
					    "nic_embodied_kg" };
	static const char *const unit[] = { "W", "W", "kgCO2e", "kgCO2e" };
	char path[160];

	for (size_t i = 0; i < sizeof need / sizeof need[0]; i++)
		if (!sc_has(sc, "links.%s.%s", name, need[i])) {
			snprintf(path, sizeof path, "links.%s", name);
			return sc_error(sc, e, path, "the scale-out link has no %s "
					"(expected links.%s.%s in %s, as in "
					"catalog/links.cfg)", need[i], name, need[i],
					unit[i]);
		}
	return 0;
}

static int enum_index(const char *v, const char *const *names)
{
	for (int i = 0; names[i]; i++)
		if (strcmp(v, names[i]) == 0)
			return i;
	return 0;	/* the loader already refused anything else */
}

static void read_fabric(const struct scenario *sc, struct net_params *p)
{
	static const char *const topo[] = { "none", "fat_tree", "dragonfly", NULL };
	static const char *const ecmp[] = { "spread", "hash", NULL };
	static const char *const arr[] = { "absolute", "relative", NULL };
	static const char *const rt[] = { "minimal", "valiant", "ugal", NULL };

	p->topology = (enum net_topology)enum_index(sc_str(sc, "network.topology"), topo);
	p->ft.tiers = (int)sc_int(sc, "network.fat_tree.tiers");
	p->ft.radix = (int)sc_int(sc, "network.fat_tree.radix");
	p->ft.oversub[0] = p->ft.oversub[1] = 1;
	size_t n = sc_list_len(sc, "network.fat_tree.oversubscription");
	for (size_t i = 0; i < n && i < 2; i++)
		p->ft.oversub[i] = sc_list_float(sc, i, "network.fat_tree.oversubscription");
	p->ft.rail_optimized = sc_bool(sc, "network.fat_tree.rail_optimized");
	p->ft.ecmp = (enum ecmp_mode)enum_index(sc_str(sc, "network.fat_tree.ecmp"), ecmp);
	p->df.p = (int)sc_int(sc, "network.dragonfly.p");
	p->df.a = (int)sc_int(sc, "network.dragonfly.a");
	p->df.h = (int)sc_int(sc, "network.dragonfly.h");
	p->df.g = (int)sc_int(sc, "network.dragonfly.g");
	p->df.arrangement = (enum df_arrangement)enum_index(
		sc_str(sc, "network.dragonfly.arrangement"), arr);
	p->df.routing = (enum df_routing)enum_index(
		sc_str(sc, "network.dragonfly.routing"), rt);
}

static void read_collective(const struct scenario *sc, struct net_params *p)
{
	/* the settings table admits only coll.c's names: the parse finds it */
	if (coll_algo_parse(sc_str(sc, "network.collective.algo"), &p->algo) < 0)
		p->algo = COLL_AUTO;
	p->channels = (int)sc_int(sc, "network.collective.channels");
	p->same_nic = sc_bool(sc, "network.collective.same_nic");
	p->base_latency_ns = sc_float(sc, "network.collective.base_latency_ns");
	p->step_nvlink_ns = sc_float(sc, "network.collective.step_latency_nvlink_ns");
	p->step_net_ns = sc_float(sc, "network.collective.step_latency_net_ns");
	size_t n = sc_list_len(sc, "network.collective.tree_channel_busbw_Bps");
	for (size_t i = 0; i < 3; i++)
		p->tree_channel_busbw_Bps[i] = i < n ?
			sc_list_float(sc, i, "network.collective.tree_channel_busbw_Bps") :
			(n > 0 ? p->tree_channel_busbw_Bps[n - 1] : 0);
}

static int read_nvlink(const struct scenario *sc, const char *gpu, struct net_params *p,
		       struct err *e)
{
	char key[160];

	snprintf(key, sizeof key, "gpus.%s.nvlink", gpu);
	const char *name = sc_has(sc, "gpus.%s", gpu) ? sc_str(sc, "gpus.%s.nvlink", gpu) : "";
	if (name[0] == '\0') {
		p->domain_gpus = 1;	/* no NVLink: PCIe only */
		return 0;
	}
	return read_link(sc, name, key, &p->nvlink, e);
}

/* The settings as net_new() takes them, and where they came from. */
struct net_cfg {
	struct net_params p;
	int *placement;			/* owned; p.placement points here */
	const struct sc_where *where;	/* for net_new()'s bad_key */
	const char *size_key;		/* blamed for cluster.*, NULL: those */
};

void net_cfg_free(struct net_cfg *c)
{
	if (c)
		free(c->placement);
	free(c);
}

double net_cfg_node_out_Bps(const struct net_cfg *c)
{
	const struct net_params *p = &c->p;
	int nics = p->nics_per_node > 0 ? p->nics_per_node : p->gpus_per_node;

	if (p->topology == TOPO_NONE)
		return 0;
	return p->scale_out.bw_Bps * p->scale_out.efficiency * nics;
}

/* The settings for gpus GPUs of type gpu (a gpus catalog entry), in nodes
 * of gpus_per_node. */
static struct net_cfg *cfg_read(const struct scenario *sc, const char *gpu, int gpus,
				int gpus_per_node, struct err *e)
{
	struct net_cfg *c = calloc(1, sizeof *c);
	struct net_params *p;

	if (c == NULL) {
		err_set(e, ERR_RUN, "out of memory for the network's settings");
		return NULL;
	}
	p = &c->p;
	c->where = sc_where_of(sc);
	net_params_default(p);
	p->gpus = gpus;
	p->gpus_per_node = gpus_per_node;
	p->nics_per_node = (int)sc_int(sc, "network.nics_per_node");
	p->domain_gpus = (int)sc_int(sc, "network.scale_up_domain_gpus");
	if (read_nvlink(sc, gpu, p, e) < 0)
		goto fail;
	read_fabric(sc, p);
	read_collective(sc, p);
	/* read_fabric takes the leaf's and the spine's: a third ratio would
	 * be dropped without a word. */
	size_t n_over = sc_list_len(sc, "network.fat_tree.oversubscription");
	if (n_over > 2) {
		sc_error(sc, e, "network.fat_tree.oversubscription", "%zu ratios (expected "
			 "at most 2: the leaf's and the spine's)", n_over);
		goto fail;
	}
	if (p->topology != TOPO_NONE &&
	    (read_link(sc, sc_str(sc, "network.scale_out_link"),
		       "network.scale_out_link", &p->scale_out, e) < 0 ||
	     check_fabric_power(sc, p->scale_out.name, e) < 0))
		goto fail;
	if (p->nics_per_node > 0 && p->nics_per_node < p->gpus_per_node &&
	    read_link(sc, sc_str(sc, "network.pcie_link"), "network.pcie_link",
		      &p->pcie, e) < 0)
		goto fail;
	size_t n = sc_list_len(sc, "network.placement");
	if (n > 0) {
		c->placement = malloc(sizeof *c->placement * n);
		if (c->placement == NULL) {
			err_set(e, ERR_RUN, "out of memory for the placement");
			goto fail;
		}
		for (size_t i = 0; i < n; i++)
			c->placement[i] = (int)sc_list_float(sc, i, "network.placement");
		p->placement = c->placement;
		p->n_placement = (int)n;
	}
	return c;
fail:
	net_cfg_free(c);
	return NULL;
}

struct net_cfg *net_cfg_from_scenario(const struct scenario *sc, struct err *e)
{
	return cfg_read(sc, sc_str(sc, "cluster.gpu"), (int)sc_int(sc, "cluster.gpus"),
			(int)sc_int(sc, "cluster.gpus_per_node"), e);
}

struct net_cfg *net_cfg_for_gpus(const struct scenario *sc, const char *gpu, int gpus,
				 int gpus_per_node, const char *size_key, struct err *e)
{
	struct net_cfg *c = cfg_read(sc, gpu, gpus, gpus_per_node, e);

	if (c)
		c->size_key = size_key;
	return c;
}

int net_nodes_per_leaf(const struct scenario *sc, int gpus_per_node, const char *key,
		       struct err *e)
{
	struct net_params p;
	int nics = (int)sc_int(sc, "network.nics_per_node");

	net_params_default(&p);
	read_fabric(sc, &p);
	if (p.topology != TOPO_FAT_TREE)
		return sc_error(sc, e, key, "0 takes the leaves from a fat tree; "
				"network.topology is %s (give the nodes per leaf)",
				sc_str(sc, "network.topology"));
	if (read_link(sc, sc_str(sc, "network.scale_out_link"), "network.scale_out_link",
		      &p.scale_out, e) < 0)
		return -1;
	nics = nics ? nics : gpus_per_node;
	if (nics > gpus_per_node || gpus_per_node % nics != 0)
		return sc_error(sc, e, "network.nics_per_node", "%d NICs on nodes of %d "
				"GPUs (expected a divisor of the node's GPUs)", nics,
				gpus_per_node);
	int k = p.ft.radix ? p.ft.radix : p.scale_out.switch_radix;
	int d0 = ft_leaf_down_ports(&p.ft, k);
	if (d0 < 0)
		return sc_error(sc, e, "network.fat_tree.oversubscription", "no leaf of "
				"radix %d splits its ports %g:1 (expected an even radix of "
				"at least 4 and a ratio such as 1, 2 or 3)", k, p.ft.oversub[0]);
	if (p.ft.rail_optimized)
		return d0;	/* NIC i of each node of a unit on the unit's leaf i */
	if (d0 < nics)
		return sc_error(sc, e, key, "0 takes the leaves from the fat tree, "
				"but a node's %d NICs span leaves of %d ports down (give "
				"the nodes per leaf)", nics, d0);
	return d0 / nics;	/* a node straddling two leaves counts for neither */
}

struct net *net_build(const struct net_cfg *c, struct err *e)
{
	const char *bad_key = NULL;
	struct err why = { 0 };
	struct net *net = net_new(&c->p, &bad_key, &why);

	if (net == NULL) {
		if (bad_key && c->size_key && strncmp(bad_key, "cluster.", 8) == 0)
			bad_key = c->size_key;	/* the size came from elsewhere */
		if (why.status == ERR_USAGE && bad_key != NULL)
			sc_where_error(c->where, e, bad_key, "%s", why.msg);
		else
			*e = why;
	}
	return net;
}
