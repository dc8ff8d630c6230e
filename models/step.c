/*
 * step.c -- the scenario's iteration as a plan for step_run() (step_des.c):
 * per-virtual-stage pass times from the layers' costs (step_layer.c), p2p
 * time, gradient buckets, Adam, and the transport that carries DP
 * collectives on topologies/net.h.  See step.h.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/compute.h"
#include "models/eager.h"
#include "models/kpower.h"
#include "models/megatron.h"
#include "models/step.h"
#include "models/dualpipe.h"
#include "models/step_layer.h"
#include "models/buckets.h"
#include "models/straggler.h"
#include "topologies/topo.h"

/* Bytes per element of the tied word embedding's gradient as stage 0 and
 * stage p-1 all-reduce it: the buffer the gradients accumulate in
 * (Megatron's _allreduce_embedding_grads reduces main_grad, fp32 when the
 * stack reduces in fp32; DeepSpeed's BF16_Optimizer its fp32 _hp_grad). */
static double tied_grad_bytes(const struct par_opts *o)
{
	if (o->ds_engine)
		return o->dtype == PAR_FP16 ? 2 : 4;
	if (o->zero_stage >= 1)
		return o->zero_reduce_fp32 ? 4 : 2;
	return o->grad_reduce_bytes;
}

/* DeepSpeed's stage3_max_reuse_distance, by default 1e9 elements
 * (deepspeed/runtime/zero/constants.py, v0.3.15): after a module's forward
 * its weights stay gathered only if fewer elements are fetched before it
 * runs again (stage3.py release_sub_module, _keep_for_later). */
#define DS_MAX_REUSE_ELEMS 1e9

/* ZeRO-3 in series with full recomputation (step.h): the share of a
 * layer's weights, and their tensors, that its backward gathers a second
 * time.  The recomputed forward runs the layer's modules in order (norm,
 * QKV, projection, norm, MLP up, MLP down) and the backward runs them in
 * reverse, so a module is needed again after twice the elements of the
 * modules after it: from 1e9 on, DeepSpeed released it after the
 * recomputed forward and gathers it again for its backward. */
static void zero3_regather(const struct tfm *m, const struct layout *L,
			   double *frac, double *tensors)
{
	double h = m->hidden, f = m->ffn_hidden, t = L->tp;
	double kv = h / m->heads * m->kv_heads, up = m->mlp == TFM_GELU ? 1 : 2;
	double norm = m->norm == TFM_LAYERNORM ? 2 * h : h;
	double b = m->bias ? 1 : 0;
	double size[6] = { norm, (h + 2 * kv) * (h + b) / t, h * (h + b) / t, norm,
			   up * f * (h + b) / t, f * h / t + b * h };
	double tens[6] = { m->norm == TFM_LAYERNORM ? 2 : 1, 1 + b, 1 + b,
			   m->norm == TFM_LAYERNORM ? 2 : 1, 1 + b, 1 + b };
	double again = 0, after = 0;

	*tensors = 0;
	for (int i = 5; i >= 0; i--) {
		if (2 * after >= DS_MAX_REUSE_ELEMS) {
			again += size[i];
			*tensors += tens[i];
		}
		after += size[i];
	}
	*frac = after > 0 ? again / after : 0;
}

/* The tensors the optimizer and the gradient clip visit on a rank: the
 * layers', the embeddings, an untied head, the final norm (PyTorch
 * modules' parameters, as FSDP with use_orig_params=True, Composer 0.16's
 * default, leaves them). */
static double opt_tensors(const struct tfm *m, const struct layout *L)
{
	double norm = m->norm == TFM_LAYERNORM ? 2 : 1;

	return (double)m->layers / L->pp * step_layer_tensors(m) + 1 +
	       (m->learned_positions ? 1 : 0) + (m->tied_embeddings ? 0 : 1) + norm;
}

/* Per-virtual-stage arrays of the plan. */
struct plan_arrays {
	double *hide;		/* per stage: its first forward passes */
	double *fwd, *bwd, *fwd_tp, *bwd_tp, *fwd_gemm, *bwd_gemm, *fwd_dyn, *bwd_dyn, *params;
	double *xparams;	/* of params, the routed experts' */
	double *wgrad;		/* DualPipe: the weight-gradient part of bwd */
	double *buckets;	/* DDP gradient buckets (buckets.h) */
	int *layers, *rank_gpu;
};

static void arrays_free(struct plan_arrays *a)
{
	free(a->hide);
	free(a->fwd);
	free(a->bwd);
	free(a->fwd_tp);
	free(a->bwd_tp);
	free(a->fwd_gemm);
	free(a->bwd_gemm);
	free(a->fwd_dyn);
	free(a->bwd_dyn);
	free(a->params);
	free(a->xparams);
	free(a->wgrad);
	free(a->buckets);
	free(a->layers);
	free(a->rank_gpu);
}

static int arrays_alloc(struct plan_arrays *a, int V, int ranks)
{
	memset(a, 0, sizeof *a);
	a->hide = calloc((size_t)V, sizeof(double));
	a->fwd = calloc((size_t)V, sizeof(double));
	a->bwd = calloc((size_t)V, sizeof(double));
	a->fwd_tp = calloc((size_t)V, sizeof(double));
	a->bwd_tp = calloc((size_t)V, sizeof(double));
	a->fwd_gemm = calloc((size_t)V, sizeof(double));
	a->bwd_gemm = calloc((size_t)V, sizeof(double));
	a->fwd_dyn = calloc((size_t)V, sizeof(double));
	a->bwd_dyn = calloc((size_t)V, sizeof(double));
	a->params = calloc((size_t)V, sizeof(double));
	a->xparams = calloc((size_t)V, sizeof(double));
	a->wgrad = calloc((size_t)V, sizeof(double));
	a->buckets = calloc((size_t)V, sizeof(double));
	a->layers = calloc((size_t)V, sizeof(int));
	a->rank_gpu = calloc((size_t)ranks, sizeof(int));
	return a->hide && a->fwd && a->bwd && a->fwd_tp && a->bwd_tp && a->fwd_gemm &&
	       a->bwd_gemm && a->fwd_dyn && a->bwd_dyn && a->params && a->xparams && a->wgrad &&
	       a->buckets &&
	       a->layers && a->rank_gpu ? 0 : -1;
}

