/*
 * attn_impl.c -- see attn_impl.h.  The published speeds, TFLOPs/s as the
 * bars of each figure are labelled, at sequence lengths 512, 1k, 2k, 4k,
 * 8k, 16k, head dims 64 and 128, bf16/fp16.
 *
 * Triton and FlashAttention v1: Dao, "FlashAttention-2: Faster Attention
 * with Better Parallelism and Work Partitioning", arXiv:2307.08691
 * (2023-07-17), Figure 4, "Attention forward + backward speed (A100 80GB
 * SXM4)", (c) causal, head dim 64 and (d) causal, head dim 128, bars
 * "FlashAttention Triton" (flash_attn_triton.py, the kernel llm-foundry's
 * attn_impl: triton ran) and "FlashAttention" (flash-attn 1.x, what
 * Megatron-LM's --use-flash-attn called from 2023-01 until flash-attn
 * 2.0: flash_attn_unpadded_func) against "FlashAttention-2"; the same
 * chart ships as assets/flash2_a100_fwd_bwd_benchmark.png in
 * Dao-AILab/flash-attention (read off that image, 2026-12-06).  Only the
 * combined pass is transcribed, so its ratio stands for both passes.  It
 * is an A100 figure: the paper's H100 figure (Figure 7) has no Triton
 * bars, and kernels without Hopper's wgmma are unlikely to gain on
 * FlashAttention-2 there, so their ratios to FlashAttention-2 are taken
 * to hold on every GPU (on H100/H200, if anything, too small).
 *
 * FlashAttention-3 and cuDNN: Shah et al., "FlashAttention-3: Fast and
 * Accurate Attention with Asynchrony and Low-precision", arXiv:2407.08608
 * (2024-07-11), H100 80GB SXM5: forward from Figure 5 (b) and (d), causal,
 * head dims 64 and 128 (assets/flash3_fp16_fwd.png in Dao-AILab/
 * flash-attention, read off the chart); backward from Figure 6, head dims
 * 64 and 128, which the paper plots without a causal mask (taken as is;
 * the labels as transcribed at subtext.edge.nugit.net, image pages for
 * arXiv:2407.08608, read 2026-12-01).
 */
#include <math.h>
#include <string.h>

#include "models/attn_impl.h"

const char *const attn_impl_names[ATTN_COUNT] = {
	"flash2", "flash3", "triton", "cudnn", "unfused", "te", "flash1"
};

#define N_SEQ 6
#define N_DIM 2
static const double seqs[N_SEQ] = { 512, 1024, 2048, 4096, 8192, 16384 };
static const double dims[N_DIM] = { 64, 128 };

/* Bars of one figure by head dim then sequence length. */
typedef const double bars[N_DIM][N_SEQ];

/* FA2 paper Figure 4 (c), (d): forward + backward, causal, A100. */
static bars fig4_fa2 = { { 88, 119, 140, 156, 165, 171 }, { 99, 133, 155, 173, 182, 189 } };
static bars fig4_triton = { { 59, 75, 79, 76, 79, 80 }, { 50, 61, 68, 74, 78, 80 } };
static bars fig4_fa1 = { { 58, 70, 77, 87, 92, 97 }, { 55, 62, 69, 76, 80, 83 } };
/* FA3 paper Figure 5 (b), (d): forward, causal, H100. */
static bars fig5_fa2 = { { 180, 229, 262, 284, 295, 299 }, { 191, 260, 298, 319, 333, 335 } };
static bars fig5_fa3 = { { 197, 265, 371, 420, 460, 473 }, { 292, 423, 521, 579, 602, 616 } };
static bars fig5_cudnn = { { 225, 288, 334, 363, 379, 388 }, { 315, 410, 484, 518, 529, 539 } };
/* FA3 paper Figure 6: backward, H100 (no causal mask). */
static bars fig6_fa2 = { { 198, 238, 264, 279, 287, 291 }, { 214, 260, 291, 310, 318, 322 } };
static bars fig6_fa3 = { { 272, 363, 422, 453, 472, 474 }, { 316, 424, 501, 542, 559, 561 } };
static bars fig6_cudnn = { { 266, 348, 395, 417, 432, 433 }, { 305, 408, 465, 499, 518, 516 } };

enum attn_impl attn_impl_find(const char *name)
{
	for (int i = 0; i < ATTN_COUNT; i++)
		if (strcmp(attn_impl_names[i], name) == 0)
			return (enum attn_impl)i;
	return ATTN_COUNT;
}

/* Where x falls in the n points p (ascending): index i and weight w of
 * p[i + 1], in ln x, held flat outside. */
static void bracket(const double *p, int n, double x, int *i, double *w)
{
	if (x <= p[0]) {
		*i = 0;
		*w = 0;
		return;
	}
	if (x >= p[n - 1]) {
		*i = n - 2;
		*w = 1;
		return;
	}
	int k = 0;
	while (x > p[k + 1])
		k++;
	*i = k;
	*w = log(x / p[k]) / log(p[k + 1] / p[k]);
}

