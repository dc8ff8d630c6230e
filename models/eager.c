/* eager.c -- see eager.h. */
#include "models/eager.h"
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
	more_bytes(g, KS_DROPOUT_ADD, 2 * 4 * elems, bwd);
	add_kernels(g, 2, CAST_BYTES * elems, bwd);		/* their gradients back */
}

double eager_optimizer_s(const struct gpu_spec *g, double params, bool foreach,
			 bool clip, bool ddp)
{
	double t;

	if (params <= 0)
		return 0;
	/* multi-tensor kernels: a launch per pass (per chunk of tensors in
	 * fact; a pass over a model's parameters is bandwidth-bound) */
	t = foreach ? kern_stream_s(&g->k, KS_ADAM, params * ADAMW_FOREACH_BYTES) +
		      (ADAMW_FOREACH_PASSES - 1) * g->k.launch_s :
		      kern_stream_s(&g->k, KS_ADAM, params * ADAMW_FUSED_BYTES);
	if (clip)
		t += kern_stream_s(&g->k, KS_ADAM, params * CLIP_BYTES) +
		     (CLIP_PASSES - 1) * g->k.launch_s;
	if (ddp)	/* a bucket's worth per copy: the launches are few */
		t += kern_stream_s(&g->k, KS_COPY, params * DDP_COPY_BYTES);
	return t;
}
