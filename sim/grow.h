/*
 * grow.h -- room for element n of an array that grows by doubling, the
 * idiom written once:
 *
 *   struct x *v = grow_room(a->v, &a->cap, a->n, sizeof *v, 16);
 *   if (v == NULL) ... out of memory, a->v untouched
 *   a->v = v;
 *   a->v[a->n++] = x;
 *
 * The first block holds `first` elements; each later one twice the last.
 */
#ifndef SIM_GROW_H
#define SIM_GROW_H

#include <stdint.h>
#include <stdlib.h>

/* p itself while n < *cap; else p moved to a block twice as large (first
 * elements when empty) and *cap updated; NULL (p untouched) when memory or
 * size_t runs out. */
static inline void *grow_room(void *p, size_t *cap, size_t n, size_t elem, size_t first)
{
	size_t want = *cap ? 2 * *cap : first;

	if (n < *cap)
		return p;
	if (want < *cap || want > SIZE_MAX / elem)
		return NULL;
	if ((p = realloc(p, want * elem)) != NULL)
		*cap = want;
	return p;
}

#endif
