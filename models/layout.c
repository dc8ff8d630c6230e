/* layout.c -- see layout.h. */
#include "models/layout.h"

const struct cfg_setting layout_settings[] = {
	{ "cluster.gpu", CFG_REF, "", 0, 0, NULL, "gpus", "GPU type, a gpus catalog entry" },
	{ "cluster.node", CFG_STRING, "", 0, 0, "", NULL,
	  "server type, a nodes catalog entry (empty: the first entry whose gpu is "
	  "cluster.gpu, else \"generic\"; models/node.h)" },
	{ "cluster.gpus", CFG_INT, "", 1, 1e7, NULL, NULL, "GPUs in the job" },
	{ "cluster.gpus_per_node", CFG_INT, "", 1, 1024, "8", NULL, "GPUs per node (server)" },
	{ "parallel.tp", CFG_INT, "", 1, 1024, "1", NULL, "tensor-parallel degree" },
	{ "parallel.pp", CFG_INT, "", 1, 4096, "1", NULL, "pipeline-parallel degree" },
	{ "parallel.global_batch", CFG_INT, "sequences", 1, 1e8, NULL, NULL,
	  "sequences per iteration (all data-parallel replicas together)" },
	{ "parallel.micro_batch", CFG_INT, "sequences", 1, 1e6, "1", NULL,
	  "sequences per microbatch" },
	CFG_END
};

int layout_from_scenario(const struct scenario *sc, const struct tfm *m,
			 struct layout *L, struct err *e)
{
	L->gpu = sc_str(sc, "cluster.gpu");
	L->gpus = (int)sc_int(sc, "cluster.gpus");
	L->gpus_per_node = (int)sc_int(sc, "cluster.gpus_per_node");
	L->tp = (int)sc_int(sc, "parallel.tp");
	L->pp = (int)sc_int(sc, "parallel.pp");
	L->global_batch = (int)sc_int(sc, "parallel.global_batch");
	L->micro_batch = (int)sc_int(sc, "parallel.micro_batch");

	if (L->gpus % L->gpus_per_node != 0)
		return sc_error(sc, e, "cluster.gpus", "%d GPUs do not fill whole nodes "
				"(expected a multiple of cluster.gpus_per_node = %d)",
				L->gpus, L->gpus_per_node);
	if (L->gpus % (L->tp * L->pp) != 0)
		return sc_error(sc, e, "cluster.gpus", "%d GPUs are not divisible by "
				"tp x pp = %d (expected a multiple of %d)",
				L->gpus, L->tp * L->pp, L->tp * L->pp);
	if (m->heads % L->tp != 0)
		return sc_error(sc, e, "parallel.tp", "%d attention heads are not "
				"divisible by tp = %d (expected a divisor of model.heads)",
				m->heads, L->tp);
	if (m->layers % L->pp != 0)
		return sc_error(sc, e, "parallel.pp", "%d layers are not divisible by "
				"pp = %d (expected a divisor of model.layers)",
				m->layers, L->pp);
	L->nodes = L->gpus / L->gpus_per_node;
	L->dp = L->gpus / (L->tp * L->pp);
	if (L->global_batch % (L->dp * L->micro_batch) != 0)
		return sc_error(sc, e, "parallel.global_batch", "%d sequences are not "
				"divisible by dp x micro_batch = %d x %d (expected a "
				"multiple of %d)", L->global_batch, L->dp,
				L->micro_batch, L->dp * L->micro_batch);
	L->microbatches = L->global_batch / (L->dp * L->micro_batch);
	return 0;
}
