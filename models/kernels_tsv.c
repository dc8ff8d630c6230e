/*
 * kernels_tsv.c -- a GPU's measured kernel tables, read from the TSV files
 * tests/bench/measure.py's results are kept in (one folder per GPU, e.g.
 * scenarios/catalog/kernels/h200_sxm/): gemm-bf16.tsv (required),
 * gemm-fp8.tsv and attention.tsv (optional).  Columns are found by their
 * header names (M, N, K, seconds, optionally warm_s; batch, heads, seq,
 * head_dim, fwd_s, fwd_bwd_s), so the files can carry more.  A folder is
 * read once per process and kept (the planner loads its scenario
 * thousands of times).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/csv.h"
#include "models/kernels.h"

#define CACHE_MAX 8

/* One open table: its header's column names (kept: csv_next reuses the
 * row buffer) and the current row in t->c. */
struct tsv {
	struct csv c;
	char path[4096];
	char **names;
	size_t n_names;
};

static void tsv_close(struct tsv *t)
{
	free(t->names);
	csv_close(&t->c);
}

/* Open dir/name; 0 with t->c.text NULL when absent and optional. */
static int tsv_open(struct tsv *t, const char *dir, const char *name, bool required,
		    struct err *e)
{
	struct stat st;
	int rc;

	memset(t, 0, sizeof *t);
	snprintf(t->path, sizeof t->path, "%s/%s", dir, name);
	if (!required && stat(t->path, &st) < 0 && errno == ENOENT)
		return 0;
	if (csv_open(&t->c, t->path, CSV_COMMENTS | CSV_TABS | CSV_HEADER, e) < 0)
		return -1;
	if ((rc = csv_next(&t->c, e)) <= 0) {
		if (rc == 0)
			csv_error(&t->c, e, "no header line (expected column names)");
		tsv_close(t);
		return -1;
	}
	/* The header's fields point into the file's text, which stays. */
	t->names = malloc(t->c.n * sizeof *t->names);
	if (t->names == NULL) {
		tsv_close(t);
		return err_set(e, ERR_RUN, "%s: out of memory", t->path);
	}
	memcpy(t->names, t->c.f, t->c.n * sizeof *t->names);
	t->n_names = t->c.n;
	return 0;
}

static int tsv_col(struct tsv *t, const char *name, struct err *e)
{
	for (size_t i = 0; i < t->n_names; i++)
		if (strcmp(t->names[i], name) == 0)
			return (int)i;
	return csv_error(&t->c, e, "%s: no such column (expected a header naming it)",
			 name);
}

/* Field `col` of the current row as a number > 0 and at most 2^31: the
 * sizes are cuBLAS's and FlashAttention's int32 dimensions, the times
 * seconds of one kernel (2^31 s is 68 years). */
static int tsv_num(struct tsv *t, int col, double *v, struct err *e)
{
	const char *s = (size_t)col < t->c.n ? t->c.f[col] : "";

	if (csv_number(s, v) < 0 || !(*v > 0))
		return csv_error(&t->c, e, "%s: \"%s\" (expected a number > 0)",
				 t->names[col], s);
	if (*v > 0x1p31)
		return csv_error(&t->c, e, "%s: \"%s\" (expected at most 2^31)",
				 t->names[col], s);
	return 0;
}

/* Read the columns named in names[0..n) of every row into cols[c][row]. */
static int tsv_read(struct tsv *t, const char *const *names, int n, double **cols,
		    int max_rows, int *rows, struct err *e)
{
	int idx[8], rc;

	*rows = 0;
	for (int c = 0; c < n; c++)
		if ((idx[c] = tsv_col(t, names[c], e)) < 0)
			return -1;
	while ((rc = csv_next(&t->c, e)) > 0) {
		if (*rows >= max_rows)
			return csv_error(&t->c, e, "more than %d rows", max_rows);
		for (int c = 0; c < n; c++)
			if (tsv_num(t, idx[c], &cols[c][*rows], e) < 0)
				return -1;
		++*rows;
	}
	if (rc == 0 && *rows == 0)
		return csv_error(&t->c, e, "no rows (expected a header and at least one "
				 "measured row)");
	return rc;
}

static bool tsv_has_col(const struct tsv *t, const char *name)
{
	for (size_t i = 0; i < t->n_names; i++)
		if (strcmp(t->names[i], name) == 0)
			return true;
	return false;
}

/* Keep the rows measured at the clocks a training run holds: with a
 * warm_s column, those at least KERN_WARM_S into the sweep (kernels.h). */
static void keep_steady(struct kern_gemm_rows *r, const double *warm_s)
{
	int n = 0;

	for (int i = 0; i < r->n; i++) {
		if (warm_s[i] < KERN_WARM_S)
			continue;
		r->m[n] = r->m[i];
		r->nn[n] = r->nn[i];
		r->k[n] = r->k[i];
		r->s[n++] = r->s[i];
	}
	r->n = n;
}

static int read_gemm(const char *dir, const char *name, bool required,
		     struct kern_gemm_rows *r, struct err *e)
{
	static const char *const names[] = { "M", "N", "K", "seconds", "warm_s" };
	double warm_s[KERN_GEMM_MAX];
	double *cols[] = { r->m, r->nn, r->k, r->s, warm_s };
	struct tsv t;
	int rc;

	r->n = 0;
	if (tsv_open(&t, dir, name, required, e) < 0)
		return -1;
	if (!t.c.text)
		return 0;
	bool warm = tsv_has_col(&t, "warm_s");
	rc = tsv_read(&t, names, warm ? 5 : 4, cols, KERN_GEMM_MAX, &r->n, e);
	tsv_close(&t);
	if (rc == 0 && warm)
		keep_steady(r, warm_s);
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
	if (!t.c.text)
		return 0;
	rc = tsv_read(&t, names, 6, cols, KERN_ATTN_MAX, &r->n, e);
	tsv_close(&t);
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
