/* h5in.c -- see h5in.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "sim/h5in.h"

struct h5in {
	char *path;
	hid_t file;
};

void h5in_close(struct h5in *f);

static int h5in_fail(const struct h5in *f, struct err *e, const char *what,
		     const char *obj)
{
	return err_set(e, ERR_USAGE, "%s: cannot %s %s (not a trainsim run file?)",
		       f->path, what, obj);
}

static int attr_is_single(hid_t attr);

/* Layout 1 (no layout_version attribute) and 2 read alike through this
 * module; a later layout may mean what we would misread, so refuse it. */
static int h5in_check_layout(struct h5in *f, struct err *e)
{
	uint64_t version = 1;
	hid_t a;

	if (H5Aexists(f->file, "layout_version") <= 0)
		return 0;
	/* One integer: an array read into `version` would overrun it. */
	if ((a = H5Aopen(f->file, "layout_version", H5P_DEFAULT)) < 0 ||
	    !attr_is_single(a) || H5Aread(a, H5T_NATIVE_UINT64, &version) < 0) {
		if (a >= 0)
			H5Aclose(a);
		return h5in_fail(f, e, "read attribute", "/layout_version");
	}
	H5Aclose(a);
	if (version > H5IN_LAYOUT_MAX)
		return err_set(e, ERR_USAGE, "%s: layout_version %llu is newer than this "
			       "trainsim reads (1 to %d): use a later trainsim", f->path,
			       (unsigned long long)version, H5IN_LAYOUT_MAX);
	return 0;
}

/* A run file is a regular file (no FIFO, device or directory), and one
 * that cannot be read says why, as a trace does; no size limit (a run
 * sampled every second is hundreds of MB). */
static int h5in_check_file(const char *path, struct err *e)
{
	struct stat st;

	if (stat(path, &st) < 0 || access(path, R_OK) < 0)
		return err_set(e, ERR_USAGE, "%s: cannot read: %s", path, strerror(errno));
	if (S_ISDIR(st.st_mode))
		return err_set(e, ERR_USAGE, "%s: cannot read: %s", path, strerror(EISDIR));
	if (!S_ISREG(st.st_mode))
		return err_set(e, ERR_USAGE, "%s: not a regular file (a directory, "
			       "device or FIFO is never read)", path);
	return 0;
}

struct h5in *h5in_open(const char *path, struct err *e)
{
	struct h5in *f;

	/* See h5out.h: no HDF5 exit handler, ever; and no error printing. */
	H5dont_atexit();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	f = calloc(1, sizeof *f);
	if (f == NULL || (f->path = strdup(path)) == NULL) {
		free(f);
		err_set(e, ERR_RUN, "%s: out of memory", path);
		return NULL;
	}
	if (h5in_check_file(path, e) < 0) {
		free(f->path);
		free(f);
		return NULL;
	}
	f->file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	if (f->file < 0) {
		err_set(e, ERR_USAGE, "%s: cannot open as HDF5", path);
		free(f->path);
		free(f);
		return NULL;
	}
	if (h5in_check_layout(f, e) < 0) {
		h5in_close(f);
		return NULL;
	}
	return f;
}

void h5in_close(struct h5in *f)
{
	if (f == NULL)
		return;
	H5Fclose(f->file);
	free(f->path);
	free(f);
}

const char *h5in_path(const struct h5in *f)
{
	return f->path;
}

int h5in_exists(struct h5in *f, const char *path)
{
	/* H5Lexists needs each parent to exist; walk the path down. */
	char buf[512];
	size_t len = strlen(path);

	if (strcmp(path, "/") == 0)
		return 1;
	if (len >= sizeof buf)
		return 0;
	for (size_t i = 1; i <= len; i++) {
		if (path[i] != '/' && path[i] != '\0')
			continue;
		memcpy(buf, path, i);
		buf[i] = '\0';
		if (H5Lexists(f->file, buf, H5P_DEFAULT) <= 0)
			return 0;
	}
	return 1;
}

