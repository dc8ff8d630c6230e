/*
 * cfg.c -- scenario settings: schema tables, libconfig loading, -s
 * overrides, validation and typed accessors.  The interface and the rules
 * are in cfg.h; what follows are the choices made behind it.
 *
 * - A path's segments are matched one by one; a "*" segment in the schema
 *   matches any one name.  When several entries match, the one with the
 *   fewest "*" wins (so "gpus.h100.x" may refine "gpus.*.x").
 * - Ranges: min and max are inclusive; +-INFINITY leaves a side open, and
 *   min == max == 0 means "no range" (what a table gets when it leaves the
 *   fields zero).
 * - Defaults are parsed once per load, by the same code as overrides, into
 *   a private libconfig tree, so accessors read a file value and a default
 *   the same way.  A default that does not parse or fails its own range is
 *   a bug in a table: sc_load() reports it with ERR_RUN.
 * - A required setting (def == NULL) is required wherever its enclosing
 *   groups are fixed names; below a "*" it is required in each child group
 *   that exists.  Reading a required setting of a group that does not exist
 *   gives 0 / 0.0 / false / "" (the caller should have asked sc_has()).
 * - A REF default must also name an existing entry, whenever it is used.
 * - Errors point at the override that set a path, else the setting's own
 *   file and line (an @include'd file is named as opened, relative to the
 *   scenario's directory), else the nearest enclosing group present, else
 *   just the scenario file.  The first problem found is the one reported:
 *   a malformed or unparsable override (in the order given), then settings
 *   in file order (an overridden setting moves to the end of its group),
 *   then required settings in schema order.
 * - libconfig 1.5 stores an integer literal without an L suffix in an int,
 *   so 300000000000 silently reads as -647710720.  big_ints_repair()
 *   rescans the source text for such literals and puts the true value back
 *   into the setting (as an int64), so scenario authors can write byte and
 *   token counts plainly.
 * - Programming errors (a path that is not in the schema, an accessor of
 *   the wrong type) print a message and abort(): validation has run by
 *   then, so no user input can lead there.  Running out of memory aborts
 *   too, as libconfig's own allocations do.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <libconfig.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "sim/cfg.h"

#define CFG_PATH_MAX 512	/* longest setting path we handle */
#define CFG_WHY_MAX 768		/* room for "what is wrong (expected ...)" */

struct cfg_schema {
	const struct cfg_setting **ent;	/* every entry of every table, in order */
	size_t n, cap;
};

struct sc_override {
	char *path;		/* KEY, trimmed */
	char *text;		/* KEY=VALUE as given, for messages */
};

struct sc_children {
	char *group;
	const char **names;
	size_t n;
	struct sc_children *next;
};

/* What accessors fill in lazily through a const scenario. */
struct sc_cache {
	struct sc_children *children;
};

struct scenario {
	const struct cfg_schema *schema;
	config_t cfg;		/* the file after includes and overrides */
	config_t defs;		/* root member "dI" = parsed default of entry I */
	char *file;
	char *incdir;		/* the file's directory; NULL for the cwd */
	char *text;		/* config_write() of cfg */
	struct sc_override *ovr;
	size_t n_ovr;
	struct sc_cache *cache;
};

/* ---- small helpers ---------------------------------------------------- */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL) {
		fprintf(stderr, "trainsim: out of memory\n");
		abort();
	}
	return q;
}

