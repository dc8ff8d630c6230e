/* compute.c -- see compute.h. */
#include <math.h>

#include "models/compute.h"
#include "models/kpower.h"

#define ACT_BYTES 2.0		/* fp16/bf16 activation element */
#define MASK_BYTES 1.0		/* dropout mask element */
#define F32_BYTES 4.0
/* Adam's bytes a parameter beside its moments', by where the master is
 * (compute.h): the fp32 gradient 4 read, and master 4 read, master 4 and
 * the 16-bit copy 2 written; bf16 weight 2 and remainder 2 read, both
 * written (Apex DistributedFusedAdam store_param_remainders); the bf16
 * weight 2 read and written (Apex with the optimizer's dtype bf16) */
static const double adam_fixed_bytes[] = {
	[CMP_MASTER_FP32] = 14.0,
	[CMP_MASTER_REMAINDER] = 12.0,
	[CMP_MASTER_WEIGHTS] = 8.0,
};

void cmp_zero(struct cmp_cost *c)
{
	c->time_s = c->gemm_s = c->flops = c->kernels = c->lib_kernels = c->dyn_j = 0;
}

void cmp_add(struct cmp_cost *acc, const struct cmp_cost *c, double times)
{
	acc->time_s += times * c->time_s;
	acc->gemm_s += times * c->gemm_s;
	acc->flops += times * c->flops;
	acc->kernels += times * c->kernels;
	acc->lib_kernels += times * c->lib_kernels;
	acc->dyn_j += times * c->dyn_j;
}

void cmp_gemm(const struct gpu_spec *g, bool fp8, double batch,
	      double M, double N, double K, struct cmp_cost *out)
{
	double t = kern_gemm_s(&g->k, fp8, batch, M, N, K);

	out->time_s = t;
	out->gemm_s = t;
	out->flops = 2.0 * M * N * K * batch;
	out->kernels = 1;
	out->lib_kernels = 0;
	out->dyn_j = kpw_tensor_j(g, out->flops, t);
}

/* Before each block-scaled GEMM Transformer Engine rearranges both
 * operands' block scales into the layout cuBLAS reads (pytorch/csrc/
 * extensions/gemm.cpp, swizzle_scaling_factors, TE 2.9): two small
 * kernels reading and writing one byte per block, 32 elements for MXFP8,
 * 16 for NVFP4. */
#define MX_SWIZZLE_B (2.0 / 32)
#define NV_SWIZZLE_B (2.0 / 16)

void cmp_te_gemm(const struct gpu_spec *g, const struct cmp_shape *sh, double batch,
		 double M, double N, double K, struct cmp_cost *out)
{
	bool mx = sh->fp8_scaling == CMP_FP8_MX, nv = sh->fp8_scaling == CMP_FP4_NV;
	bool blk = sh->fp8_scaling == CMP_FP8_BLOCK;
	double ratio = mx ? g->mx_gemm_ratio : nv ? g->nvfp4_gemm_ratio :
		       blk ? g->fp8_block_gemm_ratio : 0;
	double swizzle = mx ? MX_SWIZZLE_B : NV_SWIZZLE_B;
	struct cmp_cost c;

	cmp_gemm(g, sh->fp8, batch, M, N, K, out);
	if (!sh->fp8 || ratio <= 0)
		return;
	out->time_s *= ratio;
	out->gemm_s = out->time_s;
	out->dyn_j = kpw_tensor_j(g, out->flops, out->time_s);
	if (blk)
		return;
	cmp_stream(g, KS_COPY, batch * M * K * swizzle, &c);
	cmp_add(out, &c, 1);
	cmp_stream(g, KS_COPY, batch * K * N * swizzle, &c);
	cmp_add(out, &c, 1);
}

void cmp_stream(const struct gpu_spec *g, enum kern_stream kind, double bytes,
		struct cmp_cost *out)
{
	out->time_s = kern_stream_s(&g->k, kind, bytes);
	out->gemm_s = 0;
	out->flops = 0;
	out->kernels = kind == KS_DROPOUT_ADD ? 2 : 1;	/* dropout, then add */
	out->lib_kernels = 0;
	out->dyn_j = kpw_stream_j(g, bytes, out->time_s);
}

/* Add one GEMM (times 2: its two backward GEMMs of the same size) to acc,
 * in the datatype of the run (FP8 where the run is): the GEMMs of the
 * layers' Transformer Engine modules.  Their FP8 casts are fp8.c's. */
static void add_gemm(const struct gpu_spec *g, const struct cmp_shape *sh,
		     struct cmp_cost *acc, double times, double batch,
		     double M, double N, double K)
{
	struct cmp_cost c;

	cmp_te_gemm(g, sh, batch, M, N, K, &c);
	cmp_add(acc, &c, times);
}

/* A GEMM that stays in bf16 under FP8: Megatron-Core's output layer
 * (tensor_parallel.ColumnParallelLinear, not a Transformer Engine module:
 * megatron/core/models/gpt/gpt_model.py, core_r0.10-r0.12), the MoE
 * router (a plain torch linear, transformer/moe/router.py) and the
 * unfused attention core's batched GEMMs (torch.baddbmm/bmm; FP8
 * attention, TE's fp8_dpa, is off by default in NeMo 2 recipes). */
static void add_gemm_bf16(const struct gpu_spec *g, struct cmp_cost *acc,
			  double times, double batch, double M, double N, double K)
{
	struct cmp_cost c;

	cmp_gemm(g, false, batch, M, N, K, &c);
	cmp_add(acc, &c, times);
}

/* The compute streams Transformer Engine spreads a GroupedLinear's
 * per-expert GEMMs over (common/util/multi_stream.h num_compute_streams,
 * TE v2.x): at most this many run side by side. */
#define TE_GEMM_STREAMS 4

/*
 * A Transformer Engine GEMM (forward; bwd: its dgrad and wgrad) with the
 * FP8 casts and transposes that run around it (cmp_fp8_io).
 *
 * MoE experts (sh->per_expert_gemms, batch = the local experts) run as TE's
 * GroupedLinear, which issues one cuBLAS GEMM per expert, round-robin over
 * its compute streams (TE v2.8-v2.18 te_general_grouped_gemm: "For now, we
 * only have multi-stream cublas backend", common/gemm/cublaslt_gemm.cu
 * multi_stream_cublas_gemm), and quantizes each expert's tensor with a
 * kernel of its own except under delayed scaling, which has one fused
 * multi-tensor cast (pytorch/csrc/extensions/cast.cpp
 * multi_tensor_quantize_impl: "Currently only have fused kernel for FP8
 * delayed scaling"); MXFP8's scale swizzles are one multi-tensor kernel
 * an operand (multi_tensor_swizzle_scaling_factors).  The GEMMs take
 * turns over TE_GEMM_STREAMS streams: their time is that of rounds of
 * that many side by side (a batched GEMM of that many, whose waves fill
 * the GPU less than all the experts' at once would), and each is a
 * kernel the host launches (host.h).
 */
static void add_te_gemm(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *acc, enum cmp_te_kind kind, bool bwd,
			double batch, double M, double N, double K)
{
	double calls = sh->per_expert_gemms && batch > 1 ? batch : 1;
	double gemms = bwd ? 2 : 1;

	double k_in = acc->kernels, lib_in = acc->lib_kernels;

	if (calls > TE_GEMM_STREAMS) {
		double rounds = floor(calls / TE_GEMM_STREAMS);
		double rest = calls - rounds * TE_GEMM_STREAMS;
		double k0 = acc->kernels, parts = rounds + (rest > 0);

		add_gemm(g, sh, acc, gemms * rounds, TE_GEMM_STREAMS, M, N, K);
		if (rest > 0)
			add_gemm(g, sh, acc, gemms, rest, M, N, K);
		/* the call's own kernels (swizzles) once, not per round; its
		 * GEMMs per expert, below */
		acc->kernels = k0 + (acc->kernels - k0) / parts;
	} else {
		add_gemm(g, sh, acc, gemms, batch, M, N, K);
	}
	acc->kernels += gemms * (calls - 1);
	if (sh->fp8) {
		struct cmp_cost c;

		cmp_fp8_io(g, sh, kind, bwd, batch * M, N, K, &c);
		if (sh->fp8_scaling != CMP_FP8_DELAYED)
			c.kernels *= calls;
		cmp_add(acc, &c, 1);
	}
	/* one call of the module from Python; the rest of its launches --
	 * the backward's second GEMM, the experts' GEMMs past the first, the
	 * FP8 casts and scale swizzles around them -- come from its C++ */
	acc->lib_kernels = lib_in + (acc->kernels - k_in - 1);
}