/* Does the attribute hold exactly one value (a scalar, or an array of
 * one)?  Every read below goes into room for one value: an array
 * attribute from another program must be refused, not read past. */
static int attr_is_single(hid_t attr)
{
	hid_t sp = H5Aget_space(attr);
	hssize_t n = sp >= 0 ? H5Sget_simple_extent_npoints(sp) : -1;

	if (sp >= 0)
		H5Sclose(sp);
	return n == 1;
}

/* Read a string attribute already opened. */
static char *read_str_attr(hid_t attr)
{
	hid_t ftype = H5Aget_type(attr), mtype = -1;
	char *s = NULL;

	if (ftype < 0 || H5Tget_class(ftype) != H5T_STRING || !attr_is_single(attr))
		goto out;
	if (H5Tis_variable_str(ftype) > 0) {
		char *vs = NULL;

		mtype = H5Tcopy(H5T_C_S1);
		if (mtype >= 0 && H5Tset_size(mtype, H5T_VARIABLE) >= 0 &&
		    H5Tset_cset(mtype, H5Tget_cset(ftype)) >= 0 &&
		    H5Aread(attr, mtype, &vs) >= 0 && vs != NULL) {
			s = strdup(vs);
			H5free_memory(vs);
		}
	} else {
		size_t n = H5Tget_size(ftype);

		mtype = H5Tcopy(H5T_C_S1);
		s = calloc(n + 1, 1);
		/* HDF5 converts no strings between character sets: read in
		 * the file's own (trainsim writes UTF-8). */
		if (s == NULL || mtype < 0 || H5Tset_size(mtype, n + 1) < 0 ||
		    H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0 ||
		    H5Tset_strpad(mtype, H5T_STR_NULLTERM) < 0 ||
		    H5Aread(attr, mtype, s) < 0) {
			free(s);
			s = NULL;
		}
	}
out:
	if (mtype >= 0)
		H5Tclose(mtype);
	if (ftype >= 0)
		H5Tclose(ftype);
	return s;
}

char *h5in_attr_str(struct h5in *f, const char *obj, const char *name, struct err *e)
{
	hid_t attr;
	char *s;

	if (!h5in_exists(f, obj) || H5Aexists_by_name(f->file, obj, name, H5P_DEFAULT) <= 0)
		return NULL;
	attr = H5Aopen_by_name(f->file, obj, name, H5P_DEFAULT, H5P_DEFAULT);
	if (attr < 0) {
		h5in_fail(f, e, "open attribute", name);
		return NULL;
	}
	s = read_str_attr(attr);
	H5Aclose(attr);
	if (s == NULL)
		h5in_fail(f, e, "read string attribute", name);
	return s;
}

int h5in_check_run(struct h5in *f, struct err *e)
{
	struct err ae = { 0 };
	char *v = h5in_attr_str(f, "/", "trainsim_version", &ae);

	if (v == NULL)
		return err_set(e, ERR_USAGE, "%s: not a trainsim run file (no "
			       "trainsim_version string attribute on /)", f->path);
	free(v);
	return 0;
}

/* --- iteration order ------------------------------------------------------- */

/*
 * Groups and attributes are walked in HDF5's native order and sorted here,
 * never walked "in increasing order" by libhdf5: for an index it cannot
 * walk directly, libhdf5 1.10 builds a table of nlinks entries with
 * nlinks taken from the file (H5G__dense_build_table, H5Gdense.c), leaves
 * the entries it could not fill uninitialised when the file's index holds
 * fewer or breaks midway, and H5G__link_release_table then frees those
 * garbage pointers: a segfault on a corrupt dense link table
 * (tests/fuzz/known).  A native walk reads the index's B-tree as it is
 * (H5B2_iterate), with no table.  Each entry's creation order comes with
 * it (info->corder); sorting by it gives what H5_ITER_INC gave for the
 * files trainsim writes (order tracked and indexed), and by name (strcmp,
 * as libhdf5 sorts) for files that do not track it.
 */
