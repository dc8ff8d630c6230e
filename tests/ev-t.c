/*
 * ev-t.c -- the event queue and engine: order, cancellation, bounds, errors.
 *
 * Expected orders are written out by hand from the rule in ev.h: events run
 * by time, and at equal times in insertion (id) order.  The randomized part
 * compares the queue with a plain sorted array doing the same operations.
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>

#include "sim/ev.h"
#include "tests/tap.h"

/* --- a trace of handled events ------------------------------------------ */
#define TRACE_MAX 4096

struct trace {
	int n;
	int64_t time_ns[TRACE_MAX];
	uint64_t id[TRACE_MAX];
	uint64_t arg[TRACE_MAX];
	/* optional behaviour of the handlers */
	uint64_t cancel_id;	/* "canceller" cancels this one */
	uint64_t stop_at_arg;	/* "record" calls ev_stop on this arg (if != 0) */
	int kind_rec, kind_chain;
};

static int on_record(struct ev_sim *sim, const struct ev *ev, void *ctx,
		     struct err *e)
{
	struct trace *t = ctx;

	(void)e;
	if (t->n < TRACE_MAX) {
		t->time_ns[t->n] = ev->time_ns;
		t->id[t->n] = ev->id;
		t->arg[t->n] = ev->arg;
		t->n++;
	}
	if (t->stop_at_arg != 0 && ev->arg == t->stop_at_arg)
		ev_stop(sim);
	return 0;
}

static int on_cancel(struct ev_sim *sim, const struct ev *ev, void *ctx,
		     struct err *e)
{
	struct trace *t = ctx;

	(void)ev;
	(void)e;
	t->arg[0] = ev_cancel(sim, t->cancel_id);	/* 1 if it was pending */
	return 0;
}

static int on_fail(struct ev_sim *sim, const struct ev *ev, void *ctx,
		   struct err *e)
{
	(void)sim;
	(void)ctx;
	if (ev->arg == 0)
		return -1;	/* fails without saying why */
	return err_set(e, ERR_USAGE, "x.cfg:3: training.gc.interval_s: boom");
}

/* Schedules one follow-up with arg+100 at delay 0, for the first event only. */
static int on_now(struct ev_sim *sim, const struct ev *ev, void *ctx,
		  struct err *e)
{
	struct trace *t = ctx;

	on_record(sim, ev, ctx, e);
	if (ev->arg < 100)
		ev_after(sim, 0, t->kind_chain, ev->arg + 100);
	return 0;
}

static int on_past(struct ev_sim *sim, const struct ev *ev, void *ctx,
		   struct err *e)
{
	(void)ctx;
	(void)e;
	ev_at(sim, ev->time_ns - 1, 0, 0);
	return 0;
}

/*
 * A little stochastic model for the determinism check: every event records
 * itself and schedules 1-2 follow-ups (until 1500 have run) after pseudo-random delays drawn from
 * a fixed LCG (Knuth's MMIX constants), some at equal times.
 */
static uint64_t lcg_state;
static uint64_t lcg(void)
{
	lcg_state = lcg_state * UINT64_C(6364136223846793005) +
		    UINT64_C(1442695040888963407);
	return lcg_state >> 33;
}

static int on_chain(struct ev_sim *sim, const struct ev *ev, void *ctx,
		    struct err *e)
{
	struct trace *t = ctx;

	on_record(sim, ev, ctx, e);
	if (ev_count(sim) > 1500)
		return 0;
	int kids = 1 + (int)(lcg() % 2);
	for (int i = 0; i < kids; i++)
		ev_after(sim, (int64_t)(lcg() % 4) * 1000, t->kind_chain,
			 ev->arg * 3 + (uint64_t)i);
	return 0;
}

