/*
 * step_des.c -- step_run(): one iteration of an explicit plan as events.
 * (step.c builds the plan from a scenario; see step.h for the model.)
 *
 * Event kinds: seg_done (a compute segment of a stage ends), arrive (a p2p
 * activation or gradient reaches a stage), sent (a blocking p2p send is
 * done and its stage may go on), xfer (DeepSpeed's schedule: a send/recv
 * pair both stages waited for is done), bucket (a gradient bucket is
 * complete), comm_done (a collective timed without the netsim ends),
 * opt_done (the optimizer step ends).  Netsim completions call back
 * directly.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/evkey.h"
#include "models/deepspeed.h"
#include "models/dualpipe.h"
#include "models/megatron.h"
#include "models/step.h"

enum { STREAM_GRAD, STREAM_GATHER, N_STREAMS };

/* Event arguments and collective tags: (stage, stream) for a collective,
 * (stage, virtual stage or V for the whole buffer) for a gradient bucket;
 * (microbatch, virtual stage, backward) for an arrival.  des_setup()
 * checks the plan's counts fit. */
static const struct evkey key_stage = { 2, { 32, 32 } };
static const struct evkey key_arrive = { 3, { 32, 30, 2 } };

struct bucket {
	enum coll_op op;
	double bytes;
	double tensors;		/* collectives it stands for in series mode */
	bool replicas;		/* hybrid sharding: across the shard groups */
	bool experts;		/* routed experts': over the expert-data-
				 * parallel group */
};

struct stream {
	struct bucket *q;
	int len, cap, head;
	int in_flight;		/* groups still running the head collective */
	double tail_s;		/* what the head costs after its flows: the
				 * per-tensor collectives' extra (step.h) */
};

struct stage {
	struct mg_op *ops;
	int n_ops, next, seg;
	bool busy;
	int64_t seg_start_ns;
	/* the compute segment running (in_seg), at rate seg_rate of full
	 * speed since seg_mark_ns, with seg_left_ns of full-speed work left
	 * then; seg_ev its end event (rescheduled when the rate changes) */
	bool in_seg;
	double seg_rate, seg_left_ns;
	int64_t seg_mark_ns;
	uint64_t seg_ev;
	double busy_s, tp_s, gemm_s, dyn_j;
	int64_t last_end_ns;
	int *last_bwd;		/* per chunk: index of its last backward op */
	int last_pass;		/* index of the stage's last pass */
	int held_vs, held_mb;	/* a pair's forward output waiting for the
				 * pair's end (dualpipe.h); held_vs -1: none */
	int pending_ready;	/* bucket events not yet fired */
	bool finished;
	struct stream st[N_STREAMS];
	/* ZeRO-3 gathers: one per (op, segment) in execution order */
	int gathers_done;
	int *seg_base;		/* per op: index of its first gather */
	int n_gathers;
};

struct des {
	const struct step_plan *p;
	struct ev_sim *sim;
	bool net_open;		/* transport opened on this sim */
	int V;			/* virtual stages pp*v */
	struct stage *stages;
	uint8_t *fwd_ready, *bwd_ready;	/* [V * m] */
	int **groups;		/* [pp*tp] -> dp GPU indices; a ZeRO collective
				 * runs on the first `shard` of them */
	int **replicas;		/* [pp*tp] -> dp/shard GPUs, one per shard group
				 * (hybrid sharding), else NULL */
	int **xgroups;		/* [pp*tp*xstride] -> expert_dp GPUs: the
				 * expert-data-parallel groups, else NULL */
	int xstride;		/* of DP ranks between an expert group's members */
	int shard;		/* ranks in a ZeRO-2/3 shard group */
	int k_seg, k_arrive, k_sent, k_xfer, k_bucket, k_comm, k_opt;
	bool free_comm;		/* no DP collectives cost anything */
	int64_t p2p_ns;
	int stages_left;
	int phase;		/* 0 backprop, 1 weight all-gather after Adam */
	int64_t opt_ns;		/* when the optimizer step ended */
	int64_t gather_end_ns;	/* latest stage gather end, less what it hides */
	int64_t sync_ns, end_ns;
	double dp_elems;
	struct coll_memo {
		enum coll_op op;
		double bytes;
		int k;
		bool rep, experts;
		double t;
	} cache[256];
	int n_cache;
};

/* Result structs outlive the netsim: keep tier names as static strings. */
const char *step_tier_name(const char *name)
{
	static const char *const known[] = {
		"nvlink", "pcie", "nic", "leaf", "spine", "core", "local",
		"global", "terminal", "group", "rail", "host", "pp_p2p", "tp",
	};
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strcmp(name, known[i]) == 0)
			return known[i];
	return "other";
}

static int64_t to_ns(double s)
{
	return (int64_t)llround(s * 1e9);
}

/* Bytes per gradient element in the DP collectives (2 unless the plan says). */
static double grad_bytes(const struct des *d)
{
	return d->p->grad_bytes > 0 ? d->p->grad_bytes : 2.0;
}

/* Bytes per weight element in the all-gather after the optimizer (2
 * unless the plan says: 1 for FP8 weights gathered in FP8). */
static double weight_bytes(const struct des *d)
{
	return d->p->weight_bytes > 0 ? d->p->weight_bytes : 2.0;
}

static int segments(const struct des *d, int vs)
{
	if (d->p->dp_mode != STEP_DP_ZERO3 || !d->p->chunk_layers)
		return 1;
	return d->p->chunk_layers[vs] > 0 ? d->p->chunk_layers[vs] : 1;
}

/* Virtual stage of chunk c on stage (rank) k: c pp + k, or DualPipe's
 * direction x pp + stage (dualpipe.h); and the rank of virtual stage vs. */
static int vs_of(const struct des *d, int c, int k)
{
	return d->p->dualpipe ? dual_vs(d->p->pp, c, k) : c * d->p->pp + k;
}

static int rank_of(const struct des *d, int vs)
{
	return d->p->dualpipe ? dual_rank(d->p->pp, vs) : vs % d->p->pp;
}

/* Whether vs takes its input from a virtual stage before it, and its
 * output gradient from one after it (each DualPipe direction is a
 * pipeline of its own). */
static bool has_prev(const struct des *d, int vs)
{
	return d->p->dualpipe ? vs % d->p->pp > 0 : vs > 0;
}

static bool has_next(const struct des *d, int vs)
{
	return d->p->dualpipe ? vs % d->p->pp < d->p->pp - 1 : vs < d->V - 1;
}

/* The weight-gradient part of vs's backward (zero-bubble schedules). */
static double wgrad_s(const struct des *d, int vs)
{
	return d->p->wgrad_s ? d->p->wgrad_s[vs] : 0;
}

static double op_s(const struct des *d, const struct mg_op *op, int vs)
{
	if (!op->bwd)
		return d->p->fwd_s[vs];
	if (op->part == MG_PART_INPUT)
		return d->p->bwd_s[vs] - wgrad_s(d, vs);
	if (op->part == MG_PART_WEIGHT)
		return wgrad_s(d, vs);
	return d->p->bwd_s[vs];
}

