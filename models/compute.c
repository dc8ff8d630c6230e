/* compute.c -- see compute.h. */
#include <math.h>

#include "models/compute.h"

#define ACT_BYTES 2.0		/* fp16/bf16 activation element */
#define MASK_BYTES 1.0		/* dropout mask element */
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

double cmp_gemm_eff(const struct gpu_spec *g, double flops)
{
	int n = g->gemm_points;
	double x = log(flops / 1e9);

	if (n <= 0)
		return 0.7;
	if (n == 1 || flops / 1e9 <= g->gemm_gflop[0])
		return g->gemm_eff[0];
	for (int i = 1; i < n; i++) {
		if (flops / 1e9 <= g->gemm_gflop[i]) {
			double x0 = log(g->gemm_gflop[i - 1]), x1 = log(g->gemm_gflop[i]);
			double f = (x - x0) / (x1 - x0);
			return g->gemm_eff[i - 1] + f * (g->gemm_eff[i] - g->gemm_eff[i - 1]);
		}
	}
	return g->gemm_eff[n - 1];
}

void cmp_gemm(const struct gpu_spec *g, double peak_flops, double batch,
	      double M, double N, double K, struct cmp_cost *out)
{
	double flops = 2.0 * M * N * K * batch;
	double bytes = ACT_BYTES * (M * K + K * N + M * N) * batch;
	double t_math = flops / (peak_flops * cmp_gemm_eff(g, flops));
	double t_mem = bytes / (g->hbm_bw_Bps * g->mem_eff);
	double t = (t_math > t_mem ? t_math : t_mem) + g->launch_s;

	out->time_s = t;
	out->gemm_s = t;
	out->flops = flops;
	out->kernels = 1;
}

void cmp_stream(const struct gpu_spec *g, double bytes, struct cmp_cost *out)
{
	out->time_s = bytes / (g->hbm_bw_Bps * g->mem_eff) + g->launch_s;
	out->gemm_s = 0;
	out->flops = 0;
	out->kernels = 1;
}

/* Add one GEMM (or its two backward GEMMs) to acc. */
static void add_gemm(const struct gpu_spec *g, const struct cmp_shape *sh,
		     struct cmp_cost *acc, double times, double batch,
		     double M, double N, double K)
{
	struct cmp_cost c;

	cmp_gemm(g, sh->peak_flops, batch, M, N, K, &c);
	cmp_add(acc, &c, times);
}

static void add_stream(const struct gpu_spec *g, struct cmp_cost *acc, double bytes)
{
	struct cmp_cost c;

	cmp_stream(g, bytes, &c);
	cmp_add(acc, &c, 1);
}

/* This rank's share of the sequence: s/cp tokens with context parallelism
 * (their queries still attend to all s keys). */
static double qlen(const struct cmp_shape *sh)
{
	return sh->s / (sh->cp > 0 ? sh->cp : 1);
}

/* Elements of one [b, s, h] activation on this rank: split over TP only
 * with sequence parallelism. */
static double hidden_elems(const struct cmp_shape *sh)
{
	return sh->b * qlen(sh) * sh->h / (sh->sp ? sh->tp : 1);
}

/* The shape's dimensions, GPT's where a field is 0. */
static double kv_heads(const struct cmp_shape *sh)
{
	return sh->kv > 0 ? sh->kv : sh->a;
}

static double head_qk(const struct cmp_shape *sh)
{
	return sh->dqk > 0 ? sh->dqk : sh->h / sh->a;
}

static double head_v(const struct cmp_shape *sh)
{
	return sh->dv > 0 ? sh->dv : sh->h / sh->a;
}

static double ffn(const struct cmp_shape *sh)
{
	return sh->f > 0 ? sh->f : 4 * sh->h;
}

/* The flash-attention kernel: 2 b (s/cp) s a (d_qk + d_v) / t forward
 * FLOPs (4 b s^2 h / t for GPT) at flash_eff. */
static void add_flash(const struct gpu_spec *g, const struct cmp_shape *sh,
		      struct cmp_cost *acc, double flops_factor)
{
	double dsum = sh->a * (head_qk(sh) + head_v(sh));
	double flops = flops_factor * 2.0 * sh->b * qlen(sh) * sh->s * dsum / sh->tp;
	struct cmp_cost c;

	c.time_s = flops / (sh->peak_flops * g->flash_eff) + g->launch_s;
	c.gemm_s = c.time_s;
	c.flops = flops;
	c.kernels = 1;
	cmp_add(acc, &c, 1);
}

/* Attention core forward without flash: two batched GEMMs over b*a/t heads
 * with the fused scale-mask-softmax and the attention dropout between. */
