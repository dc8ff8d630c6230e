/* replay.c -- see replay.h. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/infile.h"
#include "models/replay.h"

const char *const fail_kind_names[FK_COUNT] = { "gpu", "node", "nic", "software" };

/* --- whole files and growing arrays ------------------------------------- */

static char *slurp(const char *path, struct err *e)
{
	FILE *f = infile_check(path, e) < 0 ? NULL : fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (f == NULL && e->status)
		return NULL;
	if (f == NULL) {
		err_set(e, ERR_USAGE, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = 2 * cap + 8192);
			if (nb == NULL) {
				free(buf);
				fclose(f);
				err_set(e, ERR_RUN, "out of memory");
				return NULL;
			}
			buf = nb;
		}
		size_t got = fread(buf + len, 1, 4096, f);
		len += got;
		if (got < 4096)
			break;
	}
	if (ferror(f)) {
		free(buf);
		fclose(f);
		err_set(e, ERR_USAGE, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	fclose(f);
	buf[len] = '\0';
	if (strlen(buf) != len) {
		free(buf);
		err_set(e, ERR_USAGE, "%s: binary data (a NUL byte) in a text trace", path);
		return NULL;
	}
	return buf;
}

/* Append a change point (time, count); equal times keep the last count,
 * equal counts are not a change. */
static int cap_push(struct replay_cap *t, size_t *cap, double t_s, int avail)
{
	if (t->n > 0 && t->t_s[t->n - 1] == t_s) {
		t->avail[t->n - 1] = avail;
		if (t->n > 1 && t->avail[t->n - 2] == avail)
			t->n--;
		return 0;
	}
	if (t->n > 0 && t->avail[t->n - 1] == avail)
		return 0;
	if (t->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		double *nt = realloc(t->t_s, nc * sizeof *nt);
		if (nt == NULL)
			return -1;
		t->t_s = nt;
		int *na = realloc(t->avail, nc * sizeof *na);
		if (na == NULL)
			return -1;
		t->avail = na;
		*cap = nc;
	}
	t->t_s[t->n] = t_s;
	t->avail[t->n] = avail;
	t->n++;
	return 0;
}

void replay_cap_free(struct replay_cap *t)
{
	free(t->t_s);
	free(t->avail);
	memset(t, 0, sizeof *t);
}

int replay_cap_at(const struct replay_cap *t, double t_s, int loop)
{
	size_t lo = 0, hi = t->n;

	if (loop && t->end_s > 0 && t_s >= t->end_s)
		t_s = fmod(t_s, t->end_s);
	/* last i with t_s[i] <= t_s */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (t->t_s[mid] <= t_s)
			lo = mid;
		else
			hi = mid;
	}
	return t->avail[lo];
}

/* --- skypilot JSON --------------------------------------------------------- */

struct json {
	const char *path, *s, *p;
	struct err *e;
};

static int json_line(const struct json *j)
{
	int line = 1;

	for (const char *q = j->s; q < j->p; q++)
		line += *q == '\n';
	return line;
}

static int json_err(struct json *j, const char *what)
{
	return err_set(j->e, ERR_USAGE, "%s:%d: %s (expected skypilot JSON "
		       "{\"metadata\": {\"gap_seconds\": N}, \"data\": [counts]})",
		       j->path, json_line(j), what);
}

static void json_ws(struct json *j)
{
	while (*j->p && isspace((unsigned char)*j->p))
		j->p++;
}

static int json_expect(struct json *j, char c)
{
	char msg[64];

	json_ws(j);
	if (*j->p != c) {
		snprintf(msg, sizeof msg, "expected '%c'", c);
		return json_err(j, msg);
	}
	j->p++;
	return 0;
}

/* A string without escapes beyond \" and \\, copied (truncated) into out. */
static int json_string(struct json *j, char *out, size_t cap)
{
	size_t n = 0;

	if (json_expect(j, '"') < 0)
		return -1;
	while (*j->p && *j->p != '"') {
		if (*j->p == '\\' && j->p[1])
			j->p++;
		if (n + 1 < cap)
			out[n++] = *j->p;
		j->p++;
	}
	if (*j->p != '"')
		return json_err(j, "unterminated string");
	j->p++;
	out[n] = '\0';
	return 0;
}

