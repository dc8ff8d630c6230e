/* h5out.c -- see h5out.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "sim/h5out.h"

/* zlib level: 4 is near level 9's ratio on smooth float series at a
 * fraction of the time; shuffle first groups the exponent bytes. */
#define H5O_DEFLATE_LEVEL 4
/* Events are 25 bytes in the file; 1024 rows = 25 KiB chunks. */
#define H5O_EVENT_CHUNK_ROWS 1024

struct h5o_col {
	struct h5o *file;
	struct h5o_col *next;
	char *path;
	hid_t dset, memtype;	/* memtype is owned when not a predefined type */
	int own_memtype;
	size_t row_bytes, chunk_rows, nbuf;
	hsize_t nrows;		/* rows already in the file */
	unsigned char *buf;	/* chunk_rows rows waiting to be written */
};

struct h5o {
	char *target, *tmp;
	hid_t file;
	struct h5o_col *cols;
};

/* Innermost message of the last failed HDF5 call: the cause, not the API
 * function.  It is kept by an automatic error handler, because any later
 * HDF5 call (closing what was opened) clears the error stack. */
static char h5o_last_error[256];

/* The sec2 driver's I/O messages run to several lines (time, descriptor,
 * offsets); keep "what failed: strerror" from them. */
static void h5o_keep_desc(const char *desc)
{
	const char *colon = strchr(desc, ':');
	const char *msg = strstr(desc, "error message = '");
	const char *end;

	if (colon != NULL && msg != NULL) {
		msg += strlen("error message = '");
		end = strchr(msg, '\'');
		snprintf(h5o_last_error, sizeof h5o_last_error, "%.*s: %.*s",
			 (int)(colon - desc), desc,
			 (int)(end ? (size_t)(end - msg) : strlen(msg)), msg);
	} else {
		snprintf(h5o_last_error, sizeof h5o_last_error, "%s", desc);
	}
}

static herr_t h5o_walk(unsigned n, const H5E_error2_t *d, void *arg)
{
	(void)arg;
	if (n != 0)
		return 0;
	if (d->desc != NULL && d->desc[0] != '\0')
		h5o_keep_desc(d->desc);
	else if (H5Eget_msg(d->min_num, NULL, h5o_last_error, sizeof h5o_last_error) <= 0)
		snprintf(h5o_last_error, sizeof h5o_last_error, "unknown error");
	return 0;
}

static herr_t h5o_on_error(hid_t stack, void *arg)
{
	(void)arg;
	H5Ewalk2(stack, H5E_WALK_UPWARD, h5o_walk, NULL);
	return 0;
}

static int h5o_fail(struct h5o *f, struct err *e, const char *what, const char *obj)
{
	err_set(e, ERR_RUN, "%s: cannot %s %s: HDF5: %s", f->target, what, obj,
		h5o_last_error[0] ? h5o_last_error : "unknown error");
	h5o_last_error[0] = '\0';
	return -1;
}

/* The temp files being written, for h5o_unlink_temps() in a signal
 * handler: set once the file exists, cleared (after the rename or before
 * the unlink) before the name is freed.  A slot is only read from the
 * process that filled it, so a forked worker killed by its pool leaves
 * its parent's file alone. */
#define H5O_LIVE_MAX 8
static const char *volatile h5o_live[H5O_LIVE_MAX];
static volatile pid_t h5o_live_pid[H5O_LIVE_MAX];

static void h5o_live_add(const char *tmp)
{
	for (int i = 0; i < H5O_LIVE_MAX; i++)
		if (h5o_live[i] == NULL) {
			h5o_live_pid[i] = getpid();
			h5o_live[i] = tmp;
			return;
		}
}

static void h5o_live_drop(const char *tmp)
{
	for (int i = 0; i < H5O_LIVE_MAX; i++)
		if (h5o_live[i] == tmp)
			h5o_live[i] = NULL;
}

void h5o_unlink_temps(void)
{
	pid_t me = getpid();

	for (int i = 0; i < H5O_LIVE_MAX; i++) {
		const char *t = h5o_live[i];

		if (t != NULL && h5o_live_pid[i] == me)
			unlink(t);
	}
}

/* ".BASE.tmp.XXXXXX" in the target's directory, so rename() stays atomic. */
static char *h5o_tmpname(const char *target)
{
	const char *slash = strrchr(target, '/');
	size_t dir_len = slash ? (size_t)(slash - target) + 1 : 0;
	size_t len = strlen(target) + sizeof ".tmp.XXXXXX" + 1;
	char *tmp = malloc(len);

	if (tmp != NULL)
		snprintf(tmp, len, "%.*s.%s.tmp.XXXXXX", (int)dir_len, target,
			 target + dir_len);
	return tmp;
}

