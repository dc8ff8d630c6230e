/*
 * compute.h -- time of the transformer's kernels on one GPU.
 *
 * Every kernel is priced by the GPU's kernel laws (kernels.h), fitted to
 * that GPU's micro-benchmarks: GEMMs by shape (M, N, K), flash attention
 * by sequence, heads and head dimension (below the measured 128, at least
 * as much slower per FLOP as FlashAttention-3's published bars say: the
 * softmax's work is per score, not per FLOP), memory-bound kernels by kind at
 * their measured fraction of HBM bandwidth.  A GEMM's bytes are its three
 * 2-byte matrices (its bandwidth roof).
 *
 * One layer, per tensor-parallel rank, for one microbatch:
 *     LN, QKV GEMM, attention core (Q K^T, softmax, dropout, x V; or one
 *     flash-attention kernel), projection GEMM, bias-dropout-add, LN,
 *     MLP h->4h GEMM, bias-GeLU, MLP 4h->h GEMM, bias-dropout-add.
 * The software stack (stack.h) says which elementwise kernels are fused:
 * Megatron's fused bias-GeLU and bias-dropout-add are one streaming pass
 * each (priced as a copy), its fused scale-mask-softmax one softmax; eager
 * PyTorch runs GeLU, dropout then add, and scale, mask and softmax as
 * separate kernels at their own measured rates.
 * The shape follows the model: the QKV GEMM is (a + 2 kv) d_h / t wide
 * (grouped-query attention); latent attention (DeepSeek-V2) runs instead
 * the down projections h -> q_lora and h -> kv_lora + rope (replicated over
 * TP, as Megatron-Core's MLA) and the up projections q_lora -> a d_qk / t
 * and kv_lora -> a (d_nope + d_v) / t; the MLP is h -> f (GeLU) or h -> 2f
 * (up and gate fused, SwiGLU/GeGLU) with the activation kernel between.
 * An MoE layer's MLP: the router GEMM h -> E, permute, the grouped expert
 * GEMMs of the busiest rank (E/ep experts, ep T k load / E tokens each,
 * widths fe/t), unpermute; shared experts as a dense MLP of width
 * shared x fe.  With context parallelism (cp) a rank holds s/cp of the
 * sequence: every GEMM and elementwise kernel sees s/cp tokens, the
 * attention core s/cp queries against all s keys (1/cp of the causal
 * flash kernel's work); their exchange is step_layer.c's.
 * Backward: every GEMM twice (data and weight gradients), elementwise
 * kernels with their backward traffic, flash attention's backward kernel.
 * Norms and dropouts are split over the tensor-parallel group only with
 * sequence parallelism.  Tensor-parallel communication is not here
 * (megatron.h).
 *
 * Assumptions: 2-byte activations, 1-byte dropout masks; causal attention.
 */
#ifndef MODELS_COMPUTE_H
#define MODELS_COMPUTE_H

#include <stdbool.h>

#include "models/attn_impl.h"
#include "models/gpu.h"

/* How Transformer Engine scales an FP8 tensor (fp8.c). */
enum cmp_fp8_scaling {
	CMP_FP8_DELAYED,	/* per tensor, from its amax history */
	CMP_FP8_CURRENT,	/* per tensor, from its own amax */
	CMP_FP8_MX,		/* per 32-element block (MXFP8, Blackwell) */
	CMP_FP4_NV,		/* 4-bit E2M1 per 16-element block under a per-
				 * tensor scale (NVFP4, Blackwell) */
	CMP_FP8_BLOCK,		/* FP32 scales per 1 x 128 block of inputs and
				 * gradients, per 128 x 128 of weights (TE's
				 * Float8BlockScaling, DeepSeek-V3's; Hopper) */
};

/* The loss kernel over the logits (training.loss_kernel, compute.c). */
enum cmp_loss {
	CMP_LOSS_STACK,		/* the stack's own: Megatron's vocab-parallel
				 * cross-entropy or eager F.cross_entropy */
	CMP_LOSS_XENTROPY,	/* flash-attn's fused CrossEntropyLoss (eager) */
	CMP_LOSS_TE,		/* Transformer Engine's fused cross-entropy */
};

