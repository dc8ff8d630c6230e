/*
 * fleet.c -- nodes, pools and placement of a shared cluster (see fleet.h).
 */
#include <stdlib.h>
#include <string.h>

#include "models/fleet.h"
#include "topologies/net.h"

const struct cfg_setting fleet_settings[] = {
	{ "fleet.gpu", CFG_REF, "", 0, 0, NULL, "gpus", "GPU type (gpus catalog)" },
	{ "fleet.gpus_per_node", CFG_INT, "GPUs", 1, 1024, "8", NULL, "GPUs per node" },
	{ "fleet.node", CFG_STRING, "", 0, 0, "", NULL,
	  "server type, a nodes catalog entry: its host's power (empty: the first "
	  "entry whose gpu is fleet.gpu, else \"generic\"; models/node.h)" },
	{ "fleet.nodes_per_leaf", CFG_INT, "nodes", 0, 1e6, "0", NULL,
	  "nodes that share leaf switches, the unit placement packs jobs into "
	  "(0: from the fat tree the network.* settings build -- a leaf's ports "
	  "down / NICs per node, or a rail-optimised unit's nodes; with NDR's "
	  "64-port switches 32 nodes, one scalable unit of an NVIDIA DGX "
	  "SuperPOD)" },
	{ "fleet.placement", CFG_ENUM, "", 0, 0, "topology", "topology|first_fit",
	  "pack jobs into few leaf switches, or take the first free nodes" },
	{ "fleet.gpu_busy_fraction", CFG_FLOAT, "", 0, 1, "0.8", NULL,
	  "a busy GPU's power between idle and TDP (training nodes average 76-82% "
	  "of nameplate: Latif et al.; Newkirk et al. 2025)" },
	{ "fleet.pue", CFG_FLOAT, "", 1, 5, "1.2", NULL,
	  "facility power / IT power (an assumption; hyperscale fleets report 1.1-1.2)" },
	{ "fleet.grid_g_per_kwh", CFG_FLOAT, "gCO2/kWh", 0, 2000, "369.5", NULL,
	  "grid carbon intensity (USA 2023 average, as scenarios/1b.cfg)" },
	{ "fleet.failures_per_node_per_1000_days", CFG_FLOAT, "", 0, 1e6, "6.5", NULL,
	  "node failures (Meta RSC-1: 6.5 per node per 1000 days, Kokolis et al. 2024)" },
	{ "fleet.repair_s", CFG_FLOAT, "s", 0, 1e8, "14400", NULL,
	  "a failed node's time in repair (an assumption: 4 h)" },
	{ "fleet.pools.*.class", CFG_ENUM, "", 0, 0, "reserved", "reserved|on_demand|spot",
	  "pricing class" },
	{ "fleet.pools.*.instance", CFG_STRING, "", 0, 0, "", NULL,
	  "instance type in the instances catalog (its price for the class)" },
	{ "fleet.pools.*.usd_per_node_hour", CFG_FLOAT, "USD/node-h", 0, 1e6, "0", NULL,
	  "price of a node-hour (0: the instance's)" },
	{ "fleet.pools.*.nodes", CFG_INT, "nodes", 0, 1e7, "0", NULL,
	  "nodes at the start (reserved: always)" },
	{ "fleet.pools.*.min_nodes", CFG_INT, "nodes", 0, 1e7, "0", NULL,
	  "the autoscaler keeps at least this many (elastic pools)" },
	{ "fleet.pools.*.max_nodes", CFG_INT, "nodes", 0, 1e7, "0", NULL,
	  "... and at most this many (0: nodes, not elastic)" },
	{ "fleet.pools.*.preemptions_per_node_per_day", CFG_FLOAT, "", 0, 1e3, "0", NULL,
	  "spot: reclaims per node-day" },
	CFG_END
};

const char *const fleet_class_names[FC_COUNT] = { "reserved", "on_demand", "spot" };

static int pool_from_scenario(const struct scenario *sc, const char *name,
			      struct fleet_pool *p, struct err *e)
{
	const char *cls = sc_str(sc, "fleet.pools.%s.class", name);
	const char *inst = sc_str(sc, "fleet.pools.%s.instance", name);
	double usd_h = sc_float(sc, "fleet.pools.%s.usd_per_node_hour", name);
	int nodes = (int)sc_int(sc, "fleet.pools.%s.nodes", name);