/* One MoE layer's routed experts' parameters on one GPU (over expert TP
 * and EP, as step_layer_rank_params splits them). */
static double rank_expert_params(const struct tfm *m, const struct layout *L)
{
	double ep = L->ep > 1 ? L->ep : 1;

	return tfm_layer_expert_params(m, true) / (layout_etp(L) * ep);
}

/* The ranks that reduce a routed expert's gradients: Megatron-Core's
 * expert data parallelism, tp dp / (etp ep) (memory.c shards the experts'
 * optimizer state over as many).  Where that is not a whole divisor of the
 * DP group the experts are reduced over the DP group (0: no split). */
static int expert_dp(const struct layout *L)
{
	int ep = L->ep > 1 ? L->ep : 1, span = L->tp * L->dp, unit = layout_etp(L) * ep;

	if (span % unit != 0 || span / unit >= L->dp || L->dp % (span / unit) != 0)
		return 0;
	return span / unit;
}

/* The input embedding's parameters on one GPU of the first stage: the
 * word embedding split over TP, learned positions whole. */
static double embed_rank_params(const struct tfm *m, const struct layout *L)
{
	double h = m->hidden;

	return (double)m->vocab * h / L->tp + (m->learned_positions ? (double)m->seq_len * h : 0);
}

/* The DDP's gradient buckets of each chunk (buckets.h), its parameters
 * counted in the elements a bucket holds: bucket bytes over the bytes a
 * gradient is reduced in. */
static void fill_buckets(const struct tfm *m, const struct layout *L, int v,
			 const struct par_opts *o, struct plan_arrays *a)
{
	double elems = o->dp_bucket_bytes / o->grad_reduce_bytes;
	int V = L->pp * v, first = 0;

	for (int vs = 0; vs < V; vs++) {
		int n = layout_chunk_layers(L, m->layers, v, vs);
		a->buckets[vs] = bkt_chunk_buckets(m, L, first, n, vs == V - 1, elems);
		first += n;
	}
}

/* Chunk vs's passes: its dense and MoE layers (layout.h: stages may be
 * uneven), the embedding on the first chunk, the logits on the last. */
static void fill_stages(const struct tfm *m, const struct layout *L, int v,
			const struct layer_costs *c, struct plan_arrays *a)
{
	int V = L->pp * v, first = 0;
	double h = m->hidden, t = L->tp;

	for (int vs = 0; vs < V; vs++) {
		int n = layout_chunk_layers(L, m->layers, v, vs), x = 0;
		for (int i = first; i < first + n; i++)
			x += tfm_layer_is_moe(m, i);
		first += n;
		int d = n - x;	/* dense layers */
		a->layers[vs] = n;
		a->fwd[vs] = d * (c->fwd.time_s + c->tp_fwd_s);
		a->bwd[vs] = d * (c->bwd.time_s + c->tp_bwd_s);
		a->fwd_tp[vs] = d * c->tp_fwd_s;
		a->bwd_tp[vs] = d * c->tp_bwd_s;
		if (c->cp_bytes > 0) {
			a->fwd[vs] += n * c->cp_fwd_s;
			a->bwd[vs] += n * c->cp_bwd_s;
			a->fwd_tp[vs] += n * c->cp_fwd_s;
			a->bwd_tp[vs] += n * c->cp_bwd_s;
		}
		a->fwd_gemm[vs] = d * c->fwd.gemm_s;
		a->bwd_gemm[vs] = d * c->bwd.gemm_s;
		a->fwd_dyn[vs] = d * c->fwd.dyn_j;
		a->bwd_dyn[vs] = d * c->bwd.dyn_j;
		a->params[vs] = step_layer_rank_params(m, L, false, d);
		if (x > 0) {
			a->fwd[vs] += x * (c->moe_fwd.time_s + c->moe_tp_fwd_s + c->ep_fwd_s);
			a->bwd[vs] += x * (c->moe_bwd.time_s + c->moe_tp_bwd_s + c->ep_bwd_s);
			a->fwd_tp[vs] += x * (c->moe_tp_fwd_s + c->ep_fwd_s);
			a->bwd_tp[vs] += x * (c->moe_tp_bwd_s + c->ep_bwd_s);
			a->fwd_gemm[vs] += x * c->moe_fwd.gemm_s;
			a->bwd_gemm[vs] += x * c->moe_bwd.gemm_s;
			a->fwd_dyn[vs] += x * c->moe_fwd.dyn_j;
			a->bwd_dyn[vs] += x * c->moe_bwd.dyn_j;
			a->params[vs] += step_layer_rank_params(m, L, true, x);
			a->xparams[vs] = x * rank_expert_params(m, L);
		}
	}
	a->fwd[0] += c->emb_f.time_s + c->tp_emb_s;
	a->fwd_tp[0] += c->tp_emb_s;
	a->bwd[0] += c->emb_b.time_s;
	a->params[0] += embed_rank_params(m, L);
	a->fwd[V - 1] += c->log_f.time_s;
	a->fwd_gemm[V - 1] += c->log_f.gemm_s;
	a->fwd_dyn[0] += c->emb_f.dyn_j;
	a->bwd_dyn[0] += c->emb_b.dyn_j;
	a->fwd_dyn[V - 1] += c->log_f.dyn_j;
	a->bwd_dyn[V - 1] += c->log_b.dyn_j;
	a->bwd[V - 1] += c->log_b.time_s + c->tp_log_s;
	a->bwd_tp[V - 1] += c->tp_log_s;
	a->bwd_gemm[V - 1] += c->log_b.gemm_s;
	a->params[V - 1] += (V > 1 || !m->tied_embeddings ? (double)m->vocab * h / t : 0) +
			    tfm_norm_params(m);
	/* MTP modules after the last layer: a layer like the last, its
	 * projection, and the shared head's logits once more each */
	if (m->mtp_layers > 0) {
		bool moe = tfm_layer_is_moe(m, m->layers - 1);
		const struct cmp_cost *f = moe ? &c->moe_fwd : &c->fwd;
		const struct cmp_cost *b = moe ? &c->moe_bwd : &c->bwd;
		double k = m->mtp_layers;
		double ef = moe ? c->ep_fwd_s + c->moe_tp_fwd_s : c->tp_fwd_s;
		double eb = moe ? c->ep_bwd_s + c->moe_tp_bwd_s : c->tp_bwd_s;
		a->fwd[V - 1] += k * (f->time_s + ef + c->log_f.time_s);
		a->bwd[V - 1] += k * (b->time_s + eb + c->log_b.time_s + c->tp_log_s);
		a->fwd_tp[V - 1] += k * ef;
		a->bwd_tp[V - 1] += k * (eb + c->tp_log_s);
		a->fwd_gemm[V - 1] += k * (f->gemm_s + c->log_f.gemm_s);
		a->bwd_gemm[V - 1] += k * (b->gemm_s + c->log_b.gemm_s);
		a->fwd_dyn[V - 1] += k * (f->dyn_j + c->log_f.dyn_j);
		a->bwd_dyn[V - 1] += k * (b->dyn_j + c->log_b.dyn_j);
		a->params[V - 1] += step_layer_rank_params(m, L, moe, k) + k * tfm_mtp_extra_params(m) / t;
		if (moe)
			a->xparams[V - 1] += k * rank_expert_params(m, L);
	}
}