static void add_stream(const struct gpu_spec *g, struct cmp_cost *acc,
		       enum kern_stream kind, double bytes)
{
	struct cmp_cost c;

	cmp_stream(g, kind, bytes, &c);
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

/* Attention dropout inside the fused kernel (Megatron's default
 * attention_dropout 0.1; the measured kernels ran without): cuDNN's fused
 * attention on an H200, bf16, sbhd, 4 x 1024 tokens, 16 heads of 128,
 * forward and backward 0.594 ms at p = 0 and 0.614 ms at p = 0.1
 * (NVIDIA/TransformerEngine#3312, TE 2.15, 2026-08): 3.4% longer, taken
 * for both passes and every GPU. */
#define FLASH_DROPOUT 1.034

/* One flash-attention kernel over bh heads of seq tokens, each attending
 * within `window` tokens (0: all before): its time, forward or backward,
 * and its forward FLOPs. */
static void flash_kernel(const struct gpu_spec *g, bool bwd, double bh, double seq,
			 double dh, double window, double *t, double *f)
{
	*t = bwd ? kern_attn_bwd_s(&g->k, bh, seq, dh, window) :
		   kern_attn_fwd_s(&g->k, bh, seq, dh, window);
	*f = kern_attn_fwd_flops(bh, seq, dh, window);
}

/* The FA3 paper's benchmark shape (arXiv:2407.08608 sec. 4.1): 16k tokens
 * a batch, hidden 2048, so 2048 / d heads. */
#define FIG_TOKENS 16384.0
#define FIG_HIDDEN 2048.0

/* The law's time at head dim d over its time at 128 on the figure's
 * shape, where the two do the same FLOPs: what the law already charges a
 * smaller head (more heads, so more query blocks). */
static double law_dim_ratio(const struct gpu_spec *g, bool bwd, double seq, double d)
{
	double s = fmin(fmax(seq, 512), FIG_TOKENS), dd = fmin(fmax(d, 64), 128);
	double t128, td, f;

	flash_kernel(g, bwd, FIG_TOKENS / s * FIG_HIDDEN / 128, s, 128, 0, &t128, &f);
	flash_kernel(g, bwd, FIG_TOKENS / s * FIG_HIDDEN / dd, s, dd, 0, &td, &f);
	return td / t128;
}

/* A head dim below 128 runs slower per FLOP than its FLOPs say: the
 * exponentials and the softmax's rescaling are per score, and a smaller
 * head does fewer FLOPs a score.  The measured laws (all at 128) charge it
 * only through their per-block cost, which on H100/H200 gives the forward
 * 1.03x at head dim 64 where FA3's own bars say 1.38x (the backward 1.21x
 * against 1.20x).  So the law's time is raised to the published slowdown
 * of its kind where it falls short, never lowered: the figure is an H100's,
 * and Blackwell, whose tensor cores per SM doubled while its exponential
 * units did not, can only lose more at a small head (the B200's law
 * already charges 1.45x forward).  1 at 128 and above, and for the A100's
 * law fitted at both head dims. */
static double flash_dim_factor(const struct gpu_spec *g, bool bwd, double seq, double d)
{
	double pub = attn_impl_dim_ratio(g->attn_law, bwd, seq, d);

	return pub == 1 ? 1 : fmax(1, pub / law_dim_ratio(g, bwd, seq, d));
}

/*
 * Ring attention (context parallelism over p2p, Megatron-Core's default
 * cp_comm_type) is cp kernels a pass, not one: Transformer Engine's
 * AttnFuncWithCPAndKVP2P (transformer_engine/pytorch/attention/
 * dot_product_attention/context_parallel.py, TE at d0067d0da, 2026-08;
 * the same loop since TE 1.x) gives each rank two chunks of c = s/(2 cp)
 * tokens (chunks r and 2 cp - 1 - r, for balance), runs step 0 as causal
 * attention over its own two (s/cp tokens, all its heads), and each later
 * step as a full block, no mask, against the chunk pair a neighbour
 * passed on: its s/cp queries against the pair's first chunk (steps i <=
 * r) or its second chunk's c queries against both (i > r) -- 2 c^2 pairs
 * either way, so the work is the 1/cp of the causal sequence it always
 * was, but in kernels over s/cp tokens, whose tiles are shorter.  Taken
 * for the mean rank, half its later steps of each kind.  Each step's
 * output is merged into the running one (flash_attn_fwd_out_correction:
 * the running output and the step's read, the sum written, 6 bytes an
 * element; step 0's scaled copy 4), backward each step's dq added into
 * the running dq and its dk, dv into the buffer the ring passes on (6
 * bytes an element each); a causal rank's second-half steps touch half the
 * rows, so a later step merges 3/4 of them on average.  The loop is
 * Python: the module's call is one framework op, every kernel past the
 * first a launch (host.h).
 */
#define RING_MERGE_B (3 * ACT_BYTES)	/* read running and step, write */
#define RING_FIRST_B (2 * ACT_BYTES)	/* step 0's scaled copy */
#define RING_COVER 0.75			/* rows a later step merges, mean rank */

static void ring_flash(const struct gpu_spec *g, const struct cmp_shape *sh, bool bwd,
		       double dh, struct cmp_cost *c)
{
	double cp = sh->cp, local = sh->s / cp, chunk = local / 2;
	double bh = sh->b * sh->a / sh->tp, kv = sh->kv > 0 ? sh->kv : sh->a;
	double t0, f0, later = cp - 1;
	double ta = kern_attn_block_s(&g->k, bwd, bh, local, chunk, dh);
	double tb = kern_attn_block_s(&g->k, bwd, bh, chunk, local, dh);
	double fblk = kern_attn_block_flops(bh, local, chunk, dh);

	flash_kernel(g, bwd, bh, local, dh, 0, &t0, &f0);
	double attn_s = (t0 + later * (ta + tb) / 2) *
			attn_impl_factor(sh->attn, g->attn_law, bwd, local, dh) *
			flash_dim_factor(g, bwd, local, dh);
	double f = f0 + later * fblk;
	double out_el = sh->b * local * sh->a / sh->tp * head_v(sh);
	double kv_el = sh->b * local * kv / sh->tp * (head_qk(sh) + head_v(sh));
	double merge = bwd ? (out_el + kv_el) * RING_MERGE_B * RING_COVER * later :
			     out_el * (RING_FIRST_B + RING_MERGE_B * RING_COVER * later);
	double merges = bwd ? 2 * later : cp;

	if (sh->dropout)
		attn_s *= FLASH_DROPOUT;
	c->time_s = attn_s + merges * kern_stream_s(&g->k, KS_COPY, merge / merges);
	c->gemm_s = attn_s;
	c->flops = bwd ? 2.5 * f : f;
	c->kernels = cp + merges;
	c->lib_kernels = c->kernels - 1;
	c->dyn_j = kpw_tensor_j(g, c->flops, attn_s) +
		   kpw_stream_j(g, merge, c->time_s - attn_s);
}

/* The causal flash-attention kernel over this rank's b a / t heads: with
 * context parallelism its 1/cp of the causal work (load-balanced chunks),
 * as ring attention's steps (above), or, gathered (all-gather, Ulysses'
 * all-to-all of heads), as 1/cp of the heads over the whole sequence;
 * query/key and value head dimensions that differ (latent attention) as
 * their mean.  A sliding window on a share of the layers (window_frac)
 * makes a layer's kernel that share of the windowed one's and the rest
 * the full one's: the mean layer, exact for a stage whose layers take the
 * pattern evenly (with ring attention too: its steps are not split by
 * window, an approximation no validation row needs). */
static void add_flash(const struct gpu_spec *g, const struct cmp_shape *sh,
		      struct cmp_cost *acc, bool bwd)
{
	double bh = sh->b * sh->a / sh->tp / (sh->cp > 0 ? sh->cp : 1);
	double dh = (head_qk(sh) + head_v(sh)) / 2;
	double w = sh->window > 0 ? sh->window_frac : 0, f;
	struct cmp_cost c;

