/*
 * export.c -- `trainsim export`: a run file's contents as whitespace
 * columns, for gnuplot and other tools that read text.
 *
 *   trainsim export RUN.h5 [SERIES...]   time_s and the named series (all
 *                                        when none are named), one row per
 *                                        sample; a "# name ..." header line
 *   trainsim export --list RUN.h5        series: name unit, one a line
 *   trainsim export --step-list RUN.h5   /step datasets: name num|str length unit
 *   trainsim export --summary RUN.h5     summary figures: name value unit
 *   trainsim export --events RUN.h5 [KIND...]
 *                                        time_s kind who value (all kinds
 *                                        when none are named)
 *   trainsim export --attr RUN.h5 NAME  a root string attribute as it is
 *                                        (model, gpu, region, scenario, ...);
 *                                        empty when the file has none
 *   trainsim export --step RUN.h5 [NAME...]
 *                                        /step scalars (name value unit) or,
 *                                        when named, /step vectors as columns
 *                                        (labels as words)
 *   trainsim export --table NAME RUN.h5 [COLUMN...]
 *                                        a table's columns (all when none
 *                                        are named), e.g. /jobs and /teams
 *                                        of trainsim cluster
 *
 * Numbers are printed with %.17g (exact).  A name the file lacks is a usage
 * error that lists what the file has.  Text never contains a blank in a
 * field (blanks in labels become '_'), so every row has the same columns.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/h5in.h"
#include "cli/cmd.h"

enum export_mode { EX_SERIES, EX_LIST, EX_SUMMARY, EX_EVENTS, EX_STEP, EX_STEP_LIST,
		   EX_ATTR, EX_TABLE };

static const char export_usage[] =
	"usage: trainsim export [--list|--summary|--events|--step|--step-list|--attr|\n"
	"                        --table NAME] RUN.h5 [NAME...]\n"
	"Print a run's time series (default), series list, summary, events,\n"
	"/step data, root attributes or a table as whitespace-separated columns\n"
	"(see doc/whatif.txt).\n"
	"  --list        the names of the series\n"
	"  --summary     every summary figure, with its unit\n"
	"  --events      the events: time, kind, who, value\n"
	"  --step        the step model's iteration breakdown\n"
	"  --step-list   the names of the /step data\n"
	"  --attr        the root attributes (scenario, version, seed, ...)\n"
	"  --table NAME  a cluster run's table: jobs or teams\n";

static void print_word(const char *s, FILE *out)
{
	if (*s == '\0')
		fputc('-', out);
	for (; *s; s++)
		fputc(*s == ' ' || *s == '\t' || *s == '\n' ? '_' : *s, out);
}

static int print_attrs(struct h5in *f, const char *obj, FILE *out, struct err *e)
{
	struct h5in_attrs a;

	if (h5in_float_attrs(f, obj, &a, e) < 0)
		return -1;
	for (size_t i = 0; i < a.n; i++) {
		print_word(a.names[i], out);
		fprintf(out, " %.17g ", a.values[i]);
		print_word(a.units[i], out);
		fputc('\n', out);
	}
	h5in_attrs_free(&a);
	return 0;
}

/* Which of the names asked for the group lacks: an error listing what it has. */
static int missing(struct h5in *f, const char *group, char **have, size_t n_have,
		   const char *name, struct err *e)
{
	char list[768] = "";
	size_t len = 0;

	for (size_t i = 0; i < n_have && len + 2 < sizeof list; i++)
		if (strcmp(have[i], "units") != 0)
			len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
						len ? " " : "", have[i]);
	return err_set(e, ERR_USAGE, "%s: no %s in %s (there are: %s)", h5in_path(f),
		       name, group, list);
}

/* Columns of 1-D datasets of one group: first (when not NULL), then the
 * named ones; a shorter column is padded with nan. */
