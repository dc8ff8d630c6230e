/* memory.c -- see memory.h. */
#include <math.h>

#include "models/memory.h"
#include "models/zero.h"

/* Transformer Engine keeps each GEMM weight's FP8 copy and its transpose
 * (Hopper's FP8 GEMMs take only the TN layout) across the microbatches of
 * an iteration (TE's is_first_microbatch weight caching): 2 bytes per
 * parameter beside the bf16 weights. */
#define FP8_WEIGHT_CACHE_BYTES 2.0
/* With fp8_params (NeMo's bf16_with_fp8_mixed: TE's fp8_model_init) the
 * weights are Float8Tensors: 1 byte each and the cached 1-byte transpose,
 * no bf16 copy (the fp32 master stays with the optimizer): the 2 bytes the
 * weights count already, nothing beside them (TE v1.13
 * pytorch/tensor/float8_tensor.py; NeMo precision/mixed_precision.py).
 * Taken for every parameter: the embedding, output layer and norms, which
 * stay bf16, are counted at 2 bytes too. */

/* Bytes per parameter of the gradients a rank holds unsharded (ZeRO
 * below stage 2), beside zero.h's 2 of the weights' type: Megatron's
 * contiguous main_grad buffer is fp32 where the stack accumulates and
 * reduces in fp32 (bf16 forces it, Megatron-LM arguments.py), and the
 * distributed optimizer keeps that whole buffer (it reduce-scatters in
 * place); DeepSpeed's BF16_Optimizer keeps an fp32 gradient per
 * parameter beside the bf16 .grad autograd writes (bf16_optimizer.py
 * fp32_groups_gradients); under autocast (fp32 weights) the .grad is fp32
 * and counted with the weights' (the eager total is 16 bytes as well). */
static double unsharded_grad_bytes(const struct par_opts *o)
{
	if (o->amp_fp32_weights || o->zero_stage >= 2)
		return 2;
	if (o->ds_engine)
		return o->dtype == PAR_FP16 ? 2 : 2 + 4;
	return o->grad_reduce_bytes >= 4 && o->zero_stage == 0 ? 4 : 2;
}

/*
 * One layer's stored activations per token, in bytes per unit of h, apart:
 * rep is held whole by every TP rank, par split over them (Korthikanti's
 * 10 and 24 for GPT).  gin is the bytes of a stored GEMM input: 2, or 1
 * with FP8 GEMMs, whose inputs Transformer Engine saves in FP8.
 *   rep: two norm inputs 4h, two dropout masks 2h (none without dropout),
 *        the QKV and MLP GEMM
 *        inputs gin h each; latent attention's latents (norm input and
 *        up-projection input) and rotary key; an MoE layer's fp32 router
 *        logits 4E
 *   par: Q, K, V for the attention core 2(a d_qk + kv d_qk + kv d_v) (and
 *        with QK-norm its norms' inputs 2(a d_qk + kv d_qk)), the
 *        projection's input gin a d_v; the MLP's first GEMM output 2f (4f
 *        gated: up and gate) and the second's input gin f; an MoE layer's
 *        routed tokens top_k x load x (permuted input gin h + an expert's
 *        MLP) plus the shared experts' MLP
 * Modules recomputed (compute.h CMP_RC_*, within selective recomputation)
 * store none of their outputs, only the inputs the layer keeps anyway:
 *   layernorm    the two norm outputs, the QKV's and MLP's inputs gin h each
 *   mla_up_proj  Q, K, V: 2(a d_qk + kv d_qk + kv d_v)
 *   mlp          a dense layer's MLP, past its input
 *   moe          the routed part and the router's logits (and the shared
 *                experts' MLP)
 *   moe_act      the experts' activation outputs (their second GEMMs'
 *                inputs, gin f a routed token)
 *   shared_experts  the shared experts' MLP
 */
static double mlp_act(const struct tfm *m, double f, double gin)
{
	return (m->mlp == TFM_GELU ? 2.0 : 4.0) * f + gin * f;
}