static hid_t h5o_file_create(const char *tmp)
{
	hid_t fcpl = H5Pcreate(H5P_FILE_CREATE), fapl = H5Pcreate(H5P_FILE_ACCESS);
	hid_t file = H5I_INVALID_HID;
	unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;

	/* The root group takes its object settings from the fcpl. */
	if (fcpl >= 0 && fapl >= 0 &&
	    H5Pset_obj_track_times(fcpl, 0) >= 0 &&
	    H5Pset_attr_creation_order(fcpl, order) >= 0 &&
	    H5Pset_link_creation_order(fcpl, order) >= 0 &&
	    H5Pset_libver_bounds(fapl, H5F_LIBVER_V110, H5F_LIBVER_V110) >= 0 &&
	    H5Pset_fclose_degree(fapl, H5F_CLOSE_STRONG) >= 0)
		file = H5Fcreate(tmp, H5F_ACC_TRUNC, fcpl, fapl);
	H5Pclose(fcpl);
	H5Pclose(fapl);
	return file;
}

struct h5o *h5o_create(const char *target, struct err *e)
{
	struct h5o *f = calloc(1, sizeof *f);
	int fd;

	/* HDF5 1.10 crashes in its exit handler (and in H5close) on a file whose
	 * H5Fclose failed, as on a full disk; we close our files ourselves, so
	 * keep the handler out (this only works before HDF5's first call). */
	H5dont_atexit();
	/* Report failures through struct err, never on stderr. */
	H5Eset_auto2(H5E_DEFAULT, h5o_on_error, NULL);
	if (f == NULL || (f->target = strdup(target)) == NULL ||
	    (f->tmp = h5o_tmpname(target)) == NULL) {
		err_set(e, ERR_RUN, "%s: cannot create: out of memory", target);
		goto fail;
	}
	if ((fd = mkstemp(f->tmp)) < 0) {
		err_set(e, ERR_RUN, "%s: cannot create: %s", target, strerror(errno));
		free(f->tmp);
		f->tmp = NULL;
		goto fail;
	}
	/* mkstemp makes 0600; the result should look like any file we write. */
	mode_t mask = umask(0);
	umask(mask);
	fchmod(fd, 0666 & ~mask);
	close(fd);
	h5o_live_add(f->tmp);
	f->file = h5o_file_create(f->tmp);
	if (f->file < 0) {
		h5o_fail(f, e, "create", f->tmp);
		h5o_live_drop(f->tmp);
		unlink(f->tmp);
		goto fail;
	}
	return f;
fail:
	if (f != NULL) {
		free(f->target);
		free(f->tmp);
		free(f);
	}
	return NULL;
}

static void h5o_col_free(struct h5o_col *c)
{
	H5Dclose(c->dset);
	if (c->own_memtype)
		H5Tclose(c->memtype);
	free(c->buf);
	free(c->path);
	free(c);
}

static void h5o_free(struct h5o *f, int remove_tmp)
{
	struct h5o_col *c, *next;

	for (c = f->cols; c != NULL; c = next) {
		next = c->next;
		h5o_col_free(c);
	}
	if (f->file >= 0)
		H5Fclose(f->file);
	h5o_last_error[0] = '\0';
	h5o_live_drop(f->tmp);
	if (remove_tmp)
		unlink(f->tmp);
	free(f->target);
	free(f->tmp);
	free(f);
}

void h5o_abort(struct h5o *f)
{
	if (f != NULL)
		h5o_free(f, 1);
}

static int h5o_col_flush(struct h5o_col *c, struct err *e)
{
	hsize_t start = c->nrows, count = c->nbuf, size = c->nrows + c->nbuf;
	hid_t fsp = H5I_INVALID_HID, msp = H5I_INVALID_HID;
	int ok;

	if (c->nbuf == 0)
		return 0;
	ok = H5Dset_extent(c->dset, &size) >= 0 &&
	     (fsp = H5Dget_space(c->dset)) >= 0 &&
	     H5Sselect_hyperslab(fsp, H5S_SELECT_SET, &start, NULL, &count, NULL) >= 0 &&
	     (msp = H5Screate_simple(1, &count, NULL)) >= 0 &&
	     H5Dwrite(c->dset, c->memtype, msp, fsp, H5P_DEFAULT, c->buf) >= 0;
	if (fsp >= 0)
		H5Sclose(fsp);
	if (msp >= 0)
		H5Sclose(msp);
	if (!ok)
		return h5o_fail(c->file, e, "write", c->path);
	c->nrows = size;
	c->nbuf = 0;
	return 0;
}

