/* trace.c -- see trace.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/infile.h"
#include "models/trace.h"

#define LB_PER_MWH_TO_G_PER_KWH 0.45359237	/* 1 lb = 453.59237 g; /1000 kWh */

/* --- UTC times ----------------------------------------------------------- */

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar: count
 * years from March so that the leap day falls at the end of a year. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static int digits(const char **p, int n, int *out)
{
	int v = 0;

	for (int i = 0; i < n; i++, (*p)++) {
		if (!isdigit((unsigned char)**p))
			return -1;
		v = v * 10 + (**p - '0');
	}
	*out = v;
	return 0;
}

static int days_in_month(int y, int m)
{
	static const int dm[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

	return m == 2 && leap ? 29 : dm[m - 1];
}

int trace_parse_utc(const char *s, int64_t *out_s)
{
	int y, mo, d, h, mi, sec = 0, oh = 0, om = 0, sign = 0;

	if (digits(&s, 4, &y) || *s++ != '-' || digits(&s, 2, &mo) || *s++ != '-' ||
	    digits(&s, 2, &d) || (*s != ' ' && *s != 'T'))
		return -1;
	s++;
	if (digits(&s, 2, &h) || *s++ != ':' || digits(&s, 2, &mi))
		return -1;
	if (*s == ':') {
		s++;
		if (digits(&s, 2, &sec))
			return -1;
		if (*s == '.') {	/* fractions of a second: the records are whole seconds */
			s++;
			while (isdigit((unsigned char)*s))
				if (*s++ != '0')
					return -1;
		}
	}
	if (*s == 'Z') {
		s++;
	} else if (*s == '+' || *s == '-') {
		sign = *s++ == '+' ? 1 : -1;
		if (digits(&s, 2, &oh) || *s++ != ':' || digits(&s, 2, &om))
			return -1;
	}
	if (*s != '\0' || mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) ||
	    h > 23 || mi > 59 || sec > 59 || oh > 23 || om > 59)
		return -1;
	*out_s = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
		 sign * (oh * 3600 + om * 60);
	return 0;
}

/* --- building a trace ---------------------------------------------------- */

static int trace_push(struct trace *t, size_t *cap, int64_t ts, double v, struct err *e)
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

static const char *qty_name(enum trace_qty q)
{
	switch (q) {
	case TRACE_CARBON: return "carbon intensity";
	case TRACE_ELECTRICITY: return "electricity price";
	case TRACE_PUE: return "PUE";
	default: return "spot price";
	}
}

/* A value must be a finite number in range for its quantity. */
static int check_value(const char *file, long line, enum trace_qty q, const char *text,
		       double *out, struct err *e)
{
	char *end;
	double v;

	while (isspace((unsigned char)*text))
		text++;
	if (*text == '\0')
		return err_set(e, ERR_USAGE, "%s:%ld: missing %s value", file, line, qty_name(q));
	errno = 0;
	v = strtod(text, &end);
	while (isspace((unsigned char)*end))
		end++;
	if (errno || *end != '\0' || !isfinite(v))
		return err_set(e, ERR_USAGE, "%s:%ld: %s '%s' is not a number", file, line,
			       qty_name(q), text);
	if (v < 0)
		return err_set(e, ERR_USAGE, "%s:%ld: negative %s %g (expected a value >= 0)",
			       file, line, qty_name(q), v);
	if (q == TRACE_PUE && v < 1)
		return err_set(e, ERR_USAGE, "%s:%ld: PUE %g below 1 (expected facility / IT "
			       "power >= 1)", file, line, v);
	*out = v;
	return 0;
}

/* Append (ts, v) from `line`, keeping times strictly increasing and, for a
 * regular trace, evenly spaced. */
