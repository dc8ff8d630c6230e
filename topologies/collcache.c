/*
 * collcache.c -- collective plans kept for their next start.
 *
 * A step simulation starts the same collective many times: ZeRO-3 gathers
 * every layer's weights before each forward and backward of every
 * microbatch, and reduce-scatters every layer's gradients, each time over
 * the same group with the same bytes.  Building the plan, routing its
 * transfers and folding identical ones into weighted flows cost as much as
 * solving the flows themselves.  So a plan is kept by its collective
 * (operation, algorithm, bytes, the participants in order), and it keeps
 * its phases' flows after their first start (coll.h, plan->keep); later
 * starts add the same flows in the same order, with the same results.
 *
 * Only where a route does not depend on the links' load at the start: on
 * fat trees and NVLink, and on dragonflies routed minimally or by Valiant;
 * UGAL chooses by load, so there every start routes afresh and nothing is
 * kept.  Memory is bounded: past COLL_CACHE_XFERS transfers kept in all,
 * plans are built for one start only.
 */
#include <stdlib.h>
#include <string.h>

#include "topologies/coll.h"
#include "topologies/topo.h"

#define COLL_CACHE_XFERS (1 << 20)	/* at most ~140 MB of transfers and flows */

struct cc_ent {
	uint64_t key;
	enum coll_op op;
	enum coll_algo algo;
	double bytes, skew;	/* skew: 1 when balanced */
	int *gpus;		/* NULL: a free slot */
	int n_gpus;
	struct coll_plan *plan;	/* apart: runs in flight point to it */
};

struct coll_cache {
	struct cc_ent *ent;
	size_t mask, used;	/* slots - 1; slots taken */
	size_t xfers;		/* transfers in the kept plans */
};

struct coll_cache *coll_cache_new(struct err *e)
{
	struct coll_cache *cc = calloc(1, sizeof *cc);

	if (cc == NULL || (cc->ent = calloc(64, sizeof *cc->ent)) == NULL) {
		free(cc);
		err_set(e, ERR_RUN, "out of memory for the collective cache");
		return NULL;
	}
	cc->mask = 63;
	return cc;
}

void coll_cache_free(struct coll_cache *cc)
{
	if (cc == NULL)
		return;
	for (size_t i = 0; i <= cc->mask; i++)
		if (cc->ent[i].gpus) {
			free(cc->ent[i].gpus);
			coll_plan_free(cc->ent[i].plan);
			free(cc->ent[i].plan);
		}
	free(cc->ent);
	free(cc);
}

static uint64_t cc_key(const struct coll *c, enum coll_algo algo)
{
	uint64_t h = route_hash3((uint64_t)c->op, (uint64_t)c->n_gpus, (uint64_t)algo);
	uint64_t bits;

	memcpy(&bits, &c->bytes, sizeof bits);
	for (int i = 0; i < c->n_gpus; i++)
		h = route_mix(h ^ (uint64_t)(uint32_t)c->gpus[i]);
	if (c->skew > 1) {	/* balanced keys as before */
		uint64_t f;
		memcpy(&f, &c->skew, sizeof f);
		h = route_mix(h ^ f);
	}
	return route_mix(h ^ bits);
}

static bool cc_same(const struct cc_ent *x, uint64_t key, const struct coll *c,
		    enum coll_algo algo)
{
	return x->key == key && x->op == c->op && x->algo == algo &&
	       x->n_gpus == c->n_gpus && memcmp(&x->bytes, &c->bytes, sizeof x->bytes) == 0 &&
	       x->skew == (c->skew > 1 ? c->skew : 1) &&
	       memcmp(x->gpus, c->gpus, (size_t)c->n_gpus * sizeof *c->gpus) == 0;
}

/* The slot of c's plan, or the free slot where it goes. */
static size_t cc_find(const struct coll_cache *cc, uint64_t key,
		      const struct coll *c, enum coll_algo algo)
{
	size_t i = key & cc->mask;

	while (cc->ent[i].gpus && !cc_same(&cc->ent[i], key, c, algo))
		i = (i + 1) & cc->mask;
	return i;
}

/* Twice the slots, kept at most half full (the plans stay where they are). */
static int cc_grow(struct coll_cache *cc)
{
	size_t n = 2 * (cc->mask + 1);
	struct cc_ent *old = cc->ent, *ent = calloc(n, sizeof *ent);
	size_t old_n = cc->mask + 1;

	if (ent == NULL)
		return -1;
	cc->ent = ent;
	cc->mask = n - 1;
	for (size_t i = 0; i < old_n; i++)
		if (old[i].gpus) {
			size_t j = old[i].key & cc->mask;
			while (ent[j].gpus)
				j = (j + 1) & cc->mask;
			ent[j] = old[i];
		}
	free(old);
	return 0;
}

/* A plan built for c, for one start or to keep. */
static struct coll_plan *cc_build(const struct net *net, const struct coll *c,
				  enum coll_algo algo, bool keep, struct err *e)
{
	struct coll_plan *p = malloc(sizeof *p);

	if (p == NULL) {
		err_set(e, ERR_RUN, "out of memory for a collective");
		return NULL;
	}
	if (coll_plan_build(net, c, algo, p, e) < 0) {
		free(p);
		return NULL;
	}
	p->keep = keep;
	return p;
}

static size_t plan_xfers(const struct coll_plan *p)
{
	size_t n = 0;

	for (int i = 0; i < p->n_phases; i++)
		n += (size_t)p->ph[i].n;
	return n;
}

struct coll_plan *coll_cache_plan(struct coll_cache *cc, const struct net *net,
				  const struct coll *c, enum coll_algo algo,
				  bool *owned, struct err *e)
{
	bool fixed = !net->df || net->p.df.routing != DF_UGAL;
	uint64_t key = cc_key(c, algo);
	size_t i = cc_find(cc, key, c, algo);

	*owned = false;
	if (cc->ent[i].gpus)
		return cc->ent[i].plan;
	struct coll_plan *p = cc_build(net, c, algo, fixed, e);
	if (p == NULL)
		return NULL;
	size_t n = plan_xfers(p);
	int *gpus = malloc((size_t)(c->n_gpus > 0 ? c->n_gpus : 1) * sizeof *gpus);
	if (!fixed || cc->xfers + n > COLL_CACHE_XFERS || gpus == NULL) {
		free(gpus);
		p->keep = false;
		*owned = true;
		return p;
	}
	memcpy(gpus, c->gpus, (size_t)c->n_gpus * sizeof *gpus);
	cc->ent[i] = (struct cc_ent){ key, c->op, algo, c->bytes, c->skew > 1 ? c->skew : 1,
				     gpus, c->n_gpus, p };
	cc->xfers += n;
	if (++cc->used * 2 > cc->mask + 1 && cc_grow(cc) < 0) {
		err_set(e, ERR_RUN, "out of memory for the collective cache");
		return NULL;	/* (the plan is the cache's: freed with it) */
	}
	return p;
}
