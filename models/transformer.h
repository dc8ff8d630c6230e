/*
 * transformer.h -- the model being trained: its shape, parameter count and
 * FLOPs.
 *
 * The GPT-3 shape (Brown et al. 2020) is the default: multi-head attention
 * with h/a dimensions per head, a 4h GeLU MLP, LayerNorm, biases, learned
 * positions, input and output embeddings tied.  For it the counts reduce to
 * Narayanan et al. (SC'21), eqs. (2)-(3):
 *
 *   P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h))
 *   F = K B s l h^2 (1 + s/(6h)) + 6 B s h V,  K = 96 with full activation
 *       recomputation (one extra forward of the layers), 72 without
 *
 * (l layers, h hidden, s sequence, V vocabulary, B sequences).  SC'21 writes
 * the logits as 96 B s l h^2 V/(16 l h) = 6 B s h V, true with K = 96; its
 * K = 72 form would count them at 4.5 B s h V, but the logits are never
 * recomputed: 2 forward + 4 backward = 6 B s h V in both.
 *
 * Other shapes, each a setting:
 *   kv_heads      grouped-query (kv < a) or multi-query (kv = 1) attention
 *                 (Ainslie et al. 2023): K and V projections h x kv d
 *   head_dim      d where it is not h / a (Qwen3, Gemma): Q h x a d, K and V
 *                 h x kv d, the output projection a d x h
 *   sliding_window, full_attention_every   a query attends to the keys
 *                 within the window before it (Mistral 7B, arXiv:2310.06825:
 *                 4,096 on every layer; GPT-OSS: 128 on every other layer,
 *                 the rest full; Gemma 3: five windowed layers to one full):
 *                 the attention core's work and FLOPs shrink to the window's
 *   ffn_hidden, mlp   GeLU: 2 h f weights; SwiGLU/GeGLU (Shazeer 2020):
 *                 three matrices (up, gate, down), 3 h f
 *   norm          LayerNorm (scale and bias, 2h) or RMSNorm (scale, h)
 *   bias          linear-layer biases (GPT) or none (Llama, Mixtral, DeepSeek)
 *   dropout       dropout after attention and MLP (GPT) or none (Llama 3,
 *                 Mixtral, DeepSeek-V3 train without): masks in memory
 *   positions     learned (s h parameters), rotary or ALiBi (none)
 *   tied_embeddings  untied input and output embeddings hold 2 V h
 *   mla.*         multi-head latent attention (DeepSeek-V2, arXiv:2405.04434,
 *                 sec. 2.1): queries through a q_lora_rank bottleneck, keys
 *                 and values through a kv_lora_rank latent plus a shared
 *                 rotary key of qk_rope_head_dim; per head qk_nope + qk_rope
 *                 query/key dimensions and v_head_dim value dimensions
 *   moe.*         mixture of experts (Shazeer et al. 2017; Fedus et al. 2021):
 *                 MoE layers after moe.dense_layers dense ones, each with a
 *                 router (h x E) and E routed experts of moe.ffn_hidden, of
 *                 which top_k run per token, plus shared_experts that run on
 *                 every token (DeepSeekMoE, arXiv:2401.06066)
 *   mtp_layers    multi-token prediction modules (DeepSeek-V3,
 *                 arXiv:2412.19437, sec. 2.2): each a projection 2h x h, two
 *                 norms and one more transformer layer like the last, sharing
 *                 the embedding and output head; trained with the model
 *
 * FLOPs are 2 per multiply-accumulate of every weight a token passes through
 * (active parameters: top_k of the routed experts) plus attention's scores
 * and weighted sum over the full s (no causal skip, as SC'21): forward per
 * token and layer 2 s a (d_qk + d_v).  Backward is twice the forward.
 */
#ifndef MODELS_TRANSFORMER_H
#define MODELS_TRANSFORMER_H

#include <stdbool.h>

#include "sim/cfg.h"
#include "sim/err.h"

enum tfm_mlp { TFM_GELU, TFM_SWIGLU, TFM_GEGLU };
enum tfm_norm { TFM_LAYERNORM, TFM_RMSNORM };

/* Multi-head latent attention; kv_lora_rank = 0: off. */
struct tfm_mla {
	int q_lora_rank;	/* 0: queries projected directly from h */
	int kv_lora_rank;
	int qk_nope_dim, qk_rope_dim, v_dim;	/* per head */
};