struct cmp_shape {
	double b, s, h, a, V;	/* micro batch, sequence, hidden, heads, vocab */
	int tp;
	bool sp;		/* sequence parallelism */
	bool flash;		/* fused flash-attention kernel */
	enum attn_impl attn;	/* which flash kernel (attn_impl.h; 0: FlashAttention-2) */
	bool fused;		/* fused bias-GeLU, bias-dropout-add, softmax */
	bool fp32_logits;	/* the loss reads logits upcast to fp32 */
	enum cmp_loss loss;	/* the loss kernel */
	double metric_ce;	/* no-grad fp32 cross-entropies per microbatch */
	bool fp8;		/* GEMMs in FP8 */
	enum cmp_fp8_scaling fp8_scaling;	/* ... scaled how (fp8.c) */
	bool fp4_no_rht;	/* NVFP4 without its Hadamard transforms (fp8.c) */
	bool dropout;		/* attention dropout (inside the flash kernel) */
	bool bias;		/* linear layers carry biases (GPT) */
	bool qk_norm;		/* per-head norms of queries and keys (Qwen3) */
	bool rotary;		/* rotary embedding applied to queries and keys */
	bool rotary_scaled;	/* ... its tables scaled (YaRN's attention factor) */
	double peak_flops;	/* tensor peak of the datatype in use */
	/* The model's shape beyond GPT-3's (transformer.h); 0 = GPT's. */
	double kv;		/* key/value heads (0: a) */
	double f;		/* dense MLP width (0: 4h) */
	bool gated;		/* SwiGLU/GeGLU: up and gate in one GEMM of 2f */
	double dqk, dv;		/* head dimensions (0: h/a) */
	double q_lora, kv_lora, rope;	/* latent attention (kv_lora 0: off) */
	/* An MoE layer's MLP (experts 0: dense): the router, then the busiest
	 * EP rank's E/ep experts as one grouped GEMM over its tokens */
	double experts, topk, shared, fe;	/* fe: one expert's width */
	bool per_expert_gemms;	/* the experts' GEMMs one call per local
				 * expert (kernels counted so; compute.c) */
	bool ep_sort;		/* all-to-all dispatcher: the received tokens
				 * sorted by local expert and back (compute.c) */
	bool ep_fused_permute;	/* the dispatcher's kernels write and read the
				 * tokens in expert order: no permute copies
				 * (HybridEP; compute.c) */
	bool moe_eager_act;	/* the experts' activation on TEGroupedMLP's
				 * eager path, the router's weights applied
				 * in fp32 after it (compute.c) */
	bool moe_pad_copies;	/* FP8 experts pad their unaligned tokens
				 * and unpad the output by copies (compute.c) */
	double ep;		/* expert-parallel degree (0: 1) */
	double etp;		/* expert tensor-parallel degree (0: tp) */
	double cp;		/* context parallelism: s/cp tokens here (0: 1) */
	bool cp_ring;		/* ... by ring attention: cp kernels a pass
				 * (compute.c add_flash) */
	double load;		/* busiest expert's tokens over the mean (0: 1) */
	bool capacity;		/* drop and pad: each expert takes a fixed
				 * count, load x the mean */
	/* Sliding-window attention (flash kernels only: an unfused core
	 * computes every score and masks): keys within window tokens, on
	 * window_frac of the layers */
	double window, window_frac;
};

/* Cost of a group of kernels; add with cmp_add(). */
struct cmp_cost {
	double time_s;
	double gemm_s;		/* of which tensor-core (GEMM/attention) kernels */
	double flops;		/* executed FLOPs */
	double kernels;
	double lib_kernels;	/* ... of which a library call launches from its
				 * own loop (TE's GroupedLinear: an expert's
				 * GEMM or quantization past the first), each
				 * costing the host a launch, not a framework
				 * op (host.h) */
	double dyn_j;		/* energy above idle (kpower.h), J */
};

