/*
 * collect.c -- `trainsim collect [-o TABLE.h5] RUN.h5...`: one row per run,
 * the table a sweep ends with.
 *
 * Columns: run (the file as named), seed, then every override that defines
 * some run (the root attribute "overrides", one KEY=VALUE per line, as given
 * to -s and --seed), then every /summary figure.  Keys are the union over
 * all runs in first-seen order, so a study over settings or models that a
 * later trainsim adds needs no change here; a key a run lacks reads NA, a
 * NaN figure reads nan (gnuplot reads both as missing / undefined).
 *
 * The table goes to stdout as TSV (a header line, then rows; numbers as
 * %.17g, so they read back bit for bit, as --json prints them) and, with
 * -o, to an HDF5 file: /results/COLUMN datasets in column order, strings
 * for run and overrides, float64 with a "unit" attribute for figures, all
 * of one length (a column-wise table, readable by h5dump and pandas).
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/h5in.h"
#include "sim/outpath.h"
#include "sim/h5out.h"
#include "cli/cmd.h"
#include "cli/progress.h"

struct keys {
	char **names, **units;
	size_t n, cap;
};

struct row {
	const char *run;
	double seed;
	char **ov_keys, **ov_vals;	/* this run's overrides */
	size_t n_ov;
	struct h5in_attrs sum;
};

static const char collect_usage[] =
	"usage: trainsim collect [-o TABLE.h5] RUN.h5...\n"
	"One row per run: seed, the -s overrides that define it, every summary figure.\n"
	"TSV on stdout; with -o also an HDF5 table (/results/COLUMN).\n"
	"  -o TABLE.h5   also write the table as HDF5\n";

static int keys_find(const struct keys *k, const char *name)
{
	for (size_t i = 0; i < k->n; i++)
		if (strcmp(k->names[i], name) == 0)
			return (int)i;
	return -1;
}

static int keys_add(struct keys *k, const char *name, const char *unit)
{
	if (keys_find(k, name) >= 0)
		return 0;
	if (k->n == k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 32;
		char **nn = realloc(k->names, cap * sizeof *nn), **uu;

		if (nn == NULL)
			return -1;
		k->names = nn;
		if ((uu = realloc(k->units, cap * sizeof *uu)) == NULL)
			return -1;
		k->units = uu;
		k->cap = cap;
	}
	k->names[k->n] = strdup(name);
	k->units[k->n] = strdup(unit ? unit : "");
	if (k->names[k->n] == NULL || k->units[k->n] == NULL) {
		free(k->names[k->n]);
		free(k->units[k->n]);
		return -1;
	}
	k->n++;
	return 0;
}

static void keys_free(struct keys *k)
{
	for (size_t i = 0; i < k->n; i++) {
		free(k->names[i]);
		free(k->units[i]);
	}
	free(k->names);
	free(k->units);
}

static void row_free(struct row *r)
{
	h5in_names_free(r->ov_keys, r->n_ov);
	h5in_names_free(r->ov_vals, r->n_ov);
	h5in_attrs_free(&r->sum);
}

/* Table cells hold no tabs or newlines; a quoted string loses its quotes. */
static char *cell_text(const char *s, size_t len)
{
	char *c;

	if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
		s++;
		len -= 2;
	}
	if ((c = malloc(len + 1)) == NULL)
		return NULL;
	for (size_t i = 0; i < len; i++)
		c[i] = (s[i] == '\t' || s[i] == '\n' || s[i] == '\r') ? ' ' : s[i];
	c[len] = '\0';
	return c;
}

/* "a.b=1\nc=x\n" -> keys and values; a later KEY=... overrides an earlier
 * one, as on the command line. */