static int add_row(struct trace *t, size_t *cap, long line, int64_t ts, double v,
		   bool regular, struct err *e)
{
	if (t->n > 0) {
		int64_t prev = t->t_s[t->n - 1], dt = ts - prev;

		if (dt == 0)
			return err_set(e, ERR_USAGE, "%s:%ld: duplicate time (the previous row "
				       "has the same time)", t->file, line);
		if (dt < 0)
			return err_set(e, ERR_USAGE, "%s:%ld: time out of order, %lld s before "
				       "the previous row (expected increasing times)", t->file,
				       line, (long long)-dt);
		if (regular && t->n == 1)
			t->step_s = dt;
		else if (regular && dt != t->step_s)
			return err_set(e, ERR_USAGE, "%s:%ld: gap in the trace: %lld s after the "
				       "previous row (expected every %lld s)", t->file, line,
				       (long long)dt, (long long)t->step_s);
	}
	return trace_push(t, cap, ts, v, e);
}

/* --- CSV ------------------------------------------------------------------ */

/* Split a CSV line in place (double quotes group commas); returns fields. */
static size_t csv_split(char *s, char **f, size_t max)
{
	size_t n = 0;

	while (n < max) {
		char *w = s;
		bool quoted = *s == '"';

		if (quoted)
			s++;
		f[n++] = w;
		while (*s && (quoted || *s != ',')) {
			if (quoted && *s == '"') {
				if (s[1] == '"') {
					*w++ = '"';
					s += 2;
					continue;
				}
				quoted = false;
				s++;
				continue;
			}
			*w++ = *s++;
		}
		if (*s != ',') {
			*w = '\0';
			break;
		}
		*w = '\0';
		s++;
	}
	return n;
}

static void chomp(char *s)
{
	size_t n = strlen(s);

	while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r'))
		s[--n] = '\0';
}

struct unit { enum trace_qty q; const char *name; double scale; };
static const struct unit units[] = {
	{ TRACE_CARBON, "g_per_kwh", 1 },
	{ TRACE_CARBON, "kg_per_mwh", 1 },
	{ TRACE_CARBON, "lb_per_mwh", LB_PER_MWH_TO_G_PER_KWH },
	{ TRACE_ELECTRICITY, "usd_per_kwh", 1 },
	{ TRACE_ELECTRICITY, "usd_per_mwh", 1e-3 },
	{ TRACE_ELECTRICITY, "cents_per_kwh", 1e-2 },
	{ TRACE_PUE, "pue", 1 },
	{ TRACE_SPOT, "usd_per_hour", 1 },
};

static int unit_scale(enum trace_qty q, const char *name, double *scale)
{
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (units[i].q == q && strcasecmp(units[i].name, name) == 0) {
			*scale = units[i].scale;
			return 0;
		}
	return -1;
}

static void unit_list(enum trace_qty q, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (units[i].q == q && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
					       units[i].name);
}