	if (sh->cp_ring && sh->cp > 1 && w == 0) {
		ring_flash(g, sh, bwd, dh, &c);
		cmp_add(acc, &c, 1);
		return;
	}
	flash_kernel(g, bwd, bh, sh->s, dh, 0, &c.time_s, &f);
	if (w > 0) {
		double tw, fw;
		flash_kernel(g, bwd, bh, sh->s, dh, sh->window, &tw, &fw);
		c.time_s = (1 - w) * c.time_s + w * tw;
		f = (1 - w) * f + w * fw;
	}
	c.time_s *= attn_impl_factor(sh->attn, g->attn_law, bwd, sh->s, dh) *
		    flash_dim_factor(g, bwd, sh->s, dh);
	if (sh->dropout)
		c.time_s *= FLASH_DROPOUT;
	c.gemm_s = c.time_s;
	c.flops = bwd ? 2.5 * f : f;
	c.kernels = 1;
	c.lib_kernels = 0;
	c.dyn_j = kpw_tensor_j(g, c.flops, c.time_s);
	cmp_add(acc, &c, 1);
}

/* Bias-dropout-add forward: fused, one pass reading x, bias and the
 * residual and writing the sum and the mask; eager, dropout then add
 * (the bias rides in the GEMM's epilogue), as measured. */
static void add_bda_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *acc)
{
	double hid = hidden_elems(sh);

	if (!sh->dropout)	/* the residual add alone */
		add_stream(g, acc, sh->fused ? KS_COPY : KS_ADD, hid * 3 * ACT_BYTES);
	else if (sh->fused)
		add_stream(g, acc, KS_COPY, hid * (3 * ACT_BYTES + MASK_BYTES));
	else
		add_stream(g, acc, KS_DROPOUT_ADD, hid * 3 * ACT_BYTES);
}

/* Its backward: read dy and the mask, write dx (and the bias gradient).
 * Without dropout an add's gradient passes through: no kernel.  Fused or
 * eager it is one streaming kernel (eager: native_dropout_backward, dy x
 * mask x scale), priced at the copy rate as the attention dropout's
 * backward is; the measured dropout_add rate is the forward's two kernels
 * (dropout, then add: five tensors moved, three counted) and would charge
 * this one pass twice. */
static void add_bda_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *acc)
{
	if (!sh->dropout)
		return;
	add_stream(g, acc, KS_COPY, hidden_elems(sh) * (2 * ACT_BYTES + MASK_BYTES));
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
	double heads = sh->b * sh->a / sh->tp;
	double scores = heads * qlen(sh) * sh->s;

	add_gemm_bf16(g, acc, 1, heads, qlen(sh), sh->s, head_qk(sh));	/* Q K^T */
	add_softmax(g, sh, acc, scores, false);
	if (sh->dropout)
		add_stream(g, acc, KS_COPY, scores * (2 * ACT_BYTES + MASK_BYTES));	/* dropout */
	add_gemm_bf16(g, acc, 1, heads, qlen(sh), head_v(sh), sh->s);	/* x V */
}

/* The projections into queries, keys and values: one fused QKV GEMM, or
 * latent attention's down and up projections (times = 2 for backward). */
/* QK-norm (Qwen3, OLMo 2): the rank's query and key heads normalised per
 * head after the QKV GEMM, as two norm kernels (Megatron-Core's q_layernorm
 * and k_layernorm, Transformer Engine norms; Hugging Face's q_norm and
 * k_norm): forward x read and y written, backward x and dy read and dx
 * written (the scales' gradients reduced in the same kernel). */
static void qk_norms(const struct gpu_spec *g, const struct cmp_shape *sh,
		     struct cmp_cost *acc, bool bwd)
{
	double T = sh->b * qlen(sh), d = head_qk(sh), passes = bwd ? 3 : 2;

	add_stream(g, acc, KS_LAYERNORM, T * sh->a / sh->tp * d * passes * ACT_BYTES);
	add_stream(g, acc, KS_LAYERNORM, T * kv_heads(sh) / sh->tp * d * passes * ACT_BYTES);
}

/* Rotary position embedding on the rank's query and key heads (latent
 * attention's is fused with its norms, below).  Megatron-Core applies it
 * fused by default (--no-rope-fusion turns it off; megatron/core/models/
 * common/embeddings/rope_utils.py apply_rotary_pos_emb, Transformer
 * Engine's fused RoPE kernel), once to the queries and once to the keys:
 * each element read and written, 4 bytes, forward and backward (the
 * gradient through the rotation).  Eager (Hugging Face's
 * apply_rotary_pos_emb: q cos + rotate_half(q) sin, rotate_half a negated
 * half and a cat) takes five kernels a tensor: the products 4 bytes an
 * element each, the negation 2 (half the elements), the cat 4, the sum 6,
 * 20 in all, and its autograd as many backward.
 *
 * YaRN's tables are scaled by its attention factor (mscale = 1 + 0.1 ln
 * factor: GPT-OSS's factor 32 gives 1.347), which Transformer Engine's
 * fused kernel does not take, so Megatron-Core runs its own unfused
 * _apply_rotary_pos_emb_bshd instead (rope_utils.py: "mscale ... is not
 * supported by TE's fused RoPE. Using unfused implementation", since
 * NVIDIA/Megatron-LM 987395813b, "Fixes for gpt-oss", 2025-11-22; and
 * Megatron-Bridge turns apply_rope_fusion off for any position type but
 * "rope", utils/fusions.py validate_rope_fusion_compatibility, v0.4.0).
 * Per tensor, forward: the tables cos(freqs) * mscale and sin(freqs) *
 * mscale cast to bf16, three small kernels each on the s x d fp32 angles
 * (4 + 4, 4 + 4, 4 + 2 bytes an angle); then t cos, the negated half, the
 * cat, t sin, the sum and the final cat with the (empty) unrotated rest:
 * six kernels, 4 + 2 + 4 + 4 + 6 + 4 = 24 bytes an element.  Backward,
 * autograd: the gradient times cos and times sin, the negation, the
 * chunk's cat, the two paths' sum, and the slice t[..., :d]'s gradient
 * (zeros, then a copy): seven kernels, 4 + 4 + 2 + 4 + 6 + 2 + 4 = 26
 * bytes (the empty rest's own zeros not counted).  Plain PyTorch ops
 * inside a Megatron-Core module: the host pays the eager op's time for
 * them (lib_kernels, host.h), not the stack's per-module op_s, as for
 * expert_bias below. */
#define ROPE_FUSED_B (2 * ACT_BYTES)
#define ROPE_EAGER_B 20.0
#define ROPE_EAGER_KERNELS 5
#define ROPE_MC_FWD_B 24.0
#define ROPE_MC_FWD_KERNELS 6
#define ROPE_MC_BWD_B 26.0
#define ROPE_MC_BWD_KERNELS 7
#define ROPE_MC_TABLE_B 22.0	/* bytes an angle, three kernels a table */

