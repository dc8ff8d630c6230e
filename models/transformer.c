/* transformer.c -- see transformer.h. */
#include <string.h>

#include "models/transformer.h"

const struct cfg_setting tfm_settings[] = {
	{ "model.name", CFG_STRING, "", 0, 0, "", NULL, "label for reports" },
	{ "model.layers", CFG_INT, "", 1, 100000, NULL, NULL, "transformer layers l" },
	{ "model.hidden", CFG_INT, "", 1, 1e7, NULL, NULL, "hidden size h" },
	{ "model.heads", CFG_INT, "", 1, 1e5, NULL, NULL, "attention heads a" },
	{ "model.seq_len", CFG_INT, "tokens", 1, 1e8, NULL, NULL, "sequence length s" },
	{ "model.vocab", CFG_INT, "tokens", 1, 1e8, NULL, NULL, "vocabulary size V" },
	{ "model.kv_heads", CFG_INT, "", 0, 1e5, "0", NULL,
	  "key/value heads: grouped-query attention when fewer than model.heads, "
	  "multi-query with 1; 0: as many as model.heads" },
	{ "model.head_dim", CFG_INT, "", 0, 1e5, "0", NULL,
	  "query, key and value dimensions per head where they are not "
	  "model.hidden / model.heads (Qwen3: 128 with hidden 2048 and 32 "
	  "heads, config.json head_dim): the projections are h x a d and "
	  "a d x h; 0: hidden / heads (latent attention has its model.mla.*)" },
	{ "model.sliding_window", CFG_INT, "tokens", 0, 1e8, "0", NULL,
	  "sliding-window attention: each query attends to the keys within this "
	  "many tokens before it (Mistral 7B: 4096; GPT-OSS: 128), on the layers "
	  "model.full_attention_every leaves windowed; 0: full causal attention" },
	{ "model.full_attention_every", CFG_INT, "", 0, 1e5, "0", NULL,
	  "with a sliding window: every this-many-th layer attends to all keys "
	  "(GPT-OSS: 2, every other layer; Gemma 3: 6); 0: every layer windowed" },
	{ "model.ffn_hidden", CFG_INT, "", 0, 1e8, "0", NULL,
	  "MLP hidden width f of a dense layer; 0: 4 x model.hidden (GPT)" },
	{ "model.mlp", CFG_ENUM, "", 0, 0, "gelu", "gelu|swiglu|geglu",
	  "MLP: GeLU (two matrices) or a gated linear unit (up, gate, down)" },
	{ "model.norm", CFG_ENUM, "", 0, 0, "layernorm", "layernorm|rmsnorm",
	  "normalisation: LayerNorm (scale and bias) or RMSNorm (scale)" },
	{ "model.qk_norm", CFG_BOOL, "", 0, 0, "false", NULL,
	  "the queries and keys normalised per head after the QKV projection "
	  "(QK-norm: Qwen3, OLMo 2; model.norm's kind, a head_dim scale each): "
	  "two norm kernels a layer forward and backward, their inputs stored" },
	{ "model.bias", CFG_BOOL, "", 0, 0, "true", NULL,
	  "linear layers carry biases (GPT; Llama, Mixtral and DeepSeek have none)" },
	{ "model.dropout", CFG_BOOL, "", 0, 0, "true", NULL,
	  "dropout layers, whose masks training stores (GPT-3; Llama 3 and most "
	  "models since train without)" },
	{ "model.positions", CFG_ENUM, "", 0, 0, "learned", "learned|rope|yarn|alibi",
	  "position encoding: learned embedding (s x h parameters), rotary, "
	  "rotary with YaRN's context extension (its cos and sin scaled by the "
	  "attention factor, which Megatron-Core applies unfused: GPT-OSS) or "
	  "ALiBi (none)" },
	{ "model.tied_embeddings", CFG_BOOL, "", 0, 0, "true", NULL,
	  "output layer shares the input word embedding (false: V x h more parameters)" },
	{ "model.mtp_layers", CFG_INT, "", 0, 64, "0", NULL,
	  "multi-token-prediction modules (DeepSeek-V3): one more layer each, "
	  "sharing embedding and output head" },
	{ "model.mla.q_lora_rank", CFG_INT, "", 0, 1e6, "0", NULL,
	  "multi-head latent attention: query compression rank; 0: no query compression" },
	{ "model.mla.kv_lora_rank", CFG_INT, "", 0, 1e6, "0", NULL,
	  "multi-head latent attention: key/value latent rank; 0: ordinary attention" },
	{ "model.mla.qk_nope_head_dim", CFG_INT, "", 0, 1e5, "0", NULL,
	  "MLA: query/key dimensions per head without rotary embedding" },
	{ "model.mla.qk_rope_head_dim", CFG_INT, "", 0, 1e5, "0", NULL,
	  "MLA: rotary query/key dimensions per head (the rotary key is shared)" },
	{ "model.mla.v_head_dim", CFG_INT, "", 0, 1e5, "0", NULL,
	  "MLA: value dimensions per head" },
	{ "model.moe.experts", CFG_INT, "", 0, 1e5, "0", NULL,
	  "routed experts per MoE layer; 0: a dense model" },
	{ "model.moe.top_k", CFG_INT, "", 1, 1e5, "2", NULL,
	  "routed experts each token runs" },
	{ "model.moe.shared_experts", CFG_INT, "", 0, 1e5, "0", NULL,
	  "experts every token runs (DeepSeekMoE)" },
	{ "model.moe.ffn_hidden", CFG_INT, "", 0, 1e8, "0", NULL,
	  "one expert's MLP width; 0: model.ffn_hidden" },
	{ "model.moe.dense_layers", CFG_INT, "", 0, 100000, "0", NULL,
	  "leading layers with a dense MLP before the first MoE layer" },
	{ "model.moe.capacity_factor", CFG_FLOAT, "", 0, 1e3, "0", NULL,
	  "tokens an expert takes, over the mean (Fedus et al. 2021); 0: dropless" },
	{ "model.moe.imbalance", CFG_FLOAT, "", 1, 1e3, "1.25", NULL,
	  "dropless routing: the busiest expert's tokens over the mean; 1.25 "
	  "as the capacity factor Switch Transformer trains with, dropping few "
	  "tokens with its balancing loss (Fedus et al. 2021, arXiv:2101.03961, "
	  "sec. 2.2 and Table 1)" },
	{ "model.moe.groups", CFG_INT, "", 0, 1e5, "0", NULL,
	  "group-limited routing: the experts split into this many groups, a "
	  "token routed within group_topk of them (DeepSeek-V3's node-limited "
	  "routing, 8 groups of 32, arXiv:2412.19437 sec. 3.2.2; Hugging Face "
	  "n_group, Megatron-Core --moe-router-num-groups); 0: no groups" },
	{ "model.moe.group_topk", CFG_INT, "", 0, 1e5, "0", NULL,
	  "group-limited routing: the groups a token may route to (topk_group, "
	  "--moe-router-group-topk; DeepSeek-V3: 4); 0: all of them" },
	{ "run.tokens", CFG_FLOAT, "tokens", 1, 1e16, NULL, NULL,
	  "tokens to train on (the run ends when they are consumed)" },
	CFG_END
};