/* Of op's time, its TP communication and GEMMs, and its kernels' energy:
 * a weight-gradient pass is GEMMs alone, no communication, the energy in
 * proportion to time. */
static void op_parts(const struct des *d, const struct mg_op *op, int vs,
		     double *tp_s, double *gemm_s, double *dyn_j)
{
	const struct step_plan *p = d->p;
	const double *tp = op->bwd ? p->bwd_tp_s : p->fwd_tp_s;
	const double *gm = op->bwd ? p->bwd_gemm_s : p->fwd_gemm_s;
	const double *dj = op->bwd ? p->bwd_dyn_j : p->fwd_dyn_j;
	double all = op->bwd ? p->bwd_s[vs] : p->fwd_s[vs];
	double w = op->bwd ? wgrad_s(d, vs) : 0;
	double share = op->part == MG_PART_WHOLE || all <= 0 ? 1 : op_s(d, op, vs) / all;

	*tp_s = tp && op->part != MG_PART_WEIGHT ? tp[vs] : 0;
	*gemm_s = gm ? gm[vs] : 0;
	if (op->part == MG_PART_INPUT)
		*gemm_s = fmax(0, *gemm_s - w);
	else if (op->part == MG_PART_WEIGHT)
		*gemm_s = w;
	*dyn_j = dj ? dj[vs] * share : 0;
}

static int push_bucket(struct stream *s, enum coll_op op, double bytes, double tensors)
{
	if (s->len == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		struct bucket *q = realloc(s->q, (size_t)cap * sizeof *q);
		if (!q)
			return -1;
		s->q = q;
		s->cap = cap;
	}
	s->q[s->len++] = (struct bucket){ op, bytes, tensors, false, false };
	return 0;
}

static int stream_kick(struct des *d, int k, int which, struct err *e);

/* Queue a gradient reduction on stage k's stream: under hybrid sharding a
 * reduce-scatter in the shard group is followed by the all-reduce of its
 * result across the groups (FSDP's post-backward hook, HYBRID_SHARD: both
 * per unit and microbatch, on one stream). */
static int push_grads(struct des *d, int k, enum coll_op op, double bytes, double tensors)
{
	struct stream *s = &d->stages[k].st[STREAM_GRAD];

	if (push_bucket(s, op, bytes, tensors) < 0)
		return -1;
	if (!d->replicas || op != COLL_REDUCE_SCATTER)
		return 0;
	if (push_bucket(s, COLL_ALL_REDUCE, bytes / d->shard, tensors) < 0)
		return -1;
	s->q[s->len - 1].replicas = true;
	return 0;
}

/*
 * Routed experts' parameters live on their EP rank only, so their
 * gradients are reduced, and their weights gathered, among the ranks that
 * hold the same experts: Megatron-Core's expert-data-parallel group,
 * tp dp / (etp ep) ranks (parallel_state.py, the expert grid: expert TP,
 * then EP, then expert DP), here every dp / expert_dp-th rank of the DP
 * group.  Dense parameters keep the DP group.  A group of one rank reduces
 * nothing.  (ZeRO-3 keeps every parameter on the DP group: not split.)
 */
static double expert_params(const struct des *d, int vs)
{
	return d->p->chunk_expert_params && d->p->dp_mode != STEP_DP_ZERO3 ?
	       d->p->chunk_expert_params[vs] : 0;
}

/* Queue op over stage k's `dense` bytes (the DP group's) and its routed
 * experts' `experts` bytes (their own group's; none in a group of one). */
static int push_split(struct des *d, int k, enum coll_op op, double dense,
		      double experts, double tensors)
{
	struct stream *s = &d->stages[k].st[STREAM_GRAD];

	if (dense > 0 && (op == COLL_ALL_GATHER ? push_bucket(s, op, dense, tensors) :
			  push_grads(d, k, op, dense, tensors)) < 0)
		return -1;
	if (experts <= 0 || d->p->expert_dp <= 1)
		return 0;
	if (push_bucket(s, op, experts, tensors) < 0)
		return -1;
	s->q[s->len - 1].experts = true;
	return 0;
}

/*
 * A DP collective running beside the compute holds comm_sm_frac of the
 * SMs (one thread block per NCCL channel, resident for the whole
 * collective; a Hopper/Ampere GEMM block fills an SM's registers, so the
 * two do not share one): the segment's GEMM share runs on the SMs left,
 * 1 / (1 - f) slower, its memory-bound share as fast (a few SMs saturate
 * HBM).  The rate of the stage's segment, as a fraction of full speed.
 */
static double seg_rate(const struct des *d, int k)
{
	const struct stage *st = &d->stages[k];
	double f = d->p->comm_sm_frac;

	if (d->free_comm || f <= 0 || f >= 1 || st->next >= st->n_ops ||
	    (st->st[STREAM_GRAD].in_flight == 0 && st->st[STREAM_GATHER].in_flight == 0))
		return 1;
	const struct mg_op *op = &st->ops[st->next];
	int vs = vs_of(d, op->chunk, k);
	double all = op_s(d, op, vs), tp, gm, dj;
	op_parts(d, op, vs, &tp, &gm, &dj);
	double g = all > 0 ? fmin(1, gm / all) : 0;
	return 1 / (1 + g * f / (1 - f));
}

/* The stage's collectives started or ended: carry its running segment on
 * at the new rate. */
static void rate_changed(struct des *d, int k)
{
	struct stage *st = &d->stages[k];

	if (!st->in_seg)
		return;
	double r = seg_rate(d, k);
	if (r == st->seg_rate)
		return;
	int64_t now = ev_now(d->sim);
	st->seg_left_ns = fmax(0, st->seg_left_ns - (double)(now - st->seg_mark_ns) * st->seg_rate);
	st->seg_mark_ns = now;
	st->seg_rate = r;
	ev_cancel(d->sim, st->seg_ev);
	st->seg_ev = ev_after(d->sim, llround(st->seg_left_ns / r), d->k_seg, (uint64_t)k);
}

/* ZeRO-3 as DeepSpeed 2021 ran it (step.h): every collective in series
 * with the compute, a collective per tensor. */
static bool zero3_sync(const struct des *d)
{
	return d->p->zero3_sync && d->p->dp_mode == STEP_DP_ZERO3 && d->p->dp > 1;
}

/* ZeRO-3 prefetch: the last gather that may run now -- the one the compute
 * needs next plus as many as fit the prefetch size (at least one ahead);
 * in series, only the one it needs. */
static int gather_limit(const struct des *d, int k, double bytes)
{
	const struct stage *st = &d->stages[k];
	int pos = st->next < st->n_ops ? st->seg_base[st->next] + st->seg : st->n_gathers;
	int ahead = (int)(d->p->prefetch_bytes / bytes);

	if (zero3_sync(d))
		return pos;
	return pos + (ahead < 1 ? 1 : ahead);
}

