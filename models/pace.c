/* pace.c -- see pace.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/forkjobs.h"
#include "models/pace.h"

const struct cfg_setting pace_settings[] = {
	{ "training.iteration_model", CFG_ENUM, "", 0, 0, "step", "step|formula",
	  "iteration time: the step model on the network, or Megatron's FLOPs "
	  "formula at training.efficiency of peak" },
	{ "training.efficiency", CFG_FLOAT, "", 1e-3, 1, "0.44", NULL,
	  "formula model: achieved / peak FLOP/s (of parallel.dtype), recomputation counted "
	  "(Megatron-LM README, GPT-3 175B on 1024 A100: 138 TFLOP/s, 44%)" },
	CFG_END
};

#define KEY_LEN 12

struct pace_cache {
	size_t n, cap;
	struct cached {
		int64_t key[KEY_LEN];
		struct pace p;
	} *v;
	size_t n_pf, cap_pf;	/* platforms by cluster shape */
	struct cached_platform {
		int gpus, gpus_per_node;
		struct platform pf;
	} *pf;
};

struct pace_cache *pace_cache_new(void)
{
	return calloc(1, sizeof(struct pace_cache));
}

void pace_cache_free(struct pace_cache *c)
{
	if (c) {
		free(c->v);
		free(c->pf);
	}
	free(c);
}

/* The key: typed values only (the layout's counts, the enums as numbers,
 * the efficiency's bits). */
static void cache_key(const struct pace_src *src, const struct layout *L, int64_t *k)
{
	int64_t key[KEY_LEN] = {
		src->L->gpus, L->tp, L->pp, L->dp, L->micro_batch, L->microbatches,
		L->global_batch, (int64_t)src->step->par.recompute,
		src->step->par.zero_stage, src->use_step, src->shrink_batch, 0,
	};

	memcpy(&key[KEY_LEN - 1], &src->efficiency, sizeof src->efficiency);
	memcpy(k, key, sizeof key);
}

static const struct pace *cache_find(const struct pace_cache *c, const int64_t *key)
{
	for (size_t i = 0; c && i < c->n; i++)
		if (memcmp(c->v[i].key, key, KEY_LEN * sizeof *key) == 0)
			return &c->v[i].p;
	return NULL;
}

/* Remember a pace; a full cache (out of memory) just forgets. */
static void cache_put(struct pace_cache *c, const int64_t *key, const struct pace *p)
{
	if (c == NULL)
		return;
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct cached *v = realloc(c->v, cap * sizeof *v);
		if (v == NULL)
			return;
		c->v = v;
		c->cap = cap;
	}
	memcpy(c->v[c->n].key, key, KEY_LEN * sizeof *key);
	c->v[c->n++].p = *p;
}

size_t pace_cache_size(const struct pace_cache *c)
{
	return c ? c->n : 0;
}

int pace_cache_send(const struct pace_cache *c, size_t from, int fd)
{
	size_t len = from < c->n ? (c->n - from) * sizeof *c->v : 0;

	return fj_send(fd, c->v + from, len);
}

int pace_cache_take(struct pace_cache *c, const void *data, size_t len,
		    struct err *e)
{
	struct cached x;

	(void)e;
	/* Whole entries only: a helper that died while writing left a piece
	 * of one, and whoever needs that pace computes it again. */
	for (size_t off = 0; off + sizeof x <= len; off += sizeof x) {
		memcpy(&x, (const char *)data + off, sizeof x);
		if (!cache_find(c, x.key))
			cache_put(c, x.key, &x.p);
	}
	return 0;
}

void pace_src_from_scenario(const struct scenario *sc, struct pace_src *src)
{
	src->use_step = strcmp(sc_str(sc, "training.iteration_model"), "step") == 0;
	src->efficiency = sc_float(sc, "training.efficiency");
}

double pace_peak_flops(const struct pace_src *src)
{
	return src->step->par.dtype == PAR_FP8 ? src->g->peak_fp8_flops :
	       src->g->peak_bf16_flops;
}

/* The layout of the job shrunk (or not) to dp replicas. */
static struct layout layout_at(const struct pace_src *src, int dp)
{
	struct layout L = *src->L;
	int per_replica = L.tp * L.pp;

	L.dp = dp;
	L.gpus = dp * per_replica;
	L.nodes = (L.gpus + L.gpus_per_node - 1) / L.gpus_per_node;
	if (src->shrink_batch)
		L.global_batch = src->L->global_batch / layout_replicas(src->L) *
				 layout_replicas(&L);
	else
		L.microbatches = (L.global_batch + layout_replicas(&L) * L.micro_batch - 1) /
				 (layout_replicas(&L) * L.micro_batch);
	return L;
}

static int compute_time(const struct pace_src *src, const struct layout *L,
			struct pace *p, struct err *e)
{
	double sequences = (double)L->microbatches * L->micro_batch * layout_replicas(L);

	if (src->use_step) {
		if (step_simulate(src->step, src->m, L, src->g, &p->step, e) < 0)
			return -1;
		p->compute_s = p->step.iteration_s;
		p->flops_per_iter = p->step.flops_per_iter;
		return 0;
	}
	if (step_check_dtype(src->step, src->g, e) < 0)
		return -1;
	p->flops_per_iter = tfm_flops(src->m, sequences,
				      src->step->par.recompute == PAR_RECOMPUTE_FULL);
	p->compute_s = p->flops_per_iter /
		       (L->gpus * pace_peak_flops(src) * src->efficiency);
	return 0;
}

