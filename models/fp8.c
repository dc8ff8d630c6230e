/* fp8.c -- the memory-bound passes Transformer Engine's FP8 (delayed
 * scaling) runs around its GEMMs; see compute.h (cmp_fp8_io).
 *
 * Source: NVIDIA/TransformerEngine v1.13 (2024-12; the TE of NeMo
 * 24.12-25.02 and Megatron-Core core_r0.10-r0.12),
 * transformer_engine/pytorch/module/linear.py (_Linear.forward/backward),
 * layernorm_linear.py, base.py (grad_output_preprocess, get_fp8_workspace).
 * Every pass is one streaming kernel priced at the copy rate (KS_COPY):
 *   cast_to_fp8            read 2 bytes, write 1            3 B/element
 *   fp8_cast_transpose     read 2, write 1 + 1 (transposed) 4 B/element
 *   fp8_transpose          read 1, write 1                  2 B/element
 *   amax (current scaling) read 2                           2 B/element
 * Current scaling (TE 2.x Float8CurrentScaling, NeMo's "tensorwise") takes
 * each tensor's scale from its own amax, so every cast of a bf16 tensor
 * is preceded by a pass that reads it, and the LayerNorm cannot write FP8
 * (its output's amax is known only once it is written): its bf16 output
 * is cast as a Linear's input is.  TE's GEMM-profiling page (docs/
 * examples/gemm_profiling, 2026; H200 NVL) measures the difference: 20.285
 * against 18.978 ms a layer for the same GEMMs with their quantization,
 * +1.31 ms over 2.48 G quantized elements, 2 bytes each at 3.8 TB/s
 * (tests/kernels-t checks this model against it).  The amax all-reduce of
 * sequence-parallel tensors (a few bytes over the TP group) is not
 * charged.
 * (Hopper's FP8 GEMMs take only the TN layout, so each FP8 operand used
 * both ways is also kept transposed: TE docs, "Using FP8 with Transformer
 * Engine"; Micikevicius et al., "FP8 Formats for Deep Learning", 2022,
 * arXiv:2209.05433, for E4M3 forward / E5M2 gradients.)
 * Assumption: a transpose streams at the copy rate (TE's cast_transpose
 * kernels are written to be bandwidth-bound; no measurement here).
 *
 * MXFP8 (TE 2.x MXFP8BlockScaling; OCP Microscaling Formats v1.0, 2023:
 * blocks of 32 elements sharing one E8M0 scale byte): the block scales
 * are local, so no amax pass; Blackwell's GEMMs read both operands along
 * K, so each tensor a GEMM reads both ways is kept as a row-wise and a
 * column-wise copy (each block scaled along its own direction), and one
 * kernel writes both with their scales (common/cast/mxfp8/
 * quantize_mxfp8.cuh, ROWWISE_SCALING and COLWISE_SCALING together):
 *   mxfp8 quantize        read 2, write 2 x (1 + 1/32)     4.0625 B/element
 * and nothing is transposed later.  The norm writes bf16 (TE's norm
 * kernel writes MXFP8 only through cuDNN with NVTE_NORM_FWD_USE_CUDNN,
 * pytorch/csrc/extensions/normalization.cpp), quantized as a Linear's
 * input is; under sequence parallelism the shard is quantized before the
 * gather, as current scaling's.  TE's GEMM-profiling page measures
 * B300's quantization at 1.823 ms a layer for MXFP8 against 2.335 for
 * current scaling (autocast less pre-quantized, the 5B example; tests/
 * kernels-t compares).
 *
 * NVFP4 (TE 2.8+ NVFP4BlockScaling; NVIDIA, "Pretraining Large Language
 * Models with NVFP4", arXiv:2509.25149, 2025): 4-bit E2M1 values, an E4M3
 * scale per 16 elements and an FP32 scale per tensor from its amax, so
 * like current scaling an amax pass first, then like MXFP8 one kernel
 * writing both the row- and the column-wise copies with their scales:
 *   nvfp4 amax + quantize read 2, then read 2, write 2 x (0.5 + 1/16)
 *                                                      5.125 B/element
 * The recipe's defaults (TE v2.18 common/recipe/__init__.py): inputs and
 * gradients get a 16 x 16 random Hadamard transform on their column-wise
 * copy, the one wgrad reads ("RHT is currently only applied to column-wise
 * usage"), whose FP32 scale needs the transformed tensor's own amax: one
 * read more, 7.125 B/element; weights a 16 x 16 block scale, no
 * transform; gradients stochastic rounding (in the quantizing kernel, not
 * charged).  MLPerf Training v5.1's NVFP4 runs turn all three off
 * (NVTE_NVFP4_DISABLE_RHT and the rest in NVIDIA's config_common_fp4.sh):
 * parallel.nvfp4_hadamard = false drops the transforms' amax passes.
 *
 * FP8 block scaling on Hopper (TE 2.x Float8BlockScaling, Megatron-Core
 * --fp8-recipe blockwise, Megatron-Bridge's "fp8_sc" (subchannel); the
 * scaling of DeepSeek-V3, arXiv:2412.19437 sec. 3.3.1): an FP32 scale per
 * 1 x 128 block of an input or a gradient, per 128 x 128 block of a
 * weight, each block's amax taken in the quantizing kernel, so no amax
 * pass; Hopper's FP8 GEMMs read both operands along K, so the kernel
 * writes a row-wise copy and a transposed column-wise one with their
 * scales (common/transpose/quantize_transpose_vector_blockwise.cu,
 * quantize_transpose_square_blockwise.cu):
 *   1 x 128 quantize       read 2, write 2 x (1 + 4/128)   4.0625 B/element
 *   128 x 128 (weights)    read 2, write 2 x (1 + 4/128^2) ~4 B/element
 * the same bytes as MXFP8's (an FP32 scale per 128 is a byte per 32).  The
 * norm writes bf16, quantized as a Linear's input is.  cuBLAS runs the
 * GEMMs with the scales as the quantizer laid them out (no swizzle) at the
 * GPU's gemm_fp8_block_ratio of the per-tensor time (gpus.cfg). */