void cmp_zero(struct cmp_cost *c);
void cmp_add(struct cmp_cost *acc, const struct cmp_cost *c, double times);

/* One (batched) GEMM [M x K] x [K x N], `batch` times in one call. */
void cmp_gemm(const struct gpu_spec *g, bool fp8, double batch,
	      double M, double N, double K, struct cmp_cost *out);
/* A Transformer Engine module's GEMM in the run's datatype: FP8 where the
 * shape is, block-scaled MXFP8 (NVFP4) at the GPU's gemm_mxfp8_ratio
 * (gemm_nvfp4_ratio) of the per-tensor FP8 time, after the two kernels
 * that swizzle its operands' block scales, Hopper's FP8 block scaling at
 * its gemm_fp8_block_ratio (its quantizer writes the scales as cuBLAS
 * reads them: no swizzle) (out->gemm_s: the GEMM alone). */
void cmp_te_gemm(const struct gpu_spec *g, const struct cmp_shape *sh, double batch,
		 double M, double N, double K, struct cmp_cost *out);
/* One memory-bound kernel of `kind` moving `bytes`. */
void cmp_stream(const struct gpu_spec *g, enum kern_stream kind, double bytes,
		struct cmp_cost *out);

/* One transformer layer, one microbatch, one TP rank. */
void cmp_layer_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out);
void cmp_layer_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out);
/* What an MoE layer's forward runs once its dispatcher knows where each
 * token goes: the permutation, the experts, the unpermutation and the
 * shared experts (a dropless dispatcher issues these after it has read
 * the routed tokens' counts on the host; step_layer.c). */
void cmp_moe_routed_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *out);
/* Its backward: the same parts' gradients. */
void cmp_moe_routed_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *out);
/* An MoE layer's MLP alone, forward or backward: the router, then the
 * routed part and the shared experts (Megatron-Core's MoELayer). */
void cmp_moe_mlp(const struct gpu_spec *g, const struct cmp_shape *sh, bool backward,
		 struct cmp_cost *out);
/* A layer's second half, forward or backward: the norm before the MLP,
 * the MLP (an MoE layer's router and routed part) and its residual add;
 * the rest of the layer is the attention half (cgraph.h). */
void cmp_mlp_half(const struct gpu_spec *g, const struct cmp_shape *sh, bool backward,
		  struct cmp_cost *out);
/* The attention core's time, forward or backward (without flash: twice
 * the forward's): what ring attention's K/V exchange can hide behind. */
double cmp_attn_core_s(const struct gpu_spec *g, const struct cmp_shape *sh,
		       bool backward);
/* What selective recomputation redoes in backward: the attention core's
 * forward (nothing with flash attention, whose backward kernel already
 * recomputes the scores: its FLOPs count none either, step.c). */
void cmp_attn_recompute(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *out);
/* Modules selective recomputation may also redo (Megatron-Core
 * --recompute-modules, transformer_config.py recompute_modules): their
 * outputs are dropped after the forward and rebuilt from their inputs in
 * the backward. */
enum cmp_rc_module {
	CMP_RC_LAYERNORM = 1 << 0,	/* the two norms' outputs */
	CMP_RC_MLA_UP_PROJ = 1 << 1,	/* latent attention's Q, K, V up-projections */
	CMP_RC_MLP = 1 << 2,		/* a dense layer's MLP */
	CMP_RC_MOE = 1 << 3,		/* an MoE layer's MLP: router, dispatch, experts */
	CMP_RC_MOE_ACT = 1 << 4,	/* the experts' activation function */
	CMP_RC_SHARED_EXPERTS = 1 << 5,	/* the shared experts' MLP */
};
/* The forward kernels the modules in mods redo in a layer's backward (the
 * MoE dispatch's collectives are step_layer.c's). */
void cmp_module_recompute(const struct gpu_spec *g, const struct cmp_shape *sh,
			  unsigned mods, struct cmp_cost *out);