static void run_chain(struct trace *t)
{
	struct ev_sim *sim = ev_sim_new();
	struct err e = { 0 };

	memset(t, 0, sizeof *t);
	lcg_state = 42;
	t->kind_chain = ev_kind(sim, "chain", on_chain, t);
	for (uint64_t i = 1; i <= 5; i++)
		ev_at(sim, 0, t->kind_chain, i);
	ev_run(sim, INT64_MAX, &e);
	ev_sim_free(sim);
}

/* --- the bare queue ------------------------------------------------------ */
static void test_queue_order(void)
{
	struct evq *q = evq_new();
	static const int64_t t[] = { 30, 10, 20, 10, 30 };
	/* by time, then id: (10,#2) (10,#4) (20,#3) (30,#1) (30,#5) */
	static const uint64_t want[] = { 2, 4, 3, 1, 5 };
	uint64_t ids[5];
	struct ev ev;
	int ok = 1;

	for (int i = 0; i < 5; i++)
		ids[i] = evq_push(q, t[i], 7, 100 + (uint64_t)i);
	tap_ok(ids[0] == 1 && ids[4] == 5, "ids are insertion numbers 1..5");
	tap_int((long long)evq_len(q), 5, "evq_len counts 5 pushes");
	for (int i = 0; i < 5; i++) {
		ok &= evq_pop(q, &ev) && ev.id == want[i] &&
		      ev.time_ns == t[want[i] - 1] && ev.kind == 7 &&
		      ev.arg == 100 + want[i] - 1;
	}
	tap_ok(ok, "pop order (10,#2) (10,#4) (20,#3) (30,#1) (30,#5), kind and arg kept");
	tap_ok(!evq_pop(q, &ev) && evq_len(q) == 0, "empty queue pops nothing");
	evq_free(q);
}

static void test_queue_cancel(void)
{
	struct evq *q = evq_new();
	struct ev ev;
	int64_t t;

	uint64_t a = evq_push(q, 5, 0, 0);
	uint64_t b = evq_push(q, 1, 0, 0);
	uint64_t c = evq_push(q, 9, 0, 0);
	tap_ok(evq_cancel(q, b), "cancel a pending event");
	tap_int((long long)evq_len(q), 2, "evq_len drops to 2 at once");
	tap_ok(!evq_cancel(q, b), "cancel twice: false");
	tap_ok(evq_peek_time(q, &t) && t == 5,
	       "peek skips the cancelled head (time 1) and sees 5");
	tap_ok(evq_pop(q, &ev) && ev.id == a, "pop gives #1 at 5");
	tap_ok(!evq_cancel(q, a), "cancel of an already popped id: false");
	tap_ok(!evq_cancel(q, 0) && !evq_cancel(q, 99),
	       "cancel of id 0 and of a never issued id: false");
	tap_ok(evq_pop(q, &ev) && ev.id == c && !evq_pop(q, &ev),
	       "then #3, then empty: the cancelled event never comes out");
	evq_free(q);
}

/*
 * Many cancels, then pushes that fill the queue's reserve: the cancelled
 * entries are compacted away before it grows.  Survivors: ids 10, 20, ..., 16000
 * (1600 of them) at time 16001 - id, then 1600 new ids at time 0.
 */
static void test_queue_mass_cancel(void)
{
	struct evq *q = evq_new();
	struct ev ev;
	int ok = 1;

	for (int64_t i = 1; i <= 16000; i++)
		evq_push(q, 16001 - i, 0, (uint64_t)i);
	for (uint64_t id = 1; id <= 16000; id++)
		if (id % 10 != 0)
			ok &= evq_cancel(q, id);
	tap_ok(ok && evq_len(q) == 1600, "14400 of 16000 cancelled: evq_len 1600");
	for (int i = 0; i < 1600; i++)
		evq_push(q, 0, 1, 0);
	for (uint64_t id = 16001; id <= 17600; id++)	/* the time-0 ones, FIFO */
		ok &= evq_pop(q, &ev) && ev.id == id && ev.time_ns == 0;
	for (uint64_t id = 16000; id >= 10; id -= 10)	/* latest id is earliest */
		ok &= evq_pop(q, &ev) && ev.id == id && ev.time_ns == 16001 - (int64_t)id;
	tap_ok(ok && !evq_pop(q, &ev) && evq_len(q) == 0,
	       "then 1600 pushes at t=0: they pop first in id order, then the survivors");
	evq_free(q);
}

