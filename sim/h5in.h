/*
 * h5in.h -- reading a trainsim run file back (the layout report.h writes):
 * root string attributes, the float attributes of a group with their units,
 * 1-D float and string datasets, and the /events table.  For the tools that
 * work on finished runs (collect, export, plan's tests); the simulator
 * itself never reads HDF5.
 *
 *   struct h5in *f = h5in_open("run.h5", &e);
 *   char *ov = h5in_attr_str(f, "/", "overrides", &e);   // NULL if absent, e untouched
 *   struct h5in_attrs s;
 *   h5in_float_attrs(f, "/summary", &s, &e);             // names in creation order
 *   h5in_attrs_free(&s);
 *   h5in_close(f);
 *
 * Like h5out.h, the first call does H5dont_atexit() and nothing calls
 * H5close().  HDF5's own error printing is turned off; failures come back
 * as "FILE: cannot WHAT" with status ERR_USAGE (the file is the user's
 * input).  Returned strings and arrays are malloc'd and owned by the caller.
 */
#ifndef SIM_H5IN_H
#define SIM_H5IN_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

struct h5in;

/* The newest file layout read (report.h's REP_LAYOUT_VERSION); h5in_open()
 * refuses a later one, as it may mean what this code would misread. */
#define H5IN_LAYOUT_MAX 2

struct h5in *h5in_open(const char *path, struct err *e);
void h5in_close(struct h5in *f);
const char *h5in_path(const struct h5in *f);

/* Is it a file trainsim wrote (the layout's marker: a trainsim_version
 * string attribute on /)?  0, or -1 with e filled (ERR_USAGE). */
int h5in_check_run(struct h5in *f, struct err *e);

/* Does the object (group or dataset) exist? */
int h5in_exists(struct h5in *f, const char *path);

/* A fixed- or variable-length string attribute; NULL when absent (e not
 * touched) or unreadable (e filled: test e->status). */
char *h5in_attr_str(struct h5in *f, const char *obj, const char *name, struct err *e);

/* The float64 attributes of a group, in creation order, with the string
 * attribute of the same name under OBJ/units as unit ("" when none).
 * Non-numeric attributes are skipped; a numeric one that is not a single
 * value (an array) is an error. */
struct h5in_attrs {
	size_t n;
	char **names, **units;
	double *values;
};
int h5in_float_attrs(struct h5in *f, const char *obj, struct h5in_attrs *out,
		     struct err *e);
void h5in_attrs_free(struct h5in_attrs *a);

/* The members of a group in creation order (names only). */
int h5in_members(struct h5in *f, const char *group, char ***names, size_t *n,
		 struct err *e);
void h5in_names_free(char **names, size_t n);

/* Is the dataset of strings (rather than numbers)? */
int h5in_is_strings(struct h5in *f, const char *path);
/* A 1-D float64 dataset (any numeric type is converted; an enum gives
 * its codes). */
int h5in_read_f64(struct h5in *f, const char *path, double **v, size_t *n,
		  struct err *e);
/* A 1-D string dataset (fixed- or variable-length). */
int h5in_read_strs(struct h5in *f, const char *path, char ***s, size_t *n,
		   struct err *e);

/* The /events table; kind is the name whether the file holds a string
 * (layout 1) or an enum (layout 2). */
#define H5IN_KIND_BYTES 24
struct h5in_event {
	double time_s;
	char kind[H5IN_KIND_BYTES];
	int64_t who;
	double value;
};
int h5in_read_events(struct h5in *f, struct h5in_event **ev, size_t *n,
		     struct err *e);

#endif