static void attn_core_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			  struct cmp_cost *acc)
{
	double heads = sh->b * sh->a / sh->tp;
	double scores = heads * qlen(sh) * sh->s;

	add_gemm(g, sh, acc, 1, heads, qlen(sh), sh->s, head_qk(sh));	/* Q K^T */
	add_stream(g, acc, scores * 2 * ACT_BYTES);			/* softmax */
	add_stream(g, acc, scores * (2 * ACT_BYTES + MASK_BYTES));	/* dropout */
	add_gemm(g, sh, acc, 1, heads, qlen(sh), head_v(sh), sh->s);	/* x V */
}

/* The projections into queries, keys and values: one fused QKV GEMM, or
 * latent attention's down and up projections (times = 2 for backward). */
static void qkv_gemms(const struct gpu_spec *g, const struct cmp_shape *sh,
		      struct cmp_cost *acc, double times)
{
	double T = sh->b * qlen(sh), h = sh->h, t = sh->tp, a = sh->a;

	if (sh->kv_lora <= 0) {
		add_gemm(g, sh, acc, times, 1, T, (a + 2 * kv_heads(sh)) * head_qk(sh) / t, h);
		return;
	}
	double dqk = head_qk(sh), nope = dqk - sh->rope;

	if (sh->q_lora > 0) {
		add_gemm(g, sh, acc, times, 1, T, sh->q_lora, h);		/* W^DQ */
		add_gemm(g, sh, acc, times, 1, T, a * dqk / t, sh->q_lora);	/* W^UQ */
	} else {
		add_gemm(g, sh, acc, times, 1, T, a * dqk / t, h);		/* W^Q */
	}
	add_gemm(g, sh, acc, times, 1, T, sh->kv_lora + sh->rope, h);	/* W^DKV */
	add_gemm(g, sh, acc, times, 1, T, a * (nope + head_v(sh)) / t, sh->kv_lora);
	/* the norms of the latents, fused with rotary embedding */
	add_stream(g, acc, T * (sh->q_lora + sh->kv_lora) * (times + 1) * ACT_BYTES);
}

/* The MLP's first GEMM, activation and second GEMM of width f, forward. */
static void mlp_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *acc, double batch, double M, double f)
{
	double h = sh->h, t = sh->tp, up = sh->gated ? 2 * f : f;

	add_gemm(g, sh, acc, 1, batch, M, up / t, h);			/* h -> f (2f) */
	/* bias-GeLU reads and writes f; SwiGLU reads 2f, writes f */
	add_stream(g, acc, batch * M * f / t * (sh->gated ? 3 : 2) * ACT_BYTES);
	add_gemm(g, sh, acc, 1, batch, M, h, f / t);			/* f -> h */
}

static void mlp_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *acc, double batch, double M, double f)
{
	double h = sh->h, t = sh->tp, up = sh->gated ? 2 * f : f;

	add_gemm(g, sh, acc, 2, batch, M, h, f / t);			/* f -> h */
	/* GeLU: x, dy -> dx; SwiGLU: up, gate, dy -> d up, d gate */
	add_stream(g, acc, batch * M * f / t * (sh->gated ? 5 : 3) * ACT_BYTES);
	add_gemm(g, sh, acc, 2, batch, M, up / t, h);			/* h -> f (2f) */
}

/* Tokens each of the busiest rank's experts takes: ep T k / E, times the
 * load of the busiest expert. */
static double expert_tokens(const struct cmp_shape *sh)
{
	double ep = sh->ep > 0 ? sh->ep : 1, load = sh->load > 0 ? sh->load : 1;

	return ep * sh->b * qlen(sh) * sh->topk / sh->experts * load;
}

/* An MoE layer's MLP: router, permute, grouped experts, unpermute, shared
 * experts.  backward: the GEMMs twice, the streams' gradients. */
static void moe_mlp(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *acc, bool backward)
{
	double T = sh->b * qlen(sh), h = sh->h, ep = sh->ep > 0 ? sh->ep : 1;
	double local = sh->experts / ep, M = expert_tokens(sh);
	double routed = local * M;	/* token-expert pairs on this rank */

	add_gemm(g, sh, acc, backward ? 2 : 1, 1, T, sh->experts, h);	/* router */
	add_stream(g, acc, routed * h * 2 * ACT_BYTES);			/* permute */
	if (backward)
		mlp_bwd(g, sh, acc, local, M, sh->fe);
	else
		mlp_fwd(g, sh, acc, local, M, sh->fe);
	add_stream(g, acc, routed * h * 2 * ACT_BYTES);			/* unpermute */
	if (sh->shared > 0) {
		if (backward)
			mlp_bwd(g, sh, acc, 1, T, sh->shared * sh->fe);
		else
			mlp_fwd(g, sh, acc, 1, T, sh->shared * sh->fe);
	}
}