/*
 * 1.2 million push/pop pairs with at most 3 pending: ids cross 18 chunks of
 * the pending bitmap (2^16 ids each), while event #1 stays pending for the
 * first half and is cancelled then; the ids go on in order throughout.
 */
static void test_queue_long_ids(void)
{
	struct evq *q = evq_new();
	struct ev ev;
	int ok = evq_push(q, INT64_MAX, 0, 0) == 1;

	for (int64_t i = 0; i < 1200000 && ok; i++) {
		if (i == 600000)
			ok &= evq_cancel(q, 1) && !evq_cancel(q, 1) && evq_len(q) == 0;
		uint64_t a = evq_push(q, i, 0, 0), b = evq_push(q, i, 0, 0);
		ok &= a == (uint64_t)(2 * i + 2) && b == a + 1;
		ok &= evq_pop(q, &ev) && ev.id == a && evq_pop(q, &ev) && ev.id == b;
		ok &= !evq_cancel(q, a) && evq_len(q) == (i < 600000 ? 1u : 0u);
	}
	tap_ok(ok && !evq_pop(q, &ev), "2.4 million ids across bitmap chunks, "
	       "a long-pending event cancelled midway: order, ids and evq_len hold");
	evq_free(q);
}

/*
 * Reference: pending events in an array sorted by (time, id) descending, so
 * the earliest is last.  Phases alternate between mostly pushing and mostly
 * popping/cancelling, so the queue grows to thousands, empties again, and
 * the compaction after many cancels is exercised.
 */
struct ref {
	struct ev *v;
	size_t n;
};

static int ev_later(const struct ev *a, int64_t t, uint64_t id)
{
	return a->time_ns > t || (a->time_ns == t && a->id > id);
}

static void ref_push(struct ref *r, struct ev ev)
{
	size_t i = 0;

	while (i < r->n && ev_later(&r->v[i], ev.time_ns, ev.id))
		i++;
	memmove(&r->v[i + 1], &r->v[i], (r->n - i) * sizeof *r->v);
	r->v[i] = ev;
	r->n++;
}

static int ref_cancel(struct ref *r, uint64_t id)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->v[i].id == id) {
			memmove(&r->v[i], &r->v[i + 1], (r->n - i - 1) * sizeof *r->v);
			r->n--;
			return 1;
		}
	return 0;
}

static void test_queue_random(void)
{
	enum { OPS = 100000 };
	struct evq *q = evq_new();
	struct ref r = { calloc(OPS, sizeof(struct ev)), 0 };
	uint64_t issued = 0;
	long bad = -1, pops = 0, cancels = 0, max_len = 0;

	lcg_state = 7;
	for (long op = 0; op < OPS && bad < 0; op++) {
		int grow = (op / 5000) % 2 == 0;
		unsigned dice = (unsigned)(lcg() % 100);
		struct ev got, want;

		if (dice < (grow ? 60u : 25u)) {
			/* few distinct times, so ties are common */
			struct ev ev = { (int64_t)(lcg() % 500) - 100, 0,
					 (int)(lcg() % 5), lcg() };
			ev.id = evq_push(q, ev.time_ns, ev.kind, ev.arg);
			if (ev.id != ++issued)
				bad = op;
			ref_push(&r, ev);
		} else if (dice < (grow ? 85u : 65u)) {
			int have = evq_pop(q, &got);
			if (have != (r.n > 0))
				bad = op;
			if (have && r.n > 0) {
				want = r.v[--r.n];
				if (got.time_ns != want.time_ns || got.id != want.id ||
				    got.kind != want.kind || got.arg != want.arg)
					bad = op;
				pops++;
			}
		} else if (issued > 0) {
			/* any id ever issued: pending, popped or cancelled */
			uint64_t id = 1 + lcg() % issued;
			int was = ref_cancel(&r, id);
			if (evq_cancel(q, id) != was)
				bad = op;
			cancels += was;
		}
		if (evq_len(q) != r.n)
			bad = op;
		if ((long)r.n > max_len)
			max_len = (long)r.n;
	}
	tap_ok(bad < 0, "10^5 random push/pop/cancel ops match a sorted array "
	       "(order, payload, evq_len, cancel result)");
	if (bad >= 0)
		tap_diag("first mismatch at op %ld", bad);
	tap_diag("%ld pops, %ld cancels, up to %ld pending", pops, cancels, max_len);
	free(r.v);
	evq_free(q);
}