static bool starts_with_ci(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* Electricity Maps: "Carbon [Ii]ntensity gCO₂eq/kWh (direct|LCA|Life cycle)".
 * Returns 1 for the wanted column, 0 for another, -1 for a wrong unit. */
static int emaps_column(const char *h, const char *want, char *unit, size_t ulen)
{
	const char *u, *paren;
	bool direct;

	if (!starts_with_ci(h, "Carbon intensity "))
		return 0;
	u = h + strlen("Carbon intensity ");
	paren = strrchr(u, '(');
	if (paren == NULL || paren == u)
		return 0;
	direct = ends_with_ci(paren, "(direct)");
	if (!direct && !ends_with_ci(paren, "(LCA)") && !ends_with_ci(paren, "(Life cycle)"))
		return 0;
	snprintf(unit, ulen, "%.*s", (int)(paren - u - 1), u);
	if (strcmp(unit, "gCO\xe2\x82\x82" "eq/kWh") != 0 && strcmp(unit, "gCO2eq/kWh") != 0)
		return -1;
	return (strcmp(want, "direct") == 0) == direct;
}

#define CSV_FIELDS 64

/* Find the value column in the header; fills *col and *scale. */
static int csv_header(const char *file, char *line, enum trace_qty q, const char *want,
		      size_t *col, double *scale, struct err *e)
{
	char *f[CSV_FIELDS], unit[256], list[256];
	size_t n = csv_split(line, f, CSV_FIELDS);

	if (strcasecmp(f[0], "Datetime (UTC)") != 0 && strcasecmp(f[0], "datetime_utc") != 0)
		return err_set(e, ERR_USAGE, "%s:1: first column '%s' is not a time (expected "
			       "a header 'Datetime (UTC)' or 'datetime_utc')", file, f[0]);
	if (q == TRACE_CARBON)
		for (size_t i = 1; i < n; i++) {
			int k = emaps_column(f[i], want, unit, sizeof unit);
			if (k < 0)
				return err_set(e, ERR_USAGE, "%s:1: unknown unit '%s' in column "
					       "'%s' (expected gCO\xe2\x82\x82" "eq/kWh)", file,
					       unit, f[i]);
			if (k > 0) {
				*col = i;
				*scale = 1;
				return 0;
			}
		}
	unit_list(q, list, sizeof list);
	if (n != 2)
		return err_set(e, ERR_USAGE, "%s:1: %zu columns and no Electricity Maps "
			       "carbon column (expected 'datetime_utc,UNIT' with UNIT one of "
			       "%s)", file, n, list);
	if (unit_scale(q, f[1], scale) < 0)
		return err_set(e, ERR_USAGE, "%s:1: unknown unit '%s' for a %s trace "
			       "(expected one of %s)", file, f[1], qty_name(q), list);
	*col = 1;
	return 0;
}

static int csv_row(struct trace *t, size_t *cap, long lineno, char *line,
		   enum trace_qty q, size_t col, double scale, struct err *e)
{
	char *f[CSV_FIELDS];
	size_t n = csv_split(line, f, CSV_FIELDS);
	int64_t ts;
	double v;

	if (trace_parse_utc(f[0], &ts) < 0)
		return err_set(e, ERR_USAGE, "%s:%ld: bad time '%s' (expected YYYY-MM-DD "
			       "HH:MM:SS in UTC)", t->file, lineno, f[0]);
	if (col >= n)
		return err_set(e, ERR_USAGE, "%s:%ld: missing %s value (the row has %zu "
			       "columns)", t->file, lineno, qty_name(q), n);
	if (check_value(t->file, lineno, q, f[col], &v, e) < 0)
		return -1;
	if (t->n == 0)
		t->first_line = lineno;
	return add_row(t, cap, lineno, ts, v * scale, true, e);
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);

	if (d)
		memcpy(d, s, n);
	return d;
}