static int parse_overrides(const char *text, struct row *r)
{
	size_t cap = 1;

	for (const char *p = text; *p; p++)
		cap += *p == '\n';
	r->ov_keys = calloc(cap, sizeof *r->ov_keys);
	r->ov_vals = calloc(cap, sizeof *r->ov_vals);
	if (r->ov_keys == NULL || r->ov_vals == NULL)
		return -1;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *eq;
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		size_t i;
		char *key;

		eq = memchr(p, '=', len);
		if (eq != NULL && eq > p) {
			if ((key = cell_text(p, (size_t)(eq - p))) == NULL)
				return -1;
			for (i = 0; i < r->n_ov && strcmp(r->ov_keys[i], key); i++)
				;
			if (i < r->n_ov) {
				free(key);
				free(r->ov_vals[i]);
			} else {
				r->ov_keys[r->n_ov++] = key;
			}
			r->ov_vals[i] = cell_text(eq + 1, len - (size_t)(eq - p) - 1);
			if (r->ov_vals[i] == NULL)
				return -1;
		}
		p += len + (nl != NULL);
	}
	return 0;
}

static int read_row(const char *path, struct row *r, struct err *e)
{
	struct h5in *f = h5in_open(path, e);
	char *ov = NULL;
	int rc = -1;

	memset(r, 0, sizeof *r);
	r->run = path;
	r->seed = NAN;
	if (f == NULL)
		return -1;
	if (h5in_check_run(f, e) < 0 ||
	    h5in_float_attrs(f, "/summary", &r->sum, e) < 0)
		goto out;
	ov = h5in_attr_str(f, "/", "overrides", e);
	if (ov == NULL && e->status)
		goto out;
	if (parse_overrides(ov ? ov : "", r) < 0) {
		err_set(e, ERR_RUN, "%s: out of memory", path);
		goto out;
	}
	{
		/* The seed is a uint64 attribute; read it as a figure. */
		struct h5in_attrs root;

		if (h5in_float_attrs(f, "/", &root, e) < 0)
			goto out;
		for (size_t i = 0; i < root.n; i++)
			if (strcmp(root.names[i], "seed") == 0)
				r->seed = root.values[i];
		h5in_attrs_free(&root);
	}
	rc = 0;
out:
	free(ov);
	h5in_close(f);
	return rc;
}

static const char *row_override(const struct row *r, const char *key)
{
	for (size_t i = 0; i < r->n_ov; i++)
		if (strcmp(r->ov_keys[i], key) == 0)
			return r->ov_vals[i];
	return NULL;
}

static double row_figure(const struct row *r, const char *key, int *found)
{
	for (size_t i = 0; i < r->sum.n; i++)
		if (strcmp(r->sum.names[i], key) == 0) {
			*found = 1;
			return r->sum.values[i];
		}
	*found = 0;
	return NAN;
}

static void print_number(double v, FILE *out)
{
	if (isnan(v))
		fputs("nan", out);
	else
		fprintf(out, "%.17g", v);
}

static void print_tsv(const struct row *rows, size_t n, const struct keys *ov,
		      const struct keys *fig, FILE *out)
{
	fputs("run\tseed", out);
	for (size_t k = 0; k < ov->n; k++)
		fprintf(out, "\t%s", ov->names[k]);
	for (size_t k = 0; k < fig->n; k++)
		fprintf(out, "\t%s", fig->names[k]);
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		fputs(rows[i].run, out);
		fputc('\t', out);
		print_number(rows[i].seed, out);
		for (size_t k = 0; k < ov->n; k++) {
			const char *v = row_override(&rows[i], ov->names[k]);
			fprintf(out, "\t%s", v ? v : "NA");
		}
		for (size_t k = 0; k < fig->n; k++) {
			int found;
			double v = row_figure(&rows[i], fig->names[k], &found);

			fputc('\t', out);
			if (found)
				print_number(v, out);
			else
				fputs("NA", out);
		}
		fputc('\n', out);
	}
}

