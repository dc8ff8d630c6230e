/*
 * ev.c -- the event queue and the engine (see ev.h).
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
 * The engine adds a clock, the table of kinds and the run loop.  A model that
 * schedules into the past, with an unknown kind, or runs out of memory gets 0
 * back from ev_at/ev_after, and the engine remembers the first such error:
 * ev_run returns -1 with it as soon as the running handler returns (or at
 * once, if it happened outside a run), and every later ev_run too.  Handlers
 * therefore need not check every ev_at, and a bad schedule can never run
 * silently at the wrong time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/ev.h"

#define EVQ_CACHE_LINE 64
#define EVQ_MIN_CAP 64		/* bottom's first reserve, entries */
_Static_assert(sizeof(struct ev) == 32, "two events fill a cache line");

/*
 * Rare paths (new blocks and chunks, compaction) and the refill stay out of
 * line, so push and pop have few registers to save.
 */
#if defined(__GNUC__)
#define EVQ_COLD __attribute__((noinline, cold))
#define EVQ_NOINLINE __attribute__((noinline))
#else
#define EVQ_COLD
#define EVQ_NOINLINE
#endif

/*
 * Ladder constants, chosen with tests/bench/evq-hold-b (10^6 pending) and
 * cachegrind on the test machine (AMD EPYC, 64 KiB L1d, 1 MiB L2 a core):
 *  - 2048 buckets at most in a rung, 16384 events counting-sorted at most:
 *    at 10^6 pending the buckets at the front of rung 0 hold ~8000 events,
 *    sorted straight into the run, and a push touches 2048 bucket headers
 *    (48 B) and tail lines, within L2.  4096/8192 and 1024/16384 were
 *    10-20% slower (more tails missed; buckets too big to sort).
 *  - 1 KiB blocks: 4 KiB ones cost a third more L2 misses (a bucket of a
 *    fine rung holds a few events but takes a whole block); 512 B ones make
 *    the walk along a long bucket wait on each next block.
 *  - spreads to ~8 events a bucket, at most 32 insertion-sorted: ~16/48
 *    spent a third of all instructions in the insertion sort.
 */
#define EVQ_BLK_EVS 31		/* events in a 1 KiB block */
#define EVQ_SLAB_BYTES 65536	/* one pool allocation */
#define EVQ_RUNG_BUCKETS 2048
#define EVQ_RUNGS 8
#define EVQ_BOTTOM_BATCH 32
#define EVQ_BUCKET_EVS 8
#define EVQ_BOTTOM_MAX 4096
#define EVQ_SORT_BINS 16384	/* a bucket up to this size is counting-sorted */
/* A spread has more than EVQ_BOTTOM_BATCH events: at least 2 buckets. */
_Static_assert(EVQ_BOTTOM_BATCH / EVQ_BUCKET_EVS >= 2, "spreads must split");

struct evq_blk {
	struct evq_blk *next;
	char pad[sizeof(struct ev) - sizeof(struct evq_blk *)];
	struct ev ev[EVQ_BLK_EVS];
};
_Static_assert(sizeof(struct evq_blk) == (EVQ_BLK_EVS + 1) * sizeof(struct ev),
	       "a block is its events and a header of one event's size");

/* An unsorted list of events: full blocks, then the tail block. */
struct evq_list {
	struct evq_blk *head, *tail;
	size_t n;		/* entries, live and cancelled */
	uint32_t tail_n;	/* entries in the tail; EVQ_BLK_EVS when empty */
	int64_t min_ns, max_ns;	/* bounds of the times put in */
};

struct evq_rung {
	int64_t start_ns;
	unsigned shift;		/* bucket width is 2^shift ns */
	uint32_t nb, cur;	/* buckets in use; the next to consume */
	struct evq_list *b;	/* EVQ_RUNG_BUCKETS, allocated on first use */
};

struct evq_chunk {
	uint64_t *bits;		/* NULL once no id in the chunk is pending */
	uint32_t live;		/* pending ids in the chunk */
};

