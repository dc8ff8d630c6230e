/* pool.c -- see pool.h. */
#include <string.h>

#include "models/pool.h"

const char *const pool_class_names[] = {
	"on_demand", "reserved", "capacity_block", "spot", NULL
};

const struct cfg_setting pool_settings[] = {
	{ "pools.*.class", CFG_ENUM, "", 0, 0, "on_demand", "on_demand|reserved|capacity_block|spot",
	  "pricing class of the pool's nodes" },
	{ "pools.*.nodes", CFG_INT, "nodes", 1, 1e7, NULL, NULL, "nodes in the pool" },
	CFG_END
};

static enum pool_class class_of(const char *text)
{
	for (int i = 0; pool_class_names[i]; i++)
		if (strcmp(pool_class_names[i], text) == 0)
			return (enum pool_class)i;
	return POOL_ON_DEMAND;	/* unreachable: the schema checked the choice */
}

int pools_from_scenario(const struct scenario *sc, int nodes, struct pools *out,
			struct err *e)
{
	const char *const *names;
	size_t n = sc_children(sc, "pools", &names);
	int total = 0;

	memset(out, 0, sizeof *out);
	if (n == 0) {
		out->n = 1;
		out->p[0] = (struct pool){ "all", POOL_ON_DEMAND, nodes };
		return 0;
	}
	if (n > POOLS_MAX)
		return sc_error(sc, e, "pools", "%zu pools (expected at most %d)", n, POOLS_MAX);
	for (size_t i = 0; i < n; i++) {
		struct pool *p = &out->p[i];
		p->name = names[i];
		p->cls = class_of(sc_str(sc, "pools.%s.class", names[i]));
		p->nodes = (int)sc_int(sc, "pools.%s.nodes", names[i]);
		total += p->nodes;
	}
	out->n = (int)n;
	if (total != nodes)
		return sc_error(sc, e, "pools", "the pools hold %d nodes but the cluster has %d "
				"(expected pools.*.nodes to add up to cluster.gpus / "
				"cluster.gpus_per_node)", total, nodes);
	return 0;
}