struct h5in_ent {
	char *name;
	int64_t corder;
	double v;
};

struct h5in_walk {
	struct h5in_ent *ent;
	size_t n, cap;
	int all_corder;	/* every entry has a valid creation order */
	int failed;	/* out of memory */
};

static int h5in_walk_add(struct h5in_walk *w, const char *name, int corder_valid,
			 int64_t corder, double v)
{
	if (w->n == w->cap) {
		size_t cap = w->cap ? 2 * w->cap : 32;
		struct h5in_ent *ne = realloc(w->ent, cap * sizeof *ne);

		if (ne == NULL)
			return w->failed = 1, -1;
		w->ent = ne;
		w->cap = cap;
	}
	if ((w->ent[w->n].name = strdup(name)) == NULL)
		return w->failed = 1, -1;
	if (w->n == 0)
		w->all_corder = 1;
	w->all_corder &= corder_valid != 0;
	w->ent[w->n].corder = corder;
	w->ent[w->n++].v = v;
	return 0;
}

static int h5in_by_corder(const void *a, const void *b)
{
	const struct h5in_ent *x = a, *y = b;

	return x->corder != y->corder ? (x->corder < y->corder ? -1 : 1)
				      : strcmp(x->name, y->name);
}

static int h5in_by_name(const void *a, const void *b)
{
	return strcmp(((const struct h5in_ent *)a)->name,
		      ((const struct h5in_ent *)b)->name);
}

static void h5in_walk_sort(struct h5in_walk *w)
{
	if (w->n > 1)
		qsort(w->ent, w->n, sizeof *w->ent,
		      w->all_corder ? h5in_by_corder : h5in_by_name);
}

static void h5in_walk_free(struct h5in_walk *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->ent[i].name);
	free(w->ent);
	memset(w, 0, sizeof *w);
}

/* --- float attributes of a group ---------------------------------------- */

struct attr_walk {
	struct h5in_walk w;
	int bad;	/* a numeric attribute that is not a single number */
	char bad_name[64];
};

static herr_t on_attr(hid_t loc, const char *name, const H5A_info_t *info, void *ctx)
{
	struct attr_walk *w = ctx;
	hid_t attr, type;
	double v;
	H5T_class_t cls;

	if ((attr = H5Aopen(loc, name, H5P_DEFAULT)) < 0)
		return 0;
	type = H5Aget_type(attr);
	cls = type >= 0 ? H5Tget_class(type) : H5T_NO_CLASS;
	if (type >= 0)
		H5Tclose(type);
	if (cls != H5T_FLOAT && cls != H5T_INTEGER) {
		H5Aclose(attr);
		return 0;	/* not a figure: skip it */
	}
	if (!attr_is_single(attr) || H5Aread(attr, H5T_NATIVE_DOUBLE, &v) < 0) {
		H5Aclose(attr);
		w->bad = 1;	/* a figure that is not one number */
		snprintf(w->bad_name, sizeof w->bad_name, "%s", name);
		return -1;
	}
	H5Aclose(attr);
	return h5in_walk_add(&w->w, name, info->corder_valid, info->corder, v);
}

/* The walk's entries, sorted, moved into out. */
static int attrs_take(struct h5in_walk *w, struct h5in_attrs *out)
{
	h5in_walk_sort(w);
	out->names = malloc((w->n ? w->n : 1) * sizeof *out->names);
	out->values = malloc((w->n ? w->n : 1) * sizeof *out->values);
	if (out->names == NULL || out->values == NULL) {
		free(out->names);
		free(out->values);
		memset(out, 0, sizeof *out);
		return -1;
	}
	for (size_t i = 0; i < w->n; i++) {
		out->names[i] = w->ent[i].name;
		out->values[i] = w->ent[i].v;
	}
	out->n = w->n;
	free(w->ent);
	memset(w, 0, sizeof *w);
	return 0;
}

