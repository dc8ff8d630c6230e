/* attn-impl-t.c -- each attention kernel's speed relative to
 * FlashAttention-2 (models/attn_impl.h), pinned at figure points to the
 * ratio of the published bars, by hand:
 *   triton: Dao, FlashAttention-2, arXiv:2307.08691, Figure 4 (A100,
 *           forward + backward, causal), FA2 bar / Triton bar;
 *   flash3, cudnn: Shah et al., FlashAttention-3, arXiv:2407.08608,
 *           Figure 5 (H100, forward, causal) and Figure 6 (backward),
 *           FA2 bar / its bar;
 * against a law of another kind (a Hopper GPU's flash3 law: FA2 and
 * cuDNN priced by FA3's bars, Transformer Engine's "te" as cuDNN there),
 * and the interpolation between them (linear in ln seq and ln head dim,
 * flat outside 512..16k and 64..128), and that compute.h's flash kernel
 * takes the factor while the unfused path ignores it. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "tests/tap.h"
#include "models/attn_impl.h"
#include "models/compute.h"
#include "tests/toy-gpu.h"

/* Figure points: FlashAttention-2's bar and the implementation's. */
static const struct pin {
	enum attn_impl impl;
	bool bwd;
	double seq, d, fa2, bar;
	const char *fig;
} pins[] = {
	{ ATTN_TRITON, false, 2048, 128, 155, 68, "FA2 paper Fig. 4d (fwd+bwd)" },
	{ ATTN_TRITON, true, 2048, 128, 155, 68, "FA2 paper Fig. 4d, the same ratio" },
	{ ATTN_TRITON, false, 8192, 64, 165, 79, "FA2 paper Fig. 4c (fwd+bwd)" },
	{ ATTN_FLASH1, false, 2048, 128, 155, 69, "FA2 paper Fig. 4d, FlashAttention (v1)" },
	{ ATTN_FLASH1, true, 512, 64, 88, 58, "FA2 paper Fig. 4c, v1, the same ratio" },
	{ ATTN_FLASH1, false, 16384, 64, 171, 97, "FA2 paper Fig. 4c, v1" },
	{ ATTN_FLASH3, false, 4096, 128, 319, 579, "FA3 paper Fig. 5d" },
	{ ATTN_FLASH3, true, 4096, 128, 310, 542, "FA3 paper Fig. 6" },
	{ ATTN_CUDNN, false, 1024, 128, 260, 410, "FA3 paper Fig. 5d" },
	{ ATTN_CUDNN, true, 16384, 64, 291, 433, "FA3 paper Fig. 6" },
};

