/*
 * evq_pend.c -- the ladder queue's pending-id bitmap: the rare paths.
 *
 * Ids are consecutive, so pending ids are a bitmap in chunks of 2^16 ids
 * (8 KiB), found through a directory (q->dir) that starts at the oldest
 * chunk still in use.  Setting, testing and clearing a bit are inline in
 * evq_int.h (pend_*); here a chunk is opened when the ids reach it and freed
 * once none of its ids is pending, so memory follows the span of pending
 * ids, not the number of events ever pushed.  Part of the queue of evq.c.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/evq_int.h"
#include "sim/grow.h"

/* The chunk's last pending id went: free it, unless it is the newest. */
EVQ_COLD void evq_pend_chunk_empty(struct evq *q, struct evq_chunk *ch)
{
	/* The newest chunk stays: the next pushes set bits in it. */
	if (ch != &q->dir[q->dir_n - 1]) {
		free(ch->bits);
		ch->bits = NULL;
	}
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
	struct evq_chunk *dir = grow_room(q->dir, &q->dir_cap, q->dir_n, sizeof *dir, 8);
	if (dir == NULL)
		return -1;
	q->dir = dir;
	return 0;
}

/* Open the chunk after the newest (ids are consecutive). */
EVQ_COLD int evq_pend_new_chunk(struct evq *q)
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