int h5in_float_attrs(struct h5in *f, const char *obj, struct h5in_attrs *out,
		     struct err *e)
{
	struct attr_walk w = { { 0 }, 0, "" };
	char units[512];
	hid_t g;
	herr_t rc;

	memset(out, 0, sizeof *out);
	if (!h5in_exists(f, obj))
		return h5in_fail(f, e, "find", obj);
	if ((g = H5Oopen(f->file, obj, H5P_DEFAULT)) < 0)
		return h5in_fail(f, e, "open", obj);
	/* Native order, sorted by creation order when the file tracks it
	 * (trainsim's do), else by name: see "iteration order" above. */
	rc = H5Aiterate2(g, H5_INDEX_CRT_ORDER, H5_ITER_NATIVE, NULL, on_attr, &w);
	if (rc < 0 && !w.w.failed && !w.bad && w.w.n == 0)
		rc = H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, on_attr, &w);
	H5Oclose(g);
	if (w.bad) {
		h5in_walk_free(&w.w);
		return err_set(e, ERR_USAGE, "%s: %s/%s: not a single number (an array "
			       "attribute; not a trainsim run file?)", f->path,
			       strcmp(obj, "/") ? obj : "", w.bad_name);
	}
	if (rc < 0 || w.w.failed) {
		h5in_walk_free(&w.w);
		return w.w.failed ? err_set(e, ERR_RUN, "%s: out of memory", f->path)
				  : h5in_fail(f, e, "read the attributes of", obj);
	}
	if (attrs_take(&w.w, out) < 0) {
		h5in_walk_free(&w.w);
		return err_set(e, ERR_RUN, "%s: out of memory", f->path);
	}
	out->units = calloc(out->n ? out->n : 1, sizeof *out->units);
	if (out->units == NULL) {
		h5in_attrs_free(out);
		return err_set(e, ERR_RUN, "%s: out of memory", f->path);
	}
	snprintf(units, sizeof units, "%s/units", strcmp(obj, "/") ? obj : "");
	for (size_t i = 0; i < out->n; i++) {
		struct err ue = { 0 };
		char *u = h5in_attr_str(f, units, out->names[i], &ue);

		out->units[i] = u ? u : strdup("");
		if (out->units[i] == NULL) {
			h5in_attrs_free(out);
			return err_set(e, ERR_RUN, "%s: out of memory", f->path);
		}
	}
	return 0;
}

void h5in_attrs_free(struct h5in_attrs *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->names[i]);
		if (a->units)
			free(a->units[i]);
	}
	free(a->names);
	free(a->units);
	free(a->values);
	memset(a, 0, sizeof *a);
}

/* --- group members -------------------------------------------------------- */

static herr_t on_link(hid_t g, const char *name, const H5L_info_t *info, void *ctx)
{
	(void)g;
	return h5in_walk_add(ctx, name, info->corder_valid, info->corder, 0);
}

int h5in_members(struct h5in *f, const char *group, char ***names, size_t *n,
		 struct err *e)
{
	struct h5in_walk w = { 0 };
	hid_t g;
	herr_t rc;

	*names = NULL;
	*n = 0;
	if (!h5in_exists(f, group))
		return 0;
	if ((g = H5Gopen2(f->file, group, H5P_DEFAULT)) < 0)
		return h5in_fail(f, e, "open group", group);
	/* Native order, then sorted: see "iteration order" above. */
	rc = H5Literate(g, H5_INDEX_CRT_ORDER, H5_ITER_NATIVE, NULL, on_link, &w);
	if (rc < 0 && !w.failed && w.n == 0)
		rc = H5Literate(g, H5_INDEX_NAME, H5_ITER_NATIVE, NULL, on_link, &w);
	H5Gclose(g);
	char **out = rc < 0 || w.failed ? NULL : malloc((w.n ? w.n : 1) * sizeof *out);
	if (out == NULL) {
		int oom = w.failed || rc >= 0;
		h5in_walk_free(&w);
		return oom ? err_set(e, ERR_RUN, "%s: out of memory", f->path)
			   : h5in_fail(f, e, "list group", group);
	}
	h5in_walk_sort(&w);
	for (size_t i = 0; i < w.n; i++)
		out[i] = w.ent[i].name;
	*names = out;
	*n = w.n;
	free(w.ent);
	return 0;
}