static int try_start(struct des *d, int k, struct err *e);
static int check_finished(struct des *d, int k, struct err *e);

/* One collective of the head bucket finished on `tp` groups' worth. */
static int collective_done(struct des *d, int k, int which, struct err *e)
{
	struct stage *st = &d->stages[k];
	struct stream *s = &st->st[which];

	if (--s->in_flight > 0)
		return 0;
	if (s->tail_s > 0) {	/* its flows are done; its copies are not */
		s->in_flight = 1;
		ev_after(d->sim, to_ns(s->tail_s), d->k_comm,
			 evkey_pack(&key_stage, (int64_t[]){ k, which }));
		s->tail_s = 0;
		return 0;
	}
	s->head++;
	if (which == STREAM_GATHER) {
		st->gathers_done++;
		if (stream_kick(d, k, which, e) < 0)
			return -1;
		rate_changed(d, k);
		return try_start(d, k, e);
	}
	if (stream_kick(d, k, which, e) < 0)
		return -1;
	rate_changed(d, k);
	if (zero3_sync(d)) {	/* the next gather waited for this */
		if (stream_kick(d, k, STREAM_GATHER, e) < 0 || try_start(d, k, e) < 0)
			return -1;
	}
	return check_finished(d, k, e);
}

static int on_netsim_done(void *ctx, uint64_t tag, struct err *e)
{
	return collective_done(ctx, (int)evkey_get(&key_stage, tag, 0),
			       (int)evkey_get(&key_stage, tag, 1), e);
}

static int on_comm(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	(void)sim;
	return collective_done(ctx, (int)evkey_get(&key_stage, ev->arg, 0),
			       (int)evkey_get(&key_stage, ev->arg, 1), e);
}

/* The GPUs and rank count of a collective of stage k's TP rank i: the
 * data-parallel group, a ZeRO shard group of it, (rep) the ranks that
 * hold the same shard in every shard group, or (experts) an expert-data-
 * parallel group, i counting them over the TP ranks. */
static struct coll coll_of(const struct des *d, int k, int i, enum coll_op op,
			   double bytes, bool rep, bool experts)
{
	int n = d->p->dp;

	if (experts)	/* i counts the tp x xstride groups of the stage */
		return (struct coll){ op, COLL_AUTO, d->xgroups[k * d->p->tp * d->xstride + i],
				      d->p->expert_dp, bytes, 0 };
	if (rep)
		return (struct coll){ op, COLL_AUTO, d->replicas[k * d->p->tp + i],
				      d->p->dp / d->shard, bytes, 0 };
	if (d->p->dp_mode == STEP_DP_ZERO2 || d->p->dp_mode == STEP_DP_ZERO3)
		n = d->shard;
	return (struct coll){ op, COLL_AUTO, d->groups[k * d->p->tp + i], n, bytes, 0 };
}

/* Time of one collective alone on the fabric, cached per (op, bytes, stage,
 * group kind). */
static int alone_s(struct des *d, int k, enum coll_op op, double bytes, bool rep,
		   bool experts, double *t, struct err *e)
{
	for (int i = 0; i < d->n_cache; i++)
		if (d->cache[i].op == op && d->cache[i].bytes == bytes && d->cache[i].k == k &&
		    d->cache[i].rep == rep && d->cache[i].experts == experts) {
			*t = d->cache[i].t;
			return 0;
		}
	struct coll c = coll_of(d, k, 0, op, bytes, rep, experts);
	*t = d->p->net->alone_s(d->p->net->ctx, &c, e);
	if (*t < 0)
		return -1;
	if (d->n_cache < 256)
		d->cache[d->n_cache++] = (struct coll_memo){ op, bytes, k, rep, experts, *t };
	return 0;
}

/* What a ZeRO-3 bucket costs beyond one collective of its bytes when
 * each of its T tensors goes alone (step.h): T - 1 more latencies (a
 * collective of one element per rank) and T n copies. */
static int per_tensor_tail_s(struct des *d, int k, const struct bucket *b,
			     double *tail_s, struct err *e)
{
	double lat_s, T = b->tensors;

	if (alone_s(d, k, b->op, 2.0 * d->shard, false, false, &lat_s, e) < 0)
		return -1;
	*tail_s = (T > 1 ? T - 1 : 0) * lat_s + T * d->shard * d->p->coll_copy_s;
	return 0;
}

/* Start the head bucket of a stream if it is idle; the ZeRO-3 gather stream
 * runs at most one bucket's worth ahead of the compute, or, in series
 * (zero3_sync), only while the stage neither computes nor reduces. */
static int stream_kick(struct des *d, int k, int which, struct err *e)
{
	struct stage *st = &d->stages[k];
	struct stream *s = &st->st[which];
	uint64_t tag = evkey_pack(&key_stage, (int64_t[]){ k, which });

	if (s->in_flight > 0 || s->head >= s->len)
		return 0;
	struct bucket *b = &s->q[s->head];
	if (which == STREAM_GATHER && s->head > gather_limit(d, k, b->bytes))
		return 0;	/* prefetch window full: wait for the compute */
	if (which == STREAM_GATHER && zero3_sync(d) &&
	    (st->in_seg || st->st[STREAM_GRAD].in_flight > 0 ||
	     st->st[STREAM_GRAD].head < st->st[STREAM_GRAD].len))
		return 0;	/* torch.cuda.synchronize() first */
	if (which == STREAM_GRAD) {
		/* Buckets that queued up while the stream was busy go as one
		 * collective: NCCL would run them back to back on the stream,
		 * so only their per-collective latencies (~10 us each) are
		 * lost, and the fabric sees far fewer flow changes. */
		while (s->head + 1 < s->len && s->q[s->head + 1].op == b->op &&
		       s->q[s->head + 1].replicas == b->replicas &&
		       s->q[s->head + 1].experts == b->experts) {
			s->q[s->head + 1].bytes += b->bytes;
			s->q[s->head + 1].tensors += b->tensors;
			s->head++;
			b = &s->q[s->head];
		}
	}
	s->tail_s = 0;
	if (zero3_sync(d) && !d->free_comm && per_tensor_tail_s(d, k, b, &s->tail_s, e) < 0)
		return -1;
	/* weights travel in the plan's weight_bytes, gradients in grad_bytes */
	d->dp_elems += (b->op == COLL_ALL_REDUCE ? 2.0 : 1.0) * b->bytes /
		       (b->op == COLL_ALL_GATHER ? weight_bytes(d) : grad_bytes(d));
	if (d->free_comm) {
		s->in_flight = 1;
		ev_after(d->sim, 0, d->k_comm, tag);
		return 0;
	}
	if (d->p->contention) {
		/* every TP rank's group; an experts' bucket every group of
		 * each (xstride of them a TP rank) */
		int groups = (d->p->one_group_per_stage ? 1 : d->p->tp) *
			     (b->experts ? d->xstride : 1);
		s->in_flight = groups;
		for (int i = 0; i < groups; i++) {
			struct coll c = coll_of(d, k, i, b->op, b->bytes, b->replicas,
						b->experts);
			if (d->p->net->start(d->p->net->ctx, &c, on_netsim_done, d, tag, e) < 0)
				return -1;
		}
		rate_changed(d, k);
		return 0;
	}
	double t;
	if (alone_s(d, k, b->op, b->bytes, b->replicas, b->experts, &t, e) < 0)
		return -1;
	s->in_flight = 1;
	ev_after(d->sim, to_ns(t), d->k_comm, tag);
	rate_changed(d, k);
	return 0;
}

