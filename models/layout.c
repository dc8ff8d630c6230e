/* layout.c -- see layout.h. */
#include <string.h>

#include "models/layout.h"

const struct cfg_setting layout_settings[] = {
	{ "cluster.gpu", CFG_REF, "", 0, 0, NULL, "gpus", "GPU type, a gpus catalog entry" },
	{ "cluster.node", CFG_STRING, "", 0, 0, "", NULL,
	  "server type, a nodes catalog entry (empty: the first entry whose gpu is "
	  "cluster.gpu, else \"generic\"; models/node.h)" },
	{ "cluster.gpus", CFG_INT, "", 1, 1e7, NULL, NULL, "GPUs in the job" },
	{ "cluster.gpus_per_node", CFG_INT, "", 1, 1024, "8", NULL, "GPUs per node (server)" },
	{ "parallel.tp", CFG_INT, "", 1, 1024, "1", NULL, "tensor-parallel degree" },
	{ "parallel.pp", CFG_INT, "", 1, 4096, "1", NULL, "pipeline-parallel degree" },
	{ "parallel.global_batch", CFG_INT, "sequences", 1, 1e8, NULL, NULL,
	  "sequences per iteration (all data-parallel replicas together)" },
	{ "parallel.micro_batch", CFG_INT, "sequences", 1, 1e6, "1", NULL,
	  "sequences per microbatch" },
	{ "parallel.ep", CFG_INT, "", 1, 1e6, "1", NULL,
	  "expert-parallel degree: each MoE layer's experts split over ep "
	  "ranks, tokens dispatched and combined by all-to-all; ep x expert_tp "
	  "divides a stage's tp x dp ranks (the experts' grid folded over them, "
	  "TP ranks included when expert_tp < tp: Megatron-Core's MoE parallel "
	  "folding)" },
	{ "parallel.expert_tp", CFG_INT, "", 0, 1e5, "0", NULL,
	  "expert tensor parallelism (Megatron-Core --expert-tensor-parallel-size, "
	  "MoE parallel folding): each expert's weights split over expert_tp ranks, "
	  "a divisor of tp; 0: tp (Megatron-Core's default); EP groups are formed "
	  "expert_tp ranks apart" },
	{ "parallel.ep_overlap", CFG_ENUM, "", 0, 0, "none", "none|shared_expert|dualpipe",
	  "what hides the EP all-to-alls: nothing (Megatron-Core's default), the "
	  "shared experts' compute (Megatron-Core --moe-shared-expert-overlap) or "
	  "another microbatch's compute (DeepSeek-V3's DualPipe, arXiv 2412.19437 "
	  "sec. 3.2.1); only what that compute cannot cover is exposed" },
	{ "parallel.cp", CFG_INT, "", 1, 1e5, "1", NULL,
	  "context-parallel degree: each sequence split over cp data-parallel ranks" },
	{ "parallel.cp_comm", CFG_ENUM, "", 0, 0, "ring", "ring|all_gather|all_to_all",
	  "context parallelism's exchange: ring attention (K/V blocks passed "
	  "around, overlapped with attention), an all-gather of K and V (Llama 3) "
	  "or Ulysses (all-to-all of heads)" },
	{ "parallel.first_stage_layers", CFG_INT, "", 0, 100000, "0", NULL,
	  "layers on the first pipeline stage (Megatron-LM's "
	  "--decoder-first-pipeline-num-layers); 0: an even split" },
	{ "parallel.last_stage_layers", CFG_INT, "", 0, 100000, "0", NULL,
	  "layers on the last pipeline stage (--decoder-last-pipeline-num-layers); "
	  "0: an even split" },
	CFG_END
};

int layout_stage_layers(const struct layout *L, int layers, int stage)
{
	int lo = 0, hi = L->pp, rest = layers;

	if (L->pp == 1)
		return layers;
	if (L->first_stage_layers > 0) {
		if (stage == 0)
			return L->first_stage_layers;
		lo = 1;
		rest -= L->first_stage_layers;
	}
	if (L->last_stage_layers > 0) {
		if (stage == L->pp - 1)
			return L->last_stage_layers;
		hi = L->pp - 1;
		rest -= L->last_stage_layers;
	}
	/* ceil(rest/n) each, one fewer on the d outermost: order 0, n-1, 1, n-2 */
	int n = hi - lo, i = stage - lo;
	int base = (rest + n - 1) / n, d = base * n - rest;
	int order = i <= n - 1 - i ? 2 * i : 2 * (n - 1 - i) + 1;

	return base - (order < d ? 1 : 0);
}

int layout_chunk_layers(const struct layout *L, int layers, int v, int vs)
{
	int k = vs % L->pp, c = vs / L->pp;
	int n = layout_stage_layers(L, layers, k);

	/* the first stage's lighter chunks first, beside the embedding; the
	 * other stages' last, the last stage's beside the loss */
	if (k == 0 && L->pp > 1)
		return n / v + (c >= v - n % v ? 1 : 0);
	return n / v + (c < n % v ? 1 : 0);
}

