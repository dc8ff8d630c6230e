/*
 * cfg_int.h -- the scenario loader's insides, shared by its files.
 *
 * Private: only sim/cfg*.c and sim/scenario.c include it; models use
 * sim/cfg.h.  The loader is cut into one concern per file:
 *   cfg.c           the schema: tables, path matching, type names, ranges
 *   cfg_where.c     where a problem is (FILE:LINE, override), "did you mean"
 *   cfg_rename.c    old names of renamed settings: "renamed to ..."
 *   cfg_value.c     a libconfig value against its setting; values in words
 *   cfg_override.c  text to values: -s KEY=VALUE and the schema defaults
 *   cfg_bigint.c    64-bit integer literals that libconfig 1.5 truncates
 *   cfg_check.c     the whole tree: unknown, wrong or missing settings
 *   cfg_include.c   @include, found on the search path and checked; lines
 *   scenario.c      sc_load(), sc_free() and the accessors
 *
 * Functions here are prefixed cfg_; they report user errors through a
 * struct err or a "why" buffer, and programming errors with cfg_bug().
 */
#ifndef SIM_CFG_INT_H
#define SIM_CFG_INT_H

#include <libconfig.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/cfg.h"
#include "sim/err.h"

#define CFG_PATH_MAX 512	/* longest setting path we handle */
#define CFG_WHY_MAX 768		/* room for "what is wrong (expected ...)" */

/* The schema's defaults, parsed at the first load and kept for every
 * later one (the planner loads a scenario thousands of times). */
struct cfg_defaults {
	config_t cfg;			/* root member "dI" = parsed default of entry I */
	const config_setting_t **of;	/* by entry; NULL: required setting */
	bool ready;
};

/* A path (or a group above one) of an entry without "*", hashed. */
struct cfg_slot {
	uint32_t idx;		/* entry index + 1; 0: empty */
	uint32_t len;		/* of the path or group name */
};

struct cfg_schema {
	const struct cfg_setting **ent;	/* every entry of every table, in order */
	size_t n, cap;
	struct cfg_defaults *defaults;	/* filled by the first sc_load */
	/* Lookup (rebuilt by cfg_schema_add): every setting of every load is
	 * looked up, so entries without "*" go by hash, the first of equal
	 * paths (paths, and the groups above them); the few with "*" are
	 * matched in order. */
	struct cfg_slot *leaf, *group;
	size_t mask;			/* slots - 1, in each table */
	size_t *wild, n_wild;		/* entries with "*" */
	const struct cfg_setting **ren;	/* CFG_RENAMED_TO lines, in order */
	size_t n_ren, cap_ren;
};

struct sc_override {
	char *path;		/* KEY, trimmed */
	char *text;		/* KEY=VALUE as given, for messages */
};

struct sc_cache;		/* what accessors fill in lazily (scenario.c) */
struct cfg_lines;		/* the read text's lines -> FILE:LINE (cfg_include.c) */

struct scenario {
	const struct cfg_schema *schema;
	config_t cfg;		/* the file after includes and overrides */
	char *file;
	char *incdir;		/* the file's directory; NULL for the cwd */
	struct cfg_lines *lines;	/* where each line libconfig read came from */
	bool catalog;		/* sc_load_catalog: whole-scenario settings not required */
	struct sc_override *ovr;
	size_t n_ovr;
	struct sc_cache *cache;
};

/* ---- cfg.c: helpers ---------------------------------------------------- */

