/*
 * cfg.c -- the schema: settings declared in tables, found by path.
 *
 * The interface and the rules are in cfg.h; the loader that checks a file
 * against the schema is sim/scenario.c, and cfg_int.h says which file does
 * what.  This one holds the tables, the matching of paths and the words
 * for types and ranges, plus the few helpers every cfg*.c file uses.
 *
 * - A path's segments are matched one by one; a "*" segment in the schema
 *   matches any one name.  When several entries match, the one with the
 *   fewest "*" wins (so "gpus.h100.x" may refine "gpus.*.x").
 * - Ranges: min and max are inclusive; +-INFINITY leaves a side open, and
 *   min == max == 0 means "no range" (what a table gets when it leaves the
 *   fields zero).
 * - Programming errors (a path that is not in the schema, an accessor of
 *   the wrong type) print a message and abort() through cfg_bug():
 *   validation has run by then, so no user input can lead there.  Running
 *   out of memory aborts too, as libconfig's own allocations do.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg_int.h"

/* ---- helpers shared by the cfg*.c files -------------------------------- */

void *cfg_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL) {
		fprintf(stderr, "trainsim: out of memory\n");
		abort();
	}
	return q;
}

char *cfg_xstrndup(const char *s, size_t n)
{
	char *d = cfg_xrealloc(NULL, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

_Noreturn void cfg_bug(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "trainsim: internal error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	abort();
}

void cfg_cat(char *buf, size_t n, const char *fmt, ...)
{
	size_t len = strnlen(buf, n);
	va_list ap;

	if (len + 1 >= n)
		return;
	va_start(ap, fmt);
	vsnprintf(buf + len, n - len, fmt, ap);
	va_end(ap);
}

const char *cfg_cut(char *buf, size_t n, const char *s)
{
	size_t len = strlen(s);

	if (len <= CFG_ECHO_MAX || n < CFG_ECHO_MAX + 4)
		return s;
	snprintf(buf, n, "%.*s...", CFG_ECHO_MAX, s);
	return buf;
}

long cfg_path_push(char *path, size_t plen, const char *name, size_t len)
{
	int k = snprintf(path + plen, CFG_PATH_MAX - plen, "%s%.*s",
			 plen ? "." : "", (int)len, name);

	if (k < 0 || (size_t)k >= CFG_PATH_MAX - plen) {
		path[plen] = '\0';
		return -1;
	}
	return (long)(plen + (size_t)k);
}

/* ---- tables ------------------------------------------------------------ */

struct cfg_schema *cfg_schema_new(void)
{
	struct cfg_schema *s = cfg_xrealloc(NULL, sizeof *s);

	memset(s, 0, sizeof *s);
	s->defaults = cfg_xrealloc(NULL, sizeof *s->defaults);
	memset(s->defaults, 0, sizeof *s->defaults);
	config_init(&s->defaults->cfg);
	return s;
}

/* Entries were added: the next load parses the defaults again. */
static void defaults_reset(struct cfg_defaults *d)
{
	config_destroy(&d->cfg);
	config_init(&d->cfg);
	free(d->of);
	d->of = NULL;
	d->ready = false;
}

void cfg_schema_free(struct cfg_schema *s)
{
	if (s == NULL)
		return;
	defaults_reset(s->defaults);
	config_destroy(&s->defaults->cfg);
	free(s->defaults);
	free(s->leaf);
	free(s->group);
	free(s->wild);
	free(s->ent);
	free(s->ren);
	free(s);
}

static uint64_t path_hash(const char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)p[i]) * 0x100000001b3u;
	return h;
}

/* The slot of name p[0..len) in t (an entry's path, or the group above
 * it), or the empty slot where it goes. */
static struct cfg_slot *slot_of(const struct cfg_schema *s, struct cfg_slot *t,
				const char *p, size_t len)
{
	size_t i = path_hash(p, len) & s->mask;

	for (; t[i].idx != 0; i = (i + 1) & s->mask)
		if (t[i].len == len && memcmp(s->ent[t[i].idx - 1]->path, p, len) == 0)
			break;
	return &t[i];
}

static void index_name(struct cfg_schema *s, struct cfg_slot *t, size_t idx,
		       size_t len)
{
	struct cfg_slot *x = slot_of(s, t, s->ent[idx]->path, len);

	if (x->idx == 0)	/* the first of equal ones */
		*x = (struct cfg_slot){ (uint32_t)idx + 1, (uint32_t)len };
}

