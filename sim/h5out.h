/*
 * h5out.h -- the HDF5 side of the report: a file written under a temporary
 * name and renamed into place, attributes, small datasets, and appendable
 * columns.  It knows HDF5 and nothing of what the numbers mean; report.c
 * decides the layout.
 *
 *   struct h5o *f = h5o_create("run.h5", &e);     // writes ".run.h5.tmp.XXXXXX"
 *   h5o_group(f, "/timeseries", &e);
 *   struct h5o_col *t = h5o_col_f64(f, "/timeseries/time_s", "s", &e);
 *   h5o_col_put(t, &time_s, &e);                  // buffered, one chunk at a time
 *   h5o_attr_f64(f, "/", "x", 1.0, &e);
 *   h5o_commit(f, &e);                            // flush, close, rename
 *
 * h5o_commit() and h5o_abort() both free f and its columns; commit removes
 * the temporary file if anything fails, so a failure never leaves a file.
 *
 * Bytes on disk depend only on the calls made: object times are not
 * recorded, the format is pinned to HDF5 1.10 (readable by 1.10 and later;
 * its extensible-array chunk index keeps appends cheap and memory flat), fill
 * values are explicit and every chunk is written once, whole (the last one
 * of each column at commit), so two identical runs give identical files.
 *
 * HDF5 1.10 crashes at exit after an H5Fclose that failed (a full disk), so
 * h5o_create() calls H5dont_atexit(): a program that calls HDF5 before it
 * must call H5dont_atexit() first itself, and must not call H5close().
 *
 * Strings are variable-length UTF-8 (h5py reads them as str); enums are
 * one-byte codes with names.
 * Errors read "TARGET: cannot WHAT OBJECT: HDF5: innermost HDF5 message".
 */
#ifndef SIM_H5OUT_H
#define SIM_H5OUT_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

struct h5o;
struct h5o_col;

/* Rows per chunk of an appendable column (4096 float64 = 32 KiB). */
#define H5O_CHUNK_ROWS 4096
/* Names an enum type holds (its codes are one byte). */
#define H5O_ENUM_MAX 256

/* Row of the event table in memory; the file's compound type orders the
 * members time_s, kind, who, value and packs them.  kind is the code of
 * one of the names given to h5o_col_events(). */
struct h5o_event {
	double time_s;
	int64_t who;
	double value;
	uint8_t kind;
};

struct h5o *h5o_create(const char *target, struct err *e);
int h5o_commit(struct h5o *f, struct err *e);
void h5o_abort(struct h5o *f);
/* Remove the temporary files of every h5o this process has open, with
 * async-signal-safe calls only (getpid, unlink): for main's SIGINT and
 * SIGTERM handler, which then _exit()s. */
void h5o_unlink_temps(void);

/* A group whose links and attributes keep their creation order. */
int h5o_group(struct h5o *f, const char *path, struct err *e);

/* Scalar attributes of the object at obj ("/", "/summary", ...). */
int h5o_attr_f64(struct h5o *f, const char *obj, const char *name, double v,
		 struct err *e);
int h5o_attr_u64(struct h5o *f, const char *obj, const char *name, uint64_t v,
		 struct err *e);
int h5o_attr_str(struct h5o *f, const char *obj, const char *name, const char *v,
		 struct err *e);

/* Whole 1-D datasets: float64 with a "unit" attribute, or strings
 * (variable-length UTF-8, as are string attributes). */
int h5o_vec_f64(struct h5o *f, const char *path, const double *v, size_t n,
		const char *unit, struct err *e);
int h5o_vec_str(struct h5o *f, const char *path, const char *const *s, size_t n,
		struct err *e);

/* Appendable columns: chunked, shuffled, deflated, unlimited. */
struct h5o_col *h5o_col_f64(struct h5o *f, const char *path, const char *unit,
			    struct err *e);
/* A column of enum codes (uint8_t rows) named names[0..n-1], n <= 256. */
struct h5o_col *h5o_col_enum(struct h5o *f, const char *path, const char *const *names,
			     size_t n, struct err *e);
/* The event table; its kind member is an enum of kinds[0..n-1]. */
struct h5o_col *h5o_col_events(struct h5o *f, const char *path, const char *const *kinds,
			       size_t n, struct err *e);
/* Append one row (a double, a uint8_t code, or a struct h5o_event). */
int h5o_col_put(struct h5o_col *c, const void *row, struct err *e);

#endif
