/*
 * report-t.c -- the report: in-memory summary, JSON and human printing, and
 * the HDF5 file read back through the HDF5 API (values, lengths, units,
 * chunking and filters), byte-identical rewrites, and no file left behind
 * by an abort or a failure.
 *
 * Every expected value is the value written: the test recomputes each
 * sample with the same expression, so equality is exact.
 */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "sim/report.h"
#include "tests/tap.h"

#define NROWS 10000

static char dir[256];

/* Entries of a directory, "." and ".." aside; -1 if it cannot be read. */
static int dir_count(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static double sample_value(int series, int i)
{
	switch (series) {
	case 0: return 700.0 * i;			/* power-like, integral */
	case 1: return 0.5 * i * i / 3.0;		/* cumulative, inexact */
	default: return sin(i * 0.001);			/* oscillating */
	}
}

/* A long scenario text: large attributes must work (> 64 KiB). */
static char *big_text(size_t n)
{
	char *s = malloc(n + 1);

	for (size_t i = 0; i < n; i++)
		s[i] = (i % 61 == 60) ? '\n' : (char)('a' + i % 26);
	s[n] = '\0';
	return s;
}

/* One complete run written to path; the figures the read-back checks. */
static int write_run(const char *path, struct err *e)
{
	static const char *const labels[] = {"nvlink", "infiniband", "ethernet"};
	const double tier_bytes[] = {1.5e12, 2.25e11, 0};
	struct report *r = rep_new();
	char *text = big_text(100000);
	static const char *const phases[] = {"idle", "busy", "done"};
	double v[4];
	int i, rc = -1;

	if (r == NULL || text == NULL)
		goto out;
	if (rep_open(r, path, e) < 0 ||
	    rep_attr_str(r, "trainsim_version", "0.1.0", e) < 0 ||
	    rep_attr_str(r, "scenario", text, e) < 0 ||
	    rep_attr_u64(r, "seed", UINT64_C(9223372036854775813), e) < 0)
		goto out;
	if (rep_series(r, "power_w", "W") < 0 || rep_series(r, "energy_j", "J") < 0 ||
	    rep_series(r, "wave", NULL) < 0 || rep_series_enum(r, "phase", phases, 3) < 0)
		goto out;
	for (i = 0; i < NROWS; i++) {
		for (int s = 0; s < 3; s++)
			v[s] = sample_value(s, i);
		v[3] = i % 3;
		if (rep_sample(r, 60.0 * i, v, e) < 0)
			goto out;
	}
	if (rep_event_kind(r, "failure", "a node failed; who = node") < 0 ||
	    rep_event_kind(r, "checkpoint_end", "a checkpoint ended") < 0 ||
	    rep_event_kind(r, "abcdefghijklmnopqrstuvw", "the longest name") < 0)
		goto out;
	if (rep_event(r, 3600.0, "failure", 17, NAN, e) < 0 ||
	    rep_event(r, 7200.5, "checkpoint_end", -1, 42.5, e) < 0 ||
	    rep_event(r, 9000.0, "abcdefghijklmnopqrstuvw", INT64_MAX, -1e300, e) < 0)
		goto out;
	rep_step_scalar(r, "iteration_time_s", 12.5, "s");
	rep_step_scalar(r, "bubble_fraction", 0.125, NULL);
	if (rep_step_vector(r, "tier_bytes", tier_bytes, 3, "B", e) < 0 ||
	    rep_step_labels(r, "tier_names", labels, 3, e) < 0)
		goto out;
	rep_summary(r, "duration_s", 1234567.0, "s");
	rep_summary(r, "mfu", 0.42, "");
	rep_summary(r, "gpu_hours", NAN, "h");
	rep_summary(r, "tokens", 3e11, "token");
	/* As many keys as the contract has: past HDF5's 8 compact attributes,
	 * so dense attribute storage is exercised (and must be deterministic). */
	for (i = 0; i < 20; i++) {
		char name[16];

		snprintf(name, sizeof name, "extra_%02d", i);
		rep_summary(r, name, i * 0.25, "1");
	}
	rc = rep_commit(r, e);
out:
	rep_free(r);
	free(text);
	return rc;
}

static double attr_f64(hid_t f, const char *obj, const char *name)
{
	double v = -12345;
	hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);

	if (a >= 0) {
		H5Aread(a, H5T_NATIVE_DOUBLE, &v);
		H5Aclose(a);
	}
	return v;
}