/* Out of memory aborts, as libconfig's own allocations do. */
void *cfg_xrealloc(void *p, size_t n);
char *cfg_xstrndup(const char *s, size_t n);
/* A programming error (never user input): message, then abort(). */
_Noreturn void cfg_bug(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
/* Append printf output to buf (size n), never overflowing. */
void cfg_cat(char *buf, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A user's text echoed in a message (a key, an override) is cut to
 * CFG_ECHO_MAX bytes and "...", so that a 1 MB key still leaves room for
 * FILE:LINE and what is wrong in struct err's 1 KB.  Returns s itself when
 * short enough, else buf (n > CFG_ECHO_MAX + 3) holding the cut text. */
#define CFG_ECHO_MAX 120
const char *cfg_cut(char *buf, size_t n, const char *s);
/* Append "NAME" or ".NAME" (the first len bytes of name) to the path of
 * length plen in path[CFG_PATH_MAX]; the new length, or -1 (path cut back
 * to plen) if it does not fit. */
long cfg_path_push(char *path, size_t plen, const char *name, size_t len);

/* ---- cfg.c: the schema ------------------------------------------------- */

/* Does path name the setting pattern pat ("*" matching any one name)? */
bool cfg_path_is(const char *pat, const char *path);
/* Is path a group above the settings pattern pat names? */
bool cfg_path_under(const char *pat, const char *path);
/* The number of "*" segments in a pattern. */
size_t cfg_path_stars(const char *pat);
/* Index of the most specific entry for a setting path; -1 if none. */
long cfg_schema_find(const struct cfg_schema *s, const char *path);
/* Is path a group that holds some schema entry? */
bool cfg_schema_is_group(const struct cfg_schema *s, const char *path);
/* A table bug in entry i (declared twice differently, choices missing):
 * -1 with e filled (ERR_RUN). */
int cfg_schema_check_entry(const struct cfg_schema *s, size_t i,
			   struct err *e);
const char *cfg_type_name(enum cfg_type t);
bool cfg_has_range(const struct cfg_setting *d);
/* " in 1..100000", " >= 0", " <= 5" or "" -- the numeric range in words. */
void cfg_range_words(const struct cfg_setting *d, char *buf, size_t n);

/* ---- cfg_where.c ------------------------------------------------------- */

/* "FILE:LINE", "-s KEY=VALUE" or "FILE": where to point for path. */
void cfg_where(const struct scenario *sc, const char *path, char *buf,
	       size_t n);
/* "WHERE: PATH: why", status ERR_USAGE; returns -1. */
int cfg_fail(const struct scenario *sc, struct err *e, const char *path,
	     const char *why);
/* " (did you mean model.layers?)" when a known path is close, else "". */
void cfg_suggest(const struct cfg_schema *s, const char *path, char *out,
		 size_t n);

/* ---- cfg_rename.c ------------------------------------------------------ */

/* The rename lines' own bugs (new path not in the schema, old one still
 * there, "*" counts that differ): -1 with e filled (ERR_RUN). */
int cfg_rename_check(const struct cfg_schema *s, struct err *e);
/* Why path, which is not in the schema, is refused: "renamed to NEW (same
 * value, UNIT)" for an old name, else "unknown setting" and a "did you
 * mean". */
void cfg_unknown_why(const struct cfg_schema *s, const char *path, char *why,
		     size_t n);
/* Is path a group that only old names are in (a renamed setting moved to
 * another group)?  Its settings are then looked at one by one. */
bool cfg_rename_is_group(const struct cfg_schema *s, const char *path);

/* ---- cfg_value.c ------------------------------------------------------- */

/* The thing a setting of type d must be, for "(expected ...)"; sc (may be
 * NULL) names the entries a REF may take. */
void cfg_expected_words(const struct scenario *sc, const struct cfg_setting *d,
			char *buf, size_t n);
/* A setting's value as it would read in the file. */
void cfg_value_words(const config_setting_t *s, char *buf, size_t n);
double cfg_num_of(const config_setting_t *s);
bool cfg_ref_exists(const config_t *cfg, const char *group, const char *name);
/* Type, range and choices of s against d ("what is wrong" in why, without
 * the "(expected ...)"); REF names are checked against cfg when not NULL. */
int cfg_check_value(const struct cfg_setting *d, const config_setting_t *s,
		    const config_t *cfg, char *why, size_t n);

/* ---- cfg_override.c ---------------------------------------------------- */

/* Parse text as a value of type d into a new setting parent.name; range
 * and choices are left to cfg_check_value(). */
int cfg_add_parsed(const struct cfg_setting *d, config_setting_t *parent,
		   const char *name, const char *text, char *why, size_t n);
/* Apply one -s KEY=VALUE to sc->cfg and remember it in sc->ovr. */
int cfg_override_apply(struct scenario *sc, const char *text, struct err *e);

/* ---- cfg_bigint.c ------------------------------------------------------ */

/* Put back the integers beyond 32 bits that libconfig truncated. */
int cfg_bigint_repair(struct scenario *sc, struct err *e);

/* ---- cfg_check.c ------------------------------------------------------- */

/* Every setting present known and good, every required one present. */
int cfg_check_tree(struct scenario *sc, struct err *e);

/* ---- cfg_include.c ---------------------------------------------------- */

/* The scenario with its @includes spliced in (*text, to free), or -1 with
 * e filled: "FILE:LINE: @include "NAME": not found in ..." and the like. */
int cfg_include_read(struct scenario *sc, char **text, struct err *e);
/* The file and line that line `line` of the read text came from. */
const char *cfg_line_src(const struct scenario *sc, unsigned line,
			 unsigned *file_line);
/* The same for a setting (*line 0 for one made by an override). */
const char *cfg_setting_src(const struct scenario *sc,
			    const config_setting_t *s, unsigned *line);
/* Every file spliced into the text (the scenario first, then each
 * @include as found, in reading order); the count. */
size_t cfg_src_files(const struct scenario *sc, const char *const **files);
void cfg_lines_free(struct cfg_lines *l);

/* ---- scenario.c -------------------------------------------------------- */

/* The parsed default of schema entry idx; NULL for a required one. */
const config_setting_t *cfg_default_of(const struct scenario *sc, size_t idx);

#endif