/*
 * A second reference for big queues: a binary min-heap on (time, id), with
 * cancelled ids skipped lazily (flag per id).  Independent of the ladder.
 */
struct refheap {
	struct ev *v;
	size_t n, cap;
	unsigned char *gone;	/* gone[id]: popped or cancelled */
	size_t live;
};

static int ev_before(const struct ev *a, const struct ev *b)
{
	return a->time_ns < b->time_ns ||
	       (a->time_ns == b->time_ns && a->id < b->id);
}

static void rh_push(struct refheap *h, struct ev ev)
{
	size_t i = h->n++;

	while (i > 0 && ev_before(&ev, &h->v[(i - 1) / 2])) {
		h->v[i] = h->v[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h->v[i] = ev;
	h->live++;
}

static void rh_drop_root(struct refheap *h)
{
	struct ev x = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n)
			break;
		if (c + 1 < h->n && ev_before(&h->v[c + 1], &h->v[c]))
			c++;
		if (!ev_before(&h->v[c], &x))
			break;
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n > 0)
		h->v[i] = x;
}

static int rh_pop(struct refheap *h, struct ev *out)
{
	while (h->n > 0 && h->gone[h->v[0].id])
		rh_drop_root(h);
	if (h->n == 0)
		return 0;
	*out = h->v[0];
	h->gone[out->id] = 1;
	h->live--;
	rh_drop_root(h);
	return 1;
}

static int rh_cancel(struct refheap *h, uint64_t id, uint64_t issued)
{
	if (id == 0 || id > issued || h->gone[id])
		return 0;
	h->gone[id] = 1;
	h->live--;
	return 1;
}

/*
 * The ladder's paths, each forced by the shape of the times, checked pop by
 * pop against the reference heap: 40000 events over 1 s (top spread into a
 * full rung of 2048 buckets, whose ~20 events each are sorted into bottom),
 * a cluster of 6000 within 100 ns (too clustered to counting-sort: spread
 * into a finer rung), 40 events at each of now + 2^k, k = 0..61 (every
 * spread peels off a few powers: the rung stack fills up to its 8 levels
 * and the rest goes to bottom's heap), bursts of 300 at one time (cannot be
 * spread: they must come out in id order), 5000 pushes into the past at
 * once (bottom overflows its 4096 and is spread), pushes past every rung
 * (top, refilled as the rungs run out), INT64_MIN and INT64_MAX, cancels
 * throughout and, once, of 90% of all ids (every tier is compacted when the
 * reserve fills up).
 */
