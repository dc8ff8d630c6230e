/*
 * ev.c -- the event queue and the engine (see ev.h).
 *
 * The queue is two structures, each doing the one thing it is good at:
 *
 *  - an implicit 4-ary min-heap of whole events, 32 bytes each {time_ns, id,
 *    arg, kind}, ordered by (time_ns, id).  Four siblings are 128 bytes and
 *    the array is offset so that every sibling group fills exactly two cache
 *    lines; the tree is half as deep as a binary heap, and while one level
 *    is compared the next level's lines are already being fetched.
 *  - a bitmap of pending ids, in chunks of 2^16 ids (8 KiB).  Ids are
 *    consecutive, so a push sets the next bit; a pop or cancel clears one.
 *    A chunk is freed when none of its ids is pending, so memory follows the
 *    span of pending ids, not the number of events ever pushed.
 *
 * Why not a hash table from id to payload (the first version): on the
 * 2-core test machine a random access into tens of MiB costs 230-330 ns,
 * and the table added one to every pop and push.  Carrying the payload in
 * the heap keeps every access on the heap's own prefetched path; the bitmap
 * is 200x denser than the table was, and a pop only writes to it.  At 10^6
 * pending events this took the hold benchmark from 1.0-1.2 to 1.4-1.9
 * million holds/s and the peak RSS from 85 to 36 MiB.  What remains is the
 * heap's chain of dependent cache misses, about ten levels deep at 10^6.
 *
 * Cancellation is lazy and O(1): it clears the id's bit and leaves the heap
 * entry behind; a pop that meets an entry whose bit is clear discards it
 * (checked only while such dead entries exist).  evq_len() is exact at all
 * times.  Before the heap array grows, if dead entries outnumber live ones
 * they are dropped and the heap rebuilt in O(n) (paid for by the cancels that
 * made them), so cancellations alone never make the array grow.
 *
 * Cost: push and pop O(log4 n), cancel O(1).  Ids start at 1 and are never
 * reused; 0 means "no event" (push failed for lack of memory).
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

/* --- the heap ------------------------------------------------------------ */

#define EVQ_CACHE_LINE 64
#define EVQ_GROUP_BYTES 128	/* four 32-byte entries */
#define EVQ_MIN_CAP 64
_Static_assert(sizeof(struct ev) == 32, "four events must fill 128 bytes");

struct evq_chunk {
	uint64_t *bits;		/* NULL once no id in the chunk is pending */
	uint32_t live;		/* pending ids in the chunk */
};

#define EVQ_CHUNK_SHIFT 16
#define EVQ_CHUNK_WORDS ((1u << EVQ_CHUNK_SHIFT) / 64)

struct evq {
	struct ev *heap;	/* heap[0] is the root; children 4i+1..4i+4 */
	void *heap_mem;		/* what malloc returned (heap is aligned in it) */
	size_t n;		/* heap entries, live and cancelled */
	size_t cap;
	size_t live;		/* pending events */
	size_t dead;		/* cancelled entries still in the heap */
	uint64_t next_id;
	struct evq_chunk *dir;	/* dir[k] holds ids of chunk dir_base + k */
	size_t dir_n, dir_cap;
	uint64_t dir_base;
};

/*
 * Branch-free on purpose: which child is least is a coin toss the branch
 * predictor loses, and mispredictions cost as much as the memory did.
 */
static inline int ent_lt(const struct ev *a, const struct ev *b)
{
	return (a->time_ns < b->time_ns) |
	       ((a->time_ns == b->time_ns) & (a->id < b->id));
}

/*
 * Grow the heap array to new_cap entries.  Children of i start at 4i+1, so
 * with the root 3 entries (96 bytes) past a 128-byte boundary every sibling
 * group 4i+1..4i+4 starts on one.
 */
static int heap_grow(struct evq *q, size_t new_cap)
{
	size_t bytes = (new_cap + 4) * sizeof(struct ev) + EVQ_GROUP_BYTES;
	void *mem = malloc(bytes);

	if (mem == NULL)
		return -1;
	uintptr_t base = ((uintptr_t)mem + EVQ_GROUP_BYTES - 1) &
			 ~(uintptr_t)(EVQ_GROUP_BYTES - 1);
	struct ev *heap = (struct ev *)base + 3;

	if (q->n > 0)
		memcpy(heap, q->heap, q->n * sizeof *heap);
	free(q->heap_mem);
	q->heap_mem = mem;
	q->heap = heap;
	q->cap = new_cap;
	return 0;
}

