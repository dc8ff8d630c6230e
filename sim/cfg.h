/*
 * cfg.h -- scenario settings: a schema declared in tables, a libconfig file
 * checked against it, and -s KEY=VALUE overrides.
 *
 * Every model declares the settings it reads as a table of struct
 * cfg_setting (path, type, unit, range, default, help) and main() adds the
 * tables to one schema.  Loading a scenario then:
 *   1. parses the file (with @include, looked for in the including file's
 *      directory, the scenario's, $TRAINSIM_PATH, then the installed
 *      scenarios: sim/path.h),
 *   2. applies overrides, each type-checked like a file value,
 *   3. checks every setting present against the schema (unknown ones are
 *      errors: a typo must never be silently ignored), and every required
 *      setting for presence, type and range.
 * Afterwards the models read values with sc_int()/sc_float()/..., which fall
 * back to the schema default, and report their own cross-setting errors with
 * sc_error(), which names the file and line (or the override) of the key.
 *
 * Paths may hold one or more "*" for the children of a named group, so a
 * catalog declares its entries once:  "gpus.*.tdp_w".
 *
 * A setting that was renamed stays in its model's table as a
 * CFG_RENAMED_TO(old, new) line (same "*" patterns, the n-th "*" of the
 * new path taking the name of the n-th of the old), so a scenario that
 * still uses the old name is refused with the new one to write:
 *     FILE:LINE: links.hdr.bw_gbps: renamed to links.hdr.bw_gbit_s
 *     (same value, Gb/s)
 * The unit is the new entry's.  A rename keeps value and unit: a setting
 * that changes meaning gets a new name, and the old one stays as a
 * CFG_REMOVED_FOR(old, why) line, so it is refused with the reason:
 *     FILE:LINE: power.node_overhead_w: removed: hosts draw what the node
 *     catalog says (cluster.node)
 *
 * Error messages always read
 *     FILE:LINE: KEY: what is wrong (expected ...)
 * or, for an override,
 *     -s KEY=VALUE: KEY: what is wrong (expected ...)
 */
#ifndef SIM_CFG_H
#define SIM_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/err.h"

enum cfg_type {
	CFG_INT,		/* integer literal; min/max checked */
	CFG_FLOAT,		/* integer or float literal; min/max checked */
	CFG_BOOL,		/* true / false */
	CFG_STRING,		/* any text (file names, labels) */
	CFG_ENUM,		/* text, one of choices "a|b|c" */
	CFG_REF,		/* text naming a child of the group in choices */
	CFG_FLOAT_LIST,		/* [1.0, 2.0, ...]; each element in min..max */
	CFG_INT_LIST,		/* [0, 1, 2, ...]; each element in min..max */
	CFG_RENAMED,		/* no setting: path was renamed to choices */
};

struct cfg_setting {
	const char *path;	/* "model.layers", "gpus.*.tdp_w" */
	enum cfg_type type;
	const char *unit;	/* "s", "bytes", "W", "" for counts */
	double min, max;	/* inclusive range for numbers */
	const char *def;	/* default as text ("0.5", "true", "ring"); NULL = required */
	const char *choices;	/* ENUM: "a|b|c"; REF: the group, e.g. "gpus" */
	const char *help;
};
#define CFG_END { NULL, 0, NULL, 0, 0, NULL, NULL, NULL }
/* The setting old is now called new (a path of this or another table). */
#define CFG_RENAMED_TO(old, new) \
	{ (old), CFG_RENAMED, NULL, 0, 0, NULL, (new), NULL }
/* The setting old is gone; why says where its figure comes from now. */
#define CFG_REMOVED_FOR(old, why) \
	{ (old), CFG_RENAMED, NULL, 0, 0, NULL, NULL, (why) }

struct cfg_schema;
struct cfg_schema *cfg_schema_new(void);
void cfg_schema_free(struct cfg_schema *s);
/* Add a table ending with CFG_END; the table must outlive the schema.
 * Its CFG_RENAMED_TO lines go to the schema's list of old names. */
void cfg_schema_add(struct cfg_schema *s, const struct cfg_setting *table);
/* Print every setting (path, type, unit, range, default, help). */
void cfg_schema_print(const struct cfg_schema *s, FILE *out);
/* The same as tab-separated columns with a header line (path, type, unit,
 * range, default, help), then one "OLD renamed  NEW" row per renamed
 * setting: for programs (the man page is made from it). */