/*
 * DualPipe (dualpipe.h): direction 1 runs the same stages as direction 0
 * (virtual stage pp + s is stage s, on rank pp-1-s), so each rank holds two
 * stages' weights and reduces two stages' gradients over its DP group: the
 * sum of the two copies of a stage (rank s and rank pp-1-s;
 * deepseek-ai/DualPipe examples/example_dualpipe.py adds the mirror's
 * gradient) is taken as folded into that reduction, a group of 2 dp ranks
 * per stage, the same bytes per rank within (dp-1)/dp.  The weight-
 * gradient pass a zero-bubble step defers is half the backward's GEMMs
 * (the data- and weight-gradient GEMMs of a linear layer have the same
 * 2 M N K FLOPs), less a recomputed forward's.
 */
static void dualpipe_mirror(const struct par_opts *o, int pp, struct plan_arrays *a)
{
	for (int s = 0; s < pp; s++) {
		int x = pp + s;
		a->fwd[x] = a->fwd[s];
		a->bwd[x] = a->bwd[s];
		a->fwd_tp[x] = a->fwd_tp[s];
		a->bwd_tp[x] = a->bwd_tp[s];
		a->fwd_gemm[x] = a->fwd_gemm[s];
		a->bwd_gemm[x] = a->bwd_gemm[s];
		a->fwd_dyn[x] = a->fwd_dyn[s];
		a->bwd_dyn[x] = a->bwd_dyn[s];
		a->params[x] = a->params[s];
		a->xparams[x] = a->xparams[s];
		a->layers[x] = a->layers[s];
	}
	for (int vs = 0; vs < 2 * pp; vs++) {
		double recomputed = o->recompute == PAR_RECOMPUTE_FULL ? a->fwd_gemm[vs] : 0;
		a->wgrad[vs] = fmax(0, a->bwd_gemm[vs] - recomputed) / 2;
	}
}

/* Every rank's compute at the speed of the job's slowest GPU (straggler.h):
 * the passes' kernels, not their TP, CP or EP communication. */
static void slowest_gpu(struct plan_arrays *a, int V, double f)
{
	for (int vs = 0; vs < V; vs++) {
		a->fwd[vs] = a->fwd_tp[vs] + f * (a->fwd[vs] - a->fwd_tp[vs]);
		a->bwd[vs] = a->bwd_tp[vs] + f * (a->bwd[vs] - a->bwd_tp[vs]);
		a->fwd_gemm[vs] *= f;
		a->bwd_gemm[vs] *= f;
		a->wgrad[vs] *= f;
	}
}

/* One layer's passes as fill_stages() and slowest_gpu() charge them (an
 * MoE layer where the model has any: most of its layers are), and the
 * output layer's (step.h). */
static void layer_breakdown(const struct tfm *m, const struct layer_costs *c,
			    double slow, struct step_result *out)
{
	bool moe = tfm_moe_layers(m, 0, m->layers) > 0;
	const struct cmp_cost *f = moe ? &c->moe_fwd : &c->fwd;
	const struct cmp_cost *b = moe ? &c->moe_bwd : &c->bwd;
	double cp_f = c->cp_bytes > 0 ? c->cp_fwd_s : 0, cp_b = c->cp_bytes > 0 ? c->cp_bwd_s : 0;

	out->layer_fwd_s = slow * f->time_s;
	out->layer_bwd_s = slow * b->time_s;
	out->layer_fwd_tensor_s = slow * f->gemm_s;
	out->layer_bwd_tensor_s = slow * b->gemm_s;
	out->layer_fwd_comm_s = cp_f + (moe ? c->moe_tp_fwd_s + c->ep_fwd_s : c->tp_fwd_s);
	out->layer_bwd_comm_s = cp_b + (moe ? c->moe_tp_bwd_s + c->ep_bwd_s : c->tp_bwd_s);
	out->logits_fwd_s = slow * c->log_f.time_s;
	out->logits_bwd_s = slow * c->log_b.time_s + c->tp_log_s;
}

/* Megatron's FLOPs of the iteration including recomputation: 72 (no
 * recomputation) or 96 (full) B s l h^2 (...); selective adds the attention
 * core's forward again, 4 B s^2 h per layer for GPT (transformer.h),
 * where it is redone: with flash attention nothing is (cmp_attn_recompute
 * charges no time), so nothing is counted. */
static double iteration_flops(const struct tfm *m, const struct layout *L,
			      enum par_recompute rc, bool flash)
{
	double B = L->global_batch;