static int json_number(struct json *j, double *v)
{
	char *end;

	json_ws(j);
	errno = 0;
	*v = strtod(j->p, &end);
	if (end == j->p || errno || !isfinite(*v))
		return json_err(j, "expected a number");
	j->p = end;
	return 0;
}

static int json_skip(struct json *j, int depth)
{
	double v;
	char tmp[8];

	if (depth > 64)
		return json_err(j, "nested too deeply");
	json_ws(j);
	switch (*j->p) {
	case '"':
		return json_string(j, tmp, sizeof tmp);
	case '{': case '[': {
		char close = *j->p == '{' ? '}' : ']';
		int obj = *j->p == '{';
		j->p++;
		json_ws(j);
		if (*j->p == close) {
			j->p++;
			return 0;
		}
		for (;;) {
			if (obj && (json_string(j, tmp, sizeof tmp) < 0 || json_expect(j, ':') < 0))
				return -1;
			if (json_skip(j, depth + 1) < 0)
				return -1;
			json_ws(j);
			if (*j->p == ',') {
				j->p++;
				continue;
			}
			return json_expect(j, close);
		}
	}
	default:
		if (strncmp(j->p, "true", 4) == 0 || strncmp(j->p, "null", 4) == 0) {
			j->p += 4;
			return 0;
		}
		if (strncmp(j->p, "false", 5) == 0) {
			j->p += 5;
			return 0;
		}
		return json_number(j, &v);
	}
}

/* Parse "data": [...] into counts (appended to *data). */
static int json_counts(struct json *j, int **data, size_t *n)
{
	size_t cap = 0;

	if (json_expect(j, '[') < 0)
		return -1;
	json_ws(j);
	if (*j->p == ']') {
		j->p++;
		return 0;
	}
	for (;;) {
		double v;
		if (json_number(j, &v) < 0)
			return -1;
		if (v < 0 || v != floor(v) || v > 1e7)
			return json_err(j, "a count must be a non-negative integer");
		if (*n == cap) {
			int *nd = realloc(*data, (cap = cap ? 2 * cap : 1024) * sizeof *nd);
			if (nd == NULL)
				return err_set(j->e, ERR_RUN, "out of memory");
			*data = nd;
		}
		(*data)[(*n)++] = (int)v;
		json_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		return json_expect(j, ']');
	}
}

static int json_metadata(struct json *j, double *gap_s)
{
	char key[64];

	if (json_expect(j, '{') < 0)
		return -1;
	json_ws(j);
	if (*j->p == '}') {
		j->p++;
		return 0;
	}
	for (;;) {
		if (json_string(j, key, sizeof key) < 0 || json_expect(j, ':') < 0)
			return -1;
		if (strcmp(key, "gap_seconds") == 0) {
			if (json_number(j, gap_s) < 0)
				return -1;
			if (!(*gap_s > 0))
				return json_err(j, "gap_seconds must be positive");
		} else if (json_skip(j, 1) < 0) {
			return -1;
		}
		json_ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		return json_expect(j, '}');
	}
}

static int read_skypilot(const char *path, const char *text, struct replay_cap *t,
			 struct err *e)
{
	struct json j = { path, text, text, e };
	double gap_s = -1;
	int *data = NULL;
	size_t n = 0, cap = 0;
	char key[64];
	int rc = -1;

	if (json_expect(&j, '{') < 0)
		goto out;
	for (;;) {
		if (json_string(&j, key, sizeof key) < 0 || json_expect(&j, ':') < 0)
			goto out;
		if (strcmp(key, "metadata") == 0) {
			if (json_metadata(&j, &gap_s) < 0)
				goto out;
		} else if (strcmp(key, "data") == 0) {
			if (json_counts(&j, &data, &n) < 0)
				goto out;
		} else if (json_skip(&j, 1) < 0) {
			goto out;
		}
		json_ws(&j);
		if (*j.p == ',') {
			j.p++;
			continue;
		}
		if (json_expect(&j, '}') < 0)
			goto out;
		break;
	}
	json_ws(&j);
	if (*j.p) {
		json_err(&j, "text after the closing brace");
		goto out;
	}
	j.p = j.s;	/* a missing key: point at the object's start */
	if (gap_s <= 0) {
		json_err(&j, "no metadata.gap_seconds");
		goto out;
	}
	if (n == 0) {
		json_err(&j, "no data");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		if (cap_push(t, &cap, i * gap_s, data[i]) < 0) {
			err_set(e, ERR_RUN, "out of memory");
			goto out;
		}
		if (data[i] > t->max_avail)
			t->max_avail = data[i];
	}
	t->end_s = n * gap_s;
	rc = 0;
out:
	free(data);
	return rc;
}

