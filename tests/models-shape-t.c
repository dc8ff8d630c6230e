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
#include "tests/toy-gpu.h"

int main(void)
{
	struct tfm m;
	struct gpu_spec g;
	struct cmp_cost c;

	tap_plan(46);
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
	tap_near(mem_act_bytes(&m, 1, 1, 1, false, false, PAR_RECOMPUTE_SELECTIVE, false, true),
		 sbh * (8 + 19), 1e-12, "FP8: GEMM inputs in one byte, 27 s b h");
	/* recompute modules on GPT's 34: layernorm drops the two norm outputs
	 * (the QKV's and MLP's inputs, 2 + 2) -> 30; mlp the GeLU's input and
	 * output (8 + 8) -> 18; both 14 */
	tap_near(mem_act_bytes_rc(&m, 1, 1, 1, false, false, PAR_RECOMPUTE_SELECTIVE,
				  CMP_RC_LAYERNORM, false, false), sbh * 30, 1e-12,
		 "recompute layernorm: 30 s b h");
	tap_near(mem_act_bytes_rc(&m, 1, 1, 1, false, false, PAR_RECOMPUTE_SELECTIVE,
				  CMP_RC_LAYERNORM | CMP_RC_MLP, false, false), sbh * 14, 1e-12,
		 "recompute layernorm and mlp: 14 s b h");
	tap_near(mem_act_bytes_rc(&m, 1, 1, 1, false, false, PAR_RECOMPUTE_FULL,
				  CMP_RC_MLP, false, false), sbh * 2, 1e-12,
		 "modules mean nothing under full recomputation: the input, 2 s b h");

	/* Kernel FLOPs of the multi-query layer, forward, T = 16 tokens:
	 * 2 T (Q 64x64 + K,V 2 x 64x16 + O 64x64 + MLP 2 x 64x256) + 4 b s^2 h */
	toy(&g);
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
	/* BLOOM's 70 layers on 72 stages (DeepSpeed's 'type:transformer|
	 * embedding' partition: the tied embedding a stage of its own at each
	 * end): 0, 1 x 70, 0; on 71 the first stage alone holds none */
	L.pp = 72;
	sum = 0;
	for (int k = 0; k < 72; k++)
		sum += layout_stage_layers(&L, 70, k);
	tap_ok(sum == 70 && layout_stage_layers(&L, 70, 0) == 0 &&
	       layout_stage_layers(&L, 70, 71) == 0 && layout_stage_layers(&L, 70, 1) == 1 &&
	       layout_stage_layers(&L, 70, 70) == 1, "70 on 72: 0, 1 x 70, 0");
	L.pp = 71;
	tap_ok(layout_stage_layers(&L, 70, 0) == 0 && layout_stage_layers(&L, 70, 70) == 1,
	       "70 on 71: 0, then 1 x 70");
	/* first 3 and last 5 of 30 on 4 stages: 11 each in the middle */
	L.pp = 4;
	L.first_stage_layers = 3;
	L.last_stage_layers = 5;
	tap_ok(layout_stage_layers(&L, 30, 0) == 3 && layout_stage_layers(&L, 30, 1) == 11 &&
	       layout_stage_layers(&L, 30, 2) == 11 && layout_stage_layers(&L, 30, 3) == 5,
	       "first 3, last 5: 3, 11, 11, 5");
	/* interleaved, 2 chunks per stage, the first one a layer larger when
	 * odd but on the first stage, whose lighter chunk comes first (beside
	 * the embedding): stage 1's 11 layers as 6 + 5, stage 0's 3 as 1 + 2;
	 * the chunk 0s (virtual stages 0-3) hold 1 + 6 + 6 + 3 = 16 layers
	 * before chunk 1 of stage 0 */
	tap_ok(layout_chunk_layers(&L, 30, 2, 1) == 6 && layout_chunk_layers(&L, 30, 2, 5) == 5,
	       "stage 1's 11 layers in 2 chunks: 6 and 5");
	tap_ok(layout_chunk_layers(&L, 30, 2, 0) == 1 && layout_chunk_layers(&L, 30, 2, 4) == 2,
	       "stage 0's 3 layers in 2 chunks: 1, then 2");
	tap_int(layout_chunk_first_layer(&L, 30, 2, 4), 16,
		"chunk 1 of stage 0 starts after the chunk 0s' 1 + 6 + 6 + 3 layers");
	/* Llama 3 405B: 126 layers, 16 stages of 7, 8 x 14, 7 in 8 chunks of
	 * one layer, "the first model chunk on the first stage has only the
	 * embedding, and the last model chunk on the last stage has only
	 * output projection and loss calculation" (arXiv:2407.21783 sec.
	 * 3.3.2): virtual stages 0 and 127 hold none */
	struct layout M = { .tp = 8, .pp = 16 };
	int empty = 0, ones = 0;
	for (int vs = 0; vs < 128; vs++) {
		int n = layout_chunk_layers(&M, 126, 8, vs);
		empty += n == 0;
		ones += n == 1;
	}
	tap_ok(empty == 2 && ones == 126 && layout_chunk_layers(&M, 126, 8, 0) == 0 &&
	       layout_chunk_layers(&M, 126, 8, 127) == 0,
	       "Llama 3 on 16 x 8 chunks: one layer each, the first and last empty");

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

	/* MoE memory per rank: 2 layers of h = 64, a = 4, SwiGLU f = 96, no
	 * biases, RMSNorm, rotary, untied, V = 100; layer 1 MoE with 4 experts
	 * of 32 (top 2) and 1 shared; EP 2 on TP 1, PP 1, dp 4.
	 *   dense layer 4 x 64^2 + 3 x 64 x 96 + 2 x 64          = 34944
	 *   MoE layer without routed experts 16384 + 6144 + 256 + 128 = 22912
	 *   routed experts 4 x 3 x 64 x 32 = 24576, over EP 2      = 12288
	 *   embedding, output layer 2 x 6400, final norm 64        = 12864 */
	tfm_gpt(&m, 2, 64, 4, 16, 100);
	m.mlp = TFM_SWIGLU;
	m.ffn_hidden = 96;
	m.bias = false;
	m.norm = TFM_RMSNORM;
	m.learned_positions = false;
	m.tied_embeddings = false;
	m.moe = (struct tfm_moe){ .experts = 4, .top_k = 2, .shared_experts = 1, .ffn_hidden = 32,
				  .dense_layers = 1, .capacity_factor = 0, .imbalance = 1.0 };
	struct layout E = { .tp = 1, .pp = 1, .dp = 4, .ep = 2, .micro_batch = 1,
			    .microbatches = 1 };
	tap_near(mem_stage_params(&m, &E, 0), 83008, 1e-12,
		 "MoE with EP 2: each GPU holds half the routed experts");
	struct par_opts o;
	struct mem_breakdown mb;
	memset(&o, 0, sizeof o);
	o.schedule = PAR_1F1B;
	o.virtual_stages = 1;
	o.recompute = PAR_RECOMPUTE_SELECTIVE;
	o.distributed_optimizer = true;
	mem_stage(&m, &E, &o, 0, &mb);
	tap_near(mb.optimizer_bytes, 12.0 * (83008 - 12288) / 4 + 12.0 * 12288 / 2, 1e-12,
		 "optimizer: dense part over dp 4, experts over dp/ep = 2");
	tap_near(mb.opt_params, (83008 - 12288) / 4.0 + 12288 / 2.0, 1e-12,
		 "Adam's shard: 70,720 / 4 dense + 12,288 / 2 experts' parameters");
	/* activations of the MoE layer, t = 1, with dropout masks (GPT's
	 * default): rep 10h + router logits 4E = 656; par: attention
	 * 8h = 512, routed 2 x 1.0 x (2h + 6 fe) = 640, shared 6 fe = 192 */
	tap_near(mem_act_bytes(&m, 1, 1, 1, false, true, PAR_RECOMPUTE_SELECTIVE, true, false),
		 16.0 * (656 + 512 + 640 + 192), 1e-12,
		 "MoE layer's activations: top-k routed tokens' expert MLPs");
	/* Megatron-Core's recompute modules drop what they rebuild: moe_act
	 * the experts' activation outputs, gin fe = 2 fe a routed token
	 * (routed 2 x (2h + 4 fe) = 512); moe the routed part, the router's
	 * logits and the shared experts (640 + 512 left); shared_experts the
	 * shared MLP (192) */
	tap_near(mem_act_bytes_rc(&m, 1, 1, 1, false, true, PAR_RECOMPUTE_SELECTIVE,
				  CMP_RC_MOE_ACT, true, false), 16.0 * (656 + 512 + 512 + 192),
		 1e-12, "recompute moe_act: the experts' activation outputs not kept");
	tap_near(mem_act_bytes_rc(&m, 1, 1, 1, false, true, PAR_RECOMPUTE_SELECTIVE,
				  CMP_RC_MOE, true, false), 16.0 * (640 + 512), 1e-12,
		 "recompute moe: only the attention part and the layer's input kept");
	tap_near(mem_act_bytes_rc(&m, 1, 1, 1, false, true, PAR_RECOMPUTE_SELECTIVE,
				  CMP_RC_SHARED_EXPERTS, true, false),
		 16.0 * (656 + 512 + 640), 1e-12, "recompute shared_experts: 192 fewer");

	/* Expert parallelism leaves a rank's expert FLOPs alone (E/ep experts
	 * of ep T k/E tokens each); the busiest expert's load scales them */
	struct cmp_cost c1, c2;
	x.ep = 1;
	cmp_layer_fwd(&g, &x, &c1);
	x.ep = 4;
	cmp_layer_fwd(&g, &x, &c2);
	tap_near(c2.flops, c1.flops, 1e-12, "EP 4: the same expert FLOPs per rank");
	x.load = 1.5;
	cmp_layer_fwd(&g, &x, &c2);
	tap_near(c2.flops - c1.flops, 0.5 * 2 * 16 * 2 * 2 * 64 * 32.0, 1e-12,
		 "load 1.5: the busiest rank's expert FLOPs x 1.5");

	/* EP all-to-all bytes per GPU: DeepSeek-V3's 4096-token sequence,
	 * top 8 of h = 7168 in bf16, TP 1: 469,762,048 bytes on the mean
	 * rank; dropless, the busiest takes in 1.2 x that (the skew), at most
	 * ep; a capacity factor of 1.2 pads every buffer: 563,714,457.6 */
	tfm_gpt(&m, 61, 7168, 128, 4096, 129280);
	m.moe.experts = 256;
	m.moe.top_k = 8;
	m.moe.imbalance = 1.2;
	struct layout D = { .tp = 1, .pp = 16, .dp = 128, .ep = 64, .micro_batch = 1 };
	tap_near(step_ep_bytes(&m, &D), 469762048, 1e-12,
		 "EP all-to-all: b s / t x k x h x 2 bytes, the mean");
	tap_near(step_ep_skew(&m, 64), 1.2, 1e-12, "dropless: skewed by the imbalance");
	tap_near(step_ep_skew(&m, 1), 1, 1e-12, "the skew at most ep");
	D.tp = 2;
	tap_near(step_ep_bytes(&m, &D), 469762048 / 2, 1e-12,
		 "with TP 2 each rank sends its half of the tokens");
	D.tp = 1;
	D.cp = 2;
	tap_near(step_ep_bytes(&m, &D), 469762048 / 2, 1e-12,
		 "with CP 2 each rank holds, and sends, half the sequence");
	D.cp = 1;
	m.moe.capacity_factor = 1.2;
	tap_near(step_ep_bytes(&m, &D), 563714457.6, 1e-12,
		 "capacity factor 1.2: every buffer padded to 1.2 x the mean");
	tap_near(step_ep_skew(&m, 64), 1, 1e-12, "padded: balanced");
	m.moe.capacity_factor = 0;

	/* What hides the all-to-alls, by hand: forward 2 ms of them (1 + 1),
	 * backward 4 ms (2 + 2); shared experts 1.5 ms forward, 5 ms backward */
	struct ep_parts ep = { .shared_fwd_s = 1.5e-3, .shared_bwd_s = 5e-3,
			      .attn_fwd_s = 1e-3, .mlp_fwd_s = 2e-3,
			      .attn_bwd_s = 2e-3, .mlp_bwd_s = 4e-3,
			      .dispatch_fwd_s = 1e-3, .combine_fwd_s = 1e-3,
			      .combine_bwd_s = 2e-3, .dispatch_bwd_s = 2e-3 };
	double af, ab;
	step_ep_overlap(LAYOUT_EP_OVERLAP_NONE, &ep, &af, &ab);
	tap_ok(af == 2e-3 && ab == 4e-3, "ep_overlap none: all exposed");
	step_ep_overlap(LAYOUT_EP_OVERLAP_SHARED, &ep, &af, &ab);
	tap_ok(fabs(af - 0.5e-3) < 1e-15 && ab == 0,
	       "shared_expert: 2 - 1.5 = 0.5 ms forward, backward hidden (4 < 5)");
	/* The combined 1F1B's pair (step_layer.c), communication-bound: the
	 * combine's gradient 0-2 ms beside attn_fwd 0-1; the MLP's dgrad
	 * 2-4, wgrad 4-6; dispatch_fwd 2-6; dispatch_bwd 6-8; mlp_fwd 6-8;
	 * combine_fwd 8-12; attn_bwd 8-10; the next pair's combine_bwd at 12:
	 * a period of 12 ms, the all-to-alls end to end, 3 beyond the 9 of
	 * compute (as the totals say), shared 8:4 */
	ep.dispatch_fwd_s = ep.combine_fwd_s = 4e-3;
	step_ep_overlap(LAYOUT_EP_OVERLAP_DUALPIPE, &ep, &af, &ab);
	tap_ok(fabs(af - 2e-3) < 1e-15 && fabs(ab - 1e-3) < 1e-15,
	       "dualpipe: a 12 ms pair against 9 ms of compute: 3 ms exposed, 2 forward, 1 backward");
	/* Compute-bound in total (3 ms of all-to-alls, 12 of compute), but the
	 * combine's gradient (3 ms) has only attn_fwd (1 ms) beside it, and
	 * the MLP's backward waits for it: 2 ms exposed, all backward */
	ep = (struct ep_parts){ .attn_fwd_s = 1e-3, .mlp_fwd_s = 3e-3, .attn_bwd_s = 2e-3,
			       .mlp_bwd_s = 6e-3, .combine_bwd_s = 3e-3 };
	step_ep_overlap(LAYOUT_EP_OVERLAP_DUALPIPE, &ep, &af, &ab);
	tap_ok(af == 0 && fabs(ab - 2e-3) < 1e-15,
	       "dualpipe: a part hides only behind its partner: 3 - 1 = 2 ms exposed backward");

	/* Ring attention's K/V block: Llama 3 405B's 128K stage (the paper,
	 * Table 4: TP 8, CP 16, 131,072 tokens): 8192 tokens per rank, 8 kv
	 * heads / TP 8 = 1 per GPU of 128 + 128 dimensions, bf16: 4 MiB;
	 * cp - 1 = 15 of them per layer forward */
	tfm_gpt(&m, 126, 16384, 128, 131072, 128256);
	m.kv_heads = 8;
	struct layout C = { .tp = 8, .pp = 16, .dp = 128, .cp = 16, .micro_batch = 1 };
	tap_near(step_cp_block_bytes(&m, &C), 4194304, 1e-12,
		 "CP ring block: 2 bytes x b s/cp x kv/t x (d_k + d_v)");
	/* and the memory per rank follows s/cp: 1/16 of CP 1's (flash, so no
	 * s^2 scores) */
	C.cp = 1;
	double full_seq = mem_act_bytes(&m, 1, 8, 1, true, true, PAR_RECOMPUTE_SELECTIVE,
					false, false);
	tap_near(mem_act_bytes(&m, 1, 8, 16, true, true, PAR_RECOMPUTE_SELECTIVE, false,
			       false), full_seq / 16, 1e-12, "CP 16: activations / 16");
	/* a CP rank's kernels: the GEMMs on s/cp tokens, attention s/cp x s:
	 * the layer's FLOPs / cp */
	struct cmp_shape q = { .b = 1, .s = 64, .h = 64, .a = 4, .V = 100, .tp = 1,
			       .peak_flops = 1e15 };
	cmp_layer_fwd(&g, &q, &c1);
	q.cp = 4;
	cmp_layer_fwd(&g, &q, &c2);
	tap_near(c2.flops, c1.flops / 4, 1e-12, "CP 4: a rank's layer FLOPs / 4");
	return tap_done();
}