int trace_load_csv(struct trace *t, const char *path, enum trace_qty q,
		   const char *column, struct err *e)
{
	FILE *fp;
	char *line = NULL;
	size_t len = 0, cap = 0, col = 0;
	double scale = 1;
	long lineno = 0;
	int rc = 0;

	memset(t, 0, sizeof *t);
	t->file = dup_str(path);
	if (t->file == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	if (infile_check(path, e) < 0)
		return -1;
	fp = fopen(path, "r");
	if (fp == NULL)
		return err_set(e, ERR_USAGE, "%s: %s", path, strerror(errno));
	while (rc == 0 && getline(&line, &len, fp) != -1) {
		lineno++;
		chomp(line);
		if (lineno == 1)
			rc = csv_header(path, line, q, column, &col, &scale, e);
		else if (line[0] != '\0')
			rc = csv_row(t, &cap, lineno, line, q, col, scale, e);
	}
	free(line);
	fclose(fp);
	if (rc == 0 && t->n == 0)
		rc = err_set(e, ERR_USAGE, "%s:%ld: no rows (expected a header and at least "
			     "one row)", path, lineno);
	if (rc == 0 && t->n == 1)
		t->step_s = 3600;	/* one row: one hour, repeated */
	if (rc < 0)
		trace_free(t);
	return rc;
}

/* --- AWS describe-spot-price-history JSON -------------------------------- */

struct json {
	const char *file;
	const char *s;
	long line;
	struct err *e;
};

struct spot_rec {
	char ts[64], type[64], zone[64], price[64];
	long line;
};

static void jws(struct json *j)
{
	while (*j->s == ' ' || *j->s == '\t' || *j->s == '\r' || *j->s == '\n') {
		if (*j->s == '\n')
			j->line++;
		j->s++;
	}
}

static int jerr(struct json *j, const char *what)
{
	return err_set(j->e, ERR_USAGE, "%s:%ld: bad JSON: %s", j->file, j->line, what);
}

static int jexpect(struct json *j, char c)
{
	jws(j);
	if (*j->s != c) {
		char what[32];
		snprintf(what, sizeof what, "expected '%c'", c);
		return jerr(j, what);
	}
	j->s++;
	return 0;
}

/* A string into out (truncated to len; NULL to skip); escapes decoded, \u
 * kept only for ASCII (the fields we read are ASCII). */
static int jstring(struct json *j, char *out, size_t len)
{
	size_t n = 0;

	if (jexpect(j, '"') < 0)
		return -1;
	while (*j->s != '"') {
		char c = *j->s;
		if (c == '\0' || c == '\n')
			return jerr(j, "unterminated string");
		if (c == '\\') {
			j->s++;
			switch (*j->s) {
			case '"': case '\\': case '/': c = *j->s; break;
			case 'b': c = '\b'; break;
			case 'f': c = '\f'; break;
			case 'n': c = '\n'; break;
			case 'r': c = '\r'; break;
			case 't': c = '\t'; break;
			case 'u':
				for (int i = 1; i <= 4; i++)
					if (!isxdigit((unsigned char)j->s[i]))
						return jerr(j, "bad \\u escape");
				c = '?';
				j->s += 4;
				break;
			default: return jerr(j, "bad escape");
			}
		}
		if (out && n + 1 < len)
			out[n++] = c;
		j->s++;
	}
	j->s++;
	if (out)
		out[n] = '\0';
	return 0;
}

static int jvalue(struct json *j, char *out, size_t len, int depth);

/* Skip or read a value; a number or string is copied into out. */
static int jscalar(struct json *j, char *out, size_t len)
{
	const char *start = j->s;
	size_t n;

	if (*j->s == '"')
		return jstring(j, out, len);
	if (strncmp(j->s, "true", 4) == 0 || strncmp(j->s, "null", 4) == 0)
		j->s += 4;
	else if (strncmp(j->s, "false", 5) == 0)
		j->s += 5;
	else if (*j->s == '-' || isdigit((unsigned char)*j->s))
		while (*j->s && strchr("+-.eE0123456789", *j->s))
			j->s++;
	else
		return jerr(j, "unexpected character");
	n = (size_t)(j->s - start);
	if (out) {
		if (n >= len)
			n = len - 1;
		memcpy(out, start, n);
		out[n] = '\0';
	}
	return 0;
}

static int jskip_container(struct json *j, int depth)
{
	char close = *j->s == '{' ? '}' : ']';
	bool obj = close == '}';

	if (depth > 64)
		return jerr(j, "nested too deeply");
	j->s++;
	jws(j);
	if (*j->s == close) {
		j->s++;
		return 0;
	}
	for (;;) {
		if (obj && (jstring(j, NULL, 0) < 0 || jexpect(j, ':') < 0))
			return -1;
		if (jvalue(j, NULL, 0, depth + 1) < 0)
			return -1;
		jws(j);
		if (*j->s == ',') {
			j->s++;
			jws(j);
			continue;
		}
		return jexpect(j, close);
	}
}

static int jvalue(struct json *j, char *out, size_t len, int depth)
{
	jws(j);
	if (*j->s == '{' || *j->s == '[')
		return jskip_container(j, depth);
	return jscalar(j, out, len);
}

/* One record object: the four fields we need. */
static int spot_object(struct json *j, struct spot_rec *r)
{
	static const char *const keys[] = { "Timestamp", "InstanceType",
					     "AvailabilityZone", "SpotPrice" };
	char key[64];

	memset(r, 0, sizeof *r);
	jws(j);
	r->line = j->line;
	if (jexpect(j, '{') < 0)
		return -1;
	jws(j);
	if (*j->s == '}') {
		j->s++;
		return 0;
	}
	for (;;) {
		char *dst[4] = { r->ts, r->type, r->zone, r->price };
		char *into = NULL;

		if (jstring(j, key, sizeof key) < 0 || jexpect(j, ':') < 0)
			return -1;
		for (int k = 0; k < 4; k++)
			if (strcmp(key, keys[k]) == 0)
				into = dst[k];
		if (jvalue(j, into, 64, 1) < 0)
			return -1;
		jws(j);
		if (*j->s == ',') {
			j->s++;
			continue;
		}
		return jexpect(j, '}');
	}
}

static int spot_records(struct json *j, struct spot_rec **recs, size_t *n)
{
	size_t cap = 0;

	if (jexpect(j, '[') < 0)
		return -1;
	jws(j);
	if (*j->s == ']') {
		j->s++;
		return 0;
	}
	for (;;) {
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 256;
			struct spot_rec *nr = realloc(*recs, nc * sizeof *nr);
			if (nr == NULL)
				return err_set(j->e, ERR_RUN, "out of memory");
			*recs = nr;
			cap = nc;
		}
		if (spot_object(j, &(*recs)[*n]) < 0)
			return -1;
		(*n)++;
		jws(j);
		if (*j->s == ',') {
			j->s++;
			continue;
		}
		return jexpect(j, ']');
	}
}