/* A variable-length UTF-8 string attribute (layout 2) into a fresh
 * buffer; "" when missing or of another type. */
static char *attr_str(hid_t f, const char *obj, const char *name)
{
	hid_t a = H5Aopen_by_name(f, obj, name, H5P_DEFAULT, H5P_DEFAULT);
	hid_t t = a >= 0 ? H5Aget_type(a) : H5I_INVALID_HID;
	char *v = NULL, *s;

	if (t >= 0 && H5Tget_class(t) == H5T_STRING && H5Tis_variable_str(t) > 0 &&
	    H5Tget_cset(t) == H5T_CSET_UTF8)
		H5Aread(a, t, &v);
	s = strdup(v != NULL ? v : "");
	H5free_memory(v);
	if (t >= 0)
		H5Tclose(t);
	if (a >= 0)
		H5Aclose(a);
	return s;
}

static int str_attr_is(hid_t f, const char *obj, const char *name, const char *want)
{
	char *s = attr_str(f, obj, name);
	int ok = strcmp(s, want) == 0;

	if (!ok)
		tap_diag("%s %s: got \"%.40s\", want \"%.40s\"", obj, name, s, want);
	free(s);
	return ok;
}

static hssize_t dset_len(hid_t f, const char *path)
{
	hid_t d = H5Dopen2(f, path, H5P_DEFAULT), sp;
	hssize_t n = -1;

	if (d < 0)
		return -1;
	sp = H5Dget_space(d);
	n = H5Sget_simple_extent_npoints(sp);
	H5Sclose(sp);
	H5Dclose(d);
	return n;
}

static double *read_f64(hid_t f, const char *path, size_t n)
{
	hid_t d = H5Dopen2(f, path, H5P_DEFAULT);
	double *v = calloc(n ? n : 1, sizeof *v);

	if (d < 0 || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) < 0) {
		free(v);
		v = NULL;
	}
	if (d >= 0)
		H5Dclose(d);
	return v;
}

static herr_t count_attr(hid_t loc, const char *name, const H5A_info_t *info, void *arg)
{
	(void)loc, (void)name, (void)info;
	++*(int *)arg;
	return 0;
}

static int n_attrs(hid_t f, const char *obj)
{
	hid_t o = H5Oopen(f, obj, H5P_DEFAULT);
	int n = 0;

	H5Aiterate2(o, H5_INDEX_NAME, H5_ITER_INC, NULL, count_attr, &n);
	H5Oclose(o);
	return n;
}

/* Chunked 4096 rows, shuffle then deflate, unlimited. */
static int is_chunked_compressed(hid_t f, const char *path, hsize_t want_chunk)
{
	hid_t d = H5Dopen2(f, path, H5P_DEFAULT), dcpl, sp;
	hsize_t chunk = 0, dims, maxdims = 0;
	unsigned flags, cd[8];
	size_t ncd = 8;
	int ok;

	if (d < 0)
		return 0;
	dcpl = H5Dget_create_plist(d);
	sp = H5Dget_space(d);
	H5Sget_simple_extent_dims(sp, &dims, &maxdims);
	ok = H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, &chunk) == 1 &&
	     chunk == want_chunk && maxdims == H5S_UNLIMITED && H5Pget_nfilters(dcpl) == 2 &&
	     H5Pget_filter2(dcpl, 0, &flags, &ncd, cd, 0, NULL, NULL) == H5Z_FILTER_SHUFFLE;
	ncd = 8;
	ok = ok && H5Pget_filter2(dcpl, 1, &flags, &ncd, cd, 0, NULL, NULL) ==
			   H5Z_FILTER_DEFLATE && ncd >= 1 && cd[0] == 4;
	H5Sclose(sp);
	H5Pclose(dcpl);
	H5Dclose(d);
	return ok;
}

