/* compute.c -- see compute.h. */
#include <math.h>

#include "models/compute.h"

#define ACT_BYTES 2.0		/* fp16/bf16 activation element */
#define MASK_BYTES 1.0		/* dropout mask element */
#define F32_BYTES 4.0
#define ADAM_BYTES_PER_PARAM 30.0

void cmp_zero(struct cmp_cost *c)
{
	c->time_s = c->gemm_s = c->flops = c->kernels = 0;
}

void cmp_add(struct cmp_cost *acc, const struct cmp_cost *c, double times)
{
	acc->time_s += times * c->time_s;
	acc->gemm_s += times * c->gemm_s;
	acc->flops += times * c->flops;
	acc->kernels += times * c->kernels;
}

void cmp_gemm(const struct gpu_spec *g, bool fp8, double batch,
	      double M, double N, double K, struct cmp_cost *out)
{
	double t = kern_gemm_s(&g->k, fp8, batch, M, N, K);

	out->time_s = t;
	out->gemm_s = t;
	out->flops = 2.0 * M * N * K * batch;
	out->kernels = 1;
}

void cmp_stream(const struct gpu_spec *g, enum kern_stream kind, double bytes,
		struct cmp_cost *out)
{
	out->time_s = kern_stream_s(&g->k, kind, bytes);
	out->gemm_s = 0;
	out->flops = 0;
	out->kernels = 1;
}

/* Add one GEMM (times 2: its two backward GEMMs of the same size) to acc. */
static void add_gemm(const struct gpu_spec *g, const struct cmp_shape *sh,
		     struct cmp_cost *acc, double times, double batch,
		     double M, double N, double K)
{
	struct cmp_cost c;

	cmp_gemm(g, sh->fp8, batch, M, N, K, &c);
	cmp_add(acc, &c, times);
}

static void add_stream(const struct gpu_spec *g, struct cmp_cost *acc,
		       enum kern_stream kind, double bytes)
{
	struct cmp_cost c;

	cmp_stream(g, kind, bytes, &c);
	cmp_add(acc, &c, 1);
}

/* Elements of one [b, s, h] activation on this rank: split over TP only
 * with sequence parallelism. */
static double hidden_elems(const struct cmp_shape *sh)
{
	return sh->b * sh->s * sh->h / (sh->sp ? sh->tp : 1);
}

/* The causal flash-attention kernel over this rank's b a / t heads. */
static void add_flash(const struct gpu_spec *g, const struct cmp_shape *sh,
		      struct cmp_cost *acc, bool bwd)
{
	double bh = sh->b * sh->a / sh->tp, dh = sh->h / sh->a;
	double f = kern_attn_fwd_flops(bh, sh->s, dh);
	struct cmp_cost c;

	c.time_s = bwd ? kern_attn_bwd_s(&g->k, bh, sh->s, dh) :
			 kern_attn_fwd_s(&g->k, bh, sh->s, dh);
	c.gemm_s = c.time_s;
	c.flops = bwd ? 2.5 * f : f;
	c.kernels = 1;
	cmp_add(acc, &c, 1);
}

/* Bias-dropout-add forward: fused, one pass reading x, bias and the
 * residual and writing the sum and the mask; eager, dropout then add
 * (the bias rides in the GEMM's epilogue), as measured. */
static void add_bda_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *acc)
{
	double hid = hidden_elems(sh);

	if (sh->fused)
		add_stream(g, acc, KS_COPY, hid * (3 * ACT_BYTES + MASK_BYTES));
	else
		add_stream(g, acc, KS_DROPOUT_ADD, hid * 3 * ACT_BYTES);
}

/* Its backward: read dy and the mask, write dx (and the bias gradient). */
static void add_bda_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *acc)
{
	add_stream(g, acc, sh->fused ? KS_COPY : KS_DROPOUT_ADD,
		   hidden_elems(sh) * (2 * ACT_BYTES + MASK_BYTES));
}

/* Softmax of the scores: Megatron's fused scale-mask-softmax, or eager
 * scale, mask and softmax (the first two one streaming pass each). */