/* The file's record array: top level, or under "SpotPriceHistory". */
static int spot_parse(struct json *j, struct spot_rec **recs, size_t *n)
{
	char key[64];
	bool found = false;

	jws(j);
	if (*j->s == '[')
		return spot_records(j, recs, n);
	if (jexpect(j, '{') < 0)
		return -1;
	for (;;) {
		jws(j);
		if (*j->s == '}')
			break;
		if (jstring(j, key, sizeof key) < 0 || jexpect(j, ':') < 0)
			return -1;
		jws(j);
		if (strcmp(key, "SpotPriceHistory") == 0) {
			if (spot_records(j, recs, n) < 0)
				return -1;
			found = true;
		} else if (jvalue(j, NULL, 0, 1) < 0) {
			return -1;
		}
		jws(j);
		if (*j->s != ',')
			break;
		j->s++;
	}
	if (jexpect(j, '}') < 0)
		return -1;
	if (!found)
		return err_set(j->e, ERR_USAGE, "%s:1: no SpotPriceHistory array (expected "
			       "the output of aws ec2 describe-spot-price-history)", j->file);
	return 0;
}

static char *slurp(const char *path, struct err *e)
{
	FILE *fp = infile_check(path, e) < 0 ? NULL : fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0, got;

	if (fp == NULL && e->status)
		return NULL;
	if (fp == NULL) {
		err_set(e, ERR_USAGE, "%s: %s", path, strerror(errno));
		return NULL;
	}
	do {
		if (cap - len < 65536) {
			char *nb = realloc(buf, cap + 65537);
			if (nb == NULL) {
				free(buf);
				fclose(fp);
				err_set(e, ERR_RUN, "out of memory");
				return NULL;
			}
			buf = nb;
			cap += 65536;
		}
		got = fread(buf + len, 1, cap - len, fp);
		len += got;
	} while (got > 0);
	fclose(fp);
	buf[len] = '\0';
	return buf;
}

/* Which records count: a filter must be given when the file mixes values. */
static int spot_filter_check(const struct trace *t, const struct spot_rec *r, size_t n,
			     const char *type, const char *zone, struct err *e)
{
	for (size_t i = 1; i < n; i++) {
		if (!type[0] && strcmp(r[i].type, r[0].type) != 0)
			return err_set(e, ERR_USAGE, "%s:%ld: instance type %s after %s (expected "
				       "one type, or a spot_instance_type setting)", t->file,
				       r[i].line, r[i].type, r[0].type);
		if (!zone[0] && strcmp(r[i].zone, r[0].zone) != 0)
			return err_set(e, ERR_USAGE, "%s:%ld: zone %s after %s (expected one "
				       "zone, or a spot_zone setting)", t->file, r[i].line,
				       r[i].zone, r[0].zone);
	}
	return 0;
}

