/*
 * buckets.h -- the gradient buckets a data-parallel wrapper cuts a model
 * chunk's gradients into.
 *
 * Megatron-Core's ParamAndGradBuffer walks a chunk's parameters in reverse
 * registration order (roughly the order the backward makes their
 * gradients) and closes a bucket as soon as it holds bucket_size elements
 * or more (megatron/core/distributed/param_and_grad_buffer.py, core_v0.15.0:
 * a parameter is never split), so a weight larger than the bucket is a
 * bucket of its own and small ones share one; routed experts' parameters
 * fill buffers of their own (distributed_data_parallel.py: the expert-
 * parallel buffers).  PyTorch's DDP assigns its buckets the same way, in
 * bytes (bucket_cap_mb, reducer's compute_bucket_assignment_by_size).
 *
 * The parameters, per GPU, a layer at a time in reverse: the MLP's second
 * and first weights (a gated MLP's two first halves are one fused weight,
 * Transformer Engine's linear_fc1), the attention's output and QKV weights
 * (a latent-attention layer's weights as one), or an MoE layer's router,
 * shared experts and, in the expert buffer, each local expert's two
 * weights (TE's GroupedLinear keeps weight0..weightN).  Biases and norms
 * are left out: a few thousand elements beside millions.
 */
#ifndef MODELS_BUCKETS_H
#define MODELS_BUCKETS_H

#include "models/layout.h"
#include "models/transformer.h"

/* Buckets of layers [first, first + n) of the model, the output head's
 * weight first when `head` (the last chunk's, the first gradient a
 * backward makes), at bucket_elems elements a bucket: the dense buffer's
 * and the expert buffer's together; at least one. */
double bkt_chunk_buckets(const struct tfm *m, const struct layout *L, int first, int n,
			 bool head, double bucket_elems);

#endif