/* Hash every entry without "*" by its path and by each group above it. */
static void index_build(struct cfg_schema *s)
{
	size_t slots = 64, names = 0;

	for (size_t i = 0; i < s->n; i++)	/* a path and its groups */
		for (const char *p = s->ent[i]->path; p; p = strchr(p + 1, '.'))
			names++;
	while (slots < 2 * names)
		slots *= 2;	/* at most half full */
	free(s->leaf);
	free(s->group);
	s->leaf = cfg_xrealloc(NULL, slots * sizeof *s->leaf);
	s->group = cfg_xrealloc(NULL, slots * sizeof *s->group);
	memset(s->leaf, 0, slots * sizeof *s->leaf);
	memset(s->group, 0, slots * sizeof *s->group);
	s->mask = slots - 1;
	s->wild = cfg_xrealloc(s->wild, (s->n ? s->n : 1) * sizeof *s->wild);
	s->n_wild = 0;
	for (size_t i = 0; i < s->n; i++) {
		const char *p = s->ent[i]->path;
		if (strchr(p, '*') != NULL) {
			s->wild[s->n_wild++] = i;
			continue;
		}
		index_name(s, s->leaf, i, strlen(p));
		for (const char *d = strchr(p, '.'); d; d = strchr(d + 1, '.'))
			index_name(s, s->group, i, (size_t)(d - p));
	}
}

static void rename_add(struct cfg_schema *s, const struct cfg_setting *d)
{
	if (s->n_ren == s->cap_ren) {
		s->cap_ren = s->cap_ren ? 2 * s->cap_ren : 16;
		s->ren = cfg_xrealloc(s->ren, s->cap_ren * sizeof *s->ren);
	}
	s->ren[s->n_ren++] = d;
}

void cfg_schema_add(struct cfg_schema *s, const struct cfg_setting *table)
{
	defaults_reset(s->defaults);
	for (; table->path != NULL; table++) {
		if (table->type == CFG_RENAMED) {
			rename_add(s, table);
			continue;
		}
		if (s->n == s->cap) {
			s->cap = s->cap ? 2 * s->cap : 64;
			s->ent = cfg_xrealloc(s->ent, s->cap * sizeof *s->ent);
		}
		s->ent[s->n++] = table;
	}
	index_build(s);
}

int cfg_schema_check_entry(const struct cfg_schema *s, size_t i,
			   struct err *e)
{
	const struct cfg_setting *d = s->ent[i];

	for (size_t j = 0; j < i; j++)
		if (strcmp(s->ent[j]->path, d->path) == 0 &&
		    (s->ent[j]->type != d->type ||
		     (s->ent[j]->def == NULL) != (d->def == NULL) ||
		     (d->def && strcmp(s->ent[j]->def, d->def) != 0)))
			return err_set(e, ERR_RUN, "schema: %s: declared twice, "
				       "with different types or defaults", d->path);
	if ((d->type == CFG_ENUM || d->type == CFG_REF) &&
	    (d->choices == NULL || d->choices[0] == '\0'))
		return err_set(e, ERR_RUN, "schema: %s: %s without choices",
			       d->path, cfg_type_name(d->type));
	return 0;
}

/* ---- paths ------------------------------------------------------------- */

enum { MATCH_NONE, MATCH_LEAF, MATCH_PREFIX };

/* Does path equal pattern pat (MATCH_LEAF), or name a group above it
 * (MATCH_PREFIX)?  "*" in pat matches one non-empty name.  A byte loop,
 * not strcspn: every setting of every candidate the planner loads is
 * looked up here against the whole schema, and most patterns differ at
 * their first byte. */
static int seg_match(const char *pat, const char *path)
{
	for (;;) {
		if (*path == '\0' || *path == '.')
			return MATCH_NONE;	/* an empty name */
		if (pat[0] == '*' && (pat[1] == '.' || pat[1] == '\0')) {
			pat++;
			while (*path != '\0' && *path != '.')
				path++;
		} else {
			while (*pat != '\0' && *pat != '.' && *pat == *path) {
				pat++;
				path++;
			}
			if ((*pat != '\0' && *pat != '.') || (*path != '\0' && *path != '.'))
				return MATCH_NONE;
		}
		if (*path == '\0')
			return *pat == '\0' ? MATCH_LEAF : MATCH_PREFIX;
		if (*pat == '\0')
			return MATCH_NONE;
		pat++;
		path++;
	}
}

bool cfg_path_is(const char *pat, const char *path)
{
	return seg_match(pat, path) == MATCH_LEAF;
}

bool cfg_path_under(const char *pat, const char *path)
{
	return seg_match(pat, path) == MATCH_PREFIX;
}

/* The number of "*" segments in a pattern: fewer is more specific. */
size_t cfg_path_stars(const char *p)
{
	size_t n = 0;

	for (const char *q = p; *q; q++)
		if (*q == '*' && (q == p || q[-1] == '.') &&
		    (q[1] == '.' || q[1] == '\0'))
			n++;
	return n;
}

