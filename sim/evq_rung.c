/*
 * evq_rung.c -- the ladder queue's rungs: opening one and spreading a list
 * (a bucket, top) or an overgrown bottom over it, or counting-sorting a
 * dense bucket straight into bottom's run instead.  The refill in evq.c
 * chooses which; routing a push to a rung is evq_route there.  Part of the
 * queue of evq.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/evq_int.h"

/*
 * Open a new deepest rung over n events in [min_ns, max_ns] (max > min), in
 * about n / EVQ_BUCKET_EVS buckets; extra_blks more free blocks are needed
 * than one a bucket.  NULL (nothing changed) if memory is short.
 */
static struct evq_rung *rung_open(struct evq *q, int64_t min_ns,
				  int64_t max_ns, size_t n, size_t extra_blks)
{
	struct evq_rung *r = &q->rung[q->nr];
	uint64_t span = (uint64_t)max_ns - (uint64_t)min_ns;
	size_t want = n / EVQ_BUCKET_EVS;
	unsigned shift = 0;

	if (want > EVQ_RUNG_BUCKETS)
		want = EVQ_RUNG_BUCKETS;
	while ((span >> shift) >= want)
		shift++;
	uint32_t nb = (uint32_t)(span >> shift) + 1;

	if (r->b == NULL) {
		r->b = malloc(EVQ_RUNG_BUCKETS * sizeof *r->b);
		if (r->b == NULL)
			return NULL;
	}
	if (evq_pool_reserve(q, nb + extra_blks) != 0)
		return NULL;
	r->start_ns = min_ns;
	r->shift = shift;
	r->nb = nb;
	r->cur = 0;
	for (uint32_t k = 0; k < nb; k++)
		list_init(&r->b[k]);
	q->nr++;
	return r;
}

/* Put x (a moved event) into rung r; the pool has a block for it. */
static inline void rung_put(struct evq *q, struct evq_rung *r,
			    const struct ev *x)
{
	uint64_t k = ((uint64_t)x->time_ns - (uint64_t)r->start_ns) >> r->shift;
	struct evq_list *l = &r->b[k < r->nb ? k : r->nb - 1];
	int rc = list_reserve(q, l);

	(void)rc;	/* cannot fail: rung_open reserved the blocks */
	list_put(l, x);
}

static inline void rung_put_to(struct evq *q, void *r, const struct ev *x)
{
	rung_put(q, r, x);
}

/*
 * Spread list l over a new deepest rung; false (l unchanged) if it has too
 * few events, only one time, or memory is short.  Source blocks are freed
 * as they are read, so one spare block a bucket is enough.
 */
bool evq_list_spread(struct evq *q, struct evq_list *l)
{
	if (l->n <= EVQ_BOTTOM_BATCH || l->min_ns == l->max_ns ||
	    q->nr == EVQ_RUNGS)
		return false;
	struct evq_rung *r = rung_open(q, l->min_ns, l->max_ns, l->n, 1);
	if (r == NULL)
		return false;
	list_take(q, l, rung_put_to, r);
	return true;
}

/*
 * Move list l (EVQ_BOTTOM_BATCH < n <= EVQ_SORT_BINS) into the empty run in
 * order: a counting sort on (time - least) >> shift into at least as many
 * bins as events, then the insertion sort orders each bin and ties by id.
 * Two passes over l, the second from cache, instead of a finer rung.  False
 * (l untouched) if a bin would hold more than EVQ_BOTTOM_BATCH: a cluster,
 * which a rung spreads better.
 */
bool evq_list_sort_to_run(struct evq *q, struct evq_list *l)
{
	uint64_t span = (uint64_t)l->max_ns - (uint64_t)l->min_ns;
	size_t nbins = 1;
	unsigned shift = 0;
	uint32_t most = 0;

	while (nbins < l->n)
		nbins <<= 1;
	while ((span >> shift) >= nbins)
		shift++;
	size_t used = (size_t)(span >> shift) + 1;
	uint32_t *cnt = q->bins;

	memset(cnt, 0, used * sizeof *cnt);
	for (struct evq_blk *b = l->head; b != NULL; b = b->next) {
		uint32_t m = blk_count(l, b);
		blk_prefetch(b->next);
		for (uint32_t i = 0; i < m; i++) {
			if (!pend_live(q, &b->ev[i]))
				continue;
			uint64_t k = ((uint64_t)b->ev[i].time_ns -
				      (uint64_t)l->min_ns) >> shift;
			if (++cnt[k] > most)
				most = cnt[k];
		}
	}
	if (most > EVQ_BOTTOM_BATCH)
		return false;
	uint32_t sum = 0;
	for (size_t k = 0; k < used; k++) {
		uint32_t c = cnt[k];
		cnt[k] = sum;
		sum += c;
	}
	struct evq_blk *b = l->head;
	while (b != NULL) {
		struct evq_blk *next = b->next;
		uint32_t m = blk_count(l, b);
		for (uint32_t i = 0; i < m; i++) {
			if (!pend_live(q, &b->ev[i])) {
				q->dead--;
				continue;
			}
			uint64_t k = ((uint64_t)b->ev[i].time_ns -
				      (uint64_t)l->min_ns) >> shift;
			q->run[cnt[k]++] = b->ev[i];
		}
		blk_free(q, b);
		b = next;
	}
	q->n = sum;
	list_init(l);
	evq_run_sort(q);
	return true;
}

/*
 * Bottom has grown past its limit (pushes before its bound): spread it into
 * a new deepest rung, which covers up to the old bound (its last bucket is
 * open-ended), so the routing stays exact.
 */
EVQ_COLD void evq_bottom_spread(struct evq *q)
{
	int64_t lo = bottom_first(q)->time_ns, hi = INT64_MIN;
	size_t len = bottom_len(q);

	if (q->n > q->head)
		hi = q->run[q->n - 1].time_ns;
	for (size_t i = 0; i < q->nlate; i++)
		if (q->late[i].time_ns > hi)
			hi = q->late[i].time_ns;
	q->bottom_limit = 2 * len;	/* do not retry until it doubles */
	if (lo == hi || q->nr == EVQ_RUNGS)
		return;
	struct evq_rung *r = rung_open(q, lo, hi, len, len / EVQ_BLK_EVS + 1);
	if (r == NULL)
		return;
	for (size_t i = q->head; i < q->n; i++) {
		if (pend_live(q, &q->run[i]))
			rung_put(q, r, &q->run[i]);
		else
			q->dead--;
	}
	for (size_t i = 0; i < q->nlate; i++) {
		if (pend_live(q, &q->late[i]))
			rung_put(q, r, &q->late[i]);
		else
			q->dead--;
	}
	q->head = q->n = q->nlate = 0;
}