static char *xstrndup(const char *s, size_t n)
{
	char *d = xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

static _Noreturn void cfg_bug(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
static _Noreturn void cfg_bug(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "trainsim: internal error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

/* Append printf output to buf (size n), never overflowing. */
static void cat(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void cat(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strnlen(buf, n);
	va_list ap;

	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

/* Numbers in messages: integers without exponent where exact. */
static void fmt_num(char *buf, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.15g", v);
}

static size_t seg_count(const char *p)
{
	size_t n = 1;

	for (; *p; p++)
		n += *p == '.';
	return n;
}

static size_t wildcards(const char *p)
{
	size_t n = 0;

	for (const char *q = p; *q; q++)
		if (*q == '*' && (q == p || q[-1] == '.') &&
		    (q[1] == '.' || q[1] == '\0'))
			n++;
	return n;
}

/* ---- schema ----------------------------------------------------------- */

struct cfg_schema *cfg_schema_new(void)
{
	struct cfg_schema *s = xrealloc(NULL, sizeof *s);

	memset(s, 0, sizeof *s);
	return s;
}

void cfg_schema_free(struct cfg_schema *s)
{
	if (s == NULL)
		return;
	free(s->ent);
	free(s);
}

void cfg_schema_add(struct cfg_schema *s, const struct cfg_setting *table)
{
	for (; table->path != NULL; table++) {
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 64;
			s->ent = xrealloc(s->ent, s->cap * sizeof *s->ent);
		}
		s->ent[s->n++] = table;
	}
}

enum { MATCH_NONE, MATCH_LEAF, MATCH_PREFIX };

/* Does path equal pattern pat (MATCH_LEAF), or name a group above it
 * (MATCH_PREFIX)?  "*" in pat matches one non-empty name. */
static int seg_match(const char *pat, const char *path)
{
	for (;;) {
		size_t pl = strcspn(pat, "."), ql = strcspn(path, ".");
		int star = pl == 1 && pat[0] == '*';

		if (ql == 0 || (!star && (pl != ql || memcmp(pat, path, pl) != 0)))
			return MATCH_NONE;
		pat += pl;
		path += ql;
		if (*path == '\0')
			return *pat == '\0' ? MATCH_LEAF : MATCH_PREFIX;
		if (*pat == '\0')
			return MATCH_NONE;
		pat++;
		path++;
	}
}

/* Index of the entry for a setting path, the most specific one; -1 if none. */
static long schema_find(const struct cfg_schema *s, const char *path)
{
	long best = -1;
	size_t best_w = SIZE_MAX;

	for (size_t i = 0; i < s->n; i++) {
		if (seg_match(s->ent[i]->path, path) != MATCH_LEAF)
			continue;
		size_t w = wildcards(s->ent[i]->path);
		if (w < best_w) {
			best = (long)i;
			best_w = w;
		}
	}
	return best;
}

/* Is path a group that holds some schema entry? */
static bool schema_is_group(const struct cfg_schema *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (seg_match(s->ent[i]->path, path) == MATCH_PREFIX)
			return true;
	return false;
}

static const char *type_name(enum cfg_type t)
{
	switch (t) {
	case CFG_INT: return "int";
	case CFG_FLOAT: return "float";
	case CFG_BOOL: return "bool";
	case CFG_STRING: return "string";
	case CFG_ENUM: return "enum";
	case CFG_REF: return "ref";
	case CFG_FLOAT_LIST: return "float[]";
	case CFG_INT_LIST: return "int[]";
	}
	return "?";
}

static bool is_numeric(enum cfg_type t)
{
	return t == CFG_INT || t == CFG_FLOAT || t == CFG_INT_LIST ||
	       t == CFG_FLOAT_LIST;
}

static bool has_range(const struct cfg_setting *d)
{
	return is_numeric(d->type) && !(d->min == 0 && d->max == 0);
}

/* " in 1..100000", " >= 0", " <= 5" or "" -- the numeric range in words. */
static void range_words(const struct cfg_setting *d, char *buf, size_t n)
{
	char lo[48], hi[48];

	buf[0] = '\0';
	if (!has_range(d) || (isinf(d->min) && isinf(d->max)))
		return;
	fmt_num(lo, sizeof lo, d->min);
	fmt_num(hi, sizeof hi, d->max);
	if (isinf(d->max))
		snprintf(buf, n, " >= %s", lo);
	else if (isinf(d->min))
		snprintf(buf, n, " <= %s", hi);
	else
		snprintf(buf, n, " in %s..%s", lo, hi);
}

void cfg_schema_print(const struct cfg_schema *s, FILE *out)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct cfg_setting *d = s->ent[i];
		char range[128];

		switch (d->type) {
		case CFG_BOOL:
			snprintf(range, sizeof range, "true|false");
			break;
		case CFG_STRING:
			snprintf(range, sizeof range, "text");
			break;
		case CFG_ENUM:
			snprintf(range, sizeof range, "%s", d->choices ? d->choices : "");
			break;
		case CFG_REF:
			snprintf(range, sizeof range, "name in %s",
				 d->choices ? d->choices : "?");
			break;
		default:
			range_words(d, range, sizeof range);
			if (range[0] == '\0')
				snprintf(range, sizeof range, "any");
			else if (range[1] == 'i')	/* drop the " in " */
				memmove(range, range + 4, strlen(range + 4) + 1);
			else
				memmove(range, range + 1, strlen(range + 1) + 1);
			break;
		}
		fprintf(out, "%-34s %-7s %-6s %-22s %-14s %s\n", d->path,
			type_name(d->type), d->unit && d->unit[0] ? d->unit : "-",
			range, d->def ? d->def : "(required)",
			d->help ? d->help : "");
	}
}

/* ---- where a problem is ------------------------------------------------ */

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

/* File name for messages: included files are named as libconfig opened
 * them, i.e. relative to the scenario's directory. */
static void file_words(const struct scenario *sc, const char *f, char *buf,
		       size_t n)
{
	if (f == NULL || strcmp(f, sc->file) == 0)
		snprintf(buf, n, "%s", sc->file);
	else if (sc->incdir != NULL && f[0] != '/')
		snprintf(buf, n, "%s/%s", sc->incdir, f);
	else
		snprintf(buf, n, "%s", f);
}

/* "FILE:LINE", "-s KEY=VALUE" or "FILE": where to point for path. */
static void where(const struct scenario *sc, const char *path, char *buf,
		  size_t n)
{
	const struct sc_override *o = override_for(sc, path, false);
	char p[CFG_PATH_MAX];

	if (o != NULL) {
		snprintf(buf, n, "-s %s", o->text);
		return;
	}
	snprintf(p, sizeof p, "%s", path);
	while (p[0] != '\0') {
		const config_setting_t *s = config_lookup(&sc->cfg, p);
		if (s != NULL && !config_setting_is_root(s)) {
			char f[CFG_PATH_MAX];
			if (config_setting_source_line(s) == 0 &&
			    (o = override_for(sc, p, true)) != NULL) {
				snprintf(buf, n, "-s %s", o->text);
				return;
			}
			file_words(sc, config_setting_source_file(s), f, sizeof f);
			if (config_setting_source_line(s) > 0)
				snprintf(buf, n, "%s:%u", f,
					 config_setting_source_line(s));
			else
				snprintf(buf, n, "%s", f);
			return;
		}
		char *dot = strrchr(p, '.');
		if (dot == NULL)
			break;
		*dot = '\0';
	}
	snprintf(buf, n, "%s", sc->file);
}

static int sc_fail(const struct scenario *sc, struct err *e, const char *path,
		   const char *why)
{
	char loc[CFG_PATH_MAX + 64];

	where(sc, path, loc, sizeof loc);
	return err_set(e, ERR_USAGE, "%s: %s: %s", loc, path, why);
}

int sc_error(const struct scenario *sc, struct err *e, const char *path,
	     const char *fmt, ...)
{
	char why[CFG_WHY_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	return sc_fail(sc, e, path, why);
}

/* ---- suggestions for unknown settings --------------------------------- */

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
			cat(buf, n, ".");
		if (pl == 1 && pat[0] == '*' && ql > 0)
			cat(buf, n, "%.*s", (int)ql, path);
		else
			cat(buf, n, "%.*s", (int)pl, pat);
		pat += pl + (pat[pl] == '.');
		path += ql + (path[ql] == '.');
		k++;
	}
}

/* " (did you mean model.layers?)" when a known path is close, else "". */
static void suggest(const struct cfg_schema *s, const char *path, char *out,
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

/* ---- values: words, checks -------------------------------------------- */

/* The thing a setting of type d must be, for "(expected ...)". */
static void expected_words(const struct scenario *sc,
			   const struct cfg_setting *d, char *buf, size_t n)
{
	char range[128];
	const char *unit = d->unit && d->unit[0] ? d->unit : NULL;

	range_words(d, range, sizeof range);
	buf[0] = '\0';
	switch (d->type) {
	case CFG_INT:
		cat(buf, n, "an integer%s", range);
		break;
	case CFG_FLOAT:
		cat(buf, n, "a number%s", range);
		break;
	case CFG_INT_LIST:
		cat(buf, n, "a list of integers%s", range);
		break;
	case CFG_FLOAT_LIST:
		cat(buf, n, "a list of numbers%s", range);
		break;
	case CFG_BOOL:
		cat(buf, n, "true or false");
		unit = NULL;
		break;
	case CFG_STRING:
		cat(buf, n, "text in double quotes");
		unit = NULL;
		break;
	case CFG_ENUM:
		cat(buf, n, "%s", d->choices ? d->choices : "");
		unit = NULL;
		break;
	case CFG_REF: {
		const config_setting_t *g = sc ? config_lookup(&sc->cfg, d->choices) : NULL;
		int len = g && config_setting_is_group(g) ? config_setting_length(g) : 0;
		unit = NULL;
		if (len == 0) {
			cat(buf, n, "the name of an entry in %s, which has none",
			    d->choices);
			break;
		}
		cat(buf, n, "one of: ");
		for (int i = 0; i < len; i++) {
			if (i == 20) {
				cat(buf, n, ", ...");
				break;
			}
			cat(buf, n, "%s%s", i ? ", " : "",
			    config_setting_name(config_setting_get_elem(g, (unsigned)i)));
		}
		break;
	}
	}
	if (unit != NULL)
		cat(buf, n, " %s", unit);
}

/* A setting's value as it would read in the file. */
static void value_words(const config_setting_t *s, char *buf, size_t n)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		snprintf(buf, n, "%d", s->value.ival);
		break;
	case CONFIG_TYPE_INT64:
		snprintf(buf, n, "%lld", s->value.llval);
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(buf, n, "%.15g", s->value.fval);
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, n, "%s", s->value.ival ? "true" : "false");
		break;
	case CONFIG_TYPE_STRING:
		snprintf(buf, n, "\"%.80s%s\"", s->value.sval,
			 strlen(s->value.sval) > 80 ? "..." : "");
		break;
	case CONFIG_TYPE_GROUP:
		snprintf(buf, n, "a group");
		break;
	default:
		snprintf(buf, n, "a list");
		break;
	}
}