static int link_name_is(hid_t f, const char *group, hsize_t idx, const char *want)
{
	char name[64] = "";

	H5Lget_name_by_idx(f, group, H5_INDEX_CRT_ORDER, H5_ITER_INC, idx, name,
			   sizeof name, H5P_DEFAULT);
	return strcmp(name, want) == 0;
}

struct event_row {
	double time_s;
	uint8_t kind;
	int64_t who;
	double value;
};

/* The name of code in the enum member "kind" of /events. */
static const char *kind_name(hid_t kt, uint8_t code, char *buf, size_t len)
{
	if (H5Tenum_nameof(kt, &code, buf, len) < 0)
		snprintf(buf, len, "?%d", code);
	return buf;
}

static void check_events(hid_t f)
{
	hid_t d = H5Dopen2(f, "/events", H5P_DEFAULT), ft = H5Dget_type(d);
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct event_row));
	hid_t s = H5Tget_member_type(ft, 1);
	struct event_row ev[3];
	char k[3][32];

	memset(ev, 0, sizeof ev);
	tap_ok(H5Tget_class(s) == H5T_ENUM && H5Tget_nmembers(s) == 3 &&
	       H5Tget_size(ft) == 25,
	       "/events kind is an enum of the 3 declared kinds; a row is 8+1+8+8 bytes");
	tap_ok(str_attr_is(f, "/events", "failure", "a node failed; who = node") &&
	       str_attr_is(f, "/events", "value",
			   "a figure that depends on kind (see the kind's attribute)"),
	       "/events documents its fields and each kind");
	H5Tinsert(t, "time_s", offsetof(struct event_row, time_s), H5T_NATIVE_DOUBLE);
	H5Tinsert(t, "kind", offsetof(struct event_row, kind), s);
	H5Tinsert(t, "who", offsetof(struct event_row, who), H5T_NATIVE_INT64);
	H5Tinsert(t, "value", offsetof(struct event_row, value), H5T_NATIVE_DOUBLE);
	tap_int(dset_len(f, "/events"), 3, "/events has the 3 rows written");
	tap_ok(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, ev) >= 0,
	       "/events reads as compound");
	for (int i = 0; i < 3; i++)
		kind_name(s, ev[i].kind, k[i], sizeof k[i]);
	tap_ok(ev[0].time_s == 3600.0 && strcmp(k[0], "failure") == 0 &&
	       ev[0].who == 17 && isnan(ev[0].value), "event 0: 3600 failure 17 NaN");
	tap_ok(ev[1].time_s == 7200.5 && strcmp(k[1], "checkpoint_end") == 0 &&
	       ev[1].who == -1 && ev[1].value == 42.5, "event 1: 7200.5 checkpoint_end -1 42.5");
	tap_ok(strcmp(k[2], "abcdefghijklmnopqrstuvw") == 0 && ev[2].who == INT64_MAX &&
	       ev[2].value == -1e300, "event 2: 23-byte kind, INT64_MAX, -1e300");
	tap_ok(is_chunked_compressed(f, "/events", 1024), "/events chunked, shuffled, deflated");
	H5Tclose(s);
	H5Tclose(ft);
	H5Tclose(t);
	H5Dclose(d);
}

/* /timeseries/phase: an enum idle/busy/done holding i % 3 in row i. */
static void check_enum_series(hid_t f)
{
	hid_t d = H5Dopen2(f, "/timeseries/phase", H5P_DEFAULT), t = H5Dget_type(d);
	uint8_t *code = calloc(NROWS, 1);
	char name[8] = "";
	int bad = 0;

	tap_ok(H5Tget_class(t) == H5T_ENUM && H5Tget_nmembers(t) == 3 &&
	       H5Tget_size(t) == 1, "phase is a one-byte enum of 3 names");
	tap_ok(H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, code) >= 0, "phase reads");
	for (int i = 0; i < NROWS; i++)
		bad += code[i] != i % 3;
	H5Tenum_nameof(t, &code[4], name, sizeof name);
	tap_ok(bad == 0 && strcmp(name, "busy") == 0, "phase[i] = i %% 3; row 4 is busy");
	free(code);
	H5Tclose(t);
	H5Dclose(d);
}

