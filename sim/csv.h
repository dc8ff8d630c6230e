/*
 * csv.h -- rows of comma-separated fields from a text file, with errors
 * that say FILE:LINE.  Fields follow RFC 4180: double quotes around a field
 * let it hold commas, and "" inside them is one quote; a row is one line
 * (no line breaks inside quotes).
 *
 *   struct csv c;
 *   int rc;
 *   if (csv_open(&c, path, CSV_COMMENTS, &e) < 0)
 *           return -1;                  // "FILE: cannot read: ..."
 *   while ((rc = csv_next(&c, &e)) > 0)
 *           if (csv_number(c.f[0], &t_s) < 0)
 *                   rc = csv_error(&c, &e, "bad time '%s' (expected ...)", c.f[0]);
 *   csv_close(&c);                      // rc < 0: e.msg is "FILE:LINE: what"
 *
 * Blank lines are skipped, and with CSV_COMMENTS the lines whose first
 * character that is not blank is '#'.  Unquoted fields lose the blanks
 * around them and a CR at the end of the line (files from Windows).  A
 * quote left open, or text after a closing quote, is an error.  With
 * CSV_TABS the separator is a tab (tab-separated tables).
 */
#ifndef SIM_CSV_H
#define SIM_CSV_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/err.h"

/* CSV_TABS: fields split at tabs instead of commas (TSV files).
 * CSV_HEADER: the first row is a header: its names must differ, and no
 * later row may have more fields than it (a trailing comma, a stray
 * column: "FILE:LINE: 3 fields, the header has 2"). */
enum { CSV_COMMENTS = 1, CSV_TABS = 2, CSV_HEADER = 4 };

struct csv {
	const char *file;	/* for messages: the caller's string */
	char *text;		/* the whole file, split in place */
	char *next;		/* the next line's start */
	long line;		/* the current row's line, from 1 */
	char **f;		/* the current row's fields ... */
	size_t n;		/* ... and how many (at least 1) */
	size_t cap;
	int flags;
	size_t width;		/* CSV_HEADER: the header's fields (0 before it) */
};

int csv_open(struct csv *c, const char *path, int flags, struct err *e);
/* The next row into c->f: 1, or 0 at the end, or -1 with e filled. */
int csv_next(struct csv *c, struct err *e);
void csv_close(struct csv *c);

/* "FILE:LINE: " and the message, ERR_USAGE; returns -1.  Before the
 * first row (an empty file) the line is 1. */
int csv_error(const struct csv *c, struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A field that is a finite number and nothing else: 0, or -1. */
int csv_number(const char *field, double *v);
/* Is s a plain decimal number ([+-]digits[.digits][e[+-]digits], blanks
 * after)?  strtod alone also takes hex (0x12c read as 300), inf and nan,
 * none of which a trace means; every number read from a trace passes
 * this first. */
bool csv_is_decimal(const char *s);

#endif
