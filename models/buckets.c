/*
 * buckets.c -- a chunk's gradient buckets (see buckets.h).
 */
#include "models/buckets.h"

/* A buffer being cut: elements in the open bucket, buckets closed. */
struct cut {
	double open, closed, cap;
};

static void add_param(struct cut *c, double elems)
{
	c->open += elems;
	if (c->open >= c->cap) {
		c->closed++;
		c->open = 0;
	}
}

static double cut_buckets(const struct cut *c)
{
	return c->closed + (c->open > 0 ? 1 : 0);
}

/* An MLP of width f, TP-sharded t ways: its second weight, then its
 * first (twice as wide when gated). */
static void add_mlp(struct cut *c, const struct tfm *m, double f, double t)
{
	double h = m->hidden;

	add_param(c, f * h / t);
	add_param(c, (m->mlp != TFM_GELU ? 2.0 : 1.0) * h * f / t);
}

static void add_attention(struct cut *c, const struct tfm *m, double t)
{
	double h = m->hidden, a = m->heads, kv = m->kv_heads, d = tfm_qk_head_dim(m);

	if (m->mla.kv_lora_rank > 0) {
		/* the latent projections' matrices as one weight: a dense
		 * layer's less its MLP's */
		double mlp = (m->mlp != TFM_GELU ? 3.0 : 2.0) * h * m->ffn_hidden;
		add_param(c, (tfm_layer_matrix_params(m, false) - mlp) / t);
		return;
	}
	add_param(c, a * d * h / t);
	add_param(c, h * (a + 2.0 * kv) * d / t);
}

double bkt_chunk_buckets(const struct tfm *m, const struct layout *L, int first, int n,
			 bool head, double bucket_elems)
{
	struct cut dense = { 0, 0, bucket_elems }, expert = { 0, 0, bucket_elems };
	double t = L->tp, et = layout_etp(L), ep = L->ep > 1 ? L->ep : 1;

	if (head)
		add_param(&dense, (double)m->vocab * m->hidden / t);
	for (int i = first + n - 1; i >= first; i--) {
		if (!tfm_layer_is_moe(m, i)) {
			add_mlp(&dense, m, m->ffn_hidden, t);
		} else {
			for (int x = 0; x < m->moe.experts / ep; x++)
				add_mlp(&expert, m, m->moe.ffn_hidden, et);
			if (m->moe.shared_experts > 0)
				add_mlp(&dense, m, m->moe.shared_experts * m->moe.ffn_hidden, t);
			add_param(&dense, (double)m->hidden * m->moe.experts);
		}
		add_attention(&dense, m, t);
	}
	double b = cut_buckets(&dense) + cut_buckets(&expert);
	return b > 0 ? b : 1;
}
