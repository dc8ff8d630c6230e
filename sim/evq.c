/*
 * evq.c -- the event queue (see ev.h): its API, routing and refill.
 *
 * The queue is a ladder queue (after Tang, Goh and Thng, "Ladder queue: an
 * O(1) priority queue structure for large-scale discrete event simulation",
 * ACM TOMACS 15(3), 2005), shaped for a machine whose random memory access
 * is slow (on the 2-core test machine 24 ns within 1 MB, 230 ns within
 * 8 MB, 330 ns within 128 MB).  A heap of 10^6 events pays about ten
 * dependent cache misses a pop; here an event is appended to an unsorted
 * bucket whose tail line is hot, moved in sequential passes, and sorted
 * only among a few dozen.  Three tiers, by time:
 *
 *  - bottom: every pending event earlier than the deepest rung's next
 *    bucket (or than top, with no rung), as a run sorted by (time_ns, id)
 *    plus a 4-ary heap of late arrivals (pushes before the run's last
 *    event).  Pops come only from here: the run's first or the heap's root.
 *  - rungs: a stack of up to EVQ_RUNGS levels.  A rung splits a time range
 *    into at most EVQ_RUNG_BUCKETS buckets of one power-of-two width (a
 *    shift, no division); bucket k holds [start + k*w, start + (k+1)*w),
 *    the last one everything up to the range's end.  A bucket is an
 *    unsorted list of 1 KiB blocks from a pool.  Rung i+1 is the spread of
 *    one bucket of rung i (or of an overgrown bottom).
 *  - top: an unsorted block list of the events at or after top_lo, with
 *    their least and greatest time.
 *
 * A push goes to top, else to the first rung whose unconsumed buckets
 * cover its time, else to bottom.  When bottom is empty, the deepest rung's
 * next non-empty bucket becomes the run: up to EVQ_BOTTOM_BATCH events are
 * insertion-sorted; up to EVQ_SORT_BINS are counting-sorted on their time
 * (two passes over the bucket, the second from cache) unless they cluster;
 * a bigger or clustered bucket is spread over a new, finer rung (about
 * EVQ_BUCKET_EVS events a bucket, over the bucket's own [least, greatest]
 * time).  With no rung left, top is spread into rung 0 the same way (never
 * sorted into bottom: its whole span would then be before bottom's bound,
 * and later pushes would all go to the late heap) and top_lo moves past
 * its greatest time.  The price of sorting a whole bucket into the run:
 * pushes that land in the bucket being popped (in the hold benchmark at
 * 10^6 pending, under 1% of them) go to the late heap.
 *
 * Order is exactly (time_ns, id): the tiers and buckets partition time, so
 * events of equal time are always in the same one, and bottom sorts by
 * (time_ns, id) whatever order they arrive in.  Pushes before bottom's
 * bound (the bare queue allows any time) go into bottom; if bottom outgrows
 * EVQ_BOTTOM_MAX and twice its size at the last refill, it is spread into
 * a new rung too.  Equal times cannot be spread: a burst of them ends in
 * bottom, in the run (a burst at the current time appends) or, beyond
 * EVQ_BOTTOM_BATCH, in the heap: O(log n) then, never worse.
 *
 * Pending ids are a bitmap in chunks of 2^16 ids (8 KiB).  Ids are
 * consecutive, so a push sets the next bit; a pop or cancel clears one.  A
 * chunk is freed when none of its ids is pending, so memory follows the span
 * of pending ids, not the number of events ever pushed.
 *
 * Cancellation is lazy and O(1): it clears the id's bit and leaves the entry
 * where it is; bottom's front, a bucket being moved, or a compaction drops
 * entries whose bit is clear (checked only while such dead entries exist).
 * evq_len() is exact at all times.  Before the entry count outgrows the
 * reserve (below), if dead entries outnumber live ones every tier is
 * compacted, so cancellations alone never make the queue grow.
 *
 * A pop must not fail, yet it moves events: so bottom's arrays always have
 * room for every entry in the queue (reserved by push, doubling; pages never
 * touched cost no memory), and a spread first makes sure the pool has a
 * block free for each new bucket, else it moves the bucket into bottom.
 *
 * Cost: push O(rungs) (in practice 1-3 checks), pop amortized O(1) when
 * times are spread out, O(log n) at worst; cancel O(1).  Ids start at 1 and
 * are never reused; 0 means "no event" (push failed for lack of memory).
 *
 * Files: this one routes pushes, refills bottom and holds the API; the
 * tiers are evq_bottom.c (run and late heap), evq_rung.c (spreads and the
 * counting sort), evq_block.c (block pool and lists), evq_pend.c (pending
 * bitmap), sharing the private evq_int.h.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/evq_int.h"

/* The list a push at time t goes to, or NULL for bottom. */
static inline struct evq_list *evq_route(struct evq *q, int64_t t)
{
	if (t >= q->top_lo)
		return &q->top;
	for (int i = 0; i < q->nr; i++) {
		struct evq_rung *r = &q->rung[i];
		/* Before this rung; a deeper one, spread from bottom, may start earlier. */
		if (t < r->start_ns)
			continue;
		uint64_t k = ((uint64_t)t - (uint64_t)r->start_ns) >> r->shift;
		if (k >= r->nb)
			k = r->nb - 1;	/* the last bucket runs to the range's end */
		if (k >= r->cur)
			return &r->b[k];
	}
	return NULL;
}