void tfm_gpt(struct tfm *m, int layers, int hidden, int heads, int seq_len, int vocab)
{
	memset(m, 0, sizeof *m);
	m->layers = layers;
	m->hidden = hidden;
	m->heads = heads;
	m->seq_len = seq_len;
	m->vocab = vocab;
	m->kv_heads = heads;
	m->ffn_hidden = 4 * hidden;
	m->mlp = TFM_GELU;
	m->norm = TFM_LAYERNORM;
	m->bias = true;
	m->dropout = true;
	m->learned_positions = true;
	m->tied_embeddings = true;
	m->moe.top_k = 2;
	m->moe.imbalance = 1.25;
}

void tfm_from_scenario(const struct scenario *sc, struct tfm *m)
{
	const char *mlp = sc_str(sc, "model.mlp");

	tfm_gpt(m, (int)sc_int(sc, "model.layers"), (int)sc_int(sc, "model.hidden"),
		(int)sc_int(sc, "model.heads"), (int)sc_int(sc, "model.seq_len"),
		(int)sc_int(sc, "model.vocab"));
	m->tokens = sc_float(sc, "run.tokens");
	if (sc_int(sc, "model.kv_heads") > 0)
		m->kv_heads = (int)sc_int(sc, "model.kv_heads");
	m->head_dim = (int)sc_int(sc, "model.head_dim");
	m->window = (int)sc_int(sc, "model.sliding_window");
	m->full_every = (int)sc_int(sc, "model.full_attention_every");
	if (sc_int(sc, "model.ffn_hidden") > 0)
		m->ffn_hidden = (int)sc_int(sc, "model.ffn_hidden");
	m->mlp = strcmp(mlp, "swiglu") == 0 ? TFM_SWIGLU :
		 strcmp(mlp, "geglu") == 0 ? TFM_GEGLU : TFM_GELU;
	m->norm = strcmp(sc_str(sc, "model.norm"), "rmsnorm") == 0 ? TFM_RMSNORM :
		  TFM_LAYERNORM;
	m->bias = sc_bool(sc, "model.bias");
	m->qk_norm = sc_bool(sc, "model.qk_norm");
	m->dropout = sc_bool(sc, "model.dropout");
	m->learned_positions = strcmp(sc_str(sc, "model.positions"), "learned") == 0;
	m->yarn = strcmp(sc_str(sc, "model.positions"), "yarn") == 0;
	m->rotary = m->yarn || strcmp(sc_str(sc, "model.positions"), "rope") == 0;
	m->tied_embeddings = sc_bool(sc, "model.tied_embeddings");
	m->mtp_layers = (int)sc_int(sc, "model.mtp_layers");
	m->mla.q_lora_rank = (int)sc_int(sc, "model.mla.q_lora_rank");
	m->mla.kv_lora_rank = (int)sc_int(sc, "model.mla.kv_lora_rank");
	m->mla.qk_nope_dim = (int)sc_int(sc, "model.mla.qk_nope_head_dim");
	m->mla.qk_rope_dim = (int)sc_int(sc, "model.mla.qk_rope_head_dim");
	m->mla.v_dim = (int)sc_int(sc, "model.mla.v_head_dim");
	m->moe.experts = (int)sc_int(sc, "model.moe.experts");
	m->moe.top_k = (int)sc_int(sc, "model.moe.top_k");
	m->moe.shared_experts = (int)sc_int(sc, "model.moe.shared_experts");
	m->moe.ffn_hidden = (int)sc_int(sc, "model.moe.ffn_hidden");
	if (m->moe.ffn_hidden == 0)
		m->moe.ffn_hidden = m->ffn_hidden;
	m->moe.dense_layers = (int)sc_int(sc, "model.moe.dense_layers");
	m->moe.capacity_factor = sc_float(sc, "model.moe.capacity_factor");
	m->moe.imbalance = sc_float(sc, "model.moe.imbalance");
	m->moe.groups = (int)sc_int(sc, "model.moe.groups");
	m->moe.group_topk = (int)sc_int(sc, "model.moe.group_topk");
}

