/*
 * report.h -- what a run tells the world: summary figures, time series,
 * events, the iteration breakdown.  Models write here without knowing the
 * format; the report streams to HDF5 (the contract in README) and prints
 * the summary as JSON (cli/human.c prints it for people).
 *
 * HDF5 layout written (layout_version 2; strings are variable-length UTF-8;
 * groups keep the creation order of links and attributes, so a reader
 * iterating by H5_INDEX_CRT_ORDER sees time_s first and summary keys in
 * JSON order):
 *   /                   layout_version (uint64), then the rep_attr_str and
 *                       rep_attr_u64 attributes (string, uint64)
 *   /summary            one float64 attribute per rep_summary() name, nothing
 *                       else, so every attribute is a figure (NaN allowed):
 *                         h5dump -a /summary/duration_s run.h5
 *   /summary/units      a group with one string attribute per summary name,
 *                       holding its unit ("" when none):
 *                         h5dump -a /summary/units/duration_s run.h5
 *   /timeseries/time_s  1-D float64, then one dataset per rep_series() in
 *   /timeseries/NAME    declaration order, all of equal length; chunked
 *                       (4096 rows), shuffle + deflate 4, unlimited; each
 *                       float64 with a string attribute "unit" (zero length
 *                       when never sampled), or a uint8 enum (rep_series_enum)
 *   /events             compound {time_s f64, kind enum u8, who i64, value
 *                       f64}, chunked (1024 rows), shuffle + deflate 4,
 *                       unlimited; string attributes time_s, kind, who and
 *                       value say what the fields hold, and one attribute
 *                       per declared kind what its who and value mean
 *   /step               float64 attributes (rep_step_scalar), their units as
 *                       string attributes of /step/units (as for /summary);
 *   /step/NAME          1-D float64 datasets with a "unit" attribute
 *                       (rep_step_vector) and 1-D string datasets
 *                       (rep_step_labels); "units" is reserved
 *   /TABLE/NAME         a table as equal-length columns (rep_table_vector,
 *                       rep_table_labels), e.g. /jobs of trainsim cluster;
 *                       written after /step, groups in order of first column
 *
 * Names must be non-empty, not "." or "..", and free of '/'.  Summary figures, step data and
 * root attributes are kept in memory and written by rep_commit(); samples
 * and events stream out in chunk-sized blocks (memory does not grow with
 * the rows) and are dropped when no file is open, so call rep_open() before
 * the first sample.  The void setters remember their first failure (out of
 * memory, bad name) and rep_commit() returns it.
 *
 * The file is written under ".NAME.tmp.XXXXXX" beside the target and renamed
 * by rep_commit(); rep_abort(), rep_free() before commit, or any failure of
 * rep_commit() leaves no file under either name.  Identical calls give a
 * byte-identical file (no object times, format pinned to HDF5 1.10).
 */
#ifndef SIM_REPORT_H
#define SIM_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/err.h"

struct report;

/* The layout below; written as the root attribute layout_version.  Files
 * without it are layout 1 (fixed-length strings, state and event kinds as
 * a float code and a 24-byte string). */
#define REP_LAYOUT_VERSION 2

struct report *rep_new(void);
void rep_free(struct report *r);	/* aborts an uncommitted file */

/* Start writing to path (via a temporary file); without this the report
 * only keeps the summary in memory (for --json, tests, sweeps). */
int rep_open(struct report *r, const char *path, struct err *e);
int rep_commit(struct report *r, struct err *e);
void rep_abort(struct report *r);

/* Root attributes. */
int rep_attr_str(struct report *r, const char *name, const char *value, struct err *e);
int rep_attr_u64(struct report *r, const char *name, uint64_t value, struct err *e);

/* Summary figures, kept in first-set order; setting again overwrites. */
void rep_summary(struct report *r, const char *name, double value, const char *unit);
double rep_summary_get(const struct report *r, const char *name); /* NaN if unset */
size_t rep_summary_count(const struct report *r);
const char *rep_summary_name(const struct report *r, size_t i);
double rep_summary_value(const struct report *r, size_t i);
const char *rep_summary_unit(const struct report *r, size_t i);	/* "" when none */

/* Time series: declare all before the first sample; time_s is implicit.
 * rep_series() returns -1 for a late, repeated or bad name ("time_s" too);
 * rep_sample() takes one value per declared series, in declaration order. */
int rep_series(struct report *r, const char *name, const char *unit);
/* A series of codes 0..n-1 (n <= 256) written as an HDF5 enum of names, so
 * readers see the names; rep_sample() takes the code as a double. */
int rep_series_enum(struct report *r, const char *name, const char *const *names,
		    size_t n);
int rep_sample(struct report *r, double time_s, const double *values, struct err *e);

/* Event kinds: declare each (at most REP_KIND_MAX bytes, 256 kinds) with
 * what its who and value mean, before the first event; -1 when late,
 * repeated or bad.  rep_event() refuses a kind not declared. */
#define REP_KIND_MAX 23
int rep_event_kind(struct report *r, const char *kind, const char *meaning);
/* One row of /events. */
int rep_event(struct report *r, double time_s, const char *kind, int64_t who,
	      double value, struct err *e);

/* /step: scalars become attributes, vectors datasets; labels (a string
 * dataset) name the elements of vectors such as per-tier bytes. */
void rep_step_scalar(struct report *r, const char *name, double value, const char *unit);
int rep_step_vector(struct report *r, const char *name, const double *v, size_t n,
		    const char *unit, struct err *e);
int rep_step_labels(struct report *r, const char *name, const char *const *labels,
		    size_t n, struct err *e);

/* Columns of the table /TABLE (not step, summary, timeseries or events);
 * the caller keeps them of equal length. */
int rep_table_vector(struct report *r, const char *table, const char *name,
		     const double *v, size_t n, const char *unit, struct err *e);
int rep_table_labels(struct report *r, const char *table, const char *name,
		     const char *const *labels, size_t n, struct err *e);

/* Summary as one JSON object on a line (keys in first-set order; NaN as null). */
void rep_print_json(const struct report *r, FILE *out);

#endif
