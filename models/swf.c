/*
 * swf.c -- SWF and CSV job traces (see swf.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/infile.h"
#include "sim/csv.h"
#include "models/swf.h"
#include "models/trace.h"

#define SWF_FIELDS 18
#define LINE_MAX_BYTES 4096

static const char *const swf_names[SWF_FIELDS] = {
	"job_number", "submit_time", "wait_time", "run_time", "allocated_processors",
	"average_cpu_time", "used_memory", "requested_processors", "requested_time",
	"requested_memory", "status", "user_id", "group_id", "executable",
	"queue", "partition", "preceding_job", "think_time",
};

static int read_line(FILE *f, char *buf, const char *path, long line, struct err *e)
{
	size_t n;

	if (fgets(buf, LINE_MAX_BYTES, f) == NULL)
		return 0;
	/* fgets stops at a newline, not at a NUL: a NUL before the line's
	 * end hides its tail from strchr (and means binary data). */
	n = strlen(buf);
	if ((n == 0 || buf[n - 1] != '\n') && !feof(f) && n + 1 < LINE_MAX_BYTES)
		return err_set(e, ERR_USAGE, "%s:%ld: a NUL byte (expected text: is it "
			       "binary or UTF-16?)", path, line);
	if (strchr(buf, '\n') == NULL && !feof(f))
		return err_set(e, ERR_USAGE, "%s:%ld: line longer than %d bytes", path,
			       line, LINE_MAX_BYTES - 1);
	return 1;
}