/* Group-limited routing: whole groups of experts, enough experts in the
 * groups a token may use for its top_k. */
static int check_groups(const struct scenario *sc, const struct tfm_moe *x,
			struct err *e)
{
	if (x->groups == 0)
		return x->group_topk == 0 ? 0 :
		       sc_error(sc, e, "model.moe.group_topk", "%d groups to route "
				"to, but the experts are not grouped (expected 0, or "
				"model.moe.groups > 0)", x->group_topk);
	if (x->experts == 0 || x->experts % x->groups != 0)
		return sc_error(sc, e, "model.moe.groups", "%d experts do not make "
				"%d equal groups (expected a divisor of "
				"model.moe.experts)", x->experts, x->groups);
	if (x->group_topk > x->groups)
		return sc_error(sc, e, "model.moe.group_topk", "%d of %d groups "
				"(expected at most model.moe.groups)", x->group_topk,
				x->groups);
	int topk = x->group_topk > 0 ? x->group_topk : x->groups;
	if ((long)topk * (x->experts / x->groups) < x->top_k)
		return sc_error(sc, e, "model.moe.group_topk", "%d chosen groups "
				"of %d experts hold %d, fewer than top_k = %d (expected "
				"at least %d experts to route among)", topk,
				x->experts / x->groups, topk * (x->experts / x->groups),
				x->top_k, x->top_k);
	return 0;
}

