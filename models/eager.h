/*
 * eager.h -- the passes an eager PyTorch training loop under automatic
 * mixed precision makes beyond the model's own kernels (compute.h), each a
 * memory-bound pass priced at the GPU's measured stream rate:
 *
 *   weight cast   torch.autocast keeps the parameters in fp32 and casts
 *                 each weight a GEMM uses to bf16 on first use inside the
 *                 autocast region, caching the copy until the region exits
 *                 (PyTorch AMP docs, "Autocasting"; torch.autocast's
 *                 cache_enabled=True): a training loop enters the region
 *                 once per microbatch, so every microbatch's forward reads
 *                 4 and writes 2 bytes per GEMM weight;
 *   grad cast     autograd records that cast (ToCopyBackward0), so every
 *                 weight gradient the bf16 GEMM produces is cast back to the
 *                 fp32 parameter's dtype: 2 bytes in, 4 out;
 *   accumulate    AccumulateGrad adds it into the fp32 .grad in place
 *                 (4 + 4 in, 4 out) except on the first microbatch after
 *                 zero_grad(), which steals the tensor; zero_grad() sets
 *                 the gradients to None (set_to_none=True, the default
 *                 since PyTorch 2.0), so it runs no kernel;
 *   clip          torch.nn.utils.clip_grad_norm_ (foreach path on CUDA,
 *                 PyTorch 2.x torch/nn/utils/clip_grad.py): _foreach_norm
 *                 reads every fp32 gradient (4 bytes), then _foreach_mul_
 *                 scales them all by the clamped coefficient, with no
 *                 branch on the host (4 + 4): 12 bytes per parameter;
 *   AdamW         torch.optim.AdamW's default on CUDA is its foreach
 *                 implementation (torch/optim/adam.py _multi_tensor_adam,
 *                 PyTorch 2.x, non-capturable path): _foreach_mul_(params)
 *                 8 bytes, _foreach_lerp_(exp_avgs, grads) 12,
 *                 _foreach_mul_(exp_avg_sqs) 8, _foreach_addcmul_(exp_avg_sqs,
 *                 grads, grads) 12, _foreach_sqrt 8, _foreach_div_ 8,
 *                 _foreach_add_(eps) 8, _foreach_addcdiv_(params, exp_avgs,
 *                 denom) 16: 80 bytes per fp32 parameter in eight passes;
 *                 fused=True reads parameter, gradient and both moments and
 *                 writes three of them once: 28 bytes;
 *   AdamW loop    a per-tensor Python loop (torch.optim.AdamW foreach=False,
 *                 _single_tensor_adamw; Composer's DecoupledAdamW, which
 *                 llm-foundry's MPT recipes run: composer/optim/
 *                 decoupled_weight_decay.py v0.16.4, adamw(): "for i, param
 *                 in enumerate(params)", exp_avg.mul_().add_(),
 *                 exp_avg_sq.mul_().addcmul_(), sqrt(), / sqrt(bc2),
 *                 .add_(eps), param.addcdiv_(), with weight decay 0 no
 *                 param.mul_): the same 80 bytes per parameter, but eight
 *                 kernels per tensor, each launched from Python, so a step
 *                 over hundreds of small FSDP shards waits on the host
 *                 (host.h: kernels x the stack's time per kernel);
 *                 Composer's keeps each parameter's step count on the GPU
 *                 (state['step'] = torch.zeros((), device=p.device), then
 *                 state['step'] += 1: a kernel per tensor) and reads it
 *                 back inside the loop (step = state_steps[i].item()): an
 *                 operation per tensor more, and each read waits for the
 *                 GPU to finish the previous tensor's kernels, so the last
 *                 kernel of every tensor runs with the host waiting;
 *   FSDP clip     FullyShardedDataParallel.clip_grad_norm_ (PyTorch 2.1,
 *                 torch/distributed/fsdp/fully_sharded_data_parallel.py,
 *                 _get_grad_norm: one vector_norm per gradient, then
 *                 "for grad in grads: grad.detach().mul_(clip_coef)"): the
 *                 12 bytes of the foreach clip, two kernels per tensor;
 *                 Composer's gradient_clipping calls it under FSDP.
 *
 *   DDP copies    torch.nn.parallel.DistributedDataParallel copies each
 *                 gradient into its all-reduce bucket and the reduced bucket
 *                 back, unless gradient_as_bucket_view=True (default False;
 *                 its docs: True "avoids the overhead of copying between
 *                 gradients and allreduce communication buckets"): 4 + 4
 *                 bytes each way, 16 per fp32 parameter per step, charged
 *                 with the optimizer (the copy-in runs on the compute stream
 *                 during the last backward, serially either way);
 *   fp32 stream   the embedding lookup is not autocast, so with fp32
 *                 parameters the residual stream starts in fp32 and stays
 *                 there (bf16 + fp32 promotes to fp32); layer_norm is on
 *                 autocast's list of ops that run in fp32 (PyTorch AMP docs,
 *                 "CUDA Ops that can autocast to float32"), so each norm
 *                 reads and writes 4-byte elements, and the GEMM after it
 *                 casts its input to bf16 (4 + 2 bytes, a kernel).  Per
 *                 layer, against compute.h's 2-byte activations: two norms
 *                 +4 bytes per element each forward (+6 backward: x, dy,
 *                 dx in fp32; +4 more in the dgamma/dbeta kernel that
 *                 reads x and dy again, compute.c), two input casts (and their backward casts),
 *                 two residual adds +4 bytes each way (fp32 sum and
 *                 gradient).  As nanoGPT's and Hugging Face's GPT-2 run
 *                 under autocast.
 *
 * FSDP's mixed precision (param_dtype = bf16) casts the local shard before
 * its all-gather instead of autocast casting whole weights; step_layer.c charges
 * the weight and gradient casts only without ZeRO/FSDP sharding.  Its
 * gradient path instead (PyTorch 2.1 torch/distributed/fsdp/
 * _runtime_utils.py, _post_backward_hook and _reduce_grad, every
 * microbatch, on each FSDP unit's flat unsharded gradient):
 *
 *   upcast        when MixedPrecision.reduce_dtype differs from param_dtype
 *                 (float32 with bf16 params: Composer's mixed_precision
 *                 DEFAULT, composer/trainer/mosaic_fsdp_utils.py v0.16.4),
 *                 "flat_param.grad.data = flat_param.grad.to(
 *                 handle._reduce_dtype)": 2 bytes in, 4 out per parameter;
 *   predivide     _div_if_needed(padded_unsharded_grad,
 *                 _gradient_predivide_factor) before the reduce-scatter:
 *                 in place over the unsharded gradient in the reduce dtype
 *                 when the factor exceeds 1 (_get_gradient_predivide_factor:
 *                 f doubles from 1 while f divides the world size and
 *                 world / f > f: 4 for 8 GPUs);
 *   postdivide    the same over the new shard by world / predivide (2 for
 *                 8 GPUs).
 *
 * These run on FSDP's post-backward stream beside the backward's kernels;
 * they are charged to the backward pass as SM time it shares with them
 * (the GEMMs fill the GPU, so a concurrent elementwise kernel takes its
 * blocks' time from them).
 */