/*
 * The input embedding's bucket.  Megatron-Core lays its gradient buffer
 * out over the parameters in reverse registration order "to roughly
 * follow backprop order" and cuts it into buckets there
 * (megatron/core/distributed/param_and_grad_buffer.py, core_v0.15.0);
 * PyTorch DDP buckets in reverse parameter order too.  The word
 * embedding, registered first, is the last gradient a backward makes
 * (its weight gradient is the last kernel) and, at V h / t parameters,
 * larger than any bucket: its reduction starts when the backward has
 * ended and hides behind nothing.  The all-gather after the optimizer
 * runs the other way: the first bucket's is dispatched at the first
 * forward's pre-hook and waited on there, each next one as the previous
 * is waited on (distributed_data_parallel.py _make_forward_pre_hook,
 * finish_param_sync), so the embedding's gather delays the first forward
 * whatever the rest of the forward hides.
 */
static double embed_params(const struct des *d, int vs)
{
	return vs == 0 ? d->p->embed_params : 0;
}

/* The bucket event of the embedding's gradients (V: the whole buffer). */
static int embed_key(const struct des *d)
{
	return d->V + 1;
}

/* The buckets virtual stage vs's layer gradients (all but the input
 * embedding's, which have one of their own) are cut into. */
static int layer_buckets(const struct des *d, int vs)
{
	double bytes = grad_bytes(d) * (d->p->chunk_params[vs] - embed_params(d, vs));
	int nb = d->p->chunk_buckets ? (int)d->p->chunk_buckets[vs] :
		 (int)ceil(bytes / d->p->bucket_bytes);

	return nb < 1 ? 1 : nb;
}

/* Megatron DDP's NaN check of vs's gradients (step.h): a norm over them,
 * and the host's round trip once a bucket -- each bucket, the embedding's
 * included, with overlap_grad_reduce; the chunk's buffer as one without. */
static double grad_check_s(const struct des *d, int vs)
{
	const struct step_plan *p = d->p;
	double buckets = !p->overlap_grad_reduce ? 1 :
			 layer_buckets(d, vs) + (embed_params(d, vs) > 0 ? 1 : 0);

	return grad_bytes(d) * p->chunk_params[vs] / p->grad_check_Bps +
	       buckets * p->grad_check_bucket_s;
}

/* Of stage k's op i, the NaN check's time: in a chunk's last backward,
 * which makes its buckets; without overlap, after the stage's last pass,
 * every chunk's buffer then. */
static double pass_check_s(const struct des *d, int k, int i)
{
	const struct stage *st = &d->stages[k];
	const struct mg_op *op = &st->ops[i];
	double s = 0;

	if (d->p->grad_check_Bps <= 0 || !op->bwd)
		return 0;
	if (d->p->overlap_grad_reduce)
		return st->last_bwd[op->chunk] == i ? grad_check_s(d, vs_of(d, op->chunk, k)) : 0;
	if (i == st->last_pass)
		for (int c = 0; c < d->p->v; c++)
			s += grad_check_s(d, vs_of(d, c, k));
	return s;
}

/* Stage k's op i on virtual stage vs: its kernels and the check in it. */
static double pass_s(const struct des *d, int k, int i, int vs)
{
	return op_s(d, &d->stages[k].ops[i], vs) + pass_check_s(d, k, i);
}

/* Gradients of virtual stage vs on stage k: buckets as the backward pass
 * produces them, uniformly over the op's duration, the embedding's last. */
static int grads_from_op(struct des *d, int k, int vs, int64_t start_ns, int64_t dur_ns,
			 struct err *e)
{
	double emb = embed_params(d, vs);
	int nb = layer_buckets(d, vs);

	(void)e;
	for (int i = 0; i < nb; i++) {
		int64_t t = start_ns + (d->p->overlap_grad_reduce ?
					dur_ns * (i + 1) / nb : dur_ns);
		ev_at(d->sim, t, d->k_bucket, evkey_pack(&key_stage, (int64_t[]){ k, vs }));
		d->stages[k].pending_ready++;
	}
	if (emb > 0) {
		ev_at(d->sim, start_ns + dur_ns, d->k_bucket,
		      evkey_pack(&key_stage, (int64_t[]){ k, embed_key(d) }));
		d->stages[k].pending_ready++;
	}
	return 0;
}

static enum coll_op grad_op(const struct des *d)
{
	return d->p->dp_mode == STEP_DP_ALLREDUCE || d->p->dp_mode == STEP_DP_ALLREDUCE_GATHER ?
	       COLL_ALL_REDUCE : COLL_REDUCE_SCATTER;
}

static int on_bucket(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct des *d = ctx;
	int k = (int)evkey_get(&key_stage, ev->arg, 0);
	int vs = (int)evkey_get(&key_stage, ev->arg, 1);
	double bytes = 0, xbytes = 0;
	int nb = 1;

	(void)sim;
	if (vs == d->V) {	/* the stage's whole gradient buffer at once */
		for (int c = 0; c < d->p->v; c++) {
			bytes += grad_bytes(d) * d->p->chunk_params[vs_of(d, c, k)];
			xbytes += grad_bytes(d) * expert_params(d, vs_of(d, c, k));
		}
	} else if (vs == embed_key(d)) {
		bytes = grad_bytes(d) * d->p->embed_params;
	} else {
		bytes = grad_bytes(d) * (d->p->chunk_params[vs] - embed_params(d, vs));
		xbytes = grad_bytes(d) * expert_params(d, vs);
		nb = layer_buckets(d, vs);
	}
	d->stages[k].pending_ready--;
	if (push_split(d, k, grad_op(d), (bytes - xbytes) / nb, xbytes / nb, 1) < 0)
		return err_set(e, ERR_RUN, "step: out of memory");
	return stream_kick(d, k, STREAM_GRAD, e);
}

/* Release the gradients backward op i produces for collectives: every
 * backward under ZeRO-2; otherwise a chunk's last backward (with overlap,
 * bucket by bucket), or the whole buffer at the end of the stage's last op
 * (Megatron's local DDP without overlap: one collective). */
