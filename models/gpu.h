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

#define GPU_CURVE_MAX 12

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

	/* Kernel-level efficiency (compute.h uses these; catalog states basis). */
	int gemm_points;		/* points of the GEMM efficiency curve */
	int gemm_sizes_given, gemm_effs_given;	/* list lengths in the catalog
						 * (gpu_check_curve) */
	double gemm_gflop[GPU_CURVE_MAX];	/* GEMM size, 10^9 FLOPs, ascending */
	double gemm_eff[GPU_CURVE_MAX];	/* achieved / peak at that size */
	double mem_eff;			/* achieved / peak HBM bandwidth, streaming kernels */
	double launch_s;		/* per-kernel launch and tail overhead */
	double flash_eff;		/* fused flash-attention kernel, achieved / peak */
};

extern const struct cfg_setting gpu_settings[];

/* Fill out from the catalog entry `name` (validated by the schema). */
void gpu_from_scenario(const struct scenario *sc, const char *name,
		       struct gpu_spec *out);
/* The efficiency curve's lists agree in length and ascend; else an error
 * at the catalog entry's key (w: sim/cfg.h). */
int gpu_check_curve(const struct gpu_spec *g, const struct sc_where *w,
		    struct err *e);

#endif