static void rope_kernels(const struct gpu_spec *g, struct cmp_cost *acc, double el,
			 double bytes_per_el, int kernels)
{
	for (int k = 0; k < kernels; k++)
		add_stream(g, acc, KS_COPY, el * bytes_per_el / kernels);
}

static void rotary(const struct gpu_spec *g, const struct cmp_shape *sh, struct cmp_cost *acc,
		   bool bwd)
{
	double T = sh->b * qlen(sh), d = head_qk(sh);
	double el[2] = { T * sh->a / sh->tp * d, T * kv_heads(sh) / sh->tp * d };

	for (int i = 0; i < 2; i++) {
		if (!sh->fused) {
			rope_kernels(g, acc, el[i], ROPE_EAGER_B, ROPE_EAGER_KERNELS);
		} else if (!sh->rotary_scaled) {
			add_stream(g, acc, KS_COPY, el[i] * ROPE_FUSED_B);
		} else {
			double k_in = acc->kernels, lib_in = acc->lib_kernels;

			if (bwd) {
				rope_kernels(g, acc, el[i], ROPE_MC_BWD_B, ROPE_MC_BWD_KERNELS);
			} else {
				for (int table = 0; table < 2; table++)
					rope_kernels(g, acc, qlen(sh) * d, ROPE_MC_TABLE_B, 3);
				rope_kernels(g, acc, el[i], ROPE_MC_FWD_B, ROPE_MC_FWD_KERNELS);
			}
			acc->lib_kernels = lib_in + (acc->kernels - k_in);
		}
	}
}

/* Megatron's fused QKV output holds each query group's queries, key and
 * value side by side ([s, b, groups, (heads/groups + 2) d]); under
 * grouped-query attention the queries split off it are not laid out as
 * [s, b, heads, d], so the reshape that makes them so copies them
 * (megatron/core/transformer/attention.py get_query_key_value_tensors:
 * query.reshape(..., -1, head_dim) after the split; a view for plain
 * multi-head attention, one query a group).  Forward only: its gradient
 * reshapes back as a view. */
static void gqa_query_copy(const struct gpu_spec *g, const struct cmp_shape *sh,
			   struct cmp_cost *acc)
{
	add_stream(g, acc, KS_COPY, sh->b * qlen(sh) * sh->a / sh->tp * head_qk(sh) * 2 * ACT_BYTES);
}

static void qkv_gemms(const struct gpu_spec *g, const struct cmp_shape *sh,
		      struct cmp_cost *acc, bool bwd)
{
	double T = sh->b * qlen(sh), h = sh->h, t = sh->tp, a = sh->a;
	double times = bwd ? 2 : 1;

	if (sh->kv_lora <= 0) {
		add_te_gemm(g, sh, acc, CMP_TE_LN_COL, bwd, 1, T, (a + 2 * kv_heads(sh)) * head_qk(sh) / t, h);
		if (sh->fused && !bwd && kv_heads(sh) < a)
			gqa_query_copy(g, sh, acc);
		if (sh->qk_norm)
			qk_norms(g, sh, acc, bwd);
		if (sh->rotary)
			rotary(g, sh, acc, bwd);
		return;
	}
	double dqk = head_qk(sh), nope = dqk - sh->rope;

	if (sh->q_lora > 0) {
		add_te_gemm(g, sh, acc, CMP_TE_COL, bwd, 1, T, sh->q_lora, h);		/* W^DQ */
		add_te_gemm(g, sh, acc, CMP_TE_COL, bwd, 1, T, a * dqk / t, sh->q_lora);	/* W^UQ */
	} else {
		add_te_gemm(g, sh, acc, CMP_TE_COL, bwd, 1, T, a * dqk / t, h);		/* W^Q */
	}
	add_te_gemm(g, sh, acc, CMP_TE_COL, bwd, 1, T, sh->kv_lora + sh->rope, h);	/* W^DKV */
	add_te_gemm(g, sh, acc, CMP_TE_COL, bwd, 1, T, a * (nope + head_v(sh)) / t, sh->kv_lora);
	/* the norms of the latents, fused with rotary embedding */
	add_stream(g, acc, KS_LAYERNORM, T * (sh->q_lora + sh->kv_lora) * (times + 1) *
		   ACT_BYTES);
}

/*
 * The MLP's activation over n outputs (rows x its width f), forward or
 * backward, as the stack runs it: one fused kernel (bias-GeLU; SwiGLU
 * reading up and gate, 2f, writing f) or the eager GeLU.
 *
 * Routed experts on Megatron-Core 0.12+ TEGroupedMLP's eager path (weighted:
 * experts.py bias_act_func, core_r0.12.0 to 2026; it has fused kernels
 * that also apply the router's weights for SwiGLU alone) run the
 * activation's own kernels (GeGLU: the GeLU of the gate half, then its
 * product with the linear half), then `intermediate * permuted_probs`:
 * the probabilities are fp32, so the product is written in fp32, and
 * `.to(original_dtype)` casts it back.  Bytes per output, each op one
 * streaming kernel:
 *   forward   GeLU 2 + 2, [GeGLU product 2 + 2 + 2], weight product
 *             2 + 4, cast 4 + 2: 16 (GeGLU 22)
 *   backward  the cast's gradient to fp32 2 + 4; the product's: its
 *             input's, g w, 4 + 4 cast to bf16 by autograd 4 + 2, and the
 *             weights', sum(g x), 4 + 2 + 4 then the row sum 4; [GeGLU:
 *             the two factors' 2 + 2 + 2 each, the halves' gradients joined
 *             for the up GEMM 4 + 4]; GeLU's 2 + 2 + 2: 40 (GeGLU 60)
 * (In core_r0.15 on GeGLU adds `x_linear + glu_linear_offset`, one more
 * pass, not counted.)  Before 0.12 the dispatcher's unpermute applied the
 * weights, as the fused kernels still do.
 */
static void mlp_act(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *acc, bool backward, double n, bool weighted)
{
	double b = ACT_BYTES, f32 = 2 * ACT_BYTES;

	if (!weighted) {
		add_stream(g, acc, sh->fused ? KS_COPY : KS_GELU,
			   n * (backward ? (sh->gated ? 5 : 3) : (sh->gated ? 3 : 2)) * b);
		return;
	}
	if (!backward) {
		add_stream(g, acc, KS_GELU, n * 2 * b);
		if (sh->gated)
			add_stream(g, acc, KS_ADD, n * 3 * b);
		add_stream(g, acc, KS_COPY, n * (b + f32));	/* x w, fp32 */
		add_stream(g, acc, KS_COPY, n * (f32 + b));	/* to bf16 */
		return;
	}
	add_stream(g, acc, KS_COPY, n * (b + f32));		/* the cast's */
	add_stream(g, acc, KS_COPY, n * 2 * f32);		/* g w */
	add_stream(g, acc, KS_COPY, n * (f32 + b));		/* to bf16 */
	add_stream(g, acc, KS_ADD, n * (2 * f32 + b));		/* g x */
	add_stream(g, acc, KS_COPY, n * f32);			/* its row sums */
	if (sh->gated) {
		add_stream(g, acc, KS_ADD, n * 3 * b);	/* d gate act */
		add_stream(g, acc, KS_ADD, n * 3 * b);	/* d linear half */
		add_stream(g, acc, KS_COPY, n * 4 * b);	/* joined: d up */
	}
	add_stream(g, acc, KS_GELU, n * 3 * b);
}

/* The MLP's first GEMM, activation and second GEMM of width f, forward:
 * h -> f and (bias-)GeLU, or h -> 2f (up and gate) and SwiGLU, which reads
 * 2f and writes f (priced as GeLU's kind of kernel); weighted: routed
 * experts, whose activation may take the eager path (mlp_act). */
