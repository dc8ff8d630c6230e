/*
 * kpower.h -- the dynamic energy of one kernel, from the work it does.
 *
 * A GPU's board power above idle is the switching of the units its
 * kernels keep busy, so it follows the rate of work, not the kind of
 * kernel: a GEMM that reaches half the rate at which gemm_w was measured
 * toggles half the tensor-core datapath per second and draws half the
 * dynamic power.  With the GPU's catalog figures (gpus.cfg):
 *
 *   tensor kernels (GEMMs, flash attention):
 *     P = idle_w + (gemm_w - idle_w) x (FLOP/s achieved / R_gemm)
 *   memory-bound kernels:
 *     P = idle_w + (mem_w - idle_w) x (HBM bytes/s achieved / R_copy)
 *
 * each at most TDP (the power cap: a faster kernel runs into it), where
 * R_gemm and R_copy are the rates at which gemm_w and mem_w were measured:
 * back-to-back 8192^3 bf16 GEMMs and 2 GiB device-to-device copies
 * (kernels/h200_sxm/power.tsv), priced by the GPU's own kernel laws at
 * those shapes, so an H200 running the measured kernels draws the measured
 * power.  The other GPUs' gemm_w and mem_w are the H200's fractions of
 * their TDP at their own R_gemm and R_copy (an assumption, gpus.cfg).
 * Bytes are the kernel model's (reads plus writes, kernels.h); FP8 GEMMs
 * count their FLOPs against the bf16 rate (they run at the cap).
 *
 * The energy of a kernel of time t is P x t; what is returned is the part
 * above idle, (P - idle_w) x t, which for a kernel under the cap is
 * (gemm_w - idle_w) x FLOPs / R_gemm: linear in the work, whatever the
 * time.  So a kernel slowed by a neighbour (NCCL's SMs, a slower GPU, a
 * chunked GEMM) costs the same energy, spread over more time.
 */
#ifndef MODELS_KPOWER_H
#define MODELS_KPOWER_H

#include "models/gpu.h"

/* The shapes gemm_w and mem_w were measured at. */
#define KPW_REF_GEMM 8192.0	/* M = N = K */
#define KPW_REF_COPY_BYTES (2.0 * 1073741824.0 * 2.0)	/* 2 GiB read + written */

/* R_gemm (FLOP/s) and R_copy (bytes/s, reads plus writes) of g. */
double kpw_ref_gemm_flops_s(const struct gpu_spec *g);
double kpw_ref_copy_Bps(const struct gpu_spec *g);
/* Joules above idle of a tensor kernel doing flops in t seconds, and of a
 * memory-bound kernel moving bytes in t seconds. */
double kpw_tensor_j(const struct gpu_spec *g, double flops, double t);
double kpw_stream_j(const struct gpu_spec *g, double bytes, double t);
/* Memory-bound kernels of `kind` streaming for t seconds at their measured
 * rate (launch gaps counted as streaming: microseconds in milliseconds). */
double kpw_stream_run_j(const struct gpu_spec *g, enum kern_stream kind, double t);

#endif
