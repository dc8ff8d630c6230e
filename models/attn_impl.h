/*
 * attn_impl.h -- which attention kernel a stack runs, and how fast each
 * flash implementation is relative to the kernel the GPU's law describes.
 *
 * The GPU's attention law (kernels.h) describes one implementation, named
 * by the catalog's gpus.*.attn_kernel: FlashAttention-2 on A100 (the FA2
 * paper's rates), a Hopper-native kernel on H100/H200 (the measured
 * H200 SDPA rates match FlashAttention-3's published ones; gpus.cfg).
 * Every implementation's published speed is known relative to
 * FlashAttention-2 on the same GPU in the same figure, by pass (forward
 * or backward), sequence length and head dimension, so another
 * implementation is priced as the law times the ratio of the two:
 *     t_impl(s, d) = t_law(s, d) x r_impl(s, d) / r_law(s, d),
 *     r_x = TFLOPs_FA2(s, d) / TFLOPs_x(s, d)   (r_flash2 = 1)
 * interpolated linearly in ln s between the figures' lengths 512..16k and
 * in ln d between head dims 64 and 128, held flat beyond both (attn_impl.c
 * holds the figures' numbers and says which figure).  "unfused" is no
 * flash kernel at all: compute.h's bmm/softmax/dropout/bmm path, priced
 * kernel by kernel, with no factor.  "te" is Transformer Engine's own
 * choice, resolved against the GPU: cuDNN's fused attention where the GPU
 * is Hopper or newer, flash-attn v2 before.
 */
#ifndef MODELS_ATTN_IMPL_H
#define MODELS_ATTN_IMPL_H

#include <stdbool.h>

/* FLASH2 first: a zeroed struct cmp_shape means FlashAttention-2. */
enum attn_impl {
	ATTN_FLASH2,	/* FlashAttention-2 / SDPA flash backend */
	ATTN_FLASH3,	/* FlashAttention-3 (Hopper) */
	ATTN_TRITON,	/* flash_attn_triton.py (HazyResearch, 2022-23) */
	ATTN_CUDNN,	/* cuDNN fused attention (SDPA cudnn, Transformer Engine) */
	ATTN_UNFUSED,	/* bmm, softmax, dropout, bmm */
	ATTN_TE,	/* Transformer Engine's choice: cuDNN or flash2 */
	ATTN_FLASH1,	/* FlashAttention v1 (flash_attn < 2.0, 2022-23) */
	ATTN_COUNT
};

/* "flash2|flash3|triton|cudnn|unfused|te|flash1" for the settings table. */
#define ATTN_IMPL_CHOICES "flash2|flash3|triton|cudnn|unfused|te|flash1"
/* The kinds a GPU's attention law may describe. */
#define ATTN_LAW_CHOICES "flash2|flash3|cudnn"
extern const char *const attn_impl_names[ATTN_COUNT];

/* The implementation called name; ATTN_COUNT if none. */
enum attn_impl attn_impl_find(const char *name);

/* The kernel `impl` runs on a GPU whose law describes `law`: "te"
 * becomes cuDNN where the law is a Hopper-native kernel (Transformer
 * Engine >= 1.4 prefers FusedAttention on sm90 and newer), flash2 where
 * it is FlashAttention-2; anything else stays. */
enum attn_impl attn_impl_resolve(enum attn_impl impl, enum attn_impl law);

/* Time of implementation `impl`'s causal kernel over that of the law's
 * kernel `law` at sequence seq and head dim d, forward or backward (1 for
 * unfused, and where impl is law). */
double attn_impl_factor(enum attn_impl impl, enum attn_impl law, bool bwd, double seq,
			double d);

/* How much slower per FLOP the law's kind of kernel runs at head dim d
 * than at 128, the head dim of every measured attention table (the
 * catalog's kernels/GPU/attention.tsv): its published speed at 128 over
 * its speed at d, at sequence seq, forward or backward, on its figure
 * (FA3 paper Figures 5 and 6 for flash3 and cudnn laws; d held within
 * 64..128, seq within 512..16k).  1 for a flash2 law: the A100's is fitted to the FA2 paper's
 * bars at both head dims, so it carries their mean already. */
double attn_impl_dim_ratio(enum attn_impl law, bool bwd, double seq, double d);

/* Whether a law of kind `law` runs its tiles in waves of one an SM
 * (kernels.h kern_attn_law.waves): true for the Hopper and Blackwell
 * kinds, whose kernels hold a whole SM each; false for flash2 (attn_impl.c
 * says why). */
bool attn_impl_waves(enum attn_impl law);

/* FlashAttention-2's own speed on an A100 80GB, the data the A100's
 * attention law is fitted to (tests/kernels-t): forward+backward, causal,
 * as the FA2 paper's Figure 4 (c, d) labels its bars, 16k tokens a batch
 * at hidden 2048 (heads = 2048 / d).  Point i of the twelve: sequence,
 * head dim and TFLOP/s (the paper's count: 4 s^2 d a head forward, halved
 * for causal, backward 2.5x); false past the last. */
bool attn_impl_fa2_a100_point(int i, double *seq, double *d, double *tflops);

#endif