static bool is_int(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	       config_setting_type(s) == CONFIG_TYPE_INT64;
}

static bool is_num(const config_setting_t *s)
{
	return is_int(s) || config_setting_type(s) == CONFIG_TYPE_FLOAT;
}

static double num_of(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		return s->value.ival;
	case CONFIG_TYPE_INT64:
		return (double)s->value.llval;
	case CONFIG_TYPE_FLOAT:
		return s->value.fval;
	default:
		return 0;
	}
}

static bool in_range(const struct cfg_setting *d, double v)
{
	return !has_range(d) || (v >= d->min && v <= d->max);
}

/* One number (a scalar or a list element) against d; why on failure. */
static int check_number(const struct cfg_setting *d, const config_setting_t *s,
			bool want_int, char *why, size_t n)
{
	char v[128];

	value_words(s, v, sizeof v);
	if (want_int ? !is_int(s) : !is_num(s)) {
		snprintf(why, n, "%s is not %s", v, want_int ? "an integer" : "a number");
		return -1;
	}
	if (!in_range(d, num_of(s))) {
		snprintf(why, n, "%s is out of range", v);
		return -1;
	}
	return 0;
}

static bool enum_has(const char *choices, const char *v)
{
	size_t vl = strlen(v);

	while (choices && *choices) {
		size_t cl = strcspn(choices, "|");
		if (cl == vl && memcmp(choices, v, vl) == 0)
			return true;
		choices += cl + (choices[cl] == '|');
	}
	return false;
}

static bool ref_exists(const config_t *cfg, const char *group, const char *name)
{
	const config_setting_t *g = config_lookup(cfg, group);

	return g != NULL && config_setting_is_group(g) &&
	       config_setting_get_member(g, name) != NULL;
}

/* Type, range and choices of s against d ("what is wrong" in why, without
 * the "(expected ...)").  REF names are checked against cfg when given. */
static int check_value(const struct cfg_setting *d, const config_setting_t *s,
		       const config_t *cfg, char *why, size_t n)
{
	char v[128];

	value_words(s, v, sizeof v);
	switch (d->type) {
	case CFG_INT:
	case CFG_FLOAT:
		return check_number(d, s, d->type == CFG_INT, why, n);
	case CFG_BOOL:
		if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
			snprintf(why, n, "%s is not true or false", v);
			return -1;
		}
		return 0;
	case CFG_STRING:
	case CFG_ENUM:
	case CFG_REF:
		if (config_setting_type(s) != CONFIG_TYPE_STRING) {
			snprintf(why, n, "%s is not text", v);
			return -1;
		}
		if (d->type == CFG_ENUM && !enum_has(d->choices, s->value.sval)) {
			snprintf(why, n, "%s is not a choice", v);
			return -1;
		}
		if (d->type == CFG_REF && cfg != NULL &&
		    !ref_exists(cfg, d->choices, s->value.sval)) {
			snprintf(why, n, "no such entry %s in %s", v, d->choices);
			return -1;
		}
		return 0;
	case CFG_INT_LIST:
	case CFG_FLOAT_LIST:
		if (config_setting_type(s) != CONFIG_TYPE_ARRAY &&
		    config_setting_type(s) != CONFIG_TYPE_LIST) {
			snprintf(why, n, "%s is not a list", v);
			return -1;
		}
		for (int i = 0; i < config_setting_length(s); i++) {
			char w[256];
			if (check_number(d, config_setting_get_elem(s, (unsigned)i),
					 d->type == CFG_INT_LIST, w, sizeof w) < 0) {
				snprintf(why, n, "element %d: %s", i, w);
				return -1;
			}
		}
		return 0;
	}
	snprintf(why, n, "has an unknown type");
	return -1;
}

/* ---- values from text (overrides, defaults) --------------------------- */

static const char *trim(const char *s, size_t *len)
{
	while (*len > 0 && isspace((unsigned char)*s)) {
		s++;
		(*len)--;
	}
	while (*len > 0 && isspace((unsigned char)s[*len - 1]))
		(*len)--;
	return s;
}

/* Decimal or 0x hex, optional sign, the whole text.  -1: not an integer;
 * -2: an integer too large for 64 bits. */
static int parse_int(const char *t, long long *v)
{
	const char *p = t;
	char *end;
	int base = 10;

	if (*p == '+' || *p == '-')
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		if (!isxdigit((unsigned char)p[2]))
			return -1;
	} else if (!isdigit((unsigned char)*p)) {
		return -1;
	}
	errno = 0;
	*v = strtoll(t, &end, base);
	if (*end != '\0')
		return -1;
	return errno == ERANGE ? -2 : 0;
}

static int parse_float(const char *t, double *v)
{
	char *end;

	if (*t == '\0' || isspace((unsigned char)*t))
		return -1;
	errno = 0;
	*v = strtod(t, &end);
	if (*end != '\0' || !isfinite(*v))
		return -1;
	return 0;
}