static void check_timeseries(hid_t f)
{
	static const char *const paths[] = {"/timeseries/power_w", "/timeseries/energy_j",
					    "/timeseries/wave"};
	static const char *const units[] = {"W", "J", ""};
	double *t = read_f64(f, "/timeseries/time_s", NROWS);
	int bad = 0;

	tap_int(dset_len(f, "/timeseries/time_s"), NROWS, "time_s has 10000 rows");
	for (int i = 0; t != NULL && i < NROWS; i++)
		bad += t[i] != 60.0 * i;
	tap_ok(t != NULL && bad == 0, "time_s[i] = 60 i for all rows");
	tap_ok(str_attr_is(f, "/timeseries/time_s", "unit", "s"), "time_s unit is s");
	tap_ok(is_chunked_compressed(f, "/timeseries/time_s", 4096),
	       "time_s chunked 4096, shuffled, deflated 4, unlimited");
	tap_ok(link_name_is(f, "/timeseries", 0, "time_s") &&
	       link_name_is(f, "/timeseries", 3, "wave"),
	       "time_s first, series in declaration order");
	free(t);
	for (int s = 0; s < 3; s++) {
		double *v = read_f64(f, paths[s], NROWS);

		bad = 0;
		for (int i = 0; v != NULL && i < NROWS; i++)
			bad += memcmp(&v[i], &(double){sample_value(s, i)}, sizeof(double)) != 0;
		tap_int(dset_len(f, paths[s]), NROWS, "series length equals time_s's");
		tap_ok(v != NULL && bad == 0, "%s: every value as written", paths[s]);
		tap_ok(str_attr_is(f, paths[s], "unit", units[s]), "%s unit", paths[s]);
		tap_ok(is_chunked_compressed(f, paths[s], 4096), "%s chunked and compressed",
		       paths[s]);
		free(v);
	}
	check_enum_series(f);
}

static void check_summary_step_root(hid_t f)
{
	char name[64] = "";
	char *text = big_text(100000), *got;
	uint64_t seed = 0;
	hid_t a;

	tap_ok(attr_f64(f, "/summary", "duration_s") == 1234567.0, "summary duration_s");
	tap_ok(attr_f64(f, "/summary", "mfu") == 0.42, "summary mfu");
	tap_ok(isnan(attr_f64(f, "/summary", "gpu_hours")), "summary gpu_hours NaN kept");
	tap_int(n_attrs(f, "/summary"), 24, "/summary holds only the 24 figures");
	tap_ok(attr_f64(f, "/summary", "extra_19") == 19 * 0.25 &&
	       str_attr_is(f, "/summary/units", "extra_19", "1"),
	       "24th figure (dense attribute storage) and its unit");
	H5Aget_name_by_idx(f, "/summary", H5_INDEX_CRT_ORDER, H5_ITER_INC, 3, name,
			   sizeof name, H5P_DEFAULT);
	tap_ok(strcmp(name, "tokens") == 0, "summary attributes in first-set order");
	tap_ok(str_attr_is(f, "/summary/units", "duration_s", "s") &&
	       str_attr_is(f, "/summary/units", "tokens", "token") &&
	       str_attr_is(f, "/summary/units", "mfu", ""),
	       "units under /summary/units");
	tap_ok(attr_f64(f, "/step", "iteration_time_s") == 12.5 &&
	       str_attr_is(f, "/step/units", "iteration_time_s", "s") &&
	       attr_f64(f, "/step", "bubble_fraction") == 0.125,
	       "step scalars and their units");
	double *tb = read_f64(f, "/step/tier_bytes", 3);
	tap_ok(tb != NULL && dset_len(f, "/step/tier_bytes") == 3 && tb[0] == 1.5e12 &&
	       tb[1] == 2.25e11 && tb[2] == 0 && str_attr_is(f, "/step/tier_bytes", "unit", "B"),
	       "step vector values and unit");
	free(tb);
	hid_t d = H5Dopen2(f, "/step/tier_names", H5P_DEFAULT), t = H5Dget_type(d);
	hid_t sp = H5Dget_space(d);
	char *lab[3] = { NULL, NULL, NULL };
	int vlen = H5Tis_variable_str(t) > 0 && H5Tget_cset(t) == H5T_CSET_UTF8;
	if (vlen)
		H5Dread(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, lab);
	tap_ok(vlen && lab[2] != NULL && strcmp(lab[0], "nvlink") == 0 &&
	       strcmp(lab[1], "infiniband") == 0 && strcmp(lab[2], "ethernet") == 0,
	       "step labels (variable-length UTF-8)");
	if (vlen)
		H5Dvlen_reclaim(t, sp, H5P_DEFAULT, lab);
	H5Sclose(sp);
	H5Tclose(t);
	H5Dclose(d);
	tap_ok(str_attr_is(f, "/", "trainsim_version", "0.1.0"), "root trainsim_version");
	got = attr_str(f, "/", "scenario");
	tap_ok(strcmp(got, text) == 0, "root scenario: 100000-byte string intact");
	free(got);
	free(text);
	a = H5Aopen_by_name(f, "/", "seed", H5P_DEFAULT, H5P_DEFAULT);
	H5Aread(a, H5T_NATIVE_UINT64, &seed);
	H5Aclose(a);
	tap_ok(seed == UINT64_C(9223372036854775813), "root seed as uint64 (2^63 + 5)");
	seed = 0;
	a = H5Aopen_by_name(f, "/", "layout_version", H5P_DEFAULT, H5P_DEFAULT);
	H5Aread(a, H5T_NATIVE_UINT64, &seed);
	H5Aclose(a);
	tap_int((long long)seed, REP_LAYOUT_VERSION, "root layout_version");
}

