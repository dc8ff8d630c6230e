/* toy-gpu.h -- a made-up GPU whose kernel-law figures make the arithmetic
 * of kernel times easy (tests of models/compute.c and what uses it). */
#ifndef TESTS_TOY_GPU_H
#define TESTS_TOY_GPU_H

#include <string.h>

#include "models/gpu.h"

/* 4 SMs of 1 TFLOP/s, 1 us per wave, 2 us per GEMM call, 1 TB/s HBM of
 * which copies reach half, LayerNorm a quarter; 5 us per other kernel. */
static void toy(struct gpu_spec *g)
{
	memset(g, 0, sizeof *g);
	g->name = "test";
	g->peak_bf16_flops = 312e12;
	g->hbm_bw_Bps = 1e12;
	g->k.sms = 4;
	g->k.hbm_Bps = 1e12;
	for (int i = 0; i < KS_COUNT; i++)
		g->k.stream_frac[i] = 0.5;
	g->k.stream_frac[KS_LAYERNORM] = 0.25;
	g->k.launch_s = 5e-6;
	g->k.bf16 = (struct kern_gemm_law){ 1e12, 1e-6, 2e-6 };
	g->k.fp8 = g->k.bf16;
	g->k.attn = (struct kern_attn_law){ 1e14, 1e-6, 5e13, 2e-6, 5e-6, false };
}

#endif