static int print_columns(struct h5in *f, const char *group, const char *first,
			 char **names, size_t n_names, FILE *out, struct err *e)
{
	char **have = NULL, path[512];
	size_t n_have = 0, rows = 0, ncol = n_names + (first != NULL);
	double **num = calloc(ncol ? ncol : 1, sizeof *num);
	char ***str = calloc(ncol ? ncol : 1, sizeof *str);
	size_t *len = calloc(ncol ? ncol : 1, sizeof *len);
	int rc = -1;

	if (num == NULL || str == NULL || len == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		goto out;
	}
	if (h5in_members(f, group, &have, &n_have, e) < 0)
		goto out;
	for (size_t c = 0; c < ncol; c++) {
		const char *name = first ? (c == 0 ? first : names[c - 1]) : names[c];
		size_t k;

		for (k = 0; k < n_have && strcmp(have[k], name); k++)
			;
		if (k == n_have || strcmp(name, "units") == 0) {
			missing(f, group, have, n_have, name, e);
			goto out;
		}
		snprintf(path, sizeof path, "%s/%s", group, name);
		if (h5in_is_strings(f, path) ? h5in_read_strs(f, path, &str[c], &len[c], e)
					     : h5in_read_f64(f, path, &num[c], &len[c], e))
			goto out;
		if (c == 0 || len[c] > rows)
			rows = len[c];
	}
	fputs("#", out);
	for (size_t c = 0; c < ncol; c++)
		fprintf(out, " %s", first ? (c == 0 ? first : names[c - 1]) : names[c]);
	fputc('\n', out);
	for (size_t i = 0; i < rows; i++) {
		for (size_t c = 0; c < ncol; c++) {
			if (c)
				fputc(' ', out);
			if (i >= len[c])
				fputs("nan", out);	/* a shorter vector */
			else if (str[c])
				print_word(str[c][i], out);
			else
				fprintf(out, "%.17g", num[c][i]);
		}
		fputc('\n', out);
	}
	rc = 0;
out:
	for (size_t c = 0; num && c < ncol; c++) {
		free(num[c]);
		if (str[c])
			h5in_names_free(str[c], len[c]);
	}
	free(num);
	free(str);
	free(len);
	h5in_names_free(have, n_have);
	return rc;
}

static int export_series(struct h5in *f, char **names, size_t n, FILE *out,
			 struct err *e)
{
	char **have;
	size_t n_have;
	int rc;

	if (n > 0)
		return print_columns(f, "/timeseries", "time_s", names, n, out, e);
	/* All of them, time_s first as written. */
	if (h5in_members(f, "/timeseries", &have, &n_have, e) < 0)
		return -1;
	if (n_have == 0) {
		h5in_names_free(have, n_have);
		return err_set(e, ERR_USAGE, "%s: no /timeseries", h5in_path(f));
	}
	rc = print_columns(f, "/timeseries", NULL, have, n_have, out, e);
	h5in_names_free(have, n_have);
	return rc;
}

/* A table's named columns, or all of them. */
static int export_table(struct h5in *f, const char *table, char **names, size_t n,
			FILE *out, struct err *e)
{
	char group[256], **have;
	size_t n_have;
	int rc;

	snprintf(group, sizeof group, "/%s", table);
	if (!h5in_exists(f, group))
		return err_set(e, ERR_USAGE, "%s: no table %s", h5in_path(f), group);
	if (n > 0)
		return print_columns(f, group, NULL, names, n, out, e);
	if (h5in_members(f, group, &have, &n_have, e) < 0)
		return -1;
	rc = print_columns(f, group, NULL, have, n_have, out, e);
	h5in_names_free(have, n_have);
	return rc;
}

/* Members of group; with_shape adds whether each holds numbers or
 * strings and its length (the units group of /step is left out). */
static int export_list(struct h5in *f, const char *group, int with_shape, FILE *out,
		       struct err *e)
{
	char **have, path[512];
	size_t n;

	if (h5in_members(f, group, &have, &n, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct err ue = { 0 };
		char *unit;

		if (strcmp(have[i], "units") == 0)
			continue;
		snprintf(path, sizeof path, "%s/%s", group, have[i]);
		unit = h5in_attr_str(f, path, "unit", &ue);
		print_word(have[i], out);
		if (with_shape) {
			int str = h5in_is_strings(f, path);
			double *v = NULL;
			char **sv = NULL;
			size_t len = 0;

			if (str ? h5in_read_strs(f, path, &sv, &len, &ue)
				: h5in_read_f64(f, path, &v, &len, &ue))
				len = 0;
			if (sv)
				h5in_names_free(sv, len);
			free(v);
			fprintf(out, " %s %zu", str ? "str" : "num", len);
		}
		fputc(' ', out);
		print_word(unit ? unit : "", out);
		fputc('\n', out);
		free(unit);
	}
	h5in_names_free(have, n);
	return 0;
}

static int export_events(struct h5in *f, char **kinds, size_t n_kinds, FILE *out,
			 struct err *e)
{
	struct h5in_event *ev;
	size_t n;

