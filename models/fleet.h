/*
 * fleet.h -- the nodes of a shared cluster: pools (reserved, on-demand,
 * spot) with prices and size limits, each node's state, the leaf switch
 * it hangs from, and placement.
 *
 * Node slots are laid out pool after pool, each pool starting on a new
 * leaf, nodes_per_leaf slots a leaf (fleet.nodes_per_leaf, or 0: as many
 * as share a leaf -- or a rail-optimised unit -- of the fat tree the
 * network.* settings build, topologies/net.h); a pool has max_nodes slots, of which
 * the autoscaler turns some on.  Jobs hold whole nodes, never sharing one:
 * a 1-GPU job takes a node of gpus_per_node GPUs and pays for all of it
 * (its unused GPUs draw idle power on its books).  A node is off, booting (billed, not
 * usable), free, busy (a job holds it) or down (failed, in repair; billed).
 *
 * Placement (fleet.placement):
 *   topology  pack a job into as few leaf switches as it fits: the fullest
 *             leaf that holds it whole (best fit), else the leaves with most
 *             free nodes first;
 *   first_fit the lowest-numbered free nodes, wherever they are, so
 *             fragmentation shows as leaves spanned per job.
 */
#ifndef MODELS_FLEET_H
#define MODELS_FLEET_H

#include <stdint.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/cjob.h"
#include "models/gpu.h"
#include "models/node.h"

enum fleet_class { FC_RESERVED, FC_ON_DEMAND, FC_SPOT, FC_COUNT };
enum fleet_node { FN_OFF, FN_BOOT, FN_FREE, FN_BUSY, FN_DOWN };

struct fleet_pool {
	const char *name;
	enum fleet_class klass;
	double usd_per_node_s;
	double preempt_per_node_s;	/* spot: preemptions per node-second */
	int min_nodes, max_nodes, base;	/* slots base .. base + max_nodes - 1 */
	int held, busy;			/* billed nodes; of them running jobs */
};

struct fleet {
	struct fleet_pool pool[CJOB_POOLS_MAX];
	int n_pools;
	int gpus_per_node, nodes_per_leaf, n_nodes, n_leaves;
	bool topology;
	uint8_t *state;			/* per slot */
	int *job;			/* per slot: the job holding it, or -1 */
	int *leaf_free;			/* per leaf: free nodes */
	int free_nodes;
	/* power and carbon */
	double busy_gpu_w, idle_gpu_w, pue, grid_kg_per_kwh;
	struct node_spec node;		/* the hosts (node catalog) */
	double host_busy_w, host_idle_w;	/* one node's host, DC */
	double fail_per_node_s, repair_s;
};

extern const struct cfg_setting fleet_settings[];
extern const char *const fleet_class_names[FC_COUNT];	/* reserved on_demand spot */
int fleet_from_scenario(const struct scenario *sc, struct fleet *f, struct err *e);
void fleet_free(struct fleet *f);
int fleet_pool_of(const struct fleet *f, int node);
/* Node state changes; each keeps the counts (held, busy, free) right. */
void fleet_set(struct fleet *f, int node, enum fleet_node to);
/* Place nodes nodes (they must be free in total) into out; the leaves spanned. */
int fleet_place(struct fleet *f, int nodes, int *out);
/* Turn on (booting) or off up to k slots of pool p; returns how many. */
int fleet_grow(struct fleet *f, int p, int k, int *out);
int fleet_shrink(struct fleet *f, int p, int k);

#endif
