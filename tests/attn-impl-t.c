/* attn-impl-t.c -- each attention kernel's speed relative to
 * FlashAttention-2 (models/attn_impl.h), pinned at figure points to the
 * ratio of the published bars, by hand:
 *   triton: Dao, FlashAttention-2, arXiv:2307.08691, Figure 4 (A100,
 *           forward + backward, causal), FA2 bar / Triton bar;
 *   flash3, cudnn: Shah et al., FlashAttention-3, arXiv:2407.08608,
 *           Figure 5 (H100, forward, causal) and Figure 6 (backward),
 *           FA2 bar / its bar;
 * and the interpolation between them (linear in ln seq and ln head dim,
 * flat outside 512..16k and 64..128), and that compute.h's flash kernel
 * takes the factor while the unfused path ignores it. */
#include <math.h>

#include "tests/tap.h"
#include "models/attn_impl.h"
#include "models/compute.h"
#include "tests/toy-gpu.h"

int main(void)
{
	struct gpu_spec g;

	tap_plan(17);
	/* Figure 4 (d), causal, head dim 128, seq 2k: FA2 155, Triton 68 */
	tap_near(attn_impl_factor(ATTN_TRITON, false, 2048, 128), 155.0 / 68, 1e-12,
		 "triton forward at 2k, d 128: FA2 Fig. 4d 155 / 68 TFLOP/s = 2.279");
	tap_near(attn_impl_factor(ATTN_TRITON, true, 2048, 128), 155.0 / 68, 1e-12,
		 "triton backward: the same fwd+bwd ratio");
	/* Figure 4 (c), causal, head dim 64, seq 8k: FA2 165, Triton 79 */
	tap_near(attn_impl_factor(ATTN_TRITON, false, 8192, 64), 165.0 / 79, 1e-12,
		 "triton at 8k, d 64: FA2 Fig. 4c 165 / 79 = 2.089");
	/* FA3 paper Figure 5 (d), forward causal d 128, 4k: FA2 319, FA3 579 */
	tap_near(attn_impl_factor(ATTN_FLASH3, false, 4096, 128), 319.0 / 579, 1e-12,
		 "flash3 forward at 4k, d 128: FA3 Fig. 5d 319 / 579 = 0.551");
	/* Figure 6, backward d 128, 4k: FA2 310, FA3 542 */
	tap_near(attn_impl_factor(ATTN_FLASH3, true, 4096, 128), 310.0 / 542, 1e-12,
		 "flash3 backward at 4k, d 128: FA3 Fig. 6 310 / 542 = 0.572");
	/* Figure 5 (d), 1k: FA2 260, cuDNN 410; Figure 6, d 64, 16k: 291, 433 */
	tap_near(attn_impl_factor(ATTN_CUDNN, false, 1024, 128), 260.0 / 410, 1e-12,
		 "cudnn forward at 1k, d 128: FA3 Fig. 5d 260 / 410 = 0.634");
	tap_near(attn_impl_factor(ATTN_CUDNN, true, 16384, 64), 291.0 / 433, 1e-12,
		 "cudnn backward at 16k, d 64: FA3 Fig. 6 291 / 433 = 0.672");
	tap_near(attn_impl_factor(ATTN_FLASH2, true, 3000, 96), 1, 0,
		 "flash2 is the law itself");
	tap_near(attn_impl_factor(ATTN_UNFUSED, false, 3000, 96), 1, 0,
		 "unfused takes no factor (its kernels are priced one by one)");
	/* between 2k and 4k at d 128: w = ln(3000/2048)/ln 2 = 0.550746,
	 * 155/68 + w (173/74 - 155/68) = 2.279412 + 0.550746 x 0.058426 */
	tap_near(attn_impl_factor(ATTN_TRITON, false, 3000, 128), 2.311590, 1e-6,
		 "triton at 3000 tokens: linear in ln seq between 2k and 4k");
	/* d 96 at 512: w = ln(96/64)/ln 2 = 0.584963 between 88/59 = 1.491525
	 * and 99/50 = 1.98: 1.491525 + 0.584963 x 0.488475 = 1.777264 */
	tap_near(attn_impl_factor(ATTN_TRITON, false, 512, 96), 1.777264, 1e-6,
		 "triton at head dim 96: linear in ln d between 64 and 128");
	tap_near(attn_impl_factor(ATTN_TRITON, false, 32768, 256), 189.0 / 80, 1e-12,
		 "beyond 16k and d 128: held at the last bars (189 / 80)");
	tap_near(attn_impl_factor(ATTN_TRITON, true, 128, 32), 88.0 / 59, 1e-12,
		 "below 512 and d 64: held at the first bars (88 / 59)");
	tap_ok(attn_impl_find("triton") == ATTN_TRITON &&
	       attn_impl_find("unfused") == ATTN_UNFUSED &&
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
	sh.flash = false;
	double un = cmp_attn_core_s(&g, &sh, false);
	sh.attn = ATTN_FLASH2;
	tap_near(cmp_attn_core_s(&g, &sh, false), un, 0,
		 "without flash the kind of flash kernel changes nothing");
	return tap_done();
}