int main(void)
{
	struct gpu_spec g;

	tap_plan(37);
	for (size_t i = 0; i < sizeof pins / sizeof pins[0]; i++) {
		const struct pin *p = &pins[i];
		char name[160];
		snprintf(name, sizeof name, "%s %s at %g tokens, d %g: %s, %g / %g TFLOP/s",
			 attn_impl_names[p->impl], p->bwd ? "backward" : "forward",
			 p->seq, p->d, p->fig, p->fa2, p->bar);
		tap_near(attn_impl_factor(p->impl, ATTN_FLASH2, p->bwd, p->seq, p->d), p->fa2 / p->bar,
			 1e-12, name);
	}
	tap_near(attn_impl_factor(ATTN_FLASH2, ATTN_FLASH2, true, 3000, 96), 1, 0,
		 "flash2 on a FlashAttention-2 law is the law itself");
	tap_near(attn_impl_factor(ATTN_UNFUSED, ATTN_FLASH2, false, 3000, 96), 1, 0,
		 "unfused takes no factor (its kernels are priced one by one)");
	/* between 2k and 4k at d 128: w = ln(3000/2048)/ln 2 = 0.550746,
	 * 155/68 + w (173/74 - 155/68) = 2.279412 + 0.550746 x 0.058426 */
	tap_near(attn_impl_factor(ATTN_TRITON, ATTN_FLASH2, false, 3000, 128), 2.311590, 1e-6,
		 "triton at 3000 tokens: linear in ln seq between 2k and 4k");
	/* d 96 at 512: w = ln(96/64)/ln 2 = 0.584963 between 88/59 = 1.491525
	 * and 99/50 = 1.98: 1.491525 + 0.584963 x 0.488475 = 1.777264 */
	tap_near(attn_impl_factor(ATTN_TRITON, ATTN_FLASH2, false, 512, 96), 1.777264, 1e-6,
		 "triton at head dim 96: linear in ln d between 64 and 128");
	/* flash1 at 2k, d 96 (MegaScale's 175B): 140/77 = 1.818182 at d 64,
	 * 155/69 = 2.246377 at d 128: 1.818182 + 0.584963 x 0.428195 = 2.068659 */
	tap_near(attn_impl_factor(ATTN_FLASH1, ATTN_FLASH2, true, 2048, 96), 2.068659, 1e-6,
		 "flash1 at 2k tokens, head dim 96: between Fig. 4c's and 4d's ratios");
	tap_near(attn_impl_factor(ATTN_TRITON, ATTN_FLASH2, false, 32768, 256), 189.0 / 80, 1e-12,
		 "beyond 16k and d 128: held at the last bars (189 / 80)");
	tap_near(attn_impl_factor(ATTN_TRITON, ATTN_FLASH2, true, 128, 32), 88.0 / 59, 1e-12,
		 "below 512 and d 64: held at the first bars (88 / 59)");
	/* A Hopper law (flash3): others against FA3's bars.  FA3 paper
	 * Fig. 5d, 4k, d 128, forward: FA2 319, FA3 579, cuDNN 518, so flash2
	 * takes 579 / 319 of the law's time and cuDNN 579 / 518; Fig. 6, 4k,
	 * d 128, backward: FA2 310, FA3 542. */
	tap_near(attn_impl_factor(ATTN_FLASH2, ATTN_FLASH3, false, 4096, 128), 579.0 / 319,
		 1e-12, "flash2 on a flash3 law: FA3 Fig. 5d, 579 / 319");
	tap_near(attn_impl_factor(ATTN_FLASH2, ATTN_FLASH3, true, 4096, 128), 542.0 / 310,
		 1e-12, "and backward: FA3 Fig. 6, 542 / 310");
	tap_near(attn_impl_factor(ATTN_CUDNN, ATTN_FLASH3, false, 4096, 128), 579.0 / 518,
		 1e-12, "cudnn on a flash3 law: 579 / 518");
	tap_near(attn_impl_factor(ATTN_FLASH3, ATTN_FLASH3, true, 4096, 128), 1, 1e-12,
		 "flash3 on a flash3 law is the law itself");
	/* triton on Hopper: A100's triton/FA2 ratio (Fig. 4d, 4k: 173 / 74)
	 * times FA2's time over FA3's (579 / 319) */
	tap_near(attn_impl_factor(ATTN_TRITON, ATTN_FLASH3, false, 4096, 128),
		 173.0 / 74 * 579.0 / 319, 1e-12,
		 "triton on a flash3 law: 173/74 x 579/319");
	/* Transformer Engine: cuDNN on Hopper, flash-attn v2 before */
	tap_ok(attn_impl_resolve(ATTN_TE, ATTN_FLASH3) == ATTN_CUDNN &&
	       attn_impl_resolve(ATTN_TE, ATTN_FLASH2) == ATTN_FLASH2 &&
	       attn_impl_resolve(ATTN_TRITON, ATTN_FLASH3) == ATTN_TRITON,
	       "te resolves to cudnn on a Hopper law, flash2 on an FA2 law");
	tap_near(attn_impl_factor(ATTN_TE, ATTN_FLASH3, false, 4096, 128), 579.0 / 518,
		 1e-12, "te on a flash3 law is priced as cudnn");
	tap_near(attn_impl_factor(ATTN_TE, ATTN_FLASH2, true, 4096, 128), 1, 1e-12,
		 "te on an FA2 law is the law");
	tap_ok(attn_impl_find("triton") == ATTN_TRITON &&
	       attn_impl_find("unfused") == ATTN_UNFUSED &&
	       attn_impl_find("flash1") == ATTN_FLASH1 &&
	       attn_impl_find("flash4") == ATTN_COUNT, "names: found, or ATTN_COUNT");

	/* through compute.h: 12 heads of 2048 tokens, d 128, no dropout */
	toy(&g);
	struct cmp_shape sh = { .b = 1, .s = 2048, .h = 1536, .a = 12, .V = 50304,
				.tp = 1, .flash = true, .fused = true };
	double fa2_f = cmp_attn_core_s(&g, &sh, false), fa2_b = cmp_attn_core_s(&g, &sh, true);
	sh.attn = ATTN_TRITON;
	tap_near(cmp_attn_core_s(&g, &sh, false) / fa2_f, 155.0 / 68, 1e-12,
		 "the flash kernel's forward time takes the factor");
	sh.attn = ATTN_FLASH3;
	tap_near(cmp_attn_core_s(&g, &sh, true) / fa2_b, 291.0 / 501, 1e-12,
		 "and its backward (FA3 Fig. 6, 2k, d 128: 291 / 501)");

	/* Head dim below 128 (attn_impl_dim_ratio): FA3 paper Fig. 5b/5d,
	 * forward, causal, 4k: FA3 420 at d 64, 579 at d 128; cuDNN 363 and
	 * 518; Fig. 6, backward, 4k: FA3 453 and 542. */
	tap_near(attn_impl_dim_ratio(ATTN_FLASH3, false, 4096, 64), 579.0 / 420, 1e-12,
		 "flash3 law at head dim 64, forward: 579 / 420 (Fig. 5)");
	tap_near(attn_impl_dim_ratio(ATTN_FLASH3, true, 4096, 64), 542.0 / 453, 1e-12,
		 "and backward: 542 / 453 (Fig. 6)");
	tap_near(attn_impl_dim_ratio(ATTN_CUDNN, false, 4096, 64), 518.0 / 363, 1e-12,
		 "cudnn law at head dim 64, forward: 518 / 363 (Fig. 5)");
	/* d 96 at 4k, forward flash3: 420 + 0.584963 (579 - 420) = 513.009 */
	tap_near(attn_impl_dim_ratio(ATTN_FLASH3, false, 4096, 96), 579.0 / 513.009137, 1e-6,
		 "head dim 96: the speed linear in ln d between 64 and 128");
	tap_near(attn_impl_dim_ratio(ATTN_FLASH3, false, 4096, 192), 1, 1e-12,
		 "head dim 128 and above: 1");
	tap_near(attn_impl_dim_ratio(ATTN_FLASH2, false, 4096, 64), 1, 0,
		 "an FA2 law (fitted at both head dims): 1");
	/* Through compute.h on the figure's shape (16k tokens, hidden 2048:
	 * 16 heads of 128 or 32 of 64, the same FLOPs): the toy law charges
	 * d 64 only its extra query blocks, (F/r + 2n c) / (F/r + n c), less
	 * than FA3's 579 / 420 forward, so the kernel takes the published
	 * ratio; were the law's own ratio larger, it would stand. */
	g.attn_law = ATTN_FLASH3;
	struct cmp_shape f128 = { .b = 4, .s = 4096, .h = 2048, .a = 16, .V = 50304, .tp = 1,
				  .flash = true, .fused = true, .attn = ATTN_FLASH3 };
	struct cmp_shape f64 = f128;
	f64.a = 32;
	f64.dqk = f64.dv = 64;
	tap_near(cmp_attn_core_s(&g, &f64, false) / cmp_attn_core_s(&g, &f128, false),
		 579.0 / 420, 1e-9, "a flash3 law at head dim 64 forward: FA3's 579 / 420");
	g.k.attn.fwd_block_s = 1e-3;	/* block cost dominates: the law's ratio ~2 */
	tap_ok(cmp_attn_core_s(&g, &f64, false) / cmp_attn_core_s(&g, &f128, false) >
	       579.0 / 420 + 0.2, "a law that charges more than the figure keeps its own");
	toy(&g);
	sh.flash = false;
	double un = cmp_attn_core_s(&g, &sh, false);
	sh.attn = ATTN_FLASH2;
	tap_near(cmp_attn_core_s(&g, &sh, false), un, 0,
		 "without flash the kind of flash kernel changes nothing");
	return tap_done();
}
