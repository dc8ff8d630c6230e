/*
 * path.c -- looking for a scenario's files in the scenario's directory,
 * $TRAINSIM_PATH and the installed data (path.h).
 *
 * "Exists" is a stat() that succeeds: whether the thing found can be read
 * (a regular, readable text file) is the caller's check, so that an
 * unreadable catalog is reported as such instead of skipped for a stale
 * copy further down the path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/path.h"

#ifndef TRAINSIM_DATADIR
#define TRAINSIM_DATADIR "/usr/local/share/trainsim"
#endif

const char *path_datadir(void)
{
	return TRAINSIM_DATADIR "/scenarios";
}

void path_dir(const char *file, char *out, size_t cap)
{
	const char *slash = strrchr(file, '/');

	if (slash == NULL)
		snprintf(out, cap, ".");
	else
		snprintf(out, cap, "%.*s", slash == file ? 1 : (int)(slash - file),
			 file);
}

/* Does dir/rel (rel alone for ".") exist?  The path in out either way. */
static int try_dir(const char *dir, size_t dlen, const char *rel, char *out,
		   size_t cap)
{
	struct stat st;
	int n;

	if (dlen == 1 && dir[0] == '.')
		n = snprintf(out, cap, "%s", rel);
	else if (dir[dlen - 1] == '/')
		n = snprintf(out, cap, "%.*s%s", (int)dlen, dir, rel);
	else
		n = snprintf(out, cap, "%.*s/%s", (int)dlen, dir, rel);
	return n >= 0 && (size_t)n < cap && stat(out, &st) == 0;
}

/* "DIR/" for the list of places; "./" for the current directory. */
static void tried_dir(char *tried, size_t cap, const char *dir)
{
	size_t k = strlen(tried);
	size_t dl = strlen(dir);

	snprintf(tried + k, cap - k, "%s%s%s", k ? ", " : "", dir,
		 dl && dir[dl - 1] == '/' ? "" : "/");
}

int path_find(const char *dir_from, const char *dir_scen, const char *rel,
	      char *out, size_t cap, char *tried, size_t tried_cap)
{
	const char *env = getenv("TRAINSIM_PATH");
	const char *from = dir_from ? dir_from : ".";
	const char *scen = dir_scen ? dir_scen : ".";
	size_t k;

	tried[0] = '\0';
	if (rel[0] == '/') {
		struct stat st;
		int n = snprintf(out, cap, "%s", rel);
		snprintf(tried, tried_cap, "(an absolute path)");
		return n >= 0 && (size_t)n < cap && stat(out, &st) == 0 ? 0 : -1;
	}
	if (try_dir(from, strlen(from), rel, out, cap))
		return 0;
	tried_dir(tried, tried_cap, from);
	if (strcmp(scen, from) != 0) {
		if (try_dir(scen, strlen(scen), rel, out, cap))
			return 0;
		tried_dir(tried, tried_cap, scen);
	}
	for (const char *p = env; p != NULL && *p; p += *p == ':') {
		const char *end = strchr(p, ':');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len > 0 && try_dir(p, len, rel, out, cap))
			return 0;
		p += len;
	}
	k = strlen(tried);
	snprintf(tried + k, tried_cap - k, ", $TRAINSIM_PATH (%s)",
		 env && *env ? env : "not set");
	if (try_dir(path_datadir(), strlen(path_datadir()), rel, out, cap))
		return 0;
	k = strlen(tried);
	snprintf(tried + k, tried_cap - k, ", %s", path_datadir());
	return -1;
}