#define EVQ_CHUNK_SHIFT 16
#define EVQ_CHUNK_WORDS ((1u << EVQ_CHUNK_SHIFT) / 64)

struct evq {
	struct ev *run;		/* bottom: run[head..n) sorted by (time_ns, id) */
	size_t head, n;
	struct ev *late;	/* bottom: heap of pushes before the run's end */
	size_t nlate;
	size_t cap;		/* of run and late: >= all entries (the reserve) */
	size_t bottom_limit;	/* spread bottom when it outgrows this */
	struct evq_rung rung[EVQ_RUNGS];
	int nr;			/* rungs in use; rung[nr - 1] is the deepest */
	struct evq_list top;
	int64_t top_lo;		/* pushes at or after this go to top */
	struct evq_blk *pool;	/* free blocks, linked by next */
	size_t pool_free;
	void **slabs;
	size_t nslabs, slabs_cap;
	size_t live;		/* pending events */
	size_t dead;		/* cancelled entries still stored */
	uint64_t next_id;
	struct evq_chunk *dir;	/* dir[k] holds ids of chunk dir_base + k */
	size_t dir_n, dir_cap;
	uint64_t dir_base;
	uint32_t bins[EVQ_SORT_BINS];	/* counting sort's counts (64 KiB) */
};

/*
 * Prefetch the line at p.  GCC 12's dead-code pass deletes loops and
 * branches whose only statements are __builtin_prefetch (seen at -O2 in
 * list_drain); the empty asm that takes p marks the code as needed.
 */
static inline void evq_prefetch(const void *p, int for_write)
{
	if (for_write)
		__builtin_prefetch(p, 1);
	else
		__builtin_prefetch(p, 0);
	__asm__ volatile("" : : "r"(p));
}

/* --- bottom: a sorted run and a heap of late arrivals --------------------- */

/*
 * Branch-free on purpose: in the heap, which child is least is a coin toss
 * the branch predictor loses.
 */
static inline int ent_lt(const struct ev *a, const struct ev *b)
{
	return (a->time_ns < b->time_ns) |
	       ((a->time_ns == b->time_ns) & (a->id < b->id));
}

/* Grow bottom's two arrays to new_cap entries each; the run moves to 0. */
static EVQ_COLD int bottom_grow(struct evq *q, size_t new_cap)
{
	struct ev *run = malloc(new_cap * sizeof *run);
	struct ev *late = malloc(new_cap * sizeof *late);

	if (run == NULL || late == NULL) {
		free(run);
		free(late);
		return -1;
	}
	if (q->n > q->head)
		memcpy(run, q->run + q->head, (q->n - q->head) * sizeof *run);
	if (q->nlate > 0)
		memcpy(late, q->late, q->nlate * sizeof *late);
	free(q->run);
	free(q->late);
	q->run = run;
	q->late = late;
	q->n -= q->head;
	q->head = 0;
	q->cap = new_cap;
	return 0;
}

/*
 * Sort the run by (time_ns, id).  Insertion sort: the run is one small
 * bucket, often in order already (buckets fill in id order).
 */
static void run_sort(struct evq *q)
{
	struct ev *v = q->run;

	for (size_t i = q->head + 1; i < q->n; i++) {
		if (!ent_lt(&v[i], &v[i - 1]))
			continue;
		struct ev x = v[i];
		size_t j = i;
		do {
			v[j] = v[j - 1];
			j--;
		} while (j > q->head && ent_lt(&x, &v[j - 1]));
		v[j] = x;
	}
}