int layout_chunk_first_layer(const struct layout *L, int layers, int v, int vs)
{
	int first = 0;

	for (int i = 0; i < vs; i++)
		first += layout_chunk_layers(L, layers, v, i);
	return first;
}

/* The stage split: the fixed counts leave at least one layer for every
 * other stage, and sum to the model's when no other stage is left.  By the
 * rule alone, the embedding and the loss may take a stage each with no
 * layer: pp up to layers + 2, as DeepSpeed's 'type:transformer|embedding'
 * partition (the tied embedding counted as a layer on the first and the
 * last stage: BLOOM's 70 layers on 72 stages) and Megatron-Core's
 * account_for_embedding/loss_in_pipeline_split split them. */
static int check_stages(const struct scenario *sc, const struct tfm *m,
			const struct layout *L, struct err *e)
{
	int f = L->first_stage_layers, g = L->last_stage_layers;
	int others = L->pp - (f > 0) - (g > 0), rest = m->layers - f - g;
	const char *key = g > 0 ? "parallel.last_stage_layers" :
			  "parallel.first_stage_layers";

	if (f == 0 && g == 0)
		return m->layers + 2 < L->pp ?
		       sc_error(sc, e, "parallel.pp", "%d layers on pp = %d stages "
				"(expected at most model.layers + 2 stages: one each "
				"for the embedding and the loss)", m->layers, L->pp) : 0;
	if ((f > 0 || g > 0) && L->pp < 2)
		return sc_error(sc, e, key, "stage layer counts need pipeline "
				"parallelism (expected pp >= 2 or 0)");
	if (others == 0 && rest != 0)
		return sc_error(sc, e, key, "%d + %d stage layers do not sum to "
				"%d layers (expected first + last = model.layers "
				"with pp = 2)", f, g, m->layers);
	if (others > 0 && rest < others)
		return sc_error(sc, e, key, "%d + %d stage layers leave %d layers "
				"for %d other stages (expected at least one each)",
				f, g, rest, others);
	return 0;
}

int layout_ep_nodes(const struct layout *L)
{
	int span = (L->ep > 1 ? L->ep : 1) * layout_etp(L);

	return span > L->gpus_per_node ? span / L->gpus_per_node : 1;
}

int layout_etp(const struct layout *L)
{
	return L->etp > 0 ? L->etp : L->tp;
}

int layout_ep_group(const struct layout *L)
{
	int ep = L->ep > 1 ? L->ep : 1, span = L->tp * L->dp / layout_etp(L);

	return ep < span ? ep : (span > 1 ? span : 1);
}

int layout_replicas(const struct layout *L)
{
	int cp = L->cp > 1 ? L->cp : 1;

	return L->dp / cp > 0 ? L->dp / cp : 1;
}

static int check_cp(const struct scenario *sc, const struct tfm *m,
		    const struct layout *L, struct err *e)
{
	int cp = L->cp;

	if (cp <= 1)
		return 0;
	if (L->dp % cp != 0)
		return sc_error(sc, e, "parallel.cp", "dp = %d is not divisible by "
				"cp = %d (expected a divisor of the GPUs over tp x pp)",
				L->dp, cp);
	if (!L->cp_ulysses && m->seq_len % (2 * cp) != 0)
		return sc_error(sc, e, "parallel.cp", "sequence of %d does not split "
				"into 2 x cp = %d chunks (expected cp dividing "
				"model.seq_len / 2)", m->seq_len, 2 * cp);
	if (L->cp_ulysses && m->seq_len % cp != 0)
		return sc_error(sc, e, "parallel.cp", "sequence of %d is not "
				"divisible by cp = %d (expected a divisor of "
				"model.seq_len)", m->seq_len, cp);
	if (L->cp_ulysses && (m->heads % (L->tp * cp) != 0 ||
			      (m->mla.kv_lora_rank == 0 && m->kv_heads % (L->tp * cp) != 0)))
		return sc_error(sc, e, "parallel.cp_comm", "Ulysses splits heads over "
				"tp x cp = %d, which does not divide %d heads and %d "
				"key/value heads (expected ring)", L->tp * cp, m->heads,
				m->kv_heads);
	return 0;
}

int layout_from_scenario(const struct scenario *sc, const struct tfm *m,
			 struct layout *L, struct err *e)
{
	L->gpu = sc_str(sc, "cluster.gpu");
	L->gpus = (int)sc_int(sc, "cluster.gpus");
	L->gpus_per_node = (int)sc_int(sc, "cluster.gpus_per_node");
	L->tp = (int)sc_int(sc, "parallel.tp");
	L->pp = (int)sc_int(sc, "parallel.pp");
	L->global_batch = (int)sc_int(sc, "parallel.global_batch");
	L->micro_batch = (int)sc_int(sc, "parallel.micro_batch");
	L->ep = (int)sc_int(sc, "parallel.ep");
	L->cp = (int)sc_int(sc, "parallel.cp");
	L->etp = (int)sc_int(sc, "parallel.expert_tp");
	const char *ov = sc_str(sc, "parallel.ep_overlap");
	L->ep_overlap = strcmp(ov, "shared_expert") == 0 ? LAYOUT_EP_OVERLAP_SHARED :
			strcmp(ov, "dualpipe") == 0 ? LAYOUT_EP_OVERLAP_DUALPIPE :
			LAYOUT_EP_OVERLAP_NONE;
	L->cp_ulysses = strcmp(sc_str(sc, "parallel.cp_comm"), "all_to_all") == 0;
	L->cp_all_gather = strcmp(sc_str(sc, "parallel.cp_comm"), "all_gather") == 0;
	L->first_stage_layers = (int)sc_int(sc, "parallel.first_stage_layers");
	L->last_stage_layers = (int)sc_int(sc, "parallel.last_stage_layers");