static void act_parts(const struct tfm *m, bool is_moe, bool fp8, unsigned mods,
		      double *rep_h, double *par_h)
{
	double h = m->hidden, a = m->heads, gin = fp8 ? 1.0 : 2.0;
	double dqk = tfm_qk_head_dim(m), dv = tfm_v_head_dim(m);
	double kv = m->mla.kv_lora_rank > 0 ? a : m->kv_heads;
	bool mla = m->mla.kv_lora_rank > 0;
	double rep = 4.0 * h + (m->dropout ? 2.0 * h : 0) +
		     (mods & CMP_RC_LAYERNORM ? 0 : gin * h + gin * h);
	double par = (mla && (mods & CMP_RC_MLA_UP_PROJ) ? 0 :
		      2.0 * (a * dqk + kv * dqk + kv * dv)) + gin * a * dv +
		     (m->qk_norm ? 2.0 * (a * dqk + kv * dqk) : 0);

	if (mla)
		rep += (2.0 + gin) * (m->mla.q_lora_rank + m->mla.kv_lora_rank) +
		       2.0 * m->mla.qk_rope_dim;
	if (is_moe) {
		double load = m->moe.capacity_factor > 0 ? m->moe.capacity_factor :
			      m->moe.imbalance;
		double fe = m->moe.ffn_hidden;
		double expert = mlp_act(m, fe, gin) - (mods & CMP_RC_MOE_ACT ? gin * fe : 0);
		if (!(mods & CMP_RC_MOE)) {
			rep += 4.0 * m->moe.experts;
			par += m->moe.top_k * load * (gin * h + expert);
		}
		if (m->moe.shared_experts > 0 && !(mods & (CMP_RC_MOE | CMP_RC_SHARED_EXPERTS)))
			par += mlp_act(m, (double)m->moe.shared_experts * fe, gin);
	} else if (!(mods & CMP_RC_MLP)) {
		par += mlp_act(m, m->ffn_hidden, gin);
	}
	*rep_h = rep / h;
	*par_h = par / h;
}

double mem_act_units(const struct tfm *m, bool is_moe, bool fp8)
{
	double rep, par;

	act_parts(m, is_moe, fp8, 0, &rep, &par);
	return rep + par;
}

double mem_act_bytes(const struct tfm *m, double micro_batch, int tp, int cp,
		     bool sp, bool flash, enum par_recompute rc, bool is_moe, bool fp8)
{
	return mem_act_bytes_rc(m, micro_batch, tp, cp, sp, flash, rc, 0, is_moe, fp8);
}

double mem_act_bytes_rc(const struct tfm *m, double micro_batch, int tp, int cp,
			bool sp, bool flash, enum par_recompute rc, unsigned mods,
			bool is_moe, bool fp8)
{
	double s = m->seq_len, b = micro_batch, h = m->hidden, a = m->heads, t = tp;
	/* context parallelism: s/cp tokens here, scores of s/cp queries x s */
	double sbh = s / (cp > 1 ? cp : 1) * b * h;
	/* softmax output 2 a s^2 b, dropout mask and output 3 a s^2 b */
	double scores = (rc == PAR_RECOMPUTE_NONE && !flash) ?
			(m->dropout ? 5.0 : 2.0) * a * s / h : 0.0;
	double rep, par;

	if (rc == PAR_RECOMPUTE_FULL)
		return sp ? 2.0 * sbh / t : 2.0 * sbh;
	act_parts(m, is_moe, fp8, rc == PAR_RECOMPUTE_SELECTIVE ? mods : 0, &rep, &par);
	if (sp)
		return sbh / t * (rep + par + scores);
	return sbh * (rep + par / t + scores / t);
}

double mem_act_layer_bytes(const struct tfm *m, double micro_batch, int tp,
			   bool sp, bool flash, enum par_recompute rc)
{
	return mem_act_bytes(m, micro_batch, tp, 1, sp, flash, rc, false, false);
}

/* Parameters on one GPU of `stage`, and of those the routed experts'
 * (split over expert TP and EP; their data parallelism is tp dp / (etp ep)
 * wide). */