/* Text with or without double quotes; \" and \\ escapes inside quotes. */
static char *unquote(const char *t, size_t len)
{
	if (len < 2 || t[0] != '"' || t[len - 1] != '"')
		return xstrndup(t, len);
	char *d = xrealloc(NULL, len), *q = d;
	for (size_t i = 1; i + 1 < len; i++) {
		if (t[i] == '\\' && i + 2 < len && (t[i + 1] == '"' || t[i + 1] == '\\'))
			i++;
		*q++ = t[i];
	}
	*q = '\0';
	return d;
}

static int add_int(config_setting_t *parent, const char *name, long long v)
{
	config_setting_t *s;

	if (v >= INT_MIN && v <= INT_MAX) {
		s = config_setting_add(parent, name, CONFIG_TYPE_INT);
		return s && config_setting_set_int(s, (int)v) ? 0 : -1;
	}
	s = config_setting_add(parent, name, CONFIG_TYPE_INT64);
	return s && config_setting_set_int64(s, v) ? 0 : -1;
}

/* Parse a list "[1, 2, 3]" (or "( ... )") into a new array named name. */
static int add_list(const struct cfg_setting *d, config_setting_t *parent,
		    const char *name, const char *t, size_t len, char *why,
		    size_t n)
{
	if (len < 2 || !((t[0] == '[' && t[len - 1] == ']') ||
			 (t[0] == '(' && t[len - 1] == ')'))) {
		snprintf(why, n, "%.*s is not a list", (int)len, t);
		return -1;
	}
	/* Integers go in as int64 if any needs it: arrays are homogeneous. */
	size_t cap = 8, cnt = 0;
	long long *iv = xrealloc(NULL, cap * sizeof *iv);
	double *fv = xrealloc(NULL, cap * sizeof *fv);
	bool wide = false;
	const char *p = t + 1, *stop = t + len - 1;
	size_t inner = (size_t)(stop - p);
	(void)trim(p, &inner);	/* only to see whether the list is empty */
	int rc = 0;

	while (inner > 0 && p <= stop) {
		size_t el = strcspn(p, ",");
		if (p + el > stop)
			el = (size_t)(stop - p);
		size_t tl = el;
		const char *e = trim(p, &tl);
		char *tok = xstrndup(e, tl);
		if (cnt == cap) {
			cap *= 2;
			iv = xrealloc(iv, cap * sizeof *iv);
			fv = xrealloc(fv, cap * sizeof *fv);
		}
		int bad = d->type == CFG_INT_LIST ? parse_int(tok, &iv[cnt])
						  : parse_float(tok, &fv[cnt]);
		if (bad == -2)
			snprintf(why, n, "element %zu: %s is out of range", cnt, tok);
		else if (bad)
			snprintf(why, n, "element %zu: %s is not %s", cnt,
				 tok[0] ? tok : "nothing",
				 d->type == CFG_INT_LIST ? "an integer" : "a number");
		free(tok);
		if (bad) {
			rc = -1;
			break;
		}
		if (d->type == CFG_INT_LIST && (iv[cnt] < INT_MIN || iv[cnt] > INT_MAX))
			wide = true;
		cnt++;
		if (p + el >= stop)
			break;
		p += el + 1;
	}
	if (rc == 0) {
		config_setting_t *a = config_setting_add(parent, name, CONFIG_TYPE_ARRAY);
		for (size_t i = 0; a != NULL && i < cnt; i++) {
			config_setting_t *el;
			if (d->type == CFG_FLOAT_LIST)
				el = config_setting_set_float_elem(a, -1, fv[i]);
			else if (wide)
				el = config_setting_set_int64_elem(a, -1, iv[i]);
			else
				el = config_setting_set_int_elem(a, -1, (int)iv[i]);
			if (el == NULL)
				a = NULL;
		}
		if (a == NULL) {
			snprintf(why, n, "cannot be stored");
			rc = -1;
		}
	}
	free(iv);
	free(fv);
	return rc;
}

/* Parse text as a value of type d into a new setting parent.name.  The
 * range and choices are checked later, like a file value's. */
static int add_parsed(const struct cfg_setting *d, config_setting_t *parent,
		      const char *name, const char *text, char *why, size_t n)
{
	size_t len = strlen(text);
	const char *t = trim(text, &len);
	char *tok = xstrndup(t, len);
	config_setting_t *s;
	long long iv;
	double fv;
	int rc = 0;

	switch (d->type) {
	case CFG_INT:
		rc = parse_int(tok, &iv);
		if (rc == 0)
			rc = add_int(parent, name, iv);
		else
			snprintf(why, n, rc == -2 ? "%s is out of range"
						  : "%s is not an integer",
				 tok[0] ? tok : "nothing");
		break;
	case CFG_FLOAT:
		rc = parse_float(tok, &fv);
		if (rc == 0) {
			s = config_setting_add(parent, name, CONFIG_TYPE_FLOAT);
			rc = s && config_setting_set_float(s, fv) ? 0 : -1;
		} else {
			snprintf(why, n, "%s is not a number", tok[0] ? tok : "nothing");
		}
		break;
	case CFG_BOOL:
		if (strcasecmp(tok, "true") == 0 || strcasecmp(tok, "false") == 0) {
			s = config_setting_add(parent, name, CONFIG_TYPE_BOOL);
			rc = s && config_setting_set_bool(s, tok[0] == 't' ||
							 tok[0] == 'T') ? 0 : -1;
		} else {
			snprintf(why, n, "%s is not true or false",
				 tok[0] ? tok : "nothing");
			rc = -1;
		}
		break;
	case CFG_STRING:
	case CFG_ENUM:
	case CFG_REF: {
		char *str = unquote(tok, len);
		s = config_setting_add(parent, name, CONFIG_TYPE_STRING);
		rc = s && config_setting_set_string(s, str) ? 0 : -1;
		free(str);
		break;
	}
	case CFG_INT_LIST:
	case CFG_FLOAT_LIST:
		rc = add_list(d, parent, name, tok, len, why, n);
		break;
	}
	free(tok);
	return rc;
}

/* ---- libconfig 1.5's 32-bit integer literals -------------------------- */

struct int_lit {
	unsigned line;
	long long v;
	bool too_big;		/* beyond 64 bits */
	char text[24];		/* the literal, for a message */
};

