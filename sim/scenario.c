/*
 * scenario.c -- loading a scenario against the schema, and reading it.
 *
 * sc_load() goes: parse every schema default, read the file with its
 * @includes spliced in (cfg_include.c: the scenario's directory, then
 * $TRAINSIM_PATH, then the installed data) and parse it (libconfig), repair the 64-bit integers
 * libconfig truncated (cfg_bigint.c), apply the -s overrides in the order
 * given (cfg_override.c), and check the tree against the schema
 * (cfg_check.c).  The first problem found is the one reported.  The
 * resolved text (sc_text) is written when first asked for: the planner
 * loads thousands of candidates and never asks.
 *
 * - Defaults are parsed once per load, by the same code as overrides, into
 *   a private libconfig tree (member "dI" for schema entry I), so
 *   accessors read a file value and a default the same way.  A default
 *   that does not parse or fails its own range is a bug in a table:
 *   sc_load() reports it with ERR_RUN.
 * - Reading a required setting of a group that does not exist gives
 *   0 / 0.0 / false / "" (the caller should have asked sc_has()).
 * - An accessor called with a path outside the schema, or of the wrong
 *   type, is a programming error: cfg_bug() aborts.  Validation has run
 *   by then, so no user input can lead there.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/cfg_int.h"
#include "sim/path.h"

struct sc_children {
	char *group;
	const char **names;
	size_t n;
	struct sc_children *next;
};

/* What accessors fill in lazily through a const scenario. */
struct sc_cache {
	struct sc_children *children;
	char *text;		/* config_write() of cfg, once asked for */
};

/* ---- defaults ---------------------------------------------------------- */

static void default_name(size_t idx, char *buf, size_t n)
{
	snprintf(buf, n, "d%zu", idx);
}

const config_setting_t *cfg_default_of(const struct scenario *sc, size_t idx)
{
	return sc->schema->defaults->of[idx];
}

/* Check each table entry and parse its default, once per schema (the
 * schema's defaults are a cache: filled through the const schema of the
 * first load); a bad one is a bug in a table. */
static int load_defaults(const struct cfg_schema *s, struct err *e)
{
	struct cfg_defaults *defs = s->defaults;
	config_setting_t *root = config_root_setting(&defs->cfg);
	char why[CFG_WHY_MAX], exp[CFG_WHY_MAX], name[32];

	if (defs->ready)
		return 0;
	if (cfg_rename_check(s, e) < 0)
		return -1;
	if (defs->of == NULL)
		defs->of = cfg_xrealloc(NULL, (s->n ? s->n : 1) * sizeof *defs->of);
	for (size_t i = 0; i < s->n; i++) {
		const struct cfg_setting *d = s->ent[i];
		defs->of[i] = NULL;
		if (cfg_schema_check_entry(s, i, e) < 0)
			return -1;
		if (d->def == NULL)
			continue;
		default_name(i, name, sizeof name);
		why[0] = '\0';
		if (config_setting_get_member(root, name) == NULL &&
		    cfg_add_parsed(d, root, name, d->def, why, sizeof why) < 0)
			goto bad;
		defs->of[i] = config_setting_get_member(root, name);
		if (cfg_check_value(d, defs->of[i], NULL, why, sizeof why) < 0)
			goto bad;
		continue;
bad:
		cfg_expected_words(NULL, d, exp, sizeof exp);
		return err_set(e, ERR_RUN, "schema: %s: bad default \"%s\": "
			       "%s (expected %s)", d->path, d->def, why, exp);
	}
	defs->ready = true;
	return 0;
}

/* ---- sc_load ----------------------------------------------------------- */

/* libconfig's "duplicate setting name" does not say which: of the names
 * set on the error's line (NAME = or NAME :), one set twice there, else
 * the last (one setting a line is the usual layout), into name[n]. */
static bool name_char(char c)
{
	return c == '_' || c == '-' || c == '*' || (c >= '0' && c <= '9') ||
	       ((c | 32) >= 'a' && (c | 32) <= 'z');
}

