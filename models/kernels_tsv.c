/*
 * kernels_tsv.c -- a GPU's measured kernel tables, read from the TSV files
 * tests/bench/measure.py's results are kept in (one folder per GPU, e.g.
 * scenarios/catalog/kernels/h200_sxm/): gemm-bf16.tsv (required),
 * gemm-fp8.tsv and attention.tsv (optional).  Columns are found by their
 * header names (M, N, K, seconds; batch, heads, seq, head_dim, fwd_s,
 * fwd_bwd_s), so the files can carry more.  A folder is read once per
 * process and kept (the planner loads its scenario thousands of times).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models/kernels.h"

#define TSV_COLS_MAX 32
#define TSV_LINE_MAX 1024
#define CACHE_MAX 8

/* One open table: its header's column names and the current row's fields. */
struct tsv {
	FILE *f;
	char path[4096];
	int line;
	char head[TSV_LINE_MAX], row[TSV_LINE_MAX];
	char *names[TSV_COLS_MAX], *fields[TSV_COLS_MAX];
	int n_names, n_fields;
};

static int split(char *s, char **out)
{
	int n = 0;

	s[strcspn(s, "\r\n")] = 0;
	while (n < TSV_COLS_MAX) {
		out[n++] = s;
		s = strchr(s, '\t');
		if (!s)
			break;
		*s++ = 0;
	}
	return n;
}

/* Next line that is not a comment or blank into *buf; 0 at the end. */
static int next_line(struct tsv *t, char *buf)
{
	while (fgets(buf, TSV_LINE_MAX, t->f)) {
		t->line++;
		if (buf[0] != '#' && buf[strspn(buf, " \t\r\n")] != 0)
			return 1;
	}
	return 0;
}

/* Open dir/name; 0 with t->f NULL when absent and optional. */
static int tsv_open(struct tsv *t, const char *dir, const char *name, bool required,
		    struct err *e)
{
	memset(t, 0, sizeof *t);
	snprintf(t->path, sizeof t->path, "%s/%s", dir, name);
	t->f = fopen(t->path, "r");
	if (!t->f)
		return required || errno != ENOENT ?
		       err_set(e, ERR_USAGE, "%s: cannot read: %s", t->path, strerror(errno)) : 0;
	if (!next_line(t, t->head)) {
		fclose(t->f);
		t->f = NULL;
		return err_set(e, ERR_USAGE, "%s: no header line (expected column names)",
			       t->path);
	}
	t->n_names = split(t->head, t->names);
	return 0;
}

static int tsv_col(struct tsv *t, const char *name, struct err *e)
{
	for (int i = 0; i < t->n_names; i++)
		if (strcmp(t->names[i], name) == 0)
			return i;
	return err_set(e, ERR_USAGE, "%s:%d: %s: no such column (expected a header "
		       "naming it)", t->path, t->line, name);
}

/* Field `col` of the current row as a number > 0. */
static int tsv_num(struct tsv *t, int col, double *v, struct err *e)
{
	const char *s = col < t->n_fields ? t->fields[col] : "";
	char *end;

	*v = strtod(s, &end);
	if (end == s || *end != 0 || !(*v > 0))
		return err_set(e, ERR_USAGE, "%s:%d: %s: \"%s\" (expected a number > 0)",
			       t->path, t->line, t->names[col], s);
	return 0;
}

/* Read the columns named in names[0..n) of every row into cols[c][row]. */
static int tsv_read(struct tsv *t, const char *const *names, int n, double **cols,
		    int max_rows, int *rows, struct err *e)
{
	int idx[8];

	*rows = 0;
	for (int c = 0; c < n; c++)
		if ((idx[c] = tsv_col(t, names[c], e)) < 0)
			return -1;
	while (next_line(t, t->row)) {
		if (*rows >= max_rows)
			return err_set(e, ERR_USAGE, "%s:%d: more than %d rows", t->path,
				       t->line, max_rows);
		t->n_fields = split(t->row, t->fields);
		for (int c = 0; c < n; c++)
			if (tsv_num(t, idx[c], &cols[c][*rows], e) < 0)
				return -1;
		++*rows;
	}
	return 0;
}

static int read_gemm(const char *dir, const char *name, bool required,
		     struct kern_gemm_rows *r, struct err *e)
{
	static const char *const names[] = { "M", "N", "K", "seconds" };
	double *cols[] = { r->m, r->nn, r->k, r->s };
	struct tsv t;
	int rc;

	r->n = 0;
	if (tsv_open(&t, dir, name, required, e) < 0)
		return -1;
	if (!t.f)
		return 0;
	rc = tsv_read(&t, names, 4, cols, KERN_GEMM_MAX, &r->n, e);
	fclose(t.f);
	return rc;
}

static int read_attn(const char *dir, struct kern_attn_rows *r, struct err *e)
{
	static const char *const names[] = { "batch", "heads", "seq", "head_dim",
					     "fwd_s", "fwd_bwd_s" };
	double batch[KERN_ATTN_MAX], heads[KERN_ATTN_MAX], both[KERN_ATTN_MAX];
	double *cols[] = { batch, heads, r->seq, r->d, r->fwd_s, both };
	struct tsv t;
	int rc;

	r->n = 0;
	if (tsv_open(&t, dir, "attention.tsv", false, e) < 0)
		return -1;
	if (!t.f)
		return 0;
	rc = tsv_read(&t, names, 6, cols, KERN_ATTN_MAX, &r->n, e);
	fclose(t.f);
	for (int i = 0; rc == 0 && i < r->n; i++) {
		r->bh[i] = batch[i] * heads[i];
		r->bwd_s[i] = both[i] - r->fwd_s[i];
		if (!(r->bwd_s[i] > 0))
			rc = err_set(e, ERR_USAGE, "%s/attention.tsv: row %d: fwd_bwd_s %g "
				     "not above fwd_s %g", dir, i + 1, both[i], r->fwd_s[i]);
	}
	return rc;
}

/* Read dir's tables into t. */
static int load(const char *dir, struct kern_tables *t, struct err *e)
{
	if (read_gemm(dir, "gemm-bf16.tsv", true, &t->bf16, e) < 0 ||
	    read_gemm(dir, "gemm-fp8.tsv", false, &t->fp8, e) < 0 ||
	    read_attn(dir, &t->attn, e) < 0)
		return -1;
	return 0;
}

static struct {
	char dir[4096];
	struct kern_tables *t;
} cache[CACHE_MAX];
static int cached;

int kern_tables_load(const char *dir, struct kern_tables *out, struct err *e)
{
	for (int i = 0; i < cached; i++)
		if (strcmp(cache[i].dir, dir) == 0) {
			*out = *cache[i].t;
			return 0;
		}
	if (load(dir, out, e) < 0)
		return -1;
	struct kern_tables *t = NULL;
	if (cached < CACHE_MAX && strlen(dir) < sizeof cache[0].dir &&
	    (t = malloc(sizeof *t)) != NULL) {	/* else: read again next time */
		*t = *out;
		strcpy(cache[cached].dir, dir);
		cache[cached++].t = t;
	}
	return 0;
}