static double stage_params(const struct tfm *m, const struct layout *L, int stage,
			   double *experts)
{
	double h = m->hidden, t = L->tp, ep = L->ep > 1 ? L->ep : 1;
	double et = layout_etp(L);
	int n = layout_stage_layers(L, m->layers, stage);
	int first = layout_chunk_first_layer(L, m->layers, 1, stage);
	int moe = tfm_moe_layers(m, first, n);
	double p = (double)(n - moe) * (tfm_layer_params(m, false) / t);
	double xp = tfm_layer_expert_params(m, true);

	*experts = moe * (xp / (et * ep));
	if (moe > 0)
		p += moe * ((tfm_layer_params(m, true) - xp) / t) + *experts;
	if (stage == 0)
		p += (double)m->vocab * h / t + (m->learned_positions ?
						 (double)m->seq_len * h : 0);
	if (stage == L->pp - 1) {
		/* the output layer: its own, or the tied embedding's copy */
		if (L->pp > 1 || !m->tied_embeddings)
			p += (double)m->vocab * h / t;
		p += tfm_norm_params(m);
		/* MTP modules run after the last layer (DeepSeek-V3) */
		bool last_moe = tfm_layer_is_moe(m, m->layers - 1);
		double mx = last_moe ? xp / (et * ep) : 0;
		*experts += m->mtp_layers * mx;
		p += m->mtp_layers * ((tfm_layer_params(m, last_moe) - (last_moe ? xp : 0) +
				       tfm_mtp_extra_params(m)) / t + mx);
	}
	return p;
}

double mem_stage_params(const struct tfm *m, const struct layout *L, int stage)
{
	double experts;

	return stage_params(m, L, stage, &experts);
}

int mem_inflight_chunks(int pp, int v, int microbatches, int stage)
{
	int n;

	if (v <= 1) {
		n = pp - stage;
		return n < microbatches ? n : microbatches;
	}
	n = 2 * (pp - stage - 1) + (v - 1) * pp + 1;
	return n < v * microbatches ? n : v * microbatches;
}

/* ZeRO-3 holds, beside its shards, the whole bf16 weights of the layer
 * being computed and of those gathered ahead of it: as many layers as fit
 * the prefetch size, at least one (step_des.c's gather window, the same
 * rule; DeepSpeed's stage3_prefetch_bucket_size); none ahead when the
 * gathers run in series with the compute (parallel.zero3_fetch). */
static double zero3_live_bytes(double params, int layers, double prefetch_bytes,
			       bool in_series)
{
	double layer_bytes = 2.0 * params / layers;
	int ahead = (int)(prefetch_bytes / layer_bytes);

	if (in_series)
		return layer_bytes;
	if (ahead < 1)
		ahead = 1;
	if (ahead > layers - 1)
		ahead = layers - 1;
	return layer_bytes * (1 + ahead);
}

/*
 * DeepSpeed's contiguous gradient buffers (contiguous_gradients, on by
 * default since v0.4.3, microsoft/DeepSpeed PR #1199 of 2021-07-01):
 * ZeRO copies each gradient into a preallocated bucket of
 * reduce_bucket_size elements in the training dtype (parallel.
 * zero_bucket_mb, DeepSpeed's 5e8: 1 GB) before reducing it.  ZeRO-1/2
 * allocate one at the start of every backward, a second with overlap_comm
 * so one bucket fills while the other is reduced (runtime/zero/
 * stage_1_and_2.py backward(), DeepSpeed 0.16.5 of 2025-02-21), and they live
 * through the backward, when the activations peak; ZeRO-3 holds one from
 * the start (stage3.py __ipg_bucket_flat_buffer).  DeepSpeed's pipeline
 * engine (ZeRO-1 only) allocates its one after the pipeline's flush
 * (reduce_gradients(pipeline_parallel=True)), past the peak: none.
 */
static double zero_contiguous_bytes(const struct par_opts *o, int pp)
{
	int buffers;

	if (!o->zero_contiguous_grads || o->zero_stage < 1 || pp > 1)
		return 0;
	buffers = o->zero_stage == 3 ? 1 : 1 + (o->overlap_grad_reduce ? 1 : 0);
	return buffers * o->zero_bucket_bytes;
}