void h5in_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* --- datasets ----------------------------------------------------------- */

/* Open a 1-D dataset and give its length. */
static hid_t open_vec(struct h5in *f, const char *path, size_t *n, struct err *e)
{
	hid_t d, sp;
	hsize_t dims[1];

	if (!h5in_exists(f, path)) {
		h5in_fail(f, e, "find", path);
		return -1;
	}
	if ((d = H5Dopen2(f->file, path, H5P_DEFAULT)) < 0) {
		h5in_fail(f, e, "open dataset", path);
		return -1;
	}
	sp = H5Dget_space(d);
	if (sp < 0 || H5Sget_simple_extent_ndims(sp) != 1 ||
	    H5Sget_simple_extent_dims(sp, dims, NULL) < 0) {
		if (sp >= 0)
			H5Sclose(sp);
		H5Dclose(d);
		h5in_fail(f, e, "read a 1-D dataset at", path);
		return -1;
	}
	H5Sclose(sp);
	*n = (size_t)dims[0];
	return d;
}

/* Integer or float elements: what H5Dread converts to double. */
static int dset_is_numeric(hid_t d)
{
	hid_t t = H5Dget_type(d);
	H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;

	if (t >= 0)
		H5Tclose(t);
	return cls == H5T_FLOAT || cls == H5T_INTEGER || cls == H5T_ENUM;
}

int h5in_is_strings(struct h5in *f, const char *path)
{
	hid_t d, t;
	int yes = 0;

	if (!h5in_exists(f, path) || (d = H5Dopen2(f->file, path, H5P_DEFAULT)) < 0)
		return 0;
	if ((t = H5Dget_type(d)) >= 0) {
		yes = H5Tget_class(t) == H5T_STRING;
		H5Tclose(t);
	}
	H5Dclose(d);
	return yes;
}

/* n numbers of dataset d as doubles.  HDF5 converts no enum to a float,
 * so an enum (layout 2's state) is read as its codes, in its base integer
 * type, then converted in place (v has room for n doubles). */
static int read_numbers(hid_t d, size_t n, double *v)
{
	hid_t ft = H5Dget_type(d), mt = -1, base = -1;
	int rc = -1;

	if (ft < 0)
		return -1;
	if (H5Tget_class(ft) != H5T_ENUM) {
		rc = H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0 ? -1 : 0;
	} else if ((mt = H5Tget_native_type(ft, H5T_DIR_ASCEND)) >= 0 &&
		   (base = H5Tget_super(mt)) >= 0 && H5Tget_size(mt) <= sizeof *v &&
		   H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0 &&
		   H5Tconvert(base, H5T_NATIVE_DOUBLE, n, v, NULL, H5P_DEFAULT) >= 0) {
		rc = 0;
	}
	if (base >= 0)
		H5Tclose(base);
	if (mt >= 0)
		H5Tclose(mt);
	H5Tclose(ft);
	return rc;
}

int h5in_read_f64(struct h5in *f, const char *path, double **v, size_t *n,
		  struct err *e)
{
	hid_t d = open_vec(f, path, n, e);

	*v = NULL;
	if (d < 0)
		return -1;
	if (!dset_is_numeric(d)) {
		H5Dclose(d);
		return h5in_fail(f, e, "read numbers from", path);
	}
	*v = malloc((*n ? *n : 1) * sizeof **v);
	if (*v == NULL) {
		H5Dclose(d);
		return err_set(e, ERR_RUN, "%s: out of memory", f->path);
	}
	if (*n && read_numbers(d, *n, *v) < 0) {
		H5Dclose(d);
		free(*v);
		*v = NULL;
		return h5in_fail(f, e, "read numbers from", path);
	}
	H5Dclose(d);
	return 0;
}

