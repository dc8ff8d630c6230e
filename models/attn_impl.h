/*
 * attn_impl.h -- which attention kernel a stack runs, and how fast each
 * flash implementation is relative to the FlashAttention-2-class law.
 *
 * The GPU's attention law (kernels.h) is fitted to PyTorch's SDPA flash
 * backend, a FlashAttention-2 kernel.  Other implementations are priced as
 * that law times the ratio of FlashAttention-2's published speed to
 * theirs, on the same GPU in the same figure, by pass (forward or
 * backward), sequence length and head dimension:
 *     t_impl(s, d) = t_law(s, d) x TFLOPs_FA2(s, d) / TFLOPs_impl(s, d)
 * interpolated linearly in ln s between the figures' lengths 512..16k and
 * in ln d between head dims 64 and 128, held flat beyond both (attn_impl.c
 * holds the figures' numbers and says which figure).  "unfused" is no
 * flash kernel at all: compute.h's bmm/softmax/dropout/bmm path, priced
 * kernel by kernel, with no factor.
 */
#ifndef MODELS_ATTN_IMPL_H
#define MODELS_ATTN_IMPL_H

#include <stdbool.h>

/* FLASH2 first: a zeroed struct cmp_shape means FlashAttention-2. */
enum attn_impl {
	ATTN_FLASH2,	/* FlashAttention-2 / SDPA flash backend: the law */
	ATTN_FLASH3,	/* FlashAttention-3 (Hopper) */
	ATTN_TRITON,	/* flash_attn_triton.py (HazyResearch, 2022-23) */
	ATTN_CUDNN,	/* cuDNN fused attention (SDPA cudnn, Transformer Engine) */
	ATTN_UNFUSED,	/* bmm, softmax, dropout, bmm */
	ATTN_COUNT
};

/* "flash2|flash3|triton|cudnn|unfused" for the settings table. */
#define ATTN_IMPL_CHOICES "flash2|flash3|triton|cudnn|unfused"
extern const char *const attn_impl_names[ATTN_COUNT];

/* The implementation called name; ATTN_COUNT if none. */
enum attn_impl attn_impl_find(const char *name);

/* Time of implementation `impl`'s causal kernel over that of
 * FlashAttention-2 at sequence seq and head dim d, forward or backward
 * (1 for flash2 and unfused). */
double attn_impl_factor(enum attn_impl impl, bool bwd, double seq, double d);

#endif
