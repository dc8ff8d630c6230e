/*
 * ev.c -- the event queue and the engine (see ev.h).
 *
 * The queue is two structures, each doing the one thing it is good at:
 *
 *  - an implicit 4-ary min-heap of 16-byte entries {time_ns, id}, ordered by
 *    (time_ns, id).  Four children are 64 bytes, and the array is offset so
 *    every group of siblings fills exactly one cache line: a sift-down touches
 *    one line per level, and the tree is half as deep as a binary heap.
 *  - a hash table from id to {kind, arg}, open addressing with linear
 *    probing, load at most 1/2; an entry present means "pending".
 *
 * Cancellation is lazy and O(1): it deletes the id from the table and leaves
 * the heap entry behind; a pop that meets an entry whose id is gone discards
 * it.  evq_len() counts the table, so it is exact at all times.  When dead
 * heap entries outnumber live ones the heap is compacted and rebuilt in O(n),
 * so memory stays within twice the pending count (amortised against the
 * cancels that made the garbage).
 *
 * Ids start at 1 and are never reused; 0 means "no event" (push failed).
 *
 * The engine adds a clock, the table of kinds and the run loop.  A model that
 * schedules into the past, with an unknown kind, or runs out of memory gets 0
 * back from ev_at/ev_after, and the engine remembers the first such error:
 * ev_run returns -1 with it as soon as the running handler returns (or at
 * once, if it happened outside a run).  Handlers therefore need not check
 * every ev_at, and a bad schedule can never silently run at the wrong time.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/ev.h"

/* --- the heap ------------------------------------------------------------ */

struct evq_ent {
	int64_t time_ns;
	uint64_t id;
};

struct evq_rec {
	uint64_t id;		/* 0: empty slot */
	uint64_t arg;
	int kind;
};

struct evq {
	struct evq_ent *heap;	/* heap[0] is the root; children 4i+1..4i+4 */
	void *heap_mem;		/* what malloc returned (heap is aligned in it) */
	size_t n;		/* heap entries, live and cancelled */
	size_t cap;
	struct evq_rec *tab;	/* pending events by id */
	size_t tab_mask;	/* table size - 1 (a power of two) */
	size_t live;		/* entries in tab == pending events */
	uint64_t next_id;
};

#define EVQ_CACHE_LINE 64
#define EVQ_MIN_CAP 64

/*
 * Branch-free on purpose: which child is least is a coin toss the branch
 * predictor loses, and mispredictions, not memory, dominated the first
 * version of the sift-down.
 */
static inline int ent_lt(struct evq_ent a, struct evq_ent b)
{
	return (a.time_ns < b.time_ns) |
	       ((a.time_ns == b.time_ns) & (a.id < b.id));
}

/*
 * Grow the heap array to new_cap entries.  Children of i start at 4i+1, so
 * with the root 3 entries (48 bytes) past a 64-byte boundary every sibling
 * group 4i+1..4i+4 starts on a boundary.
 */
static int heap_grow(struct evq *q, size_t new_cap)
{
	size_t bytes = (new_cap + 4) * sizeof(struct evq_ent) + EVQ_CACHE_LINE;
	void *mem = malloc(bytes);

	if (mem == NULL)
		return -1;
	uintptr_t base = ((uintptr_t)mem + EVQ_CACHE_LINE - 1) &
			 ~(uintptr_t)(EVQ_CACHE_LINE - 1);
	struct evq_ent *heap = (struct evq_ent *)base + 3;

	if (q->n > 0)
		memcpy(heap, q->heap, q->n * sizeof *heap);
	free(q->heap_mem);
	q->heap_mem = mem;
	q->heap = heap;
	q->cap = new_cap;
	return 0;
}