static void add_softmax(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *acc, double scores, bool bwd)
{
	double bytes = scores * (bwd ? 3 : 2) * ACT_BYTES;

	add_stream(g, acc, KS_SOFTMAX, bytes);
	if (!sh->fused && !bwd) {
		add_stream(g, acc, KS_COPY, scores * 2 * ACT_BYTES);	/* scale */
		add_stream(g, acc, KS_COPY, scores * 2 * ACT_BYTES);	/* mask */
	}
}

/* Attention core forward without flash: two batched GEMMs over b*a/t heads
 * with the softmax and the attention dropout (one streaming pass) between. */
static void attn_core_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			  struct cmp_cost *acc)
{
	double heads = sh->b * sh->a / sh->tp, dh = sh->h / sh->a;
	double scores = heads * sh->s * sh->s;

	add_gemm(g, sh, acc, 1, heads, sh->s, sh->s, dh);		/* Q K^T */
	add_softmax(g, sh, acc, scores, false);
	add_stream(g, acc, KS_COPY, scores * (2 * ACT_BYTES + MASK_BYTES));	/* dropout */
	add_gemm(g, sh, acc, 1, heads, sh->s, dh, sh->s);		/* x V */
}

void cmp_layer_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * sh->s, h = sh->h, t = sh->tp;
	double hid = hidden_elems(sh);

	cmp_zero(out);
	add_stream(g, out, KS_LAYERNORM, hid * 2 * ACT_BYTES);		/* LN */
	add_gemm(g, sh, out, 1, 1, T, 3 * h / t, h);			/* QKV */
	if (sh->flash)
		add_flash(g, sh, out, false);
	else
		attn_core_fwd(g, sh, out);
	add_gemm(g, sh, out, 1, 1, T, h, h / t);			/* proj */
	add_bda_fwd(g, sh, out);
	add_stream(g, out, KS_LAYERNORM, hid * 2 * ACT_BYTES);		/* LN */
	add_gemm(g, sh, out, 1, 1, T, 4 * h / t, h);			/* h -> 4h */
	add_stream(g, out, sh->fused ? KS_COPY : KS_GELU,		/* (bias-)GeLU */
		   T * 4 * h / t * 2 * ACT_BYTES);
	add_gemm(g, sh, out, 1, 1, T, h, 4 * h / t);			/* 4h -> h */
	add_bda_fwd(g, sh, out);
}

void cmp_layer_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * sh->s, h = sh->h, t = sh->tp;
	double hid = hidden_elems(sh);
	double heads = sh->b * sh->a / sh->tp, dh = sh->h / sh->a;
	double scores = heads * sh->s * sh->s;

	cmp_zero(out);
	add_bda_bwd(g, sh, out);
	add_gemm(g, sh, out, 2, 1, T, h, 4 * h / t);			/* 4h -> h */
	add_stream(g, out, sh->fused ? KS_COPY : KS_GELU,		/* GeLU: x, dy -> dx */
		   T * 4 * h / t * 3 * ACT_BYTES);
	add_gemm(g, sh, out, 2, 1, T, 4 * h / t, h);			/* h -> 4h */
	add_stream(g, out, KS_LAYERNORM, hid * 3 * ACT_BYTES);		/* LN: x, dy -> dx */
	add_bda_bwd(g, sh, out);
	add_gemm(g, sh, out, 2, 1, T, h, h / t);			/* proj */
	if (sh->flash) {
		add_flash(g, sh, out, true);
	} else {
		add_gemm(g, sh, out, 2, heads, sh->s, dh, sh->s);	/* x V */
		add_stream(g, out, KS_COPY, scores * (2 * ACT_BYTES + MASK_BYTES));	/* dropout */
		add_softmax(g, sh, out, scores, true);			/* y, dy -> dx */
		add_gemm(g, sh, out, 2, heads, sh->s, sh->s, dh);	/* Q K^T */
	}
	add_gemm(g, sh, out, 2, 1, T, 3 * h / t, h);			/* QKV */
	add_stream(g, out, KS_LAYERNORM, hid * 3 * ACT_BYTES);		/* LN */
}

void cmp_attn_recompute(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *out)
{
	cmp_zero(out);
	if (!sh->flash)
		attn_core_fwd(g, sh, out);
}

void cmp_embed_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * sh->s, h = sh->h;

	cmp_zero(out);
	add_stream(g, out, KS_COPY, T * h * 2 * ACT_BYTES);	/* vocab-parallel gather */
	/* position add and embedding dropout */
	add_bda_fwd(g, sh, out);
}