/*
 * Move list l into bottom (sorted, or to be sorted by the caller) or spread
 * it over a new rung; true if it left the run sorted.
 */
static bool evq_take(struct evq *q, struct evq_list *l)
{
	if (l->n > EVQ_BOTTOM_BATCH && l->n <= EVQ_SORT_BINS &&
	    l->min_ns != l->max_ns && evq_list_sort_to_run(q, l))
		return true;
	if (!evq_list_spread(q, l))
		evq_list_drain(q, l);
	return false;
}

/*
 * Bottom is empty: fill it from the deepest rung's next non-empty bucket,
 * spreading big buckets, and from top when no rung is left.  False when the
 * queue holds nothing.
 */
static EVQ_NOINLINE bool evq_refill(struct evq *q)
{
	bool sorted = false;

	q->head = q->n = 0;
	while (q->n == 0) {
		if (q->nr == 0) {
			if (q->top.n == 0) {
				q->top_lo = INT64_MIN;	/* empty: start afresh */
				return false;
			}
			int64_t max = q->top.max_ns;
			q->top_lo = max == INT64_MAX ? max : max + 1;
			/*
			 * Top always goes to a rung: sorted into bottom, its
			 * whole span would be before bottom's bound, and every
			 * push would go to the late heap.
			 */
			sorted = false;
			if (!evq_list_spread(q, &q->top))
				evq_list_drain(q, &q->top);
			continue;
		}
		struct evq_rung *r = &q->rung[q->nr - 1];
		while (r->cur < r->nb && r->b[r->cur].n == 0)
			r->cur++;
		if (r->cur == r->nb) {
			q->nr--;
			continue;
		}
		struct evq_list *l = &r->b[r->cur++];
		sorted = evq_take(q, l);
		if (q->n > 0 && !sorted) {
			/*
			 * Pipeline the next buckets: the one after next is
			 * fetched, the next one (fetched last time) fetches
			 * its pending bits.
			 */
			if (r->cur + 1 < r->nb)
				evq_list_prefetch_head(&r->b[r->cur + 1]);
			if (r->cur < r->nb)
				evq_list_prefetch_pend(q, &r->b[r->cur]);
		}
	}
	if (sorted) {
		/* done */
	} else if (q->n <= EVQ_BOTTOM_BATCH) {
		evq_run_sort(q);
	} else {
		/* A bucket that could not be spread: a heap, not O(n^2) sorting. */
		memcpy(q->late, q->run, q->n * sizeof *q->late);
		q->nlate = q->n;
		q->n = 0;
		evq_late_build(q);
	}
	q->bottom_limit = 2 * bottom_len(q) > EVQ_BOTTOM_MAX ?
			  2 * bottom_len(q) : EVQ_BOTTOM_MAX;
	return true;
}

