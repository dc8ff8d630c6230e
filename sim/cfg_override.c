/*
 * cfg_override.c -- settings from text: -s KEY=VALUE and schema defaults.
 *
 * cfg_add_parsed() turns text into a libconfig setting of the type the
 * schema wants, the same way for an override and for a table's default,
 * so accessors read both like a file value:
 *   - INT: decimal or 0x hex with an optional sign, stored as int, or as
 *     int64 beyond 32 bits (FLOAT takes anything strtod() reads whole,
 *     finite and not hex, as a file's float);
 *   - BOOL: true or false, any case;
 *   - STRING, ENUM, REF: the text, with or without double quotes (\" and
 *     \\ escape inside them);
 *   - lists: "[1, 2, 3]" or "(1, 2, 3)"; an int list is all int64 if any
 *     element needs it, since libconfig arrays are homogeneous.
 * Range and choices are checked afterwards, like a file value's.
 *
 * cfg_override_apply() checks the KEY (names of letters, digits, - and _
 * joined by dots, a setting in the schema), makes the groups above it,
 * and replaces any value the file had.  A value that does not parse
 * changes nothing; the override is remembered so that messages point at
 * it rather than at the file.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sim/cfg_int.h"

/* ---- words to numbers -------------------------------------------------- */

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
	/* Decimal only, as libconfig reads a float in a file: strtod would
	 * also take a hex float (0x1p0). */
	const char *digits = t + (*t == '+' || *t == '-');
	if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X'))
		return -1;
	errno = 0;
	*v = strtod(t, &end);
	if (*end != '\0' || !isfinite(*v))
		return -1;
	return 0;
}

/* What parse_int() or parse_float() found wrong (bad: -1 or -2) with tok. */
static void bad_number(const char *tok, bool want_int, int bad, char *why,
		       size_t n)
{
	char cut[CFG_ECHO_MAX + 4];

	tok = cfg_cut(cut, sizeof cut, tok);
	if (bad == -2)
		snprintf(why, n, "%s is out of range", tok);
	else
		snprintf(why, n, "%s is not %s", tok[0] ? tok : "nothing",
			 want_int ? "an integer" : "a number");
}

/* Where the quote that opens t closes (\" and \\ being escapes, as
 * unquote() reads them): NULL if it does not, "" when at the end, else
 * what follows it. */
static const char *quote_end(const char *t, size_t len)
{
	for (size_t i = 1; i < len; i++) {
		if (t[i] == '\\' && i + 1 < len && (t[i + 1] == '"' || t[i + 1] == '\\'))
			i++;
		else if (t[i] == '"')
			return t + i + 1;
	}
	return NULL;
}

/* Text with or without double quotes; \" and \\ escapes inside quotes. */
static char *unquote(const char *t, size_t len)
{
	if (len < 2 || t[0] != '"' || t[len - 1] != '"')
		return cfg_xstrndup(t, len);
	char *d = cfg_xrealloc(NULL, len), *q = d;
	for (size_t i = 1; i + 1 < len; i++) {
		if (t[i] == '\\' && i + 2 < len && (t[i + 1] == '"' || t[i + 1] == '\\'))
			i++;
		*q++ = t[i];
	}
	*q = '\0';
	return d;
}

/* ---- lists ------------------------------------------------------------- */

struct num_list {
	long long *iv;		/* the elements of an int list */
	double *fv;		/* the elements of a float list */
	size_t n, cap;
	bool wide;		/* an int element needs 64 bits */
};

/* The comma-separated elements between t's brackets into l. */
static int list_parse(const struct cfg_setting *d, const char *t, size_t len,
		      struct num_list *l, char *why, size_t n)
{
	bool want_int = d->type == CFG_INT_LIST;
	const char *p = t + 1, *stop = t + len - 1;
	size_t inner = (size_t)(stop - p);

	(void)trim(p, &inner);	/* only to see whether the list is empty */
	while (inner > 0 && p <= stop) {
		size_t el = strcspn(p, ",");
		if (p + el > stop)
			el = (size_t)(stop - p);
		size_t tl = el;
		const char *e = trim(p, &tl);
		char *tok = cfg_xstrndup(e, tl);
		if (l->n == l->cap) {
			l->cap *= 2;
			l->iv = cfg_xrealloc(l->iv, l->cap * sizeof *l->iv);
			l->fv = cfg_xrealloc(l->fv, l->cap * sizeof *l->fv);
		}
		int bad = want_int ? parse_int(tok, &l->iv[l->n])
				   : parse_float(tok, &l->fv[l->n]);
		if (bad) {
			char w[CFG_WHY_MAX];
			bad_number(tok, want_int, bad, w, sizeof w);
			snprintf(why, n, "element %zu: %s", l->n, w);
		}
		free(tok);
		if (bad)
			return -1;
		if (want_int && (l->iv[l->n] < INT_MIN || l->iv[l->n] > INT_MAX))
			l->wide = true;
		l->n++;
		if (p + el >= stop)
			break;
		p += el + 1;
	}
	return 0;
}