	if (rc == PAR_RECOMPUTE_FULL)
		return tfm_flops(m, B, true);
	double f = tfm_flops(m, B, false);
	/* the attention cores' forward again: 4 B s^2 h l for GPT */
	double c = tfm_attn_core_flops_per_token(m) / ((double)m->seq_len * m->hidden);
	if (rc == PAR_RECOMPUTE_SELECTIVE && !flash)
		f += c * B * (double)m->seq_len * m->seq_len * m->hidden * m->layers;
	return f;
}

static void tier_add(struct step_result *r, const char *name, double bytes)
{
	const char *s = step_tier_name(name);

	for (size_t i = 0; i < r->n_tiers; i++)
		if (r->tier_names[i] == s) {
			r->tier_bytes[i] += bytes;
			return;
		}
	if (r->n_tiers < STEP_TIERS_MAX) {
		r->tier_names[r->n_tiers] = s;
		r->tier_bytes[r->n_tiers++] = bytes;
	}
}

/* Bytes sent from GPU a to GPU b, added to the tiers of the links its
 * route crosses (as the netsim counts them: once per link). */
static void route_bytes(struct net *net, int a, int b, double bytes,
			struct step_result *r)
{
	int32_t path[NET_PATH_MAX];
	int n = net_route(net, a, b, 0, NULL, path);

	for (int l = 0; l < n; l++)
		tier_add(r, graph_tier_names[net->g.tier[path[l]]], bytes);
}

/* The analytically timed traffic of one iteration on the link tiers: TP
 * collectives (ring: each GPU sends 2(t-1)/t S per all-reduce, (t-1)/t S
 * per all-gather or reduce-scatter, to its TP neighbour) and pipeline p2p
 * (each TP rank its 1/t slice), CP exchanges and EP all-to-alls, along the route of a
 * representative pair. */
static void analytic_tiers(const struct tfm *m, const struct layout *L,
			   const struct par_opts *o, int v, const struct layer_costs *c,
			   struct net *net, const int *rank_gpu, struct step_result *r)
{
	double S = 2.0 * m->seq_len * L->micro_batch * (double)m->hidden /
		   (L->cp > 1 ? L->cp : 1);
	double t = L->tp, gpus = (double)L->tp * L->pp * L->dp;
	struct mg_tp f, b;

	if (L->tp > 1) {
		mg_tp_layer(0, 0, 0, o->sequence_parallel, false,
			    o->recompute == PAR_RECOMPUTE_FULL, &f);
		mg_tp_layer(0, 0, 0, o->sequence_parallel, true,
			    o->recompute == PAR_RECOMPUTE_FULL, &b);
		double colls = (double)(f.all_reduces + b.all_reduces) * 2.0 +
			       (double)(f.ag_rs_pairs + b.ag_rs_pairs) * 2.0;
		/* the column layers' inputs gathered again for their weight
		 * gradients (tp_async, with sequence parallelism) */
		if (o->tp_async_allreduce && o->sequence_parallel && !o->tp_comm_overlap)
			colls += 2.0;
		double per_layer = colls * (t - 1) / t * S;
		double layers = (double)m->layers / L->pp;
		/* plus the embedding's and the logits' all-reduce on the first
		 * and last stages */
		route_bytes(net, rank_gpu[0], rank_gpu[1],
			    gpus * L->microbatches * (layers * per_layer +
			    2.0 * 2.0 * (t - 1) / t * S / L->pp), r);
	}
	if (L->pp > 1)
		route_bytes(net, rank_gpu[0], rank_gpu[L->tp * L->dp],
			    2.0 * L->microbatches * (L->pp * v - 1) * S * L->dp, r);
	/* CP exchanges: every layer, each GPU to its CP peers */
	if (c->cp_bytes > 0)
		route_bytes(net, rank_gpu[0], rank_gpu[L->tp],
			    gpus * L->microbatches * (double)m->layers / L->pp * c->cp_bytes, r);
	/* EP all-to-alls: per MoE layer of its stage (the mean) and
	 * microbatch, a forward's dispatch and combine and the backward's
	 * (twice with the MoE recomputed), to an EP peer on its node and one
	 * on the next node the group reaches */
	int ep = layout_ep_group(L), et = layout_etp(L);
	if (ep > 1 && c->ep_near_bytes + c->ep_far_bytes > 0) {
		double moe_layers = m->layers - m->moe.dense_layers + m->mtp_layers;
		double sets = gpus * L->microbatches * moe_layers / L->pp *
			      (1.0 + (par_moe_recomputed(o) ? 2.0 : 1.0));
		int per_node = net_gpus_per_node(net), far = -1;
		for (int i = 1; i < ep && far < 0 && per_node > 0; i++)
			if (rank_gpu[et * i] / per_node != rank_gpu[0] / per_node)
				far = rank_gpu[et * i];
		if (c->ep_near_bytes > 0)
			route_bytes(net, rank_gpu[0], rank_gpu[et], sets * c->ep_near_bytes, r);
		if (far >= 0)
			route_bytes(net, rank_gpu[0], far, sets * c->ep_far_bytes, r);
	}
}

/*
 * The SMs a DP collective holds while it runs beside the compute: NCCL
 * runs a collective as one thread block per channel (src/enqueue.cc: the
 * kernel's grid is the channel count), and its ring search (NCCL 2.21,
 * src/graph/search.cc) builds one ring per NIC or NVLink path the group
 * has on a node, each at up to one NIC's speed (sm90SpeedArrayInter
 * starts at 48 GB/s, one 400 Gb/s port), then doubles them
 * (ncclTopoDupChannels) up to MAXCHANNELS (32): two channels per GPU the
 * group has on a node -- 2 for a group with one GPU per node (TP 8), 16
 * for a node's 8 GPUs, as NCCL logs 16 rings on a DGX H100
 * (NVIDIA/nccl#1519).  The group is stage 0's first (rank_gpu as
 * net.h places ranks; node = gpu / gpus_per_node).
 */
int step_dp_channels(const struct net *net, const int *rank_gpu, const struct layout *L)
{
	int per_node = net_gpus_per_node(net), k = 0;

	if (L->dp <= 1 || per_node <= 0)
		return 0;
	for (int j = 0; j < L->dp; j++)
		k += rank_gpu[L->tp * j] / per_node == rank_gpu[0] / per_node;
	return 2 * k < 32 ? 2 * k : 32;
}