	p->name = name;
	p->klass = strcmp(cls, "spot") == 0 ? FC_SPOT :
		   strcmp(cls, "on_demand") == 0 ? FC_ON_DEMAND : FC_RESERVED;
	if (usd_h == 0 && inst[0]) {
		if (!sc_has_child(sc, "instances", inst))
			return sc_error(sc, e, "fleet.pools.*.instance", "%s: no such instance "
					"in the catalog (pool %s)", inst, name);
		usd_h = sc_float(sc, "instances.%s.%s_usd_per_hour", inst,
				 fleet_class_names[p->klass]);
		if (usd_h == 0)
			return sc_error(sc, e, "fleet.pools.*.instance", "%s has no %s price "
					"(pool %s: give usd_per_node_hour)", inst,
					fleet_class_names[p->klass], name);
	}
	p->usd_per_node_s = usd_h / 3600.0;
	p->preempt_per_node_s = sc_float(sc, "fleet.pools.%s.preemptions_per_node_per_day",
					 name) / 86400.0;
	p->min_nodes = (int)sc_int(sc, "fleet.pools.%s.min_nodes", name);
	p->max_nodes = (int)sc_int(sc, "fleet.pools.%s.max_nodes", name);
	if (p->max_nodes == 0)
		p->max_nodes = nodes;
	p->held = nodes;
	if (nodes > p->max_nodes || p->min_nodes > p->max_nodes)
		return sc_error(sc, e, "fleet.pools", "pool %s: min_nodes <= nodes <= "
				"max_nodes does not hold", name);
	return 0;
}

int fleet_from_scenario(const struct scenario *sc, struct fleet *f, struct err *e)
{
	const char *const *names;
	size_t n = sc_children(sc, "fleet.pools", &names);
	struct gpu_spec g;

	memset(f, 0, sizeof *f);
	if (n == 0 || n > CJOB_POOLS_MAX)
		return sc_error(sc, e, "fleet.pools", "expected 1 to %d pools", CJOB_POOLS_MAX);
	gpu_from_scenario(sc, sc_str(sc, "fleet.gpu"), &g);
	double busy = sc_float(sc, "fleet.gpu_busy_fraction");
	f->idle_gpu_w = g.idle_w;
	f->busy_gpu_w = g.idle_w + busy * (g.tdp_w - g.idle_w);
	if (node_lookup(sc, "fleet.node", g.name, &f->node, e) < 0)
		return -1;
	f->host_busy_w = node_host_w(&f->node, (int)sc_int(sc, "fleet.gpus_per_node"), true);
	f->host_idle_w = node_host_w(&f->node, (int)sc_int(sc, "fleet.gpus_per_node"), false);
	f->pue = sc_float(sc, "fleet.pue");
	f->grid_kg_per_kwh = sc_float(sc, "fleet.grid_g_per_kwh") / 1000.0;
	f->fail_per_node_s = sc_float(sc, "fleet.failures_per_node_per_1000_days") /
			     (1000.0 * 86400.0);
	f->repair_s = sc_float(sc, "fleet.repair_s");
	f->gpus_per_node = (int)sc_int(sc, "fleet.gpus_per_node");
	f->nodes_per_leaf = (int)sc_int(sc, "fleet.nodes_per_leaf");
	if (f->nodes_per_leaf == 0 &&
	    (f->nodes_per_leaf = net_nodes_per_leaf(sc, f->gpus_per_node,
						    "fleet.nodes_per_leaf", e)) < 0)
		return -1;
	f->topology = strcmp(sc_str(sc, "fleet.placement"), "topology") == 0;
	f->n_pools = (int)n;
	for (size_t i = 0; i < n; i++) {
		struct fleet_pool *p = &f->pool[i];
		if (pool_from_scenario(sc, names[i], p, e) < 0)
			return -1;
		int leaves = (p->max_nodes + f->nodes_per_leaf - 1) / f->nodes_per_leaf;
		if ((double)f->n_nodes + (double)leaves * f->nodes_per_leaf > 1e8)
			return sc_error(sc, e, "fleet.pools", "more than 10^8 node slots");
		p->base = f->n_nodes;
		f->n_nodes += leaves * f->nodes_per_leaf;
	}
	f->n_leaves = f->n_nodes / f->nodes_per_leaf;
	f->state = calloc((size_t)f->n_nodes + 1, 1);
	f->job = malloc(((size_t)f->n_nodes + 1) * sizeof *f->job);
	f->leaf_free = calloc((size_t)f->n_leaves + 1, sizeof *f->leaf_free);
	if (!f->state || !f->job || !f->leaf_free)
		return err_set(e, ERR_RUN, "fleet: out of memory");
	for (int i = 0; i < f->n_nodes; i++)
		f->job[i] = -1;
	for (int i = 0; i < f->n_pools; i++) {	/* the starting nodes are up */
		struct fleet_pool *p = &f->pool[i];
		int held = p->held;
		p->held = 0;
		for (int k = 0; k < held; k++)
			fleet_set(f, p->base + k, FN_FREE);
	}
	return 0;
}

