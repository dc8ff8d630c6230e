/*
 * tap.h -- a minimal Test Anything Protocol emitter for the unit tests.
 *
 *   tap_plan(3);
 *   tap_ok(x == 1, "x is one");
 *   tap_near(t, 2.5, 1e-9, "ring all-reduce time (2(n-1)/n * S/B)");
 *   return tap_done();
 *
 * Each test says in its name where its expected number comes from.
 */
#ifndef TAP_H
#define TAP_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_count, tap_failed, tap_planned;

static inline void tap_plan(int n)
{
	tap_planned = n;
	printf("1..%d\n", n);
}

static inline int tap_ok(int cond, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	if (!cond)
		tap_failed++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return cond;
}

static inline void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* |got - want| <= rel_tol * |want| (or <= rel_tol when want is 0). */
static inline int tap_near(double got, double want, double rel_tol, const char *name)
{
	double scale = fabs(want) > 0 ? fabs(want) : 1.0;
	int ok = isfinite(got) && fabs(got - want) <= rel_tol * scale;

	tap_ok(ok, "%s", name);
	if (!ok)
		tap_diag("got %.12g, want %.12g (rel tol %g)", got, want, rel_tol);
	return ok;
}

static inline int tap_int(long long got, long long want, const char *name)
{
	int ok = got == want;

	tap_ok(ok, "%s", name);
	if (!ok)
		tap_diag("got %lld, want %lld", got, want);
	return ok;
}

/*
 * What a printer writes, as a string:
 *
 *   struct tap_capture c;
 *   cfg_schema_print(s, tap_capture_start(&c));
 *   char *text = tap_capture_end(&c);	(free it)
 */
struct tap_capture {
	char *buf;
	size_t len;
	FILE *f;
};

static inline FILE *tap_capture_start(struct tap_capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f) {
		perror("open_memstream");
		exit(99);
	}
	return c->f;
}

static inline char *tap_capture_end(struct tap_capture *c)
{
	fclose(c->f);
	return c->buf;
}

/* Root of the source tree, for scenario files (set by make check). */
static inline const char *tap_srcdir(void)
{
	const char *d = getenv("SRCDIR");
	return d ? d : ".";
}

static inline int tap_done(void)
{
	if (tap_planned == 0)
		printf("1..%d\n", tap_count);
	else if (tap_count != tap_planned)
		tap_diag("planned %d tests, ran %d", tap_planned, tap_count);
	return tap_failed || (tap_planned && tap_count != tap_planned);
}

#endif