/* n variable-length strings (layout 2) into fresh copies. */
static int read_vlen_strs(struct h5in *f, hid_t d, hid_t ft, size_t n, char ***s,
			  struct err *e)
{
	hid_t mt = H5Tcopy(H5T_C_S1), sp = H5Dget_space(d);
	char **raw = calloc(n ? n : 1, sizeof *raw);
	int rc = -1, read = 0;

	*s = calloc(n ? n : 1, sizeof **s);
	if (mt < 0 || sp < 0 || raw == NULL || *s == NULL) {
		err_set(e, ERR_RUN, "%s: out of memory", f->path);
		goto out;
	}
	if (H5Tset_size(mt, H5T_VARIABLE) < 0 || H5Tset_cset(mt, H5Tget_cset(ft)) < 0 ||
	    (n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) < 0)) {
		h5in_fail(f, e, "read strings from", "a dataset");
		goto out;
	}
	read = 1;
	for (size_t i = 0; i < n; i++)
		if (((*s)[i] = strdup(raw[i] ? raw[i] : "")) == NULL) {
			err_set(e, ERR_RUN, "%s: out of memory", f->path);
			goto out;
		}
	rc = 0;
out:
	if (read)
		H5Dvlen_reclaim(mt, sp, H5P_DEFAULT, raw);
	if (rc < 0 && *s) {
		h5in_names_free(*s, n);
		*s = NULL;
	}
	free(raw);
	if (sp >= 0)
		H5Sclose(sp);
	if (mt >= 0)
		H5Tclose(mt);
	return rc;
}

int h5in_read_strs(struct h5in *f, const char *path, char ***s, size_t *n,
		   struct err *e)
{
	hid_t d = open_vec(f, path, n, e), ft = -1, mt = -1;
	size_t w;
	char *buf = NULL;
	int rc = -1;

	*s = NULL;
	if (d < 0)
		return -1;
	ft = H5Dget_type(d);
	if (ft < 0 || H5Tget_class(ft) != H5T_STRING) {
		h5in_fail(f, e, "read strings from", path);
		goto out;
	}
	if (H5Tis_variable_str(ft) > 0) {
		rc = read_vlen_strs(f, d, ft, *n, s, e);
		goto out;
	}
	w = H5Tget_size(ft) + 1;
	mt = H5Tcopy(H5T_C_S1);
	buf = calloc(*n ? *n : 1, w);
	*s = calloc(*n ? *n : 1, sizeof **s);
	if (buf == NULL || *s == NULL || mt < 0) {
		err_set(e, ERR_RUN, "%s: out of memory", f->path);
		goto out;
	}
	if (H5Tset_size(mt, w) < 0 || H5Tset_strpad(mt, H5T_STR_NULLTERM) < 0 ||
	    H5Tset_cset(mt, H5Tget_cset(ft)) < 0 ||
	    (*n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0)) {
		h5in_fail(f, e, "read strings from", path);
		goto out;
	}
	for (size_t i = 0; i < *n; i++)
		if (((*s)[i] = strdup(buf + i * w)) == NULL) {
			err_set(e, ERR_RUN, "%s: out of memory", f->path);
			goto out;
		}
	rc = 0;
out:
	if (rc < 0 && *s) {
		h5in_names_free(*s, *n);
		*s = NULL;
	}
	free(buf);
	if (mt >= 0)
		H5Tclose(mt);
	if (ft >= 0)
		H5Tclose(ft);
	H5Dclose(d);
	return rc;
}

/* The file type of the events' kind member: a string (layout 1) or an
 * enum (layout 2).  -1 when there is no such member. */
static hid_t kind_type(hid_t d)
{
	hid_t t = H5Dget_type(d), m = -1;
	int i;

	if (t >= 0 && (i = H5Tget_member_index(t, "kind")) >= 0)
		m = H5Tget_member_type(t, (unsigned)i);
	if (t >= 0)
		H5Tclose(t);
	return m;
}