static int release_grads(struct des *d, int k, int i, int vs, struct err *e)
{
	struct stage *st = &d->stages[k];
	const struct mg_op *op = &st->ops[i];
	int64_t now = ev_now(d->sim), dur = to_ns(pass_s(d, k, i, vs));

	if (d->p->dp <= 1 || !op->bwd || d->p->dp_mode == STEP_DP_ZERO3)
		return 0;
	if (op->part == MG_PART_INPUT)
		return 0;	/* its weight pass makes the gradients */
	if (d->p->dp_mode == STEP_DP_ZERO2)
		return grads_from_op(d, k, vs, now, dur, e);
	if (d->p->overlap_grad_reduce)
		return st->last_bwd[op->chunk] == i ? grads_from_op(d, k, vs, now, dur, e) : 0;
	if (i != st->last_pass)
		return 0;
	/* one collective over the contiguous gradient buffer (Megatron's local
	 * DDP without overlap) */
	ev_at(d->sim, now + dur, d->k_bucket,
	      evkey_pack(&key_stage, (int64_t[]){ k, d->V }));
	st->pending_ready++;
	return 0;
}

/* DeepSpeed's blocking send/recv: stage k waits at one side of a transfer
 * until its neighbour reaches the other side (same microbatch), then both
 * are held for the transfer. */
static int rendezvous(struct des *d, int k, struct err *e)
{
	static const uint8_t other[] = { MG_PASS, MG_RECV_ACT, MG_SEND_ACT,
					 MG_RECV_GRAD, MG_SEND_GRAD };
	const struct mg_op *op = &d->stages[k].ops[d->stages[k].next];
	int peer = op->comm == MG_SEND_ACT || op->comm == MG_RECV_GRAD ? k + 1 : k - 1;

	if (peer < 0 || peer >= d->p->pp)
		return err_set(e, ERR_RUN, "step: stage %d exchanges with no stage %d",
			       k, peer);
	struct stage *ps = &d->stages[peer];
	if (ps->busy || ps->next >= ps->n_ops)
		return 0;
	const struct mg_op *q = &ps->ops[ps->next];
	if (q->comm != other[op->comm] || q->mb != op->mb)
		return 0;	/* the neighbour is not there yet */
	d->stages[k].busy = ps->busy = true;
	ev_after(d->sim, d->p2p_ns, d->k_xfer, (uint64_t)k);
	ev_after(d->sim, d->p2p_ns, d->k_xfer, (uint64_t)peer);
	return 0;
}

/* Whether op's input (forward) or output gradient (backward) is there; a
 * weight-gradient pass needs nothing but its own input pass, before it. */
static bool op_ready(const struct des *d, const struct mg_op *op, int vs)
{
	int m = d->p->microbatches;

	if (op->bwd && op->part == MG_PART_WEIGHT)
		return true;
	if (!op->bwd)
		return !has_prev(d, vs) || d->fwd_ready[vs * m + op->mb];
	return !has_next(d, vs) || d->bwd_ready[vs * m + op->mb];
}

static int try_start(struct des *d, int k, struct err *e)
{
	struct stage *st = &d->stages[k];

	if (st->busy || st->next >= st->n_ops)
		return 0;
	struct mg_op *op = &st->ops[st->next];
	if (op->comm != MG_PASS)
		return rendezvous(d, k, e);
	int vs = vs_of(d, op->chunk, k);
	/* DeepSpeed's received it; a pair waits for both its inputs */
	if (st->seg == 0 && !d->p->ds_schedule &&
	    (!op_ready(d, op, vs) || (op->pair && st->next + 1 < st->n_ops &&
				      !op_ready(d, &st->ops[st->next + 1],
						vs_of(d, st->ops[st->next + 1].chunk, k)))))
		return 0;
	if (d->p->dp_mode == STEP_DP_ZERO3 && d->p->dp > 1) {
		int g = st->seg_base[st->next] + st->seg;
		if (g >= st->gathers_done)
			return 0;	/* its weights are still being gathered */
	}
	int nseg = segments(d, vs);
	st->busy = true;
	st->seg_start_ns = ev_now(d->sim);
	if (st->seg == 0 && release_grads(d, k, st->next, vs, e) < 0)
		return -1;
	st->in_seg = true;
	st->seg_left_ns = pass_s(d, k, st->next, vs) / nseg * 1e9;
	st->seg_mark_ns = st->seg_start_ns;
	st->seg_rate = seg_rate(d, k);
	st->seg_ev = ev_after(d->sim, llround(st->seg_left_ns / st->seg_rate), d->k_seg,
			      (uint64_t)k);
	return 0;
}

static void arrive_after(struct des *d, int bwd, int vs, int mb)
{
	uint64_t arg = evkey_pack(&key_arrive, (int64_t[]){ mb, vs, bwd });

	ev_after(d->sim, d->p2p_ns, d->k_arrive, arg);
}

static int on_seg(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct des *d = ctx;
	int k = (int)ev->arg;
	struct stage *st = &d->stages[k];
	struct mg_op *op = &st->ops[st->next];
	int vs = vs_of(d, op->chunk, k), nseg = segments(d, vs);
	double frac = 1.0 / nseg, tp, gm, dj;

	op_parts(d, op, vs, &tp, &gm, &dj);
	st->busy = false;
	st->in_seg = false;
	st->busy_s += (double)(ev_now(sim) - st->seg_start_ns) / 1e9;
	st->tp_s += tp * frac;
	st->gemm_s += gm * frac;
	st->dyn_j += dj * frac;
	st->last_end_ns = ev_now(sim);
	if (d->p->dp_mode == STEP_DP_ZERO3 && op->bwd && d->p->dp > 1) {
		/* this layer's gradients: reduce-scatter them now */
		double bytes = grad_bytes(d) * d->p->chunk_params[vs] / nseg;
		if (push_grads(d, k, COLL_REDUCE_SCATTER, bytes, d->p->zero3_tensors) < 0)
			return err_set(e, ERR_RUN, "step: out of memory");
		if (stream_kick(d, k, STREAM_GRAD, e) < 0)
			return -1;
	}
	if (++st->seg < nseg) {
		if (d->p->dp_mode == STEP_DP_ZERO3 && d->p->dp > 1 &&
		    stream_kick(d, k, STREAM_GATHER, e) < 0)
			return -1;
		return try_start(d, k, e);
	}
	st->seg = 0;
	/* DeepSpeed's schedule sends in commands of its own; a weight pass
	 * sends nothing; a pair's forward output leaves with its backward's,
	 * when the pair ends */
	bool out = !d->p->ds_schedule && op->part != MG_PART_WEIGHT &&
		   (op->bwd ? has_prev(d, vs) : has_next(d, vs));
	bool sends = out && !op->pair;
	if (out && op->pair) {
		st->held_vs = vs + 1;
		st->held_mb = op->mb;
	}
	if (sends)
		arrive_after(d, op->bwd, op->bwd ? vs - 1 : vs + 1, op->mb);
	if (!op->pair && st->held_vs >= 0) {
		arrive_after(d, 0, st->held_vs, st->held_mb);
		st->held_vs = -1;
		sends = true;
	}
	st->next++;
	if (d->p->dp_mode == STEP_DP_ZERO3 && d->p->dp > 1 &&
	    stream_kick(d, k, STREAM_GATHER, e) < 0)
		return -1;
	if (sends && d->p->p2p_blocking && d->p2p_ns > 0) {
		/* Megatron-LM's p2p_communication waits on the batched
		 * isend/irecv before the next pass: the stage is held until
		 * its send is delivered */
		st->busy = true;
		ev_after(d->sim, d->p2p_ns, d->k_sent, (uint64_t)k);
		return 0;
	}
	if (try_start(d, k, e) < 0)
		return -1;
	return check_finished(d, k, e);
}

