/*
 * stack.h -- software stacks: what a training framework fuses, overlaps
 * and how it holds the optimizer and gradients, as a table of facts with
 * their sources (stack.c).
 *
 * The scenario picks one with training.stack = "NAME".  A stack sets the
 * defaults of the parallel.* options it decides (a setting written in the
 * scenario still wins) and chooses the kernels compute.h runs: fused
 * Megatron kernels or eager PyTorch ones, flash attention or not, logits
 * in fp32 for the loss.  Its band is the relative uncertainty of an
 * iteration's time on this stack (validation residuals), combined with the
 * GPU's in quadrature (run_out.c).
 *
 * The table lives in C rather than in a scenario catalog: a catalog file
 * must be @include'd by every scenario (includes resolve against the
 * scenario's own directory), and a stack is chosen by name, like an enum.
 */
#ifndef MODELS_STACK_H
#define MODELS_STACK_H

#include <stdbool.h>

#include "models/attn_impl.h"

/* The host's time per kernel a library launches from its own loop (and,
 * for the stacks without a figure of their own, per framework op): the
 * floor of the H200 kernel table, stack.c. */
#define STACK_LAUNCH_US 15.5

struct stack_spec {
	const char *name;
	const char *what;		/* one line: framework and versions */
	/* defaults of parallel.* */
	bool flash_attention;
	bool grad_accum_fusion;
	bool distributed_optimizer;
	bool overlap_grad_reduce;
	bool sequence_parallel;
	int zero_stage;
	double dp_bucket_mb;		/* 0: Megatron-LM's max(40M, 1M x dp) */
	/* kernels */
	bool fused_kernels;		/* fused bias-GeLU, bias-dropout-add, softmax */
	bool fp32_logits;		/* the loss upcasts logits to fp32 */
	bool tp_comm_overlap;		/* TP collectives overlapped with GEMMs */
	bool overlap_p2p_comm;		/* pipeline p2p beside the compute */
	bool p2p_scatter_gather;	/* each TP rank sends 1/tp of an activation */
	double grad_reduce_bytes;	/* per gradient element in DP collectives */
	bool overlap_param_gather;	/* distributed optimizer's all-gather in forward */
	double band;			/* relative uncertainty of an iteration's time */
	/* the host and the eager training loop (host.h, eager.h) */
	double host_us_per_kernel;	/* CPU time to issue one framework op */
	bool amp_fp32_weights;		/* torch.autocast over fp32 parameters */
	bool adam_foreach;		/* torch.optim.AdamW's foreach, not fused */
	bool clip_grad_norm;		/* torch.nn.utils.clip_grad_norm_ each step */
	bool tp_async_allreduce;	/* column layers' dX collective under the
					 * weight-gradient GEMM (step_layer.c) */
	enum attn_impl flash_kernel;	/* its flash attention (0: flash2) */
	bool ds_engine;			/* DeepSpeed's engine holds the gradients:
					 * its accumulation, reduction and tied
					 * embedding (step.c) */
	bool zero_contiguous_grads;	/* its ZeRO keeps DeepSpeed's contiguous
					 * gradient buffers (memory.c) */
	bool ds_zero_optimizer;		/* its ZeRO is DeepSpeed's optimizer, which
					 * casts the gradient shard to fp32 at the
					 * step (memory.c) */
	bool grad_nan_check;		/* default of parallel.check_for_nan_in_grad:
					 * Megatron DDP reads each bucket's norm and
					 * waits for it on the host (step.h) */
};

/* The stacks, NULL-terminated by name; the first is the default. */
extern const struct stack_spec stack_table[];
/* "name1|name2|..." for the settings table. */
#define STACK_CHOICES "megatron_lm_2021|megatron_lm_2022|megatron_core|megatron_deepspeed|" \
	"deepspeed_zero|pytorch_eager"
#define STACK_DEFAULT "megatron_lm_2021"

/* The stack called name; NULL if none. */
const struct stack_spec *stack_find(const char *name);

#endif