/* Mixture of experts; experts = 0: every layer dense. */
struct tfm_moe {
	int experts;		/* routed experts per MoE layer */
	int top_k;		/* routed experts per token */
	int shared_experts;	/* experts every token runs */
	int ffn_hidden;		/* one expert's FFN width */
	int dense_layers;	/* leading layers with a dense MLP */
	double capacity_factor;	/* 0: dropless */
	double imbalance;	/* busiest expert's tokens over the mean */
	int groups;		/* group-limited routing: expert groups (0: none) */
	int group_topk;		/* groups a token may route to (0: all) */
};

struct tfm {
	int layers;
	int hidden;
	int heads;
	int seq_len;
	int vocab;
	double tokens;		/* training tokens for the whole run */
	int kv_heads;		/* = heads: multi-head attention */
	int head_dim;		/* per-head q/k/v dimensions; 0: hidden / heads */
	int window;		/* sliding-window attention, tokens (0: none) */
	int full_every;		/* with a window: every full_every-th layer
				 * attends to all (0: none does) */
	int ffn_hidden;		/* dense MLP width (4h for GPT) */
	enum tfm_mlp mlp;
	enum tfm_norm norm;
	bool bias;
	bool qk_norm;		/* per-head norms of queries and keys (Qwen3) */
	bool dropout;		/* dropout layers (their masks are stored) */
	bool learned_positions;
	bool rotary;		/* rotary position embedding ("rope", "yarn") */
	bool yarn;		/* ... with YaRN's attention factor ("yarn") */
	bool tied_embeddings;
	int mtp_layers;
	struct tfm_mla mla;
	struct tfm_moe moe;
};

extern const struct cfg_setting tfm_settings[];

/* The GPT-3-shaped model of l layers, h hidden, a heads, s, V (tests). */
void tfm_gpt(struct tfm *m, int layers, int hidden, int heads, int seq_len, int vocab);
void tfm_from_scenario(const struct scenario *sc, struct tfm *m);
/* Cross-setting checks (kv_heads dividing heads, top_k <= experts, ...):
 * scenario errors naming the key. */
int tfm_check(const struct scenario *sc, const struct tfm *m, struct err *e);

/* Parameters: all of them (MTP modules included), and those a token passes
 * through (top_k of the routed experts; the published "active" count). */
double tfm_params(const struct tfm *m);
double tfm_active_params(const struct tfm *m);
/* The share of layers whose attention is windowed (0 without a window). */
double tfm_window_frac(const struct tfm *m);
/* The same without the multi-token-prediction modules (the main model,
 * as DeepSeek-V3's 671B counts it). */
double tfm_main_params(const struct tfm *m);

/* The parts, for memory and kernels: one layer's weights (matrices and
 * vectors; is_moe: an MoE layer's with all its experts), the word embedding
 * (and positions), the output layer when untied, the final norm. */
bool tfm_layer_is_moe(const struct tfm *m, int layer);
/* How many of the n layers from index first are MoE layers. */
int tfm_moe_layers(const struct tfm *m, int first, int n);
double tfm_layer_params(const struct tfm *m, bool is_moe);
/* Of which weight matrices (no biases or norms): 12 h^2 for GPT. */
double tfm_layer_matrix_params(const struct tfm *m, bool is_moe);
/* Of which routed experts' (0 for a dense layer) and how many of those a
 * token uses. */
double tfm_layer_expert_params(const struct tfm *m, bool is_moe);
double tfm_embed_params(const struct tfm *m);
double tfm_head_params(const struct tfm *m);	/* 0 when tied */
double tfm_norm_params(const struct tfm *m);	/* one norm */
/* One MTP module beyond its transformer layer: projection and two norms. */
double tfm_mtp_extra_params(const struct tfm *m);

/* Head dimensions: query/key (nope + rope with MLA) and value. */
int tfm_qk_head_dim(const struct tfm *m);
int tfm_v_head_dim(const struct tfm *m);

/* FLOPs of one training iteration over `sequences` sequences, Megatron's
 * count (recompute: the layers' forward once more). */
double tfm_flops(const struct tfm *m, double sequences, bool recompute);
/* Forward FLOPs per token of one layer's attention core (2 s a (d_qk + d_v)):
 * what selective recomputation redoes. */
double tfm_attn_core_flops_per_token(const struct tfm *m);
/* Model FLOPs per token without recomputation (6N plus attention): MFU's numerator. */
double tfm_model_flops_per_token(const struct tfm *m);

#endif