/* Stage k is free again after a blocking send (sent) or an exchange
 * (xfer, which also completes its command). */
static int resume(struct des *d, int k, bool next_op, struct err *e)
{
	struct stage *st = &d->stages[k];

	st->busy = false;
	if (next_op)
		st->next++;
	if (try_start(d, k, e) < 0)
		return -1;
	return check_finished(d, k, e);
}

static int on_sent(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	(void)sim;
	return resume(ctx, (int)ev->arg, false, e);
}

static int on_xfer(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	(void)sim;
	return resume(ctx, (int)ev->arg, true, e);
}

static int on_arrive(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct des *d = ctx;
	int mb = (int)evkey_get(&key_arrive, ev->arg, 0);
	int vs = (int)evkey_get(&key_arrive, ev->arg, 1);
	int bwd = (int)evkey_get(&key_arrive, ev->arg, 2);

	(void)sim;
	(bwd ? d->bwd_ready : d->fwd_ready)[vs * d->p->microbatches + mb] = 1;
	return try_start(d, rank_of(d, vs), e);
}

/* The weights each stage all-gathers after the optimizer (sharded modes). */
static int start_weight_gather(struct des *d, struct err *e)
{
	int pp = d->p->pp, v = d->p->v;

	for (int k = 0; k < pp; k++) {
		double bytes = 0, xbytes = 0;
		for (int c = 0; c < v; c++) {
			bytes += weight_bytes(d) * d->p->chunk_params[vs_of(d, c, k)];
			xbytes += weight_bytes(d) * expert_params(d, vs_of(d, c, k));
		}
		int nb = (int)ceil(bytes / d->p->bucket_bytes);
		if (nb < 1)
			nb = 1;
		for (int i = 0; i < nb; i++)
			if (push_split(d, k, COLL_ALL_GATHER, (bytes - xbytes) / nb,
				       xbytes / nb, 1) < 0)
				return err_set(e, ERR_RUN, "step: out of memory");
		d->stages[k].finished = false;
		d->stages_left++;
		if (stream_kick(d, k, STREAM_GRAD, e) < 0)
			return -1;
	}
	return 0;
}

static int on_opt(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct des *d = ctx;

	(void)ev;
	d->phase = 1;
	d->opt_ns = ev_now(sim);
	d->gather_end_ns = d->opt_ns;
	if (d->p->dp > 1 && (d->p->dp_mode == STEP_DP_SHARDED ||
			     d->p->dp_mode == STEP_DP_ALLREDUCE_GATHER ||
			     d->p->dp_mode == STEP_DP_ZERO2))
		return start_weight_gather(d, e);
	d->end_ns = ev_now(sim);
	return 0;
}

/*
 * Megatron-Core --align-param-gather (schedules.py, param_sync_func): the
 * weights of chunks 0 and 1 are gathered from the step's start, chunk c's
 * from when chunk c-1 starts its first forward, each chunk as one
 * collective, back to back on one stream; a chunk's first forward waits
 * for its weights; the interleaved schedule runs n = min(p, m) forwards of
 * a chunk before the next chunk's first (chunk (k / p) mod v).  The chunks'
 * gathers take gather_s, the time stage k's gather took after the
 * optimizer, in proportion to their weights.  Returns how much later the
 * last chunk's first forward ends than with the weights already there.
 */
static double aligned_wait_s(const struct des *d, int k, double gather_s)
{
	int n = d->p->microbatches < d->p->pp ? d->p->microbatches : d->p->pp;
	double total = 0, stream = 0, start = 0, end = 0, bare = 0;

	for (int c = 0; c < d->p->v; c++)
		total += d->p->chunk_params[vs_of(d, c, k)];
	if (total <= 0)
		return 0;
	for (int c = 0; c < d->p->v; c++) {
		int vs = vs_of(d, c, k);
		double f = d->p->fwd_s[vs], g = gather_s * d->p->chunk_params[vs] / total;
		double ready = (c <= 1 ? stream : fmax(stream, start)) + g;

		stream = ready;
		if (c > 0) {
			double prev_f = d->p->fwd_s[vs_of(d, c - 1, k)];
			start = fmax(end + (n - 1) * prev_f, ready);
			bare += n * prev_f;
		} else {
			start = ready;
		}
		end = start + f;
	}
	return fmax(0, end - (bare + d->p->fwd_s[vs_of(d, d->p->v - 1, k)]));
}

static int check_finished(struct des *d, int k, struct err *e)
{
	struct stage *st = &d->stages[k];
	struct stream *g = &st->st[STREAM_GRAD];

	if (st->finished || st->busy || st->next < st->n_ops || st->pending_ready > 0 ||
	    g->in_flight > 0 || g->head < g->len)
		return 0;
	st->finished = true;
	if (d->phase == 1) {
		/* Megatron-Core --overlap-param-gather: the next iteration's
		 * forward waits only for what its passes cannot hide (bucket by
		 * bucket: its first pass; aligned: aligned_wait_s), and for the
		 * embedding's gather before it can start */
		int64_t now = ev_now(d->sim), t = now;
		if (d->p->param_gather_hide_s)
			t = d->p->param_gather_aligned ?
			    d->opt_ns + to_ns(aligned_wait_s(d, k, (double)(now - d->opt_ns) / 1e9)) :
			    now - to_ns(d->p->param_gather_hide_s[k]);
		double emb_s = 0;
		if (d->p->param_gather_hide_s && k == rank_of(d, 0) && d->p->embed_params > 0 &&
		    !d->free_comm &&
		    alone_s(d, k, COLL_ALL_GATHER, weight_bytes(d) * d->p->embed_params,
			    false, false, &emb_s, e) < 0)
			return -1;
		if (d->opt_ns + to_ns(emb_s) > t)
			t = d->opt_ns + to_ns(emb_s);
		if (t > d->gather_end_ns)
			d->gather_end_ns = t;
	}
	if (--d->stages_left > 0)
		return 0;
	if (d->phase == 0) {
		d->sync_ns = ev_now(d->sim);
		ev_after(d->sim, to_ns(d->p->final_sync_s) + to_ns(d->p->optimizer_s),
			 d->k_opt, 0);
	} else {
		d->end_ns = d->gather_end_ns;
	}
	return 0;
}

