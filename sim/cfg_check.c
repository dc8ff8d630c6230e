/*
 * cfg_check.c -- a loaded scenario tree against the schema.
 *
 * cfg_check_tree() runs after the file is read and the overrides applied,
 * and reports the first problem in this order:
 *   1. settings present, in file order (an overridden setting has moved to
 *      the end of its group): each must be in the schema -- an unknown one
 *      is an error with a "did you mean" (or, for the old name of a
 *      renamed setting, the new name), never ignored -- and its value
 *      must pass cfg_check_value(); a group must be a group;
 *   2. settings absent, in schema order: a required setting (def == NULL)
 *      is required wherever its enclosing groups are fixed names, and below
 *      a "*" in each child group that exists; a REF whose default is used
 *      must name an existing entry.
 */
#include <string.h>

#include "sim/cfg_int.h"

/* ---- checking what is there -------------------------------------------- */

/* Every setting present must be in the schema, with a good value. */
static int walk(struct scenario *sc, const config_setting_t *g, char *path,
		size_t plen, struct err *e)
{
	char why[CFG_WHY_MAX], exp[CFG_WHY_MAX];

	for (int i = 0; i < config_setting_length(g); i++) {
		const config_setting_t *s = config_setting_get_elem(g, (unsigned)i);
		const char *name = config_setting_name(s);
		long len = cfg_path_push(path, plen, name, strlen(name));
		if (len < 0) {
			char cut[CFG_ECHO_MAX + 4];
			return sc_error(sc, e, path, "%s: the path is too long (%zu "
					"characters; expected at most %d)",
					cfg_cut(cut, sizeof cut, name), strlen(name),
					CFG_PATH_MAX - 1);
		}
		long idx = cfg_schema_find(sc->schema, path);

		if (strchr(name, '*') != NULL) {
			/* libconfig allows it; to us "*" means "any name". */
			return sc_error(sc, e, path, "unknown setting (\"*\" "
					"is not allowed in a name)");
		} else if (idx >= 0) {
			const struct cfg_setting *d = sc->schema->ent[idx];
			if (cfg_check_value(d, s, &sc->cfg, why, sizeof why) < 0) {
				cfg_expected_words(sc, d, exp, sizeof exp);
				cfg_cat(why, sizeof why, " (expected %s)", exp);
				return cfg_fail(sc, e, path, why);
			}
		} else if (cfg_schema_is_group(sc->schema, path) ||
			   (config_setting_is_group(s) &&
			    cfg_rename_is_group(sc->schema, path))) {
			if (!config_setting_is_group(s)) {
				cfg_value_words(s, exp, sizeof exp);
				return sc_error(sc, e, path, "%s is not a group "
						"(expected a group of settings)", exp);
			}
			if (walk(sc, s, path, (size_t)len, e) < 0)
				return -1;
		} else {
			cfg_unknown_why(sc->schema, path, why, sizeof why);
			return cfg_fail(sc, e, path, why);
		}
		path[plen] = '\0';
	}
	return 0;
}

/* ---- checking what is not there ---------------------------------------- */

/* A schema entry where absent: required ones are missing, and a REF's
 * default must name an existing entry. */
static int check_absent(struct scenario *sc, size_t idx, const char *path,
			struct err *e)
{
	const struct cfg_setting *d = sc->schema->ent[idx];
	char exp[CFG_WHY_MAX];

	if (sc->catalog && strchr(d->path, '*') == NULL)
		return 0;	/* a catalog alone: only its entries are whole */
	if (d->def == NULL)
		return sc_error(sc, e, path, "missing required setting");
	if (d->type != CFG_REF)
		return 0;
	const config_setting_t *v = cfg_default_of(sc, idx);
	if (v == NULL || cfg_ref_exists(&sc->cfg, d->choices, v->value.sval))
		return 0;
	cfg_expected_words(sc, d, exp, sizeof exp);
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
			const char *name = config_setting_name(c);
			long k = cfg_path_push(path, plen, name, strlen(name));
			if (k < 0)
				continue;
			if (config_setting_is_group(c) &&
			    expand(sc, idx, pat + sl + 1, c, path, (size_t)k, e) < 0)
				return -1;
			path[plen] = '\0';
		}
		return 0;
	}
	long k = cfg_path_push(path, plen, pat, sl);
	if (k < 0)
		return 0;
	const char *seg = path + (size_t)k - sl;	/* pat's name, alone */
	const config_setting_t *c = g != NULL && config_setting_is_group(g) ?
		config_setting_get_member(g, seg) : NULL;
	int rc;
	if (last)
		rc = c == NULL ? check_absent(sc, idx, path, e) : 0;
	else
		rc = expand(sc, idx, pat + sl + 1, c, path, (size_t)k, e);
	path[plen] = '\0';
	return rc;
}

int cfg_check_tree(struct scenario *sc, struct err *e)
{
	const struct cfg_schema *s = sc->schema;
	config_setting_t *root = config_root_setting(&sc->cfg);
	char path[CFG_PATH_MAX] = "";

	if (walk(sc, root, path, 0, e) < 0)
		return -1;
	for (size_t i = 0; i < s->n; i++)
		if (expand(sc, i, s->ent[i]->path, root, path, 0, e) < 0)
			return -1;
	return 0;
}