static int spot_build(struct trace *t, struct spot_rec *r, size_t n, const char *type,
		      const char *zone, struct err *e)
{
	size_t cap = 0, kept = 0;
	int dir = 0;

	if (spot_filter_check(t, r, n, type, zone, e) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if ((type[0] && strcmp(r[i].type, type) != 0) ||
		    (zone[0] && strcmp(r[i].zone, zone) != 0))
			continue;
		r[kept++] = r[i];
	}
	if (kept == 0)
		return err_set(e, ERR_USAGE, "%s:1: no records for instance type '%s' in zone "
			       "'%s'", t->file, type, zone);
	/* The CLI prints newest first: accept either direction, strictly. */
	for (size_t k = 0; k < kept; k++) {
		size_t i = k;
		int64_t ts, prev;
		double v;

		if (trace_parse_utc(r[i].ts, &ts) < 0)
			return err_set(e, ERR_USAGE, "%s:%ld: bad Timestamp '%s' (expected "
				       "YYYY-MM-DDTHH:MM:SS+00:00)", t->file, r[i].line, r[i].ts);
		if (check_value(t->file, r[i].line, TRACE_SPOT, r[i].price, &v, e) < 0)
			return -1;
		if (k > 0) {
			prev = t->t_s[t->n - 1];
			if (ts == prev)
				return err_set(e, ERR_USAGE, "%s:%ld: duplicate Timestamp %s",
					       t->file, r[i].line, r[i].ts);
			if (k == 1)
				dir = ts > prev ? 1 : -1;
			else if ((ts > prev ? 1 : -1) != dir)
				return err_set(e, ERR_USAGE, "%s:%ld: Timestamp %s out of order "
					       "(expected all records newest first or all "
					       "oldest first)", t->file, r[i].line, r[i].ts);
		}
		if (trace_push(t, &cap, ts, v, e) < 0)
			return -1;
		if (k == 0 || dir < 0)
			t->first_line = r[i].line;	/* the oldest record */
	}
	if (dir < 0)
		for (size_t i = 0, j = t->n - 1; i < j; i++, j--) {
			int64_t ts = t->t_s[i];
			double v = t->v[i];
			t->t_s[i] = t->t_s[j];
			t->v[i] = t->v[j];
			t->t_s[j] = ts;
			t->v[j] = v;
		}
	t->step_s = 0;
	return 0;
}

int trace_load_aws_spot(struct trace *t, const char *path, const char *instance_type,
			const char *zone, struct err *e)
{
	struct spot_rec *recs = NULL;
	size_t n = 0;
	char *text;
	struct json j;
	int rc;

	memset(t, 0, sizeof *t);
	t->file = dup_str(path);
	if (t->file == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	text = slurp(path, e);
	if (text == NULL) {
		trace_free(t);
		return -1;
	}
	j = (struct json){ path, text, 1, e };
	rc = spot_parse(&j, &recs, &n);
	if (rc == 0) {
		jws(&j);
		if (*j.s != '\0')
			rc = jerr(&j, "text after the end");
	}
	if (rc == 0)
		rc = spot_build(t, recs, n, instance_type ? instance_type : "",
				zone ? zone : "", e);
	free(recs);
	free(text);
	if (rc < 0)
		trace_free(t);
	return rc;
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
		return err_set(e, ERR_USAGE, "%s:%ld: the trace starts %lld s after the run "
			       "(expected a first row at or before the run's start, "
			       "run.start_utc)", t->file, t->first_line,
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

double trace_mean(const struct trace *t, int64_t from_s, int64_t to_s)
{
	struct trace_cur c;
	struct err e = { 0 };
	double sum = 0;
	int64_t now = 0, end = (to_s - from_s) * 1000000000;

	if (to_s <= from_s || trace_cur_init(&c, t, from_s, &e) < 0)
		return NAN;
	while (now < end) {
		int64_t next = c.next_ns < end ? c.next_ns : end;
		sum += c.value * (double)(next - now);
		now = next;
		trace_cur_advance(&c, now);
	}
	return sum / (double)end;
}