/*
 * What the optimizer's step allocates beside the states, per parameter it
 * steps (opt_params), once the backward has freed the activations:
 *   PyTorch's foreach Adam/AdamW (torch.optim's default on CUDA, the eager
 *   stacks' training.adam_foreach) takes sqrt of the second moments into a
 *   new tensor list (_multi_tensor_adam: exp_avg_sq_sqrt =
 *   torch._foreach_sqrt(device_exp_avg_sqs), PyTorch 2.x), a temporary of
 *   the moments' dtype for every parameter at once; the per-tensor loops
 *   (training.adam_impl "loop", "composer") hold one tensor's, nothing to
 *   count, and fused kernels none;
 *   DeepSpeed's ZeRO optimizer casts the rank's gradient shard to an fp32
 *   copy for Adam (stage_1_and_2.py step(): single_grad_partition =
 *   flatten(averaged_gradients[i]).to(fp32), then frees the 16-bit ones;
 *   stage3.py _prepare_fp32_grad_for_sub_group, sub-groups of
 *   sub_group_size = 1e9 elements; DeepSpeed 0.16.5), 4 bytes; not its
 *   BF16_Optimizer (Megatron-DeepSpeed in bf16), whose fp32 gradients are
 *   held throughout (unsharded_grad_bytes).
 */
#define DS_SUB_GROUP_ELEMS 1e9

static double step_transient_bytes(const struct par_opts *o, double opt_params)
{
	double moment = o->adam_bf16_moments ? 2 : 4, b = 0;

	if (o->amp_fp32_weights && o->adam_foreach && !o->adam_loop)
		b += moment * opt_params;
	if (o->ds_zero_optimizer && o->zero_stage >= 1 &&
	    !(o->ds_engine && o->dtype != PAR_FP16))
		b += 4 * (o->zero_stage == 3 ? fmin(opt_params, DS_SUB_GROUP_ELEMS) :
			  opt_params);
	return b;
}

/*
 * Bytes a logit holds at the loss, the last stage's peak: the fp32 copy
 * the cross-entropy works in (4) beside the bf16 logits it was cast from
 * (2).  Megatron's vocab-parallel cross-entropy casts its input in
 * calculate_logits_max (`vocab_parallel_logits.float()`, NVIDIA/Megatron-LM
 * megatron/core/tensor_parallel/cross_entropy.py, 2022 to 2026) while the
 * model's forward still holds the bf16 logits it passed, and saves the
 * fp32 buffer (exp_logits) for the backward, whose gradient autograd casts
 * back to bf16 beside it: 6 bytes at both moments.  Eager stacks cast
 * (logits.float()) the same way, at least.  flash-attn's fused
 * cross-entropy (training.loss_kernel "xentropy") makes no fp32 copy: its
 * 4 stand for the bf16 logits and their gradient.  Transformer Engine's
 * ("te") keeps the bf16 logits and writes their fp32 gradient in the
 * forward: 6 as well.
 */
static double logit_bytes(const struct par_opts *o)
{
	return o->loss == CMP_LOSS_XENTROPY ? 4.0 : 6.0;
}