static int list_store(const struct cfg_setting *d, config_setting_t *parent,
		      const char *name, const struct num_list *l, char *why,
		      size_t n)
{
	config_setting_t *a = config_setting_add(parent, name, CONFIG_TYPE_ARRAY);

	for (size_t i = 0; a != NULL && i < l->n; i++) {
		config_setting_t *el;
		if (d->type == CFG_FLOAT_LIST)
			el = config_setting_set_float_elem(a, -1, l->fv[i]);
		else if (l->wide)
			el = config_setting_set_int64_elem(a, -1, l->iv[i]);
		else
			el = config_setting_set_int_elem(a, -1, (int)l->iv[i]);
		if (el == NULL)
			a = NULL;
	}
	if (a == NULL) {
		snprintf(why, n, "cannot be stored");
		return -1;
	}
	return 0;
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
	struct num_list l = { NULL, NULL, 0, 8, false };
	l.iv = cfg_xrealloc(NULL, l.cap * sizeof *l.iv);
	l.fv = cfg_xrealloc(NULL, l.cap * sizeof *l.fv);
	int rc = list_parse(d, t, len, &l, why, n);
	if (rc == 0)
		rc = list_store(d, parent, name, &l, why, n);
	free(l.iv);
	free(l.fv);
	return rc;
}

/* ---- any value --------------------------------------------------------- */

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

static int add_float(config_setting_t *parent, const char *name, double v)
{
	config_setting_t *s = config_setting_add(parent, name, CONFIG_TYPE_FLOAT);

	return s && config_setting_set_float(s, v) ? 0 : -1;
}

static int add_bool(config_setting_t *parent, const char *name,
		    const char *tok, char *why, size_t n)
{
	config_setting_t *s;

	if (strcasecmp(tok, "true") != 0 && strcasecmp(tok, "false") != 0) {
		snprintf(why, n, "%s is not true or false", tok[0] ? tok : "nothing");
		return -1;
	}
	s = config_setting_add(parent, name, CONFIG_TYPE_BOOL);
	return s && config_setting_set_bool(s, tok[0] == 't' || tok[0] == 'T')
		? 0 : -1;
}

static int add_string(config_setting_t *parent, const char *name,
		      const char *tok, size_t len)
{
	char *str = unquote(tok, len);
	config_setting_t *s = config_setting_add(parent, name, CONFIG_TYPE_STRING);
	int rc = s && config_setting_set_string(s, str) ? 0 : -1;

	free(str);
	return rc;
}

int cfg_add_parsed(const struct cfg_setting *d, config_setting_t *parent,
		   const char *name, const char *text, char *why, size_t n)
{
	size_t len = strlen(text);
	const char *t = trim(text, &len);
	char *tok = cfg_xstrndup(t, len);
	long long iv;
	double fv;
	int rc = 0;

	switch (d->type) {
	case CFG_INT:
		rc = parse_int(tok, &iv);
		if (rc == 0)
			rc = add_int(parent, name, iv);
		else
			bad_number(tok, true, rc, why, n);
		break;
	case CFG_FLOAT:
		rc = parse_float(tok, &fv);
		if (rc == 0)
			rc = add_float(parent, name, fv);
		else
			bad_number(tok, false, rc, why, n);
		break;
	case CFG_BOOL:
		rc = add_bool(parent, name, tok, why, n);
		break;
	case CFG_STRING:
	case CFG_ENUM:
	case CFG_REF: {
		/* "a100 (the shell ate the closing quote, or it was never
		 * typed): not the name "\"a100" that no entry has. */
		const char *end = len > 0 && tok[0] == '"' ? quote_end(tok, len) : "";
		char cut[CFG_ECHO_MAX + 4];
		if (end == NULL || *end) {
			snprintf(why, n, "%s: %s", cfg_cut(cut, sizeof cut, tok),
				 end ? "text after the closing quote" : "a string with no closing quote");
			rc = -1;
			break;
		}
		rc = add_string(parent, name, tok, len);
		break;
	}
	case CFG_INT_LIST:
	case CFG_FLOAT_LIST:
		rc = add_list(d, parent, name, tok, len, why, n);
		break;
	case CFG_RENAMED:	/* an old name, never an entry (cfg_schema_add) */
		snprintf(why, n, "is not a setting");
		rc = -1;
		break;
	}
	free(tok);
	return rc;
}

/* ---- -s KEY=VALUE ------------------------------------------------------ */

static bool valid_name(const char *s, size_t n)
{
	if (n == 0 || !isalpha((unsigned char)s[0]))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '-' && s[i] != '_')
			return false;
	return true;
}

/* The KEY of text (up to eq) into key[CFG_PATH_MAX], checked to be a
 * path of names; its length, or -1 with e filled. */
static long override_key(const char *text, const char *eq, char *key,
			 struct err *e)
{
	char cut[CFG_ECHO_MAX + 4];
	size_t kl = (size_t)(eq - text);
	const char *k = trim(text, &kl);

