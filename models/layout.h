/*
 * layout.h -- the cluster and the parallel layout of the job on it.
 *
 * cluster.gpus GPUs of type cluster.gpu, cluster.gpus_per_node per node,
 * split Megatron-style into tp x pp x dp ranks (dp derived).  A global batch
 * of global_batch sequences is cut into micro_batch-sized microbatches;
 * each pipeline runs global_batch / (dp * micro_batch) of them.
 *
 * Pipeline stages hold layers/pp layers each when pp divides the layers;
 * otherwise ceil(layers/pp) each, less one on the outermost stages (first,
 * last, second, second-to-last, ...) until the count is met, as Llama 3
 * ran 126 layers on 16 stages with one layer fewer on the first and the
 * last (Llama 3 paper, arXiv:2407.21783, sec. 3.3.2).  first_stage_layers /
 * last_stage_layers fix those stages' counts, the others split the rest the
 * same way (Megatron-LM's --decoder-first/last-pipeline-num-layers).  With
 * v model chunks per stage (interleaved schedule) a stage's layers split
 * into v chunks, the first ones one layer larger when v does not divide,
 * but on the first stage the last ones: its lighter chunks come first,
 * beside the embedding, as the last stage's come last, beside the loss.
 * Those two chunks may hold no layer at all: Llama 3's 126 layers ran as
 * 16 stages of 8 one-layer chunks where "the first model chunk on the
 * first stage has only the embedding, and the last model chunk on the last
 * stage has only output projection and loss calculation" (sec. 3.3.2);
 * Megatron-Core's account_for_embedding/loss_in_pipeline_split place them
 * the same way.  Without interleaving, so may the first and last stages
 * (pp up to layers + 2): BLOOM's 70 layers on 72 stages as DeepSpeed's
 * 'type:transformer|embedding' partition puts them, the tied embedding
 * alone at each end.
 *
 * Expert parallelism (MoE models) splits each MoE layer's routed experts
 * over ep ranks, each expert's weights over etp (expert_tp, a divisor of
 * tp; tp where unset).  Megatron-Core lays the experts' own grid, etp x ep
 * x expert-dp, over the same tp x dp ranks of a stage as the attention's,
 * expert TP fastest (MoE Parallel Folding: parallel_state.py's expert
 * RankGenerator, order tp-ep-dp-pp; Liu et al., arXiv:2504.14960): etp x
 * ep divides tp x dp, and with etp < tp an EP group takes in TP ranks
 * too (Qwen3-235B on H100: tp 2, etp 1, ep 32, dp 16).  The experts' own
 * data parallelism is tp dp / (etp ep) wide.
 *
 * Context parallelism splits each sequence over cp ranks, also carved out
 * of the data-parallel group (Megatron-Core's CP, whose gradients reduce
 * over DP x CP): dp counts them, dp/cp are whole replicas taking
 * micro_batch sequences at a time.  Ring attention (Liu et al. 2023;
 * Megatron-Core's default) needs s a multiple of 2 cp (its load-balanced
 * causal chunks; so does Llama 3's all-gather of K and V, arXiv:2407.21783
 * sec. 3.3.2), Ulysses (Jacobs et al. 2023, all-to-all of heads) heads
 * divisible by tp x cp.
 *
 * Impossible layouts are scenario errors naming the setting at fault.
 */
#ifndef MODELS_LAYOUT_H
#define MODELS_LAYOUT_H

#include <stdbool.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/transformer.h"

struct layout {
	const char *gpu;
	int gpus;
	int gpus_per_node;
	int nodes;
	int tp, pp, dp;
	int global_batch;	/* sequences per iteration */
	int micro_batch;	/* sequences per microbatch */
	int microbatches;	/* per pipeline per iteration */
	int ep;			/* expert parallelism: EP groups of ep ranks */
	int etp;		/* expert tensor parallelism: an expert's weights
				 * split over etp ranks (a divisor of tp) */
	enum layout_ep_overlap {	/* what hides the EP all-to-alls (step_layer.c) */
		LAYOUT_EP_OVERLAP_NONE, LAYOUT_EP_OVERLAP_SHARED, LAYOUT_EP_OVERLAP_DUALPIPE,
	} ep_overlap;
	int cp;			/* context parallelism: CP groups of cp DP ranks */
	bool cp_ulysses;	/* CP by all-to-all of heads, */
	bool cp_all_gather;	/* by all-gather of K and V, else ring attention */
	int first_stage_layers;	/* 0: by the rule above */
	int last_stage_layers;	/* 0: by the rule above */
};

extern const struct cfg_setting layout_settings[];

int layout_from_scenario(const struct scenario *sc, const struct tfm *m,
			 struct layout *out, struct err *e);

/* Whole data-parallel replicas: dp / cp. */
int layout_replicas(const struct layout *L);
/* The expert tensor-parallel degree: etp, or tp where unset (0). */
int layout_etp(const struct layout *L);
/* Nodes an EP group spans as the default placement puts ranks: ep x etp
 * consecutive ranks, at least one node. */
int layout_ep_nodes(const struct layout *L);
/* Ranks of an EP group as the layout holds them now: ep, or fewer when an
 * elastic run's dp has shrunk below the grid (tp dp / etp). */
int layout_ep_group(const struct layout *L);
/* Layers on pipeline stage `stage` of a model of `layers` layers. */
int layout_stage_layers(const struct layout *L, int layers, int stage);
/* Layers of virtual stage vs = c pp + k (chunk c of stage k) of v chunks
 * per stage, and the index of its first layer. */
int layout_chunk_layers(const struct layout *L, int layers, int v, int vs);
int layout_chunk_first_layer(const struct layout *L, int layers, int v, int vs);

#endif