	if (tfm_check(sc, m, e) < 0)
		return -1;

	if (L->gpus % L->gpus_per_node != 0)
		return sc_error(sc, e, "cluster.gpus", "%d GPUs do not fill whole nodes "
				"(expected a multiple of cluster.gpus_per_node = %d)",
				L->gpus, L->gpus_per_node);
	if (L->gpus % (L->tp * L->pp) != 0)
		return sc_error(sc, e, "cluster.gpus", "%d GPUs are not divisible by "
				"tp x pp = %d (expected a multiple of %d)",
				L->gpus, L->tp * L->pp, L->tp * L->pp);
	if (m->heads % L->tp != 0)
		return sc_error(sc, e, "parallel.tp", "%d attention heads are not "
				"divisible by tp = %d (expected a divisor of model.heads)",
				m->heads, L->tp);
	if (m->kv_heads % L->tp != 0 && m->mla.kv_lora_rank == 0)
		return sc_error(sc, e, "parallel.tp", "%d key/value heads are not "
				"divisible by tp = %d (expected a divisor of "
				"model.kv_heads)", m->kv_heads, L->tp);
	if (m->ffn_hidden % L->tp != 0)
		return sc_error(sc, e, "parallel.tp", "MLP width %d is not divisible "
				"by tp = %d (expected a divisor of model.ffn_hidden)",
				m->ffn_hidden, L->tp);
	if (L->etp > 0 && m->moe.experts == 0)
		return sc_error(sc, e, "parallel.expert_tp", "expert tensor "
				"parallelism without experts (expected 0, or "
				"model.moe.experts > 0)");
	if (L->etp > 0 && L->tp % L->etp != 0)
		return sc_error(sc, e, "parallel.expert_tp", "%d is not a divisor "
				"of tp = %d (expected a divisor of parallel.tp, or 0)",
				L->etp, L->tp);
	if (L->etp == 0)
		L->etp = L->tp;
	if (m->moe.experts > 0 && m->moe.ffn_hidden % L->etp != 0)
		return sc_error(sc, e, L->etp == L->tp ? "parallel.tp" :
				"parallel.expert_tp", "expert width %d is not "
				"divisible by %d (expected a divisor of "
				"model.moe.ffn_hidden)", m->moe.ffn_hidden, L->etp);
	if (check_stages(sc, m, L, e) < 0)
		return -1;
	L->nodes = L->gpus / L->gpus_per_node;
	L->dp = L->gpus / (L->tp * L->pp);
	if (check_cp(sc, m, L, e) < 0)
		return -1;
	int replicas = layout_replicas(L);
	if (L->global_batch % (replicas * L->micro_batch) != 0)
		return sc_error(sc, e, "parallel.global_batch", "%d sequences are not "
				"divisible by dp x micro_batch = %d x %d (expected a "
				"multiple of %d)", L->global_batch, replicas,
				L->micro_batch, replicas * L->micro_batch);
	L->microbatches = L->global_batch / (replicas * L->micro_batch);
	if (L->ep > 1 && m->moe.experts == 0)
		return sc_error(sc, e, "parallel.ep", "expert parallelism without "
				"experts (expected 1, or model.moe.experts > 0)");
	if (m->moe.experts > 0 && m->moe.experts % L->ep != 0)
		return sc_error(sc, e, "parallel.ep", "%d experts are not divisible "
				"by ep = %d (expected a divisor of model.moe.experts)",
				m->moe.experts, L->ep);
	if ((L->tp * L->dp) % (L->etp * L->ep) != 0)
		return sc_error(sc, e, "parallel.ep", "ep x expert_tp = %d x %d "
				"does not divide a stage's tp x dp = %d x %d ranks "
				"(expected ep dividing %d: Megatron-Core lays the "
				"experts' grid over them)", L->ep, L->etp, L->tp,
				L->dp, L->tp * L->dp / L->etp);
	if (L->ep_overlap == LAYOUT_EP_OVERLAP_SHARED && m->moe.shared_experts == 0)
		return sc_error(sc, e, "parallel.ep_overlap", "shared_expert without "
				"shared experts (expected model.moe.shared_experts > 0, "
				"or none)");
	if (L->ep_overlap == LAYOUT_EP_OVERLAP_DUALPIPE && L->microbatches < 2)
		return sc_error(sc, e, "parallel.ep_overlap", "dualpipe with %d "
				"microbatch (expected at least 2: one's all-to-alls "
				"hide under another's compute)", L->microbatches);
	return 0;
}