static void mlp_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *acc, enum cmp_te_kind up_kind, double batch,
		    double M, double f, bool weighted)
{
	double h = sh->h, t = sh->tp, up = sh->gated ? 2 * f : f;

	add_te_gemm(g, sh, acc, up_kind, false, batch, M, up / t, h);
	mlp_act(g, sh, acc, false, batch * M * f / t, weighted && sh->moe_eager_act);
	add_te_gemm(g, sh, acc, CMP_TE_ROW, false, batch, M, h, f / t);
}

/* Its backward: GeLU x, dy -> dx; SwiGLU up, gate, dy -> d up, d gate. */
static void mlp_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *acc, enum cmp_te_kind up_kind, double batch,
		    double M, double f, bool weighted)
{
	double h = sh->h, t = sh->tp, up = sh->gated ? 2 * f : f;

	add_te_gemm(g, sh, acc, CMP_TE_ROW, true, batch, M, h, f / t);
	mlp_act(g, sh, acc, true, batch * M * f / t, weighted && sh->moe_eager_act);
	add_te_gemm(g, sh, acc, up_kind, true, batch, M, up / t, h);
}

/* Expert tensor parallelism: each expert's weights over etp ranks. */
static double expert_tp(const struct cmp_shape *sh)
{
	return sh->etp > 0 ? sh->etp : sh->tp;
}

/* Tokens each of the busiest rank's experts takes: k / E of the tokens of
 * its EP group's ep ranks, each holding etp / tp of the T (the sequence-
 * parallel shards an expert-TP group gathers), times the load of the
 * busiest expert: ep T k / E when etp = tp. */
static double expert_tokens(const struct cmp_shape *sh)
{
	double ep = sh->ep > 0 ? sh->ep : 1, load = sh->load > 0 ? sh->load : 1;

	return ep * sh->b * qlen(sh) * expert_tp(sh) / sh->tp * sh->topk /
	       sh->experts * load;
}

/* An MoE layer's MLP after the router: permute, grouped experts,
 * unpermute, shared experts.  backward: the GEMMs twice, the streams'
 * gradients.
 *
 * Megatron-Core's all-to-all dispatcher (MoEAlltoAllTokenDispatcher,
 * megatron/core/transformer/moe/token_dispatcher.py, core_r0.8.0 to main
 * of 2026-08) moves each token-expert pair twice more when a rank holds
 * more than one expert: the all-to-all delivers the pairs grouped by
 * source rank, so the dispatcher sorts them by local expert ("Permutation
 * 2": a second permute in core_r0.8.0, sort_chunks_by_idxs since
 * core_r0.9.0, a gather of every received row, one kernel fused or
 * torch.cat's one unfused) and restores the order before the combine
 * ("Unpermutation 2"); with drop-and-pad a transpose made contiguous,
 * the same copy.  Their gradients are the same sorts.
 * The flex dispatcher with DeepEP lays tokens out by expert in one permute
 * after its fused dispatch (get_permuted_hidden_states_by_experts) and
 * restores them in one before its combine: the two copies counted for
 * every dispatcher but HybridEP with its permute fused
 * (sh->ep_fused_permute; Megatron-Core's moe_permute_fusion_into_hybridep,
 * Megatron-LM PR #4089, 2026-04-28: HybridEPBuffer.dispatch_with_permute
 * with fuse_permute_dispatch, and fuse_unpermute_combine), whose dispatch
 * kernel writes the received tokens in expert order and whose combine
 * reads them so.  Unfused, HybridEP's dispatch_with_permute still runs the
 * permute as kernels of its own: the two copies, as DeepEP's. */
/*
 * Biased routed experts (GPT-OSS) under expert loops: the second GEMM
 * leaves its bias out so that the router's weight p scales it with the
 * output, out = y + b p, and that runs after the GEMM in eager PyTorch:
 * Megatron-Core's TEGroupedMLP._apply_bias (NVIDIA/Megatron-LM experts.py,
 * "Enable bias in expert mlp", a329dd6da5 of 2025-09-22) loops over the
 * local experts, `t + b * p` on each one's rows, then torch.cat and
 * .to(bf16), and autograd runs the loop's backward the same way (since
 * 883533e049, 2026-08-14, a packed form runs the ops once on all rows,
 * the bias repeated per token in the cat's place: the same bytes, 4
 * kernels forward and 6 backward, not modelled apart).  The weights are
 * fp32, so the product and the sum are written in fp32.  Bytes per output
 * element:
 *   forward   per expert b p (4 out) and y + b p (2 + 4 in, 4 out); the
 *             cat 4 + 4; the cast 4 + 2: 28
 *   backward  the cast's gradient to fp32 2 + 4 and y's cast back 4 + 2;
 *             per expert b's row sum of g p (4 + 4, then 4) and p's sum
 *             over h of g b (4 + 4, then 4): 36
 * Plain PyTorch ops, not a Transformer Engine module's: their host time is
 * the eager op's (lib_kernels, host.h), not the stack's op_s.
 */
static void expert_bias(const struct gpu_spec *g, struct cmp_cost *acc, bool backward,
			double local, double elems)
{
	int n = local >= 1 ? (int)local : 1;
	double per = elems / n, k_in = acc->kernels, lib_in = acc->lib_kernels;

	if (backward) {
		add_stream(g, acc, KS_COPY, elems * (ACT_BYTES + F32_BYTES));	/* d cast */
		add_stream(g, acc, KS_COPY, elems * (F32_BYTES + ACT_BYTES));	/* dy */
	}
	for (int e = 0; e < n; e++) {
		if (backward) {
			add_stream(g, acc, KS_COPY, per * 2 * F32_BYTES);	/* g p */
			add_stream(g, acc, KS_COPY, per * F32_BYTES);		/* db */
			add_stream(g, acc, KS_COPY, per * 2 * F32_BYTES);	/* g b */
			add_stream(g, acc, KS_COPY, per * F32_BYTES);		/* dp */
		} else {
			add_stream(g, acc, KS_COPY, per * F32_BYTES);		/* b p */
			add_stream(g, acc, KS_ADD, per * (ACT_BYTES + 2 * F32_BYTES));
		}
	}
	if (!backward) {
		add_stream(g, acc, KS_COPY, elems * 2 * F32_BYTES);		/* cat */
		add_stream(g, acc, KS_COPY, elems * (F32_BYTES + ACT_BYTES));	/* cast */
	}
	acc->lib_kernels = lib_in + (acc->kernels - k_in);
}

/*
 * FP8 (and FP4) experts' padding copies.  Quantized GEMMs need each
 * expert's rows in a multiple of the alignment, 16 (MXFP8 32, NVFP4 128:
 * Megatron-Core fp8_utils.py get_fp8_align_size, fp4_utils.py
 * get_fp4_align_size).  Dropless routing gives counts that are not, so
 * Megatron-Core's TEGroupedMLP pads them (experts.py since core_r0.10.0,
 * "Enable FP8 for TEGroupedMLP", 2024-10-29): Transformer Engine's
 * Fp8Padding copies the permuted tokens into a padded buffer
 * (transformer_engine/pytorch/module/fp8_padding.py, fused_multi_row_
 * padding) and pads the router's weights beside them, and Fp8Unpadding
 * copies the output back without the pad rows (fp8_unpadding.py, a
 * torch.cat of the slices); backward, their gradients make the same two
 * copies the other way.  Both return their input untouched when every
 * count is aligned: when the router padded the routing map
 * (parallel.moe_router_padding), when HybridEP's dispatch did (its
 * pad_multiple, set whenever FP8 or FP4 is on: token_dispatcher.py
 * _HybridEPManager since 2025-11-18), or under drop and pad, whose fixed
 * count per expert is aligned when it is a multiple of the alignment.
 * Each copy reads and writes a routed row of h in bf16, 4 bytes an
 * element, at the copy rate (an assumption: one streaming kernel), each
 * module call a framework op.
 * Held out: Megatron-LM's MoE-layer test (make validate, LAYER) routes by
 * random logits, so its counts are unaligned; its FP8 passes cost 0.74 ms
 * forward and 0.75 backward more over BF16 with the all-to-all
 * dispatcher than with HybridEP on the DeepSeek proxy (0.10 and 0.10 on
 * Mixtral's), where these copies give 0.663 (0.105) each way.
 * SequentialMLP pads by a torch.cat of each expert's tokens and slices
 * its output (one copy forward, its gradient's backward): not told
 * apart, its scenarios are charged the grouped module's two.
 */