static void heap_sift_up(struct evq_ent *h, size_t i, struct evq_ent x)
{
	while (i > 0) {
		size_t p = (i - 1) / 4;
		if (!ent_lt(x, h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

/* Index of the least of the children c..end-1 (end > c). */
static inline size_t heap_min_child(const struct evq_ent *h, size_t c, size_t end)
{
	if (end - c == 4) {
		/* A tournament: two independent comparisons, then one. */
		size_t a = c + (size_t)ent_lt(h[c + 1], h[c]);
		size_t b = c + 2 + (size_t)ent_lt(h[c + 3], h[c + 2]);
		return ent_lt(h[b], h[a]) ? b : a;
	}
	size_t m = c;
	for (size_t k = c + 1; k < end; k++)
		if (ent_lt(h[k], h[m]))
			m = k;
	return m;
}

/* Put x into the hole at i and move it down to its place among n entries. */
static void heap_sift_down(struct evq_ent *h, size_t n, size_t i, struct evq_ent x)
{
	for (;;) {
		size_t c = 4 * i + 1;
		if (c >= n)
			break;
		size_t end = c + 4 < n ? c + 4 : n;
		size_t m = heap_min_child(h, c, end);
		if (!ent_lt(h[m], x))
			break;
		h[i] = h[m];
		i = m;
	}
	h[i] = x;
}

static void heap_remove_root(struct evq *q)
{
	size_t n = --q->n;

	if (n > 0)
		heap_sift_down(q->heap, n, 0, q->heap[n]);
}

/* --- the table of pending events ----------------------------------------- */

/*
 * Home slot: Fibonacci hashing (Knuth, TAOCP vol. 3, 6.4) of the id.  The
 * obvious `id & mask` makes the recent, mostly live ids one dense block,
 * and linear probing then walks runs hundreds of slots long.
 */
static inline size_t tab_home(uint64_t id, size_t mask)
{
	return (size_t)((id * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & mask;
}

static struct evq_rec *tab_find(const struct evq *q, uint64_t id)
{
	size_t i = tab_home(id, q->tab_mask);

	while (q->tab[i].id != 0) {
		if (q->tab[i].id == id)
			return &q->tab[i];
		i = (i + 1) & q->tab_mask;
	}
	return NULL;
}

static void tab_put(struct evq_rec *tab, size_t mask, struct evq_rec r)
{
	size_t i = tab_home(r.id, mask);

	while (tab[i].id != 0)
		i = (i + 1) & mask;
	tab[i] = r;
}

/* Keep the load factor at most 1/2, so probe runs stay short. */
static int tab_reserve(struct evq *q, size_t want)
{
	size_t size = q->tab_mask + 1;

	if (want <= size / 2)
		return 0;
	size_t new_size = size * 2;
	while (want > new_size / 2)
		new_size *= 2;
	struct evq_rec *tab = calloc(new_size, sizeof *tab);
	if (tab == NULL)
		return -1;
	for (size_t i = 0; i < size; i++)
		if (q->tab[i].id != 0)
			tab_put(tab, new_size - 1, q->tab[i]);
	free(q->tab);
	q->tab = tab;
	q->tab_mask = new_size - 1;
	return 0;
}

/*
 * Delete slot i by shifting later members of its probe run back into the
 * hole (no tombstones, so lookups never slow down with churn).  An entry at j
 * may fill the hole at i unless its home lies cyclically in (i, j].
 */
static void tab_delete(struct evq *q, struct evq_rec *slot)
{
	size_t mask = q->tab_mask;
	size_t i = (size_t)(slot - q->tab);
	size_t j = i;

	for (;;) {
		j = (j + 1) & mask;
		if (q->tab[j].id == 0)
			break;
		size_t home = tab_home(q->tab[j].id, mask);
		int stays = i <= j ? (i < home && home <= j)
				   : (i < home || home <= j);
		if (!stays) {
			q->tab[i] = q->tab[j];
			i = j;
		}
	}
	q->tab[i].id = 0;
	q->live--;
}

/* Drop cancelled entries from the heap and rebuild it bottom-up, O(n). */
static void evq_compact(struct evq *q)
{
	size_t n = 0;

	for (size_t i = 0; i < q->n; i++)
		if (tab_find(q, q->heap[i].id) != NULL)
			q->heap[n++] = q->heap[i];
	q->n = n;
	if (n < 2)
		return;
	for (size_t i = (n - 2) / 4 + 1; i-- > 0;)
		heap_sift_down(q->heap, n, i, q->heap[i]);
}

/* --- the queue API ------------------------------------------------------- */

struct evq *evq_new(void)
{
	struct evq *q = calloc(1, sizeof *q);

	if (q == NULL)
		return NULL;
	q->tab = calloc(2 * EVQ_MIN_CAP, sizeof *q->tab);
	if (q->tab == NULL || heap_grow(q, EVQ_MIN_CAP) != 0) {
		free(q->tab);
		free(q);
		return NULL;
	}
	q->tab_mask = 2 * EVQ_MIN_CAP - 1;
	q->next_id = 1;
	return q;
}

void evq_free(struct evq *q)
{
	if (q == NULL)
		return;
	free(q->heap_mem);
	free(q->tab);
	free(q);
}

uint64_t evq_push(struct evq *q, int64_t time_ns, int kind, uint64_t arg)
{
	if (q->n == q->cap) {
		/* Garbage first: growing for cancelled entries wastes memory. */
		if (q->n - q->live > q->live)
			evq_compact(q);
		if (q->n == q->cap && heap_grow(q, q->cap * 2) != 0)
			return 0;
	}
	if (tab_reserve(q, q->live + 1) != 0)
		return 0;
	uint64_t id = q->next_id++;
	struct evq_rec r = { .id = id, .arg = arg, .kind = kind };
	struct evq_ent x = { .time_ns = time_ns, .id = id };

	tab_put(q->tab, q->tab_mask, r);
	q->live++;
	heap_sift_up(q->heap, q->n++, x);
	return id;
}

/* Discard cancelled entries at the root; true if a live event is on top. */
static bool evq_settle(struct evq *q)
{
	while (q->n > 0) {
		if (tab_find(q, q->heap[0].id) != NULL)
			return true;
		heap_remove_root(q);
	}
	return false;
}

bool evq_pop(struct evq *q, struct ev *out)
{
	while (q->n > 0) {
		struct evq_ent top = q->heap[0];
		struct evq_rec *r = tab_find(q, top.id);

		heap_remove_root(q);
		if (r == NULL)
			continue;	/* cancelled */
		out->time_ns = top.time_ns;
		out->id = top.id;
		out->kind = r->kind;
		out->arg = r->arg;
		tab_delete(q, r);
		return true;
	}
	return false;
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
	struct evq_rec *r = id != 0 ? tab_find(q, id) : NULL;

	if (r == NULL)
		return false;
	tab_delete(q, r);
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