static void duplicate_name(const char *file, int line, char *name, size_t n)
{
	FILE *f = fopen(file, "r");
	char *buf = NULL, names[16][64];
	size_t cap = 0, len, nn = 0;
	int at = 0;

	name[0] = '\0';
	if (f == NULL)
		return;
	while (at < line && getline(&buf, &cap, f) >= 0)
		at++;
	fclose(f);
	len = at == line && buf ? strlen(buf) : 0;
	for (size_t i = 0; i < len && nn < 16; i++) {
		size_t j = i, k;

		if (!((buf[i] | 32) >= 'a' && (buf[i] | 32) <= 'z') ||
		    (i > 0 && name_char(buf[i - 1])))
			continue;
		while (j < len && name_char(buf[j]))
			j++;
		for (k = j; k < len && (buf[k] == ' ' || buf[k] == '\t'); k++)
			;
		if (k < len && (buf[k] == '=' || buf[k] == ':'))
			snprintf(names[nn++], sizeof names[0], "%.*s", (int)(j - i), buf + i);
		i = j;
	}
	free(buf);
	if (nn > 0)
		snprintf(name, n, "%.63s", names[nn - 1]);
	for (size_t i = 0; i < nn; i++)
		for (size_t j = i + 1; j < nn; j++)
			if (strcmp(names[i], names[j]) == 0) {
				snprintf(name, n, "%.63s", names[i]);
				return;
			}
}

static int read_file(struct scenario *sc, struct err *e)
{
	char *text;
	unsigned line;
	const char *f;

	if (cfg_include_read(sc, &text, e) < 0)	/* every file checked there */
		return -1;
	int ok = config_read_string(&sc->cfg, text);
	free(text);
	if (ok)
		return 0;
	f = cfg_line_src(sc, (unsigned)config_error_line(&sc->cfg), &line);
	if (strcmp(config_error_text(&sc->cfg), "duplicate setting name") == 0) {
		char name[128];

		duplicate_name(f, (int)line, name, sizeof name);
		if (name[0])
			return err_set(e, ERR_USAGE, "%s:%u: %s: duplicate setting name "
				       "(set twice in one group)", f, line, name);
	}
	return err_set(e, ERR_USAGE, "%s:%u: %s", f, line,
		       config_error_text(&sc->cfg));
}

static struct scenario *sc_new(const struct cfg_schema *s, const char *file)
{
	struct scenario *sc = cfg_xrealloc(NULL, sizeof *sc);
	const char *slash = strrchr(file, '/');

	memset(sc, 0, sizeof *sc);
	sc->schema = s;
	sc->file = cfg_xstrndup(file, strlen(file));
	sc->cache = cfg_xrealloc(NULL, sizeof *sc->cache);
	memset(sc->cache, 0, sizeof *sc->cache);
	config_init(&sc->cfg);
	config_set_auto_convert(&sc->cfg, 1);
	if (slash != NULL) {
		sc->incdir = cfg_xstrndup(file, slash == file ? 1
						: (size_t)(slash - file));
	}
	return sc;
}

static struct scenario *load(const struct cfg_schema *s, const char *file,
			     const char *const *overrides, size_t n_overrides,
			     bool catalog, struct err *e)
{
	struct scenario *sc = sc_new(s, file);

	sc->catalog = catalog;
	if (load_defaults(s, e) < 0 || read_file(sc, e) < 0 ||
	    cfg_bigint_repair(sc, e) < 0)
		goto fail;
	for (size_t i = 0; i < n_overrides; i++)
		if (cfg_override_apply(sc, overrides[i], e) < 0)
			goto fail;
	if (cfg_check_tree(sc, e) < 0)
		goto fail;
	return sc;
fail:
	sc_free(sc);
	return NULL;
}

struct scenario *sc_load(const struct cfg_schema *s, const char *file,
			 const char *const *overrides, size_t n_overrides,
			 struct err *e)
{
	return load(s, file, overrides, n_overrides, false, e);
}

struct scenario *sc_load_catalog(const struct cfg_schema *s, const char *file,
				 struct err *e)
{
	return load(s, file, NULL, 0, true, e);
}