static void moe_pad_copies(const struct gpu_spec *g, const struct cmp_shape *sh,
			   struct cmp_cost *acc, double routed, double per_expert)
{
	double align = sh->fp8_scaling == CMP_FP4_NV ? 128 : sh->fp8_scaling == CMP_FP8_MX ? 32 : 16;

	if (!sh->moe_pad_copies || (sh->capacity && fmod(per_expert, align) == 0))
		return;
	add_stream(g, acc, KS_COPY, routed * sh->h * 2 * ACT_BYTES);	/* pad */
	add_stream(g, acc, KS_COPY, routed * 2 * F32_BYTES);		/* weights' */
	add_stream(g, acc, KS_COPY, routed * sh->h * 2 * ACT_BYTES);	/* unpad */
}

static void moe_routed(const struct gpu_spec *g, const struct cmp_shape *sh,
		       struct cmp_cost *acc, bool backward)
{
	double T = sh->b * qlen(sh), h = sh->h, ep = sh->ep > 0 ? sh->ep : 1;
	double local = sh->experts / ep, M = expert_tokens(sh);
	double routed = local * M;	/* token-expert pairs on this rank */
	struct cmp_shape xs = *sh;	/* the experts' GEMMs split over etp */

	xs.tp = (int)expert_tp(sh);
	if (!sh->ep_fused_permute)
		add_stream(g, acc, KS_COPY, routed * h * 2 * ACT_BYTES);	/* permute */
	if (sh->ep_sort && local > 1)
		add_stream(g, acc, KS_COPY, routed * h * 2 * ACT_BYTES);	/* sort */
	moe_pad_copies(g, sh, acc, routed, M);
	if (backward)
		mlp_bwd(g, &xs, acc, CMP_TE_COL, local, M, sh->fe, true);
	else
		mlp_fwd(g, &xs, acc, CMP_TE_COL, local, M, sh->fe, true);
	if (sh->bias && sh->per_expert_gemms)
		expert_bias(g, acc, backward, local, routed * h);
	if (sh->ep_sort && local > 1)
		add_stream(g, acc, KS_COPY, routed * h * 2 * ACT_BYTES);	/* unsort */
	if (!sh->ep_fused_permute)
		add_stream(g, acc, KS_COPY, routed * h * 2 * ACT_BYTES);	/* unpermute */
	if (sh->shared > 0) {
		if (backward)
			mlp_bwd(g, sh, acc, CMP_TE_COL, 1, T, sh->shared * sh->fe, false);
		else
			mlp_fwd(g, sh, acc, CMP_TE_COL, 1, T, sh->shared * sh->fe, false);
	}
}

/* An MoE layer's MLP: the router, then the routed part. */
static void moe_mlp(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *acc, bool backward)
{
	add_gemm_bf16(g, acc, backward ? 2 : 1, 1, sh->b * qlen(sh), sh->experts, sh->h);
	moe_routed(g, sh, acc, backward);
}

void cmp_moe_mlp(const struct gpu_spec *g, const struct cmp_shape *sh, bool backward,
		 struct cmp_cost *out)
{
	cmp_zero(out);
	if (sh->experts > 0)
		moe_mlp(g, sh, out, backward);
}

void cmp_moe_routed_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *out)
{
	cmp_zero(out);
	if (sh->experts > 0)
		moe_routed(g, sh, out, false);
}

void cmp_moe_routed_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			struct cmp_cost *out)
{
	cmp_zero(out);
	if (sh->experts > 0)
		moe_routed(g, sh, out, true);
}

/* A layer's second half (cmp_mlp_half) into acc: the forward's last
 * kernels, the backward's first. */
static void mlp_half(const struct gpu_spec *g, const struct cmp_shape *sh,
		     struct cmp_cost *out, bool backward)
{
	double T = sh->b * qlen(sh), hid = hidden_elems(sh);

	if (backward)
		add_bda_bwd(g, sh, out);
	else
		add_stream(g, out, KS_LAYERNORM, hid * 2 * ACT_BYTES);
	if (sh->experts > 0)
		moe_mlp(g, sh, out, backward);
	else if (backward)
		mlp_bwd(g, sh, out, CMP_TE_LN_COL, 1, T, ffn(sh), false);
	else
		mlp_fwd(g, sh, out, CMP_TE_LN_COL, 1, T, ffn(sh), false);
	if (backward)
		add_stream(g, out, KS_LAYERNORM, hid * 3 * ACT_BYTES);
	else
		add_bda_fwd(g, sh, out);
}

void cmp_mlp_half(const struct gpu_spec *g, const struct cmp_shape *sh, bool backward,
		  struct cmp_cost *out)
{
	cmp_zero(out);
	mlp_half(g, sh, out, backward);
}

void cmp_layer_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h, t = sh->tp;
	double hid = hidden_elems(sh);

	cmp_zero(out);
	add_stream(g, out, KS_LAYERNORM, hid * 2 * ACT_BYTES);		/* LN */
	qkv_gemms(g, sh, out, false);					/* QKV */
	if (sh->flash)
		add_flash(g, sh, out, false);
	else
		attn_core_fwd(g, sh, out);
	add_te_gemm(g, sh, out, CMP_TE_ROW, false, 1, T, h, sh->a * head_v(sh) / t);	/* proj */
	add_bda_fwd(g, sh, out);
	mlp_half(g, sh, out, false);					/* LN, MLP, add */
}

/* Backward passes an eager model's autograd runs beside the GEMMs and the
 * kernels above (PyTorch 2.x; the GPT modules of nanoGPT, Hugging Face and
 * llm-foundry), in the layer's activation dtype:
 *   bias grads   each nn.Linear with a bias runs as addmm over the flattened
 *                tokens; its derivative for the broadcast bias is the
 *                output gradient summed over them (tools/autograd/
 *                derivatives.yaml, addmm: "self: maybe_multiply(grad,
 *                beta)", reduced by sum_to to the bias's shape): one
 *                reduction kernel per linear reading its T x N gradient,
 *                QKV, projection and the MLP's two;
 *   norm params  layer_norm_backward computes dgamma and dbeta in a kernel
 *                of its own (aten/src/ATen/native/cuda/layer_norm_kernel.cu,
 *                GammaBetaBackward after the dX kernel) that reads x and dy
 *                again: 2 elements' bytes per element, each of two norms;
 *   split cat    the fused QKV output is split (q, k, v = qkv.split(...);
 *                MPT's chunk), whose backward (SplitBackward0) concatenates
 *                the three gradients into one tensor: 2 x (3 h) elements'
 *                bytes per token, one kernel.
 * Megatron's stacks run the same three (its linear layers' grad_output.sum,
 * apex's cuComputeGradGammaBeta, split_tensor_along_last_dim's backward),
 * but are not charged there: Table 1, the A100 calibration, was fitted
 * without them, and adding them means refitting its two constants. */
static void add_eager_bwd_extras(const struct gpu_spec *g, const struct cmp_shape *sh,
				 struct cmp_cost *acc)
{
	double T = sh->b * qlen(sh), t = sh->tp, h = sh->h;
	double qkv = (sh->a + 2 * kv_heads(sh)) * head_qk(sh) / t;