static void test_queue_ladder(void)
{
	enum { MAXEV = 600000 };
	struct evq *q = evq_new();
	struct refheap h = { calloc(MAXEV, sizeof(struct ev)), 0, MAXEV,
			     calloc(MAXEV + 1, 1), 0 };
	uint64_t issued = 0;
	long bad = -1, pops = 0, cancels = 0, op;
	struct ev got, want;

#define LADDER_PUSH(t) do {						\
		struct ev e_ = { (t), 0, (int)(issued % 7), lcg() };	\
		e_.id = evq_push(q, e_.time_ns, e_.kind, e_.arg);	\
		if (e_.id != ++issued)					\
			bad = op;					\
		rh_push(&h, e_);					\
	} while (0)

	lcg_state = 11;
	op = 0;
	for (int i = 0; i < 40000; i++)
		LADDER_PUSH((int64_t)(lcg() % 1000000000));
	LADDER_PUSH(INT64_MAX);
	LADDER_PUSH(INT64_MIN);
	for (op = 1; op <= 200000 && bad < 0 && issued < MAXEV - 7000; op++) {
		int have = evq_pop(q, &got), ref = rh_pop(&h, &want);
		if (have != ref)
			bad = op;
		if (!have || !ref)
			break;
		if (got.time_ns != want.time_ns || got.id != want.id ||
		    got.kind != want.kind || got.arg != want.arg)
			bad = op;
		pops++;
		int64_t now = got.time_ns;
		if (now == INT64_MIN || now > INT64_MAX / 2)
			continue;
		LADDER_PUSH(now + (int64_t)(lcg() % 10000000));
		if (op % 97 == 0)		/* a burst at the current time */
			for (int i = 0; i < 300; i++)
				LADDER_PUSH(now);
		if (op % 101 == 0)		/* into the past */
			LADDER_PUSH(now - 1 - (int64_t)(lcg() % 1000000));
		if (op % 1009 == 0)		/* past every rung: top */
			LADDER_PUSH(now + 2000000000 + (int64_t)(lcg() % 1000000000));
		if (op == 5000)			/* a tight cluster */
			for (int i = 0; i < 6000; i++)
				LADDER_PUSH(now + 1000 + (int64_t)(lcg() % 100));
		if (op == 7000)			/* a staircase of powers of 2 */
			for (int k = 0; k < 62; k++)
				for (int i = 0; i < 40; i++)
					LADDER_PUSH(now + (INT64_C(1) << k));
		if (op == 9000)			/* bottom overflows */
			for (int i = 0; i < 5000; i++)
				LADDER_PUSH(now - 1 - (int64_t)(lcg() % 100000));
		if (op == 12000)		/* cancel 90% of all ids */
			for (uint64_t id = 1; id <= issued; id++)
				if (lcg() % 10 != 0) {
					int was = rh_cancel(&h, id, issued);
					if (evq_cancel(q, id) != was)
						bad = op;
					cancels += was;
				}
		if (op % 53 == 0) {
			uint64_t id = 1 + lcg() % issued;
			int was = rh_cancel(&h, id, issued);
			if (evq_cancel(q, id) != was)
				bad = op;
			cancels += was;
		}
		if (evq_len(q) != h.live)
			bad = op;
	}
	while (bad < 0 && rh_pop(&h, &want)) {	/* drain: the rest in order */
		if (!evq_pop(q, &got) || got.time_ns != want.time_ns ||
		    got.id != want.id)
			bad = op;
		pops++;
	}
	tap_ok(bad < 0 && !evq_pop(q, &got) && evq_len(q) == 0,
	       "ladder: spreads, sorted buckets, 8-deep rungs, equal-time bursts, "
	       "pushes into the past, top refills, cancels: same order as a "
	       "reference heap");
	if (bad >= 0)
		tap_diag("first mismatch at op %ld", bad);
	tap_diag("%" PRIu64 " pushes, %ld pops, %ld cancels", issued, pops, cancels);
#undef LADDER_PUSH
	free(h.v);
	free(h.gone);
	evq_free(q);
}

/*
 * A chain at one time: 10 events at t=5, then each pop pushes one more at
 * t=5, so bottom's run grows at its end as it is consumed at its front and
 * must slide back when it reaches its array's end (64 entries at first).
 * Then 5000 pushes at one past time overflow bottom (4096) but cannot be
 * spread: they stay, and come out in id order.
 */