#include "models/compute.h"

#define BF16_B 2.0
#define FP8_B 1.0
#define CAST_B (BF16_B + FP8_B)			/* cast_to_fp8 */
#define CAST_T_B (BF16_B + 2 * FP8_B)		/* fp8_cast_transpose_fused */
#define TRANSPOSE_B (2 * FP8_B)			/* fp8_transpose */
/* The weight's cast and transpose (get_fp8_workspace: cast_transpose of
 * the bf16 weight into its cached FP8 copy and transpose). */
#define WEIGHT_B CAST_T_B
#define AMAX_B BF16_B				/* current scaling's amax pass */
#define MX_SCALE_B (1.0 / 32)			/* an E8M0 scale per 32 elements */
#define MX_QUANT_B (BF16_B + 2 * (FP8_B + MX_SCALE_B))	/* both copies */
#define FP4_B 0.5
#define NV_SCALE_B (1.0 / 16)			/* an E4M3 scale per 16 elements */
#define NV_QUANT_B (AMAX_B + BF16_B + 2 * (FP4_B + NV_SCALE_B))	/* amax, both copies */
#define NV_RHT_B AMAX_B		/* the transformed copy's own amax */
#define BLK_SCALE_B (4.0 / 128)			/* an FP32 scale per 1 x 128 */
#define BLK_QUANT_B (BF16_B + 2 * (FP8_B + BLK_SCALE_B))	/* both copies */
#define BLK_W_QUANT_B (BF16_B + 2 * (FP8_B + 4.0 / (128 * 128)))	/* 128 x 128 */

/* The block-scaled recipes' one quantization of an input or a gradient
 * into both copies, bytes per element (0: a per-tensor FP8 recipe). */
static double block_quant_b(const struct cmp_shape *sh)
{
	if (sh->fp8_scaling == CMP_FP4_NV)
		return NV_QUANT_B + (sh->fp4_no_rht ? 0 : NV_RHT_B);
	if (sh->fp8_scaling == CMP_FP8_BLOCK)
		return BLK_QUANT_B;
	return sh->fp8_scaling == CMP_FP8_MX ? MX_QUANT_B : 0;
}

static void pass(const struct gpu_spec *g, double bytes, struct cmp_cost *acc)
{
	struct cmp_cost c;

	if (bytes <= 0)
		return;
	cmp_stream(g, KS_COPY, bytes, &c);
	cmp_add(acc, &c, 1);
}

/* Current scaling's amax of `elems` bf16 elements before their cast. */
static void amax(const struct gpu_spec *g, const struct cmp_shape *sh, double elems,
		 struct cmp_cost *acc)
{
	if (sh->fp8_scaling == CMP_FP8_CURRENT)
		pass(g, elems * AMAX_B, acc);
}