void sc_free(struct scenario *sc)
{
	if (sc == NULL)
		return;
	config_destroy(&sc->cfg);
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
	free(sc->cache->text);
	free(sc->cache);
	free(sc->file);
	free(sc->incdir);
	cfg_lines_free(sc->lines);
	free(sc);
}

/* ---- accessors --------------------------------------------------------- */

/* The path of an accessor call, printf'd into path[CFG_PATH_MAX]. */
static void accessor_path(const char *who, char *path, const char *fmt,
			  va_list ap)
{
	int k = vsnprintf(path, CFG_PATH_MAX, fmt, ap);

	if (k < 0 || (size_t)k >= CFG_PATH_MAX)
		cfg_bug("%s(\"%s\"): path too long", who, fmt);
}

/* The setting behind an accessor call: the file's or override's value,
 * else the parsed default, else NULL (a required setting of an absent
 * group).  A path outside the schema or a mismatched accessor is a bug. */
static const config_setting_t *value_at(const struct scenario *sc,
					const char *who, unsigned types,
					const char *fmt, va_list ap)
{
	char path[CFG_PATH_MAX];

	accessor_path(who, path, fmt, ap);
	long idx = cfg_schema_find(sc->schema, path);
	if (idx < 0)
		cfg_bug("%s(\"%s\"): not in the schema", who, path);
	if (!(types & (1u << sc->schema->ent[idx]->type)))
		cfg_bug("%s(\"%s\"): the setting is of type %s", who, path,
			cfg_type_name(sc->schema->ent[idx]->type));
	const config_setting_t *s = config_lookup(&sc->cfg, path);
	return s != NULL ? s : cfg_default_of(sc, (size_t)idx);
}

#define T(t) (1u << (t))

/* Declares S, the setting an accessor's FMT, ... names (value_at). */
#define SETTING_AT(s, sc, who, types, fmt)				\
	va_list ap_;							\
	va_start(ap_, fmt);						\
	const config_setting_t *s = value_at(sc, who, types, fmt, ap_);	\
	va_end(ap_)

int64_t sc_int(const struct scenario *sc, const char *fmt, ...)
{
	SETTING_AT(s, sc, "sc_int", T(CFG_INT), fmt);
	return s ? config_setting_get_int64(s) : 0;
}

double sc_float(const struct scenario *sc, const char *fmt, ...)
{
	SETTING_AT(s, sc, "sc_float", T(CFG_FLOAT) | T(CFG_INT), fmt);
	return s ? cfg_num_of(s) : 0.0;
}

bool sc_bool(const struct scenario *sc, const char *fmt, ...)
{
	SETTING_AT(s, sc, "sc_bool", T(CFG_BOOL), fmt);
	return s ? config_setting_get_bool(s) != 0 : false;
}

const char *sc_str(const struct scenario *sc, const char *fmt, ...)
{
	SETTING_AT(s, sc, "sc_str", T(CFG_STRING) | T(CFG_ENUM) | T(CFG_REF), fmt);
	return s ? config_setting_get_string(s) : "";
}

size_t sc_list_len(const struct scenario *sc, const char *fmt, ...)
{
	SETTING_AT(s, sc, "sc_list_len", T(CFG_INT_LIST) | T(CFG_FLOAT_LIST), fmt);
	return s ? (size_t)config_setting_length(s) : 0;
}

double sc_list_float(const struct scenario *sc, size_t i, const char *fmt, ...)
{
	SETTING_AT(s, sc, "sc_list_float", T(CFG_INT_LIST) | T(CFG_FLOAT_LIST), fmt);
	if (s == NULL || i >= (size_t)config_setting_length(s))
		return 0.0;
	return cfg_num_of(config_setting_get_elem(s, (unsigned)i));
}