int tfm_check(const struct scenario *sc, const struct tfm *m, struct err *e)
{
	if (m->heads % m->kv_heads != 0)
		return sc_error(sc, e, "model.kv_heads", "%d key/value heads do not "
				"divide %d heads (expected a divisor of model.heads)",
				m->kv_heads, m->heads);
	if (m->full_every > 0 && m->window == 0)
		return sc_error(sc, e, "model.full_attention_every", "full-attention "
				"layers among windowed ones, but there is no window "
				"(expected 0, or model.sliding_window > 0)");
	if (m->mla.kv_lora_rank > 0 && m->head_dim > 0)
		return sc_error(sc, e, "model.head_dim", "latent attention takes its "
				"head dimensions from model.mla.* (expected 0 with "
				"model.mla.kv_lora_rank > 0)");
	if (m->mla.kv_lora_rank > 0 && m->qk_norm)
		return sc_error(sc, e, "model.qk_norm", "latent attention normalises "
				"its latents, not its heads (expected false with "
				"model.mla.kv_lora_rank > 0)");
	if (m->mla.kv_lora_rank == 0 && m->head_dim == 0 && m->hidden % m->heads != 0)
		return sc_error(sc, e, "model.heads", "%d heads do not divide hidden "
				"size %d (expected a divisor of model.hidden)",
				m->heads, m->hidden);
	if (m->mla.kv_lora_rank > 0 &&
	    (m->mla.qk_nope_dim + m->mla.qk_rope_dim == 0 || m->mla.v_dim == 0))
		return sc_error(sc, e, "model.mla.kv_lora_rank", "latent attention "
				"needs head dimensions (expected model.mla.qk_nope_head_dim, "
				"qk_rope_head_dim and v_head_dim > 0)");
	if (m->moe.experts > 0 && m->moe.top_k > m->moe.experts)
		return sc_error(sc, e, "model.moe.top_k", "top-%d routing among %d "
				"experts (expected at most model.moe.experts)",
				m->moe.top_k, m->moe.experts);
	if (m->moe.experts > 0 && m->moe.dense_layers >= m->layers)
		return sc_error(sc, e, "model.moe.dense_layers", "%d dense layers "
				"leave no MoE layer among %d (expected fewer than "
				"model.layers)", m->moe.dense_layers, m->layers);
	return check_groups(sc, &m->moe, e);
}

int tfm_qk_head_dim(const struct tfm *m)
{
	if (m->mla.kv_lora_rank > 0)
		return m->mla.qk_nope_dim + m->mla.qk_rope_dim;
	return m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
}

int tfm_v_head_dim(const struct tfm *m)
{
	if (m->mla.kv_lora_rank > 0)
		return m->mla.v_dim;
	return m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
}

double tfm_norm_params(const struct tfm *m)
{
	return (m->norm == TFM_LAYERNORM ? 2.0 : 1.0) * m->hidden;
}

/* One layer's parameters, split into matrices and vectors (biases, norms),
 * because the closed form for GPT (transformer.h) keeps them apart. */
struct counts {
	double mat, vec;
};

