/* step-mem-t.c -- memory model: ZeRO model states, Korthikanti activations,
 * the schedule's in-flight microbatches, parameters per stage.  Expected
 * numbers from Rajbhandari et al. SC'20 and Korthikanti et al. 2022
 * (doc/sources.md section 8; cited per test). */
#include <stdio.h>
#include <string.h>

#include "tests/tap.h"
#include "models/memory.h"
#include "models/zero.h"

static void opts(struct par_opts *o)
{
	/* by hand, not par_defaults(): this test links no scenario loader */
	memset(o, 0, sizeof *o);
	o->schedule = PAR_1F1B;
	o->virtual_stages = 1;
	o->recompute = PAR_RECOMPUTE_SELECTIVE;
}

/* doc/sources.md section 8: P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)) */
static double params(const struct tfm *m)
{
	double l = m->layers, h = m->hidden;

	return 12 * l * h * h * (1 + 13 / (12 * h) + (m->vocab + m->seq_len) / (12 * l * h));
}

int main(void)
{
	struct zero_mem z;
	double psi = 7.5e9, GB = 1e9;
	double zero_gb[4] = { 120.0, 31.40625, 16.640625, 1.875 };
	const char *zero_name[4] = {
		"DP 16 Psi = 120 GB", "ZeRO-1 4 Psi + 12 Psi/64 = 31.4 GB",
		"ZeRO-2 2 Psi + 14 Psi/64 = 16.6 GB", "ZeRO-3 16 Psi/64 = 1.9 GB",
	};

	tap_plan(62);
	/* Rajbhandari et al.: 7.5B parameters on N_d = 64 */
	for (int s = 0; s < 4; s++) {
		zero_model_memory(psi, 64, s, false, &z);
		tap_near((z.weights_bytes + z.grads_bytes + z.optimizer_bytes) / GB,
			 zero_gb[s], 1e-12, zero_name[s]);
	}
	zero_model_memory(psi, 64, 0, true, &z);
	tap_near((z.weights_bytes + z.grads_bytes + z.optimizer_bytes) / GB, 31.40625,
		 1e-12, "distributed optimizer shards like ZeRO-1");
	/* communication per rank per step, m = 1: 2, 2, 2, 3 Psi */
	tap_near(zero_comm_elems(psi, 0, false, 1), 2 * psi, 0, "DP all-reduce 2 Psi");
	tap_near(zero_comm_elems(psi, 1, false, 1), 2 * psi, 0, "ZeRO-1 2 Psi");
	tap_near(zero_comm_elems(psi, 2, false, 1), 2 * psi, 0, "ZeRO-2 2 Psi");
	tap_near(zero_comm_elems(psi, 3, false, 1), 3 * psi, 0, "ZeRO-3 3 Psi");

	/* Korthikanti et al.: GPT-3 175B shape, s = 2048, b = 1, h = 12288,
	 * a = 96, t = 8: 5as/(ht) = 10, 5as/h = 80. */
	struct tfm m;
	tfm_gpt(&m, 96, 12288, 96, 2048, 51200);
	double sbh = 2048.0 * 12288.0;
	tap_near(mem_act_layer_bytes(&m, 1, 8, false, false, PAR_RECOMPUTE_NONE),
		 sbh * (10 + 3 + 10), 1e-12, "none, TP: sbh(10 + 24/t + 5as/(ht))");
	tap_near(mem_act_layer_bytes(&m, 1, 8, true, false, PAR_RECOMPUTE_NONE),
		 sbh / 8 * (34 + 80), 1e-12, "none, TP+SP: sbh/t (34 + 5as/h)");
	tap_near(mem_act_layer_bytes(&m, 1, 8, false, false, PAR_RECOMPUTE_SELECTIVE),
		 sbh * 13, 1e-12, "selective, TP: sbh(10 + 24/t)");
	tap_near(mem_act_layer_bytes(&m, 1, 8, true, false, PAR_RECOMPUTE_SELECTIVE),
		 sbh / 8 * 34, 1e-12, "selective, TP+SP: 34 sbh/t");
	tap_near(mem_act_layer_bytes(&m, 1, 8, false, false, PAR_RECOMPUTE_FULL),
		 2 * sbh, 1e-12, "full: layer input only, 2sbh");
	tap_near(mem_act_layer_bytes(&m, 1, 1, false, false, PAR_RECOMPUTE_NONE),
		 sbh * (34 + 80), 1e-12, "no parallelism: sbh(34 + 5as/h)");
	tap_near(mem_act_layer_bytes(&m, 4, 8, false, false, PAR_RECOMPUTE_SELECTIVE),
		 4 * sbh * 13, 1e-12, "linear in the micro batch");
	/* QK-norm keeps its norms' inputs, the queries and keys before them:
	 * 2 bytes x (a + a) x 128 = 4h more per token, split over t: 4/t sbh */
	m.qk_norm = true;
	tap_near(mem_act_layer_bytes(&m, 1, 8, false, false, PAR_RECOMPUTE_SELECTIVE),
		 sbh * (13 + 4.0 / 8), 1e-12, "QK-norm: its inputs, 4 sbh/t more");
	m.qk_norm = false;

	/* in flight: 1F1B holds p - k microbatches; interleaved stage 0 holds
	 * l (1 + (p-1)/(p v)) layers' worth (Korthikanti sec. 4.2) */
	tap_int(mem_inflight_chunks(4, 1, 8, 0), 4, "1F1B stage 0 of 4: 4 microbatches");
	tap_int(mem_inflight_chunks(4, 1, 8, 3), 1, "1F1B last stage: 1");
	tap_int(mem_inflight_chunks(8, 1, 3, 0), 3, "1F1B with m < p: all m");
	tap_int(mem_inflight_chunks(4, 2, 8, 0), 11,
		"interleaved p=4 v=2: 2(p-1) + (v-1)p + 1 = 11 chunks");
	tap_near(mem_inflight_chunks(4, 2, 8, 0) / 8.0, 1 + 3.0 / 8, 1e-12,
		 "= l (1 + (p-1)/(p v)) layers for l/(p v) per chunk");

	/* parameters: one stage holds P (doc/sources.md section 8) plus the final norm 2h */
	struct tfm t1;
	tfm_gpt(&t1, 24, 2304, 24, 2048, 51200);
	struct layout L11 = { .tp = 1, .pp = 1 }, L816 = { .tp = 8, .pp = 16 };
	tap_near(mem_stage_params(&t1, &L11, 0), params(&t1) + 2 * 2304, 1e-12,
		 "tp = pp = 1: P + 2h (final layer norm)");
	double sum = 0;
	struct tfm big;
	tfm_gpt(&big, 96, 12288, 96, 2048, 51200);
	for (int k = 0; k < 16; k++)
		sum += mem_stage_params(&big, &L816, k) * 8;
	tap_near(sum, params(&big) + 51200.0 * 12288 + 2 * 12288 * 8 +
		 2048.0 * 12288 * 7, 1e-9,
		 "stages x tp sum to P plus the tied copy and the TP-replicated norm and positions");

	/* a whole stage: 1.7B row of Megatron Table 1 (tp 1, pp 1, dp 32,
	 * micro batch 16, full recomputation): 16 bytes/param + activations */
	struct layout L = { .gpu = "a100_80gb", .gpus = 32, .gpus_per_node = 8, .nodes = 4,
			    .tp = 1, .pp = 1, .dp = 32, .global_batch = 512,
			    .micro_batch = 16, .microbatches = 1, .ep = 1, .cp = 1 };
	struct par_opts o;
	struct mem_breakdown b;
	opts(&o);
	o.recompute = PAR_RECOMPUTE_FULL;
	o.reserve_bytes = 3e9;
	mem_stage(&t1, &L, &o, 0, &b);
	double P1 = params(&t1) + 2 * 2304;
	tap_near(b.weights_bytes + b.grads_bytes + b.optimizer_bytes, 16 * P1, 1e-12,
		 "model states 16 bytes per parameter");
	double sbh1 = 2048.0 * 16 * 2304;
	/* the logits at the loss: Megatron's cross-entropy's fp32 copy (4
	 * bytes) beside the bf16 logits it was cast from (2): s b V x 6 */
	double act = 24 * 2 * sbh1 + sbh1 * (34 + 5.0 * 24 * 2048 / 2304) +
		     6.0 * 2048 * 16 * 51200;
	tap_near(b.activations_bytes, act, 1e-12,
		 "full recompute: 2sbh x l + one layer recomputed + fp32 and bf16 logits");
	tap_near(b.total_bytes, 16 * P1 + act + 3e9, 1e-12, "total adds the reserve");
	L.pp = 4; L.dp = 8; L.microbatches = 4;
	struct tfm t2 = t1;
	mem_peak(&t2, &L, &o, &b);
	tap_ok(b.stage == 0 || b.stage == 3, "peak on the first or last stage (stage %d)",
	       b.stage);
	o.distributed_optimizer = true;
	struct mem_breakdown b2;
	mem_stage(&t2, &L, &o, 1, &b2);
	tap_near(b2.optimizer_bytes, 12 * b2.params / 8, 1e-12,
		 "distributed optimizer: 12 Psi / N_d");

	/* the gradients a rank holds (memory.c): fp32 main_grad where the
	 * stack reduces in fp32, 4 bytes a parameter, kept whole by the
	 * distributed optimizer; DeepSpeed's BF16_Optimizer keeps fp32 beside
	 * the bf16 .grad, 6; its fp16 engine 2; ZeRO-2 shards the 2 */
	o.grad_reduce_bytes = 4;
	mem_stage(&t2, &L, &o, 1, &b2);
	tap_near(b2.grads_bytes, 4 * b2.params, 1e-12,
		 "fp32 main_grad: 4 bytes a parameter, whole under the distributed optimizer");
	o.distributed_optimizer = false;
	o.zero_stage = 1;
	o.ds_engine = true;
	mem_stage(&t2, &L, &o, 1, &b2);
	tap_near(b2.grads_bytes, 6 * b2.params, 1e-12,
		 "DeepSpeed bf16: fp32 gradient beside the bf16 .grad, 6 bytes");
	o.dtype = PAR_FP16;
	mem_stage(&t2, &L, &o, 1, &b2);
	tap_near(b2.grads_bytes, 2 * b2.params, 1e-12, "DeepSpeed fp16: the .grad, 2 bytes");
	o.dtype = PAR_BF16;
	o.ds_engine = false;
	o.zero_stage = 2;
	mem_stage(&t2, &L, &o, 1, &b2);
	tap_near(b2.grads_bytes, 2 * b2.params / 8, 1e-12, "ZeRO-2: 2 Psi / N_d");
	o.zero_stage = 0;
	o.grad_reduce_bytes = 0;

	/* ZeRO-3 on one stage (pp 1, dp 32): 2 Psi/32 weights plus the bf16
	 * weights gathered whole, the layer computed and those fetched ahead:
	 * a 24-layer stage of P1 parameters has 2 P1/24 bytes a layer (~143 MB) */
	L.pp = 1; L.dp = 32; L.microbatches = 1;
	o.distributed_optimizer = false;
	o.zero_stage = 3;
	double layer_b = 2 * P1 / 24;
	o.zero_prefetch_bytes = 1e3;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.weights_bytes, 2 * P1 / 32 + 2 * layer_b, 1e-12,
		 "ZeRO-3, prefetch below a layer: the layer and one ahead");
	o.zero_prefetch_bytes = 5 * layer_b + 1;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.weights_bytes, 2 * P1 / 32 + 6 * layer_b, 1e-12,
		 "ZeRO-3, prefetch of five layers: six layers whole");
	o.zero_prefetch_bytes = 1e12;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.weights_bytes, 2 * P1 / 32 + 24 * layer_b, 1e-12,
		 "ZeRO-3, prefetch past the model: at most every layer");
	/* in series (DeepSpeed 2021, parallel.zero3_fetch): none ahead */
	o.zero3_sync = true;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.weights_bytes, 2 * P1 / 32 + layer_b, 1e-12,
		 "ZeRO-3 in series: only the layer computed whole");
	o.zero3_sync = false;
	/* hybrid sharding in groups of 8 of the 32 ranks: every shard is a
	 * quarter of the ranks' count, 4x the bytes (16 Psi / 8 in all) */
	o.zero_prefetch_bytes = 1e3;
	o.zero_shard_ranks = 8;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.weights_bytes, 2 * P1 / 8 + 2 * layer_b, 1e-12,
		 "hybrid ZeRO-3 (8 of 32): weights 2 Psi / 8 plus two layers");
	tap_near(b.optimizer_bytes, 12 * P1 / 8, 1e-12, "hybrid ZeRO-3: optimizer 12 Psi / 8");
	o.zero_shard_ranks = 0;

	/* DeepSpeed's contiguous gradient buffers (memory.c), each
	 * reduce_bucket_size = 5e8 bf16 elements, 1e9 bytes: ZeRO-3 holds one,
	 * ZeRO-1/2 one, two with overlap_comm; a pipeline's comes after its
	 * flush, past the peak */
	static const struct {
		int stage, pp; bool overlap; double buffers; const char *what;
	} cg[] = {
		{ 3, 1, true, 1, "ZeRO-3: one bucket, 1 GB" },
		{ 2, 1, true, 2, "ZeRO-2 with overlap_comm: two buckets, 2 GB" },
		{ 2, 1, false, 1, "ZeRO-2 without overlap: one bucket, 1 GB" },
		{ 1, 1, false, 1, "ZeRO-1: one bucket, 1 GB" },
		{ 1, 2, false, 0, "ZeRO-1 in a pipeline: none at the peak" },
	};
	o.zero_bucket_bytes = 1e9;
	for (size_t i = 0; i < sizeof cg / sizeof cg[0]; i++) {
		struct mem_breakdown off, on;
		L.pp = cg[i].pp;
		o.zero_stage = cg[i].stage;
		o.overlap_grad_reduce = cg[i].overlap;
		o.zero_contiguous_grads = false;
		mem_stage(&t1, &L, &o, 0, &off);
		o.zero_contiguous_grads = true;
		mem_stage(&t1, &L, &o, 0, &on);
		tap_near(on.grads_bytes - off.grads_bytes, cg[i].buffers * 1e9, 1e-12,
			 cg[i].what);
	}
	o.zero_contiguous_grads = false;
	o.overlap_grad_reduce = false;
	L.pp = 1;

	/* The optimizer step's transients (memory.c), held once the backward
	 * has freed the activations, so the peak takes the larger: PyTorch's
	 * foreach Adam allocates sqrt of the second moments for every stepped
	 * parameter (4 bytes, 2 with bf16 moments), DeepSpeed's ZeRO
	 * optimizer an fp32 copy of its gradient shard (4 bytes; ZeRO-3 by
	 * sub-groups of 1e9 elements), its BF16_Optimizer none.  ZeRO-2 on 32
	 * ranks: P1/32 stepped parameters a rank. */
	struct mem_breakdown st0;
	double shard = P1 / 32;
	o.zero_stage = 2;
	mem_stage(&t1, &L, &o, 0, &st0);
	tap_near(st0.step_temp_bytes, 0, 0, "Megatron's fused Adam: no step transients");
	o.amp_fp32_weights = true;
	o.adam_foreach = true;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.step_temp_bytes, 4 * shard, 1e-12,
		 "foreach Adam: sqrt of the fp32 second moments, 4 bytes a stepped parameter");
	o.adam_bf16_moments = true;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.step_temp_bytes, 2 * shard, 1e-12, "... 2 with bf16 moments");
	o.adam_loop = true;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.step_temp_bytes, 0, 0, "a per-tensor loop: one tensor's, not counted");
	o.adam_loop = false;
	o.adam_bf16_moments = false;
	o.adam_foreach = false;
	o.amp_fp32_weights = false;
	o.ds_zero_optimizer = true;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.step_temp_bytes, 4 * shard, 1e-12,
		 "DeepSpeed ZeRO-2: the gradient shard cast to fp32, 4 bytes a parameter");
	tap_near(b.total_bytes - b.reserve_bytes - b.weights_bytes - b.grads_bytes -
		 b.optimizer_bytes, b.activations_bytes > 4 * shard ? b.activations_bytes :
		 4 * shard, 1e-12, "the peak counts the larger of activations and transients");
	o.zero_stage = 3;
	L.dp = 1;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.step_temp_bytes, 4e9, 1e-12, "DeepSpeed ZeRO-3: a sub-group of 1e9 at most");
	L.dp = 32;
	o.zero_stage = 1;
	o.ds_engine = true;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.step_temp_bytes, 0, 0, "Megatron-DeepSpeed in bf16 (BF16_Optimizer): none");
	o.dtype = PAR_FP16;
	mem_stage(&t1, &L, &o, 0, &b);
	tap_near(b.step_temp_bytes, 4 * shard, 1e-12, "... in fp16 (its ZeRO-1): the fp32 copy");
	o.dtype = PAR_BF16;
	o.ds_engine = false;
	o.ds_zero_optimizer = false;
	o.zero_stage = 3;

	/* DualPipe (dualpipe.h): rank 1 of 4 also holds stage 2, 6 layers
	 * each, so twice the parameters; it keeps pp + 1 = 5 stage-microbatches
	 * of activations (the DualPipe README's table) where 1F1B's stage 1
	 * keeps pp - 1 = 3: 5/3 of them (no recomputation, no logits here) */
	struct mem_breakdown one, dual;
	opts(&o);
	L.pp = 4; L.dp = 8; L.microbatches = 8;
	mem_stage(&t2, &L, &o, 1, &one);
	o.schedule = PAR_DUALPIPE;
	mem_stage(&t2, &L, &o, 1, &dual);
	tap_near(dual.params, 2 * one.params, 1e-12, "DualPipe: two middle stages' parameters");
	tap_near(dual.activations_bytes / one.activations_bytes, 5.0 / 3, 1e-12,
		 "DualPipe: pp + 1 = 5 microbatches of activations against 1F1B's 3");
	/* Adam's state a parameter against the fp32 master and moments'
	 * 4 + 4 + 4: bf16 moments (parallel.adam_moments) 4 + 2 + 2; the
	 * master as the bf16 weight's 16-bit remainder (parallel.adam_master,
	 * Apex's store_param_remainders) 2 + 4 + 4, with bf16 moments 2 + 2 + 2;
	 * no master (Apex with the optimizer's dtype bf16: the bf16 weights
	 * are updated in place) with bf16 moments 0 + 2 + 2 */
	static const struct {
		bool bf16; enum cmp_adam_master master; double bytes; const char *what;
	} st[] = {
		{ true, CMP_MASTER_FP32, 8, "bf16 moments" },
		{ false, CMP_MASTER_REMAINDER, 10, "remainders" },
		{ true, CMP_MASTER_REMAINDER, 6, "remainders and bf16 moments" },
		{ true, CMP_MASTER_WEIGHTS, 4, "no master and bf16 moments" },
	};
	o.schedule = PAR_1F1B;
	for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
		struct mem_breakdown s;
		o.adam_bf16_moments = st[i].bf16;
		o.adam_master = st[i].master;
		mem_stage(&t2, &L, &o, 1, &s);
		char name[96];
		snprintf(name, sizeof name, "%s: optimizer state %.0f of 12 bytes a parameter",
			 st[i].what, st[i].bytes);
		tap_near(s.optimizer_bytes / one.optimizer_bytes, st[i].bytes / 12, 1e-12, name);
		snprintf(name, sizeof name, "%s: the weights are the bf16 copy as before",
			 st[i].what);
		if (st[i].master != CMP_MASTER_FP32)
			tap_near(s.weights_bytes, one.weights_bytes, 1e-12, name);
	}
	return tap_done();
}