/* ZeRO-3: queue every layer's weight all-gather in execution order; a
 * backward's also gathers again what its recomputed forward released
 * (step.h: zero3_regather). */
static int plan_gathers(struct des *d, int k, struct err *e)
{
	struct stage *st = &d->stages[k];
	const struct step_plan *p = d->p;
	int n = 0;

	st->seg_base = malloc((size_t)st->n_ops * sizeof *st->seg_base);
	if (!st->seg_base)
		return err_set(e, ERR_RUN, "step: out of memory");
	for (int i = 0; i < st->n_ops; i++) {
		int vs = vs_of(d, st->ops[i].chunk, k), nseg = segments(d, vs);
		bool bwd = st->ops[i].bwd;
		double bytes = 2.0 * p->chunk_params[vs] / nseg *
			       (1 + (bwd ? p->zero3_regather_frac : 0));
		double tensors = p->zero3_tensors + (bwd ? p->zero3_regather_tensors : 0);
		st->seg_base[i] = n;
		for (int j = 0; j < nseg; j++, n++)
			if (push_bucket(&st->st[STREAM_GATHER], COLL_ALL_GATHER, bytes,
					tensors) < 0)
				return err_set(e, ERR_RUN, "step: out of memory");
	}
	st->n_gathers = n;
	return 0;
}


/* Hybrid sharding: for each stage and TP rank, the GPU holding shard 0 in
 * each shard group (consecutive data-parallel ranks form a group, as
 * FSDP's device mesh puts them); the groups of the other shards are
 * alike. */
static int replica_groups(struct des *d, struct err *e)
{
	int n = d->p->pp * d->p->tp, reps = d->p->dp / d->shard;

	d->replicas = calloc((size_t)n, sizeof *d->replicas);
	if (!d->replicas)
		return err_set(e, ERR_RUN, "step: out of memory");
	for (int i = 0; i < n; i++) {
		d->replicas[i] = malloc((size_t)reps * sizeof *d->replicas[i]);
		if (!d->replicas[i])
			return err_set(e, ERR_RUN, "step: out of memory");
		for (int r = 0; r < reps; r++)
			d->replicas[i][r] = d->groups[i][r * d->shard];
	}
	return 0;
}

/* The expert-data-parallel groups of each stage and TP rank: members
 * xstride apart in the DP group, one group per offset. */
static int expert_groups(struct des *d, struct err *e)
{
	int n = d->p->pp * d->p->tp, xdp = d->p->expert_dp;

	if (d->p->dp % xdp != 0)
		return err_set(e, ERR_USAGE, "step: %d data-parallel ranks in expert groups "
			       "of %d", d->p->dp, xdp);
	d->xstride = d->p->dp / xdp;
	d->xgroups = calloc((size_t)n * d->xstride, sizeof *d->xgroups);
	if (!d->xgroups)
		return err_set(e, ERR_RUN, "step: out of memory");
	for (int i = 0; i < n; i++)
		for (int o = 0; o < d->xstride; o++) {
			int *g = malloc((size_t)xdp * sizeof *g);
			if (!g)
				return err_set(e, ERR_RUN, "step: out of memory");
			for (int r = 0; r < xdp; r++)
				g[r] = d->groups[i][o + r * d->xstride];
			d->xgroups[i * d->xstride + o] = g;
		}
	return 0;
}

static void des_free(struct des *d)
{
	if (d->stages) {
		for (int k = 0; k < d->p->pp; k++) {
			struct stage *st = &d->stages[k];
			free(st->ops);
			free(st->last_bwd);
			free(st->seg_base);
			for (int s = 0; s < N_STREAMS; s++)
				free(st->st[s].q);
		}
	}
	free(d->stages);
	free(d->fwd_ready);
	free(d->bwd_ready);
	if (d->groups)
		for (int i = 0; i < d->p->pp * d->p->tp; i++)
			free(d->groups[i]);
	free(d->groups);
	if (d->replicas)
		for (int i = 0; i < d->p->pp * d->p->tp; i++)
			free(d->replicas[i]);
	free(d->replicas);
	if (d->xgroups)
		for (int i = 0; i < d->p->pp * d->p->tp * d->xstride; i++)
			free(d->xgroups[i]);
	free(d->xgroups);
	if (d->net_open)
		d->p->net->close(d->p->net->ctx, NULL);
	if (d->sim)
		ev_sim_free(d->sim);
}

static int des_setup(struct des *d, struct err *e)
{
	const struct step_plan *p = d->p;
	int pp = p->pp, v = p->v, m = p->microbatches;

	d->V = pp * v;
	if (evkey_check(&key_stage, 0, pp - 1, "pipeline stages", e) < 0 ||
	    evkey_check(&key_stage, 1, d->V > N_STREAMS ? d->V : N_STREAMS,
			"virtual stages", e) < 0 ||
	    evkey_check(&key_arrive, 0, m - 1, "microbatches", e) < 0 ||
	    evkey_check(&key_arrive, 1, d->V - 1, "virtual stages", e) < 0)
		return -1;
	d->sim = ev_sim_new();
	d->stages = calloc((size_t)pp, sizeof *d->stages);
	d->fwd_ready = calloc((size_t)d->V * m, 1);
	d->bwd_ready = calloc((size_t)d->V * m, 1);
	if (!d->sim || !d->stages || !d->fwd_ready || !d->bwd_ready)
		return err_set(e, ERR_RUN, "step: out of memory");
	d->k_seg = ev_kind(d->sim, "step_segment_done", on_seg, d);
	d->k_arrive = ev_kind(d->sim, "step_p2p_arrive", on_arrive, d);
	d->k_sent = ev_kind(d->sim, "step_p2p_sent", on_sent, d);
	d->k_xfer = ev_kind(d->sim, "step_p2p_exchanged", on_xfer, d);
	d->k_bucket = ev_kind(d->sim, "step_grad_bucket", on_bucket, d);
	d->k_comm = ev_kind(d->sim, "step_collective_done", on_comm, d);
	d->k_opt = ev_kind(d->sim, "step_optimizer_done", on_opt, d);
	d->p2p_ns = to_ns(p->p2p_s);
	d->shard = p->shard_ranks > 0 && p->shard_ranks < p->dp ? p->shard_ranks : p->dp;
	if (p->dp % d->shard != 0)
		return err_set(e, ERR_USAGE, "step: %d data-parallel ranks in groups of %d",
			       p->dp, d->shard);
	d->stages_left = pp;
	for (int k = 0; k < pp; k++) {
		struct stage *st = &d->stages[k];
		size_t room = p->ds_schedule ? (size_t)DS_OPS_MAX(pp, m) :
			      p->dualpipe ? (size_t)DUAL_OPS_MAX(m) : (size_t)2 * m * v;
		st->ops = malloc(room * sizeof *st->ops);
		st->last_bwd = malloc((size_t)v * sizeof *st->last_bwd);
		if (!st->ops || !st->last_bwd)
			return err_set(e, ERR_RUN, "step: out of memory");
		st->n_ops = p->ds_schedule ? ds_schedule(pp, m, k, st->ops) :
			    p->dualpipe ? dual_schedule(pp, m, k, st->ops) :
			    mg_schedule(pp, v, m, k, st->ops);
		st->held_vs = -1;
		for (int i = 0; i < st->n_ops; i++) {
			if (st->ops[i].comm != MG_PASS)
				continue;
			st->last_pass = i;
			if (st->ops[i].bwd)
				st->last_bwd[st->ops[i].chunk] = i;
		}
		if (p->dp_mode == STEP_DP_ZERO3 && p->dp > 1 && plan_gathers(d, k, e) < 0)
			return -1;
	}
	if (p->dp > 1 && p->net && p->rank_gpu) {
		d->groups = calloc((size_t)pp * p->tp, sizeof *d->groups);
		if (!d->groups)
			return err_set(e, ERR_RUN, "step: out of memory");
		for (int k = 0; k < pp; k++)
			for (int i = 0; i < p->tp; i++) {
				int *g = malloc((size_t)p->dp * sizeof *g);
				if (!g)
					return err_set(e, ERR_RUN, "step: out of memory");
				for (int j = 0; j < p->dp; j++) {
					int r = i + p->tp * (j + p->dp * k);
					g[j] = p->rank_gpu[r];
				}
				d->groups[k * p->tp + i] = g;
			}
		if (d->shard < p->dp && (p->dp_mode == STEP_DP_ZERO2 ||
					 p->dp_mode == STEP_DP_ZERO3) &&
		    replica_groups(d, e) < 0)
			return -1;
		if (p->expert_dp > 1 && p->chunk_expert_params && expert_groups(d, e) < 0)
			return -1;
		if (p->contention) {
			if (p->net->open(p->net->ctx, d->sim, e) < 0)
				return -1;
			d->net_open = true;
		}
	} else {
		d->free_comm = true;
	}
	return 0;
}

