/*
 * layout.h -- the cluster and the parallel layout of the job on it.
 *
 * cluster.gpus GPUs of type cluster.gpu, cluster.gpus_per_node per node,
 * split Megatron-style into tp x pp x dp ranks (dp derived).  A global batch
 * of global_batch sequences is cut into micro_batch-sized microbatches;
 * each pipeline runs global_batch / (dp * micro_batch) of them.
 *
 * Impossible layouts are scenario errors naming the setting at fault.
 */
#ifndef MODELS_LAYOUT_H
#define MODELS_LAYOUT_H

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/transformer.h"

struct layout {
	const char *gpu;
	int gpus;
	int gpus_per_node;
	int nodes;
	int tp, pp, dp;
	int global_batch;	/* sequences per iteration */
	int micro_batch;	/* sequences per microbatch */
	int microbatches;	/* per pipeline per iteration */
};

extern const struct cfg_setting layout_settings[];

int layout_from_scenario(const struct scenario *sc, const struct tfm *m,
			 struct layout *out, struct err *e);

#endif