static int same_bytes(const char *p, const char *q)
{
	FILE *a = fopen(p, "rb"), *b = fopen(q, "rb");
	int ca, cb, same = a != NULL && b != NULL;

	while (same) {
		ca = getc(a);
		cb = getc(b);
		if (ca != cb)
			same = 0;
		if (ca == EOF)
			break;
	}
	if (a)
		fclose(a);
	if (b)
		fclose(b);
	return same;
}

static void test_file(void)
{
	char p1[512], p2[512];
	struct err e = {0};
	hid_t f;

	snprintf(p1, sizeof p1, "%s/run1.h5", dir);
	snprintf(p2, sizeof p2, "%s/run2.h5", dir);
	tap_ok(write_run(p1, &e) == 0, "write a full run (%s)", e.msg);
	tap_int(dir_count(dir), 1, "only the target remains, no temporary");
	f = H5Fopen(p1, H5F_ACC_RDONLY, H5P_DEFAULT);
	tap_ok(f >= 0, "file opens with HDF5");
	if (f < 0)
		return;
	check_timeseries(f);
	check_events(f);
	check_summary_step_root(f);
	H5Fclose(f);
	tap_ok(write_run(p2, &e) == 0, "write the same run again");
	tap_ok(same_bytes(p1, p2), "two identical runs give byte-identical files");
	unlink(p1);
	unlink(p2);
}

static void test_zero_length(void)
{
	char p[512];
	struct err e = {0};
	struct report *r = rep_new();
	hid_t f;

	snprintf(p, sizeof p, "%s/empty.h5", dir);
	rep_series(r, "power_w", "W");
	tap_ok(rep_open(r, p, &e) == 0 && rep_commit(r, &e) == 0,
	       "a run with no samples or events commits");
	rep_free(r);
	f = H5Fopen(p, H5F_ACC_RDONLY, H5P_DEFAULT);
	tap_ok(dset_len(f, "/timeseries/time_s") == 0 &&
	       dset_len(f, "/timeseries/power_w") == 0 && dset_len(f, "/events") == 0,
	       "declared but never sampled: zero-length datasets");
	tap_ok(is_chunked_compressed(f, "/timeseries/power_w", 4096) &&
	       str_attr_is(f, "/timeseries/power_w", "unit", "W"),
	       "zero-length series keeps layout and unit");
	H5Fclose(f);
	unlink(p);
}

