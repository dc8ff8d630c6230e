/*
 * cfg_where.c -- where a problem in a scenario is, and what was meant.
 *
 * Every message reads "WHERE: PATH: what is wrong", and WHERE is, in turn:
 *   - the last -s override that set PATH ("-s KEY=VALUE", as given);
 *   - the setting's own file and line; an @include'd file is named by the
 *     path it was found at (cfg_include.c), e.g. scenarios/catalog/gpus.cfg;
 *   - the nearest enclosing group present (or the override that created
 *     it, for a group made by -s, which has no line);
 *   - else just the scenario file.
 * For an unknown setting, cfg_suggest() adds " (did you mean X?)": the
 * schema path closest in edit distance when it is a typo or two away, else
 * one with the same last name at another level.
 */
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "sim/cfg_int.h"

/* ---- where ------------------------------------------------------------- */

/* The last override that set path exactly, or (under) created a group
 * at or below path. */
static const struct sc_override *override_for(const struct scenario *sc,
					      const char *path, bool under)
{
	size_t pl = strlen(path);

	for (size_t i = sc->n_ovr; i-- > 0;) {
		const char *o = sc->ovr[i].path;
		if (strcmp(o, path) == 0)
			return &sc->ovr[i];
		if (under && strncmp(o, path, pl) == 0 && o[pl] == '.')
			return &sc->ovr[i];
	}
	return NULL;
}

/* Where setting s (at path p) came from: an override for a group -s made,
 * else its file and line. */
static void setting_where(const struct scenario *sc, const config_setting_t *s,
			  const char *p, char *buf, size_t n)
{
	const struct sc_override *o;
	unsigned line;
	const char *f = cfg_setting_src(sc, s, &line);

	if (line == 0 && (o = override_for(sc, p, true)) != NULL) {
		char cut[CFG_ECHO_MAX + 4];
		snprintf(buf, n, "-s %s", cfg_cut(cut, sizeof cut, o->text));
		return;
	}
	if (line > 0)
		snprintf(buf, n, "%s:%u", f, line);
	else
		snprintf(buf, n, "%s", f);
}

void cfg_where(const struct scenario *sc, const char *path, char *buf,
	       size_t n)
{
	const struct sc_override *o = override_for(sc, path, false);
	char p[CFG_PATH_MAX];

	if (o != NULL) {
		char cut[CFG_ECHO_MAX + 4];
		snprintf(buf, n, "-s %s", cfg_cut(cut, sizeof cut, o->text));
		return;
	}
	snprintf(p, sizeof p, "%s", path);
	while (p[0] != '\0') {
		const config_setting_t *s = config_lookup(&sc->cfg, p);
		if (s != NULL && !config_setting_is_root(s)) {
			setting_where(sc, s, p, buf, n);
			return;
		}
		char *dot = strrchr(p, '.');
		if (dot == NULL)
			break;
		*dot = '\0';
	}
	snprintf(buf, n, "%s", sc->file);
}

int cfg_fail(const struct scenario *sc, struct err *e, const char *path,
	     const char *why)
{
	char loc[CFG_PATH_MAX + 64];

	cfg_where(sc, path, loc, sizeof loc);
	return err_set(e, ERR_USAGE, "%s: %s: %s", loc, path, why);
}

/* sc NULL: no scenario to name a place in, "PATH: message". */
static int vfail(const struct scenario *sc, struct err *e, const char *path,
		 const char *fmt, va_list ap)
{
	char why[CFG_WHY_MAX];

	vsnprintf(why, sizeof why, fmt, ap);
	if (sc == NULL)
		return err_set(e, ERR_USAGE, "%s: %s", path, why);
	return cfg_fail(sc, e, path, why);
}

int sc_error(const struct scenario *sc, struct err *e, const char *path,
	     const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(sc, e, path, fmt, ap);
	va_end(ap);
	return rc;
}

/* The handle is the scenario itself, under a type that only the two
 * functions here turn back into one. */
