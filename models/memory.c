/* memory.c -- see memory.h. */
#include "models/memory.h"
#include "models/zero.h"

double mem_act_layer_bytes(const struct tfm *m, double micro_batch, int tp,
			   bool sp, bool flash, enum par_recompute rc)
{
	double s = m->seq_len, b = micro_batch, h = m->hidden, a = m->heads, t = tp;
	double sbh = s * b * h;
	double scores = (rc == PAR_RECOMPUTE_NONE && !flash) ? 5.0 * a * s / h : 0.0;

	if (rc == PAR_RECOMPUTE_FULL)
		return sp ? 2.0 * sbh / t : 2.0 * sbh;
	if (sp)
		return sbh / t * (34.0 + scores);
	return sbh * (10.0 + 24.0 / t + scores / t);
}

double mem_stage_params(const struct tfm *m, int tp, int pp, int stage)
{
	double h = m->hidden, t = tp;
	double per_layer = (12.0 * h * h + 13.0 * h) / t;
	double p = (double)(m->layers / pp) * per_layer;

	if (stage == 0)
		p += (double)m->vocab * h / t + (double)m->seq_len * h;
	if (stage == pp - 1) {
		if (pp > 1)
			p += (double)m->vocab * h / t;
		p += 2.0 * h;
	}
	return p;
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

void mem_stage(const struct tfm *m, const struct layout *L,
	       const struct par_opts *o, int stage, struct mem_breakdown *out)
{
	int v = o->schedule == PAR_INTERLEAVED ? o->virtual_stages : 1;
	double layers_per_chunk = (double)m->layers / (L->pp * v);
	bool flash = o->flash_attention, sp = o->sequence_parallel;
	double per_layer = mem_act_layer_bytes(m, L->micro_batch, L->tp, sp, flash,
					       o->recompute);
	struct zero_mem z;

	out->stage = stage;
	out->params = mem_stage_params(m, L->tp, L->pp, stage);
	zero_model_memory(out->params, L->dp, o->zero_stage,
			  o->distributed_optimizer, &z);
	out->weights_bytes = z.weights_bytes;
	out->grads_bytes = z.grads_bytes;
	out->optimizer_bytes = z.optimizer_bytes;

	out->activations_bytes = per_layer * layers_per_chunk *
		mem_inflight_chunks(L->pp, v, L->microbatches, stage);
	if (o->recompute == PAR_RECOMPUTE_FULL)	/* the layer being recomputed */
		out->activations_bytes += mem_act_layer_bytes(m, L->micro_batch,
				L->tp, sp, flash, PAR_RECOMPUTE_NONE);
	if (stage == L->pp - 1)
		out->activations_bytes += 4.0 * m->seq_len * L->micro_batch *
					  (double)m->vocab / L->tp;
	out->reserve_bytes = o->reserve_bytes;
	out->total_bytes = out->weights_bytes + out->grads_bytes +
			   out->optimizer_bytes + out->activations_bytes +
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