struct big_file {
	const char *name;	/* libconfig's pointer, as in settings */
	struct int_lit *v;	/* every plain (no L) integer literal, in order */
	size_t n;
	size_t next_lit;	/* where the next int setting's literal is */
	struct big_file *next;
};

/* The integer literals without L of one file, in order: libconfig 1.5
 * stored each in an int, truncating those beyond 32 bits.  Skips comments,
 * strings, names and floats the way libconfig's scanner does. */
static void big_scan(const char *path, struct big_file *bf)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0;
	unsigned line = 1;

	if (f == NULL)
		return;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? 2 * cap : 65536;
			buf = xrealloc(buf, cap);
		}
		size_t got = fread(buf + len, 1, 4096, f);
		len += got;
		if (got == 0)
			break;
	}
	fclose(f);
	if (buf == NULL)
		return;
	buf[len] = '\0';
	for (const char *p = buf; *p;) {
		if (*p == '\n') {
			line++;
			p++;
		} else if (*p == '#' || (p[0] == '/' && p[1] == '/')) {
			p += strcspn(p, "\n");
		} else if (p[0] == '/' && p[1] == '*') {
			for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
				line += *p == '\n';
			p += *p ? 2 : 0;
		} else if (*p == '"') {
			for (p++; *p && *p != '"'; p++) {
				if (*p == '\\' && p[1])
					p++;
				line += *p == '\n';
			}
			p += *p == '"';
		} else if (isalpha((unsigned char)*p) || *p == '*') {
			while (isalnum((unsigned char)*p) ||
			       (*p && strchr("-_*", *p)))
				p++;
		} else if (isdigit((unsigned char)*p) || (strchr("+-", *p) &&
			   isdigit((unsigned char)p[1]))) {
			const char *start = p;
			bool hex = false;
			if (*p == '+' || *p == '-')
				p++;
			if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
				hex = true;
				for (p += 2; isxdigit((unsigned char)*p); p++)
					;
			} else {
				while (isdigit((unsigned char)*p))
					p++;
				if (*p == '.' || *p == 'e' || *p == 'E') {
					/* A float: libconfig reads it whole. */
					while (isdigit((unsigned char)*p) || *p == '.' ||
					       *p == 'e' || *p == 'E' ||
					       ((*p == '+' || *p == '-') &&
						(p[-1] == 'e' || p[-1] == 'E')))
						p++;
					continue;
				}
			}
			if (*p == 'L') {
				while (*p == 'L')
					p++;
				continue;
			}
			char *end;
			errno = 0;
			long long v = hex ? (long long)strtoull(start, &end, 16)
					  : strtoll(start, &end, 10);
			bool too_big = errno == ERANGE ||
				       (hex && strtoull(start, NULL, 16) > LLONG_MAX);
			bf->v = xrealloc(bf->v, (bf->n + 1) * sizeof *bf->v);
			struct int_lit *l = &bf->v[bf->n++];
			*l = (struct int_lit){ line, v, too_big, "" };
			int tl = (int)(p - start);
			if (tl < (int)sizeof l->text)
				snprintf(l->text, sizeof l->text, "%.*s", tl, start);
			else
				snprintf(l->text, sizeof l->text, "%.16s...", start);
			(void)end;
		} else if (*p == '.' && isdigit((unsigned char)p[1])) {
			/* ".5": a float; skip its digits. */
			for (p++; isdigit((unsigned char)*p) || *p == 'e' ||
			     *p == 'E' || ((*p == '+' || *p == '-') &&
			     (p[-1] == 'e' || p[-1] == 'E')); p++)
				;
		} else {
			p++;
		}
	}
	free(buf);
}

static struct big_file *big_file_of(const struct scenario *sc,
				    struct big_file **files, const char *name)
{
	struct big_file *bf;
	char path[CFG_PATH_MAX];

	for (bf = *files; bf != NULL; bf = bf->next)
		if (bf->name == name || strcmp(bf->name, name) == 0)
			return bf;
	bf = xrealloc(NULL, sizeof *bf);
	*bf = (struct big_file){ name, NULL, 0, 0, *files };
	*files = bf;
	file_words(sc, name, path, sizeof path);
	big_scan(path, bf);
	return bf;
}

/* Put back the value of one int setting if libconfig truncated it.  The
 * int settings of a file, visited depth first, come in the order of their
 * literals in the text, so the next literal on the setting's line is its
 * own (starting over when a file is included twice). */
static int big_fix(struct scenario *sc, struct big_file **files,
		   config_setting_t *s, const char *path, struct err *e)
{
	const char *f = config_setting_source_file(s);
	unsigned line = config_setting_source_line(s);
	struct big_file *bf;
	size_t i;

	if (f == NULL || line == 0)
		return 0;
	bf = big_file_of(sc, files, f);
	for (i = bf->next_lit; i < bf->n && bf->v[i].line != line; i++)
		;
	if (i == bf->n)
		for (i = 0; i < bf->n && bf->v[i].line != line; i++)
			;
	if (i == bf->n)
		return 0;	/* not found: leave libconfig's value */
	bf->next_lit = i + 1;
	const struct int_lit *l = &bf->v[i];
	if ((uint32_t)s->value.ival != (uint32_t)(unsigned long long)l->v)
		return 0;	/* not this literal after all: be safe */
	if (l->too_big) {
		char fw[CFG_PATH_MAX], exp[CFG_WHY_MAX] = "an integer of at most 64 bits";
		long idx = schema_find(sc->schema, path);
		if (idx >= 0)
			expected_words(sc, sc->schema->ent[idx], exp, sizeof exp);
		file_words(sc, f, fw, sizeof fw);
		return err_set(e, ERR_USAGE, "%s:%u: %s: %s is out of range "
			       "(expected %s)", fw, line, path, l->text, exp);
	}
	if (l->v >= INT_MIN && l->v <= INT_MAX)
		return 0;
	/* The struct is public in libconfig.h; there is no API to widen a
	 * setting's type in place. */
	s->type = CONFIG_TYPE_INT64;
	s->value.llval = l->v;
	return 0;
}

static int big_walk(struct scenario *sc, struct big_file **files,
		    config_setting_t *g, char *path, size_t plen, struct err *e)
{
	for (int i = 0; i < config_setting_length(g); i++) {
		config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		size_t len = plen;
		if (config_setting_name(s) != NULL) {
			int k = snprintf(path + plen, CFG_PATH_MAX - plen, "%s%s",
					 plen ? "." : "", config_setting_name(s));
			if (k < 0 || (size_t)k >= CFG_PATH_MAX - plen)
				continue;	/* the validation walk reports it */
			len = plen + (size_t)k;
		}
		if (config_setting_type(s) == CONFIG_TYPE_INT &&
		    big_fix(sc, files, s, path, e) < 0)
			return -1;
		if (config_setting_is_aggregate(s) &&
		    big_walk(sc, files, s, path, len, e) < 0)
			return -1;
		path[plen] = '\0';
	}
	return 0;
}

