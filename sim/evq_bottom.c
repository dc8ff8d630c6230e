/*
 * evq_bottom.c -- the ladder queue's bottom tier: a run sorted by
 * (time_ns, id), popped from its front, and a 4-ary heap of late arrivals
 * (pushes before the run's last event).  Pops take the lesser of the run's
 * first and the heap's root (bottom_first in evq_int.h).  Both arrays have
 * room for every entry in the queue (the reserve), so moving events into
 * bottom never allocates.  Part of the queue of evq.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/evq_int.h"

/* Grow bottom's two arrays to new_cap entries each; the run moves to 0. */
EVQ_COLD int evq_bottom_grow(struct evq *q, size_t new_cap)
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
void evq_run_sort(struct evq *q)
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
void evq_late_sift_up(struct ev *h, size_t i, const struct ev *x)
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
void evq_late_sift_down(struct ev *h, size_t n, size_t i, const struct ev *x)
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


/* Order the late heap's entries bottom-up, O(n). */
void evq_late_build(struct evq *q)
{
	if (q->nlate < 2)
		return;
	for (size_t i = (q->nlate - 2) / 4 + 1; i-- > 0;) {
		struct ev x = q->late[i];
		evq_late_sift_down(q->late, q->nlate, i, &x);
	}
}

/*
 * A push before bottom's bound.  At or after the run's last event (a burst
 * at the current time) it extends the run; else it joins the late heap.
 * A bottom grown too big is spread.
 */
EVQ_COLD void evq_bottom_push(struct evq *q, const struct ev *x)
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
		evq_late_sift_up(q->late, q->nlate++, x);
	}
	if (bottom_len(q) > q->bottom_limit)
		evq_bottom_spread(q);
}