/* --- CSV: Bamboo events and failure traces ------------------------------- */

/* Split a line in place at commas into at most max fields. */
static int split(char *line, char **f, int max)
{
	int n = 0;

	f[n++] = line;
	for (char *p = line; *p; p++)
		if (*p == ',') {
			*p = '\0';
			if (n == max)
				return max + 1;
			f[n++] = p + 1;
		}
	for (int i = 0; i < n; i++) {	/* trim blanks and a CR */
		while (isspace((unsigned char)*f[i]))
			f[i]++;
		char *end = f[i] + strlen(f[i]);
		while (end > f[i] && isspace((unsigned char)end[-1]))
			*--end = '\0';
	}
	return n;
}

static int parse_num(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return end != s && *end == '\0' && !errno && isfinite(*v) ? 0 : -1;
}

/* Iterate the lines of text: returns the next line (NUL-terminated in
 * place), or NULL at the end; *lineno counts from 1. */
static char *next_line(char **cursor, int *lineno)
{
	char *s = *cursor, *nl;

	if (*s == '\0')
		return NULL;
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		*cursor = nl + 1;
	} else {
		*cursor = s + strlen(s);
	}
	(*lineno)++;
	return s;
}

static int blank_or_comment(const char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	return *s == '\0' || *s == '#';
}

struct names {
	char **v;
	size_t n, cap;
};

static long names_find(const struct names *nm, const char *s)
{
	for (size_t i = 0; i < nm->n; i++)
		if (strcmp(nm->v[i], s) == 0)
			return (long)i;
	return -1;
}

