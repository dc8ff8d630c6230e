/*
 * evq_int.h -- the ladder queue's insides, shared by its files.
 *
 * Private: only sim/evq.c, sim/evq_bottom.c, sim/evq_pend.c, sim/evq_block.c
 * and sim/evq_rung.c include it; everyone else uses the evq_* API of ev.h.
 * It holds the tuning constants, the structs (struct evq and its parts) and
 * the small helpers that push, pop and the refill call per event: those are
 * static inline here so that each file's hot loop inlines them, as when the
 * queue was one file.  What each tier does is told in evq.c's header.
 */
#ifndef SIM_EVQ_INT_H
#define SIM_EVQ_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
 * evq_list_drain); the empty asm that takes p marks the code as needed.
 */
static inline void evq_prefetch(const void *p, int for_write)
{
	if (for_write)
		__builtin_prefetch(p, 1);
	else
		__builtin_prefetch(p, 0);
	__asm__ volatile("" : : "r"(p));
}

/* --- out of line, in the files named ------------------------------------- */

/* evq_bottom.c: the sorted run and the late heap. */
int EVQ_COLD evq_bottom_grow(struct evq *q, size_t new_cap);
void evq_run_sort(struct evq *q);
void evq_late_sift_up(struct ev *h, size_t i, const struct ev *x);
void evq_late_sift_down(struct ev *h, size_t n, size_t i, const struct ev *x);
void evq_late_build(struct evq *q);
void EVQ_COLD evq_bottom_push(struct evq *q, const struct ev *x);

/* evq_pend.c: the pending bitmap's chunks. */
void EVQ_COLD evq_pend_chunk_empty(struct evq *q, struct evq_chunk *ch);
int EVQ_COLD evq_pend_new_chunk(struct evq *q);

/* evq_block.c: the block pool and block lists. */
int evq_pool_reserve(struct evq *q, size_t want);
int EVQ_COLD evq_list_new_tail(struct evq *q, struct evq_list *l);
void evq_list_drain(struct evq *q, struct evq_list *l);
void evq_list_prefetch_head(const struct evq_list *l);
void evq_list_prefetch_pend(const struct evq *q, const struct evq_list *l);
void evq_list_compact(struct evq *q, struct evq_list *l);

/* evq_rung.c: spreading over a new rung, counting-sorting into the run. */
bool evq_list_spread(struct evq *q, struct evq_list *l);
bool evq_list_sort_to_run(struct evq *q, struct evq_list *l);
void EVQ_COLD evq_bottom_spread(struct evq *q);

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

static inline void late_remove_root(struct evq *q)
{
	size_t n = --q->nlate;

	if (n > 0) {
		struct ev last = q->late[n];
		evq_late_sift_down(q->late, n, 0, &last);
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
static inline struct evq_chunk *pend_chunk(const struct evq *q, uint64_t id)
{
	uint64_t c = id >> EVQ_CHUNK_SHIFT;

	if (c < q->dir_base || c - q->dir_base >= q->dir_n)
		return NULL;
	struct evq_chunk *ch = &q->dir[c - q->dir_base];
	return ch->bits != NULL ? ch : NULL;
}

static inline bool pend_test(const struct evq_chunk *ch, uint64_t id)
{
	uint64_t bit = id & ((UINT64_C(1) << EVQ_CHUNK_SHIFT) - 1);

	return ch != NULL && (ch->bits[bit / 64] >> (bit % 64) & 1);
}

/* Is entry x live?  Only asked while dead entries exist. */
static inline bool pend_live(const struct evq *q, const struct ev *x)
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

static inline void pend_clear(struct evq *q, struct evq_chunk *ch, uint64_t id)
{
	uint64_t bit = id & ((UINT64_C(1) << EVQ_CHUNK_SHIFT) - 1);

	ch->bits[bit / 64] &= ~(UINT64_C(1) << (bit % 64));
	if (--ch->live == 0)
		evq_pend_chunk_empty(q, ch);
	q->live--;
}

/* Mark id (always q->next_id) pending, opening a new chunk when it starts one. */
static inline int pend_add(struct evq *q, uint64_t id)
{
	uint64_t c = id >> EVQ_CHUNK_SHIFT;

	if (c - q->dir_base >= q->dir_n && evq_pend_new_chunk(q) != 0)
		return -1;
	struct evq_chunk *ch = &q->dir[c - q->dir_base];
	uint64_t bit = id & ((UINT64_C(1) << EVQ_CHUNK_SHIFT) - 1);

	ch->bits[bit / 64] |= UINT64_C(1) << (bit % 64);
	ch->live++;
	q->live++;
	return 0;
}

/* --- the block pool and block lists -------------------------------------- */

static inline void blk_free(struct evq *q, struct evq_blk *b)
{
	b->next = q->pool;
	q->pool = b;
	q->pool_free++;
}

static inline void list_init(struct evq_list *l)
{
	*l = (struct evq_list){ NULL, NULL, 0, EVQ_BLK_EVS, INT64_MAX, INT64_MIN };
}

static inline int list_reserve(struct evq *q, struct evq_list *l)
{
	return l->tail_n < EVQ_BLK_EVS ? 0 : evq_list_new_tail(q, l);
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

/*
 * Hand l's live entries to put(q, to, x) in order, drop the cancelled ones
 * (they leave q->dead) and free each block once read; l empties.  Inlined
 * with a constant put, the call is direct: no cost over a loop of its own.
 */
static inline void list_take(struct evq *q, struct evq_list *l,
			     void (*put)(struct evq *q, void *to, const struct ev *x),
			     void *to)
{
	struct evq_blk *b = l->head;

	while (b != NULL) {
		struct evq_blk *next = b->next;
		uint32_t m = blk_count(l, b);
		blk_prefetch(next);
		for (uint32_t i = 0; i < m; i++) {
			if (pend_live(q, &b->ev[i]))
				put(q, to, &b->ev[i]);
			else
				q->dead--;
		}
		blk_free(q, b);
		b = next;
	}
	list_init(l);
}

#endif