/* The same table, column by column, into an HDF5 file. */
static int write_h5(const char *path, const struct row *rows, size_t n,
		    const struct keys *ov, const struct keys *fig, struct err *e)
{
	struct h5o *f = h5o_create(path, e);
	const char **strs = calloc(n ? n : 1, sizeof *strs);
	double *v = calloc(n ? n : 1, sizeof *v);
	char dset[1024];
	int rc = -1;

	if (f == NULL)
		goto out;
	if (strs == NULL || v == NULL) {
		err_set(e, ERR_RUN, "%s: out of memory", path);
		goto out;
	}
	if (h5o_group(f, "/results", e) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		strs[i] = rows[i].run;
	if (h5o_vec_str(f, "/results/run", strs, n, e) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		v[i] = rows[i].seed;
	if (h5o_vec_f64(f, "/results/seed", v, n, "", e) < 0)
		goto out;
	for (size_t k = 0; k < ov->n; k++) {
		for (size_t i = 0; i < n; i++) {
			const char *s = row_override(&rows[i], ov->names[k]);
			strs[i] = s ? s : "NA";
		}
		snprintf(dset, sizeof dset, "/results/%s", ov->names[k]);
		if (h5o_vec_str(f, dset, strs, n, e) < 0)
			goto out;
	}
	for (size_t k = 0; k < fig->n; k++) {
		for (size_t i = 0; i < n; i++) {
			int found;
			v[i] = row_figure(&rows[i], fig->names[k], &found);
		}
		snprintf(dset, sizeof dset, "/results/%s", fig->names[k]);
		if (h5o_vec_f64(f, dset, v, n, fig->units[k], e) < 0)
			goto out;
	}
	rc = h5o_commit(f, e);
	f = NULL;
out:
	if (f)
		h5o_abort(f);
	free(strs);
	free(v);
	return rc;
}

int cmd_collect(int argc, char **argv, struct err *e)
{
	const char *h5_path = NULL;
	struct keys ov = { 0 }, fig = { 0 };
	struct row *rows = NULL;
	struct progress prog = { 0 };
	size_t n = 0;
	int ch, rc = -1;

	static const struct option longs[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+o:h", longs, NULL)) != -1) {
		switch (ch) {
		case 'o': h5_path = optarg; break;
		case 'h': fputs(collect_usage, stdout); return 0;
		default:
			return err_set(e, ERR_USAGE, "trainsim collect: bad option %s\n%s",
				       argv[optind - 1], collect_usage);
		}
	}
	if (optind >= argc)
		return err_set(e, ERR_USAGE, "%s", collect_usage);
	if (h5_path && outp_check(h5_path, (const char *const *)argv + optind,
				  (size_t)(argc - optind), e) < 0)
		return -1;
	rows = calloc((size_t)(argc - optind), sizeof *rows);
	if (rows == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	progress_init(&prog, false);
	for (int a = optind; a < argc; a++) {
		struct row *r = &rows[n++];

		progress_count(&prog, "runs read", n - 1, (size_t)(argc - optind));
		if (read_row(argv[a], r, e) < 0)
			goto out;
		for (size_t i = 0; i < r->n_ov; i++)
			if (keys_add(&ov, r->ov_keys[i], "") < 0)
				goto oom;
		for (size_t i = 0; i < r->sum.n; i++)
			if (keys_add(&fig, r->sum.names[i], r->sum.units[i]) < 0)
				goto oom;
	}
	progress_end(&prog);
	if (h5_path && write_h5(h5_path, rows, n, &ov, &fig, e) < 0)
		goto out;
	print_tsv(rows, n, &ov, &fig, stdout);
	rc = fflush(stdout) == 0 ? 0 : err_set(e, ERR_RUN, "collect: cannot write stdout");
	goto out;
oom:
	err_set(e, ERR_RUN, "out of memory");
out:
	progress_end(&prog);
	for (size_t i = 0; i < n; i++)
		row_free(&rows[i]);
	free(rows);
	keys_free(&ov);
	keys_free(&fig);
	return rc;
}
