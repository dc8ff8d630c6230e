/* eager.c -- see eager.h. */
#include <math.h>

#include "models/eager.h"
#include "models/host.h"
#include "models/kpower.h"

#define CAST_BYTES 6.0		/* fp32 -> bf16 or back: 4 + 2 */
#define ACCUM_BYTES 12.0	/* .grad += g in fp32: 4 + 4 in, 4 out */
#define CLIP_BYTES 12.0		/* _foreach_norm 4, _foreach_mul_ 4 + 4 */
#define DDP_COPY_BYTES 16.0	/* into the bucket 4 + 4, back 4 + 4 */
#define ADAMW_FOREACH_BYTES 80.0
#define ADAMW_FUSED_BYTES 28.0
#define CLIP_PASSES 2.0
#define ADAMW_FOREACH_PASSES 8.0

/* Energy above idle (kpower.h) of n kernels of kind moving bytes each. */
static double stream_j(const struct gpu_spec *g, enum kern_stream kind, double bytes,
		       double n)
{
	return n * kpw_stream_j(g, bytes, kern_stream_s(&g->k, kind, bytes));
}

void eager_weight_cast(const struct gpu_spec *g, double params, double tensors,
		       struct cmp_cost *out)
{
	cmp_zero(out);
	if (params <= 0 || tensors <= 0)
		return;
	/* one kernel per tensor: the launch is paid per tensor, the bytes once */
	out->time_s = kern_stream_s(&g->k, KS_COPY, params * CAST_BYTES) +
		      (tensors - 1) * g->k.launch_s;
	out->kernels = tensors;
	out->dyn_j = stream_j(g, KS_COPY, params * CAST_BYTES, 1);
}

void eager_grad_accum(const struct gpu_spec *g, double params, double tensors,
		      bool cast, int microbatches, struct cmp_cost *out)
{
	double m = microbatches > 0 ? microbatches : 1, later = (m - 1) / m;

	cmp_zero(out);
	if (params <= 0 || tensors <= 0)
		return;
	if (cast) {
		out->time_s += kern_stream_s(&g->k, KS_COPY, params * CAST_BYTES) +
			       (tensors - 1) * g->k.launch_s;
		out->kernels += tensors;
		out->dyn_j += stream_j(g, KS_COPY, params * CAST_BYTES, 1);
	}
	if (later > 0) {
		out->time_s += later * (kern_stream_s(&g->k, KS_COPY, params * ACCUM_BYTES) +
					(tensors - 1) * g->k.launch_s);
		out->kernels += later * tensors;
		out->dyn_j += stream_j(g, KS_COPY, params * ACCUM_BYTES, later);
	}
}

/* Add bytes of kind to c as traffic of kernels already counted. */
static void more_bytes(const struct gpu_spec *g, enum kern_stream kind, double bytes,
		       struct cmp_cost *c)
{
	c->time_s += kern_stream_s(&g->k, kind, bytes) - g->k.launch_s;
	c->dyn_j += kpw_stream_j(g, bytes, kern_stream_s(&g->k, kind, bytes) - g->k.launch_s);
}

/* Add n kernels moving bytes each to c. */
static void add_kernels(const struct gpu_spec *g, double n, double bytes, struct cmp_cost *c)
{
	c->time_s += n * kern_stream_s(&g->k, KS_COPY, bytes);
	c->kernels += n;
	c->dyn_j += stream_j(g, KS_COPY, bytes, n);
}

