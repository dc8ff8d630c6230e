/*
 * evkey.h -- small non-negative integers packed into one 64-bit event
 * argument (or collective tag): fields of fixed widths, the first in the
 * lowest bits.  A layout is declared once; the caller checks once, before
 * packing anything, that the largest value of each field fits
 * (evkey_check, an error it returns up), and packing is then an or of
 * shifts -- a value out of range after that is a bug, caught by assert().
 *
 *   static const struct evkey arrive = { 3, { 32, 30, 2 } };  mb, vs, bwd
 *   if (evkey_check(&arrive, 1, V - 1, "virtual stages", e) < 0) ...
 *   uint64_t a = evkey_pack(&arrive, (int64_t[]){ mb, vs, bwd });
 *   int vs = (int)evkey_get(&arrive, a, 1);
 */
#ifndef SIM_EVKEY_H
#define SIM_EVKEY_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "sim/err.h"

#define EVKEY_FIELDS_MAX 4

struct evkey {
	unsigned n;				/* fields */
	unsigned width[EVKEY_FIELDS_MAX];	/* bits each, summing to <= 64 */
};

static inline unsigned evkey_shift(const struct evkey *k, unsigned i)
{
	unsigned s = 0;

	for (unsigned j = 0; j < i; j++)
		s += k->width[j];
	return s;
}

static inline bool evkey_fits(const struct evkey *k, unsigned i, int64_t v)
{
	return v >= 0 && (k->width[i] >= 63 || (uint64_t)v >> k->width[i] == 0);
}

/* Field i holds values up to max; else an error naming what it counts. */
static inline int evkey_check(const struct evkey *k, unsigned i, int64_t max,
			      const char *what, struct err *e)
{
	if (!evkey_fits(k, i, max))
		return err_set(e, ERR_USAGE, "%s up to %lld do not fit in an "
			       "event's %u bits", what, (long long)max, k->width[i]);
	return 0;
}

/* v holds k->n values, each checked to fit. */
static inline uint64_t evkey_pack(const struct evkey *k, const int64_t *v)
{
	uint64_t key = 0;

	for (unsigned i = 0; i < k->n; i++) {
		assert(evkey_fits(k, i, v[i]));
		key |= (uint64_t)v[i] << evkey_shift(k, i);
	}
	return key;
}

static inline int64_t evkey_get(const struct evkey *k, uint64_t key, unsigned i)
{
	unsigned w = k->width[i];

	key >>= evkey_shift(k, i);
	return (int64_t)(w >= 64 ? key : key & ((UINT64_C(1) << w) - 1));
}

#endif