/* FA2 time over the implementation's: ratio of the speeds, interpolated. */
static double fig_factor(bars fa2, bars impl, double seq, double d)
{
	int is, id;
	double ws, wd, r[N_DIM];

	bracket(seqs, N_SEQ, seq, &is, &ws);
	bracket(dims, N_DIM, d, &id, &wd);
	for (int k = 0; k < N_DIM; k++) {
		double lo = fa2[k][is] / impl[k][is];
		double hi = fa2[k][is + 1] / impl[k][is + 1];
		r[k] = lo + ws * (hi - lo);
	}
	return r[id] + wd * (r[id + 1] - r[id]);
}

enum attn_impl attn_impl_resolve(enum attn_impl impl, enum attn_impl law)
{
	if (impl != ATTN_TE)
		return impl;
	return law == ATTN_FLASH2 ? ATTN_FLASH2 : ATTN_CUDNN;
}

/* FA2 time over the implementation's, on the GPU of its figure. */
static double fa2_ratio(enum attn_impl impl, bool bwd, double seq, double d)
{
	switch (impl) {
	case ATTN_TRITON:
		return fig_factor(fig4_fa2, fig4_triton, seq, d);
	case ATTN_FLASH1:
		return fig_factor(fig4_fa2, fig4_fa1, seq, d);
	case ATTN_FLASH3:
		return bwd ? fig_factor(fig6_fa2, fig6_fa3, seq, d) :
			     fig_factor(fig5_fa2, fig5_fa3, seq, d);
	case ATTN_CUDNN:
		return bwd ? fig_factor(fig6_fa2, fig6_cudnn, seq, d) :
			     fig_factor(fig5_fa2, fig5_cudnn, seq, d);
	default:
		return 1;
	}
}

double attn_impl_factor(enum attn_impl impl, enum attn_impl law, bool bwd, double seq,
			double d)
{
	if (impl == ATTN_UNFUSED)
		return 1;
	impl = attn_impl_resolve(impl, law);
	return fa2_ratio(impl, bwd, seq, d) / fa2_ratio(law, bwd, seq, d);
}

/* A figure's speed at (seq, d), interpolated as fig_factor's ratios. */
static double fig_speed(bars fig, double seq, double d)
{
	int is, id;
	double ws, wd, v[N_DIM];

	bracket(seqs, N_SEQ, seq, &is, &ws);
	bracket(dims, N_DIM, d, &id, &wd);
	for (int k = 0; k < N_DIM; k++)
		v[k] = fig[k][is] + ws * (fig[k][is + 1] - fig[k][is]);
	return v[id] + wd * (v[id + 1] - v[id]);
}

double attn_impl_dim_ratio(enum attn_impl law, bool bwd, double seq, double d)
{
	const double(*fig)[N_SEQ];

	switch (law) {
	case ATTN_FLASH3:
		fig = bwd ? fig6_fa3 : fig5_fa3;
		break;
	case ATTN_CUDNN:
		fig = bwd ? fig6_cudnn : fig5_cudnn;
		break;
	default:
		return 1;
	}
	return fig_speed(fig, seq, dims[N_DIM - 1]) / fig_speed(fig, seq, d);
}

/*
 * Waves.  cuDNN's causal forward on an H200 (cuDNN 9.27, NVIDIA/cudnn-
 * frontend benchmark/attention_inference/results/prefill_sweep/h200/
 * prefill_sweep_20260923_175600.csv, batch 1, head dim 128, 8-64 heads,
 * 2k-16k tokens) takes 1.5x the fluid law's time at 8 heads of 2-4k tokens
 * and 0.94x at 64 heads of 16k; tiles going out longest first in waves of
 * one an SM (kernels.c attn_work) put all sixteen rows within 8% (the law
 * refitted to its own table under that rule; tests/kernels-t), where a
 * greedy longest-first order stays within 4% of the fluid time wherever
 * there is more than one wave.  The B200's file of the same benchmark
 * shows the same head-count effect, larger (8 heads 1.25-3.1x the time a
 * head of 64, the waves 1.11-1.62x; scenarios/validation/README).
 * Hopper's and Blackwell's flash kernels hold one CTA an SM (their tiles
 * fill shared memory), so a wave is the SM count.  FlashAttention-2 on
 * Ampere fits two or more CTAs on an SM and the hardware starts the next
 * as any ends: the A100's law stays fluid (its figure's shapes, 16k tokens
 * a batch, are many waves anyway).  FlashAttention-3's own causal kernel
 * takes its tiles from an atomic counter (hopper/flash_fwd_launch_
 * template.h: DynamicPersistentTileScheduler, Dao-AILab/flash-attention),
 * which would shorten the tail; the flash3 kind keeps the waves because the
 * stacks priced against it run cuDNN (Transformer Engine) or its table's
 * kernel, which show them.
 */
bool attn_impl_waves(enum attn_impl law)
{
	return law == ATTN_FLASH3 || law == ATTN_CUDNN;
}

bool attn_impl_fa2_a100_point(int i, double *seq, double *d, double *tflops)
{
	if (i < 0 || i >= N_DIM * N_SEQ)
		return false;
	*d = dims[i / N_SEQ];
	*seq = seqs[i % N_SEQ];
	*tflops = fig4_fa2[i / N_SEQ][i % N_SEQ];
	return true;
}