int h5o_commit(struct h5o *f, struct err *e)
{
	struct h5o_col *c;
	herr_t rc;

	for (c = f->cols; c != NULL; c = c->next)
		if (h5o_col_flush(c, e) < 0)
			goto fail;
	while ((c = f->cols) != NULL) {
		f->cols = c->next;
		h5o_col_free(c);
	}
	rc = H5Fclose(f->file);
	f->file = H5I_INVALID_HID;
	if (rc < 0) {
		h5o_fail(f, e, "close", f->tmp);
		goto fail;
	}
	if (rename(f->tmp, f->target) < 0) {
		err_set(e, ERR_RUN, "%s: cannot rename %s into place: %s", f->target,
			f->tmp, strerror(errno));
		goto fail;
	}
	h5o_free(f, 0);
	return 0;
fail:
	h5o_free(f, 1);
	return -1;
}

static hid_t h5o_gcpl(void)
{
	hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
	unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;

	if (gcpl >= 0 &&
	    (H5Pset_obj_track_times(gcpl, 0) < 0 ||
	     H5Pset_attr_creation_order(gcpl, order) < 0 ||
	     H5Pset_link_creation_order(gcpl, order) < 0)) {
		H5Pclose(gcpl);
		gcpl = H5I_INVALID_HID;
	}
	return gcpl;
}

int h5o_group(struct h5o *f, const char *path, struct err *e)
{
	hid_t gcpl = h5o_gcpl(), g = H5I_INVALID_HID;

	if (gcpl >= 0)
		g = H5Gcreate2(f->file, path, H5P_DEFAULT, gcpl, H5P_DEFAULT);
	if (gcpl >= 0)
		H5Pclose(gcpl);
	if (g < 0)
		return h5o_fail(f, e, "create group", path);
	H5Gclose(g);
	return 0;
}

/* Variable-length UTF-8 string type: readers get str, not padded bytes. */
static hid_t h5o_strtype(void)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	if (t >= 0 &&
	    (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0)) {
		H5Tclose(t);
		t = H5I_INVALID_HID;
	}
	return t;
}

/* Scalar attribute on an open object; 0 or -1 (HDF5 stack left for the caller). */
static int h5o_attr_on(hid_t obj, const char *name, hid_t ftype, hid_t mtype,
		       const void *v)
{
	hid_t sp = H5Screate(H5S_SCALAR), a = H5I_INVALID_HID;
	int ok = 0;

	if (sp >= 0)
		a = H5Acreate2(obj, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT);
	if (a >= 0) {
		ok = H5Awrite(a, mtype, v) >= 0;
		H5Aclose(a);
	}
	if (sp >= 0)
		H5Sclose(sp);
	return ok ? 0 : -1;
}

static int h5o_attr_str_on(hid_t obj, const char *name, const char *v)
{
	hid_t t = h5o_strtype();
	int rc = -1;

	if (t >= 0) {
		rc = h5o_attr_on(obj, name, t, t, &v);
		H5Tclose(t);
	}
	return rc;
}

static int h5o_attr(struct h5o *f, const char *obj, const char *name, hid_t ftype,
		    hid_t mtype, const void *v, struct err *e)
{
	hid_t o = H5Oopen(f->file, obj, H5P_DEFAULT);
	int rc = -1;

	if (o >= 0) {
		rc = h5o_attr_on(o, name, ftype, mtype, v);
		H5Oclose(o);
	}
	if (rc < 0) {
		char what[512];

		snprintf(what, sizeof what, "%s%s%s", obj,
			 obj[strlen(obj) - 1] == '/' ? "" : "/", name);
		return h5o_fail(f, e, "write attribute", what);
	}
	return 0;
}

int h5o_attr_f64(struct h5o *f, const char *obj, const char *name, double v,
		 struct err *e)
{
	return h5o_attr(f, obj, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v, e);
}

int h5o_attr_u64(struct h5o *f, const char *obj, const char *name, uint64_t v,
		 struct err *e)
{
	return h5o_attr(f, obj, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &v, e);
}

int h5o_attr_str(struct h5o *f, const char *obj, const char *name, const char *v,
		 struct err *e)
{
	hid_t t = h5o_strtype();
	int rc;

	if (t < 0)
		return h5o_fail(f, e, "write attribute", name);
	rc = h5o_attr(f, obj, name, t, t, &v, e);
	H5Tclose(t);
	return rc;
}