/* Forward: the GEMM's input.  TELayerNormColumnParallelLinear (Megatron-
 * Core's QKV and FC1) has its LayerNorm write FP8 under delayed scaling
 * (layernorm_fwd_fp8; the LN output is not returned): no pass.  A plain
 * TE Linear (the row-parallel proj and FC2, whose inputs are the attention
 * and activation outputs; MoE experts and latent-attention projections),
 * and the LayerNorm's output under current scaling, is cast: with
 * sequence parallelism cast_to_fp8 alone, else fp8_cast_transpose_fused,
 * which also keeps the transpose wgrad needs (linear.py: `not
 * sequence_parallel` chooses the fused kernel). */
static void fwd_passes(const struct gpu_spec *g, const struct cmp_shape *sh,
		       enum cmp_te_kind kind, double in_elems, struct cmp_cost *acc)
{
	double elems = in_elems;

	if (kind == CMP_TE_LN_COL) {
		if (sh->fp8_scaling == CMP_FP8_DELAYED)
			return;
		if (sh->sp)	/* cast before the all-gather, as the LN wrote it */
			elems /= sh->tp;
	}
	if (block_quant_b(sh) > 0) {
		pass(g, elems * block_quant_b(sh), acc);
		return;
	}
	amax(g, sh, elems, acc);
	pass(g, elems * (sh->sp ? CAST_B : CAST_T_B), acc);
}

/* Backward: the output gradient, to FP8 (E5M2) and transposed for wgrad
 * (grad_output_preprocess): a row-parallel GEMM under sequence parallelism
 * gets its gradient sequence-split, casts that shard (cast_to_fp8), gathers
 * it in FP8 and transposes the gathered tensor (fp8_transpose); otherwise
 * one fp8_cast_transpose(_bgrad)_fused.  Then the saved input's transpose
 * for wgrad where the forward did not keep one: LayerNormLinear's
 * (fp8_transpose of ln_out_total; under current scaling its forward cast
 * kept one unless sequence parallel), and Linear's under sequence
 * parallelism (fp8_transpose of inputmat_total).  dgrad leaves in bf16. */
static void bwd_passes(const struct gpu_spec *g, const struct cmp_shape *sh,
		       enum cmp_te_kind kind, double M, double N, double K,
		       struct cmp_cost *acc)
{
	double dy = M * N;
	bool split = kind == CMP_TE_ROW && sh->sp && sh->tp > 1;

	if (block_quant_b(sh) > 0) {	/* its shard, then gathered */
		pass(g, (split ? dy / sh->tp : dy) * block_quant_b(sh), acc);
		return;
	}
	if (split) {
		amax(g, sh, dy / sh->tp, acc);
		pass(g, dy / sh->tp * CAST_B, acc);
		pass(g, dy * TRANSPOSE_B, acc);
	} else {
		amax(g, sh, dy, acc);
		pass(g, dy * CAST_T_B, acc);
	}
	if ((kind == CMP_TE_LN_COL && sh->fp8_scaling == CMP_FP8_DELAYED) || sh->sp)
		pass(g, M * K * TRANSPOSE_B, acc);
}

void cmp_fp8_io(const struct gpu_spec *g, const struct cmp_shape *sh,
		enum cmp_te_kind kind, bool bwd, double M, double N, double K,
		struct cmp_cost *out)
{
	cmp_zero(out);
	if (bwd)
		bwd_passes(g, sh, kind, M, N, K, out);
	else
		fwd_passes(g, sh, kind, M * K, out);
}

double cmp_fp8_weights_s(const struct gpu_spec *g, double params,
			 enum cmp_fp8_scaling scaling)
{
	if (params <= 0)
		return 0;
	if (scaling == CMP_FP8_MX || scaling == CMP_FP4_NV)	/* weights: no transform */
		return kern_stream_s(&g->k, KS_COPY, params *
				     (scaling == CMP_FP8_MX ? MX_QUANT_B : NV_QUANT_B));
	if (scaling == CMP_FP8_BLOCK)
		return kern_stream_s(&g->k, KS_COPY, params * BLK_W_QUANT_B);
	return kern_stream_s(&g->k, KS_COPY, params * WEIGHT_B) +
	       (scaling == CMP_FP8_CURRENT ? kern_stream_s(&g->k, KS_COPY, params * AMAX_B) : 0);
}