int pace_check_dp(const struct pace_src *src, int dp, struct err *e)
{
	struct layout L = layout_at(src, dp);

	return step_check_memory(src->step, src->m, &L, src->g, NULL, e);
}

/* The evaluation's pause for the layout this pace runs (evaluation.h):
 * its global batch, forward only. */
static void set_eval(const struct pace_src *src, const struct layout *L, struct pace *p)
{
	double seqs = (double)p->tokens_per_iter / src->m->seq_len;
	double fwd = tfm_flops(src->m, seqs, false) / 3;
	const struct par_opts *o = &src->step->par;
	double fill = L->pp - 1;
	double batch_s;

	if (o->schedule == PAR_INTERLEAVED && o->virtual_stages > 1)
		fill /= o->virtual_stages;
	batch_s = evl_batch_s(src->use_step ? &p->step : NULL, p->compute_s,
			      p->flops_per_iter, fwd, L->microbatches, fill);

	p->eval_s = evl_pause_s(src->eval, batch_s);
	p->eval_every = p->eval_s > 0 ? src->eval->every_iters : 0;
}

int pace_compute(const struct pace_src *src, int dp, struct pace *p, struct err *e)
{
	struct layout L = layout_at(src, dp);
	int64_t key[KEY_LEN];
	const struct pace *hit;

	cache_key(src, &L, key);
	if ((hit = cache_find(src->cache, key)) != NULL) {
		*p = *hit;
		return 0;
	}
	memset(p, 0, sizeof *p);
	if (compute_time(src, &L, p, e) < 0)
		return -1;
	p->dp = dp;
	p->iter_s = p->compute_s + gc_auto_s(src->gc, p->compute_s, (long)L.gpus);
	p->manual_s = gc_manual_s(src->gc);
	p->every = p->manual_s > 0 ? src->gc->every_iters : 0;
	p->tokens_per_iter = (int64_t)L.global_batch * src->m->seq_len;
	set_eval(src, &L, p);
	p->ready = true;
	cache_put(src->cache, key, p);
	return 0;
}

void pace_lerp(const struct pace_src *src, const struct pace *a, const struct pace *b,
	       int global_batch, struct pace *out)
{
	double ta = (double)a->tokens_per_iter, tb = (double)b->tokens_per_iter;
	double t = (double)global_batch * src->m->seq_len;
	double w = tb > ta ? (t - ta) / (tb - ta) : 0;
	long gpus = (long)a->dp * src->L->tp * src->L->pp;

	*out = *a;
	out->compute_s = a->compute_s + w * (b->compute_s - a->compute_s);
	out->flops_per_iter = a->flops_per_iter + w * (b->flops_per_iter - a->flops_per_iter);
	if (src->use_step)
		step_result_lerp(&a->step, &b->step, w, &out->step);
	out->iter_s = out->compute_s + gc_auto_s(src->gc, out->compute_s, gpus);
	out->tokens_per_iter = (int64_t)global_batch * src->m->seq_len;
	out->eval_s = a->eval_s + w * (b->eval_s - a->eval_s);
}

bool pace_has_pauses(const struct pace *p)
{
	return p->iter_s != p->compute_s || p->every > 0 || p->eval_every > 0;
}

double pace_time_s(const struct pace *p, int64_t i0, int64_t i1)
{
	double t = (double)(i1 - i0) * p->iter_s;

	if (p->every > 0)
		t += p->manual_s * (double)(i1 / p->every - i0 / p->every);
	return t + pace_eval_s(p, i0, i1);
}

double pace_eval_s(const struct pace *p, int64_t i0, int64_t i1)
{
	if (p->eval_every <= 0)
		return 0;
	return p->eval_s * (double)(i1 / p->eval_every - i0 / p->eval_every);
}

/* Iterations done tau seconds after iteration i0 with periodic pauses
 * (manual GC, evaluations): the last whole iteration whose pauses have
 * ended by tau, by bisection on pace_time_s (monotone in i1), then the
 * part of the next one; inside a pause, the iteration it follows. */
double pace_iters_at(const struct pace *p, int64_t i0, double tau)
{
	int64_t lo = i0, hi = i0 + 1;
	double rest;

	if (p->every == 0 && p->eval_every == 0)
		return i0 + tau / p->iter_s;
	while (pace_time_s(p, i0, hi) <= tau)
		hi = lo + 2 * (hi - lo);
	while (hi - lo > 1) {
		int64_t mid = lo + (hi - lo) / 2;
		if (pace_time_s(p, i0, mid) <= tau)
			lo = mid;
		else
			hi = mid;
	}
	rest = tau - pace_time_s(p, i0, lo);
	if (rest < p->iter_s)
		return lo + rest / p->iter_s;
	return (double)hi;
}

int pace_cache_platform(struct pace_cache *c, const struct net_cfg *net,
			int gpus, int gpus_per_node, struct platform *out,
			struct err *e)
{
	for (size_t i = 0; c && i < c->n_pf; i++)
		if (c->pf[i].gpus == gpus && c->pf[i].gpus_per_node == gpus_per_node) {
			*out = c->pf[i].pf;
			return 0;
		}
	if (platform_from_cfg(net, out, e) < 0)
		return -1;
	if (c == NULL)
		return 0;
	if (c->n_pf == c->cap_pf) {
		size_t nc = c->cap_pf ? 2 * c->cap_pf : 8;
		struct cached_platform *v = realloc(c->pf, nc * sizeof *v);
		if (v == NULL)
			return 0;	/* not kept: built again next time */
		c->pf = v;
		c->cap_pf = nc;
	}
	c->pf[c->n_pf++] = (struct cached_platform){ gpus, gpus_per_node, *out };
	return 0;
}
