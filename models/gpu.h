/*
 * gpu.h -- the GPU catalog: what one accelerator can do.
 *
 * Entries live in scenarios/catalog/gpus.cfg as `gpus.NAME = { ... }`, each
 * figure with its source.  Peaks are dense (no 2:4 sparsity).  The scenario
 * picks one with cluster.gpu = "NAME".
 */
#ifndef MODELS_GPU_H
#define MODELS_GPU_H

#include "sim/cfg.h"
#include "sim/err.h"

struct gpu_spec {
	const char *name;
	double peak_bf16_flops;	/* dense FP16/BF16 tensor, FLOP/s */
	double peak_fp8_flops;	/* 0 where the GPU has no FP8 */
	double peak_tf32_flops;	/* 0 where the GPU has no TF32 */
	double hbm_bytes;
	double hbm_bw_Bps;
	double tdp_w;
	double idle_w;
	const char *nvlink;	/* link catalog name of its NVLink generation */
};

extern const struct cfg_setting gpu_settings[];

/* Fill out from the catalog entry `name` (validated by the schema). */
void gpu_from_scenario(const struct scenario *sc, const char *name,
		       struct gpu_spec *out);

#endif
