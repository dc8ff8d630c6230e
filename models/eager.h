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
 *                 writes three of them once: 28 bytes.
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
 *                 dx in fp32), two input casts (and their backward casts),
 *                 two residual adds +4 bytes each way (fp32 sum and
 *                 gradient).  As nanoGPT's and Hugging Face's GPT-2 run
 *                 under autocast.
 *
 * FSDP's mixed precision (param_dtype = bf16) casts the local shard before
 * its all-gather instead of autocast casting whole weights; step.c charges
 * the weight and gradient casts only without ZeRO/FSDP sharding.
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
/* torch.optim.AdamW over `params` fp32 parameters (foreach or fused),
 * after clip_grad_norm_ when clip, after DDP's bucket copies when ddp. */
double eager_optimizer_s(const struct gpu_spec *g, double params, bool foreach,
			 bool clip, bool ddp);

#endif