/* The late heap: 4-ary, children of i at 4i+1..4i+4, least (time, id) at 0. */
static void late_sift_up(struct ev *h, size_t i, const struct ev *x)
{
	while (i > 0) {
		size_t p = (i - 1) / 4;
		if (!ent_lt(x, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = *x;
}

/* Index of the least of the children c..end-1 (end > c). */
static inline size_t late_min_child(const struct ev *h, size_t c, size_t end)
{
	if (end - c == 4) {
		/* A tournament: two independent comparisons, then one. */
		size_t a = c + (size_t)ent_lt(&h[c + 1], &h[c]);
		size_t b = c + 2 + (size_t)ent_lt(&h[c + 3], &h[c + 2]);
		return ent_lt(&h[b], &h[a]) ? b : a;
	}
	size_t m = c;
	for (size_t k = c + 1; k < end; k++)
		if (ent_lt(&h[k], &h[m]))
			m = k;
	return m;
}

/* Put x into the hole at i and move it down to its place among n entries. */
static void late_sift_down(struct ev *h, size_t n, size_t i, const struct ev *x)
{
	for (;;) {
		size_t c = 4 * i + 1;
		if (c >= n)
			break;
		size_t end = c + 4 < n ? c + 4 : n;
		size_t m = late_min_child(h, c, end);
		if (!ent_lt(&h[m], x))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = *x;
}

static void late_remove_root(struct evq *q)
{
	size_t n = --q->nlate;

	if (n > 0) {
		struct ev last = q->late[n];
		late_sift_down(q->late, n, 0, &last);
	}
}

/* Order the late heap's entries bottom-up, O(n). */
static void late_build(struct evq *q)
{
	if (q->nlate < 2)
		return;
	for (size_t i = (q->nlate - 2) / 4 + 1; i-- > 0;) {
		struct ev x = q->late[i];
		late_sift_down(q->late, q->nlate, i, &x);
	}
}

static inline size_t bottom_len(const struct evq *q)
{
	return q->n - q->head + q->nlate;
}

/*
 * The earliest entry of bottom (not empty): the run's first or the late
 * heap's root.
 */
static inline struct ev *bottom_first(struct evq *q)
{
	if (q->nlate > 0 && (q->head == q->n ||
			     ent_lt(&q->late[0], &q->run[q->head])))
		return &q->late[0];
	return &q->run[q->head];
}

/* Remove what bottom_first returned. */
static inline void bottom_drop(struct evq *q, const struct ev *first)
{
	if (first == q->late)
		late_remove_root(q);
	else
		q->head++;
}

/* --- the pending bitmap -------------------------------------------------- */

/* The chunk holding id's bit, or NULL when no id of that chunk is pending. */
static struct evq_chunk *pend_chunk(const struct evq *q, uint64_t id)
{
	uint64_t c = id >> EVQ_CHUNK_SHIFT;

	if (c < q->dir_base || c - q->dir_base >= q->dir_n)
		return NULL;
	struct evq_chunk *ch = &q->dir[c - q->dir_base];
	return ch->bits != NULL ? ch : NULL;
}

static bool pend_test(const struct evq_chunk *ch, uint64_t id)
{
	uint64_t bit = id & ((UINT64_C(1) << EVQ_CHUNK_SHIFT) - 1);

	return ch != NULL && (ch->bits[bit / 64] >> (bit % 64) & 1);
}

/* Is entry x live?  Only asked while dead entries exist. */
static bool pend_live(const struct evq *q, const struct ev *x)
{
	return q->dead == 0 || pend_test(pend_chunk(q, x->id), x->id);
}

/*
 * The bitmap spans every id from the oldest pending one, megabytes in a long
 * run, so the pop's bit is a cache miss: the bucket that goes to bottom
 * next fetches its bits ahead, while the events before it are popped.
 */
static inline void pend_prefetch(const struct evq *q, uint64_t id)
{
	struct evq_chunk *ch = pend_chunk(q, id);
	uint64_t bit = id & ((UINT64_C(1) << EVQ_CHUNK_SHIFT) - 1);

	if (ch != NULL)
		evq_prefetch(&ch->bits[bit / 64], 1);
}

/* The chunk's last pending id went: free it, unless it is the newest. */
static EVQ_COLD void pend_chunk_empty(struct evq *q, struct evq_chunk *ch)
{
	/* The newest chunk stays: the next pushes set bits in it. */
	if (ch != &q->dir[q->dir_n - 1]) {
		free(ch->bits);
		ch->bits = NULL;
	}
}

static inline void pend_clear(struct evq *q, struct evq_chunk *ch, uint64_t id)
{
	uint64_t bit = id & ((UINT64_C(1) << EVQ_CHUNK_SHIFT) - 1);

	ch->bits[bit / 64] &= ~(UINT64_C(1) << (bit % 64));
	if (--ch->live == 0)
		pend_chunk_empty(q, ch);
	q->live--;
}

/* Make room for one more chunk entry, dropping freed ones at the front. */
static int pend_dir_room(struct evq *q)
{
	if (q->dir_n < q->dir_cap)
		return 0;
	size_t lo = 0;
	while (lo < q->dir_n && q->dir[lo].bits == NULL)
		lo++;
	if (lo > 0 && lo >= q->dir_n / 2) {
		memmove(q->dir, q->dir + lo, (q->dir_n - lo) * sizeof *q->dir);
		q->dir_n -= lo;
		q->dir_base += lo;
		return 0;
	}
	size_t cap = q->dir_cap ? 2 * q->dir_cap : 8;
	struct evq_chunk *dir = realloc(q->dir, cap * sizeof *dir);
	if (dir == NULL)
		return -1;
	q->dir = dir;
	q->dir_cap = cap;
	return 0;
}

/* Mark id (always q->next_id) pending, opening a new chunk when it starts one. */
/* Open the chunk after the newest (ids are consecutive). */
static EVQ_COLD int pend_new_chunk(struct evq *q)
{
	if (pend_dir_room(q) != 0)
		return -1;
	uint64_t *bits = calloc(EVQ_CHUNK_WORDS, sizeof *bits);
	if (bits == NULL)
		return -1;
	struct evq_chunk *prev = q->dir_n > 0 ? &q->dir[q->dir_n - 1] : NULL;
	if (prev != NULL && prev->live == 0) {
		free(prev->bits);
		prev->bits = NULL;
	}
	q->dir[q->dir_n++] = (struct evq_chunk){ bits, 0 };
	return 0;
}

static inline int pend_add(struct evq *q, uint64_t id)
{
	uint64_t c = id >> EVQ_CHUNK_SHIFT;

	if (c - q->dir_base >= q->dir_n && pend_new_chunk(q) != 0)
		return -1;
	struct evq_chunk *ch = &q->dir[c - q->dir_base];
	uint64_t bit = id & ((UINT64_C(1) << EVQ_CHUNK_SHIFT) - 1);

	ch->bits[bit / 64] |= UINT64_C(1) << (bit % 64);
	ch->live++;
	q->live++;
	return 0;
}

/* --- the block pool and block lists -------------------------------------- */

/* Have at least want blocks free; -1 if memory ran out first. */
static int pool_reserve(struct evq *q, size_t want)
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

static void blk_free(struct evq *q, struct evq_blk *b)
{
	b->next = q->pool;
	q->pool = b;
	q->pool_free++;
}

static void list_init(struct evq_list *l)
{
	*l = (struct evq_list){ NULL, NULL, 0, EVQ_BLK_EVS, INT64_MAX, INT64_MIN };
}

/* Make room in l's tail for one more event; -1 if memory ran out. */
static EVQ_COLD int list_new_tail(struct evq *q, struct evq_list *l)
{
	if (q->pool_free == 0 && pool_reserve(q, 1) != 0)
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

static inline int list_reserve(struct evq *q, struct evq_list *l)
{
	return l->tail_n < EVQ_BLK_EVS ? 0 : list_new_tail(q, l);
}

/* Append x after list_reserve made room. */
static inline void list_put(struct evq_list *l, const struct ev *x)
{
	l->tail->ev[l->tail_n++] = *x;
	l->n++;
	/*
	 * A bucket's next push comes thousands of pushes later, into a line
	 * not yet written: fetch it now, not then.
	 */
	if (l->tail_n + 1 < EVQ_BLK_EVS)
		evq_prefetch(&l->tail->ev[l->tail_n + 1], 1);
	if (x->time_ns < l->min_ns)
		l->min_ns = x->time_ns;
	if (x->time_ns > l->max_ns)
		l->max_ns = x->time_ns;
}

static inline uint32_t blk_count(const struct evq_list *l,
				 const struct evq_blk *b)
{
	return b == l->tail ? l->tail_n : EVQ_BLK_EVS;
}

/* Blocks are scattered: fetch the next one while this one is read. */
static inline void blk_prefetch(const struct evq_blk *b)
{
	if (b == NULL)
		return;
	for (size_t off = 0; off < sizeof *b; off += EVQ_CACHE_LINE)
		evq_prefetch((const char *)b + off, 0);
}

/* Move l's live entries to the run (it has room: the reserve); l empties. */
static void list_drain(struct evq *q, struct evq_list *l)
{
	struct evq_blk *b = l->head;

	while (b != NULL) {
		struct evq_blk *next = b->next;
		uint32_t m = blk_count(l, b);
		blk_prefetch(next);
		for (uint32_t i = 0; i < m; i++) {
			if (pend_live(q, &b->ev[i]))
				q->run[q->n++] = b->ev[i];
			else
				q->dead--;
		}
		blk_free(q, b);
		b = next;
	}
	list_init(l);
}

/* Fetch the lines of l's first block that hold events. */
static void list_prefetch_head(const struct evq_list *l)
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
static void list_prefetch_pend(const struct evq *q, const struct evq_list *l)
{
	if (l->head == NULL)
		return;
	uint32_t m = blk_count(l, l->head);
	for (uint32_t i = 0; i < m && i < EVQ_BOTTOM_BATCH; i++)
		pend_prefetch(q, l->head->ev[i].id);
}

/* Keep only l's live entries, in place; emptied blocks go back to the pool. */
static void list_compact(struct evq *q, struct evq_list *l)
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

/* --- rungs ----------------------------------------------------------------- */

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
	if (pool_reserve(q, nb + extra_blks) != 0)
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

/*
 * Spread list l over a new deepest rung; false (l unchanged) if it has too
 * few events, only one time, or memory is short.  Source blocks are freed
 * as they are read, so one spare block a bucket is enough.
 */
static bool list_spread(struct evq *q, struct evq_list *l)
{
	if (l->n <= EVQ_BOTTOM_BATCH || l->min_ns == l->max_ns ||
	    q->nr == EVQ_RUNGS)
		return false;
	struct evq_rung *r = rung_open(q, l->min_ns, l->max_ns, l->n, 1);
	if (r == NULL)
		return false;
	struct evq_blk *b = l->head;
	while (b != NULL) {
		struct evq_blk *next = b->next;
		uint32_t m = blk_count(l, b);
		blk_prefetch(next);
		for (uint32_t i = 0; i < m; i++) {
			if (pend_live(q, &b->ev[i]))
				rung_put(q, r, &b->ev[i]);
			else
				q->dead--;
		}
		blk_free(q, b);
		b = next;
	}
	list_init(l);
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
static bool list_sort_to_run(struct evq *q, struct evq_list *l)
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
	run_sort(q);
	return true;
}

/*
 * Move list l into bottom (sorted, or to be sorted by the caller) or spread
 * it over a new rung; true if it left the run sorted.
 */
static bool evq_take(struct evq *q, struct evq_list *l)
{
	if (l->n > EVQ_BOTTOM_BATCH && l->n <= EVQ_SORT_BINS &&
	    l->min_ns != l->max_ns && list_sort_to_run(q, l))
		return true;
	if (!list_spread(q, l))
		list_drain(q, l);
	return false;
}

/*
 * Bottom has grown past its limit (pushes before its bound): spread it into
 * a new deepest rung, which covers up to the old bound (its last bucket is
 * open-ended), so the routing stays exact.
 */
static EVQ_COLD void bottom_spread(struct evq *q)
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
			if (!list_spread(q, &q->top))
				list_drain(q, &q->top);
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
				list_prefetch_head(&r->b[r->cur + 1]);
			if (r->cur < r->nb)
				list_prefetch_pend(q, &r->b[r->cur]);
		}
	}
	if (sorted) {
		/* done */
	} else if (q->n <= EVQ_BOTTOM_BATCH) {
		run_sort(q);
	} else {
		/* A bucket that could not be spread: a heap, not O(n^2) sorting. */
		memcpy(q->late, q->run, q->n * sizeof *q->late);
		q->nlate = q->n;
		q->n = 0;
		late_build(q);
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
	late_build(q);
	list_compact(q, &q->top);
	for (int i = 0; i < q->nr; i++)
		for (uint32_t k = q->rung[i].cur; k < q->rung[i].nb; k++)
			list_compact(q, &q->rung[i].b[k]);
}

/* --- the queue API ------------------------------------------------------- */

struct evq *evq_new(void)
{
	struct evq *q = calloc(1, sizeof *q);

	if (q == NULL)
		return NULL;
	if (bottom_grow(q, EVQ_MIN_CAP) != 0) {
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
	if (q->live + q->dead == q->cap && bottom_grow(q, q->cap * 2) != 0)
		return -1;
	return 0;
}

/*
 * A push before bottom's bound.  At or after the run's last event (a burst
 * at the current time) it extends the run; else it joins the late heap.
 * A bottom grown too big is spread.
 */
static EVQ_COLD void bottom_push(struct evq *q, const struct ev *x)
{
	if (q->head == q->n || !ent_lt(x, &q->run[q->n - 1])) {
		if (q->n == q->cap) {	/* pops left room at the front */
			memmove(q->run, q->run + q->head,
				(q->n - q->head) * sizeof *q->run);
			q->n -= q->head;
			q->head = 0;
		}
		q->run[q->n++] = *x;
	} else {
		late_sift_up(q->late, q->nlate++, x);
	}
	if (bottom_len(q) > q->bottom_limit)
		bottom_spread(q);
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
		bottom_push(q, &x);
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

/* --- the engine ---------------------------------------------------------- */

struct ev_kind_def {
	char *name;
	ev_handler fn;
	void *ctx;
};

struct ev_sim {
	struct evq *q;
	int64_t now_ns;
	uint64_t handled;
	bool stop;
	int nkinds;
	struct ev_kind_def kinds[EV_KINDS_MAX];
	struct err fault;	/* first scheduling error; sticky */
};

struct ev_sim *ev_sim_new(void)
{
	struct ev_sim *sim = calloc(1, sizeof *sim);

	if (sim == NULL)
		return NULL;
	sim->q = evq_new();
	if (sim->q == NULL) {
		free(sim);
		return NULL;
	}
	return sim;
}

void ev_sim_free(struct ev_sim *sim)
{
	if (sim == NULL)
		return;
	for (int k = 0; k < sim->nkinds; k++)
		free(sim->kinds[k].name);
	evq_free(sim->q);
	free(sim);
}

/*
 * Register a kind; returns its number (0, 1, ... in registration order) or
 * -1 when the name is missing or taken, fn is NULL, the table is full or
 * memory is short.  The failure is also kept for ev_run to report.
 */
int ev_kind(struct ev_sim *sim, const char *name, ev_handler fn, void *ctx)
{
	if (name == NULL || fn == NULL)
		return err_set(&sim->fault, ERR_RUN,
			       "ev_kind: %s missing", name ? "handler" : "name");
	for (int k = 0; k < sim->nkinds; k++)
		if (strcmp(sim->kinds[k].name, name) == 0)
			return err_set(&sim->fault, ERR_RUN,
				       "ev_kind: '%s' registered twice", name);
	if (sim->nkinds == EV_KINDS_MAX)
		return err_set(&sim->fault, ERR_RUN,
			       "ev_kind: '%s': more than %d event kinds",
			       name, EV_KINDS_MAX);
	char *copy = strdup(name);
	if (copy == NULL)
		return err_set(&sim->fault, ERR_RUN, "ev_kind: out of memory");
	sim->kinds[sim->nkinds] = (struct ev_kind_def){ copy, fn, ctx };
	return sim->nkinds++;
}

/* The registered name, or NULL for a number that was never returned. */
const char *ev_kind_name(const struct ev_sim *sim, int kind)
{
	if (kind < 0 || kind >= sim->nkinds)
		return NULL;
	return sim->kinds[kind].name;
}

int64_t ev_now(const struct ev_sim *sim)
{
	return sim->now_ns;
}

/* Schedule at an absolute time >= ev_now(); 0 (and a kept error) if not. */
uint64_t ev_at(struct ev_sim *sim, int64_t time_ns, int kind, uint64_t arg)
{
	if (kind < 0 || kind >= sim->nkinds) {
		err_set(&sim->fault, ERR_RUN, "ev_at: unknown event kind %d", kind);
		return 0;
	}
	if (time_ns < sim->now_ns) {
		err_set(&sim->fault, ERR_RUN,
			"ev_at: %s at %lld ns is before now (%lld ns)",
			sim->kinds[kind].name, (long long)time_ns,
			(long long)sim->now_ns);
		return 0;
	}
	uint64_t id = evq_push(sim->q, time_ns, kind, arg);
	if (id == 0)
		err_set(&sim->fault, ERR_RUN, "ev_at: %s: out of memory",
			sim->kinds[kind].name);
	return id;
}

/* Schedule delay_ns >= 0 from now; a delay past INT64_MAX is an error. */
uint64_t ev_after(struct ev_sim *sim, int64_t delay_ns, int kind, uint64_t arg)
{
	if (delay_ns < 0 || delay_ns > INT64_MAX - sim->now_ns) {
		err_set(&sim->fault, ERR_RUN,
			"ev_after: %s: delay %lld ns is negative or overflows the clock",
			ev_kind_name(sim, kind) ? ev_kind_name(sim, kind) : "?",
			(long long)delay_ns);
		return 0;
	}
	return ev_at(sim, sim->now_ns + delay_ns, kind, arg);
}

bool ev_cancel(struct ev_sim *sim, uint64_t id)
{
	return evq_cancel(sim->q, id);
}

void ev_stop(struct ev_sim *sim)
{
	sim->stop = true;
}

uint64_t ev_count(const struct ev_sim *sim)
{
	return sim->handled;
}

static int ev_fault(struct ev_sim *sim, struct err *e)
{
	return err_set(e, sim->fault.status, "%s", sim->fault.msg);
}

/*
 * Run events with time <= until_ns, each after the clock moves to its time.
 * Returns 0 when the bound is reached, the queue empties or a handler calls
 * ev_stop(); -1 with e filled when a handler fails (its message unchanged,
 * so "FILE:LINE: ..." stays at the front) or a scheduling error was kept.
 * On a return at the bound with events still pending the clock reads
 * until_ns; when the queue ran dry it stays at the last event, so running
 * "to INT64_MAX" leaves a usable clock.  ev_stop() outside a run does nothing.
 */
int ev_run(struct ev_sim *sim, int64_t until_ns, struct err *e)
{
	struct err local = { 0 };
	struct ev ev;

	if (e == NULL)
		e = &local;
	if (sim->fault.status != ERR_OK)
		return ev_fault(sim, e);
	sim->stop = false;
	for (;;) {
		int64_t t;
		if (!evq_peek_time(sim->q, &t))
			break;
		if (t > until_ns) {
			if (until_ns > sim->now_ns)
				sim->now_ns = until_ns;
			break;
		}
		evq_pop(sim->q, &ev);
		sim->now_ns = ev.time_ns;
		sim->handled++;
		const struct ev_kind_def *k = &sim->kinds[ev.kind];
		if (k->fn(sim, &ev, k->ctx, e) != 0) {
			if (e->status == ERR_OK)
				err_set(e, ERR_RUN,
					"event %s at %lld ns failed without a message",
					k->name, (long long)ev.time_ns);
			sim->stop = false;
			return -1;
		}
		if (sim->fault.status != ERR_OK)
			return ev_fault(sim, e);
		if (sim->stop)
			break;
	}
	sim->stop = false;
	return 0;
}