static int swf_row(char *buf, const char *path, long line, double *v, struct err *e)
{
	int n = 0;
	char *save = NULL;

	for (char *t = strtok_r(buf, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
		char *end;

		if (n == SWF_FIELDS)
			return err_set(e, ERR_USAGE, "%s:%ld: more than %d fields (expected "
				       "the 18 of SWF)", path, line, SWF_FIELDS);
		errno = 0;
		v[n] = strtod(t, &end);
		if (!csv_is_decimal(t) || errno || *end || !isfinite(v[n]))
			return err_set(e, ERR_USAGE, "%s:%ld: %s: \"%s\" is not a number",
				       path, line, swf_names[n], t);
		n++;
	}
	if (n == 0)
		return 0;
	if (n != SWF_FIELDS)
		return err_set(e, ERR_USAGE, "%s:%ld: %d fields (expected the 18 of SWF)",
			       path, line, n);
	return 1;
}

static int tagged(struct cjobs *js, struct cjob *j, const char *what, double id,
		  struct err *e)
{
	char name[48];

	snprintf(name, sizeof name, "%s%.0f", what, id);
	int k = what[0] == 'u' ? cjobs_team(js, name, e) : cjobs_project(js, name, e);
	if (k < 0)
		return -1;
	if (what[0] == 'u')
		j->team = k;
	else
		j->project = k;
	return 0;
}

static int swf_job(struct cjobs *js, const double *v, int gpn, int klass,
		   const char *path, long line, struct err *e)
{
	double gpus = v[7] > 0 ? v[7] : v[4];

	if (v[3] <= 0 || gpus <= 0)
		return 0;		/* never ran: skipped */
	if (v[1] < 0)
		return err_set(e, ERR_USAGE, "%s:%ld: submit_time: %.17g is negative",
			       path, line, v[1]);
	static const int times[] = { 1, 3, 8 };	/* submit, run, requested time */
	for (size_t i = 0; i < sizeof times / sizeof times[0]; i++) {
		int k = times[i];
		if (v[k] > TRACE_SPAN_MAX_S)
			return err_set(e, ERR_USAGE, "%s:%ld: %s: %.17g s is past %.0f s "
				       "(the %d..%d window of every trace)", path, line,
				       swf_names[k], v[k], TRACE_SPAN_MAX_S, TRACE_YEAR_MIN,
				       TRACE_YEAR_MAX);
	}
	if (gpus > 1e7 || gpus != floor(gpus))
		return err_set(e, ERR_USAGE, "%s:%ld: requested_processors: %.17g is not "
			       "a whole count up to 10^7", path, line, gpus);
	struct cjob *j = cjobs_add(js, e);
	if (j == NULL)
		return -1;
	j->id = (int64_t)v[0];
	j->submit_s = v[1];
	j->work_s = v[3];
	j->limit_s = v[8] > 0 ? fmax(v[8], v[3]) : v[3];
	j->gpus = (int)gpus;
	j->nodes = (j->gpus + gpn - 1) / gpn;
	j->klass = klass;
	if (tagged(js, j, "user", v[11], e) < 0 || tagged(js, j, "group", v[12], e) < 0)
		return -1;
	return 1;
}

long swf_read(const char *path, int gpus_per_node, int klass, struct cjobs *js,
	      struct err *e)
{
	char buf[LINE_MAX_BYTES];
	double v[SWF_FIELDS];
	long line = 0, jobs = 0;
	FILE *f = infile_check(path, e) < 0 ? NULL : fopen(path, "r");
	int rc;

	if (f == NULL && e->status)
		return -1;
	if (f == NULL)
		return err_set(e, ERR_USAGE, "%s: cannot open: %s", path, strerror(errno));
	while ((rc = read_line(f, buf, path, ++line, e)) > 0) {
		char *p = buf;
		if (line == 1 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
			p += 3;		/* a UTF-8 byte-order mark, as textfile.h drops */
		p += strspn(p, " \t");
		if (*p == ';')
			continue;
		if ((rc = swf_row(p, path, line, v, e)) < 0)
			break;
		if (rc == 0)
			continue;
		if ((rc = swf_job(js, v, gpus_per_node, klass, path, line, e)) < 0)
			break;
		jobs += rc;
	}
	fclose(f);
	if (rc == 0 && jobs == 0)
		return err_set(e, ERR_USAGE, "%s:%ld: no jobs (expected SWF lines of jobs that "
			       "ran on processors: run_time > 0)", path, line - 1 > 0 ? line - 1 : 1);
	return rc < 0 ? -1 : jobs;
}

/* --- CSV ------------------------------------------------------------------ */

enum { C_ID, C_USER, C_GPUS, C_SUBMIT, C_START, C_END, C_STATE, C_PROJECT, C_COUNT };
static const char *const csv_names[C_COUNT] = {
	"job_id", "user", "gpus", "submit", "start", "end", "state", "project",
};
/* Seconds, or a UTC time "YYYY-MM-DD HH:MM:SS" (trace_parse_utc: the C
 * library's calendar). */
static int csv_time(const char *t, double *out)
{
	int64_t utc_s;
	char *end;

	if (trace_parse_utc(t, &utc_s) == 0) {
		*out = (double)utc_s;
		return 0;
	}
	errno = 0;
	*out = strtod(t, &end);
	return !csv_is_decimal(t) || errno || end == t || *end || !isfinite(*out) ||
	       fabs(*out) > TRACE_SPAN_MAX_S ? -1 : 0;
}

static int csv_header(const struct csv *c, int *col, struct err *e)
{
	for (int c = 0; c < C_COUNT; c++)
		col[c] = -1;
	for (size_t i = 0; i < c->n; i++)
		for (int k = 0; k < C_COUNT; k++)
			if (strcmp(c->f[i], csv_names[k]) == 0)
				col[k] = (int)i;
	for (int k = 0; k < C_PROJECT; k++)
		if (col[k] < 0)
			return csv_error(c, e, "%s: column missing (expected a header with "
					 "job_id,user,gpus,submit,start,end,state)", csv_names[k]);
	return 0;
}

struct csv_ctx {
	const char *path;
	const int *col;
	int gpn, klass;
	double t0;
	struct cjobs *js;
};

static int csv_job(struct csv_ctx *x, char *const *f, int n, long line, struct err *e)
{
	double t[3], gpus;
	char *end;

	for (int c = 0; c < C_COUNT; c++)
		if (x->col[c] >= n)
			return err_set(e, ERR_USAGE, "%s:%ld: %s: missing (row has %d "
				       "fields)", x->path, line, csv_names[c], n);
	errno = 0;
	gpus = strtod(f[x->col[C_GPUS]], &end);
	if (!csv_is_decimal(f[x->col[C_GPUS]]) || errno || *end || end == f[x->col[C_GPUS]] || gpus < 0 || gpus > 1e7 ||
	    gpus != floor(gpus))
		return err_set(e, ERR_USAGE, "%s:%ld: gpus: \"%s\" is not a whole count "
			       "from 0 to 10^7", x->path, line, f[x->col[C_GPUS]]);
	for (int k = 0; k < 3; k++)
		if (csv_time(f[x->col[C_SUBMIT + k]], &t[k]) < 0)
			return err_set(e, ERR_USAGE, "%s:%ld: %s: \"%s\" is not seconds or "
				       "YYYY-MM-DD HH:MM:SS (years %d to %d)", x->path, line,
				       csv_names[C_SUBMIT + k], f[x->col[C_SUBMIT + k]],
				       TRACE_YEAR_MIN, TRACE_YEAR_MAX);
	if (t[2] < t[1] || t[1] < t[0])
		return err_set(e, ERR_USAGE, "%s:%ld: end: submit <= start <= end does not "
			       "hold", x->path, line);
	if (gpus == 0 || t[2] == t[1])
		return 0;		/* CPU job, or one that never ran */
	struct cjob *j = cjobs_add(x->js, e);
	if (j == NULL)
		return -1;
	j->id = strtoll(f[x->col[C_ID]], &end, 10);
	if (*end)
		j->id = (int64_t)x->js->n;	/* ids that are names: the row's order */
	if (x->t0 < 0)
		x->t0 = t[0];
	j->submit_s = t[0] - x->t0;
	j->work_s = j->limit_s = t[2] - t[1];
	j->gpus = (int)gpus;
	j->nodes = (j->gpus + x->gpn - 1) / x->gpn;
	j->klass = x->klass;
	if ((j->team = cjobs_team(x->js, f[x->col[C_USER]], e)) < 0 ||
	    (j->project = cjobs_project(x->js, x->col[C_PROJECT] >= 0 ?
					f[x->col[C_PROJECT]] : f[x->col[C_USER]], e)) < 0)
		return -1;
	if (j->submit_s < 0)
		return err_set(e, ERR_USAGE, "%s:%ld: submit: before the first row's "
			       "(rows must be in submit order)", x->path, line);
	return 1;
}

long swf_read_csv(const char *path, int gpus_per_node, int klass, struct cjobs *js,
		  struct err *e)
{
	struct csv c;
	int col[C_COUNT], rc;
	long jobs = 0;
	struct csv_ctx x = { path, col, gpus_per_node, klass, -1, js };

	if (csv_open(&c, path, CSV_HEADER, e) < 0)
		return -1;
	rc = csv_next(&c, e);
	if (rc == 0)
		rc = csv_error(&c, e, "empty file (expected a header)");
	if (rc > 0)
		rc = csv_header(&c, col, e);
	while (rc >= 0 && (rc = csv_next(&c, e)) > 0) {
		if ((rc = csv_job(&x, c.f, (int)c.n, c.line, e)) < 0)
			break;
		jobs += rc;
	}
	if (rc == 0 && jobs == 0)
		rc = csv_error(&c, e, "no jobs (expected rows of jobs with gpus > 0 that "
			       "ran: end > start)");
	csv_close(&c);
	return rc < 0 ? -1 : jobs;
}