	if (sh->fused)
		return;
	if (sh->bias) {
		double up = (sh->gated ? 2 : 1) * ffn(sh) / t;
		double widths[] = { qkv, h, up, h };
		for (size_t i = 0; i < sizeof widths / sizeof widths[0]; i++)
			add_stream(g, acc, KS_COPY, T * widths[i] * ACT_BYTES);
	}
	for (int i = 0; i < 2; i++)
		add_stream(g, acc, KS_LAYERNORM, hidden_elems(sh) * 2 * ACT_BYTES);
	if (sh->kv_lora <= 0)
		add_stream(g, acc, KS_COPY, T * qkv * 2 * ACT_BYTES);
}

void cmp_layer_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h, t = sh->tp;
	double hid = hidden_elems(sh);
	double heads = sh->b * sh->a / sh->tp;
	double scores = heads * qlen(sh) * sh->s;

	cmp_zero(out);
	mlp_half(g, sh, out, true);					/* add, MLP, LN */
	add_bda_bwd(g, sh, out);
	add_te_gemm(g, sh, out, CMP_TE_ROW, true, 1, T, h, sh->a * head_v(sh) / t);	/* proj */
	if (sh->flash) {
		add_flash(g, sh, out, true);
	} else {
		add_gemm_bf16(g, out, 2, heads, qlen(sh), head_v(sh), sh->s);	/* x V */
		if (sh->dropout)	/* its mask applied to dy */
			add_stream(g, out, KS_COPY, scores * (2 * ACT_BYTES + MASK_BYTES));
		add_softmax(g, sh, out, scores, true);			/* y, dy -> dx */
		add_gemm_bf16(g, out, 2, heads, qlen(sh), sh->s, head_qk(sh));	/* Q K^T */
	}
	qkv_gemms(g, sh, out, true);					/* QKV */
	add_stream(g, out, KS_LAYERNORM, hid * 3 * ACT_BYTES);		/* LN */
	add_eager_bwd_extras(g, sh, out);
}

double cmp_attn_core_s(const struct gpu_spec *g, const struct cmp_shape *sh,
		       bool backward)
{
	struct cmp_cost c;

	cmp_zero(&c);
	if (sh->flash)
		add_flash(g, sh, &c, backward);
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

void cmp_module_recompute(const struct gpu_spec *g, const struct cmp_shape *sh,
			  unsigned mods, struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), t = sh->tp, a = sh->a;
	double hid = hidden_elems(sh);
	bool moe = sh->experts > 0;

	cmp_zero(out);
	if (mods & CMP_RC_LAYERNORM)
		add_stream(g, out, KS_LAYERNORM, 2 * hid * 2 * ACT_BYTES);
	if ((mods & CMP_RC_MLA_UP_PROJ) && sh->kv_lora > 0) {
		double dqk = head_qk(sh), nope = dqk - sh->rope;
		if (sh->q_lora > 0)
			add_te_gemm(g, sh, out, CMP_TE_COL, false, 1, T, a * dqk / t, sh->q_lora);
		add_te_gemm(g, sh, out, CMP_TE_COL, false, 1, T, a * (nope + head_v(sh)) / t,
			    sh->kv_lora);
	}
	if ((mods & CMP_RC_MLP) && !moe)
		mlp_fwd(g, sh, out, CMP_TE_COL, 1, T, ffn(sh), false);
	if ((mods & CMP_RC_MOE) && moe) {
		struct cmp_shape xs = *sh;	/* moe_mlp with the shared part
						 * counted below, once */
		xs.shared = 0;
		moe_mlp(g, &xs, out, false);
	} else if ((mods & CMP_RC_MOE_ACT) && moe) {
		double ep = sh->ep > 0 ? sh->ep : 1, f = sh->fe;
		mlp_act(g, sh, out, false, sh->experts / ep * expert_tokens(sh) * f /
			expert_tp(sh), sh->moe_eager_act);
	}
	if ((mods & (CMP_RC_SHARED_EXPERTS | CMP_RC_MOE)) && moe && sh->shared > 0)
		mlp_fwd(g, sh, out, CMP_TE_COL, 1, T, sh->shared * sh->fe, false);
}

void cmp_embed_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h;

	cmp_zero(out);
	add_stream(g, out, KS_COPY, T * h * 2 * ACT_BYTES);	/* vocab-parallel gather */
	/* position add and embedding dropout */
	add_bda_fwd(g, sh, out);
}

void cmp_embed_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		   struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h;

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
 * PyTorch under AMP (autocast runs cross_entropy in fp32: PyTorch AMP docs,
 * "CUDA Ops that can autocast to float32"): the cast (2 in, 4 out), then
 * log_softmax reading and writing fp32 (8), 14 bytes in two kernels;
 * backward nll_loss_backward zero-fills the fp32 gradient (4) before its
 * scatter, log_softmax_backward reads dy and y and writes dx (12), and the
 * cast's backward returns bf16 (4 + 2): 22 bytes in three (ATen's CUDA
 * NLLLoss and SoftMax kernels, PyTorch 2.x). */
/* flash-attn's CrossEntropyLoss (flash_attn/losses/cross_entropy.py,
 * v1.0.x, over the xentropy_cuda_lib extension, apex's
 * SoftmaxCrossEntropyLoss kernels; llm-foundry's loss_fn:
 * fused_crossentropy, its default): forward one kernel reading the bf16
 * logits (2 bytes; its second pass over a row, 100 KB at V = 50k, taken
 * from L2) and writing a loss and a log-sum-exp per row; backward one
 * kernel reading them again and writing the bf16 gradient (2 + 2).
 * Training metrics (Composer's Trainer._eval_train_metrics, v0.16, after
 * each microbatch's backward, under no_grad and autocast; llm-foundry's
 * MPT registers LanguageCrossEntropy and LanguagePerplexity, each a
 * torch.nn.CrossEntropyLoss of its own, composer/metrics/nlp.py): each the
 * autocast loss forward above, cast and log_softmax in fp32, 14 bytes per
 * logit in two kernels. */
#define XENT_FWD_BYTES 2.0
#define XENT_BWD_BYTES 4.0
/* Transformer Engine's fused cross-entropy (transformer_engine/pytorch/
 * triton/cross_entropy.py, 2026; Megatron-Core's cross_entropy_loss_fusion
 * with cross_entropy_fusion_impl "te"): forward, online_softmax_kernel
 * reads the bf16 logits for each row's max and sum (2 bytes), then
 * cross_entropy_kernel reads them again and writes the loss and an fp32
 * gradient ("so it is not quantized before backward": 2 + 4); backward,
 * element_mul_kernel scales that gradient in place by the per-token loss
 * gradient (4 + 4; skipped only when it is the scalar 1.0, which Megatron's
 * per-token losses are not), and autograd casts it to the bf16 logits'
 * type for the output layer (4 + 2).  Row-wise passes over the vocabulary
 * priced as the row softmax, the in-place multiply and the cast as copies.
 * Earlier TE releases wrote the gradient in place in bf16 (fewer bytes):
 * not modelled. */
#define TE_XENT_SCAN_BYTES 2.0
#define TE_XENT_GRAD_BYTES (ACT_BYTES + F32_BYTES)
#define TE_XENT_SCALE_BYTES (2 * F32_BYTES)
#define TE_XENT_CAST_BYTES (F32_BYTES + ACT_BYTES)
#define METRIC_CE_BYTES_CAST (ACT_BYTES + F32_BYTES)
#define METRIC_CE_BYTES_LSM (2 * F32_BYTES)

static const double mg_loss_fwd_bytes[] = { 6, 4, 8, 8, 4, 8 };
static const double mg_loss_bwd_bytes[] = { 8, 6 };