static void test_no_file_left(void)
{
	char p[512];
	struct err e = {0};
	struct report *r;
	double v = 1;

	snprintf(p, sizeof p, "%s/abort.h5", dir);
	r = rep_new();
	rep_series(r, "x", "1");
	tap_ok(rep_open(r, p, &e) == 0, "open for abort");
	for (int i = 0; i < 5000; i++)
		rep_sample(r, i, &v, &e);
	tap_int(dir_count(dir), 1, "while open: one temporary file, target absent");
	rep_abort(r);
	tap_int(dir_count(dir), 0, "rep_abort leaves no file");
	tap_ok(rep_commit(r, &e) == 0, "commit after abort: nothing to write");
	rep_free(r);

	r = rep_new();
	rep_open(r, p, &e);
	rep_free(r);
	tap_int(dir_count(dir), 0, "rep_free before commit leaves no file");

	snprintf(p, sizeof p, "%s/missing/x.h5", dir);
	r = rep_new();
	tap_ok(rep_open(r, p, &e) == -1 && e.status == ERR_RUN,
	       "open in a missing directory fails");
	tap_ok(strncmp(e.msg, p, strlen(p)) == 0 && strstr(e.msg, ": cannot create: ") != NULL,
	       "message names the path: %s", e.msg);
	rep_free(r);

	/* rename() fails when the target is a directory. */
	snprintf(p, sizeof p, "%s/isdir.h5", dir);
	mkdir(p, 0700);
	e = (struct err){0};
	r = rep_new();
	tap_ok(rep_open(r, p, &e) == 0 && rep_commit(r, &e) == -1 && e.status == ERR_RUN,
	       "commit over a directory fails: %s", e.msg);
	tap_ok(rep_commit(r, &(struct err){0}) == -1, "a failed report keeps failing");
	rep_free(r);
	tap_int(dir_count(dir), 1, "failed commit removes its temporary");
	rmdir(p);
}

/* A disk that fills up: writes past RLIMIT_FSIZE fail with EFBIG. */
static void test_write_failure(void)
{
	struct rlimit old, small;
	struct report *r = rep_new();
	struct err e = {0};
	char p[512];
	double v = 0;
	int i, rc = 0;

	snprintf(p, sizeof p, "%s/full.h5", dir);
	getrlimit(RLIMIT_FSIZE, &old);
	small = old;
	small.rlim_cur = 64 * 1024;
	signal(SIGXFSZ, SIG_IGN);
	setrlimit(RLIMIT_FSIZE, &small);
	rep_series(r, "noise", "1");
	rc = rep_open(r, p, &e);
	/* 16 chunks of 32 KiB of incompressible values: well past 64 KiB. */
	for (i = 0; rc == 0 && i < 16 * 4096; i++) {
		v = sin(i * 12.9898) * 43758.5453;
		rc = rep_sample(r, i, &v, &e);
	}
	setrlimit(RLIMIT_FSIZE, &old);
	tap_ok(rc == -1 && e.status == ERR_RUN && strstr(e.msg, "cannot write") != NULL &&
	       strstr(e.msg, "HDF5: ") != NULL && strstr(e.msg, strerror(EFBIG)) != NULL,
	       "a failed write is an error: %s", e.msg);
	tap_int(dir_count(dir), 0, "a failed write leaves no file");
	tap_ok(rep_sample(r, 0, &v, &(struct err){0}) == -1 &&
	       rep_commit(r, &(struct err){0}) == -1, "later samples and commit fail too");
	rep_free(r);
	r = rep_new();
	tap_ok(rep_series(r, ".", "") == -1 && rep_series(r, "..", "") == -1,
	       "\".\" and \"..\" are not names");
	rep_free(r);
}