static void attn_counts(const struct tfm *m, struct counts *c)
{
	double h = m->hidden, a = m->heads;

	if (m->mla.kv_lora_rank > 0) {
		double ql = m->mla.q_lora_rank, kvl = m->mla.kv_lora_rank;
		double dqk = tfm_qk_head_dim(m), rope = m->mla.qk_rope_dim;
		double dv = m->mla.v_dim;
		double lnorm = m->norm == TFM_LAYERNORM ? 2.0 : 1.0;

		/* W^DQ h x q_lora, W^UQ q_lora x a d_qk (or W^Q h x a d_qk);
		 * W^DKV h x (kv_lora + rope), W^UK/UV kv_lora x a (nope + v);
		 * W^O a d_v x h; norms on both latents */
		c->mat = (ql > 0 ? h * ql + ql * a * dqk : h * a * dqk) +
			 h * (kvl + rope) + kvl * a * (m->mla.qk_nope_dim + dv) +
			 a * dv * h;
		c->vec = lnorm * ((ql > 0 ? ql : 0) + kvl) +
			 (m->bias ? a * dqk + a * (m->mla.qk_nope_dim + dv) + h : 0);
		return;
	}
	double d = tfm_qk_head_dim(m), kv = m->kv_heads;

	/* W^Q h x a d, W^K and W^V h x kv d each, W^O a d x h; QK-norm's
	 * query and key norms, a head_dim each (shared by the heads) */
	c->mat = h * a * d + 2.0 * h * kv * d + a * d * h;
	c->vec = (m->bias ? a * d + 2.0 * kv * d + h : 0) +
		 (m->qk_norm ? 2.0 * d * (m->norm == TFM_LAYERNORM ? 2 : 1) : 0);
}

/* One MLP of width f: 2 h f (GeLU) or 3 h f (gated). */
static void mlp_counts(const struct tfm *m, double f, struct counts *c)
{
	bool gated = m->mlp != TFM_GELU;
	double h = m->hidden;

	c->mat = (gated ? 3.0 : 2.0) * h * f;
	c->vec = m->bias ? (gated ? 2.0 : 1.0) * f + h : 0;
}

bool tfm_layer_is_moe(const struct tfm *m, int layer)
{
	return m->moe.experts > 0 && layer >= m->moe.dense_layers;
}

int tfm_moe_layers(const struct tfm *m, int first, int n)
{
	int k = 0;

	for (int i = first; i < first + n; i++)
		k += tfm_layer_is_moe(m, i);
	return k;
}

/* One layer with `routed` of its routed experts counted. */
static void layer_counts(const struct tfm *m, bool is_moe, double routed,
			 struct counts *c)
{
	struct counts a, f;

	attn_counts(m, &a);
	c->mat = a.mat;
	c->vec = a.vec + 2.0 * tfm_norm_params(m);
	if (!is_moe) {
		mlp_counts(m, m->ffn_hidden, &f);
		c->mat += f.mat;
		c->vec += f.vec;
		return;
	}
	mlp_counts(m, m->moe.ffn_hidden, &f);
	/* the router: h x E logits */
	c->mat += (routed + m->moe.shared_experts) * f.mat +
		  (double)m->hidden * m->moe.experts;
	c->vec += (routed + m->moe.shared_experts) * f.vec;
}

double tfm_layer_params(const struct tfm *m, bool is_moe)
{
	struct counts c;

	layer_counts(m, is_moe, m->moe.experts, &c);
	return c.mat + c.vec;
}

double tfm_layer_matrix_params(const struct tfm *m, bool is_moe)
{
	struct counts c;

	layer_counts(m, is_moe, m->moe.experts, &c);
	return c.mat;
}

double tfm_layer_expert_params(const struct tfm *m, bool is_moe)
{
	struct counts f;

	if (!is_moe)
		return 0;
	mlp_counts(m, m->moe.ffn_hidden, &f);
	return (double)m->moe.experts * (f.mat + f.vec);
}

double tfm_embed_params(const struct tfm *m)
{
	double h = m->hidden;

	return (double)m->vocab * h + (m->learned_positions ? (double)m->seq_len * h : 0);
}

double tfm_head_params(const struct tfm *m)
{
	return m->tied_embeddings ? 0 : (double)m->vocab * m->hidden;
}

double tfm_mtp_extra_params(const struct tfm *m)
{
	double h = m->hidden;

	return 2.0 * h * h + 2.0 * tfm_norm_params(m);
}

/* All layers (and `mtp` MTP modules, each like the last layer plus its
 * projection and norms) with `routed` experts of each MoE layer counted
 * (-1: all of them). */
