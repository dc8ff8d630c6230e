/*
 * gpu.h -- the GPU catalog: what one accelerator can do.
 *
 * Entries live in scenarios/catalog/gpus.cfg as `gpus.NAME = { ... }`, each
 * figure with its source.  Peaks are dense (no 2:4 sparsity).  The scenario
 * picks one with cluster.gpu = "NAME".  Its kernel laws (kernels.h) are
 * either fitted constants in the entry, or fitted to a table of measured
 * kernels (kernels = "NAME" names a `kernels.NAME` group) whose rows also
 * correct the laws where they were measured.
 */
#ifndef MODELS_GPU_H
#define MODELS_GPU_H

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/kernels.h"
#include "models/attn_impl.h"

enum gpu_calibration {
	GPU_CAL_NONE,		/* datasheet figures only: uncalibrated */
	GPU_CAL_KERNELS,	/* kernel laws fitted to measured kernels */
	GPU_CAL_END_TO_END,	/* kernel laws fitted to published training runs */
};

struct gpu_spec {
	const char *name;
	double peak_bf16_flops;	/* dense FP16/BF16 tensor, FLOP/s */
	double peak_fp8_flops;	/* 0 where the GPU has no FP8 */
	double hbm_bytes;	/* what a job's peak may reach: the driver's
				 * total (hbm_mib), else the datasheet's */
	double hbm_bw_Bps;
	double tdp_w;
	double idle_w;
	double gemm_w;		/* board power while tensor-core GEMMs run */
	double mem_w;		/* while memory-bound kernels run */
	double comm_w;		/* while waiting on communication */
	const char *nvlink;	/* link catalog name of its NVLink generation */

	enum gpu_calibration calibration;
	double band;		/* relative uncertainty of an iteration's time
				 * from this GPU's kernel laws */
	struct kern_gpu k;	/* kernel laws and tables (kernels.h) */
	double mx_gemm_ratio;	/* MXFP8 GEMM time over per-tensor FP8's (0: no
				 * block-scaled FP8) */
	double nvfp4_gemm_ratio;	/* NVFP4 GEMM time over per-tensor FP8's
					 * (0: no FP4 tensor cores) */
	double fp8_block_gemm_ratio;	/* FP8 block-scaled (1 x 128, 128 x 128)
					 * GEMM time over per-tensor FP8's (0:
					 * no such GEMMs: Hopper only) */
	enum attn_impl attn_law;	/* the attention kernel k.attn describes */
	/* The rates gemm_w and mem_w were measured at, by k (kpower.h; 0:
	 * not yet computed, as in a spec filled by hand) */
	double ref_gemm_flops_s, ref_copy_Bps;
	char kernels_error[1024];	/* why the kernel folder did not load ("") */
	bool kernels_error_at_key;	/* the folder itself is wrong (else a file) */
};

extern const struct cfg_setting gpu_settings[];

/* The device memory a job's peak is held to, bytes (hbm_mib, else hbm_gb). */
double gpu_hbm_bytes(const struct scenario *sc, const char *name);
/* Fill out from the catalog entry `name` (validated by the schema; a
 * malformed kernel table is gpu_check()'s error). */
void gpu_from_scenario(const struct scenario *sc, const char *name,
		       struct gpu_spec *out);
/* The kernel folder loaded (else an error: at the entry's kernels key
 * for a missing folder, at FILE:LINE of a malformed table; w: sim/cfg.h). */
int gpu_check(const struct gpu_spec *g, const struct sc_where *w, struct err *e);
/* The relative band of an iteration's time on g under `stack`: for a model
 * with experts (moe) the pair's validated_band_moe where the catalog gives
 * one, else the pair's validated_band where it gives one, else
 * hypot(g->band, stack_band). */
double gpu_band(const struct scenario *sc, const struct gpu_spec *g, const char *stack,
		double stack_band, bool moe);
/* Every validated_band and validated_band_moe in the catalog names a stack
 * (else FILE:LINE). */
int gpu_check_bands(const struct scenario *sc, struct err *e);
/* One line on stderr, once per process, for a GPU without calibration. */
void gpu_warn_uncalibrated(const struct gpu_spec *g);

#endif