void cmp_layer_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h, t = sh->tp;
	double hid = hidden_elems(sh);

	cmp_zero(out);
	add_stream(g, out, hid * 2 * ACT_BYTES);			/* LN */
	qkv_gemms(g, sh, out, 1);					/* QKV */
	if (sh->flash)
		add_flash(g, sh, out, 1.0);
	else
		attn_core_fwd(g, sh, out);
	add_gemm(g, sh, out, 1, 1, T, h, sh->a * head_v(sh) / t);	/* proj */
	add_stream(g, out, hid * (3 * ACT_BYTES + MASK_BYTES));	/* bias-dropout-add */
	add_stream(g, out, hid * 2 * ACT_BYTES);			/* LN */
	if (sh->experts > 0)
		moe_mlp(g, sh, out, false);
	else
		mlp_fwd(g, sh, out, 1, T, ffn(sh));			/* MLP */
	add_stream(g, out, hid * (3 * ACT_BYTES + MASK_BYTES));	/* bias-dropout-add */
}

void cmp_layer_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h, t = sh->tp;
	double hid = hidden_elems(sh);
	double heads = sh->b * sh->a / sh->tp;
	double scores = heads * qlen(sh) * sh->s;

	cmp_zero(out);
	/* bias-dropout-add: read dy and mask, write dx and the bias grad. */
	add_stream(g, out, hid * (2 * ACT_BYTES + MASK_BYTES));
	if (sh->experts > 0)
		moe_mlp(g, sh, out, true);
	else
		mlp_bwd(g, sh, out, 1, T, ffn(sh));			/* MLP */
	add_stream(g, out, hid * 3 * ACT_BYTES);			/* LN: x, dy -> dx */
	add_stream(g, out, hid * (2 * ACT_BYTES + MASK_BYTES));	/* bias-dropout-add */
	add_gemm(g, sh, out, 2, 1, T, h, sh->a * head_v(sh) / t);	/* proj */
	if (sh->flash) {
		add_flash(g, sh, out, 2.5);
	} else {
		add_gemm(g, sh, out, 2, heads, qlen(sh), head_v(sh), sh->s);	/* x V */
		add_stream(g, out, scores * (2 * ACT_BYTES + MASK_BYTES));	/* dropout */
		add_stream(g, out, scores * 3 * ACT_BYTES);		/* softmax: y, dy -> dx */
		add_gemm(g, sh, out, 2, heads, qlen(sh), sh->s, head_qk(sh));	/* Q K^T */
	}
	qkv_gemms(g, sh, out, 2);					/* QKV */
	add_stream(g, out, hid * 3 * ACT_BYTES);			/* LN */
}

double cmp_attn_core_s(const struct gpu_spec *g, const struct cmp_shape *sh,
		       bool backward)
{
	struct cmp_cost c;

	cmp_zero(&c);
	if (sh->flash)
		add_flash(g, sh, &c, backward ? 2.5 : 1.0);
	else
		attn_core_fwd(g, sh, &c);
	return sh->flash || !backward ? c.time_s : 2 * c.time_s;
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
	double T = sh->b * qlen(sh), h = sh->h;

	cmp_zero(out);
	add_stream(g, out, T * h * 2 * ACT_BYTES);		/* vocab-parallel gather */
	/* position add and embedding dropout */
	add_stream(g, out, hidden_elems(sh) * (3 * ACT_BYTES + MASK_BYTES));
}

void cmp_embed_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h;

	cmp_zero(out);
	add_stream(g, out, hidden_elems(sh) * (2 * ACT_BYTES + MASK_BYTES));
	add_stream(g, out, T * h * 3 * ACT_BYTES);		/* scatter-add into the table */
}

void cmp_logits_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h, vt = sh->V / sh->tp;

	cmp_zero(out);
	add_stream(g, out, hidden_elems(sh) * 2 * ACT_BYTES);	/* final LN */
	add_gemm(g, sh, out, 1, 1, T, vt, h);			/* logits */
	/* vocab-parallel cross-entropy: max, exp-sum, loss in fp32 */
	add_stream(g, out, T * vt * (ACT_BYTES + 2 * 4.0));
}

void cmp_logits_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h, vt = sh->V / sh->tp;

	cmp_zero(out);
	add_stream(g, out, T * vt * (4.0 + ACT_BYTES));		/* softmax - onehot */
	add_gemm(g, sh, out, 2, 1, T, vt, h);
	add_stream(g, out, hidden_elems(sh) * 3 * ACT_BYTES);	/* final LN */
}

void cmp_grad_accum(const struct gpu_spec *g, double params, bool fused,
		    struct cmp_cost *out)
{
	cmp_stream(g, params * (fused ? 8.0 : 10.0), out);
}

double cmp_adam_s(const struct gpu_spec *g, double params)
{
	return params * ADAM_BYTES_PER_PARAM / (g->hbm_bw_Bps * g->mem_eff) +
	       g->launch_s;
}