const struct sc_where *sc_where_of(const struct scenario *sc)
{
	return (const struct sc_where *)sc;
}

int sc_where_error(const struct sc_where *w, struct err *e, const char *path,
		   const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail((const struct scenario *)w, e, path, fmt, ap);
	va_end(ap);
	return rc;
}

int sc_where_named(const struct sc_where *w, struct err *e, const char *path)
{
	const struct scenario *sc = (const struct scenario *)w;
	char loc[CFG_PATH_MAX + 64], tail[CFG_PATH_MAX + 128];

	if (e == NULL || e->status == ERR_OK || sc == NULL)
		return -1;
	cfg_where(sc, path, loc, sizeof loc);
	if (strncmp(loc, "-s ", 3) == 0)	/* "-s KEY=VALUE" names the key */
		snprintf(tail, sizeof tail, " (read for %s)", loc);
	else
		snprintf(tail, sizeof tail, " (read for %s at %s)", path, loc);
	/* The reader's FILE:LINE and what is wrong come first; the tail
	 * replaces the end of a message too long to hold both. */
	size_t n = strlen(e->msg), t = strlen(tail);
	if (t >= sizeof e->msg)
		t = sizeof e->msg - 1;
	if (n + t >= sizeof e->msg)
		n = sizeof e->msg - 1 - t;
	memcpy(e->msg + n, tail, t);
	e->msg[n + t] = '\0';
	return -1;
}

/* ---- did you mean ------------------------------------------------------ */

static size_t seg_count(const char *p)
{
	size_t n = 1;

	for (; *p; p++)
		n += *p == '.';
	return n;
}

/* Levenshtein distance, one row at a time. */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), row[CFG_PATH_MAX + 1];

	if (lb > CFG_PATH_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

/* pat with its "*" segments filled from path, cut to at most depth
 * segments. */
static void instantiate(const char *pat, const char *path, size_t depth,
			char *buf, size_t n)
{
	size_t k = 0;

	buf[0] = '\0';
	while (k < depth && *pat) {
		size_t pl = strcspn(pat, "."), ql = strcspn(path, ".");
		if (k > 0)
			cfg_cat(buf, n, ".");
		if (pl == 1 && pat[0] == '*' && ql > 0)
			cfg_cat(buf, n, "%.*s", (int)ql, path);
		else
			cfg_cat(buf, n, "%.*s", (int)pl, pat);
		pat += pl + (pat[pl] == '.');
		path += ql + (path[ql] == '.');
		k++;
	}
}

void cfg_suggest(const struct cfg_schema *s, const char *path, char *out,
		 size_t n)
{
	size_t depth = seg_count(path), best_d = SIZE_MAX;
	char cand[CFG_PATH_MAX], best[CFG_PATH_MAX] = "";

	out[0] = '\0';
	for (size_t i = 0; i < s->n; i++) {
		for (int full = 0; full < 2; full++) {
			instantiate(s->ent[i]->path, path, full ? SIZE_MAX : depth,
				    cand, sizeof cand);
			size_t d = edit_distance(path, cand);
			if (d > 0 && d < best_d) {
				best_d = d;
				snprintf(best, sizeof best, "%s", cand);
			}
		}
	}
	/* Close means a typo or two, or a third of the name at most. */
	if (best[0] && (best_d <= 2 || 3 * best_d <= strlen(path))) {
		snprintf(out, n, " (did you mean %s?)", best);
		return;
	}
	/* Else the right name at the wrong level: "layers" for model.layers. */
	const char *leaf = strrchr(path, '.');
	leaf = leaf ? leaf + 1 : path;
	for (size_t i = 0; i < s->n; i++) {
		const char *p = s->ent[i]->path, *l = strrchr(p, '.');
		if (strcmp(l ? l + 1 : p, leaf) == 0) {
			snprintf(out, n, " (did you mean %s?)", p);
			return;
		}
	}
}