static void heap_sift_up(struct ev *h, size_t i, const struct ev *x)
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
static inline size_t heap_min_child(const struct ev *h, size_t c, size_t end)
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
static void heap_sift_down(struct ev *h, size_t n, size_t i, const struct ev *x)
{
	for (;;) {
		size_t c = 4 * i + 1;
		if (c >= n)
			break;
		/*
		 * The four children's own child groups are 16 consecutive
		 * entries (8 lines) from 4c+1: fetch them now, so the next
		 * level waits less on memory.
		 */
		size_t g = 4 * c + 1;
		if (g < n) {
			const char *line = (const char *)&h[g];
			for (int l = 0; l < 8; l++)
				__builtin_prefetch(line + l * EVQ_CACHE_LINE);
		}
		size_t end = c + 4 < n ? c + 4 : n;
		size_t m = heap_min_child(h, c, end);
		if (!ent_lt(&h[m], x))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = *x;
}

static void heap_remove_root(struct evq *q)
{
	size_t n = --q->n;

	if (n > 0) {
		struct ev last = q->heap[n];
		heap_sift_down(q->heap, n, 0, &last);
	}
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

static void pend_clear(struct evq *q, struct evq_chunk *ch, uint64_t id)
{
	uint64_t bit = id & ((UINT64_C(1) << EVQ_CHUNK_SHIFT) - 1);

	ch->bits[bit / 64] &= ~(UINT64_C(1) << (bit % 64));
	/* The newest chunk stays: the next pushes set bits in it. */
	if (--ch->live == 0 && ch != &q->dir[q->dir_n - 1]) {
		free(ch->bits);
		ch->bits = NULL;
	}
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
static int pend_add(struct evq *q, uint64_t id)
{
	uint64_t c = id >> EVQ_CHUNK_SHIFT;

	if (c - q->dir_base >= q->dir_n) {	/* ids are consecutive: c is the next chunk */
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
	}
	struct evq_chunk *ch = &q->dir[c - q->dir_base];
	uint64_t bit = id & ((UINT64_C(1) << EVQ_CHUNK_SHIFT) - 1);

	ch->bits[bit / 64] |= UINT64_C(1) << (bit % 64);
	ch->live++;
	q->live++;
	return 0;
}

/* Drop cancelled entries from the heap and rebuild it bottom-up, O(n). */
static void evq_compact(struct evq *q)
{
	size_t n = 0;

	for (size_t i = 0; i < q->n; i++)
		if (pend_test(pend_chunk(q, q->heap[i].id), q->heap[i].id))
			q->heap[n++] = q->heap[i];
	q->n = n;
	q->dead = 0;
	if (n < 2)
		return;
	for (size_t i = (n - 2) / 4 + 1; i-- > 0;) {
		struct ev x = q->heap[i];
		heap_sift_down(q->heap, n, i, &x);
	}
}

/* --- the queue API ------------------------------------------------------- */

struct evq *evq_new(void)
{
	struct evq *q = calloc(1, sizeof *q);

	if (q == NULL)
		return NULL;
	if (heap_grow(q, EVQ_MIN_CAP) != 0) {
		free(q);
		return NULL;
	}
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
	free(q->heap_mem);
	free(q);
}

uint64_t evq_push(struct evq *q, int64_t time_ns, int kind, uint64_t arg)
{
	if (q->n == q->cap) {
		/* Garbage first: growing for cancelled entries wastes memory. */
		if (q->dead > q->live)
			evq_compact(q);
		if (q->n == q->cap && heap_grow(q, q->cap * 2) != 0)
			return 0;
	}
	if (pend_add(q, q->next_id) != 0)
		return 0;
	struct ev x = { .time_ns = time_ns, .id = q->next_id++,
			.kind = kind, .arg = arg };

	heap_sift_up(q->heap, q->n++, &x);
	return x.id;
}

/* Discard cancelled entries at the root; true if a live event is on top. */
static bool evq_settle(struct evq *q)
{
	while (q->n > 0 && q->dead > 0 &&
	       !pend_test(pend_chunk(q, q->heap[0].id), q->heap[0].id)) {
		heap_remove_root(q);
		q->dead--;
	}
	return q->n > 0;
}

bool evq_pop(struct evq *q, struct ev *out)
{
	if (!evq_settle(q))
		return false;
	*out = q->heap[0];
	heap_remove_root(q);
	/* No dead entry is on top after settling, so the chunk exists. */
	pend_clear(q, pend_chunk(q, out->id), out->id);
	return true;
}

bool evq_peek_time(struct evq *q, int64_t *time_ns)
{
	if (!evq_settle(q))
		return false;
	*time_ns = q->heap[0].time_ns;
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