/* The entry for path: one without "*" if any (the most specific, and the
 * first declared of equal ones), else the one with the fewest "*", the
 * first declared of equals. */
long cfg_schema_find(const struct cfg_schema *s, const char *path)
{
	long best = -1;
	size_t best_w = SIZE_MAX;

	if (s->leaf == NULL)
		return -1;	/* no table added */
	const struct cfg_slot *x = slot_of(s, s->leaf, path, strlen(path));
	if (x->idx != 0)
		return (long)x->idx - 1;
	for (size_t k = 0; k < s->n_wild; k++) {
		size_t i = s->wild[k];
		if (seg_match(s->ent[i]->path, path) != MATCH_LEAF)
			continue;
		size_t w = cfg_path_stars(s->ent[i]->path);
		if (w < best_w) {
			best = (long)i;
			best_w = w;
		}
	}
	return best;
}

bool cfg_schema_is_group(const struct cfg_schema *s, const char *path)
{
	if (s->leaf == NULL)
		return false;
	if (slot_of(s, s->group, path, strlen(path))->idx != 0)
		return true;
	for (size_t k = 0; k < s->n_wild; k++)
		if (seg_match(s->ent[s->wild[k]]->path, path) == MATCH_PREFIX)
			return true;
	return false;
}

/* ---- types and ranges in words ----------------------------------------- */

const char *cfg_type_name(enum cfg_type t)
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
	case CFG_RENAMED: return "renamed";
	}
	return "?";
}

static bool is_numeric(enum cfg_type t)
{
	return t == CFG_INT || t == CFG_FLOAT || t == CFG_INT_LIST ||
	       t == CFG_FLOAT_LIST;
}

bool cfg_has_range(const struct cfg_setting *d)
{
	return is_numeric(d->type) && !(d->min == 0 && d->max == 0);
}

/* Numbers in messages: integers without exponent where exact. */
static void fmt_num(char *buf, size_t n, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.15g", v);
}

void cfg_range_words(const struct cfg_setting *d, char *buf, size_t n)
{
	char lo[48], hi[48];

	buf[0] = '\0';
	if (!cfg_has_range(d) || (isinf(d->min) && isinf(d->max)))
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

/* The RANGE column of --schema: what values d takes. */
static void print_range(const struct cfg_setting *d, char *buf, size_t n)
{
	switch (d->type) {
	case CFG_BOOL:
		snprintf(buf, n, "true|false");
		break;
	case CFG_STRING:
		snprintf(buf, n, "text");
		break;
	case CFG_ENUM:
		snprintf(buf, n, "%s", d->choices ? d->choices : "");
		break;
	case CFG_REF:
		snprintf(buf, n, "name in %s", d->choices ? d->choices : "?");
		break;
	default:
		cfg_range_words(d, buf, n);
		if (buf[0] == '\0')
			snprintf(buf, n, "any");
		else if (buf[1] == 'i')	/* drop the " in " */
			memmove(buf, buf + 4, strlen(buf + 4) + 1);
		else
			memmove(buf, buf + 1, strlen(buf + 1) + 1);
		break;
	}
}

void cfg_schema_print(const struct cfg_schema *s, FILE *out)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct cfg_setting *d = s->ent[i];
		char range[128];

		print_range(d, range, sizeof range);
		fprintf(out, "%-34s %-7s %-6s %-22s %-14s %s\n", d->path,
			cfg_type_name(d->type), d->unit && d->unit[0] ? d->unit : "-",
			range, d->def ? d->def : "(required)",
			d->help ? d->help : "");
	}
}

/* One TSV field: tabs and newlines would split it. */
static void print_field(const char *s, FILE *out)
{
	for (; s && *s; s++)
		fputc(*s == '\t' || *s == '\n' ? ' ' : *s, out);
}

void cfg_schema_print_tsv(const struct cfg_schema *s, FILE *out)
{
	fputs("path\ttype\tunit\trange\tdefault\thelp\n", out);
	for (size_t i = 0; i < s->n; i++) {
		const struct cfg_setting *d = s->ent[i];
		char range[128];

		print_range(d, range, sizeof range);
		print_field(d->path, out);
		fprintf(out, "\t%s\t", cfg_type_name(d->type));
		print_field(d->unit, out);
		fputc('\t', out);
		print_field(range, out);
		fputc('\t', out);
		print_field(d->def ? d->def : "(required)", out);
		fputc('\t', out);
		print_field(d->help, out);
		fputc('\n', out);
	}
	for (size_t i = 0; i < s->n_ren; i++) {
		print_field(s->ren[i]->path, out);
		fputs("\trenamed\t\t", out);
		print_field(s->ren[i]->choices, out);
		fputs("\t\trenamed to ", out);
		print_field(s->ren[i]->choices, out);
		fputc('\n', out);
	}
}
