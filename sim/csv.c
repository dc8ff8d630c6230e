/* csv.c -- see csv.h. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/csv.h"
#include "sim/textfile.h"

int csv_open(struct csv *c, const char *path, int flags, struct err *e)
{
	memset(c, 0, sizeof *c);
	c->file = path;
	c->flags = flags;
	c->text = textfile_read(path, NULL, e);
	if (c->text == NULL)
		return -1;
	c->next = c->text;
	return 0;
}

void csv_close(struct csv *c)
{
	free(c->text);
	free(c->f);
	memset(c, 0, sizeof *c);
}

int csv_error(const struct csv *c, struct err *e, const char *fmt, ...)
{
	char what[sizeof e->msg];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	return err_set(e, ERR_USAGE, "%s:%ld: %s", c->file, c->line > 0 ? c->line : 1, what);
}

bool csv_is_decimal(const char *s)
{
	bool digits = false;

	if (*s == '+' || *s == '-')
		s++;
	for (; *s >= '0' && *s <= '9'; s++)
		digits = true;
	if (*s == '.')
		for (s++; *s >= '0' && *s <= '9'; s++)
			digits = true;
	if (!digits)
		return false;
	if (*s == 'e' || *s == 'E') {
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	while (*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return *s == '\0';
}

int csv_number(const char *field, double *v)
{
	char *end;

	if (!csv_is_decimal(field))
		return -1;
	errno = 0;
	*v = strtod(field, &end);
	return end != field && *end == '\0' && errno == 0 && isfinite(*v) ? 0 : -1;
}

/* The field separator: a comma, or a tab with CSV_TABS. */
static char sep_of(const struct csv *c)
{
	return (c->flags & CSV_TABS) ? '\t' : ',';
}

/* Blanks around a field; never the separator itself. */
static int is_blank(const struct csv *c, char ch)
{
	return (ch == ' ' || ch == '\t' || ch == '\r') && ch != sep_of(c);
}

/* The next line, NUL-terminated in place without its newline; NULL at the end. */
static char *take_line(struct csv *c)
{
	char *s = c->next, *nl;

	if (*s == '\0')
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		c->next = nl + 1;
	} else {
		c->next = s + strlen(s);
	}
	c->line++;
	return s;
}

/* A blank line (tabs included, whatever the separator), or a comment. */
static int skipped(const struct csv *c, const char *s)
{
	s += strspn(s, " \t\r");
	return *s == '\0' || (*s == '#' && (c->flags & CSV_COMMENTS));
}

static int add_field(struct csv *c, char *field, struct err *e)
{
	if (c->n == c->cap) {
		size_t nc = c->cap ? 2 * c->cap : 16;
		char **nf = realloc(c->f, nc * sizeof *nf);

		if (nf == NULL)
			return err_set(e, ERR_RUN, "out of memory");
		c->f = nf;
		c->cap = nc;
	}
	c->f[c->n++] = field;
	return 0;
}

/* One quoted field from *s (at its opening quote), unquoted in place. */
static int quoted(struct csv *c, char **s, struct err *e)
{
	char *r = *s + 1, *w = *s;

	for (;;) {
		if (*r == '\0')
			return csv_error(c, e, "field %zu: a quote left open (expected a closing "
					 "\" on the same line)", c->n);
		if (*r == '"' && r[1] == '"') {
			*w++ = '"';
			r += 2;
		} else if (*r == '"') {
			r++;
			break;
		} else {
			*w++ = *r++;
		}
	}
	while (is_blank(c, *r))
		r++;
	if (*r != '\0' && *r != sep_of(c))
		return csv_error(c, e, "field %zu: text after the closing quote (expected a "
				 "%s)", c->n, sep_of(c) == ',' ? "comma" : "tab");
	*w = '\0';
	*s = r;
	return 0;
}

static void unquoted(const struct csv *c, char **s)
{
	char *r = *s, *end;

	while (*r != '\0' && *r != sep_of(c))
		r++;
	end = r;
	while (end > *s && is_blank(c, end[-1]))
		end--;
	*s = r;
	if (end != r)
		*end = '\0';	/* else *r is the comma, cut by the caller, or the end */
}

/* CSV_HEADER: the header's names differ; no row is wider than it. */
static int check_width(struct csv *c, struct err *e)
{
	if (c->width == 0) {
		for (size_t i = 0; i < c->n; i++)
			for (size_t j = 0; j < i; j++)
				if (strcmp(c->f[i], c->f[j]) == 0)
					return csv_error(c, e, "column '%s' named twice in the "
							 "header (fields %zu and %zu)", c->f[i],
							 j + 1, i + 1);
		c->width = c->n;
		return 1;
	}
	if (c->n > c->width)
		return csv_error(c, e, "%zu fields, the header has %zu (a trailing %s?)",
				 c->n, c->width, c->flags & CSV_TABS ? "tab" : "comma");
	return 1;
}

static int next_row(struct csv *c, struct err *e);

int csv_next(struct csv *c, struct err *e)
{
	int rc = next_row(c, e);

	return rc > 0 && (c->flags & CSV_HEADER) ? check_width(c, e) : rc;
}

static int next_row(struct csv *c, struct err *e)
{
	char *s;

	do {
		s = take_line(c);
		if (s == NULL)
			return 0;
	} while (skipped(c, s));
	c->n = 0;
	for (;;) {
		char *field;

		while (is_blank(c, *s))
			s++;
		field = s;
		if (add_field(c, field, e) < 0)
			return -1;
		if (*s == '"') {
			if (quoted(c, &s, e) < 0)
				return -1;
		} else {
			unquoted(c, &s);
		}
		if (*s != sep_of(c))
			return 1;
		*s++ = '\0';
	}
}