static void model_counts(const struct tfm *m, double routed, int mtp, struct counts *c)
{
	int moe_layers = m->moe.experts > 0 ? m->layers - m->moe.dense_layers : 0;
	double r = routed < 0 ? m->moe.experts : routed;
	struct counts d, x;

	layer_counts(m, false, 0, &d);
	layer_counts(m, true, r, &x);
	c->mat = (double)(m->layers - moe_layers) * d.mat;
	c->vec = (double)(m->layers - moe_layers) * d.vec;
	if (moe_layers > 0) {
		c->mat += moe_layers * x.mat;
		c->vec += moe_layers * x.vec;
	}
	if (mtp > 0) {
		const struct counts *last = moe_layers > 0 ? &x : &d;
		c->mat += mtp * (last->mat + 2.0 * (double)m->hidden * m->hidden);
		c->vec += mtp * (last->vec + 2.0 * tfm_norm_params(m));
	}
}

/* 12 l h^2 (mat/D + vec/D + emb/D), D = 12 l h^2: for GPT's shape each
 * ratio is the exact real of SC'21's 1, 13/(12h) and (V+s)/(12 l h), so
 * the sum is bit for bit the closed form.  The final norm (2h) is left out,
 * as there. */
static double params_of(const struct tfm *m, double routed, int mtp)
{
	double l = m->layers, h = m->hidden;
	double D = 12.0 * l * h * h;
	double emb = tfm_embed_params(m) + tfm_head_params(m);
	struct counts c;

	model_counts(m, routed, mtp, &c);
	return 12.0 * l * h * h * (c.mat / D + c.vec / D + emb / D);
}

double tfm_params(const struct tfm *m)
{
	return params_of(m, -1, m->mtp_layers);
}

double tfm_active_params(const struct tfm *m)
{
	return params_of(m, m->moe.experts > 0 ? m->moe.top_k : 0, m->mtp_layers);
}

double tfm_main_params(const struct tfm *m)
{
	return params_of(m, -1, 0);
}

double tfm_window_frac(const struct tfm *m)
{
	if (m->window <= 0)
		return 0;
	return m->full_every > 0 ? (m->full_every - 1.0) / m->full_every : 1.0;
}

double tfm_attn_core_flops_per_token(const struct tfm *m)
{
	/* Q K^T over s keys and the weighted sum of s values, per head; a
	 * windowed layer's query over the window's keys (at most s) */
	double w = tfm_window_frac(m), s = m->seq_len;
	double keys = (1 - w) * s + w * (m->window < s ? m->window : s);

	return 2.0 * keys * m->heads * (double)(tfm_qk_head_dim(m) + tfm_v_head_dim(m));
}

/*
 * k B s l h^2 (fd/D + core/D + logits/(k l h^2)), D = 24 l h^2: fd is the
 * layers' forward matmul FLOPs per token (2 per active weight), core their
 * attention cores', logits 6 h V per token (forward and backward, never
 * recomputed) for the main head and each MTP module's; k = 24 x passes
 * over the layers (3, or 4 with full recomputation): 72 or 96.  For GPT's shape
 * fd/D = 1 and core/D = s/(6h) exactly: SC'21's bracket bit for bit.
 */
static double flops_bracket(const struct tfm *m, double k)
{
	double l = m->layers, h = m->hidden;
	double D = 24.0 * l * h * h;
	struct counts c;

	model_counts(m, m->moe.experts > 0 ? m->moe.top_k : 0, m->mtp_layers, &c);
	double fd = 2.0 * c.mat;
	double core = (l + m->mtp_layers) * tfm_attn_core_flops_per_token(m);
	double logits = 6.0 * h * m->vocab * (1.0 + m->mtp_layers);

	return fd / D + core / D + logits / (k * l * h * h);
}

double tfm_flops(const struct tfm *m, double sequences, bool recompute)
{
	double l = m->layers, h = m->hidden, s = m->seq_len;
	double k = recompute ? 96.0 : 72.0;

	return k * sequences * s * l * h * h * flops_bracket(m, k);
}

double tfm_model_flops_per_token(const struct tfm *m)
{
	double l = m->layers, h = m->hidden;

	return 72.0 * l * h * h * flops_bracket(m, 72.0);
}