/* Word+position embedding (first stage) and final LN, logits GEMM and
 * vocab-parallel cross-entropy (last stage). */
void cmp_embed_fwd(const struct gpu_spec *g, const struct cmp_shape *sh, struct cmp_cost *out);
void cmp_embed_bwd(const struct gpu_spec *g, const struct cmp_shape *sh, struct cmp_cost *out);
void cmp_logits_fwd(const struct gpu_spec *g, const struct cmp_shape *sh, struct cmp_cost *out);
void cmp_logits_bwd(const struct gpu_spec *g, const struct cmp_shape *sh, struct cmp_cost *out);
/* Gradient accumulation over microbatches: per backward pass the weight
 * gradients of `params` parameters are added into their accumulator,
 * moving bytes_per_param at the copy rate (CMP_ACCUM_*: the stacks' ways). */
#define CMP_ACCUM_MAIN_GRAD 10.0	/* Megatron's fp32 main_grad += the bf16
					 * gradient: read 4 + 2, write 4 */
#define CMP_ACCUM_FUSED 8.0		/* the add fused into the weight-gradient
					 * GEMM's epilogue (gradient_accumulation_
					 * fusion): main_grad read and written */
#define CMP_ACCUM_UPCAST 18.0		/* DeepSpeed BF16_Optimizer.update_hp_grads:
					 * hp.add_(lp.grad.to(fp32)): the cast
					 * (read 2, write 4), then the add (read
					 * 4 + 4, write 4) */
#define CMP_ACCUM_HALF 6.0		/* autograd summing into a 16-bit .grad
					 * (DeepSpeed fp16): read 2 + 2, write 2 */
void cmp_grad_accum(const struct gpu_spec *g, double params, double bytes_per_param,
		    struct cmp_cost *out);
/* Where Adam keeps its master weights (parallel.adam_master). */
enum cmp_adam_master {
	CMP_MASTER_FP32,	/* a whole fp32 copy beside the 16-bit weights */
	CMP_MASTER_REMAINDER,	/* the low 16 bits the bf16 weight lacks (Apex's
				 * store_param_remainders) */
	CMP_MASTER_WEIGHTS,	/* none: the bf16 weights are updated in place
				 * (Apex's optimizer dtype = the model's) */
};
/* Mixed-precision Adam over `params` local parameters: streams the fp32
 * gradient (4) and both moments, in and out (4 x moment_bytes), and per
 * the master: an fp32 master read and written and the 16-bit copy
 * written (10), 30 in all with fp32 moments, 22 with bf16; the bf16
 * weight and its remainder, each read and written (8); the bf16 weight
 * alone read and written (4). */
double cmp_adam_s(const struct gpu_spec *g, double params, double moment_bytes,
		  enum cmp_adam_master master);
/* Transformer Engine's FP8 around its GEMMs (fp8.c, TE v1.13 with the
 * delayed-scaling recipe, as Megatron-Core/NeMo 2024-25 run it): which
 * module a GEMM sits in says which casts run.  LN_COL: LayerNorm fused
 * with a column-parallel GEMM (TELayerNormColumnParallelLinear: QKV, FC1),
 * its LayerNorm writing FP8; COL: a column-parallel TE Linear whose input
 * is cast (MoE experts, latent-attention projections); ROW: the
 * row-parallel TE Linear (proj, FC2) whose input is cast and whose output
 * gradient is sequence-split under sequence parallelism.  The output
 * layer, router and attention core stay bf16 (compute.c).  Current
 * scaling (CMP_FP8_CURRENT; TE's Float8CurrentScaling, NeMo's
 * "tensorwise") reads each tensor once more for its amax before the cast,
 * and the LayerNorm writes bf16 that is then cast as a Linear's input.
 * MXFP8 (CMP_FP8_MX; TE's MXFP8BlockScaling) quantizes each tensor once
 * into both the row- and the column-wise copies its GEMMs read, each with
 * one scale byte per 32 elements, and needs no amax pass and no
 * transpose; its LayerNorm writes bf16 too (TE quantizes a norm's output
 * to MXFP8 in the norm kernel only with NVTE_NORM_FWD_USE_CUDNN).  NVFP4
 * (CMP_FP4_NV; TE's NVFP4BlockScaling) likewise, at half a byte an
 * element and an E4M3 scale per 16, after an amax pass for the tensor's
 * FP32 scale.  Hopper's block scaling (CMP_FP8_BLOCK; TE's
 * Float8BlockScaling) as MXFP8, with an FP32 scale per 128 elements
 * (fp8.c). */
