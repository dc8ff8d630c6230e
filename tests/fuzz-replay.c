/*
 * fuzz-replay.c -- every file of tests/fuzz-regress/TARGET/ through the
 * fuzz target of that name (tests/fuzz/targets.h) on the normal build:
 * the inputs the fuzzers found once crashed, hung or leaked trainsim, and
 * must now simply come back.  One TAP check per file ("returns"); under
 * valgrind or the sanitizers (CI) a regression is a crash or a report.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "tests/fuzz/targets.h"

static const struct {
	const char *dir;
	int (*fn)(const uint8_t *, size_t);
} targets[] = {
	{ "scenario", fuzz_scenario },
	{ "trace", fuzz_trace },
	{ "h5", fuzz_h5 },
};

static uint8_t *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long len;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)len + 1)) != NULL &&
	    fread(buf, 1, (size_t)len, f) != (size_t)len) {
		free(buf);
		buf = NULL;
	}
	*n = buf ? (size_t)len : 0;
	fclose(f);
	return buf;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	const char *src = getenv("SRCDIR");
	char *files[3][256];
	size_t nf[3] = { 0 }, total = 0;

	src = src ? src : ".";
	for (int t = 0; t < 3; t++) {
		char dir[4096];
		DIR *d;
		struct dirent *de;

		snprintf(dir, sizeof dir, "%s/tests/fuzz-regress/%s", src, targets[t].dir);
		if ((d = opendir(dir)) == NULL)
			continue;
		while ((de = readdir(d)) != NULL && nf[t] < 256) {
			char *p;
			if (de->d_name[0] == '.' || (p = malloc(strlen(dir) + strlen(de->d_name) + 2)) == NULL)
				continue;
			sprintf(p, "%s/%s", dir, de->d_name);
			files[t][nf[t]++] = p;
		}
		closedir(d);
		qsort(files[t], nf[t], sizeof files[t][0], by_name);
		total += nf[t];
	}
	tap_plan((int)total + 1);
	tap_ok(fuzz_init(src) == 0, "a scratch directory with the catalog");
	for (int t = 0; t < 3; t++)
		for (size_t i = 0; i < nf[t]; i++) {
			size_t n;
			uint8_t *data = read_all(files[t][i], &n);

			tap_ok(data != NULL && targets[t].fn(data, n) == 0, "%s: %s returns",
			   targets[t].dir, strrchr(files[t][i], '/') + 1);
			free(data);
			free(files[t][i]);
		}
	fuzz_fini();
	return tap_done();
}