static void add_loss_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			 double logits, struct cmp_cost *out)
{
	for (int i = 0; i < (int)sh->metric_ce; i++) {
		add_stream(g, out, KS_COPY, logits * METRIC_CE_BYTES_CAST);
		add_stream(g, out, KS_SOFTMAX, logits * METRIC_CE_BYTES_LSM);
	}
	if (sh->loss == CMP_LOSS_TE) {
		add_stream(g, out, KS_SOFTMAX, logits * TE_XENT_SCAN_BYTES);
		add_stream(g, out, KS_SOFTMAX, logits * TE_XENT_GRAD_BYTES);
		return;
	}
	if (!sh->fused && sh->loss == CMP_LOSS_XENTROPY) {
		add_stream(g, out, KS_SOFTMAX, logits * XENT_FWD_BYTES);
		return;
	}
	if (!sh->fused) {
		if (sh->fp32_logits)	/* the cast, then log_softmax in fp32 */
			add_stream(g, out, KS_COPY, logits * (ACT_BYTES + F32_BYTES));
		add_stream(g, out, KS_SOFTMAX, logits * (sh->fp32_logits ? 2 * F32_BYTES :
							 ACT_BYTES + 2 * F32_BYTES));
		return;
	}
	for (size_t i = 0; i < sizeof mg_loss_fwd_bytes / sizeof mg_loss_fwd_bytes[0]; i++)
		add_stream(g, out, KS_COPY, logits * mg_loss_fwd_bytes[i]);
}

static void add_loss_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
			 double logits, struct cmp_cost *out)
{
	if (sh->loss == CMP_LOSS_TE) {
		add_stream(g, out, KS_COPY, logits * TE_XENT_SCALE_BYTES);
		add_stream(g, out, KS_COPY, logits * TE_XENT_CAST_BYTES);
		return;
	}
	if (!sh->fused && sh->loss == CMP_LOSS_XENTROPY) {
		add_stream(g, out, KS_SOFTMAX, logits * XENT_BWD_BYTES);
		return;
	}
	if (!sh->fused && sh->fp32_logits) {
		add_stream(g, out, KS_COPY, logits * F32_BYTES);	/* nll_loss: zeros */
		add_stream(g, out, KS_COPY, logits * 3 * F32_BYTES);	/* log_softmax */
		add_stream(g, out, KS_COPY, logits * (F32_BYTES + ACT_BYTES));	/* cast */
		return;
	}
	if (!sh->fused) {
		add_stream(g, out, KS_COPY, logits * (F32_BYTES + ACT_BYTES));	/* softmax - onehot */
		return;
	}
	for (size_t i = 0; i < sizeof mg_loss_bwd_bytes / sizeof mg_loss_bwd_bytes[0]; i++)
		add_stream(g, out, KS_COPY, logits * mg_loss_bwd_bytes[i]);
}

void cmp_logits_fwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h, vt = sh->V / sh->tp;

	cmp_zero(out);
	add_stream(g, out, KS_LAYERNORM, hidden_elems(sh) * 2 * ACT_BYTES);	/* final LN */
	add_gemm_bf16(g, out, 1, 1, T, vt, h);				/* logits */
	add_loss_fwd(g, sh, T * vt, out);
}

void cmp_logits_bwd(const struct gpu_spec *g, const struct cmp_shape *sh,
		    struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h, vt = sh->V / sh->tp;

	cmp_zero(out);
	add_loss_bwd(g, sh, T * vt, out);
	add_gemm_bf16(g, out, 2, 1, T, vt, h);
	add_stream(g, out, KS_LAYERNORM, hidden_elems(sh) * 3 * ACT_BYTES);	/* final LN */
}

void cmp_grad_accum(const struct gpu_spec *g, double params, double bytes_per_param,
		    struct cmp_cost *out)
{
	cmp_stream(g, KS_COPY, params * bytes_per_param, out);
}

double cmp_adam_s(const struct gpu_spec *g, double params, double moment_bytes,
		  enum cmp_adam_master master)
{
	/* two moments, in and out */
	double bytes = adam_fixed_bytes[master] + 2 * 2 * moment_bytes;

	return kern_stream_s(&g->k, KS_ADAM, params * bytes);
}

/* Transformer Engine's userbuffers overlap splits a GEMM into `chunks`
 * GEMMs of T/chunks rows, issued round-robin on UB_STREAMS compute streams
 * (TE v1.8 comm_gemm_overlap.h: num_max_streams = 3), so up to three run
 * at once when their data are there (taken as always: a lower bound on the
 * cost).  The extra time: the law's chunked over whole time, applied to the
 * whole GEMM's (its measured residual kept).  The extra chunks are launched
 * by TE's C++ loop, not from Python (common/comm_gemm_overlap/
 * comm_gemm_overlap.cpp: split_overlap_ag and split_overlap_rs call
 * nvte_cublas_gemm once a chunk in a for loop, TE v1.8 to 2026): library
 * launches for the host (host.h), as the Python call counts once. */
#define UB_STREAMS 3.0

static void add_ub_split(const struct gpu_spec *g, const struct cmp_shape *sh,
			 struct cmp_cost *acc, double chunks, double M, double N, double K)
{
	const struct kern_gemm_law *law = sh->fp8 ? &g->k.fp8 : &g->k.bf16;
	double st = fmin(UB_STREAMS, chunks);
	double whole = kern_gemm_law_s(&g->k, law, 1, M, N, K);
	double split = chunks / st * kern_gemm_law_s(&g->k, law, st, M / chunks, N, K);
	struct cmp_cost c;

	if (chunks <= 1 || whole <= 0)
		return;
	cmp_te_gemm(g, sh, 1, M, N, K, &c);
	c.time_s *= split / whole - 1;
	c.gemm_s = c.time_s;
	c.flops = 0;
	c.dyn_j = 0;	/* the same work, slower: no more energy */
	c.kernels = chunks - 1;
	c.lib_kernels = chunks - 1;
	cmp_add(acc, &c, 1);
}

void cmp_ub_splits(const struct gpu_spec *g, const struct cmp_shape *sh, bool bwd,
		   struct cmp_cost *out)
{
	double T = sh->b * qlen(sh), h = sh->h, t = sh->tp, a = sh->a, f = ffn(sh);
	double up = sh->gated ? 2 * f : f, proj_k = a * head_v(sh) / t;
	bool dense = sh->experts <= 0, plain_qkv = sh->kv_lora <= 0;

	cmp_zero(out);
	if (sh->tp <= 1)
		return;
	if (!bwd) {
		/* ring_exchange all-gathers: tp chunks; pipeline
		 * reduce-scatters: num_splits = 4 */
		if (plain_qkv)
			add_ub_split(g, sh, out, t, T, (a + 2 * kv_heads(sh)) * head_qk(sh) / t, h);
		add_ub_split(g, sh, out, 4, T, h, proj_k);
		if (dense) {
			add_ub_split(g, sh, out, t, T, up / t, h);
			add_ub_split(g, sh, out, 4, T, h, f / t);
		}
		return;
	}
	/* the data gradients of the row-parallel GEMMs (ring_exchange); the
	 * others' overlaps are bulk, whole GEMMs */
	add_ub_split(g, sh, out, t, T, proj_k, h);
	if (dense)
		add_ub_split(g, sh, out, t, T, f / t, h);
}

/* Bytes per parameter of Megatron's contiguous gradient buffer: fp32
 * main_grad, as cmp_grad_accum accumulates into. */
#define MAIN_GRAD_BYTES 4.0

double cmp_grad_buffer_s(const struct gpu_spec *g, double local_params,
			 double opt_params, int dp, bool megatron_buffer)
{
	/* the norm: one multi-tensor pass reading the fp32 gradients */
	double t = kern_stream_s(&g->k, KS_COPY, opt_params * F32_BYTES);

	if (megatron_buffer) {
		/* grad_data.zero_(): written once */
		t += kern_stream_s(&g->k, KS_COPY, local_params * MAIN_GRAD_BYTES);
		/* grad_data *= 1/dp: read and written */
		if (dp > 1)
			t += kern_stream_s(&g->k, KS_COPY, local_params * 2 * MAIN_GRAD_BYTES);
	}
	return t;
}

double cmp_best_eff(const struct gpu_spec *g, bool fp8, double peak_flops)
{
	return kern_best_eff(&g->k, fp8, peak_flops);
}