/* The memory type of the kind member: the file's enum with native codes,
 * or a NUL-terminated string of the file's character set. */
static hid_t kind_memtype(hid_t ft)
{
	hid_t st;

	if (H5Tget_class(ft) == H5T_ENUM)
		return H5Tget_native_type(ft, H5T_DIR_ASCEND);
	if (H5Tget_class(ft) != H5T_STRING || (st = H5Tcopy(H5T_C_S1)) < 0)
		return -1;
	if (H5Tset_size(st, H5IN_KIND_BYTES) < 0 || H5Tset_cset(st, H5Tget_cset(ft)) < 0 ||
	    H5Tset_strpad(st, H5T_STR_NULLTERM) < 0) {
		H5Tclose(st);
		return -1;
	}
	return st;
}

/* A row as read: the kind as a string, or as an enum code to name. */
struct raw_event {
	double time_s;
	int64_t who;
	double value;
	union {
		char str[H5IN_KIND_BYTES];
		uint64_t code;	/* room for any native enum base */
	} kind;
};

int h5in_read_events(struct h5in *f, struct h5in_event **ev, size_t *n,
		     struct err *e)
{
	hid_t d, mt = -1, ft = -1, kt = -1;
	struct raw_event *raw = NULL;
	int rc = -1, is_enum;

	*ev = NULL;
	*n = 0;
	if (!h5in_exists(f, "/events"))
		return 0;
	if ((d = open_vec(f, "/events", n, e)) < 0)
		return -1;
	if ((ft = kind_type(d)) < 0 || (kt = kind_memtype(ft)) < 0) {
		h5in_fail(f, e, "read the kind member of", "/events");
		goto out;
	}
	is_enum = H5Tget_class(ft) == H5T_ENUM;
	mt = H5Tcreate(H5T_COMPOUND, sizeof(struct raw_event));
	raw = calloc(*n ? *n : 1, sizeof *raw);
	*ev = calloc(*n ? *n : 1, sizeof **ev);
	if (mt < 0 || raw == NULL || *ev == NULL) {
		err_set(e, ERR_RUN, "%s: out of memory", f->path);
		goto out;
	}
	/* Members are matched by name, so the file's order does not matter. */
	if (H5Tinsert(mt, "time_s", offsetof(struct raw_event, time_s), H5T_NATIVE_DOUBLE) < 0 ||
	    H5Tinsert(mt, "kind", offsetof(struct raw_event, kind), kt) < 0 ||
	    H5Tinsert(mt, "who", offsetof(struct raw_event, who), H5T_NATIVE_INT64) < 0 ||
	    H5Tinsert(mt, "value", offsetof(struct raw_event, value), H5T_NATIVE_DOUBLE) < 0 ||
	    (*n && H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, raw) < 0)) {
		h5in_fail(f, e, "read", "/events");
		goto out;
	}
	for (size_t i = 0; i < *n; i++) {
		struct h5in_event *x = &(*ev)[i];

		x->time_s = raw[i].time_s;
		x->who = raw[i].who;
		x->value = raw[i].value;
		if (!is_enum) {
			memcpy(x->kind, raw[i].kind.str, sizeof x->kind);
		} else if (H5Tenum_nameof(kt, &raw[i].kind, x->kind, sizeof x->kind) < 0) {
			h5in_fail(f, e, "name an event kind of", "/events");
			goto out;
		}
		x->kind[sizeof x->kind - 1] = '\0';
	}
	rc = 0;
out:
	if (rc < 0) {
		free(*ev);
		*ev = NULL;
		*n = 0;
	}
	free(raw);
	if (kt >= 0)
		H5Tclose(kt);
	if (ft >= 0)
		H5Tclose(ft);
	if (mt >= 0)
		H5Tclose(mt);
	H5Dclose(d);
	return rc;
}
