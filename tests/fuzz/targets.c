/* targets.c -- see targets.h. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "sim/h5in.h"
#include "models/cjob.h"
#include "models/replay.h"
#include "models/run.h"
#include "models/swf.h"
#include "models/trace.h"
#include "tests/fuzz/targets.h"

static char fz_dir[PATH_MAX];
static struct cfg_schema *fz_schema;
static FILE *fz_null;

int fuzz_init(const char *srcdir)
{
	char cat[PATH_MAX + 64], cwd[PATH_MAX], abs[2 * PATH_MAX + 32];
	const char *tmp = getenv("TMPDIR");

	snprintf(fz_dir, sizeof fz_dir, "%s/trainsim-fuzz.XXXXXX", tmp ? tmp : "/tmp");
	if (mkdtemp(fz_dir) == NULL || getcwd(cwd, sizeof cwd) == NULL)
		return -1;
	snprintf(cat, sizeof cat, "%s/catalog", fz_dir);
	snprintf(abs, sizeof abs, "%s%s%s/scenarios/catalog", srcdir[0] == '/' ? "" : cwd,
		 srcdir[0] == '/' ? "" : "/", srcdir);
	if (symlink(abs, cat) < 0)
		return -1;
	fz_schema = run_schema_new();
	fz_null = fopen("/dev/null", "w");
	return fz_schema && fz_null ? 0 : -1;
}

void fuzz_fini(void)
{
	char p[PATH_MAX + 64];
	static const char *const names[] = { "catalog", "in.cfg", "in.json", "in.csv",
					     "in.swf", "in.h5" };

	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", fz_dir, names[i]);
		unlink(p);
	}
	rmdir(fz_dir);
	cfg_schema_free(fz_schema);
	if (fz_null)
		fclose(fz_null);
}

/* The input as the file NAME in the scratch directory; its path in out. */
static int fz_write(const char *name, const uint8_t *data, size_t n, char *out,
		    size_t cap)
{
	FILE *f;

	snprintf(out, cap, "%s/%s", fz_dir, name);
	if ((f = fopen(out, "wb")) == NULL)
		return -1;
	if (n && fwrite(data, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f) == 0 ? 0 : -1;
}

int fuzz_scenario(const uint8_t *data, size_t n)
{
	char path[PATH_MAX + 64], *text, *line, *save = NULL;
	const char *ov[16];
	size_t n_ov = 0;
	struct err e = { 0 };
	struct scenario *sc;

	if (fz_write("in.cfg", data, n, path, sizeof path) < 0 ||
	    (text = malloc(n + 1)) == NULL)
		return 0;
	memcpy(text, data, n);
	text[n] = '\0';
	for (line = strtok_r(text, "\n", &save); line && n_ov < 16;
	     line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "#@s ", 4) == 0)
			ov[n_ov++] = line + 4;
	sc = sc_load(fz_schema, path, ov, n_ov, &e);
	if (sc != NULL) {
		run_check(sc, NULL, fz_null, &e);
		sc_free(sc);
	}
	free(text);
	return 0;
}

int fuzz_trace(const uint8_t *data, size_t n)
{
	static const char *const qty_cols[] = { "", "direct", "lifecycle" };
	char path[PATH_MAX + 64];
	struct err e = { 0 };

	if (fz_write("in.json", data, n, path, sizeof path) == 0) {
		struct replay_cap cap = { 0 };
		if (replay_read_capacity(path, &cap, &e) == 0)
			replay_cap_free(&cap);
	}
	if (fz_write("in.csv", data, n, path, sizeof path) == 0) {
		struct fail_row *rows = NULL;
		size_t nr = 0;
		struct trace t;

		memset(&e, 0, sizeof e);
		if (replay_read_failures(path, 16, &rows, &nr, &e) == 0)
			free(rows);
		for (int q = TRACE_CARBON; q <= TRACE_SPOT; q++)
			for (size_t c = 0; c < sizeof qty_cols / sizeof qty_cols[0]; c++) {
				memset(&e, 0, sizeof e);
				memset(&t, 0, sizeof t);
				if (trace_load_csv(&t, path, (enum trace_qty)q, qty_cols[c], &e) == 0)
					trace_free(&t);
			}
		memset(&e, 0, sizeof e);
		memset(&t, 0, sizeof t);
		if (trace_load_aws_spot(&t, path, "p5.48xlarge", "", &e) == 0)
			trace_free(&t);
		struct cjobs js = { 0 };
		memset(&e, 0, sizeof e);
		swf_read_csv(path, 8, 0, &js, &e);
		cjobs_free(&js);
	}
	if (fz_write("in.swf", data, n, path, sizeof path) == 0) {
		struct cjobs js = { 0 };
		memset(&e, 0, sizeof e);
		swf_read(path, 8, 0, &js, &e);
		cjobs_free(&js);
	}
	return 0;
}

int fuzz_h5(const uint8_t *data, size_t n)
{
	char path[PATH_MAX + 64];
	struct err e = { 0 };
	struct h5in *f;

	if (fz_write("in.h5", data, n, path, sizeof path) < 0 ||
	    (f = h5in_open(path, &e)) == NULL)
		return 0;
	if (h5in_check_run(f, &e) == 0) {
		struct h5in_attrs a;
		char **names = NULL, *s;
		size_t nn = 0;

		if (h5in_float_attrs(f, "/summary", &a, &e) == 0)
			h5in_attrs_free(&a);
		if ((s = h5in_attr_str(f, "/", "overrides", &e)) != NULL)
			free(s);
		if (h5in_members(f, "/timeseries", &names, &nn, &e) == 0) {
			for (size_t i = 0; i < nn; i++) {
				char p[600];
				double *v;
				char **sv;
				size_t len;

				snprintf(p, sizeof p, "/timeseries/%s", names[i]);
				if (h5in_is_strings(f, p)) {
					if (h5in_read_strs(f, p, &sv, &len, &e) == 0)
						h5in_names_free(sv, len);
				} else if (h5in_read_f64(f, p, &v, &len, &e) == 0) {
					free(v);
				}
			}
			h5in_names_free(names, nn);
		}
		struct h5in_event *ev;
		if (h5in_read_events(f, &ev, &nn, &e) == 0)
			free(ev);
	}
	h5in_close(f);
	return 0;
}
