/*
 * vtsv.h -- reading make validate's tables (the .tsv files beside the
 * validation scenarios): tab-separated rows, '#' lines and blank lines
 * skipped, the first row the column names.
 *
 *   while ((nf = vtsv_next(in, buf, sizeof buf, field, MAX)) >= 0) ...
 *
 * or, for a table of a fixed width whose last column is the row's status:
 *
 *   struct vtsv t = { in, path, FIELDS };
 *   while (vtsv_runnable(&t, buf, sizeof buf, field, &status)) ...
 */
#ifndef TESTS_BENCH_VTSV_H
#define TESTS_BENCH_VTSV_H

#include <stdio.h>
#include <string.h>

/* Split one line in place at its tabs (its newline dropped): the number
 * of fields, at most max (the rest stay in the last). */
static inline int vtsv_split(char *buf, char **field, int max)
{
	int n = 0;
	char *p = buf;

	buf[strcspn(buf, "\r\n")] = '\0';
	while (n < max) {
		field[n++] = p;
		p = strchr(p, '\t');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

/* The next row of in, read into buf and split: its number of fields, or
 * -1 at the end of the file. */
static inline int vtsv_next(FILE *in, char *buf, int len, char **field, int max)
{
	while (fgets(buf, len, in))
		if (buf[0] != '#' && buf[0] != '\n')
			return vtsv_split(buf, field, max);
	return -1;
}

/* A table of `fields` columns, the last one "runnable" or why not. */
struct vtsv {
	FILE *in;
	const char *path;	/* for messages */
	int fields;
	int rows_read;		/* the header included */
};

/* The next runnable row into field (fields + 1 pointers): 1, or 0 at the
 * end.  A row of the wrong width is reported on stderr and sets *bad. */
static inline int vtsv_runnable(struct vtsv *t, char *buf, int len, char **field, int *bad)
{
	int nf;

	while ((nf = vtsv_next(t->in, buf, len, field, t->fields + 1)) >= 0) {
		if (t->rows_read++ == 0)	/* the column names */
			continue;
		if (nf != t->fields) {
			fprintf(stderr, "%s: %d fields in row %s (expected %d)\n", t->path,
				nf, field[0], t->fields);
			*bad = 1;
			continue;
		}
		if (strcmp(field[t->fields - 1], "runnable") == 0)
			return 1;
	}
	return 0;
}

#endif