void cmp_embed_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * sh->s, h = sh->h;

	cmp_zero(out);
	add_bda_bwd(g, sh, out);
	add_stream(g, out, KS_COPY, T * h * 3 * ACT_BYTES);	/* scatter-add into the table */
}

/* The loss over the [b s, V/t] logits.  Megatron (both stacks; fused
 * kernels elsewhere) upcasts the logits to fp32 (GPT's loss calls
 * vocab_parallel_cross_entropy(output.float()) unless
 * --fp16-lm-cross-entropy, off by default) and runs its vocab-parallel
 * cross-entropy as separate eager kernels over the fp32 tensor
 * (NVIDIA/Megatron-LM mpu/cross_entropy.py, 2021, and
 * megatron/core/tensor_parallel/cross_entropy.py, 2024): the cast (2 bytes
 * in, 4 out), max (4 in), in-place subtract (4 + 4), exp (4 + 4), sum (4
 * in), in-place divide (4 + 4): 38 bytes per logit in six kernels.
 * Backward: the in-place multiply by the loss gradient (4 + 4) and the
 * cast back to the GEMM's 2 bytes (4 + 2): 14 bytes in two.  Eager
 * PyTorch under AMP: the cast, then one log-softmax kernel reading and
 * writing fp32 (14 bytes forward; 10 backward). */
static const double mg_loss_fwd_bytes[] = { 6, 4, 8, 8, 4, 8 };
static const double mg_loss_bwd_bytes[] = { 8, 6 };

static void add_loss_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			 double logits, struct cmp_cost *out)
{
	if (!sh->fused) {
		double b = sh->fp32_logits ? (ACT_BYTES + F32_BYTES) + 2 * F32_BYTES :
					     ACT_BYTES + 2 * F32_BYTES;
		add_stream(g, out, KS_SOFTMAX, logits * b);
		return;
	}
	for (size_t i = 0; i < sizeof mg_loss_fwd_bytes / sizeof mg_loss_fwd_bytes[0]; i++)
		add_stream(g, out, KS_COPY, logits * mg_loss_fwd_bytes[i]);
}

static void add_loss_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			 double logits, struct cmp_cost *out)
{
	if (!sh->fused) {
		double b = sh->fp32_logits ? 2 * F32_BYTES + ACT_BYTES : F32_BYTES + ACT_BYTES;
		add_stream(g, out, KS_COPY, logits * b);	/* softmax - onehot */
		return;
	}
	for (size_t i = 0; i < sizeof mg_loss_bwd_bytes / sizeof mg_loss_bwd_bytes[0]; i++)
		add_stream(g, out, KS_COPY, logits * mg_loss_bwd_bytes[i]);
}

void cmp_logits_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *out)
{
	double T = sh->b * sh->s, h = sh->h, vt = sh->V / sh->tp;

	cmp_zero(out);
	add_stream(g, out, KS_LAYERNORM, hidden_elems(sh) * 2 * ACT_BYTES);	/* final LN */
	add_gemm(g, sh, out, 1, 1, T, vt, h);				/* logits */
	add_loss_fwd(g, sh, T * vt, out);
}

void cmp_logits_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *out)
{
	double T = sh->b * sh->s, h = sh->h, vt = sh->V / sh->tp;

	cmp_zero(out);
	add_loss_bwd(g, sh, T * vt, out);
	add_gemm(g, sh, out, 2, 1, T, vt, h);
	add_stream(g, out, KS_LAYERNORM, hidden_elems(sh) * 3 * ACT_BYTES);	/* final LN */
}

void cmp_grad_accum(const struct gpu_spec *g, double params, bool fused,
		    struct cmp_cost *out)
{
	cmp_stream(g, KS_COPY, params * (fused ? 8.0 : 10.0), out);
}

double cmp_adam_s(const struct gpu_spec *g, double params)
{
	return kern_stream_s(&g->k, KS_ADAM, params * ADAM_BYTES_PER_PARAM);
}

double cmp_best_eff(const struct gpu_spec *g, bool fp8, double peak_flops)
{
	return kern_best_eff(&g->k, fp8, peak_flops);
}
