/* trace.c -- see trace.h: UTC times, building a trace, walking it. */
#define _DEFAULT_SOURCE 1	/* timegm() and tm_gmtoff (glibc, the BSDs) */
#define _XOPEN_SOURCE 700	/* strptime() */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "models/trace.h"
#include "sim/csv.h"
#include "models/trace_int.h"

/* --- UTC times ----------------------------------------------------------- */

/* strptime() fields that must take exactly `width` characters and no
 * blanks: strptime alone would take "24-1-1" or "2024- 1-01" as dates. */
static const char *exact(const char *s, const char *fmt, size_t width, struct tm *tm)
{
	const char *end = strptime(s, fmt, tm);

	if (end == NULL || (size_t)(end - s) != width || strcspn(s, " \t") < width)
		return NULL;
	return end;
}

/* A UTC offset, "Z", "+HH:MM" or "-HH:MM" (what strptime's %z takes). */
static int offset_s(const char *s, long *out_s)
{
	struct tm z = { 0 };
	const char *end = strptime(s, "%z", &z);

	if (end == NULL || *end != '\0' || !(*s == 'Z' || *s == '+' || *s == '-'))
		return -1;
	/* The world's offsets run from UTC-12 to UTC+14 (IANA tz database,
	 * Pacific/Kiritimati); glibc's %z also takes +25:00. */
	if (z.tm_gmtoff < -12 * 3600 || z.tm_gmtoff > 14 * 3600)
		return -1;
	*out_s = z.tm_gmtoff;
	return 0;
}

int trace_parse_utc(const char *s, int64_t *out_s)
{
	struct tm tm = { 0 }, asked;
	long off_s = 0;
	time_t t;

	if ((s = exact(s, "%Y-%m-%d", 10, &tm)) == NULL || (*s != ' ' && *s != 'T'))
		return -1;
	if ((s = exact(s + 1, "%H:%M", 5, &tm)) == NULL)
		return -1;
	if (*s == ':') {
		if ((s = exact(s, ":%S", 3, &tm)) == NULL)
			return -1;
		if (*s == '.')	/* fractions of a second: the records are whole seconds */
			s += 1 + strspn(s + 1, "0");
	}
	if (*s != '\0' && offset_s(s, &off_s) < 0)
		return -1;
	/* Dates in 1970..2200 only: a year typo (1012 for 2012) would stretch a
	 * trace over a millennium, and seconds over a span that long overflow
	 * once made nanoseconds (int64 holds 292 years of them). */
	if (tm.tm_year < TRACE_YEAR_MIN - 1900 || tm.tm_year > TRACE_YEAR_MAX - 1900)
		return -1;
	asked = tm;
	t = timegm(&tm);
	/* timegm() carries 2023-02-29 into March and 23:59:60 into the next
	 * minute: a field that moved was not a real day or time. */
	if (tm.tm_year != asked.tm_year || tm.tm_mon != asked.tm_mon ||
	    tm.tm_mday != asked.tm_mday || tm.tm_hour != asked.tm_hour ||
	    tm.tm_min != asked.tm_min || tm.tm_sec != asked.tm_sec)
		return -1;
	*out_s = (int64_t)t - off_s;
	return 0;
}

/* --- building a trace ---------------------------------------------------- */