static void test_queue_chain(void)
{
	struct evq *q = evq_new();
	struct ev ev;
	int ok = 1;

	for (uint64_t i = 1; i <= 10; i++)
		ok &= evq_push(q, 5, 0, i) == i;
	for (uint64_t i = 1; i <= 1000 && ok; i++) {
		ok &= evq_pop(q, &ev) && ev.time_ns == 5 && ev.id == i && ev.arg == i;
		ok &= evq_push(q, 5, 0, i + 10) == i + 10 && evq_len(q) == 10;
	}
	for (uint64_t i = 1001; i <= 1010; i++)
		ok &= evq_pop(q, &ev) && ev.time_ns == 5 && ev.id == i;
	tap_ok(ok && !evq_pop(q, &ev), "1000 pops at t=5, each pushing the "
	       "next at t=5: ids 1..1010 in order");

	ok = evq_push(q, 10, 0, 0) == 1011 && evq_pop(q, &ev) && ev.id == 1011;
	for (uint64_t i = 0; i < 5000; i++)
		ok &= evq_push(q, 3, 0, i) == 1012 + i;
	ok &= evq_push(q, 1, 0, 0) == 6012 && evq_len(q) == 5001;
	ok &= evq_pop(q, &ev) && ev.time_ns == 1 && ev.id == 6012;
	for (uint64_t i = 0; i < 5000; i++)
		ok &= evq_pop(q, &ev) && ev.time_ns == 3 && ev.id == 1012 + i;
	tap_ok(ok && !evq_pop(q, &ev), "5000 pushes at t=3 after a pop at t=10, "
	       "then one at t=1: #6012 first, then #1012..#6011 in order");
	evq_free(q);
}

/* --- the engine ---------------------------------------------------------- */
static void test_fifo_and_clock(void)
{
	struct ev_sim *sim = ev_sim_new();
	struct trace *t = calloc(1, sizeof *t);
	struct err e = { 0 };
	int ok = 1;

	int k = ev_kind(sim, "record", on_record, t);
	tap_ok(k == 0 && strcmp(ev_kind_name(sim, k), "record") == 0 &&
	       ev_kind_name(sim, 1) == NULL && ev_kind_name(sim, -1) == NULL,
	       "first kind is 0 and keeps its name; unknown kinds have none");
	for (uint64_t i = 1; i <= 100; i++)
		ev_at(sim, 7 * EV_NS_PER_S, k, i);
	ev_at(sim, 2 * EV_NS_PER_S, k, 1000);
	tap_ok(ev_run(sim, INT64_MAX, &e) == 0 && t->n == 101,
	       "101 events handled");
	ok = t->arg[0] == 1000 && t->time_ns[0] == 2 * EV_NS_PER_S;
	for (int i = 1; i <= 100; i++)
		ok &= t->arg[i] == (uint64_t)i && t->time_ns[i] == 7 * EV_NS_PER_S;
	tap_ok(ok, "the t=2 s event first, then 100 at t=7 s in insertion order");
	tap_int(ev_now(sim), 7 * EV_NS_PER_S,
		"queue ran dry: clock stays at the last event (7 s)");
	tap_int((long long)ev_count(sim), 101, "ev_count is 101");
	ev_sim_free(sim);
	free(t);
}

/* A and B pending at 5 ns; A schedules C "now": C runs after B (id 3 > 2). */
static void test_same_time_from_handler(void)
{
	struct ev_sim *sim = ev_sim_new();
	struct trace *t = calloc(1, sizeof *t);
	struct err e = { 0 };

	t->kind_chain = ev_kind(sim, "now", on_now, t);
	int rec = ev_kind(sim, "record", on_record, t);
	ev_at(sim, 5, t->kind_chain, 1);
	ev_at(sim, 5, rec, 2);
	ev_run(sim, INT64_MAX, &e);
	tap_ok(t->n == 3 && t->arg[0] == 1 && t->arg[1] == 2 && t->arg[2] == 101 &&
	       t->time_ns[2] == 5 && t->id[2] == 3,
	       "an event scheduled at the current time runs after those already due then");
	ev_sim_free(sim);
	free(t);
}