static double dp_comm_sm_frac(const struct net *net, const int *rank_gpu,
			      const struct layout *L, int sms)
{
	double channels = step_dp_channels(net, rank_gpu, L);

	return sms > 0 && channels < sms ? channels / sms : 0;
}

/* The transport over topologies/net.h: collectives as netsim flows. */
#define ALGO_MEMO 64

struct net_transport {
	struct net *net;
	struct netsim *ns;
	double tier_scale;	/* tp when one DP group stands for a stage's tp */
	/* NCCL picks the algorithm from the operation, size and group shape,
	 * the same for every rail and replica: resolve AUTO once per (op,
	 * bytes, group size) on the first group and reuse it */
	struct { enum coll_op op; double bytes; int n; enum coll_algo algo; } memo[ALGO_MEMO];
	int n_memo;
};

static int resolve_algo(struct net_transport *t, const struct coll *c,
			enum coll_algo *algo, struct err *e)
{
	for (int i = 0; i < t->n_memo; i++)
		if (t->memo[i].op == c->op && t->memo[i].bytes == c->bytes &&
		    t->memo[i].n == c->n_gpus) {
			*algo = t->memo[i].algo;
			return 0;
		}
	if (net_coll_resolve(t->net, c, algo, e) < 0)
		return -1;
	if (t->n_memo < ALGO_MEMO) {
		t->memo[t->n_memo].op = c->op;
		t->memo[t->n_memo].bytes = c->bytes;
		t->memo[t->n_memo].n = c->n_gpus;
		t->memo[t->n_memo++].algo = *algo;
	}
	return 0;
}

static int tr_open(void *ctx, struct ev_sim *sim, struct err *e)
{
	struct net_transport *t = ctx;

	t->ns = netsim_new(t->net, sim, e);
	return t->ns ? 0 : -1;
}

static int tr_start(void *ctx, const struct coll *c, coll_done_fn done,
		    void *done_ctx, uint64_t tag, struct err *e)
{
	struct net_transport *t = ctx;
	struct coll x = *c;

	if (x.algo == COLL_AUTO && resolve_algo(t, c, &x.algo, e) < 0)
		return -1;
	return netsim_start(t->ns, &x, done, done_ctx, tag, e);
}

static double tr_alone_s(void *ctx, const struct coll *c, struct err *e)
{
	struct net_transport *t = ctx;
	struct coll x = *c;

	if (x.algo == COLL_AUTO && resolve_algo(t, c, &x.algo, e) < 0)
		return -1;
	return net_coll_time_s(t->net, &x, e);
}

static void tr_close(void *ctx, struct step_result *out)
{
	struct net_transport *t = ctx;
	const char *const *names;
	const double *bytes;

	if (!t->ns)
		return;
	if (out) {
		size_t n = netsim_tiers(t->ns, &names, &bytes);
		for (size_t i = 0; i < n; i++)
			tier_add(out, names[i], bytes[i] * t->tier_scale);
	}
	netsim_free(t->ns);
	t->ns = NULL;
}

/* The GEMM weights Transformer Engine casts to FP8 on a GPU of the memory
 * model's stage: its parameters less the embedding (first stage) and the
 * output layer (last), which stay bf16 (compute.c), and less the norms
 * and biases, taken as the share of matrices over the stage's own layers,
 * dense and MoE as memory.c counts them. */
static double te_params(const struct tfm *m, const struct layout *L,
			const struct mem_breakdown *mem)
{
	double p = mem->params;
	int n = layout_stage_layers(L, m->layers, mem->stage);
	int moe = tfm_moe_layers(m, layout_chunk_first_layer(L, m->layers, 1, mem->stage), n);
	double mat = (n - moe) * tfm_layer_matrix_params(m, false) +
		     moe * tfm_layer_matrix_params(m, true);
	double all = (n - moe) * tfm_layer_params(m, false) +
		     moe * tfm_layer_params(m, true);

	if (mem->stage == 0)
		p -= tfm_embed_params(m) / L->tp;
	if (mem->stage == L->pp - 1)
		p -= tfm_head_params(m) / L->tp;
	return all > 0 ? fmax(p * mat / all, 0) : 0;
}

int step_simulate_net(const struct tfm *m, const struct layout *L,
		      const struct par_opts *o, const struct gpu_spec *g,
		      struct net *net, struct step_result *out, struct err *e)
{
	struct mem_breakdown mem;
	struct layer_costs c;
	struct plan_arrays a;
	struct step_sym sym = { 0 };
	int rc = -1;

	double peak = g->peak_bf16_flops;
	if (o->dtype == PAR_FP8) {
		if (g->peak_fp8_flops <= 0)
			return err_set(e, ERR_USAGE, "parallel.dtype: %s has no FP8 "
				       "tensor cores (expected bf16)", g->name);
		peak = g->peak_fp8_flops;
	}
	mem_peak(m, L, o, &mem);
	bool dual = o->schedule == PAR_DUALPIPE;
	int v = o->schedule == PAR_INTERLEAVED ? o->virtual_stages : dual ? 2 : 1;
	int V = L->pp * v, ranks = L->tp * L->pp * L->dp;
	if (arrays_alloc(&a, V, ranks) < 0) {
		err_set(e, ERR_RUN, "step: out of memory");
		goto done;
	}
	if (ranks > net_gpu_count(net)) {
		err_set(e, ERR_USAGE, "step: %d ranks on a %d-GPU network", ranks,
			net_gpu_count(net));
		goto done;
	}
	for (int r = 0; r < ranks; r++)
		a.rank_gpu[r] = net_rank_gpu(net, r);
	if (step_layer_costs(m, L, o, g, peak, net, a.rank_gpu, &c, e) < 0)
		goto done;
	fill_stages(m, L, dual ? 1 : v, &c, &a);
	if (dual)
		dualpipe_mirror(o, L->pp, &a);
	else
		fill_buckets(m, L, v, o, &a);
	double slow = strag_factor(o->gpu_speed_sigma, ranks);
	slowest_gpu(&a, V, slow);
	/* Megatron-Core's --overlap-param-gather: each stage's weight
	 * all-gather runs under the next iteration's forward of its first
	 * microbatch through its chunks (a lower bound on the cover: the
	 * wait for earlier stages' forwards is not counted) */
	for (int vs = 0; vs < V; vs++)
		a.hide[dual ? dual_rank(L->pp, vs) : vs % L->pp] += a.fwd[vs];

