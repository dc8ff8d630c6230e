/*
 * compute.h -- time of the transformer's kernels on one GPU.
 *
 * Every kernel is priced by a roofline:
 *     t = max(FLOPs / (peak * eff(size)),  bytes / (HBM bw * mem_eff)) + launch
 * where eff() is the catalog's GEMM efficiency curve (gpus.*.gemm_eff over
 * gpus.*.gemm_eff_gflop, log-linear in the call's FLOPs, clamped at the
 * ends) and elementwise kernels have no FLOPs term.  A GEMM's bytes are its
 * three fp16 matrices, so thin GEMMs (attention's K = h/a) fall under the
 * bandwidth roof by themselves.
 *
 * One layer, per tensor-parallel rank, for one microbatch, as Megatron-LM
 * runs it (fused scale-mask-softmax, bias-GeLU, bias-dropout-add kernels):
 *     LN, QKV GEMM, attention core (Q K^T, softmax, dropout, x V; or one
 *     flash-attention kernel), projection GEMM, bias-dropout-add, LN,
 *     MLP h->4h GEMM, bias-GeLU, MLP 4h->h GEMM, bias-dropout-add.
 * Backward: every GEMM twice (data and weight gradients), elementwise
 * kernels with their backward traffic, flash attention 2.5x its forward
 * FLOPs (five matmuls to two, FlashAttention-2).  Norms and dropouts are
 * split over the tensor-parallel group only with sequence parallelism.
 * Tensor-parallel communication is not here (megatron.h).
 *
 * Assumptions: fp16/bf16 activations (2 bytes), 1-byte dropout masks; flash
 * attention does the full s x s work (no causal skip), its efficiency is one
 * catalog figure.
 */
#ifndef MODELS_COMPUTE_H
#define MODELS_COMPUTE_H

#include <stdbool.h>

#include "models/gpu.h"

struct cmp_shape {
	double b, s, h, a, V;	/* micro batch, sequence, hidden, heads, vocab */
	int tp;
	bool sp;		/* sequence parallelism */
	bool flash;		/* fused flash-attention kernel */
	double peak_flops;	/* tensor peak of the datatype in use */
};

/* Cost of a group of kernels; add with cmp_add(). */
struct cmp_cost {
	double time_s;
	double gemm_s;		/* of which tensor-core (GEMM/attention) kernels */
	double flops;		/* executed FLOPs */
	double kernels;
};

void cmp_zero(struct cmp_cost *c);
void cmp_add(struct cmp_cost *acc, const struct cmp_cost *c, double times);

/* The curve at a call of `flops` FLOPs. */
double cmp_gemm_eff(const struct gpu_spec *g, double flops);
/* One (batched) GEMM [M x K] x [K x N], `batch` times in one call. */
void cmp_gemm(const struct gpu_spec *g, double peak_flops, double batch,
	      double M, double N, double K, struct cmp_cost *out);
/* One elementwise kernel moving `bytes`. */
void cmp_stream(const struct gpu_spec *g, double bytes, struct cmp_cost *out);

/* One transformer layer, one microbatch, one TP rank. */
void cmp_layer_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out);
void cmp_layer_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out);
/* What selective recomputation redoes in backward: the attention core's
 * forward (zero with flash attention, whose backward already recomputes). */
void cmp_attn_recompute(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *out);
/* Word+position embedding (first stage) and final LN, logits GEMM and
 * vocab-parallel cross-entropy (last stage). */
void cmp_embed_fwd(const struct gpu_spec *g, const struct cmp_shape *sh, struct cmp_cost *out);
void cmp_embed_bwd(const struct gpu_spec *g, const struct cmp_shape *sh, struct cmp_cost *out);
void cmp_logits_fwd(const struct gpu_spec *g, const struct cmp_shape *sh, struct cmp_cost *out);
void cmp_logits_bwd(const struct gpu_spec *g, const struct cmp_shape *sh, struct cmp_cost *out);
/* Gradient accumulation over microbatches into Megatron's fp32 main_grad:
 * per backward pass the weight gradients of `params` parameters are added,
 * reading fp32 main_grad and the fp16 gradient and writing fp32 (10 bytes
 * per parameter), or 8 with the accumulation fused into the weight-gradient
 * GEMM's epilogue (gradient_accumulation_fusion). */
void cmp_grad_accum(const struct gpu_spec *g, double params, bool fused,
		    struct cmp_cost *out);
/* Mixed-precision Adam over `params` local parameters: streams 30 bytes per
 * parameter (fp32 master, momentum, variance and gradient read; master,
 * momentum, variance written and the fp16 copy). */
double cmp_adam_s(const struct gpu_spec *g, double params);

#endif