void sc_dir_of(const struct scenario *sc, char *out, size_t n, const char *fmt, ...)
{
	char path[CFG_PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	accessor_path("sc_dir_of", path, fmt, ap);
	va_end(ap);
	const config_setting_t *s = config_lookup(&sc->cfg, path);
	unsigned line;

	if (s == NULL || config_setting_source_line(s) == 0) {	/* default, -s */
		snprintf(out, n, "%s", sc->incdir ? sc->incdir : ".");
		return;
	}
	path_dir(cfg_setting_src(sc, s, &line), out, n);
}

bool sc_has(const struct scenario *sc, const char *fmt, ...)
{
	char path[CFG_PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	accessor_path("sc_has", path, fmt, ap);
	va_end(ap);
	if (cfg_schema_find(sc->schema, path) < 0 &&
	    !cfg_schema_is_group(sc->schema, path))
		cfg_bug("sc_has(\"%s\"): not in the schema", path);
	return config_lookup(&sc->cfg, path) != NULL;
}

static void input_add(char ***paths, size_t *n, const char *file)
{
	*paths = cfg_xrealloc(*paths, (*n + 1) * sizeof **paths);
	(*paths)[(*n)++] = cfg_xstrndup(file, strlen(file));
}

/* Append "DIR/VALUE" (or VALUE when absolute) for every string leaf
 * under s, DIR the directory of the file that set it, and the file
 * sc_path() would open for VALUE if there is one. */
static void input_strings(const struct scenario *sc, const config_setting_t *s,
			  char ***paths, size_t *n)
{
	if (config_setting_is_aggregate(s)) {
		for (int i = 0; i < config_setting_length(s); i++)
			input_strings(sc, config_setting_get_elem(s, (unsigned)i), paths, n);
		return;
	}
	const char *v = config_setting_type(s) == CONFIG_TYPE_STRING ?
			config_setting_get_string(s) : NULL;
	char file[CFG_PATH_MAX], dir[CFG_PATH_MAX];
	unsigned line;
	struct err e = { 0 };

	if (v == NULL || v[0] == '\0')
		return;
	if (v[0] == '/' || config_setting_source_line(s) == 0) {
		snprintf(file, sizeof file, "%s%s%s", v[0] == '/' || !sc->incdir ? "" :
			 sc->incdir, v[0] == '/' || !sc->incdir ? "" : "/", v);
		input_add(paths, n, file);
	} else {
		path_dir(cfg_setting_src(sc, s, &line), dir, sizeof dir);
		if (snprintf(file, sizeof file, "%s/%s", dir, v) < (int)sizeof file)
			input_add(paths, n, file);	/* else no file has so long a name */
	}
	/* And where a trace of that name is read from (sc_path's search). */
	if (sc_path(sc, NULL, v, file, sizeof file, &e) == 0)
		input_add(paths, n, file);
}

size_t sc_input_files(const struct scenario *sc, char ***paths)
{
	const char *const *files;
	size_t n = 0, n_files = cfg_src_files(sc, &files);

	*paths = NULL;
	for (size_t i = 0; i < n_files; i++)
		input_add(paths, &n, files[i]);
	input_strings(sc, config_root_setting(&sc->cfg), paths, &n);
	return n;
}

bool sc_has_child(const struct scenario *sc, const char *group, const char *name)
{
	const config_setting_t *g = config_lookup(&sc->cfg, group);

	/* By member name, never by a path built from it: a user's name may
	 * hold dots ("p4de.24xlarge"), which a path would split. */
	return g != NULL && config_setting_is_group(g) &&
	       config_setting_get_member(g, name) != NULL;
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
		c = cfg_xrealloc(NULL, sizeof *c);
		*c = (struct sc_children){ cfg_xstrndup(group, strlen(group)), NULL,
					   0, sc->cache->children };
		if (g != NULL && config_setting_is_group(g)) {
			c->n = (size_t)config_setting_length(g);
			c->names = cfg_xrealloc(NULL, c->n * sizeof *c->names);
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

const char *sc_text(const struct scenario *sc, struct err *e)
{
	struct sc_cache *c = sc->cache;
	size_t len = 0;
	FILE *m;

	if (c->text != NULL)
		return c->text;
	if ((m = open_memstream(&c->text, &len)) == NULL) {
		err_set(e, ERR_RUN, "%s: cannot write the scenario text: %s",
			sc->file, strerror(errno));
		return NULL;
	}
	config_write(&sc->cfg, m);
	if (fclose(m) != 0) {
		free(c->text);
		c->text = NULL;
		err_set(e, ERR_RUN, "%s: cannot write the scenario text", sc->file);
		return NULL;
	}
	return c->text;
}
