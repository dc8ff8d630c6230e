/*
 * evq_block.c -- the ladder queue's block pool and block lists.
 *
 * Top and every rung bucket are unsorted lists of 1 KiB blocks (31 events)
 * taken from a pool carved from 64 KiB slabs; blocks go back to the pool,
 * slabs only at evq_free.  Appending is inline in evq_int.h (list_reserve,
 * list_put); here are new tails, draining a list into bottom's run,
 * prefetching the next bucket, and compacting out cancelled entries.  Part
 * of the queue of evq.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/evq_int.h"

/* Have at least want blocks free; -1 if memory ran out first. */
int evq_pool_reserve(struct evq *q, size_t want)
{
	while (q->pool_free < want) {
		if (q->nslabs == q->slabs_cap) {
			size_t cap = q->slabs_cap ? 2 * q->slabs_cap : 16;
			void **s = realloc(q->slabs, cap * sizeof *s);
			if (s == NULL)
				return -1;
			q->slabs = s;
			q->slabs_cap = cap;
		}
		struct evq_blk *slab = aligned_alloc(EVQ_CACHE_LINE,
				(EVQ_SLAB_BYTES / sizeof(struct evq_blk)) * sizeof *slab);
		if (slab == NULL)
			return -1;
		q->slabs[q->nslabs++] = slab;
		for (size_t i = 0; i < (EVQ_SLAB_BYTES / sizeof(struct evq_blk)); i++) {
			slab[i].next = q->pool;
			q->pool = &slab[i];
		}
		q->pool_free += (EVQ_SLAB_BYTES / sizeof(struct evq_blk));
	}
	return 0;
}

/* Make room in l's tail for one more event; -1 if memory ran out. */
EVQ_COLD int evq_list_new_tail(struct evq *q, struct evq_list *l)
{
	if (q->pool_free == 0 && evq_pool_reserve(q, 1) != 0)
		return -1;
	struct evq_blk *b = q->pool;
	q->pool = b->next;
	q->pool_free--;
	if (q->pool != NULL)	/* the next new tail reads its link */
		evq_prefetch(q->pool, 1);
	b->next = NULL;
	if (l->tail != NULL)
		l->tail->next = b;
	else
		l->head = b;
	l->tail = b;
	l->tail_n = 0;
	return 0;
}

static inline void run_append(struct evq *q, void *to, const struct ev *x)
{
	(void)to;
	q->run[q->n++] = *x;
}

/* Move l's live entries to the run (it has room: the reserve); l empties. */
void evq_list_drain(struct evq *q, struct evq_list *l)
{
	list_take(q, l, run_append, NULL);
}

/* Fetch the lines of l's first block that hold events. */
void evq_list_prefetch_head(const struct evq_list *l)
{
	if (l->head == NULL)
		return;
	uint32_t m = blk_count(l, l->head);
	const char *p = (const char *)l->head;
	for (size_t off = 0; off <= m * sizeof(struct ev); off += EVQ_CACHE_LINE)
		evq_prefetch(p + off, 0);
}

/*
 * Fetch the pending bits of l's first events: l goes to bottom next, and a
 * pop's bit is a cache miss otherwise (see pend_prefetch).
 */
void evq_list_prefetch_pend(const struct evq *q, const struct evq_list *l)
{
	if (l->head == NULL)
		return;
	uint32_t m = blk_count(l, l->head);
	for (uint32_t i = 0; i < m && i < EVQ_BOTTOM_BATCH; i++)
		pend_prefetch(q, l->head->ev[i].id);
}

/* Keep only l's live entries, in place; emptied blocks go back to the pool. */
void evq_list_compact(struct evq *q, struct evq_list *l)
{
	struct evq_blk *w = l->head, *b = l->head;
	uint32_t wn = 0;
	size_t n = 0;

	for (; b != NULL; b = b->next) {
		uint32_t m = blk_count(l, b);
		for (uint32_t i = 0; i < m; i++) {
			if (!pend_test(pend_chunk(q, b->ev[i].id), b->ev[i].id)) {
				q->dead--;
				continue;
			}
			if (wn == EVQ_BLK_EVS) {
				w = w->next;
				wn = 0;
			}
			w->ev[wn++] = b->ev[i];
			n++;
		}
	}
	if (n == 0) {
		w = NULL;
		wn = EVQ_BLK_EVS;
	}
	b = w != NULL ? w->next : l->head;
	while (b != NULL) {
		struct evq_blk *next = b->next;
		blk_free(q, b);
		b = next;
	}
	if (w != NULL)
		w->next = NULL;
	else
		l->head = NULL;
	l->tail = w;
	l->tail_n = wn;
	l->n = n;
}