#ifndef MODELS_EAGER_H
#define MODELS_EAGER_H

#include <stdbool.h>

#include "models/compute.h"

/* Autocast's cast of `params` fp32 weights in `tensors` tensors to bf16,
 * once per microbatch's forward. */
void eager_weight_cast(const struct gpu_spec *g, double params, double tensors,
		       struct cmp_cost *out);
/* One microbatch's backward into fp32 .grad: the cast back (cast: the
 * weight was autocast) and the in-place accumulation, the latter on all
 * but the first of `microbatches` (charged as its mean per microbatch). */
void eager_grad_accum(const struct gpu_spec *g, double params, double tensors,
		      bool cast, int microbatches, struct cmp_cost *out);
/* The fp32 residual stream's extra traffic over one layer of `elems`
 * activation elements (b s h on this rank), forward and backward. */
void eager_fp32_stream(const struct gpu_spec *g, double elems, struct cmp_cost *fwd,
		       struct cmp_cost *bwd);
/* FSDP's per-microbatch work on a unit's unsharded gradient of `params`
 * (the upcast when reduce_fp32, the pre- and postdivide for `dp` ranks),
 * one kernel each. */
void eager_fsdp_grad(const struct gpu_spec *g, double params, int dp, bool reduce_fp32,
		     struct cmp_cost *out);
/* _get_gradient_predivide_factor(dp) of PyTorch FSDP. */
double eager_fsdp_predivide(int dp);

enum eager_adam { EAGER_ADAM_FOREACH, EAGER_ADAM_FUSED, EAGER_ADAM_LOOP,
		  EAGER_ADAM_COMPOSER };

/* One optimizer step on a rank: AdamW over `params` fp32 parameters in
 * `tensors` tensors, after the gradient clip when clip (per tensor when
 * clip_per_tensor: FSDP's), after DDP's bucket copies when ddp; a
 * per-tensor loop takes at least its kernels times host_s. */
struct eager_opt {
	double params, tensors;
	enum eager_adam impl;
	bool clip, clip_per_tensor, ddp;
	double host_s;
};
double eager_optimizer_s(const struct gpu_spec *g, const struct eager_opt *o);

#endif