static hid_t h5o_dcpl_plain(void)
{
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	unsigned order = H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED;

	/* Attributes keep their order: /events documents its fields in order. */
	if (dcpl >= 0 && (H5Pset_obj_track_times(dcpl, 0) < 0 ||
			  H5Pset_attr_creation_order(dcpl, order) < 0)) {
		H5Pclose(dcpl);
		dcpl = H5I_INVALID_HID;
	}
	return dcpl;
}

/* A whole 1-D dataset of n elements written from buf in one go. */
static hid_t h5o_vec(struct h5o *f, const char *path, hid_t ftype, hid_t mtype,
		     size_t n, const void *buf)
{
	hsize_t dims = n;
	hid_t sp = H5Screate_simple(1, &dims, NULL), dcpl = h5o_dcpl_plain();
	hid_t d = H5I_INVALID_HID;

	if (sp >= 0 && dcpl >= 0)
		d = H5Dcreate2(f->file, path, ftype, sp, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (d >= 0 && n > 0 && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
		H5Dclose(d);
		d = H5I_INVALID_HID;
	}
	if (sp >= 0)
		H5Sclose(sp);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return d;
}

int h5o_vec_f64(struct h5o *f, const char *path, const double *v, size_t n,
		const char *unit, struct err *e)
{
	hid_t d = h5o_vec(f, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, n, v);
	int rc = d >= 0 ? h5o_attr_str_on(d, "unit", unit) : -1;

	if (d >= 0)
		H5Dclose(d);
	return rc < 0 ? h5o_fail(f, e, "write", path) : 0;
}

int h5o_vec_str(struct h5o *f, const char *path, const char *const *s, size_t n,
		struct err *e)
{
	hid_t t, d = H5I_INVALID_HID;

	if ((t = h5o_strtype()) >= 0) {
		d = h5o_vec(f, path, t, t, n, s);
		H5Tclose(t);
	}
	if (d < 0)
		return h5o_fail(f, e, "write", path);
	H5Dclose(d);
	return 0;
}

static hid_t h5o_dcpl_chunked(size_t chunk_rows, hid_t mtype, const void *fill)
{
	hsize_t chunk = chunk_rows;
	hid_t dcpl = h5o_dcpl_plain();

	/* An explicit fill value: the tail of the last chunk is then defined. */
	if (dcpl >= 0 &&
	    (H5Pset_chunk(dcpl, 1, &chunk) < 0 || H5Pset_shuffle(dcpl) < 0 ||
	     H5Pset_deflate(dcpl, H5O_DEFLATE_LEVEL) < 0 ||
	     H5Pset_fill_value(dcpl, mtype, fill) < 0)) {
		H5Pclose(dcpl);
		dcpl = H5I_INVALID_HID;
	}
	return dcpl;
}

static struct h5o_col *h5o_col_new(struct h5o *f, const char *path, hid_t ftype,
				   hid_t mtype, size_t row_bytes, size_t chunk_rows,
				   struct err *e)
{
	struct h5o_col *c = calloc(1, sizeof *c);
	hsize_t dims = 0, maxdims = H5S_UNLIMITED;
	hid_t sp, dcpl = H5I_INVALID_HID, dapl;

	if (c == NULL || (c->path = strdup(path)) == NULL ||
	    (c->buf = calloc(chunk_rows, row_bytes)) == NULL) {
		if (c != NULL)
			free(c->path);
		free(c);
		err_set(e, ERR_RUN, "%s: cannot create %s: out of memory", f->target, path);
		return NULL;
	}
	c->file = f;
	c->memtype = mtype;
	c->row_bytes = row_bytes;
	c->chunk_rows = chunk_rows;
	c->dset = H5I_INVALID_HID;
	sp = H5Screate_simple(1, &dims, &maxdims);
	dcpl = h5o_dcpl_chunked(chunk_rows, mtype, c->buf);
	/* No chunk cache: each chunk is written once, whole, straight to disk,
	 * so memory stays at one buffered chunk per column. */
	dapl = H5Pcreate(H5P_DATASET_ACCESS);
	if (dapl >= 0 && H5Pset_chunk_cache(dapl, 0, 0, 1.0) < 0) {
		H5Pclose(dapl);
		dapl = H5I_INVALID_HID;
	}
	if (sp >= 0 && dcpl >= 0 && dapl >= 0)
		c->dset = H5Dcreate2(f->file, path, ftype, sp, H5P_DEFAULT, dcpl, dapl);
	if (sp >= 0)
		H5Sclose(sp);
	if (dcpl >= 0)
		H5Pclose(dcpl);
	if (dapl >= 0)
		H5Pclose(dapl);
	if (c->dset < 0) {
		h5o_fail(f, e, "create", path);
		free(c->buf);
		free(c->path);
		free(c);
		return NULL;
	}
	c->next = f->cols;
	f->cols = c;
	return c;
}

struct h5o_col *h5o_col_f64(struct h5o *f, const char *path, const char *unit,
			    struct err *e)
{
	struct h5o_col *c = h5o_col_new(f, path, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE,
					sizeof(double), H5O_CHUNK_ROWS, e);

	if (c != NULL && h5o_attr_str_on(c->dset, "unit", unit) < 0) {
		h5o_fail(f, e, "write attribute unit of", path);
		return NULL;	/* c stays on f->cols; freed with f */
	}
	return c;
}

/* An enum type over u8 codes 0..n-1 named names[i]: h5py, pandas and
 * h5dump show the names.  The file type is little-endian. */
static hid_t h5o_enumtype(const char *const *names, size_t n, int file)
{
	hid_t t = H5Tenum_create(file ? H5T_STD_U8LE : H5T_NATIVE_UINT8);

	if (t < 0 || n > H5O_ENUM_MAX) {
		if (t >= 0)
			H5Tclose(t);
		return H5I_INVALID_HID;
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t code = (uint8_t)i;

		if (H5Tenum_insert(t, names[i], &code) < 0) {
			H5Tclose(t);
			return H5I_INVALID_HID;
		}
	}
	return t;
}

/* Take ownership of a memory type for a column (or close it on failure). */
static struct h5o_col *h5o_col_owning(struct h5o *f, const char *path, hid_t ft,
				      hid_t mt, size_t row_bytes, size_t chunk_rows,
				      struct err *e)
{
	struct h5o_col *c = NULL;

	if (ft < 0 || mt < 0)
		h5o_fail(f, e, "create", path);
	else
		c = h5o_col_new(f, path, ft, mt, row_bytes, chunk_rows, e);
	if (ft >= 0)
		H5Tclose(ft);
	if (c != NULL)
		c->own_memtype = 1;
	else if (mt >= 0)
		H5Tclose(mt);
	return c;
}

struct h5o_col *h5o_col_enum(struct h5o *f, const char *path, const char *const *names,
			     size_t n, struct err *e)
{
	return h5o_col_owning(f, path, h5o_enumtype(names, n, 1), h5o_enumtype(names, n, 0),
			      sizeof(uint8_t), H5O_CHUNK_ROWS, e);
}

/* Memory and file compound types of struct h5o_event.  The file type keeps
 * the documented member order (time_s, kind, who, value), little-endian and
 * packed: 8 + 1 + 8 + 8 = 25 bytes a row. */
static hid_t h5o_event_type(const char *const *kinds, size_t n, int file)
{
	/* HDF5 1.10 crashes inserting an enum without members: a table with
	 * no kinds gets the one name "none" (its rows can be none). */
	static const char *const none[] = { "none" };
	hid_t t = H5Tcreate(H5T_COMPOUND, file ? 25 : sizeof(struct h5o_event));
	hid_t k = n > 0 ? h5o_enumtype(kinds, n, file) : h5o_enumtype(none, 1, file);
	int ok = t >= 0 && k >= 0 &&
		 H5Tinsert(t, "time_s", file ? 0 : offsetof(struct h5o_event, time_s),
			   file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE) >= 0 &&
		 H5Tinsert(t, "kind", file ? 8 : offsetof(struct h5o_event, kind), k) >= 0 &&
		 H5Tinsert(t, "who", file ? 9 : offsetof(struct h5o_event, who),
			   file ? H5T_STD_I64LE : H5T_NATIVE_INT64) >= 0 &&
		 H5Tinsert(t, "value", file ? 17 : offsetof(struct h5o_event, value),
			   file ? H5T_IEEE_F64LE : H5T_NATIVE_DOUBLE) >= 0;

	if (k >= 0)
		H5Tclose(k);
	if (!ok && t >= 0) {
		H5Tclose(t);
		t = H5I_INVALID_HID;
	}
	return t;
}

struct h5o_col *h5o_col_events(struct h5o *f, const char *path, const char *const *kinds,
			       size_t n, struct err *e)
{
	return h5o_col_owning(f, path, h5o_event_type(kinds, n, 1),
			      h5o_event_type(kinds, n, 0), sizeof(struct h5o_event),
			      H5O_EVENT_CHUNK_ROWS, e);
}

int h5o_col_put(struct h5o_col *c, const void *row, struct err *e)
{
	memcpy(c->buf + c->nbuf * c->row_bytes, row, c->row_bytes);
	if (++c->nbuf == c->chunk_rows)
		return h5o_col_flush(c, e);
	return 0;
}