static int read_bamboo(const char *path, char *text, struct replay_cap *t, struct err *e)
{
	struct names live = { 0 };
	char *cur = text, *line;
	int lineno = 0, rc = -1;
	size_t cap = 0;
	double last_s = 0;

	while ((line = next_line(&cur, &lineno)) != NULL) {
		char *f[4];
		double ms;
		long at;

		if (blank_or_comment(line))
			continue;
		if (split(line, f, 3) != 3 || parse_num(f[0], &ms) < 0 || ms < 0 || !*f[2]) {
			err_set(e, ERR_USAGE, "%s:%d: malformed line (expected TIME_MS,add|remove,NODE "
				"with TIME_MS >= 0)", path, lineno);
			goto out;
		}
		if (ms / 1000.0 < last_s) {
			err_set(e, ERR_USAGE, "%s:%d: time %g ms is before the previous line's "
				"(expected times in order)", path, lineno, ms);
			goto out;
		}
		last_s = ms / 1000.0;
		at = names_find(&live, f[2]);
		if (strcmp(f[1], "add") == 0) {
			if (at >= 0) {
				err_set(e, ERR_USAGE, "%s:%d: node %s added twice (expected a node "
					"not already in the group)", path, lineno, f[2]);
				goto out;
			}
			if (live.n == live.cap) {
				char **nv = realloc(live.v, (live.cap = live.cap ? 2 * live.cap : 64) *
						    sizeof *nv);
				if (nv == NULL)
					goto oom;
				live.v = nv;
			}
			if ((live.v[live.n] = strdup(f[2])) == NULL)
				goto oom;
			live.n++;
		} else if (strcmp(f[1], "remove") == 0) {
			if (at < 0) {
				err_set(e, ERR_USAGE, "%s:%d: unknown node %s removed (expected a "
					"node added earlier)", path, lineno, f[2]);
				goto out;
			}
			free(live.v[at]);
			live.v[at] = live.v[--live.n];
		} else {
			err_set(e, ERR_USAGE, "%s:%d: event \"%s\" (expected add or remove)",
				path, lineno, f[1]);
			goto out;
		}
		if (t->n == 0 && last_s > 0 && cap_push(t, &cap, 0, 0) < 0)
			goto oom;
		if (cap_push(t, &cap, last_s, (int)live.n) < 0)
			goto oom;
		if ((int)live.n > t->max_avail)
			t->max_avail = (int)live.n;
	}
	if (t->n == 0) {
		err_set(e, ERR_USAGE, "%s:%d: no events (expected TIME_MS,add|remove,NODE lines)",
			path, lineno);
		goto out;
	}
	t->end_s = last_s;
	rc = 0;
	goto out;
oom:
	err_set(e, ERR_RUN, "out of memory");
out:
	for (size_t i = 0; i < live.n; i++)
		free(live.v[i]);
	free(live.v);
	return rc;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int replay_read_capacity(const char *path, struct replay_cap *t, struct err *e)
{
	char *text;
	int rc;

	memset(t, 0, sizeof *t);
	if (!ends_with(path, ".json") && !ends_with(path, ".csv"))
		return err_set(e, ERR_USAGE, "%s: unknown trace format (expected a skypilot "
			       ".json or a Bamboo .csv)", path);
	text = slurp(path, e);
	if (text == NULL)
		return -1;
	rc = ends_with(path, ".json") ? read_skypilot(path, text, t, e)
				      : read_bamboo(path, text, t, e);
	free(text);
	if (rc < 0)
		replay_cap_free(t);
	return rc;
}

int replay_read_failures(const char *path, int nodes, struct fail_row **rows,
			size_t *n, struct err *e)
{
	char *text = slurp(path, e), *cur, *line;
	int lineno = 0, first = 1;
	size_t cap = 0;
	double last_s = 0;

	*rows = NULL;
	*n = 0;
	if (text == NULL)
		return -1;
	cur = text;
	while ((line = next_line(&cur, &lineno)) != NULL) {
		char *f[4];
		double t_s, node;
		int kind = -1;

		if (blank_or_comment(line))
			continue;
		if (split(line, f, 3) != 3)
			goto malformed;
		if (first && parse_num(f[0], &t_s) < 0 && strcmp(f[1], "node") == 0) {
			first = 0;	/* header line */
			continue;
		}
		first = 0;
		if (parse_num(f[0], &t_s) < 0 || t_s < 0 || parse_num(f[1], &node) < 0 ||
		    node != floor(node))
			goto malformed;
		if (t_s < last_s) {
			err_set(e, ERR_USAGE, "%s:%d: time %g s is before the previous line's "
				"(expected times in order)", path, lineno, t_s);
			goto fail;
		}
		if (node < 0 || node >= nodes) {
			err_set(e, ERR_USAGE, "%s:%d: unknown node %g (expected 0 to %d)",
				path, lineno, node, nodes - 1);
			goto fail;
		}
		for (int k = 0; k < FK_COUNT; k++)
			if (strcmp(f[2], fail_kind_names[k]) == 0)
				kind = k;
		if (kind < 0) {
			err_set(e, ERR_USAGE, "%s:%d: failure kind \"%s\" (expected gpu, node, "
				"nic or software)", path, lineno, f[2]);
			goto fail;
		}
		if (*n == cap) {
			struct fail_row *nr = realloc(*rows, (cap = cap ? 2 * cap : 64) * sizeof *nr);
			if (nr == NULL) {
				err_set(e, ERR_RUN, "out of memory");
				goto fail;
			}
			*rows = nr;
		}
		(*rows)[(*n)++] = (struct fail_row){ t_s, (int)node, kind };
		last_s = t_s;
	}
	free(text);
	return 0;
malformed:
	err_set(e, ERR_USAGE, "%s:%d: malformed line (expected time_s,node,kind with "
		"time_s >= 0 and an integer node)", path, lineno);
fail:
	free(text);
	free(*rows);
	*rows = NULL;
	*n = 0;
	return -1;
}
