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
 * (Hopper's FP8 GEMMs take only the TN layout, so each FP8 operand used
 * both ways is also kept transposed: TE docs, "Using FP8 with Transformer
 * Engine"; Micikevicius et al., "FP8 Formats for Deep Learning", 2022,
 * arXiv:2209.05433, for E4M3 forward / E5M2 gradients.)
 * Assumption: a transpose streams at the copy rate (TE's cast_transpose
 * kernels are written to be bandwidth-bound; no measurement here). */
#include "models/compute.h"

#define BF16_B 2.0
#define FP8_B 1.0
#define CAST_B (BF16_B + FP8_B)			/* cast_to_fp8 */
#define CAST_T_B (BF16_B + 2 * FP8_B)		/* fp8_cast_transpose_fused */
#define TRANSPOSE_B (2 * FP8_B)			/* fp8_transpose */
/* The weight's cast and transpose (get_fp8_workspace: cast_transpose of
 * the bf16 weight into its cached FP8 copy and transpose). */
#define WEIGHT_B CAST_T_B

static void pass(const struct gpu_spec *g, double bytes, struct cmp_cost *acc)
{
	struct cmp_cost c;

	if (bytes <= 0)
		return;
	cmp_stream(g, KS_COPY, bytes, &c);
	cmp_add(acc, &c, 1);
}

/* Forward: the GEMM's input.  TELayerNormColumnParallelLinear (Megatron-
 * Core's QKV and FC1) has its LayerNorm write FP8 (layernorm_fwd_fp8; the
 * LN output is not returned): no pass.  A plain TE Linear (the row-
 * parallel proj and FC2, whose inputs are the attention and activation
 * outputs; MoE experts and latent-attention projections) casts its input:
 * with sequence parallelism cast_to_fp8 alone, else
 * fp8_cast_transpose_fused, which also keeps the transpose wgrad needs
 * (linear.py: `not sequence_parallel` chooses the fused kernel). */
static void fwd_passes(const struct gpu_spec *g, const struct cmp_shape *sh,
		       enum cmp_te_kind kind, double in_elems, struct cmp_cost *acc)
{
	if (kind == CMP_TE_LN_COL)
		return;
	pass(g, in_elems * (sh->sp ? CAST_B : CAST_T_B), acc);
}

/* Backward: the output gradient, to FP8 (E5M2) and transposed for wgrad
 * (grad_output_preprocess): a row-parallel GEMM under sequence parallelism
 * gets its gradient sequence-split, casts that shard (cast_to_fp8), gathers
 * it in FP8 and transposes the gathered tensor (fp8_transpose); otherwise
 * one fp8_cast_transpose(_bgrad)_fused.  Then the saved input's transpose
 * for wgrad where the forward did not keep one: LayerNormLinear's
 * (fp8_transpose of ln_out_total), and Linear's under sequence
 * parallelism (fp8_transpose of inputmat_total).  dgrad leaves in bf16. */
static void bwd_passes(const struct gpu_spec *g, const struct cmp_shape *sh,
		       enum cmp_te_kind kind, double M, double N, double K,
		       struct cmp_cost *acc)
{
	double dy = M * N;

	if (kind == CMP_TE_ROW && sh->sp && sh->tp > 1) {
		pass(g, dy / sh->tp * CAST_B, acc);
		pass(g, dy * TRANSPOSE_B, acc);
	} else {
		pass(g, dy * CAST_T_B, acc);
	}
	if (kind == CMP_TE_LN_COL || sh->sp)
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

double cmp_fp8_weights_s(const struct gpu_spec *g, double params)
{
	return params > 0 ? kern_stream_s(&g->k, KS_COPY, params * WEIGHT_B) : 0;
}