static void test_memory_only(void)
{
	struct report *r = rep_new();
	struct err e = {0};
	double v[2] = {1, 2};

	rep_summary(r, "a", 1, "s");
	rep_summary(r, "b", 2, NULL);
	rep_summary(r, "a", 3, "s");
	tap_int(rep_summary_count(r), 2, "setting again overwrites");
	tap_ok(strcmp(rep_summary_name(r, 0), "a") == 0 && rep_summary_value(r, 0) == 3,
	       "first-set order, latest value");
	tap_ok(isnan(rep_summary_get(r, "zzz")) && rep_summary_get(r, "b") == 2,
	       "get: NaN when unset");
	tap_ok(rep_series(r, "p", "W") == 0 && rep_series(r, "q", "W") == 0 &&
	       rep_series(r, "p", "W") == -1 && rep_series(r, "time_s", "s") == -1 &&
	       rep_series(r, "a/b", "") == -1, "series names: duplicates, time_s, '/' refused");
	tap_ok(rep_event_kind(r, "x", "") == 0 && rep_event_kind(r, "x", "") == -1 &&
	       rep_event_kind(r, "abcdefghijklmnopqrstuvwx", "") == -1,
	       "event kinds: a repeated or 24-byte kind is refused");
	tap_ok(rep_sample(r, 0, v, &e) == 0 && rep_event(r, 0, "x", 0, 0, &e) == 0,
	       "without a file samples and events are dropped");
	tap_ok(rep_series(r, "late", "W") == -1, "no series after the first sample");
	tap_ok(rep_event(r, 0, "y", 0, 0, &e) == -1 && strstr(e.msg, "not declared") != NULL,
	       "an undeclared event kind is refused: %s", e.msg);
	e = (struct err){0};
	tap_ok(rep_commit(r, &e) == 0, "commit without a file succeeds");
	rep_summary(r, "x/y", 1, "");
	tap_ok(rep_commit(r, &e) == -1 && strstr(e.msg, "x/y") != NULL,
	       "a bad summary name surfaces at commit: %s", e.msg);
	rep_free(r);
}

static char *capture(const struct report *r, void (*print)(const struct report *, FILE *))
{
	struct tap_capture c;

	print(r, tap_capture_start(&c));
	return tap_capture_end(&c);
}

static void test_printing(void)
{
	struct report *r = rep_new();
	char *s;

	rep_summary(r, "a", 0.1, "");
	rep_summary(r, "q\"b\\s\n\x01", 3, "");
	rep_summary(r, "nan", NAN, "");
	rep_summary(r, "inf", -INFINITY, "");
	rep_summary(r, "neg", -1.5, "");
	s = capture(r, rep_print_json);
	/* 0.1 to 17 significant digits is 0.10000000000000001 (IEEE 754). */
	tap_ok(strcmp(s, "{\"a\": 0.10000000000000001, \"q\\\"b\\\\s\\n\\u0001\": 3, "
			 "\"nan\": null, \"inf\": null, \"neg\": -1.5}\n") == 0,
	       "JSON: escapes, NaN/inf as null, %%.17g: %s", s);
	tap_ok(strtod("0.10000000000000001", NULL) == 0.1, "%%.17g round-trips 0.1");
	free(s);
	rep_free(r);

	r = rep_new();
	s = capture(r, rep_print_json);
	tap_ok(strcmp(s, "{}\n") == 0, "empty summary is {}");
	free(s);
	rep_summary(r, "duration_s", 1234567.0, "s");
	rep_summary(r, "mfu", 0.42, NULL);
	tap_ok(strcmp(rep_summary_unit(r, 0), "s") == 0 && strcmp(rep_summary_unit(r, 1), "") == 0 &&
	       rep_summary_unit(r, 2) == NULL, "units by index: \"s\", \"\" for none, NULL past the end");
	rep_free(r);
}

int main(void)
{
	const char *tmp = getenv("TMPDIR");

	/* Before any other HDF5 call: see h5out.h on HDF5's exit handler. */
	H5dont_atexit();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	snprintf(dir, sizeof dir, "%s/report-t.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_memory_only();
	test_printing();
	test_file();
	test_zero_length();
	test_no_file_left();
	test_write_failure();
	rmdir(dir);
	return tap_done();
}