void fleet_free(struct fleet *f)
{
	free(f->state);
	free(f->job);
	free(f->leaf_free);
}

int fleet_pool_of(const struct fleet *f, int node)
{
	int p = 0;

	while (p + 1 < f->n_pools && node >= f->pool[p + 1].base)
		p++;
	return p;
}

void fleet_set(struct fleet *f, int node, enum fleet_node to)
{
	struct fleet_pool *p = &f->pool[fleet_pool_of(f, node)];
	enum fleet_node from = f->state[node];
	int leaf = node / f->nodes_per_leaf;

	p->held += (to != FN_OFF) - (from != FN_OFF);
	p->busy += (to == FN_BUSY) - (from == FN_BUSY);
	f->leaf_free[leaf] += (to == FN_FREE) - (from == FN_FREE);
	f->free_nodes += (to == FN_FREE) - (from == FN_FREE);
	f->state[node] = (uint8_t)to;
	if (to != FN_BUSY)
		f->job[node] = -1;
}

/* Take up to k free nodes of leaf l into out. */
static int take_leaf(struct fleet *f, int l, int k, int *out)
{
	int got = 0;

	for (int i = l * f->nodes_per_leaf; got < k && i < (l + 1) * f->nodes_per_leaf; i++)
		if (f->state[i] == FN_FREE)
			out[got++] = i;
	return got;
}

int fleet_place(struct fleet *f, int nodes, int *out)
{
	int got = 0, leaves = 0, best = -1;

	if (!f->topology) {
		for (int l = 0; l < f->n_leaves && got < nodes; l++)
			if (f->leaf_free[l] > 0) {
				got += take_leaf(f, l, nodes - got, out + got);
				leaves++;
			}
		return leaves;
	}
	for (int l = 0; l < f->n_leaves; l++)	/* best fit: one leaf */
		if (f->leaf_free[l] >= nodes &&
		    (best < 0 || f->leaf_free[l] < f->leaf_free[best]))
			best = l;
	if (best >= 0) {
		take_leaf(f, best, nodes, out);
		return 1;
	}
	/* Fewest leaves: the leaf with most free nodes first.  A leaf taken
	 * is marked by a negative count (-1 - free) and restored after. */
	while (got < nodes) {
		best = -1;
		for (int l = 0; l < f->n_leaves; l++)
			if (f->leaf_free[l] > 0 &&
			    (best < 0 || f->leaf_free[l] > f->leaf_free[best]))
				best = l;
		if (best < 0)
			break;
		got += take_leaf(f, best, nodes - got, out + got);
		leaves++;
		f->leaf_free[best] = -1 - f->leaf_free[best];
	}
	for (int l = 0; l < f->n_leaves; l++)
		if (f->leaf_free[l] < 0)
			f->leaf_free[l] = -1 - f->leaf_free[l];
	return leaves;
}

int fleet_grow(struct fleet *f, int p, int k, int *out)
{
	struct fleet_pool *q = &f->pool[p];
	int got = 0;

	for (int i = q->base; i < q->base + q->max_nodes && got < k; i++)
		if (f->state[i] == FN_OFF) {
			fleet_set(f, i, FN_BOOT);
			out[got++] = i;
		}
	return got;
}

int fleet_shrink(struct fleet *f, int p, int k)
{
	struct fleet_pool *q = &f->pool[p];
	int got = 0;

	for (int i = q->base + q->max_nodes - 1; i >= q->base && got < k &&
	     q->held > q->min_nodes; i--)
		if (f->state[i] == FN_FREE) {
			fleet_set(f, i, FN_OFF);
			got++;
		}
	return got;
}
