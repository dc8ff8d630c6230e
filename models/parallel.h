/*
 * parallel.h -- how the job is parallelised beyond tp x pp x dp (those are
 * layout.h's): pipeline schedule, sequence parallelism, recomputation,
 * ZeRO stage or Megatron's distributed optimizer, bucket sizes, overlap,
 * kernels.  The `parallel.*` settings below are read into struct par_opts,
 * which tests may also fill by hand.  training.stack (stack.h) gives the
 * defaults of the options a software stack decides; a setting written in
 * the scenario wins.
 */
#ifndef MODELS_PARALLEL_H
#define MODELS_PARALLEL_H

#include <stdbool.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/attn_impl.h"
#include "models/compute.h"
#include "models/layout.h"
#include "models/transformer.h"

enum par_schedule { PAR_1F1B, PAR_INTERLEAVED, PAR_DEEPSPEED, PAR_DUALPIPE };
enum par_recompute { PAR_RECOMPUTE_NONE, PAR_RECOMPUTE_SELECTIVE, PAR_RECOMPUTE_FULL };
/* fp16 runs bf16's kernels at bf16's rates (the same tensor-core peak on
 * every GPU in the catalog); it differs only where a stack keeps its
 * gradients in the weights' type (DeepSpeed's engine, ds_engine). */
enum par_dtype { PAR_BF16, PAR_FP8, PAR_FP16 };

struct par_opts {
	enum par_schedule schedule;
	int virtual_stages;		/* model chunks per pipeline rank (interleaved) */
	bool sequence_parallel;
	enum par_recompute recompute;
	unsigned cuda_graph_scope;	/* cgraph.h CG_*: what replays as graphs */
	char cuda_graph_bad[32];	/* the first unknown scope name, if any */
	bool cuda_graph_bad_set;
	unsigned recompute_modules;	/* compute.h CMP_RC_*, within selective */
	bool recompute_bad;		/* a name there is not a module ... */
	char recompute_bad_name[32];	/* ... the first such ("" for an empty one) */
	int zero_stage;			/* 0..3 */
	bool distributed_optimizer;	/* Megatron: reduce-scatter + all-gather */
	bool overlap_grad_reduce;	/* DP gradient collectives during backward */
	bool flash_attention;		/* attention_kernel != ATTN_UNFUSED */
	enum attn_impl attention_kernel;	/* which kernel (attn_impl.h) */
	bool attn_conflict;		/* the scenario wrote flash_attention and an
					 * attention_kernel that disagree */
	bool grad_accum_fusion;		/* wgrad GEMM accumulates into fp32 main_grad */
	bool tp_comm_overlap;		/* TP collectives hidden behind GEMMs (TE) */
	bool tp_async_allreduce;	/* backward dX collective under the wgrad GEMM */
	bool fused_kernels;		/* fused bias-GeLU, bias-dropout-add, softmax */
	bool fp32_logits;		/* the loss upcasts logits to fp32 (eager AMP) */
	double stack_band;		/* the stack's relative band (stack.h) */
	const char *stack;		/* training.stack, the stack's name */
	bool overlap_p2p_comm;		/* pipeline p2p beside compute, not blocking */
	bool p2p_scatter_gather;	/* p2p carries 1/tp of the activation per rank */
	bool ds_engine;			/* DeepSpeed's engine holds the gradients
					 * (stack.h: megatron_deepspeed) */
	double grad_reduce_bytes;	/* per gradient element in DP collectives */
	bool overlap_param_gather;	/* weight all-gather under the next forward */
	bool align_param_gather;	/* ... a chunk at a time, one chunk ahead */
	bool grad_nan_check;		/* Megatron DDP's per-bucket NaN check */
	enum par_dtype dtype;
	bool fp8_params;		/* weights kept in FP8 only (memory.c) */
	enum cmp_fp8_scaling fp8_recipe;	/* Transformer Engine's FP8 scaling
						 * (compute.h, fp8.c) */
	bool nvfp4_hadamard;		/* NVFP4's random Hadamard transforms
					 * on the wgrad copies (fp8.c) */
	double dp_bucket_bytes;		/* Megatron DDP / distributed-optimizer
					 * bucket; 0: par_dp_bucket_bytes() */
	double zero_bucket_bytes;	/* ZeRO reduce and all-gather bucket */
	double zero_prefetch_bytes;	/* ZeRO-3 weights gathered ahead */
	int zero_shard_ranks;		/* hybrid sharding: ranks a ZeRO-2/3 shard
					 * spans; 0: all dp (par_shard_ranks) */
	bool zero3_sync;		/* ZeRO-3 as DeepSpeed 2021 ran it: a
					 * collective per tensor, none under the
					 * compute (step.h) */
	bool zero_contiguous_grads;	/* DeepSpeed's contiguous gradient
					 * buffers of zero_bucket_bytes (memory.c) */
	bool zero_contiguous_written;	/* ... set true by the scenario itself */
	bool ds_zero_optimizer;		/* DeepSpeed's ZeRO optimizer (stack.h) */
	double reserve_bytes;		/* CUDA context, NCCL buffers, allocator slack */
	bool adam_bf16_moments;		/* Adam's moments in bf16 (else fp32) */
	enum cmp_adam_master adam_master;	/* where the master weights are */
	/* the host and the eager loop (host.h, eager.h; the stack's facts) */
	double host_s_per_kernel;	/* CPU time to issue one framework op (a
					 * kernel launched from Python) */
	double host_s_per_launch;	/* ... one launch from a library's loop */
	bool launch_blocking;		/* CUDA_LAUNCH_BLOCKING=1: host and GPU
					 * take turns (host.h) */
	bool amp_fp32_weights;		/* torch.autocast over fp32 parameters */
	bool adam_foreach;		/* torch.optim.AdamW foreach (else fused) */
	bool adam_loop;			/* a per-tensor loop (beats adam_foreach) */
	bool adam_sync;			/* ... reading a GPU step count per tensor */
	bool zero_reduce_fp32;		/* ZeRO/FSDP reduce-scatter in fp32 */
	enum cmp_loss loss;		/* the loss kernel (compute.h) */
	double metric_ce;		/* training metrics' cross-entropies */
	bool ep_deepep;			/* DeepEP's dispatch, else all-to-all (dispatch.h) */
	bool ep_hybridep;		/* ... HybridEP's: DeepEP's traffic, its routing
					 * map all-gathered every dispatch */
	bool ep_permute_fused;		/* ... its permute fused into its dispatch */
	bool ep_permute_set;		/* ... set by the scenario */
	double ep_sms;			/* SMs the flex dispatcher's kernels hold */
	bool ep_sms_set;		/* ... set by the scenario */
	bool ep_fp8_dispatch;		/* dispatch in FP8, combine in bf16 */
	bool moe_router_padding;	/* each expert's tokens arrive aligned for
					 * its FP8 GEMMs: no padding copies */
	bool moe_grouped_gemm;		/* experts' GEMMs in one kernel, not one
					 * call per expert (compute.c) */
	bool moe_act_fused;		/* experts' activation one fused kernel
					 * applying the router's weights, not
					 * TEGroupedMLP's eager path (compute.c) */
	bool moe_act_set;		/* ... set by the scenario */
	bool clip_grad_norm;		/* clip_grad_norm_ before each update */
	double gpu_speed_sigma;		/* per-GPU speed spread (straggler.h); read
					 * by step_cfg_from_scenario(), 0 from
					 * par_defaults(): a uniform cluster */
};

