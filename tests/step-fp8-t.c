/* step-fp8-t.c -- Transformer Engine's FP8 passes (models/fp8.c) on the toy
 * GPU (tests/toy-gpu.h: copies at 0.5 TB/s, 5 us per kernel).  Expected
 * times by hand from the byte counts of TE v1.13's kernels (fp8.c):
 * cast 3 B/element, cast+transpose 4, fp8 transpose 2, weights 4 B/param;
 * MXFP8's quantize (TE 2.x) 4.0625, FP8 block scaling's 4.0625 (1 x 128)
 * and 4.0005 (128 x 128). */
#include <math.h>

#include "tests/tap.h"
#include "models/compute.h"
#include "tests/toy-gpu.h"

#define COPY_BPS 0.5e12
#define LAUNCH_S 5e-6

static double pass_s(double bytes)
{
	return bytes / COPY_BPS + LAUNCH_S;
}

int main(void)
{
	struct gpu_spec g;
	struct cmp_cost c, bf, f8;
	struct cmp_shape sh = { .b = 1, .s = 1024, .h = 1024, .a = 16, .V = 32768,
				.tp = 1, .flash = true, .fused = true, .fp8 = true };

	toy(&g);
	tap_plan(30);

	/* forward: a row-parallel GEMM's input [1000 x 2000] */
	sh.sp = true;
	cmp_fp8_io(&g, &sh, CMP_TE_ROW, false, 1000, 500, 2000, &c);
	tap_near(c.time_s, pass_s(2e6 * 3), 1e-12,
		 "fwd, sequence parallel: cast_to_fp8 reads 2 B, writes 1 (17 us)");
	sh.sp = false;
	cmp_fp8_io(&g, &sh, CMP_TE_ROW, false, 1000, 500, 2000, &c);
	tap_near(c.time_s, pass_s(2e6 * 4), 1e-12,
		 "fwd, no SP: fp8_cast_transpose_fused writes 1 + 1 (21 us)");
	cmp_fp8_io(&g, &sh, CMP_TE_LN_COL, false, 1000, 500, 2000, &c);
	tap_ok(c.time_s == 0 && c.kernels == 0,
	       "fwd, LayerNormLinear: the LayerNorm writes FP8, no pass");

	/* backward of a row-parallel GEMM [1000 x 500] x [500 x 2000] under
	 * SP on 4 ranks: cast the 1/4 shard of dy (1.5 MB), transpose the
	 * gathered FP8 dy (4 MB), transpose the saved input (1 MB) */
	sh.sp = true;
	sh.tp = 4;
	cmp_fp8_io(&g, &sh, CMP_TE_ROW, true, 1000, 2000, 500, &c);
	tap_near(c.time_s, pass_s(1.5e6) + pass_s(4e6) + pass_s(1e6), 1e-12,
		 "bwd, row-parallel under SP: cast shard, fp8 transpose dy and input (28 us)");
	tap_near(c.kernels, 3, 1e-12, "bwd, row-parallel under SP: three kernels");
	/* LayerNormLinear without SP: dy [1000 x 3000] cast+transposed
	 * (12 MB), its FP8 LN output [1000 x 2000] transposed (4 MB) */
	sh.sp = false;
	sh.tp = 1;
	cmp_fp8_io(&g, &sh, CMP_TE_LN_COL, true, 1000, 3000, 2000, &c);
	tap_near(c.time_s, pass_s(12e6) + pass_s(4e6), 1e-12,
		 "bwd, LayerNormLinear: cast_transpose dy, fp8 transpose of ln_out (42 us)");
	cmp_fp8_io(&g, &sh, CMP_TE_COL, true, 1000, 3000, 2000, &c);
	tap_near(c.time_s, pass_s(12e6), 1e-12,
		 "bwd, Linear without SP: its input's transpose came from the forward");
	tap_near(cmp_fp8_weights_s(&g, 1e6, CMP_FP8_DELAYED), pass_s(4e6), 1e-12,
		 "weights: 1M parameters cast and transposed, 4 B each (13 us)");
	tap_ok(cmp_fp8_weights_s(&g, 0, CMP_FP8_DELAYED) == 0, "no weights, no pass");

	/* current scaling: an amax pass (2 B/element read) before every cast
	 * of a bf16 tensor, and the LayerNorm's output cast as a Linear's */
	sh.fp8_scaling = CMP_FP8_CURRENT;
	sh.sp = false;
	sh.tp = 1;
	cmp_fp8_io(&g, &sh, CMP_TE_ROW, false, 1000, 500, 2000, &c);
	tap_near(c.time_s, pass_s(2e6 * 2) + pass_s(2e6 * 4), 1e-12,
		 "current, fwd, no SP: amax then cast_transpose (34 us)");
	cmp_fp8_io(&g, &sh, CMP_TE_LN_COL, false, 1000, 500, 2000, &c);
	tap_near(c.time_s, pass_s(2e6 * 2) + pass_s(2e6 * 4), 1e-12,
		 "current, fwd, LayerNormLinear: its bf16 output amax'd and cast (34 us)");
	cmp_fp8_io(&g, &sh, CMP_TE_LN_COL, true, 1000, 3000, 2000, &c);
	tap_near(c.time_s, pass_s(3e6 * 2) + pass_s(12e6), 1e-12,
		 "current, bwd, LayerNormLinear: dy amax and cast_transpose, the input's "
		 "transpose kept from the forward (46 us)");
	sh.sp = true;
	sh.tp = 4;
	cmp_fp8_io(&g, &sh, CMP_TE_LN_COL, false, 1000, 500, 2000, &c);
	tap_near(c.time_s, pass_s(0.5e6 * 2) + pass_s(0.5e6 * 3), 1e-12,
		 "current, fwd, LayerNormLinear under SP on 4: the 1/4 shard amax'd and "
		 "cast before the gather (15 us)");
	cmp_fp8_io(&g, &sh, CMP_TE_ROW, true, 1000, 2000, 500, &c);
	tap_near(c.time_s, pass_s(0.5e6 * 2) + pass_s(1.5e6) + pass_s(4e6) + pass_s(1e6),
		 1e-12, "current, bwd, row-parallel under SP: amax of the dy shard first (35 us)");
	tap_near(cmp_fp8_weights_s(&g, 1e6, CMP_FP8_CURRENT), pass_s(4e6) + pass_s(2e6), 1e-12,
		 "current, weights: amax then cast_transpose (22 us)");

	/* MXFP8: one quantize writes the row- and column-wise copies with a
	 * scale byte per 32 elements, 2 + 2 x (1 + 1/32) = 4.0625 B/element,
	 * no amax, no transposes */
	sh.fp8_scaling = CMP_FP8_MX;
	sh.sp = false;
	sh.tp = 1;
	cmp_fp8_io(&g, &sh, CMP_TE_ROW, false, 1000, 500, 2000, &c);
	tap_near(c.time_s, pass_s(2e6 * 4.0625), 1e-12,
		 "mxfp8, fwd, no SP: one quantize of the input (21.25 us)");
	cmp_fp8_io(&g, &sh, CMP_TE_LN_COL, true, 1000, 3000, 2000, &c);
	tap_near(c.time_s, pass_s(3e6 * 4.0625), 1e-12,
		 "mxfp8, bwd, LayerNormLinear: dy's quantize alone, the input's "
		 "column-wise copy kept from the forward (29.38 us)");
	sh.sp = true;
	sh.tp = 4;
	cmp_fp8_io(&g, &sh, CMP_TE_LN_COL, false, 1000, 500, 2000, &c);
	tap_near(c.time_s, pass_s(0.5e6 * 4.0625), 1e-12,
		 "mxfp8, fwd, LayerNormLinear under SP on 4: the bf16 norm's 1/4 shard "
		 "quantized before the gather (9.06 us)");
	cmp_fp8_io(&g, &sh, CMP_TE_ROW, true, 1000, 2000, 500, &c);
	tap_ok(fabs(c.time_s - pass_s(0.5e6 * 4.0625)) < 1e-15 && c.kernels == 1,
	       "mxfp8, bwd, row-parallel under SP: the dy shard's quantize, one kernel");
	tap_near(cmp_fp8_weights_s(&g, 1e6, CMP_FP8_MX), pass_s(4.0625e6), 1e-12,
		 "mxfp8, weights: both copies of 1M parameters (13.13 us)");
	/* the GEMMs at the GPU's MXFP8 ratio of the per-tensor FP8 time,
	 * after swizzling each operand's scales: read and write 1 B per 32
	 * elements of a 1024 x 1024 operand, 64 KiB, two kernels */
	g.mx_gemm_ratio = 1.25;
	cmp_gemm(&g, true, 1, 1024, 1024, 1024, &bf);
	cmp_te_gemm(&g, &sh, 1, 1024, 1024, 1024, &f8);
	tap_ok(fabs(f8.gemm_s / bf.time_s - 1.25) < 1e-12 && f8.flops == bf.flops,
	       "mxfp8 GEMM: 1.25x the FP8 time, the same FLOPs");
	tap_ok(fabs(f8.time_s - f8.gemm_s - 2 * pass_s(65536)) < 1e-15 && f8.kernels == 3,
	       "mxfp8 GEMM: two scale swizzles before it (10.26 us)");
	g.mx_gemm_ratio = 0;

	/* Hopper's FP8 block scaling (Float8BlockScaling): one quantize
	 * writes both copies with an FP32 scale per 1 x 128 block, 2 + 2 x
	 * (1 + 4/128) = 4.0625 B/element; weights per 128 x 128, 2 + 2 x
	 * (1 + 4/16384) = 4.00049 B/parameter; the GEMM at the GPU's
	 * gemm_fp8_block_ratio, its scales read as written (no swizzle) */
	sh.fp8_scaling = CMP_FP8_BLOCK;
	sh.sp = false;
	sh.tp = 1;
	cmp_fp8_io(&g, &sh, CMP_TE_COL, false, 1000, 500, 2000, &c);
	tap_near(c.time_s, pass_s(2e6 * 4.0625), 1e-12,
		 "blockwise, fwd: one quantize of the input, no amax pass (21.25 us)");
	cmp_fp8_io(&g, &sh, CMP_TE_COL, true, 1000, 3000, 2000, &c);
	tap_ok(fabs(c.time_s - pass_s(3e6 * 4.0625)) < 1e-15 && c.kernels == 1,
	       "blockwise, bwd: dy's quantize alone, one kernel (29.38 us)");
	tap_near(cmp_fp8_weights_s(&g, 1e6, CMP_FP8_BLOCK), pass_s(1e6 * (2 + 2 * (1 + 4.0 / 16384))),
		 1e-12, "blockwise, weights: 128 x 128 blocks, 4.0005 B a parameter (13.00 us)");
	g.fp8_block_gemm_ratio = 1.213;
	cmp_gemm(&g, true, 1, 1024, 1024, 1024, &bf);
	cmp_te_gemm(&g, &sh, 1, 1024, 1024, 1024, &f8);
	tap_ok(fabs(f8.time_s / bf.time_s - 1.213) < 1e-12 && f8.flops == bf.flops &&
	       f8.kernels == bf.kernels, "blockwise GEMM: 1.213x the FP8 time, the same "
	       "FLOPs, no swizzle kernel");
	g.fp8_block_gemm_ratio = 0;
	sh.fp8_scaling = CMP_FP8_DELAYED;

	/* A whole GPT layer with the FP8 law equal to bf16's: the forward
	 * adds exactly the casts of proj's input [1024 x 1024] and FC2's
	 * [1024 x 4096] (cast_transpose, no SP): 20 MiB at 0.5 TB/s + 2
	 * launches = 51.94 us */
	sh.fp8 = false;
	cmp_layer_fwd(&g, &sh, &bf);
	sh.fp8 = true;
	cmp_layer_fwd(&g, &sh, &f8);
	tap_near(f8.time_s - bf.time_s, pass_s(1024.0 * 1024 * 4) + pass_s(1024.0 * 4096 * 4),
		 1e-9, "FP8 layer forward = bf16 + casts of proj and FC2 inputs");
	tap_near(f8.kernels - bf.kernels, 2, 1e-12, "two cast kernels per layer forward");
	/* backward: per GEMM cast_transpose of dy and (LN ones) the input's
	 * transpose: QKV dy 1024x3072 + x 1024x1024, proj dy 1024x1024,
	 * FC1 dy 1024x4096 + x 1024x1024, FC2 dy 1024x1024 */
	sh.fp8 = false;
	cmp_layer_bwd(&g, &sh, &bf);
	sh.fp8 = true;
	cmp_layer_bwd(&g, &sh, &f8);
	double T = 1024, h = 1024;
	double want = pass_s(T * 3 * h * 4) + pass_s(T * h * 2) + pass_s(T * h * 4) +
		      pass_s(T * 4 * h * 4) + pass_s(T * h * 2) + pass_s(T * h * 4);
	tap_near(f8.time_s - bf.time_s, want, 1e-9,
		 "FP8 layer backward = bf16 + dy cast_transposes and LN inputs' transposes");

	/* the output layer stays bf16 (Megatron-Core's ColumnParallelLinear):
	 * an FP8 law twice as fast must not change the logits */
	g.k.fp8.sm_flops = 2 * g.k.bf16.sm_flops;
	sh.fp8 = false;
	cmp_logits_fwd(&g, &sh, &bf);
	sh.fp8 = true;
	cmp_logits_fwd(&g, &sh, &f8);
	tap_near(f8.time_s, bf.time_s, 1e-12, "logits GEMM at the bf16 rate under FP8");
	return tap_done();
}
