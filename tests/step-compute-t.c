/* step-compute-t.c -- the kernel roofline and the layer's FLOPs.  Expected
 * numbers: the roofline by hand; FLOPs from Narayanan et al. (doc/sources.md section 8):
 * a layer's forward is 24 b s h^2 + 4 b s^2 h, backward twice that. */
#include <math.h>
#include <string.h>

#include "tests/tap.h"
#include "models/compute.h"

static void a100(struct gpu_spec *g)
{
	memset(g, 0, sizeof *g);
	g->name = "test";
	g->peak_bf16_flops = 312e12;
	g->hbm_bw_Bps = 2000e9;
	g->gemm_points = 3;
	g->gemm_gflop[0] = 1;   g->gemm_eff[0] = 0.4;
	g->gemm_gflop[1] = 100; g->gemm_eff[1] = 0.8;
	g->gemm_gflop[2] = 1e4; g->gemm_eff[2] = 0.9;
	g->mem_eff = 0.5;
	g->launch_s = 5e-6;
	g->flash_eff = 0.5;
}

int main(void)
{
	struct gpu_spec g;
	struct cmp_cost c;

	a100(&g);
	tap_plan(14);
	tap_near(cmp_gemm_eff(&g, 0.01e9), 0.4, 1e-12, "curve clamps below its first point");
	tap_near(cmp_gemm_eff(&g, 1e15), 0.9, 1e-12, "curve clamps above its last point");
	tap_near(cmp_gemm_eff(&g, 10e9), 0.6, 1e-12, "log-linear: 10 GFLOP halfway 1..100");
	tap_near(cmp_gemm_eff(&g, 1000e9), 0.85, 1e-12, "log-linear: 1 TFLOP halfway 100..1e4");

	/* 8192^3 GEMM: 1.1e12 FLOPs, compute bound */
	double n = 8192, flops = 2 * n * n * n;
	cmp_gemm(&g, g.peak_bf16_flops, 1, n, n, n, &c);
	tap_near(c.time_s, flops / (312e12 * cmp_gemm_eff(&g, flops)) + 5e-6, 1e-12,
		 "big GEMM: FLOPs / (peak x eff) + launch");
	/* a thin batched GEMM, K = 64: bandwidth bound */
	cmp_gemm(&g, g.peak_bf16_flops, 64, 2048, 2048, 64, &c);
	double bytes = 2.0 * 64 * (2048.0 * 64 * 2 + 2048.0 * 2048);
	tap_near(c.time_s, bytes / (2000e9 * 0.5) + 5e-6, 1e-12,
		 "thin GEMM under the bandwidth roof: bytes / (bw x mem_eff) + launch");
	cmp_stream(&g, 1e9, &c);
	tap_near(c.time_s, 1e9 / 1e12 + 5e-6, 1e-12, "elementwise: bytes / (bw x mem_eff)");

	/* layer FLOPs, GPT-3 175B shape, b = 1, t = 8 */
	struct cmp_shape sh = { 1, 2048, 12288, 96, 51200, 8, false, false, 312e12 };
	double b = 1, s = 2048, h = 12288, t = 8;
	double fwd = (24 * b * s * h * h + 4 * b * s * s * h) / t;
	cmp_layer_fwd(&g, &sh, &c);
	tap_near(c.flops, fwd, 1e-12, "layer forward: (24 bsh^2 + 4 bs^2h)/t");
	cmp_layer_bwd(&g, &sh, &c);
	tap_near(c.flops, 2 * fwd, 1e-12, "layer backward: twice the forward");
	tap_ok(c.time_s > c.gemm_s && c.gemm_s > 0,
	       "backward time includes elementwise kernels beyond the GEMMs");
	/* the attention core that selective recomputation redoes, by hand:
	 * heads = b a / t = 12 of dh = 128; Q K^T and x V move
	 * 2(2 s dh + s^2) bytes per head; softmax reads and writes the
	 * scores (4 bytes each), dropout 5 (fp16 in, out, 1-byte mask) */
	double heads = 12, dh = 128, sc = heads * s * s, bw = 2000e9 * 0.5;
	double bmm_flops = 2 * heads * s * s * dh, bmm_bytes = 2 * heads * (2 * s * dh + s * s);
	double bmm = fmax(bmm_flops / (312e12 * cmp_gemm_eff(&g, bmm_flops)), bmm_bytes / bw) + 5e-6;
	cmp_attn_recompute(&g, &sh, &c);
	tap_near(c.time_s, 2 * bmm + (4 * sc / bw + 5e-6) + (5 * sc / bw + 5e-6), 1e-12,
		 "attention core: two bmm rooflines + softmax + dropout streams");
	sh.flash = true;
	cmp_attn_recompute(&g, &sh, &c);
	tap_near(c.time_s, 0, 0, "flash attention: nothing to recompute selectively");
	cmp_layer_fwd(&g, &sh, &c);
	tap_near(c.flops, fwd, 1e-12, "flash attention: same forward FLOPs");
	cmp_logits_fwd(&g, &sh, &c);
	tap_near(c.flops, 2 * b * s * h * 51200 / t, 1e-12, "logits: 2 b s h V / t");
	return tap_done();
}