static void test_until(void)
{
	struct ev_sim *sim = ev_sim_new();
	struct trace *t = calloc(1, sizeof *t);
	struct err e = { 0 };

	int k = ev_kind(sim, "record", on_record, t);
	for (int s = 1; s <= 3; s++)
		ev_at(sim, s * EV_NS_PER_S, k, (uint64_t)s);
	tap_ok(ev_run(sim, 2 * EV_NS_PER_S, &e) == 0 && t->n == 2 &&
	       t->arg[1] == 2, "until 2 s: the events at 1 s and 2 s (bound inclusive)");
	ev_run(sim, 2500 * 1000000LL, &e);
	tap_int(ev_now(sim), 2500 * 1000000LL,
		"until 2.5 s with an event pending at 3 s: clock reads 2.5 s");
	uint64_t id = ev_after(sim, EV_NS_PER_S / 4, k, 9);
	tap_ok(id == 4, "ev_after gives id 4 (ids 1-3 were the first three)");
	ev_run(sim, INT64_MAX, &e);
	tap_ok(t->n == 4 && t->arg[2] == 9 && t->time_ns[2] == 2750 * 1000000LL &&
	       t->arg[3] == 3, "then 2.75 s (ev_after 0.25 s), then 3 s");
	ev_sim_free(sim);
	free(t);
}

static void test_engine_cancel_stop(void)
{
	struct ev_sim *sim = ev_sim_new();
	struct trace *t = calloc(1, sizeof *t);
	struct trace *c = calloc(1, sizeof *c);
	struct err e = { 0 };

	int rec = ev_kind(sim, "record", on_record, t);
	int can = ev_kind(sim, "canceller", on_cancel, c);
	ev_at(sim, 10, rec, 1);
	uint64_t doomed = ev_at(sim, 30, rec, 2);
	ev_at(sim, 20, can, 0);
	ev_at(sim, 40, rec, 3);
	ev_at(sim, 50, rec, 4);
	c->cancel_id = doomed;
	t->stop_at_arg = 3;
	tap_ok(ev_run(sim, INT64_MAX, &e) == 0, "run returns 0 on ev_stop");
	tap_ok(c->arg[0] == 1 && t->n == 2 && t->arg[0] == 1 && t->arg[1] == 3,
	       "event cancelled at 20 ns never runs; stop after the 40 ns one");
	tap_ok(ev_now(sim) == 40 && ev_count(sim) == 3,
	       "stopped: clock at 40 ns, 3 handled (2 records + canceller)");
	tap_ok(!ev_cancel(sim, doomed), "cancelling it again: false");
	ev_stop(sim);		/* outside a run: no effect */
	tap_ok(ev_run(sim, INT64_MAX, &e) == 0 && t->n == 3 && t->arg[2] == 4 &&
	       ev_now(sim) == 50, "ev_stop outside a run is ignored; next run resumes");
	ev_sim_free(sim);
	free(t);
	free(c);
}