	double p2p_s = 0;
	if (L->pp > 1) {
		/* Each TP rank sends to its peer in the next stage: its 1/t
		 * slice with scatter-gather or sequence parallelism, else the
		 * whole activation (all t ranks at once, on their own NICs).
		 * Scatter-gather's receivers then all-gather the slices over
		 * the TP group before the pass can use them (Megatron's
		 * gather_split_1d_tensor, DeepSpeed's PartitionedTensor.full):
		 * part of the transfer.  Sequence parallelism keeps the slice. */
		int pair[2] = { a.rank_gpu[0], a.rank_gpu[L->tp * L->dp] };
		bool gather = o->p2p_scatter_gather && !o->sequence_parallel && L->tp > 1;
		double split = o->p2p_scatter_gather || o->sequence_parallel ? L->tp : 1;
		double act_bytes = 2.0 * m->seq_len * L->micro_batch * (double)m->hidden /
				   (L->cp > 1 ? L->cp : 1);
		struct coll x = { COLL_SENDRECV, COLL_AUTO, pair, 2, act_bytes / split, 0 };
		p2p_s = net_coll_time_s(net, &x, e);
		if (p2p_s < 0)
			goto done;
		if (gather) {
			struct coll ag = { COLL_ALL_GATHER, COLL_AUTO, a.rank_gpu, L->tp,
					   act_bytes, 0 };
			double ag_s = net_coll_time_s(net, &ag, e);
			if (ag_s < 0)
				goto done;
			p2p_s += ag_s;
		}
	}
	/* Megatron's embedding group: stage 0 and stage p-1 all-reduce the
	 * tied word embedding's gradients (V h / t per TP rank) */
	double embed_sync_s = 0;
	if (L->pp > 1) {
		int pair[2] = { a.rank_gpu[0], a.rank_gpu[L->tp * L->dp * (L->pp - 1)] };
		struct coll x = { COLL_ALL_REDUCE, COLL_AUTO, pair, 2,
				  tied_grad_bytes(o) * m->vocab * m->hidden / L->tp, 0 };
		embed_sync_s = net_coll_time_s(net, &x, e);
		if (embed_sync_s < 0)
			goto done;
	}
	bool sharded = o->zero_stage >= 1 || o->distributed_optimizer;
	/* DeepSpeed's engine shards Adam (ZeRO-1, or BF16_Optimizer's own)
	 * but all-reduces the whole gradient first (stack.c) */
	bool reduce_whole = o->ds_engine && o->zero_stage == 1;
	/* Sharded data parallelism only reduce-scatters and all-gathers
	 * (rings); DDP all-reduces with whichever algorithm is fastest. */
	bool rings_only = sharded && !reduce_whole;
	if (step_dp_symmetry(net, a.rank_gpu, L->tp, L->pp, L->dp, rings_only, &sym, e) < 0)
		goto done;
	/* Adam, and the per-iteration gradient kernels: Megatron's
	 * contiguous buffer where the stack keeps one (its fused stacks
	 * without ZeRO); PyTorch's AMP loop its own passes (eager.h:
	 * clip_grad_norm_'s read is among them); at the slowest GPU's speed
	 * below, their energy that of streaming kernels (kpower.h) */
	/* the AMP loop's optimizer step (eager.h): on its shard under ZeRO
	 * (memory.c opt_params: all dp, a hybrid shard group, the experts'
	 * replicas);
	 * FSDP clips through its own per-tensor clip_grad_norm_ */
	struct eager_opt opt = {
		.params = mem.opt_params, .tensors = opt_tensors(m, L),
		.impl = o->adam_sync ? EAGER_ADAM_COMPOSER : o->adam_loop ? EAGER_ADAM_LOOP :
			o->adam_foreach ? EAGER_ADAM_FOREACH : EAGER_ADAM_FUSED,
		.clip = o->clip_grad_norm, .clip_per_tensor = o->zero_stage >= 2 && L->dp > 1,
		.ddp = o->zero_stage == 0 && L->dp > 1, .host_s = o->host_s_per_kernel,
	};
	double opt_s = o->amp_fp32_weights ?
		       eager_optimizer_s(g, &opt) :
		       cmp_adam_s(g, mem.opt_params, o->adam_bf16_moments ? 2 : 4,
				  o->adam_master) +
		       cmp_grad_buffer_s(g, mem.params, mem.opt_params,
					 L->dp, o->fused_kernels && o->zero_stage == 0);
	/* FP8: the updated weights' casts into TE's FP8 copies, on the next
	 * first microbatch, serial with the step as Adam is */
	if (o->dtype == PAR_FP8)
		opt_s += cmp_fp8_weights_s(g, te_params(m, L, &mem), o->fp8_recipe);
	/* FP8 weights (fp8_params, NeMo's fp8_param_gather) are all-gathered
	 * after the optimizer in FP8: Megatron-Core's DistributedDataParallel-
	 * Config.fp8_param_gather, "keep the compute param in fp8 ... and
	 * perform the param all-gather in fp8" (core_r0.9+).  MXFP8 weights
	 * go through the reused gradient buffer instead
	 * (reuse_grad_buf_for_mxfp8_param_ag), whose width is not settled
	 * here: their 2 bytes are kept, as ZeRO-3's per-layer gathers'; NVFP4
	 * runs keep bf16 weights (MLPerf v5.1's NVFP4 configs set
	 * FP8_PARAM_GATHER=False), and so do block-scaled FP8 ones
	 * (Megatron-Bridge docs/performance-guide.md: the FP8 parameter
	 * all-gather is for the per-tensor recipes). */
	double weight_bytes = o->dtype == PAR_FP8 && o->fp8_params &&
			      o->fp8_recipe != CMP_FP8_MX && o->fp8_recipe != CMP_FP4_NV &&
			      o->fp8_recipe != CMP_FP8_BLOCK &&
			      o->zero_stage != 3 ? 1 : 2;
	double regather_frac = 0, regather_tensors = 0;
	if (o->zero3_sync && o->recompute == PAR_RECOMPUTE_FULL)
		zero3_regather(m, L, &regather_frac, &regather_tensors);
	struct net_transport nt = { net, NULL, sym.rails_symmetric ? L->tp : 1, { { 0 } }, 0 };
	struct step_transport tr = { &nt, tr_open, tr_start, tr_alone_s, tr_close };
	struct step_plan p = {
		.pp = L->pp, .v = v, .microbatches = L->microbatches,
		.fwd_s = a.fwd, .bwd_s = a.bwd, .fwd_tp_s = a.fwd_tp, .bwd_tp_s = a.bwd_tp,
		.fwd_gemm_s = a.fwd_gemm, .bwd_gemm_s = a.bwd_gemm,
		.fwd_dyn_j = a.fwd_dyn, .bwd_dyn_j = a.bwd_dyn, .p2p_s = p2p_s,
		.p2p_blocking = !o->overlap_p2p_comm,
		.ds_schedule = o->schedule == PAR_DEEPSPEED,
		.dualpipe = dual, .wgrad_s = dual ? a.wgrad : NULL,
		.tp = L->tp, .dp = L->dp,
		.dp_mode = o->zero_stage == 3 ? STEP_DP_ZERO3 : o->zero_stage == 2 ?
			   STEP_DP_ZERO2 : reduce_whole ? STEP_DP_ALLREDUCE_GATHER :
			   sharded ? STEP_DP_SHARDED : STEP_DP_ALLREDUCE,
		.chunk_params = a.params, .chunk_layers = a.layers,
		.embed_params = embed_rank_params(m, L),
		.chunk_expert_params = m->moe.experts > 0 && expert_dp(L) > 0 ? a.xparams : NULL,
		.expert_dp = expert_dp(L),
		.bucket_bytes = o->zero_stage >= 1 ? o->zero_bucket_bytes : o->dp_bucket_bytes,
		.chunk_buckets = !dual && o->zero_stage == 0 ? a.buckets : NULL,
		/* the stack's DDP gradient bytes; ZeRO (DeepSpeed's default
		 * communication_data_type) reduces in the weights' 2 bytes */
		.grad_bytes = o->zero_stage >= 1 ? (o->zero_reduce_fp32 ? 4 : 2) :
			      o->grad_reduce_bytes,
		.weight_bytes = weight_bytes,
		.prefetch_bytes = o->zero_prefetch_bytes,
		.shard_ranks = par_shard_ranks(o, L->dp),
		.zero3_sync = o->zero3_sync, .zero3_tensors = step_layer_tensors(m),
		.zero3_regather_frac = regather_frac,
		.zero3_regather_tensors = regather_tensors,
		.coll_copy_s = g->k.launch_s,
		.overlap_grad_reduce = o->overlap_grad_reduce,
		.param_gather_hide_s = o->overlap_param_gather && o->distributed_optimizer ?
				       a.hide : NULL,
		.param_gather_aligned = o->align_param_gather,
		.optimizer_s = slow * opt_s,
		.optimizer_dyn_j = kpw_stream_run_j(g, KS_ADAM, opt_s),
		.final_sync_s = embed_sync_s,
		/* the norm streams the gradients as a copy reads them; per
		 * bucket its launch, and the host's round trip (step.h) */
		.grad_check_Bps = o->grad_nan_check ?
				  g->k.hbm_Bps * g->k.stream_frac[KS_COPY] / slow : 0,
		.grad_check_bucket_s = slow * g->k.launch_s + o->host_s_per_kernel +
				       3 * o->host_s_per_launch,
		/* ZeRO-3's gathers overlap its gradient reduce-scatters on
		 * the same links: they contend even in a group alone */
		.net = &tr, .contention = !sym.all_disjoint || o->zero_stage == 3,
		.one_group_per_stage = sym.rails_symmetric,
		.rank_gpu = a.rank_gpu,
		.comm_sm_frac = dp_comm_sm_frac(net, a.rank_gpu, L, g->k.sms),
	};
	if (step_run(&p, out, e) < 0)
		goto done;
	out->peak_memory_bytes = mem.total_bytes;
	out->host_issue_frac = c.host_frac;
	layer_breakdown(m, &c, slow, out);
	out->flops_per_iter = iteration_flops(m, L, o->recompute, o->flash_attention);
	out->tflops_per_gpu = out->flops_per_iter / ((double)ranks * out->iteration_s) / 1e12;
	out->mfu = tfm_model_flops_per_token(m) * (double)L->global_batch * m->seq_len /
		   ((double)ranks * out->iteration_s * peak);
	analytic_tiers(m, L, o, v, &c, net, a.rank_gpu, out);
	rc = 0;
done:
	arrays_free(&a);
	return rc;
}