extern const struct cfg_setting par_settings[];

/* Defaults as in the table (for tests that build options by hand). */
void par_defaults(struct par_opts *o);
/* Megatron-LM's DDP bucket: max(40M, 1M x dp) gradient elements of
 * grad_bytes each (bucket_size counts parameters, distributed_data_
 * parallel.py; the buffer holds them in the reduce dtype). */
double par_megatron_bucket_bytes(int dp, double grad_bytes);
/* Gradients held by Megatron's DDP (a fused Megatron stack without ZeRO
 * or DeepSpeed's engine): where its per-bucket NaN check can run. */
bool par_megatron_ddp(const struct par_opts *o);
/* The data-parallel ranks a ZeRO shard spans: zero_shard_ranks, or dp. */
int par_shard_ranks(const struct par_opts *o, int dp);
/* The DDP bucket for dp replicas: the setting, or Megatron's default for
 * that dp when the setting is 0. */
double par_dp_bucket_bytes(const struct par_opts *o, int dp);
/* Read once per load (no checks: they depend on the layout, which an
 * elastic job changes; see par_check). */
void par_from_scenario(const struct scenario *sc, struct par_opts *o);
/* Whether the backward runs an MoE layer's forward again, its dispatch
 * included: full recomputation, or selective with the moe module. */
bool par_moe_recomputed(const struct par_opts *o);
/* The options against the model and layout L; errors name the key at
 * fault at w (NULL: "KEY: what is wrong"); 0 or -1. */
int par_check(const struct sc_where *w, const struct tfm *m,
	      const struct layout *L, const struct par_opts *o, struct err *e);

#endif