static void test_errors(void)
{
	struct ev_sim *sim = ev_sim_new();
	struct trace *t = calloc(1, sizeof *t);
	struct err e = { 0 };

	int rec = ev_kind(sim, "record", on_record, t);
	int bad = ev_kind(sim, "fail", on_fail, NULL);
	ev_at(sim, 1, rec, 1);
	ev_at(sim, 2, bad, 1);
	ev_at(sim, 3, rec, 2);
	tap_ok(ev_run(sim, INT64_MAX, &e) == -1 && e.status == ERR_USAGE &&
	       strcmp(e.msg, "x.cfg:3: training.gc.interval_s: boom") == 0,
	       "handler error: -1, its status and message unchanged");
	tap_ok(t->n == 1 && ev_now(sim) == 2, "nothing after the failing event ran");
	ev_sim_free(sim);

	sim = ev_sim_new();
	e = (struct err){ 0 };
	bad = ev_kind(sim, "fail", on_fail, NULL);
	ev_at(sim, 5, bad, 0);
	tap_ok(ev_run(sim, INT64_MAX, &e) == -1 && e.status == ERR_RUN &&
	       strstr(e.msg, "fail") != NULL,
	       "handler -1 without a message: ERR_RUN naming the kind (%s)", e.msg);
	ev_sim_free(sim);

	sim = ev_sim_new();
	e = (struct err){ 0 };
	int past = ev_kind(sim, "past", on_past, NULL);
	ev_kind(sim, "record", on_record, t);
	ev_at(sim, 100, past, 0);
	tap_ok(ev_run(sim, INT64_MAX, &e) == -1 && strstr(e.msg, "before now"),
	       "ev_at into the past from a handler: run fails (%s)", e.msg);
	ev_sim_free(sim);

	sim = ev_sim_new();
	e = (struct err){ 0 };
	tap_ok(ev_at(sim, 1, 0, 0) == 0 && ev_run(sim, INT64_MAX, &e) == -1 &&
	       strstr(e.msg, "unknown event kind"),
	       "unknown kind: ev_at gives 0, ev_run reports it");
	ev_sim_free(sim);

	sim = ev_sim_new();
	e = (struct err){ 0 };
	rec = ev_kind(sim, "record", on_record, t);
	tap_ok(ev_after(sim, -1, rec, 0) == 0 && ev_run(sim, 0, &e) == -1,
	       "negative delay: 0 and a run error");
	ev_sim_free(sim);

	sim = ev_sim_new();
	char name[16];
	int ok = ev_kind(sim, "k0", on_record, t) == 0 &&
		 ev_kind(sim, "k0", on_record, t) == -1;
	ev_sim_free(sim);
	sim = ev_sim_new();
	for (int i = 0; i < EV_KINDS_MAX; i++) {
		snprintf(name, sizeof name, "k%d", i);
		ok &= ev_kind(sim, name, on_record, t) == i;
	}
	ok &= ev_kind(sim, "one-too-many", on_record, t) == -1;
	tap_ok(ok, "duplicate name and kind %d: -1", EV_KINDS_MAX + 1);
	ev_sim_free(sim);
	free(t);
}

static void test_determinism(void)
{
	struct trace *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);

	run_chain(a);
	run_chain(b);
	int same = a->n == b->n &&
		   memcmp(a->time_ns, b->time_ns, sizeof a->time_ns) == 0 &&
		   memcmp(a->id, b->id, sizeof a->id) == 0 &&
		   memcmp(a->arg, b->arg, sizeof a->arg) == 0;
	tap_ok(a->n > 1000 && same,
	       "two identical runs give identical traces (%d events)", a->n);
	int sorted = 1;
	for (int i = 1; i < a->n; i++)
		sorted &= a->time_ns[i - 1] < a->time_ns[i] ||
			  (a->time_ns[i - 1] == a->time_ns[i] && a->id[i - 1] < a->id[i]);
	tap_ok(sorted, "the trace is sorted by (time, id)");
	free(a);
	free(b);
}

int main(void)
{
	tap_plan(43);
	test_queue_order();
	test_queue_cancel();
	test_queue_mass_cancel();
	test_queue_long_ids();
	test_queue_random();
	test_queue_ladder();
	test_queue_chain();
	test_fifo_and_clock();
	test_same_time_from_handler();
	test_until();
	test_engine_cancel_stop();
	test_errors();
	test_determinism();
	return tap_done();
}