void step_cfg_from_scenario(const struct scenario *sc, struct step_cfg *c)
{
	par_from_scenario(sc, &c->par);
	c->par.gpu_speed_sigma = strag_sigma_from_scenario(sc);
	c->net = NULL;
	c->where = sc_where_of(sc);
}

int step_cfg_read_net(const struct scenario *sc, struct step_cfg *c, struct err *e)
{
	if (c->net == NULL && (c->net = net_cfg_from_scenario(sc, e)) == NULL)
		return -1;
	return 0;
}

void step_cfg_free(struct step_cfg *c)
{
	net_cfg_free(c->net);
	c->net = NULL;
}

int step_check_dtype(const struct step_cfg *c, const struct gpu_spec *g, struct err *e)
{
	if (c->par.dtype != PAR_FP8)
		return 0;
	if (g->peak_fp8_flops <= 0)
		return sc_where_error(c->where, e, "parallel.dtype", "%s has no FP8 "
				      "tensor cores (expected bf16)", g->name);
	if (c->par.fp8_recipe == CMP_FP8_MX && g->mx_gemm_ratio <= 0)
		return sc_where_error(c->where, e, "parallel.fp8_recipe", "mxfp8 needs "
				      "block-scaled FP8 tensor cores (Blackwell) and %s has "
				      "none (gpus.%s.gemm_mxfp8_ratio is 0; expected delayed "
				      "or current)", g->name, g->name);
	if (c->par.fp8_recipe == CMP_FP8_BLOCK && g->fp8_block_gemm_ratio <= 0)
		return sc_where_error(c->where, e, "parallel.fp8_recipe", "blockwise needs "
				      "cuBLAS's block-scaled FP8 GEMMs (Hopper) and %s has "
				      "none (gpus.%s.gemm_fp8_block_ratio is 0; expected delayed "
				      "or current%s)", g->name, g->name,
				      g->mx_gemm_ratio > 0 ? ", or mxfp8, what Transformer "
				      "Engine runs block scaling as on Blackwell" : "");
	if (c->par.fp8_recipe == CMP_FP4_NV && g->nvfp4_gemm_ratio <= 0)
		return sc_where_error(c->where, e, "parallel.fp8_recipe", "nvfp4 needs "
				      "FP4 tensor cores (Blackwell) and %s has none "
				      "(gpus.%s.gemm_nvfp4_ratio is 0; expected delayed or "
				      "current)", g->name, g->name);
	return 0;
}

