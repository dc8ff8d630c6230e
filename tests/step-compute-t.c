/* step-compute-t.c -- the kernel laws (models/kernels.h) on a made-up GPU
 * whose figures make the arithmetic easy, and the layer's FLOPs.  Expected
 * numbers by hand; FLOPs from Narayanan et al. (doc/sources.md section 8): a layer's
 * forward is 24 b s h^2 + 4 b s^2 h, backward twice that. */
#include <math.h>
#include <string.h>

#include "tests/tap.h"
#include "models/compute.h"
#include "tests/toy-gpu.h"

static double stream_s(double bytes, double frac)
{
	return bytes / (1e12 * frac) + 5e-6;
}

int main(void)
{
	struct gpu_spec g;
	struct cmp_cost c, x;

	toy(&g);
	tap_plan(52);

	/* 1024^3: 128 x 256 tiles, 32 of them = 8 full waves on 4 SMs, each
	 * tile 2 x 128 x 256 x 1024 FLOPs at 1 TFLOP/s plus 1 us; the other
	 * tiles and K splits are slower (128 x 128: 16 waves of 34.6 us) */
	double n = 1024;
	cmp_gemm(&g, false, 1, n, n, n, &c);
	tap_near(c.time_s, 8 * (2 * 128 * 256 * n / 1e12 + 1e-6) + 2e-6, 1e-12,
		 "1024^3 GEMM: 8 waves of 128x256 tiles + launch");
	tap_near(c.flops, 2 * n * n * n, 1e-12, "GEMM FLOPs 2 M N K");
	/* a thin batched GEMM with free math: the HBM roof, 3 matrices of 2
	 * bytes at the copy rate */
	g.k.bf16.sm_flops = 1e18;
	g.k.bf16.wave_s = 0;
	cmp_gemm(&g, false, 64, 2048, 2048, 64, &c);
	double bytes = 2.0 * 64 * (2048.0 * 64 * 2 + 2048.0 * 2048);
	tap_near(c.time_s, bytes / (1e12 * 0.5) + 2e-6, 1e-12,
		 "thin GEMM under the bandwidth roof: bytes / (bw x copy fraction) + launch");
	toy(&g);
	cmp_stream(&g, KS_LAYERNORM, 1e9, &c);
	tap_near(c.time_s, stream_s(1e9, 0.25), 1e-12,
		 "LayerNorm: bytes / (bw x its own fraction) + launch");

	/* flash attention, 12 heads of s = 2048, d = 128: 16 query blocks
	 * each visiting 1..16 key blocks, 136 pairs of 4 x 128^2 x 128 FLOPs;
	 * 12 x 16 query blocks over 4 SMs at 1 us */
	double pairs = 16 * 17 / 2.0, f = 12 * pairs * 4 * 128.0 * 128 * 128;
	tap_near(kern_attn_fwd_flops(12, 2048, 128, 0), f, 1e-12,
		 "causal flash forward FLOPs: 136 block pairs per head");
	tap_near(kern_attn_fwd_s(&g.k, 12, 2048, 128, 0), f / 1e14 + 12 * 16 / 4.0 * 1e-6 + 5e-6,
		 1e-12, "flash forward: FLOPs / rate + blocks per SM x block_s + launch");
	tap_near(kern_attn_bwd_s(&g.k, 12, 2048, 128, 0), 2.5 * f / 5e13 + 12 * 16 / 4.0 * 2e-6 + 5e-6,
		 1e-12, "flash backward: 2.5x the FLOPs at its own rate");
	/* a sliding window of 256 tokens (2 blocks): query block i visits
	 * min(i + 1, 3) key blocks, 1 + 2 + 14 x 3 = 45 pairs of the 136;
	 * the per-block work stays (every query block runs) */
	double wf = 12 * 45 * 4 * 128.0 * 128 * 128;
	tap_near(kern_attn_fwd_flops(12, 2048, 128, 256), wf, 1e-12,
		 "sliding window 256: 45 block pairs per head, not 136");
	tap_near(kern_attn_fwd_s(&g.k, 12, 2048, 128, 256),
		 wf / 1e14 + 12 * 16 / 4.0 * 1e-6 + 5e-6, 1e-12,
		 "sliding window 256: the windowed FLOPs at the kernel's rate");
	tap_near(kern_attn_fwd_flops(12, 2048, 128, 4096), f, 1e-12,
		 "a window longer than the sequence: full causal attention");
	/* a layer with the window on half its layers (GPT-OSS's pattern):
	 * its attention core half each kernel's */
	struct cmp_shape ws = { .b = 1, .s = 2048, .h = 1536, .a = 12, .V = 1000,
				.tp = 1, .flash = true, .fused = true, .peak_flops = 312e12,
				.window = 256, .window_frac = 0.5 };
	tap_near(cmp_attn_core_s(&g, &ws, false),
		 0.5 * kern_attn_fwd_s(&g.k, 12, 2048, 128, 256) +
		 0.5 * kern_attn_fwd_s(&g.k, 12, 2048, 128, 0), 1e-12,
		 "window on every other layer: the mean layer's core, half of each kernel");
	/* a full block (no mask), 12 heads of 2048 queries against 1024
	 * keys: 16 query blocks each visiting 8 key blocks */
	double bf = 12 * 16 * 8 * 4 * 128.0 * 128 * 128;
	tap_near(kern_attn_block_flops(12, 2048, 1024, 128), bf, 1e-12,
		 "full block: 16 x 8 block pairs per head");
	tap_near(kern_attn_block_s(&g.k, false, 12, 2048, 1024, 128),
		 bf / 1e14 + 12 * 16 / 4.0 * 1e-6 + 5e-6, 1e-12,
		 "full block forward: FLOPs / rate + query blocks per SM x block_s + launch");
	/* Ring attention, cp 2 over 4096 tokens (TE's AttnFuncWithCPAndKVP2P,
	 * compute.c ring_flash): the rank's two chunks of 1024, all 12
	 * heads.  Step 0 causal over its 2048 tokens (136 pairs a head); step
	 * 1 a full block of 2048 queries x 1024 keys or 1024 x 2048 (128
	 * pairs a head either way), the mean rank half each: 16 or 8 query
	 * blocks a head.  The FLOPs are the whole sequence's causal 1/cp,
	 * (32 x 33 / 2) / 2 = 264 = 136 + 128 pairs a head; the per-block
	 * cost and two launches more.  Merges: the output (2048 x 12 x 128
	 * elements) step 0 copied scaled (4 B), step 1 merged over 3/4 of it
	 * (6 B), two kernels at the copy rate. */
	{
		struct cmp_shape rs = { .b = 1, .s = 4096, .h = 1536, .a = 12, .V = 1000,
					.tp = 1, .flash = true, .fused = true,
					.peak_flops = 312e12, .cp = 2, .cp_ring = true };
		double pf = 4 * 128.0 * 128 * 128 * 12, out = 2048.0 * 12 * 128;
		double attn = (136 + 128) * pf / 1e14 + (12 * 16 / 4.0 + (48 + 24) / 2.0) * 1e-6 +
			      2 * 5e-6;
		double merge = out * (4 + 6 * 0.75);
		tap_near(kern_attn_fwd_flops(12, 4096, 128, 0) / 2, 264 * pf, 1e-12,
			 "ring attention does the causal sequence's 1/cp of the pairs");
		tap_near(cmp_attn_core_s(&g, &rs, false), attn + 2 * stream_s(merge / 2, 0.5),
			 1e-12, "ring attention cp 2 forward: causal step, a full block, "
			 "two merges, by hand");
		rs.cp_ring = false;
		tap_near(cmp_attn_core_s(&g, &rs, false),
			 264 * pf / 1e14 + 6 * 32 / 4.0 * 1e-6 + 5e-6, 1e-12,
			 "gathered CP (all-gather, Ulysses): one kernel, 6 heads over 4096");
	}
	/* QK-norm (Qwen3): after the QKV GEMM the rank's 12 query and 4 key
	 * heads of 128 normalised per head, two norm kernels at the toy's
	 * quarter of HBM: forward x read and y written (2 + 2 B), backward x
	 * and dy read, dx written (2 + 2 + 2) */
	{
		struct cmp_cost plain, normed;
		double q = 2048.0 * 12 * 128, k = 2048.0 * 4 * 128;

		ws.window = 0;
		ws.window_frac = 0;
		ws.kv = 4;
		cmp_layer_fwd(&g, &ws, &plain);
		ws.qk_norm = true;
		cmp_layer_fwd(&g, &ws, &normed);
		tap_near(normed.time_s - plain.time_s,
			 stream_s(q * 4, 0.25) + stream_s(k * 4, 0.25), 1e-12,
			 "QK-norm forward: two norm kernels, 4 B an element");
		tap_near(normed.kernels - plain.kernels, 2, 1e-12, "... two launches");
		cmp_layer_bwd(&g, &ws, &normed);
		ws.qk_norm = false;
		cmp_layer_bwd(&g, &ws, &plain);
		tap_near(normed.time_s - plain.time_s,
			 stream_s(q * 6, 0.25) + stream_s(k * 6, 0.25), 1e-12,
			 "QK-norm backward: 6 B an element");
	}

	/* Rotary embedding (positions = "rope"): Megatron-Core's fused RoPE
	 * once on the 12 query heads and once on the 4 key heads of 128,
	 * each element read and written (4 B), forward and backward; eager
	 * (Hugging Face's apply_rotary_pos_emb) five kernels a tensor, 20 B
	 * an element in all */
	{
		struct cmp_shape rs = { .b = 1, .s = 2048, .h = 1536, .a = 12, .V = 1000,
					.tp = 1, .flash = true, .fused = true,
					.peak_flops = 312e12, .kv = 4 };
		struct cmp_cost plain, rot;
		double q = 2048.0 * 12 * 128, k = 2048.0 * 4 * 128;

		for (int bwd = 0; bwd < 2; bwd++) {
			rs.rotary = false;
			(bwd ? cmp_layer_bwd : cmp_layer_fwd)(&g, &rs, &plain);
			rs.rotary = true;
			(bwd ? cmp_layer_bwd : cmp_layer_fwd)(&g, &rs, &rot);
			tap_near(rot.time_s - plain.time_s, stream_s(q * 4, 0.5) + stream_s(k * 4, 0.5),
				 1e-12, bwd ? "fused RoPE backward: two kernels, 4 B an element" :
				 "fused RoPE forward: two kernels, 4 B an element");
		}
		tap_near(rot.kernels - plain.kernels, 2, 1e-12, "... two launches");
		rs.fused = false;
		rs.rotary = false;
		cmp_layer_fwd(&g, &rs, &plain);
		rs.rotary = true;
		cmp_layer_fwd(&g, &rs, &rot);
		tap_near(rot.time_s - plain.time_s,
			 5 * stream_s(q * 4, 0.5) + 5 * stream_s(k * 4, 0.5), 1e-12,
			 "eager RoPE: five kernels a tensor, 20 B an element");

		/* YaRN (positions = "yarn") under Megatron-Core: its scaled
		 * tables keep it off TE's fused kernel (rope_utils.py), so per
		 * tensor the two tables' three kernels on the 2048 x 128
		 * angles (22 B an angle each), then six kernels of 24 B an
		 * element in all; backward seven of 26 B; every one a plain
		 * PyTorch op (a library-rate launch for the host) */
		double ang = 2048.0 * 128, table = 3 * stream_s(ang * 22 / 3, 0.5);
		rs.fused = true;
		rs.rotary_scaled = true;
		cmp_layer_fwd(&g, &rs, &rot);
		rs.rotary = false;
		cmp_layer_fwd(&g, &rs, &plain);
		tap_near(rot.time_s - plain.time_s,
			 2 * 2 * table + 6 * stream_s(q * 4, 0.5) + 6 * stream_s(k * 4, 0.5), 1e-12,
			 "YaRN forward: the tables, then six kernels a tensor, 24 B an element");
		tap_near(rot.kernels - plain.kernels, 24, 1e-12, "... 24 launches");
		tap_near(rot.lib_kernels - plain.lib_kernels, 24, 1e-12,
			 "... all at the eager op's host cost");
		cmp_layer_bwd(&g, &rs, &plain);
		rs.rotary = true;
		cmp_layer_bwd(&g, &rs, &rot);
		tap_near(rot.time_s - plain.time_s,
			 7 * stream_s(q * 26 / 7, 0.5) + 7 * stream_s(k * 26 / 7, 0.5), 1e-12,
			 "YaRN backward: seven kernels a tensor, 26 B an element");
		tap_near(rot.lib_kernels - plain.lib_kernels, 14, 1e-12, "... 14 eager launches");
		rs.fused = false;
		cmp_layer_fwd(&g, &rs, &rot);
		rs.rotary_scaled = false;
		cmp_layer_fwd(&g, &rs, &plain);
		tap_near(rot.time_s, plain.time_s, 1e-15,
			 "eager: YaRN runs as the eager RoPE (the tables' scale rides along)");
	}

	/* Grouped-query attention under Megatron's fused QKV: 12 query heads
	 * in 4 groups, so the reshape of the split-off queries copies them
	 * (2048 x 12 x 128 elements read and written, 4 B), forward only;
	 * with 12 groups (multi-head) it is a view.  The layers differ by
	 * that copy and the QKV GEMM's width, (12 + 2 x 4) x 128 against
	 * (12 + 2 x 12) x 128. */
	{
		struct cmp_shape gs = { .b = 1, .s = 2048, .h = 1536, .a = 12, .V = 1000,
					.tp = 1, .flash = true, .fused = true,
					.peak_flops = 312e12, .kv = 4 };
		struct cmp_cost gqa, mha, n20, n36;
		double q = 2048.0 * 12 * 128;

		cmp_layer_fwd(&g, &gs, &gqa);
		gs.kv = 12;
		cmp_layer_fwd(&g, &gs, &mha);
		cmp_gemm(&g, false, 1, 2048, 20 * 128, 1536, &n20);
		cmp_gemm(&g, false, 1, 2048, 36 * 128, 1536, &n36);
		tap_near(gqa.time_s - mha.time_s, n20.time_s - n36.time_s + stream_s(q * 4, 0.5),
			 1e-12, "GQA forward: the queries' reshape copies them, 4 B an element");
		tap_near(gqa.kernels - mha.kernels, 1, 1e-12, "... one kernel more");
		gs.kv = 4;
		cmp_layer_bwd(&g, &gs, &gqa);
		gs.kv = 12;
		cmp_layer_bwd(&g, &gs, &mha);
		tap_near(gqa.kernels - mha.kernels, 0, 1e-12,
			 "GQA backward: the reshape's gradient is a view");
	}

	/* layer FLOPs, GPT-3 175B shape, b = 1, t = 8, no flash */
	struct cmp_shape sh = { .b = 1, .s = 2048, .h = 12288, .a = 96, .V = 51200,
				.tp = 8, .fused = true, .dropout = true,
				.peak_flops = 312e12 };	/* GPT-3: dropout 0.1 */
	double b = 1, s = 2048, h = 12288, t = 8;
	double fwd = (24 * b * s * h * h + 4 * b * s * s * h) / t;
	cmp_layer_fwd(&g, &sh, &c);
	tap_near(c.flops, fwd, 1e-12, "layer forward: (24 bsh^2 + 4 bs^2h)/t");
	cmp_layer_bwd(&g, &sh, &c);
	tap_near(c.flops, 2 * fwd, 1e-12, "layer backward: twice the forward");
	/* the attention core selective recomputation redoes: heads = b a / t =
	 * 12 of dh = 128; two batched GEMMs, the fused softmax (reads and
	 * writes the scores, 4 bytes each) and the dropout (5: in, out, mask) */
	double heads = 12, dh = 128, sc = heads * s * s, want = 0;
	cmp_gemm(&g, false, heads, s, s, dh, &x);
	want += x.time_s;
	cmp_gemm(&g, false, heads, s, dh, s, &x);
	want += x.time_s + stream_s(4 * sc, 0.5) + stream_s(5 * sc, 0.5);
	cmp_attn_recompute(&g, &sh, &c);
	tap_near(c.time_s, want, 1e-12, "attention core: two batched GEMMs + softmax + dropout");
	/* eager kernels: GeLU, dropout then add, scale, mask, softmax apart */
	struct cmp_cost fused;
	cmp_layer_fwd(&g, &sh, &fused);
	sh.fused = false;
	cmp_layer_fwd(&g, &sh, &c);
	tap_ok(c.time_s > fused.time_s && c.kernels == fused.kernels + 4,
	       "eager forward: four more kernels (scale, mask, the add after each "
	       "dropout) and slower");
	sh.fused = true;
	sh.flash = true;
	cmp_attn_recompute(&g, &sh, &c);
	tap_near(c.time_s, 0, 0, "flash attention: nothing to recompute selectively");
	cmp_layer_fwd(&g, &sh, &c);
	tap_near(c.flops, 24 * b * s * h * h / t + kern_attn_fwd_flops(12, s, dh, 0), 1e-12,
		 "flash forward FLOPs: the GEMMs' plus what the causal kernel executes");
	/* the loss over T x V/t = 2048 x 6400 logits: Megatron's six eager
	 * kernels over fp32 (cast 6, max 4, subtract 8, exp 8, sum 4, divide
	 * 8 bytes per logit: 38) against one log-softmax pass of 10 bytes:
	 * 28 bytes per logit and five launches more, at the copy rate */
	struct cmp_cost mg, eager;
	double logits = 2048.0 * 51200 / 8;
	sh.flash = false;
	cmp_logits_fwd(&g, &sh, &mg);
	sh.fused = false;
	cmp_logits_fwd(&g, &sh, &eager);
	tap_near(mg.time_s - eager.time_s, logits * 28 / (1e12 * 0.5) + 5 * 5e-6, 1e-12,
		 "Megatron's cross-entropy forward: 38 bytes per logit in six kernels");
	/* backward: multiply (8) and cast back (6) against one 6-byte pass */
	cmp_logits_bwd(&g, &sh, &eager);
	sh.fused = true;
	cmp_logits_bwd(&g, &sh, &mg);
	tap_near(mg.time_s - eager.time_s, logits * 8 / (1e12 * 0.5) + 5e-6, 1e-12,
		 "Megatron's cross-entropy backward: 14 bytes per logit in two kernels");
	/* Transformer Engine's fused loss (training.loss_kernel "te"): forward
	 * a scan of the bf16 logits (2) and a pass writing an fp32 gradient
	 * (2 + 4), 8 bytes in two kernels against Megatron's 38 in six;
	 * backward the gradient scaled in place (4 + 4) and cast to bf16
	 * (4 + 2), Megatron's 14 in two again */
	struct cmp_cost te, mg_f;
	cmp_logits_fwd(&g, &sh, &mg_f);
	sh.loss = CMP_LOSS_TE;
	cmp_logits_fwd(&g, &sh, &te);
	tap_near(mg_f.time_s - te.time_s, logits * 30 / (1e12 * 0.5) + 4 * 5e-6, 1e-12,
		 "TE's fused cross-entropy forward: 8 bytes per logit in two kernels");
	cmp_logits_bwd(&g, &sh, &te);
	tap_near(te.time_s, mg.time_s, 1e-12,
		 "TE's fused cross-entropy backward: 14 bytes in two, as Megatron's");
	sh.loss = CMP_LOSS_STACK;
	/* the per-iteration gradient kernels on 1e9 local parameters, 1e8 of
	 * them stepped (the distributed optimizer's shard): the norm reads their 4-byte
	 * gradients: 0.4 GB; Megatron's buffer is zeroed (4 GB written) and
	 * scaled by 1/dp (8 GB read and written), each at the toy's copy rate
	 * of 0.5 TB/s with a 5 us launch: 0.8 + 8 + 16 ms + 15 us */
	tap_near(cmp_grad_buffer_s(&g, 1e9, 1e8, 8, true), 24.8e-3 + 15e-6, 1e-12,
		 "Megatron's grad buffer: norm, zero_(), *= 1/dp");
	/* without Megatron's buffer (ZeRO, eager) or one replica (no
	 * scaling): the norm alone; the zeroing alone */
	tap_near(cmp_grad_buffer_s(&g, 1e9, 1e8, 8, false) +
		 cmp_grad_buffer_s(&g, 1e9, 1e9, 1, true), 0.8e-3 + 5e-6 + 8e-3 + 8e-3 + 10e-6,
		 1e-12, "the norm alone without the buffer; no scaling with one replica");
	/* Transformer Engine's split GEMMs: backward, the row-parallel
	 * GEMMs' data gradients [1024 x 1024 x 4096] (h 4096 over tp 4, f
	 * 4096) in tp = 4 chunks, three at once.  Whole: 32 tiles of 128 x
	 * 256 = 8 waves of w, plus the 2 us launch; chunks: 3 x 8 tiles = 6
	 * waves, twice (4/3 of it): 4/3 (6 w + 2 us) - (8 w + 2 us) = 2/3 us
	 * each, the third launch; 3 more kernels each */
	struct cmp_shape ub = { .b = 1, .s = 1024, .h = 4096, .a = 32, .V = 51200, .tp = 4,
				.sp = true, .flash = true, .fused = true, .f = 4096 };
	cmp_ub_splits(&g, &ub, true, &c);
	tap_near(c.time_s, 2 * 2e-6 / 3, 1e-9, "split data gradients: a third launch each");
	tap_ok(c.kernels == 6 && c.flops == 0, "split GEMMs: 3 more kernels each, no FLOPs");
	/* attention dropout inside the flash kernel: 0.614 / 0.594 ms on an
	 * H200 (NVIDIA/TransformerEngine#3312), rounded to 3.4% longer */
	double plain = cmp_attn_core_s(&g, &ub, true);
	ub.dropout = true;
	tap_near(cmp_attn_core_s(&g, &ub, true), 1.034 * plain, 1e-12,
		 "flash attention with dropout: 3.4 percent longer");
	/* a model without dropout (Llama, MPT): backward loses its two
	 * dropout passes, each reading dy and the 1-byte mask and writing dx
	 * over the 1024 x 4096 / 4 sequence-parallel slice (5 bytes an
	 * element, 5.24 MB at 0.5 TB/s + 5 us), and the flash kernel's 3.4% */
	struct cmp_cost with, without;
	cmp_layer_bwd(&g, &ub, &with);
	double flash_drop = cmp_attn_core_s(&g, &ub, true);
	ub.dropout = false;
	cmp_layer_bwd(&g, &ub, &without);
	double slice = 1024.0 * 4096 / 4;
	tap_near(with.time_s - without.time_s,
		 2 * (slice * 5 / 0.5e12 + 5e-6) + flash_drop - plain, 1e-12,
		 "no dropout: two dropout passes and the flash kernel's mask fewer");

	/* Adam over 1e9 parameters: 30 bytes each with fp32 moments (master,
	 * gradient, moments in; master, moments and the bf16 copy out), 22
	 * with bf16 moments (parallel.adam_moments), at the toy's Adam rate */
	double adam_frac = g.k.stream_frac[KS_ADAM];
	tap_near(cmp_adam_s(&g, 1e9, 4, CMP_MASTER_FP32), stream_s(30e9, adam_frac), 1e-12,
		 "Adam, fp32 moments: 30 bytes a parameter");
	tap_near(cmp_adam_s(&g, 1e9, 2, CMP_MASTER_FP32), stream_s(22e9, adam_frac), 1e-12,
		 "Adam, bf16 moments: 22 bytes a parameter");
	/* the master as a 16-bit remainder: gradient 4, weight 2 and
	 * remainder 2 in, weight and remainder out (Apex's
	 * store_param_remainders), 12 beside the fp32 moments' 16 */
	tap_near(cmp_adam_s(&g, 1e9, 4, CMP_MASTER_REMAINDER), stream_s(28e9, adam_frac), 1e-12,
		 "Adam, master as remainders: 28 bytes a parameter");
	/* no master (Apex with the optimizer's dtype bf16): gradient 4 and
	 * weight 2 in, weight 2 out, beside bf16 moments' 8 */
	tap_near(cmp_adam_s(&g, 1e9, 2, CMP_MASTER_WEIGHTS), stream_s(16e9, adam_frac), 1e-12,
		 "Adam, bf16 weights as the master, bf16 moments: 16 bytes a parameter");
	return tap_done();
}
