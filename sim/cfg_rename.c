/*
 * cfg_rename.c -- the old names of renamed settings.
 *
 * A model keeps CFG_RENAMED_TO(old, new) lines in its table next to the
 * settings (cfg.h); cfg_schema_add() lists them apart from the settings,
 * so an old name is no setting: a scenario or an override that uses it is
 * refused, and the message gives the name to write instead, with the
 * "*"s filled in from the path used:
 *     links.hdr.bw_gbps: renamed to links.hdr.bw_gbit_s (same value, Gb/s)
 * A setting may move to another group ("legacy.*.*.n" to
 * "pools.*.zones.*.count": the n-th "*" keeps the n-th name); a group that
 * only old names are in is walked into, so its old names get the message
 * too.  A CFG_REMOVED_FOR(old, why) line (no new name) is refused with its
 * reason instead.  Only a name not in the schema is looked up here, so
 * renames cost the loading of a good scenario nothing.
 */
#include <string.h>

#include "sim/cfg_int.h"

/* The name in path that the k-th "*" of pat matched (path matches pat);
 * its length in *len. */
static const char *star_name(const char *pat, const char *path, size_t k,
			     size_t *len)
{
	for (;;) {
		size_t pl = strcspn(pat, "."), ql = strcspn(path, ".");
		if (pl == 1 && pat[0] == '*' && k-- == 0) {
			*len = ql;
			return path;
		}
		if (pat[pl] == '\0' || path[ql] == '\0')
			break;
		pat += pl + 1;
		path += ql + 1;
	}
	*len = 0;
	return "";
}

/* The new path of rename r for path (an old name): r's new pattern with
 * its n-th "*" replaced by the name the n-th "*" of the old one matched. */
static void new_path(const struct cfg_setting *r, const char *path, char *buf,
		     size_t n)
{
	const char *p = r->choices;
	size_t k = 0;

	buf[0] = '\0';
	for (;;) {
		size_t pl = strcspn(p, "."), sl;
		if (pl == 1 && p[0] == '*') {
			const char *name = star_name(r->path, path, k++, &sl);
			cfg_cat(buf, n, "%.*s", (int)sl, name);
		} else {
			cfg_cat(buf, n, "%.*s", (int)pl, p);
		}
		if (p[pl] == '\0')
			return;
		cfg_cat(buf, n, ".");
		p += pl + 1;
	}
}

int cfg_rename_check(const struct cfg_schema *s, struct err *e)
{
	for (size_t i = 0; i < s->n_ren; i++) {
		const struct cfg_setting *r = s->ren[i];
		const char *to = r->choices ? r->choices : "";
		long idx = cfg_schema_find(s, to);

		if (r->choices == NULL) {
			if (r->help == NULL || cfg_schema_find(s, r->path) >= 0)
				return err_set(e, ERR_RUN, "schema: %s: removed, but with no "
					       "reason or still a setting", r->path);
			continue;
		}
		if (idx < 0 || strcmp(s->ent[idx]->path, to) != 0)
			return err_set(e, ERR_RUN, "schema: %s: renamed to \"%s\", "
				       "which is not a setting", r->path, to);
		if (cfg_schema_find(s, r->path) >= 0)
			return err_set(e, ERR_RUN, "schema: %s: renamed to %s but "
				       "still a setting", r->path, to);
		if (cfg_path_stars(r->path) != cfg_path_stars(to))
			return err_set(e, ERR_RUN, "schema: %s: renamed to %s, "
				       "with another number of \"*\"", r->path, to);
	}
	return 0;
}

bool cfg_rename_is_group(const struct cfg_schema *s, const char *path)
{
	for (size_t i = 0; i < s->n_ren; i++)
		if (cfg_path_under(s->ren[i]->path, path))
			return true;
	return false;
}

void cfg_unknown_why(const struct cfg_schema *s, const char *path, char *why,
		     size_t n)
{
	char to[CFG_PATH_MAX], hint[CFG_PATH_MAX + 32];

	for (size_t i = 0; i < s->n_ren; i++) {
		const struct cfg_setting *r = s->ren[i];
		if (!cfg_path_is(r->path, path))
			continue;
		if (r->choices == NULL) {
			snprintf(why, n, "removed: %s", r->help);
			return;
		}
		/* cfg_rename_check() has found the new entry. */
		const char *unit = s->ent[cfg_schema_find(s, r->choices)]->unit;
		new_path(r, path, to, sizeof to);
		snprintf(why, n, "renamed to %s (same value%s%s)", to,
			 unit && unit[0] ? ", " : "", unit ? unit : "");
		return;
	}
	cfg_suggest(s, path, hint, sizeof hint);
	snprintf(why, n, "unknown setting%s", hint);
}
