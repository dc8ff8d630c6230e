/*
 * memory.h -- what one GPU holds at its peak during an iteration.
 *
 *   weights, gradients, optimizer states: 16 bytes per local parameter
 *       split by ZeRO stage or the distributed optimizer (zero.h); ZeRO-3
 *       adds the bf16 weights it has gathered whole: the layer being
 *       computed and those prefetched ahead (parallel.zero_prefetch_mb,
 *       at least one layer; step_des.c's window);
 *   activations: Korthikanti et al. (2022) per layer and microbatch,
 *       s b h (10 + 24/t + 5 a s/(h t))        tensor parallelism t
 *       s b h / t (34 + 5 a s/h)               with sequence parallelism
 *       the 5 a s/h term dropped by selective recomputation (and by flash
 *       attention, which stores no s x s scores); full recomputation keeps
 *       only each layer's input, 2 s b h (/t with sequence parallelism),
 *       plus one layer's full activations while it is recomputed;
 *   times the microbatches the schedule keeps in flight on the stage:
 *       1F1B stage k of p: min(p - k, m) microbatches of l/p layers;
 *       interleaved: min(2(p-k-1) + (v-1)p + 1, v m) chunks of l/(p v)
 *       layers (Megatron's warm-up), which gives Korthikanti's
 *       l (1 + (p-1)/(p v)) layer-microbatches on the first stage;
 *   the last stage's logits of one microbatch at the loss, the fp32 copy
 *       beside the bf16 logits, 6 s b V / t (4 with flash-attn's fused loss; and each
 *       multi-token-prediction module's);
 *   a fixed framework reserve.
 * The optimizer's step comes after the backward has freed the activations;
 * what it allocates for the step (memory.c step_transient_bytes: PyTorch's
 * foreach Adam's temporary, DeepSpeed's fp32 gradient shard) takes their
 * place at that moment: the peak counts the larger of the two.
 * The 10 and 24 follow the shape (memory.c): grouped-query attention stores
 * kv/a of K and V, a gated MLP 6f instead of 4f (16h for GPT's f = 4h), an
 * MoE layer its routed tokens' expert activations (top_k x the busiest
 * expert's load), FP8 GEMMs their saved inputs in one byte.  Context
 * parallelism keeps s/cp of the sequence per GPU (and of the logits).
 * Parameters per stage: each layer's (12 h^2 + 13 h for GPT) / t over the
 * stage's layers (layout.h: uneven stages); the first stage adds the word
 * embedding V h / t and learned positions s h, the last the output layer
 * (untied, or the tied embedding's copy when p > 1), the final norm and
 * the MTP modules.  FP8 adds Transformer Engine's cached FP8 weights.
 */
#ifndef MODELS_MEMORY_H
#define MODELS_MEMORY_H

#include "models/layout.h"
#include "models/parallel.h"
#include "models/transformer.h"

struct mem_breakdown {
	int stage;			/* pipeline stage with the largest total */
	double params;			/* parameters on a GPU of that stage */
	double opt_params;		/* ... whose optimizer state it holds: a
					 * sharded optimizer's shard, the routed
					 * experts' over their own replicas */
	double weights_bytes, grads_bytes, optimizer_bytes;
	double activations_bytes;
	double step_temp_bytes;		/* the optimizer step's transients, held
					 * once the activations are freed */
	double reserve_bytes;
	double total_bytes;
};

/* Korthikanti's per-layer, per-microbatch activation bytes: of a dense or
 * MoE layer, with bf16 or FP8 GEMMs; and of a dense bf16 one. */
double mem_act_bytes(const struct tfm *m, double micro_batch, int tp, int cp,
		     bool sp, bool flash, enum par_recompute rc, bool is_moe, bool fp8);
/* The same with modules recomputed within selective recomputation
 * (compute.h CMP_RC_*): their outputs not stored. */
double mem_act_bytes_rc(const struct tfm *m, double micro_batch, int tp, int cp,
			bool sp, bool flash, enum par_recompute rc, unsigned mods,
			bool is_moe, bool fp8);
double mem_act_layer_bytes(const struct tfm *m, double micro_batch, int tp,
			   bool sp, bool flash, enum par_recompute rc);
/* Korthikanti's 34 (per s b h, sequence parallel, no scores) for the shape. */
double mem_act_units(const struct tfm *m, bool is_moe, bool fp8);
/* Parameters on one GPU of pipeline stage `stage`. */
double mem_stage_params(const struct tfm *m, const struct layout *L, int stage);
/* Chunk-microbatches the schedule holds at once on `stage`. */
int mem_inflight_chunks(int pp, int v, int microbatches, int stage);
void mem_stage(const struct tfm *m, const struct layout *L,
	       const struct par_opts *o, int stage, struct mem_breakdown *out);
/* The stage with the largest total. */
void mem_peak(const struct tfm *m, const struct layout *L,
	      const struct par_opts *o, struct mem_breakdown *out);

#endif