/* Drop cancelled entries from every tier; the late heap is rebuilt, O(n). */
static EVQ_COLD void evq_compact(struct evq *q)
{
	size_t n = 0;

	for (size_t i = q->head; i < q->n; i++)
		if (pend_test(pend_chunk(q, q->run[i].id), q->run[i].id))
			q->run[n++] = q->run[i];
	q->dead -= q->n - q->head - n;
	q->head = 0;
	q->n = n;
	n = 0;
	for (size_t i = 0; i < q->nlate; i++)
		if (pend_test(pend_chunk(q, q->late[i].id), q->late[i].id))
			q->late[n++] = q->late[i];
	q->dead -= q->nlate - n;
	q->nlate = n;
	evq_late_build(q);
	evq_list_compact(q, &q->top);
	for (int i = 0; i < q->nr; i++)
		for (uint32_t k = q->rung[i].cur; k < q->rung[i].nb; k++)
			evq_list_compact(q, &q->rung[i].b[k]);
}

/* --- the queue API ------------------------------------------------------- */

struct evq *evq_new(void)
{
	struct evq *q = calloc(1, sizeof *q);

	if (q == NULL)
		return NULL;
	if (evq_bottom_grow(q, EVQ_MIN_CAP) != 0) {
		free(q);
		return NULL;
	}
	q->bottom_limit = EVQ_BOTTOM_MAX;
	list_init(&q->top);
	q->top_lo = INT64_MIN;
	q->next_id = 1;
	return q;
}

void evq_free(struct evq *q)
{
	if (q == NULL)
		return;
	for (size_t k = 0; k < q->dir_n; k++)
		free(q->dir[k].bits);
	free(q->dir);
	for (size_t k = 0; k < q->nslabs; k++)
		free(q->slabs[k]);
	free(q->slabs);
	for (int i = 0; i < EVQ_RUNGS; i++)
		free(q->rung[i].b);
	free(q->run);
	free(q->late);
	free(q);
}

/* The reserve is full: compact if that frees room, else double it. */
static EVQ_COLD int evq_make_room(struct evq *q)
{
	/* Garbage first: growing for cancelled entries wastes memory. */
	if (q->dead > q->live)
		evq_compact(q);
	if (q->live + q->dead == q->cap && evq_bottom_grow(q, q->cap * 2) != 0)
		return -1;
	return 0;
}

uint64_t evq_push(struct evq *q, int64_t time_ns, int kind, uint64_t arg)
{
	if (q->live + q->dead == q->cap && evq_make_room(q) != 0)
		return 0;
	struct evq_list *l = evq_route(q, time_ns);
	if (l != NULL && list_reserve(q, l) != 0)
		return 0;
	if (pend_add(q, q->next_id) != 0)
		return 0;
	struct ev x = { .time_ns = time_ns, .id = q->next_id++,
			.kind = kind, .arg = arg };

	if (l != NULL)
		list_put(l, &x);
	else
		evq_bottom_push(q, &x);
	return x.id;
}

/* Discard cancelled entries at the front; the first live event, or NULL. */
static inline struct ev *evq_settle(struct evq *q)
{
	for (;;) {
		if (bottom_len(q) == 0 && !evq_refill(q))
			return NULL;
		struct ev *first = bottom_first(q);
		if (pend_live(q, first))
			return first;
		bottom_drop(q, first);
		q->dead--;
	}
}

bool evq_pop(struct evq *q, struct ev *out)
{
	struct ev *first = evq_settle(q);

	if (first == NULL)
		return false;
	*out = *first;
	bottom_drop(q, first);
	/* A long run: fetch the pending bit of the pop 16 ahead (see pend_prefetch). */
	if (q->head + 16 < q->n)
		pend_prefetch(q, q->run[q->head + 16].id);
	/* No dead entry is first after settling, so the chunk exists. */
	pend_clear(q, pend_chunk(q, out->id), out->id);
	return true;
}

bool evq_peek_time(struct evq *q, int64_t *time_ns)
{
	struct ev *first = evq_settle(q);

	if (first == NULL)
		return false;
	*time_ns = first->time_ns;
	return true;
}

bool evq_cancel(struct evq *q, uint64_t id)
{
	struct evq_chunk *ch = pend_chunk(q, id);

	if (!pend_test(ch, id))
		return false;
	pend_clear(q, ch, id);
	q->dead++;
	return true;
}

size_t evq_len(const struct evq *q)
{
	return q->live;
}