int step_check_gpu(const struct step_cfg *c, const struct gpu_spec *g, struct err *e)
{
	if (gpu_check(g, c->where, e) < 0 || step_check_dtype(c, g, e) < 0)
		return -1;
	if (c->par.ep_deepep && g->k.sms > 0 && c->par.ep_sms >= g->k.sms)
		return sc_where_error(c->where, e, "parallel.ep_dispatcher_sms", "%g SMs "
				      "for the dispatcher leave none of %s's %d to compute "
				      "(expected fewer)", c->par.ep_sms, g->name, g->k.sms);
	/* FlashAttention-3 is Hopper code (wgmma, TMA): it runs only where
	 * the GPU's own attention is a Hopper-class kernel */
	if (c->par.flash_attention && c->par.attention_kernel == ATTN_FLASH3 &&
	    g->attn_law == ATTN_FLASH2)
		return sc_where_error(c->where, e, "parallel.attention_kernel", "flash3 "
				      "runs on Hopper GPUs only and %s's attention is "
				      "FlashAttention-2's (gpus.%s.attn_kernel; expected "
				      "flash2, triton, cudnn, te or unfused)", g->name, g->name);
	return 0;
}

/* The network c's settings describe, built (NULL, e set, when they were
 * not read or do not build). */
static struct net *step_net(const struct step_cfg *c, struct err *e)
{
	if (c->net == NULL) {
		err_set(e, ERR_RUN, "step: the network's settings were not read");
		return NULL;
	}
	return net_build(c->net, e);
}

/* The checked options, the network and its rank-to-GPU map for a layer
 * timed alone (step_moe_layer, step_ep_times): 0, or -1 with e set and
 * nothing to free. */
static int alone_setup(const struct step_cfg *c, const struct tfm *m,
		       const struct layout *L, const struct gpu_spec *g,
		       struct par_opts *o, struct net **net, int **rank_gpu, struct err *e)
{
	int ranks = L->tp * L->pp * L->dp;

	*o = c->par;
	*net = NULL;
	*rank_gpu = NULL;
	if (par_check(c->where, m, L, o, e) < 0 || step_check_gpu(c, g, e) < 0)
		return -1;
	*net = step_net(c, e);
	if (!*net)
		return -1;
	if (ranks > net_gpu_count(*net)) {
		err_set(e, ERR_USAGE, "step: %d ranks on a %d-GPU network", ranks,
			net_gpu_count(*net));
		net_free(*net);
		return -1;
	}
	*rank_gpu = malloc(sizeof **rank_gpu * (size_t)ranks);
	if (!*rank_gpu) {
		net_free(*net);
		return err_set(e, ERR_RUN, "step: out of memory");
	}
	for (int r = 0; r < ranks; r++)
		(*rank_gpu)[r] = net_rank_gpu(*net, r);
	return 0;
}

int step_moe_layer(const struct step_cfg *c, const struct tfm *m,
		   const struct layout *L, const struct gpu_spec *g,
		   double *fwd_s, double *bwd_s, struct err *e)
{
	struct par_opts o;
	struct net *net;
	int *rank_gpu, rc;

	if (alone_setup(c, m, L, g, &o, &net, &rank_gpu, e) < 0)
		return -1;
	rc = step_layer_moe_block(m, L, &o, g, o.dtype == PAR_FP8 ? g->peak_fp8_flops :
				  g->peak_bf16_flops, net, rank_gpu, fwd_s, bwd_s, e);
	free(rank_gpu);
	net_free(net);
	return rc;
}

int step_ep_times(const struct step_cfg *c, const struct tfm *m,
		  const struct layout *L, const struct gpu_spec *g, double *dispatch_s,
		  double *combine_s, double *meta_s, struct err *e)
{
	struct par_opts o;
	struct net *net;
	int *rank_gpu, rc;

	if (alone_setup(c, m, L, g, &o, &net, &rank_gpu, e) < 0)
		return -1;
	rc = step_layer_ep_s(m, L, &o, net, g, rank_gpu, dispatch_s, combine_s, meta_s, e);
	free(rank_gpu);
	net_free(net);
	return rc;
}

int step_simulate(const struct step_cfg *c, const struct tfm *m,
		  const struct layout *L, const struct gpu_spec *g,
		  struct step_result *out, struct err *e)
{
	struct par_opts o = c->par;
	struct net *net;
	int rc;

	/* in the order the scenario's problems are best reported in */
	if (par_check(c->where, m, L, &o, e) < 0 ||
	    step_check_memory(c, m, L, g, NULL, e) < 0 ||
	    step_check_gpu(c, g, e) < 0)
		return -1;
	net = step_net(c, e);
	if (!net)
		return -1;
	o.dp_bucket_bytes = par_dp_bucket_bytes(&c->par, L->dp);
	rc = step_simulate_net(m, L, &o, g, net, out, e);
	net_free(net);
	return rc;
}