/* Run one plan; fills the timeline part of out. */
static int des_run(const struct step_plan *p, struct step_result *out,
		   double *wait_mean_s, struct err *e)
{
	struct des d;
	int rc = -1;

	memset(&d, 0, sizeof d);
	d.p = p;
	if (des_setup(&d, e) < 0)
		goto done;
	for (int k = 0; k < p->pp; k++) {
		if (p->dp_mode == STEP_DP_ZERO3 && p->dp > 1 &&
		    stream_kick(&d, k, STREAM_GATHER, e) < 0)
			goto done;
		if (try_start(&d, k, e) < 0)
			goto done;
	}
	if (ev_run(d.sim, INT64_MAX, e) < 0)
		goto done;
	if (d.stages_left != 0 || d.phase != 1) {
		err_set(e, ERR_RUN, "step: the schedule deadlocked (%d stages unfinished)",
			d.stages_left);
		goto done;
	}
	/* the tied-embedding all-reduce belongs with the gradient sync */
	double T = (double)d.end_ns / 1e9;
	double sync = (double)(d.sync_ns + to_ns(p->final_sync_s)) / 1e9;
	/* The pipeline ends with the last compute on any stage; before that a
	 * stage is busy or waits (bubble, p2p), after it only gradient
	 * collectives and the optimizer remain. */
	int64_t pipe_end_ns = 0;
	for (int k = 0; k < p->pp; k++)
		if (d.stages[k].last_end_ns > pipe_end_ns)
			pipe_end_ns = d.stages[k].last_end_ns;
	double pipe_end = (double)pipe_end_ns / 1e9;
	double busy = 0, tp = 0, gemm = 0, dyn = 0, wait = 0;
	for (int k = 0; k < p->pp; k++) {
		struct stage *st = &d.stages[k];
		busy += st->busy_s;
		tp += st->tp_s;
		gemm += st->gemm_s;
		dyn += st->dyn_j;
		wait += pipe_end - st->busy_s;
	}
	double n = p->pp, tail = (sync - pipe_end) * n;
	memset(out, 0, sizeof *out);
	out->iteration_s = T;
	out->compute_s = (busy - tp) / n;
	out->tp_exposed_s = tp / n;
	out->optimizer_s = p->optimizer_s;
	out->dp_exposed_s = tail / n + (T - sync - p->optimizer_s);
	*wait_mean_s = wait / n;
	out->busy_frac = T > 0 ? (busy - tp) / n / T : 0;
	out->tensor_active_frac = T > 0 ? gemm / n / T : 0;
	out->kernel_dyn_w = T > 0 ? (dyn / n + p->optimizer_dyn_j) / T : 0;
	/* each bucket is counted once per stage; every rank of the stage is in
	 * exactly one of its tp groups: mean per rank over stages */
	out->dp_comm_elems_per_rank = d.dp_elems / p->pp;
	out->events = ev_count(d.sim);
	if (d.net_open) {	/* per-tier bytes, then the transport's state goes */
		p->net->close(p->net->ctx, out);
		d.net_open = false;
	}
	rc = 0;
done:
	des_free(&d);
	return rc;
}

int step_run(const struct step_plan *p, struct step_result *out, struct err *e)
{
	double wait, wait0;
	struct step_result ideal;

	if (p->pp < 1 || p->v < 1 || p->microbatches < 1 || p->tp < 1 || p->dp < 1)
		return err_set(e, ERR_USAGE, "step: empty plan");
	if (p->ds_schedule && p->v != 1)
		return err_set(e, ERR_USAGE, "step: DeepSpeed's schedule has no virtual stages");
	if (p->dualpipe && (p->v != 2 || p->pp % 2 != 0 || p->microbatches % 2 != 0 ||
			    p->microbatches < 2 * p->pp))
		return err_set(e, ERR_USAGE, "step: DualPipe needs two directions (v = 2), "
			       "an even pp and an even m >= 2 pp (pp %d, m %d)", p->pp,
			       p->microbatches);
	if (des_run(p, out, &wait, e) < 0)
		return -1;
	/* The same pipeline with free p2p and no data parallelism: its idle
	 * time is the schedule's own bubble; the difference is the p2p's. */
	struct step_plan q = *p;
	q.p2p_s = 0;
	q.final_sync_s = 0;
	q.dp = 1;
	q.net = NULL;
	if (des_run(&q, &ideal, &wait0, e) < 0)
		return -1;
	out->bubble_s = wait0;
	out->pp_exposed_s = wait - wait0;
	if (p->dp_mode == STEP_DP_ZERO3 && p->dp > 1) {
		/* stalls for weight gathers (ZeRO-3 runs without a pipeline) */
		out->dp_exposed_s += out->pp_exposed_s;
		out->pp_exposed_s = 0;
	}
	out->events += ideal.events;
	return 0;
}