	if (kl == 0)
		return err_set(e, ERR_USAGE, "-s %s: expected KEY=VALUE", cfg_cut(cut, sizeof cut, text));
	if (kl >= CFG_PATH_MAX)
		return err_set(e, ERR_USAGE, "-s %s: the key is too long", cfg_cut(cut, sizeof cut, text));
	memcpy(key, k, kl);
	key[kl] = '\0';
	for (const char *p = key;;) {
		size_t sl = strcspn(p, ".");
		if (!valid_name(p, sl))
			return err_set(e, ERR_USAGE, "-s %s: %s: not a setting path "
				       "(expected names of letters, digits, - and _ "
				       "joined by dots)", cfg_cut(cut, sizeof cut, text), key);
		if (p[sl] == '\0')
			break;
		p += sl + 1;
	}
	return (long)kl;
}

/* The schema entry for key, or NULL with e filled. */
static const struct cfg_setting *override_entry(const struct scenario *sc,
						const char *text, const char *key,
						struct err *e)
{
	char cut[CFG_ECHO_MAX + 4];
	char why[CFG_WHY_MAX];
	long idx = cfg_schema_find(sc->schema, key);

	if (idx >= 0)
		return sc->schema->ent[idx];
	if (cfg_schema_is_group(sc->schema, key))
		err_set(e, ERR_USAGE, "-s %s: %s: is a group, not a setting "
			"(expected a setting inside it)", cfg_cut(cut, sizeof cut, text), key);
	else {
		cfg_unknown_why(sc->schema, key, why, sizeof why);
		err_set(e, ERR_USAGE, "-s %s: %s: %s", cfg_cut(cut, sizeof cut, text), key, why);
	}
	return NULL;
}

/* Find or create the groups above key; the innermost, with *leaf pointing
 * at the last name in key, or NULL with e filled. */
static config_setting_t *override_groups(struct scenario *sc, const char *text,
					 char *key, const char **leaf,
					 struct err *e)
{
	char cut[CFG_ECHO_MAX + 4];
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
			cfg_where(sc, sub, loc, sizeof loc);
			err_set(e, ERR_USAGE, "-s %s: %s: %s is not a group "
				"(set at %s)", cfg_cut(cut, sizeof cut, text), key, sub, loc);
			return NULL;
		}
		*dot = '.';
		if (m == NULL) {
			err_set(e, ERR_RUN, "-s %s: cannot add a group", cfg_cut(cut, sizeof cut, text));
			return NULL;
		}
		g = m;
		p = dot + 1;
	}
	*leaf = p;
	return g;
}

/* Set g.leaf to value; parsed into a scratch tree first, so a bad value
 * changes nothing. */
static int override_value(const struct scenario *sc, const struct cfg_setting *d,
			  config_setting_t *g, const char *leaf, const char *text,
			  const char *key, const char *value, struct err *e)
{
	char cut[CFG_ECHO_MAX + 4];
	char why[CFG_WHY_MAX] = "", exp[CFG_WHY_MAX];
	config_t tmp;

	config_init(&tmp);
	int rc = cfg_add_parsed(d, config_root_setting(&tmp), "v", value, why,
				sizeof why);
	if (rc == 0) {
		if (config_setting_get_member(g, leaf) != NULL)
			config_setting_remove(g, leaf);
		rc = cfg_add_parsed(d, g, leaf, value, why, sizeof why);
	}
	config_destroy(&tmp);
	if (rc == 0)
		return 0;
	cfg_expected_words(sc, d, exp, sizeof exp);
	return err_set(e, ERR_USAGE, "-s %s: %s: %s (expected %s)", cfg_cut(cut, sizeof cut, text), key,
		       why[0] ? why : "cannot be stored", exp);
}

int cfg_override_apply(struct scenario *sc, const char *text, struct err *e)
{
	char cut[CFG_ECHO_MAX + 4];
	const char *eq = strchr(text, '='), *leaf;
	char key[CFG_PATH_MAX];

	if (eq == NULL)
		return err_set(e, ERR_USAGE, "-s %s: expected KEY=VALUE", cfg_cut(cut, sizeof cut, text));
	long kl = override_key(text, eq, key, e);
	if (kl < 0)
		return -1;
	const struct cfg_setting *d = override_entry(sc, text, key, e);
	if (d == NULL)
		return -1;
	config_setting_t *g = override_groups(sc, text, key, &leaf, e);
	if (g == NULL || override_value(sc, d, g, leaf, text, key, eq + 1, e) < 0)
		return -1;
	sc->ovr = cfg_xrealloc(sc->ovr, (sc->n_ovr + 1) * sizeof *sc->ovr);
	sc->ovr[sc->n_ovr].path = cfg_xstrndup(key, (size_t)kl);
	sc->ovr[sc->n_ovr].text = cfg_xstrndup(text, strlen(text));
	sc->n_ovr++;
	return 0;
}