int trace_begin(struct trace *t, const char *path, struct err *e)
{
	size_t n = strlen(path) + 1;

	memset(t, 0, sizeof *t);
	t->file = malloc(n);
	if (t->file == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	memcpy(t->file, path, n);
	return 0;
}

int trace_push(struct trace *t, size_t *cap, int64_t ts, double v, struct err *e)
{
	if (t->n == *cap) {
		size_t nc = *cap ? *cap * 2 : 1024;
		int64_t *nt = realloc(t->t_s, nc * sizeof *nt);
		double *nv;

		if (nt == NULL)
			return err_set(e, ERR_RUN, "out of memory");
		t->t_s = nt;
		nv = realloc(t->v, nc * sizeof *nv);
		if (nv == NULL)
			return err_set(e, ERR_RUN, "out of memory");
		t->v = nv;
		*cap = nc;
	}
	t->t_s[t->n] = ts;
	t->v[t->n] = v;
	t->n++;
	return 0;
}

void trace_free(struct trace *t)
{
	if (t == NULL)
		return;
	free(t->file);
	free(t->t_s);
	free(t->v);
	memset(t, 0, sizeof *t);
}

const char *trace_qty_name(enum trace_qty q)
{
	switch (q) {
	case TRACE_CARBON: return "carbon intensity";
	case TRACE_ELECTRICITY: return "electricity price";
	case TRACE_PUE: return "PUE";
	default: return "spot price";
	}
}

int trace_value(const char *where, enum trace_qty q, const char *text, double *out,
		struct err *e)
{
	char *end;
	double v;

	while (isspace((unsigned char)*text))
		text++;
	if (*text == '\0')
		return err_set(e, ERR_USAGE, "%s: missing %s value", where, trace_qty_name(q));
	errno = 0;
	v = strtod(text, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (!csv_is_decimal(text) || errno || *end != '\0' || !isfinite(v))
		return err_set(e, ERR_USAGE, "%s: %s '%s' is not a number", where,
			       trace_qty_name(q), text);
	if (v < 0)
		return err_set(e, ERR_USAGE, "%s: negative %s %g (expected a value >= 0)", where,
			       trace_qty_name(q), v);
	if (q == TRACE_PUE && v < 1)
		return err_set(e, ERR_USAGE, "%s: PUE %g below 1 (expected facility / IT "
			       "power >= 1)", where, v);
	*out = v;
	return 0;
}

/* --- walking a trace ------------------------------------------------------ */

static int64_t span_s(const struct trace *t)
{
	return (int64_t)t->n * t->step_s;
}

/* Sim time of UTC time ts in cycle k. */
static int64_t sim_ns(const struct trace_cur *c, int64_t ts, int64_t k)
{
	int64_t off_s = ts - c->origin_s;

	if (c->tr->step_s)
		off_s += k * span_s(c->tr);
	return off_s * 1000000000;
}

static void cur_set(struct trace_cur *c)
{
	const struct trace *t = c->tr;

	c->value = t->v[c->i];
	if (c->i + 1 < t->n)
		c->next_ns = sim_ns(c, t->t_s[c->i + 1], c->cycle);
	else if (t->step_s)
		c->next_ns = sim_ns(c, t->t_s[0], c->cycle + 1);
	else
		c->next_ns = INT64_MAX;
}

int trace_cur_init(struct trace_cur *c, const struct trace *t, int64_t origin_s,
		   struct err *e)
{
	memset(c, 0, sizeof *c);
	c->tr = t;
	c->origin_s = origin_s;
	if (origin_s < t->t_s[0])
		return err_set(e, ERR_USAGE, "%s%s: the trace starts %lld s after the run "
			       "(expected a first row at or before the run's start, "
			       "run.start_utc)", t->file, t->first_at,
			       (long long)(t->t_s[0] - origin_s));
	if (t->step_s) {
		int64_t off = origin_s - t->t_s[0];
		c->cycle = off / span_s(t);
		c->i = (size_t)((off % span_s(t)) / t->step_s);
	} else {
		size_t lo = 0, hi = t->n;	/* last row at or before origin */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			if (t->t_s[mid] <= origin_s)
				lo = mid;
			else
				hi = mid;
		}
		c->i = lo;
	}
	cur_set(c);
	return 0;
}

void trace_cur_advance(struct trace_cur *c, int64_t now_ns)
{
	while (now_ns >= c->next_ns) {
		if (c->i + 1 < c->tr->n) {
			c->i++;
		} else {
			c->i = 0;
			c->cycle++;
		}
		cur_set(c);
	}
}
