/* models-shape-t.c -- what follows the model's shape, by hand: stored
 * activations with grouped-query attention, SwiGLU and FP8 (Korthikanti et
 * al. 2022's terms, memory.h), kernel FLOPs of a grouped-query layer, the
 * split of layers over uneven pipeline stages (Llama 3: 126 layers on 16
 * stages, one fewer on the first and last; arXiv:2407.21783 sec. 3.3.2),
 * and the pipeline's pace set by its slowest stage. */
#include <string.h>

#include "tests/tap.h"
#include "models/compute.h"
#include "models/layout.h"
#include "models/memory.h"
#include "models/step.h"

static void gpu(struct gpu_spec *g)
{
	memset(g, 0, sizeof *g);
	g->name = "test";
	g->peak_bf16_flops = 1e15;
	g->hbm_bw_Bps = 1e12;
	g->mem_eff = 1;
	g->flash_eff = 0.5;
}

int main(void)
{
	struct tfm m;
	struct gpu_spec g;
	struct cmp_cost c;

	tap_plan(16);
	/* One layer, h = 64, a = 4 (d = 16), s = 16, b = 1, t = 1, no stored
	 * scores (selective recomputation).  GPT: s b h (10 + 24) = 34816. */
	tfm_gpt(&m, 1, 64, 4, 16, 100);
	double sbh = 16 * 64.0;
	tap_near(mem_act_layer_bytes(&m, 1, 1, false, false, PAR_RECOMPUTE_SELECTIVE),
		 sbh * 34, 1e-12, "GPT layer: 34 s b h");
	/* kv = 1: K and V stored at 2 s b kv d = 32 bytes per token each
	 * instead of 128: par = 2 (64 + 16 + 16) + 2 x 64 + 4 x 256 = 1344 = 21 h */
	m.kv_heads = 1;
	tap_near(mem_act_layer_bytes(&m, 1, 1, false, false, PAR_RECOMPUTE_SELECTIVE),
		 sbh * (10 + 21), 1e-12, "multi-query: K and V at kv/a, 31 s b h");
	/* ... and split over t = 4 with the 10 replicated: 10 + 21/4 */
	tap_near(mem_act_layer_bytes(&m, 1, 4, false, false, PAR_RECOMPUTE_SELECTIVE),
		 sbh * (10 + 21.0 / 4), 1e-12, "multi-query with TP 4: 10 + 21/t");
	/* SwiGLU of f = 96: up and gate outputs 4f, the product 2f:
	 * 2 x 3 x 64 + 2 x 64 + 6 x 96 = 1088 = 17 h */
	m.kv_heads = 4;
	m.mlp = TFM_SWIGLU;
	m.ffn_hidden = 96;
	tap_near(mem_act_layer_bytes(&m, 1, 1, false, false, PAR_RECOMPUTE_SELECTIVE),
		 sbh * (10 + 17), 1e-12, "SwiGLU f = 96: 6 f stored, 27 s b h");
	/* FP8 GEMM inputs in one byte: the QKV and MLP inputs (10 -> 8), the
	 * projection input and GeLU output (24 -> 2 x 3 + 1 + 8 + 4 = 19) */
	tfm_gpt(&m, 1, 64, 4, 16, 100);
	tap_near(mem_act_bytes(&m, 1, 1, false, false, PAR_RECOMPUTE_SELECTIVE, false, true),
		 sbh * (8 + 19), 1e-12, "FP8: GEMM inputs in one byte, 27 s b h");

	/* Kernel FLOPs of the multi-query layer, forward, T = 16 tokens:
	 * 2 T (Q 64x64 + K,V 2 x 64x16 + O 64x64 + MLP 2 x 64x256) + 4 b s^2 h */
	gpu(&g);
	struct cmp_shape sh = { .b = 1, .s = 16, .h = 64, .a = 4, .V = 100, .tp = 1,
				.peak_flops = 1e15, .kv = 1 };
	cmp_layer_fwd(&g, &sh, &c);
	tap_near(c.flops, 2 * 16 * 43008.0 + 4 * 16 * 16 * 64.0, 1e-12,
		 "multi-query layer forward: QKV GEMM (a + 2 kv) d wide");
	sh.gated = true;
	sh.f = 96;
	cmp_layer_fwd(&g, &sh, &c);
	tap_near(c.flops, 2 * 16 * (43008.0 - 32768 + 3 * 64 * 96) + 4 * 16 * 16 * 64.0,
		 1e-12, "SwiGLU layer forward: h -> 2f and f -> h GEMMs");
	cmp_layer_bwd(&g, &sh, &c);
	tap_near(c.flops, 2 * (2 * 16 * (43008.0 - 32768 + 3 * 64 * 96) + 4 * 16 * 16 * 64.0),
		 1e-12, "and its backward twice that");
	/* MoE layer, 4 experts top 2 of width 32 (GeLU), load 1: router
	 * 2 T h E + per token 2 experts x 2 x 2 h fe */
	struct cmp_shape x = { .b = 1, .s = 16, .h = 64, .a = 4, .V = 100, .tp = 1,
			       .peak_flops = 1e15, .experts = 4, .topk = 2, .fe = 32 };
	cmp_layer_fwd(&g, &x, &c);
	tap_near(c.flops, 2 * 16 * (4 * 64.0 * 64 + 64 * 4 + 2 * 2 * 64 * 32) +
		 4 * 16 * 16 * 64.0, 1e-12, "MoE layer forward: router and top-2 experts");

	/* Uneven stages: 126 layers on 16, the first and last with 7 */
	struct layout L = { .tp = 8, .pp = 16 };
	int sum = 0;
	for (int k = 0; k < 16; k++)
		sum += layout_stage_layers(&L, 126, k);
	tap_int(sum, 126, "stages hold all 126 layers");
	tap_ok(layout_stage_layers(&L, 126, 0) == 7 && layout_stage_layers(&L, 126, 15) == 7 &&
	       layout_stage_layers(&L, 126, 1) == 8 && layout_stage_layers(&L, 126, 14) == 8,
	       "126 on 16: 7, 8 x 14, 7 (Llama 3)");
	/* first 3 and last 5 of 30 on 4 stages: 11 each in the middle */
	L.pp = 4;
	L.first_stage_layers = 3;
	L.last_stage_layers = 5;
	tap_ok(layout_stage_layers(&L, 30, 0) == 3 && layout_stage_layers(&L, 30, 1) == 11 &&
	       layout_stage_layers(&L, 30, 2) == 11 && layout_stage_layers(&L, 30, 3) == 5,
	       "first 3, last 5: 3, 11, 11, 5");
	/* interleaved, 2 chunks per stage, the first one a layer larger when
	 * odd: stage 1's 11 layers as 6 + 5; the chunk 0s (virtual stages
	 * 0-3) hold 2 + 6 + 6 + 3 = 17 layers before chunk 1 of stage 0 */
	tap_ok(layout_chunk_layers(&L, 30, 2, 1) == 6 && layout_chunk_layers(&L, 30, 2, 5) == 5,
	       "stage 1's 11 layers in 2 chunks: 6 and 5");
	tap_int(layout_chunk_first_layer(&L, 30, 2, 4), 17,
		"chunk 1 of stage 0 starts after the chunk 0s' 2 + 6 + 6 + 3 layers");

	/* The slowest stage sets the pace: 1F1B on 2 stages, stage 1 with
	 * twice stage 0's work (f 2, b 4 ms against 1, 2), m = 4.  By hand
	 * (the timeline in models/megatron.h's order): stage 1 runs its 4
	 * forward-backward pairs back to back after stage 0's first forward,
	 * then stage 0 runs the last backward: 1 + 4 x 6 + 2 = 27 ms. */
	double f[2] = { 1e-3, 2e-3 }, b[2] = { 2e-3, 4e-3 }, prm[2] = { 1, 1 };
	int lay[2] = { 1, 2 };
	struct step_plan p = {
		.pp = 2, .v = 1, .microbatches = 4, .fwd_s = f, .bwd_s = b,
		.tp = 1, .dp = 1, .dp_mode = STEP_DP_ALLREDUCE, .chunk_params = prm,
		.chunk_layers = lay, .bucket_bytes = 1e9,
	};
	struct step_result r;
	struct err e = { 0 };
	tap_ok(step_run(&p, &r, &e) == 0, "uneven pipeline runs (%s)", e.msg);
	tap_near(r.iteration_s, 27e-3, 1e-12, "uneven 1F1B: m (f + b) of the slowest + the others' f + b");
	return tap_done();
}