void mem_stage(const struct tfm *m, const struct layout *L,
	       const struct par_opts *o, int stage, struct mem_breakdown *out)
{
	int v = o->schedule == PAR_INTERLEAVED ? o->virtual_stages : 1;
	bool dual = o->schedule == PAR_DUALPIPE;
	int n = layout_stage_layers(L, m->layers, stage);
	int moe = tfm_moe_layers(m, layout_chunk_first_layer(L, m->layers, 1, stage), n);
	double layers_per_chunk = (double)n / v;
	bool flash = o->flash_attention, sp = o->sequence_parallel;
	bool fp8 = o->dtype == PAR_FP8;
	unsigned mods = o->recompute_modules;
	double per_layer = mem_act_bytes_rc(m, L->micro_batch, L->tp, L->cp, sp, flash,
					    o->recompute, mods, false, fp8);
	struct zero_mem z;

	if (moe > 0)	/* the mean over the stage's layers */
		per_layer = ((n - moe) * per_layer + moe * mem_act_bytes_rc(m,
			     L->micro_batch, L->tp, L->cp, sp, flash, o->recompute, mods,
			     true, fp8)) / n;
	out->stage = stage;
	double experts;
	out->params = stage_params(m, L, stage, &experts);
	/* DualPipe (dualpipe.h): the rank holds stage pp-1-k too */
	int mirror = L->pp - 1 - stage, n_mirror = 0;
	if (dual && mirror != stage) {
		double x;
		out->params += stage_params(m, L, mirror, &x);
		experts += x;
		n_mirror = layout_stage_layers(L, m->layers, mirror);
	}
	/* ZeRO shards over every data-parallel rank, or over the groups of
	 * hybrid sharding (parallel.zero_shard_ranks) */
	int shard = par_shard_ranks(o, L->dp);
	bool sharded = o->zero_stage >= 1 || o->distributed_optimizer;
	zero_model_memory(out->params - experts, shard, o->zero_stage,
			  o->distributed_optimizer, &z);
	out->opt_params = (out->params - experts) / (sharded ? shard : 1);
	if (experts > 0) {	/* sharded over the experts' tp dp / (etp ep) replicas */
		struct zero_mem zx;
		int ep = L->ep > 1 ? L->ep : 1;
		int xs = L->tp * L->dp / (layout_etp(L) * ep);
		xs = xs > 0 ? xs : 1;
		xs = xs < shard ? xs : shard;
		out->opt_params += experts / (sharded ? xs : 1);
		zero_model_memory(experts, xs, o->zero_stage, o->distributed_optimizer, &zx);
		z.weights_bytes += zx.weights_bytes;
		z.grads_bytes += zx.grads_bytes;
		z.optimizer_bytes += zx.optimizer_bytes;
	}
	out->weights_bytes = z.weights_bytes;
	if (o->zero_stage == 3 && L->dp > 1 && n > 0)
		out->weights_bytes += zero3_live_bytes(out->params - experts, n,
						       o->zero_prefetch_bytes, o->zero3_sync);
	if (fp8 && !o->fp8_params)
		out->weights_bytes += FP8_WEIGHT_CACHE_BYTES * out->params /
				      (o->zero_stage == 3 ? shard : 1);
	out->grads_bytes = z.grads_bytes * unsharded_grad_bytes(o) / 2 +
			   zero_contiguous_bytes(o, L->pp);
	/* zero.h counts Adam's state at 12 bytes a parameter: the fp32 master
	 * and two fp32 moments; bf16 moments make it 4 + 2 x 2, a master kept
	 * as the 16-bit remainder of the bf16 weight 2 + 2 x moments, none
	 * (the bf16 weights are the master) 2 x moments */
	static const double master_bytes[] = {
		[CMP_MASTER_FP32] = 4, [CMP_MASTER_REMAINDER] = 2, [CMP_MASTER_WEIGHTS] = 0,
	};
	double master = master_bytes[o->adam_master], moment = o->adam_bf16_moments ? 2 : 4;
	out->optimizer_bytes = z.optimizer_bytes * (master + 2 * moment) / 12;

	/* DualPipe keeps pp + 1 stage-microbatches of activations a rank (the
	 * DualPipe README's table), of its two stages' mean layers */
	if (dual)
		out->activations_bytes = per_layer * (n + n_mirror) / 2.0 * (L->pp + 1);
	else
		out->activations_bytes = per_layer * layers_per_chunk *
			mem_inflight_chunks(L->pp, v, L->microbatches, stage);
	if (o->recompute == PAR_RECOMPUTE_FULL)	/* the layer being recomputed */
		out->activations_bytes += mem_act_bytes(m, L->micro_batch,
				L->tp, L->cp, sp, flash, PAR_RECOMPUTE_NONE, moe > 0, fp8);
	if (stage == L->pp - 1 || (dual && stage == 0))	/* the logits, and the MTP modules' */
		out->activations_bytes += logit_bytes(o) * m->seq_len * L->micro_batch *
					  (double)m->vocab / L->tp * (1 + m->mtp_layers) /
					  (L->cp > 1 ? L->cp : 1);
	out->step_temp_bytes = step_transient_bytes(o, out->opt_params);
	out->reserve_bytes = o->reserve_bytes;
	out->total_bytes = out->weights_bytes + out->grads_bytes +
			   out->optimizer_bytes +
			   fmax(out->activations_bytes, out->step_temp_bytes) +
			   out->reserve_bytes;
}

void mem_peak(const struct tfm *m, const struct layout *L,
	      const struct par_opts *o, struct mem_breakdown *out)
{
	struct mem_breakdown b;

	mem_stage(m, L, o, 0, out);
	for (int k = 1; k < L->pp; k++) {
		mem_stage(m, L, o, k, &b);
		if (b.total_bytes > out->total_bytes)
			*out = b;
	}
}