void cfg_schema_print_tsv(const struct cfg_schema *s, FILE *out);

struct scenario;
/* Load and validate; NULL with e filled (status ERR_USAGE) on any problem. */
struct scenario *sc_load(const struct cfg_schema *s, const char *file,
			 const char *const *overrides, size_t n_overrides,
			 struct err *e);
/* A catalog file alone (or any scenario): every setting present checked,
 * and the required settings of its entries ("gpus.*.tdp_w"), but not the
 * ones a whole scenario needs (model.layers ...): for `trainsim list`. */
struct scenario *sc_load_catalog(const struct cfg_schema *s, const char *file,
				 struct err *e);
void sc_free(struct scenario *sc);

/* Values by path (printf-style, so "gpus.%s.tdp_w" works).  The path must be
 * in the schema; absent settings give the schema default. */
int64_t sc_int(const struct scenario *sc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
double sc_float(const struct scenario *sc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
bool sc_bool(const struct scenario *sc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
const char *sc_str(const struct scenario *sc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Lists: length and element i (0 for an absent list). */
size_t sc_list_len(const struct scenario *sc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
double sc_list_float(const struct scenario *sc, size_t i, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* The directory of the file that sets the setting (an @include'd file's
 * own, so a catalog can name files beside it), else the scenario's (for
 * overrides and absent settings); "." for the current one. */
void sc_dir_of(const struct scenario *sc, char *out, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Is the setting or group present in the file (or an override)? */
bool sc_has(const struct scenario *sc, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Has the group a child of exactly this name?  For names the user gives
 * (a region, an instance type): looked up as a member, not as a path, so
 * a name with dots or other characters no entry can have is simply
 * absent.  Only after a yes may the name become a path segment. */
bool sc_has_child(const struct scenario *sc, const char *group, const char *name);
/* Names of the children of a group ("gpus" -> "a100_80gb", ...), in file
 * order; the array is owned by the scenario.  0 if the group is absent. */
size_t sc_children(const struct scenario *sc, const char *group,
		   const char *const **names);

/* A model's own check failed: "FILE:LINE: PATH: message" (or the override),
 * status ERR_USAGE; returns -1. */
int sc_error(const struct scenario *sc, struct err *e, const char *path,
	     const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Where a loaded scenario's keys are, for errors the models find after the
 * load (a job that no longer fits in memory after an elastic resize): a
 * handle that can name places and nothing else, so that models keep no
 * way of reading values from the tree once the loader has filled their
 * typed settings.  Valid while the scenario lives. */
struct sc_where;
const struct sc_where *sc_where_of(const struct scenario *sc);
/* sc_error() at w; a NULL w (settings filled by hand, in tests) gives
 * "PATH: message". */
int sc_where_error(const struct sc_where *w, struct err *e, const char *path,
		   const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* A file a setting names (a trace, a kernel table, a job list) was found
 * but its reader failed: e holds the reader's "FILE:LINE: what is wrong";
 * add which setting named the file, " (read for -s KEY=VALUE)" or
 * " (read for KEY at FILE:LINE)", so that a bad trace given by -s says
 * which -s.  Every caller of a file reader on a path from sc_path() ends
 * its error with this.  Returns -1. */
int sc_where_named(const struct sc_where *w, struct err *e, const char *path);

const char *sc_file(const struct scenario *sc);
/* A file a setting names (a trace): rel looked for in the scenario's
 * directory, $TRAINSIM_PATH, then the installed scenarios (sim/path.h);
 * out = the path to open.  Not found: -1 with e filled, "WHERE: key:
 * "rel": not found in scenarios/, $TRAINSIM_PATH (not set), ..." (key may
 * be NULL: "rel: not found in ..."). */
int sc_path(const struct scenario *sc, const char *key, const char *rel,
	    char *out, size_t cap, struct err *e);
/* Every file the scenario was read from (the file, its @includes) and
 * every string setting as a path beside the file that set it (so every
 * trace it names, and words that name no file): what an output must
 * never replace.  A malloc'd array of malloc'd paths; the count. */
size_t sc_input_files(const struct scenario *sc, char ***paths);
/* The full scenario text after includes and overrides (owned by sc,
 * written at the first call); NULL with e filled when it cannot be. */
const char *sc_text(const struct scenario *sc, struct err *e);

#endif