static int big_ints_repair(struct scenario *sc, struct err *e)
{
	struct big_file *files = NULL;
	char path[CFG_PATH_MAX] = "";
	int rc = big_walk(sc, &files, config_root_setting(&sc->cfg), path, 0, e);

	while (files != NULL) {
		struct big_file *next = files->next;
		free(files->v);
		free(files);
		files = next;
	}
	return rc;
}

/* ---- loading ---------------------------------------------------------- */

static bool valid_name(const char *s, size_t n)
{
	if (n == 0 || !isalpha((unsigned char)s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

static int apply_override(struct scenario *sc, const char *text, struct err *e)
{
	const char *eq = strchr(text, '=');
	char why[CFG_WHY_MAX], exp[CFG_WHY_MAX], hint[CFG_PATH_MAX + 32];

	if (eq == NULL)
		return err_set(e, ERR_USAGE, "-s %s: expected KEY=VALUE", text);
	size_t kl = (size_t)(eq - text);
	const char *k = trim(text, &kl);
	if (kl == 0)
		return err_set(e, ERR_USAGE, "-s %s: expected KEY=VALUE", text);
	if (kl >= CFG_PATH_MAX)
		return err_set(e, ERR_USAGE, "-s %s: the key is too long", text);
	char key[CFG_PATH_MAX];
	memcpy(key, k, kl);
	key[kl] = '\0';

	for (const char *p = key;;) {
		size_t sl = strcspn(p, ".");
		if (!valid_name(p, sl))
			return err_set(e, ERR_USAGE, "-s %s: %s: not a setting path "
				       "(expected names of letters, digits, - and _ "
				       "joined by dots)", text, key);
		if (p[sl] == '\0')
			break;
		p += sl + 1;
	}
	long idx = schema_find(sc->schema, key);
	if (idx < 0) {
		if (schema_is_group(sc->schema, key))
			return err_set(e, ERR_USAGE, "-s %s: %s: is a group, not a "
				       "setting (expected a setting inside it)", text, key);
		suggest(sc->schema, key, hint, sizeof hint);
		return err_set(e, ERR_USAGE, "-s %s: %s: unknown setting%s", text,
			       key, hint);
	}
	const struct cfg_setting *d = sc->schema->ent[idx];

	/* Find or create the groups above the key. */
	config_setting_t *g = config_root_setting(&sc->cfg);
	char *p = key, *dot;
	while ((dot = strchr(p, '.')) != NULL) {
		*dot = '\0';
		config_setting_t *m = config_setting_get_member(g, p);
		if (m == NULL)
			m = config_setting_add(g, p, CONFIG_TYPE_GROUP);
		else if (!config_setting_is_group(m)) {
			char loc[CFG_PATH_MAX + 64], sub[CFG_PATH_MAX];
			snprintf(sub, sizeof sub, "%s", key);
			*dot = '.';
			where(sc, sub, loc, sizeof loc);
			return err_set(e, ERR_USAGE, "-s %s: %s: %s is not a group "
				       "(set at %s)", text, key, sub, loc);
		}
		*dot = '.';
		if (m == NULL)
			return err_set(e, ERR_RUN, "-s %s: cannot add a group", text);
		g = m;
		p = dot + 1;
	}
	/* Parse into a scratch group first, so a bad value changes nothing. */
	config_t tmp;
	config_init(&tmp);
	why[0] = '\0';
	int rc = add_parsed(d, config_root_setting(&tmp), "v", eq + 1, why,
			    sizeof why);
	if (rc == 0) {
		if (config_setting_get_member(g, p) != NULL)
			config_setting_remove(g, p);
		rc = add_parsed(d, g, p, eq + 1, why, sizeof why);
	}
	config_destroy(&tmp);
	if (rc < 0) {
		expected_words(sc, d, exp, sizeof exp);
		return err_set(e, ERR_USAGE, "-s %s: %s: %s (expected %s)", text,
			       key, why[0] ? why : "cannot be stored", exp);
	}
	sc->ovr = xrealloc(sc->ovr, (sc->n_ovr + 1) * sizeof *sc->ovr);
	sc->ovr[sc->n_ovr].path = xstrndup(key, kl);
	sc->ovr[sc->n_ovr].text = xstrndup(text, strlen(text));
	sc->n_ovr++;
	return 0;
}

/* Every setting present must be in the schema, with a good value. */
static int walk(struct scenario *sc, const config_setting_t *g, char *path,
		size_t plen, struct err *e)
{
	char why[CFG_WHY_MAX], exp[CFG_WHY_MAX], hint[CFG_PATH_MAX + 32];

	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *name = config_setting_name(s);
		int k = snprintf(path + plen, CFG_PATH_MAX - plen, "%s%s",
				 plen ? "." : "", name);
		if (k < 0 || (size_t)k >= CFG_PATH_MAX - plen) {
			path[plen] = '\0';
			return sc_error(sc, e, path, "%s: the path is too long", name);
		}
		size_t len = plen + (size_t)k;
		long idx = schema_find(sc->schema, path);

		if (strchr(name, '*') != NULL) {
			/* libconfig allows it; to us "*" means "any name". */
			return sc_error(sc, e, path, "unknown setting (\"*\" "
					"is not allowed in a name)");
		} else if (idx >= 0) {
			const struct cfg_setting *d = sc->schema->ent[idx];
			if (check_value(d, s, &sc->cfg, why, sizeof why) < 0) {
				expected_words(sc, d, exp, sizeof exp);
				cat(why, sizeof why, " (expected %s)", exp);
				return sc_fail(sc, e, path, why);
			}
		} else if (schema_is_group(sc->schema, path)) {
			if (!config_setting_is_group(s)) {
				value_words(s, exp, sizeof exp);
				return sc_error(sc, e, path, "%s is not a group "
						"(expected a group of settings)", exp);
			}
			if (walk(sc, s, path, len, e) < 0)
				return -1;
		} else {
			suggest(sc->schema, path, hint, sizeof hint);
			return sc_error(sc, e, path, "unknown setting%s", hint);
		}
		path[plen] = '\0';
	}
	return 0;
}

/* A schema entry where absent: required ones are missing, and a REF's
 * default must name an existing entry. */
static int check_absent(struct scenario *sc, size_t idx, const char *path,
			struct err *e)
{
	const struct cfg_setting *d = sc->schema->ent[idx];
	char exp[CFG_WHY_MAX];

	if (d->def == NULL)
		return sc_error(sc, e, path, "missing required setting");
	if (d->type != CFG_REF)
		return 0;
	char name[32];
	snprintf(name, sizeof name, "d%zu", idx);
	const config_setting_t *v = config_setting_get_member(
		config_root_setting(&sc->defs), name);
	if (v == NULL || ref_exists(&sc->cfg, d->choices, v->value.sval))
		return 0;
	expected_words(sc, d, exp, sizeof exp);
	return sc_error(sc, e, path, "no such entry \"%s\" in %s (the default; "
			"expected %s)", v->value.sval, d->choices, exp);
}

/* Visit every place entry idx applies to: fixed names always, "*" over
 * the child groups present. */
static int expand(struct scenario *sc, size_t idx, const char *pat,
		  const config_setting_t *g, char *path, size_t plen,
		  struct err *e)
{
	size_t sl = strcspn(pat, ".");
	bool last = pat[sl] == '\0';

	if (sl == 1 && pat[0] == '*') {
		/* A "*" leaf ("prices.*") requires nothing of the names there. */
		if (last || g == NULL || !config_setting_is_group(g))
			return 0;
		for (int i = 0; i < config_setting_length(g); i++) {
			const config_setting_t *c = config_setting_get_elem(g, (unsigned)i);
			int k = snprintf(path + plen, CFG_PATH_MAX - plen, "%s%s",
					 plen ? "." : "", config_setting_name(c));
			if (k < 0 || (size_t)k >= CFG_PATH_MAX - plen)
				continue;
			if (config_setting_is_group(c) &&
			    expand(sc, idx, pat + sl + 1, c, path, plen + (size_t)k, e) < 0)
				return -1;
			path[plen] = '\0';
		}
		return 0;
	}
	int k = snprintf(path + plen, CFG_PATH_MAX - plen, "%s%.*s",
			 plen ? "." : "", (int)sl, pat);
	if (k < 0 || (size_t)k >= CFG_PATH_MAX - plen)
		return 0;
	char seg[CFG_PATH_MAX];
	snprintf(seg, sizeof seg, "%.*s", (int)sl, pat);
	const config_setting_t *c = g != NULL && config_setting_is_group(g) ?
		config_setting_get_member(g, seg) : NULL;
	int rc;
	if (last)
		rc = c == NULL ? check_absent(sc, idx, path, e) : 0;
	else
		rc = expand(sc, idx, pat + sl + 1, c, path, plen + (size_t)k, e);
	path[plen] = '\0';
	return rc;
}

/* Parse every default into sc->defs and check it against its own entry;
 * a bad one is a bug in a table. */
static int load_defaults(struct scenario *sc, struct err *e)
{
	const struct cfg_schema *s = sc->schema;
	config_setting_t *root = config_root_setting(&sc->defs);
	char why[CFG_WHY_MAX], exp[CFG_WHY_MAX], name[32];

	for (size_t i = 0; i < s->n; i++) {
		const struct cfg_setting *d = s->ent[i];
		for (size_t j = 0; j < i; j++)
			if (strcmp(s->ent[j]->path, d->path) == 0 &&
			    (s->ent[j]->type != d->type ||
			     (s->ent[j]->def == NULL) != (d->def == NULL) ||
			     (d->def && strcmp(s->ent[j]->def, d->def) != 0)))
				return err_set(e, ERR_RUN, "schema: %s: declared twice, "
					       "with different types or defaults",
					       d->path);
		if ((d->type == CFG_ENUM || d->type == CFG_REF) &&
		    (d->choices == NULL || d->choices[0] == '\0'))
			return err_set(e, ERR_RUN, "schema: %s: %s without choices",
				       d->path, type_name(d->type));
		if (d->def == NULL)
			continue;
		snprintf(name, sizeof name, "d%zu", i);
		why[0] = '\0';
		if (add_parsed(d, root, name, d->def, why, sizeof why) < 0 ||
		    check_value(d, config_setting_get_member(root, name), NULL,
				why, sizeof why) < 0) {
			expected_words(NULL, d, exp, sizeof exp);
			return err_set(e, ERR_RUN, "schema: %s: bad default \"%s\": "
				       "%s (expected %s)", d->path, d->def, why, exp);
		}
	}
	return 0;
}

static int read_file(struct scenario *sc, struct err *e)
{
	struct stat st;
	FILE *f = fopen(sc->file, "r");
	char fw[CFG_PATH_MAX];

	if (f == NULL)
		return err_set(e, ERR_USAGE, "%s: cannot read: %s", sc->file,
			       strerror(errno));
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return err_set(e, ERR_USAGE, "%s: cannot read: %s", sc->file,
			       strerror(EISDIR));
	}
	fclose(f);
	if (config_read_file(&sc->cfg, sc->file))
		return 0;
	if (config_error_type(&sc->cfg) == CONFIG_ERR_FILE_IO)
		return err_set(e, ERR_USAGE, "%s: cannot read: %s", sc->file,
			       config_error_text(&sc->cfg));
	file_words(sc, config_error_file(&sc->cfg), fw, sizeof fw);
	return err_set(e, ERR_USAGE, "%s:%d: %s", fw, config_error_line(&sc->cfg),
		       config_error_text(&sc->cfg));
}

static int write_text(struct scenario *sc, struct err *e)
{
	size_t len = 0;
	FILE *m = open_memstream(&sc->text, &len);

	if (m == NULL)
		return err_set(e, ERR_RUN, "%s: cannot write the scenario text: %s",
			       sc->file, strerror(errno));
	config_write(&sc->cfg, m);
	if (fclose(m) != 0)
		return err_set(e, ERR_RUN, "%s: cannot write the scenario text",
			       sc->file);
	return 0;
}

struct scenario *sc_load(const struct cfg_schema *s, const char *file,
			 const char *const *overrides, size_t n_overrides,
			 struct err *e)
{
	struct scenario *sc = xrealloc(NULL, sizeof *sc);
	char path[CFG_PATH_MAX] = "";

	memset(sc, 0, sizeof *sc);
	sc->schema = s;
	sc->file = xstrndup(file, strlen(file));
	sc->cache = xrealloc(NULL, sizeof *sc->cache);
	memset(sc->cache, 0, sizeof *sc->cache);
	config_init(&sc->cfg);
	config_init(&sc->defs);
	config_set_auto_convert(&sc->cfg, 1);
	const char *slash = strrchr(file, '/');
	if (slash != NULL) {
		sc->incdir = xstrndup(file, slash == file ? 1 : (size_t)(slash - file));
		config_set_include_dir(&sc->cfg, sc->incdir);
	}
	if (load_defaults(sc, e) < 0 || read_file(sc, e) < 0 ||
	    big_ints_repair(sc, e) < 0)
		goto fail;
	for (size_t i = 0; i < n_overrides; i++)
		if (apply_override(sc, overrides[i], e) < 0)
			goto fail;
	if (walk(sc, config_root_setting(&sc->cfg), path, 0, e) < 0)
		goto fail;
	for (size_t i = 0; i < s->n; i++)
		if (expand(sc, i, s->ent[i]->path, config_root_setting(&sc->cfg),
			   path, 0, e) < 0)
			goto fail;
	if (write_text(sc, e) < 0)
		goto fail;
	return sc;
fail:
	sc_free(sc);
	return NULL;
}

void sc_free(struct scenario *sc)
{
	if (sc == NULL)
		return;
	config_destroy(&sc->cfg);
	config_destroy(&sc->defs);
	for (size_t i = 0; i < sc->n_ovr; i++) {
		free(sc->ovr[i].path);
		free(sc->ovr[i].text);
	}
	free(sc->ovr);
	for (struct sc_children *c = sc->cache->children, *next; c; c = next) {
		next = c->next;
		free(c->group);
		free(c->names);
		free(c);
	}
	free(sc->cache);
	free(sc->file);
	free(sc->incdir);
	free(sc->text);
	free(sc);
}

/* ---- accessors -------------------------------------------------------- */

/* The setting behind an accessor call: the file's or override's value,
 * else the parsed default, else NULL (a required setting of an absent
 * group).  A path outside the schema or a mismatched accessor is a bug. */
static const config_setting_t *value_at(const struct scenario *sc,
					const char *who, unsigned types,
					const char *fmt, va_list ap)
{
	char path[CFG_PATH_MAX], name[32];
	int k = vsnprintf(path, sizeof path, fmt, ap);

	if (k < 0 || (size_t)k >= sizeof path)
		cfg_bug("%s(\"%s\"): path too long", who, fmt);
	long idx = schema_find(sc->schema, path);
	if (idx < 0)
		cfg_bug("%s(\"%s\"): not in the schema", who, path);
	if (!(types & (1u << sc->schema->ent[idx]->type)))
		cfg_bug("%s(\"%s\"): the setting is of type %s", who, path,
			type_name(sc->schema->ent[idx]->type));
	const config_setting_t *s = config_lookup(&sc->cfg, path);
	if (s != NULL)
		return s;
	snprintf(name, sizeof name, "d%ld", idx);
	return config_setting_get_member(config_root_setting(&sc->defs), name);
}

#define T(t) (1u << (t))

int64_t sc_int(const struct scenario *sc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	const config_setting_t *s = value_at(sc, "sc_int", T(CFG_INT), fmt, ap);
	va_end(ap);
	return s ? config_setting_get_int64(s) : 0;
}

double sc_float(const struct scenario *sc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	const config_setting_t *s = value_at(sc, "sc_float",
					     T(CFG_FLOAT) | T(CFG_INT), fmt, ap);
	va_end(ap);
	return s ? num_of(s) : 0.0;
}

bool sc_bool(const struct scenario *sc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	const config_setting_t *s = value_at(sc, "sc_bool", T(CFG_BOOL), fmt, ap);
	va_end(ap);
	return s ? config_setting_get_bool(s) != 0 : false;
}

const char *sc_str(const struct scenario *sc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	const config_setting_t *s = value_at(sc, "sc_str", T(CFG_STRING) |
					     T(CFG_ENUM) | T(CFG_REF), fmt, ap);
	va_end(ap);
	return s ? config_setting_get_string(s) : "";
}

size_t sc_list_len(const struct scenario *sc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	const config_setting_t *s = value_at(sc, "sc_list_len",
					     T(CFG_INT_LIST) | T(CFG_FLOAT_LIST),
					     fmt, ap);
	va_end(ap);
	return s ? (size_t)config_setting_length(s) : 0;
}

double sc_list_float(const struct scenario *sc, size_t i, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	const config_setting_t *s = value_at(sc, "sc_list_float",
					     T(CFG_INT_LIST) | T(CFG_FLOAT_LIST),
					     fmt, ap);
	va_end(ap);
	if (s == NULL || i >= (size_t)config_setting_length(s))
		return 0.0;
	return num_of(config_setting_get_elem(s, (unsigned)i));
}

bool sc_has(const struct scenario *sc, const char *fmt, ...)
{
	char path[CFG_PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	int k = vsnprintf(path, sizeof path, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= sizeof path)
		cfg_bug("sc_has(\"%s\"): path too long", fmt);
	if (schema_find(sc->schema, path) < 0 &&
	    !schema_is_group(sc->schema, path))
		cfg_bug("sc_has(\"%s\"): not in the schema", path);
	return config_lookup(&sc->cfg, path) != NULL;
}

size_t sc_children(const struct scenario *sc, const char *group,
		   const char *const **names)
{
	struct sc_children *c;

	for (c = sc->cache->children; c != NULL; c = c->next)
		if (strcmp(c->group, group) == 0)
			break;
	if (c == NULL) {
		const config_setting_t *g = group[0] ? config_lookup(&sc->cfg, group)
						     : config_root_setting(&sc->cfg);
		c = xrealloc(NULL, sizeof *c);
		*c = (struct sc_children){ xstrndup(group, strlen(group)), NULL, 0,
					   sc->cache->children };
		if (g != NULL && config_setting_is_group(g)) {
			c->n = (size_t)config_setting_length(g);
			c->names = xrealloc(NULL, c->n * sizeof *c->names);
			for (size_t i = 0; i < c->n; i++)
				c->names[i] = config_setting_name(
					config_setting_get_elem(g, (unsigned)i));
		}
		sc->cache->children = c;
	}
	*names = c->names;
	return c->n;
}

const char *sc_file(const struct scenario *sc)
{
	return sc->file;
}

const char *sc_text(const struct scenario *sc)
{
	return sc->text;
}
