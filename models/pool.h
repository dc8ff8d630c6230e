/*
 * pool.h -- node pools: the cluster as groups of nodes bought the same way.
 *
 *   pools = {
 *     base = { class = "reserved"; nodes = 96; };
 *     burst = { class = "spot"; nodes = 32; };
 *   };
 *
 * Each pool has a pricing class and a node count; the counts add up to the
 * cluster's nodes (cluster.gpus / cluster.gpus_per_node).  Without a pools
 * group the whole cluster is one on-demand pool named "all".  Other parts
 * add their own per-pool settings under pools.* (spot preemption in
 * models/spot.c, prices in the cost model).
 */
#ifndef MODELS_POOL_H
#define MODELS_POOL_H

#include "sim/cfg.h"
#include "sim/err.h"

#define POOLS_MAX 16

enum pool_class { POOL_ON_DEMAND, POOL_RESERVED, POOL_CAPACITY_BLOCK, POOL_SPOT };

struct pool {
	const char *name;
	enum pool_class cls;
	int nodes;
};

struct pools {
	int n;
	struct pool p[POOLS_MAX];
};

extern const struct cfg_setting pool_settings[];
extern const char *const pool_class_names[];

/* Read the pools; their nodes must add up to `nodes`. */
int pools_from_scenario(const struct scenario *sc, int nodes, struct pools *out,
			struct err *e);

#endif