enum cmp_te_kind { CMP_TE_LN_COL, CMP_TE_COL, CMP_TE_ROW };

/* The FP8 casts and transposes of one GEMM [M x K] x [K x N] (M: all its
 * rows, batch included), forward or backward. */
void cmp_fp8_io(const struct gpu_spec *g, const struct cmp_shape *sh,
		enum cmp_te_kind kind, bool bwd, double M, double N, double K,
		struct cmp_cost *out);
/* Once per iteration: the FP8 cast and transpose of `params` GEMM weights
 * into TE's cached FP8 copies (Megatron passes is_first_microbatch, so TE
 * refreshes its weight workspace on the first microbatch only); with
 * current scaling, each weight's amax first; MXFP8 quantizes both copies
 * with their block scales in one pass, NVFP4 after an amax. */
double cmp_fp8_weights_s(const struct gpu_spec *g, double params,
			 enum cmp_fp8_scaling scaling);
/* Transformer Engine's TP-communication overlap (userbuffers, TE v1.8
 * module/base.py initialize_ub defaults, as Megatron-Core --tp-comm-overlap
 * runs it with sequence parallelism) cuts the GEMMs it overlaps into
 * chunks of the tokens: "ring_exchange" (qkv_fprop, fc1_fprop,
 * proj_dgrad, fc2_dgrad) into tp GEMMs of T/tp rows, "pipeline"
 * (proj_fprop, fc2_fprop) into num_splits = 4; the "bulk" overlaps (the
 * column-parallel GEMMs' dgrad and wgrad) run whole GEMMs.  The extra time
 * the chunks take over the whole GEMMs of one layer (forward, or backward),
 * at most three chunks at once (the userbuffers' compute streams): smaller
 * GEMMs fill fewer waves and pay more launches.  Dense MLPs and plain QKV
 * projections only (MoE and latent attention run theirs unsplit here). */
void cmp_ub_splits(const struct gpu_spec *g, const struct cmp_shape *sh, bool bwd,
		   struct cmp_cost *out);
/* The gradient kernels each iteration runs once, outside the passes.
 * Every stack clips the gradient norm (Megatron-LM --clip-grad 1.0 by
 * default, arguments.py; DeepSpeed gradient_clipping and PyTorch
 * clip_grad_norm_ in the GPT recipes): one pass reading the fp32 gradients
 * of the `opt_params` parameters the optimizer steps (its shard).  With
 * Megatron's DDP (megatron_buffer) the gradients live in one contiguous
 * fp32 main_grad buffer of `local_params`, which it zeroes at the start of
 * every iteration (DistributedDataParallel.zero_grad_buffer ->
 * ParamAndGradBuffer.reset: grad_data.zero_(), Megatron-Core core_r0.8.0;
 * Megatron-LM 2021's local DDP zero_grad_buffer) and, with dp replicas,
 * scales by 1/dp before the collective (start_grad_sync:
 * grad_data *= gradient_scaling_factor; 2021: buffer_.data /= dp): 4 bytes
 * written, then 4 read and 4 written per parameter, at the copy rate.
 * (PyTorch's zero_grad sets gradients to None; ZeRO reduces unscaled.) */
double cmp_grad_buffer_s(const struct gpu_spec *g, double local_params,
			 double opt_params, int dp, bool megatron_buffer);
/* The model's FLOPs per second the kernels can reach at best, as a
 * fraction of the datatype's peak (for lower bounds). */
double cmp_best_eff(const struct gpu_spec *g, bool fp8, double peak_flops);

#endif