	if (h5in_read_events(f, &ev, &n, e) < 0)
		return -1;
	fputs("# time_s kind who value\n", out);
	for (size_t i = 0; i < n; i++) {
		size_t k;

		for (k = 0; k < n_kinds && strcmp(kinds[k], ev[i].kind); k++)
			;
		if (n_kinds && k == n_kinds)
			continue;
		fprintf(out, "%.17g ", ev[i].time_s);
		print_word(ev[i].kind, out);
		fprintf(out, " %lld %.17g\n", (long long)ev[i].who, ev[i].value);
	}
	free(ev);
	return 0;
}

/* One root string attribute and a newline; nothing but the newline when
 * the file has none (files of older trainsims lack model, gpu, region). */
static int export_attr(struct h5in *f, char **names, size_t n, FILE *out, struct err *e)
{
	char *v;

	if (n != 1)
		return err_set(e, ERR_USAGE, "trainsim export --attr: name one attribute\n%s",
			       export_usage);
	v = h5in_attr_str(f, "/", names[0], e);
	if (v == NULL && e->status != ERR_OK)
		return -1;
	fprintf(out, "%s\n", v ? v : "");
	free(v);
	return 0;
}

int cmd_export(int argc, char **argv, struct err *e)
{
	static const struct option longs[] = {
		{ "list", no_argument, NULL, 'l' },
		{ "summary", no_argument, NULL, 'S' },
		{ "events", no_argument, NULL, 'E' },
		{ "step", no_argument, NULL, 'P' },
		{ "step-list", no_argument, NULL, 'T' },
		{ "attr", no_argument, NULL, 'A' },
		{ "table", required_argument, NULL, 'B' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	enum export_mode mode = EX_SERIES;
	const char *table = NULL;
	struct h5in *f;
	char **names;
	size_t n;
	int ch, rc;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+h", longs, NULL)) != -1) {
		switch (ch) {
		case 'l': mode = EX_LIST; break;
		case 'S': mode = EX_SUMMARY; break;
		case 'E': mode = EX_EVENTS; break;
		case 'P': mode = EX_STEP; break;
		case 'T': mode = EX_STEP_LIST; break;
		case 'A': mode = EX_ATTR; break;
		case 'B': mode = EX_TABLE; table = optarg; break;
		case 'h': fputs(export_usage, stdout); return 0;
		default:
			return err_set(e, ERR_USAGE, "trainsim export: bad option %s\n%s",
				       argv[optind - 1], export_usage);
		}
	}
	if (optind >= argc)
		return err_set(e, ERR_USAGE, "%s", export_usage);
	if ((f = h5in_open(argv[optind], e)) == NULL)
		return -1;
	if (h5in_check_run(f, e) < 0) {
		h5in_close(f);
		return -1;
	}
	names = argv + optind + 1;
	n = (size_t)(argc - optind - 1);
	switch (mode) {
	case EX_LIST: rc = export_list(f, "/timeseries", 0, stdout, e); break;
	case EX_STEP_LIST: rc = export_list(f, "/step", 1, stdout, e); break;
	case EX_SUMMARY: rc = print_attrs(f, "/summary", stdout, e); break;
	case EX_EVENTS: rc = export_events(f, names, n, stdout, e); break;
	case EX_ATTR: rc = export_attr(f, names, n, stdout, e); break;
	case EX_TABLE: rc = export_table(f, table, names, n, stdout, e); break;
	case EX_STEP:
		rc = n ? print_columns(f, "/step", NULL, names, n, stdout, e)
		       : print_attrs(f, "/step", stdout, e);
		break;
	default: rc = export_series(f, names, n, stdout, e); break;
	}
	h5in_close(f);
	if (rc == 0 && fflush(stdout) != 0)
		rc = err_set(e, ERR_RUN, "export: cannot write stdout");
	return rc;
}