void eager_fp32_stream(const struct gpu_spec *g, double elems, struct cmp_cost *fwd,
		       struct cmp_cost *bwd)
{
	cmp_zero(fwd);
	cmp_zero(bwd);
	if (elems <= 0)
		return;
	more_bytes(g, KS_LAYERNORM, 2 * 4 * elems, fwd);	/* two norms in fp32 */
	more_bytes(g, KS_DROPOUT_ADD, 2 * 4 * elems, fwd);	/* two fp32 residual adds */
	add_kernels(g, 2, CAST_BYTES * elems, fwd);		/* GEMM inputs to bf16 */
	more_bytes(g, KS_LAYERNORM, 2 * 6 * elems, bwd);
	more_bytes(g, KS_LAYERNORM, 2 * 4 * elems, bwd);	/* their dgamma/dbeta: x, dy */
	more_bytes(g, KS_DROPOUT_ADD, 2 * 4 * elems, bwd);
	add_kernels(g, 2, CAST_BYTES * elems, bwd);		/* their gradients back */
}

double eager_fsdp_predivide(int dp)
{
	double f = 1;

	/* torch/distributed/fsdp/_init_utils.py (PyTorch 2.1) */
	while (dp > 0 && fmod(dp, f) == 0 && dp / f > f)
		f *= 2;
	return f;
}

void eager_fsdp_grad(const struct gpu_spec *g, double params, int dp, bool reduce_fp32,
		     struct cmp_cost *out)
{
	double rb = reduce_fp32 ? 4 : 2, pre = eager_fsdp_predivide(dp), post = dp / pre;

	cmp_zero(out);
	if (params <= 0 || dp <= 1)
		return;
	if (reduce_fp32)	/* .to(reduce_dtype): bf16 in, fp32 out */
		add_kernels(g, 1, params * CAST_BYTES, out);
	if (pre > 1)		/* in place: read and write */
		add_kernels(g, 1, params * 2 * rb, out);
	if (post > 1)		/* over the shard */
		add_kernels(g, 1, params / dp * 2 * rb, out);
}

/* n tensors' per-tensor kernels on the GPU: the bytes once, a launch each
 * beyond the first */
static double per_tensor_s(const struct gpu_spec *g, double bytes, double kernels)
{
	return kern_stream_s(&g->k, KS_ADAM, bytes) + (kernels - 1) * g->k.launch_s;
}

double eager_optimizer_s(const struct gpu_spec *g, const struct eager_opt *o)
{
	double t, kernels = 0, sync_s = 0, n = o->tensors > 1 ? o->tensors : 1;

	if (o->params <= 0)
		return 0;
	/* multi-tensor kernels: a launch per pass (per chunk of tensors in
	 * fact; a pass over a model's parameters is bandwidth-bound) */
	switch (o->impl) {
	case EAGER_ADAM_FOREACH:
		t = per_tensor_s(g, o->params * ADAMW_FOREACH_BYTES, ADAMW_FOREACH_PASSES);
		break;
	case EAGER_ADAM_LOOP:
	case EAGER_ADAM_COMPOSER:
		kernels = ADAMW_FOREACH_PASSES * n;
		t = per_tensor_s(g, o->params * ADAMW_FOREACH_BYTES, kernels);
		if (o->impl == EAGER_ADAM_COMPOSER) {
			/* each .item() exposes the tensor's last kernel: a mean
			 * one of its eight; the += 1 and the read are two more
			 * operations per tensor on the host */
			sync_s = n * t / kernels;
			kernels += 2 * n;
		}
		break;
	default:
		t = kern_stream_s(&g->k, KS_ADAM, o->params * ADAMW_FUSED_BYTES);
	}
	if (o->clip && o->clip_per_tensor) {
		kernels += CLIP_PASSES * n;
		t += per_tensor_s(g, o->params * CLIP_BYTES, CLIP_PASSES * n);
	} else if (o->clip) {
		t += per_tensor_s(g, o->params * CLIP_BYTES, CLIP_PASSES);
	}
	if (o->ddp)	/* a bucket's worth per copy: the launches are few */
		t += kern_stream_s(&g->k, KS_COPY, o->params * DDP_COPY_BYTES);
	/* the per-tensor loops launch from Python (host.h) */
	struct host_cost h = { o->host_s, o->host_s };
	double host_s = host_issue_s(kernels, 0, &h);
	return (host_s > t ? host_s : t) + sync_s;
}
