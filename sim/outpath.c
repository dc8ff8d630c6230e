/* outpath.c -- see outpath.h. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sim/cfg.h"
#include "sim/outpath.h"

/* When this process started (its /proc entry's change time), else now:
 * a temp file written since then may be a live one of ours. */
static time_t outp_process_start(void)
{
	struct stat st;

	if (stat("/proc/self", &st) == 0)
		return st.st_ctime;
	return time(NULL);
}

/* The target's directory ("." for a bare name) into dir[n]. */
static void outp_dir(const char *target, char *dir, size_t n)
{
	const char *slash = strrchr(target, '/');

	if (slash == NULL)
		snprintf(dir, n, ".");
	else if (slash == target)
		snprintf(dir, n, "/");
	else
		snprintf(dir, n, "%.*s", (int)(slash - target), target);
}

/* ".BASE.tmp." then six characters of mkstemp's alphabet. */
static int outp_is_our_tmp(const char *name, const char *base)
{
	size_t bl = strlen(base), nl = strlen(name);

	if (nl != 1 + bl + 5 + 6 || name[0] != '.' || strncmp(name + 1, base, bl) != 0 ||
	    strncmp(name + 1 + bl, ".tmp.", 5) != 0)
		return 0;
	for (const char *p = name + nl - 6; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9')))
			return 0;
	return 1;
}

static void outp_clean_stale(const char *dir, const char *base)
{
	time_t start = outp_process_start();
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[4096 + 512];
	struct stat st;

	if (d == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (!outp_is_our_tmp(de->d_name, base))
			continue;
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
		    st.st_uid == geteuid() && st.st_mtime < start)
			unlink(path);
	}
	closedir(d);
}

/* access() says yes to root anywhere, and a file system may still refuse
 * (/proc, a read-only mount): create and remove a temporary file of the
 * target's own pattern there, so the run's own create cannot fail later
 * (after the whole simulation) for the same reason. */
static int outp_try_create(const char *target, struct err *e)
{
	char probe[4096 + 16];
	int fd;

	if (snprintf(probe, sizeof probe, "%s", target) >= (int)sizeof probe - 12)
		return err_set(e, ERR_USAGE, "-o %s: path too long", target);
	char *slash = strrchr(probe, '/');
	char *base = slash ? slash + 1 : probe;
	size_t bl = strlen(target) - (size_t)(base - probe);
	memmove(base + 1, target + (base - probe), bl);
	base[0] = '.';
	memcpy(base + 1 + bl, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
	if ((fd = mkstemp(probe)) < 0)
		return err_set(e, ERR_USAGE, "-o %s: cannot create a file there: %s", target,
			       strerror(errno));
	close(fd);
	unlink(probe);
	return 0;
}

int outp_check(const char *target, const char *const *inputs, size_t n_inputs,
	       struct err *e)
{
	size_t len = strlen(target);
	char dir[4096];
	struct stat st, in;

	if (len == 0)
		return err_set(e, ERR_USAGE, "-o '': empty output path");
	if (target[len - 1] == '/')
		return err_set(e, ERR_USAGE, "-o %s: a directory (expected a file name)",
			       target);
	if (len >= sizeof dir)
		return err_set(e, ERR_USAGE, "-o %.40s...: path too long", target);
	if (lstat(target, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return err_set(e, ERR_USAGE, "-o %s: a directory (expected a "
				       "file name)", target);
		if (S_ISLNK(st.st_mode))
			return err_set(e, ERR_USAGE, "-o %s: a symbolic link (not "
				       "replaced; give the file it names)", target);
		if (!S_ISREG(st.st_mode))
			return err_set(e, ERR_USAGE, "-o %s: not a regular file (a device, "
				       "FIFO or socket is never replaced)", target);
		for (size_t i = 0; i < n_inputs; i++)
			if (stat(inputs[i], &in) == 0 && in.st_dev == st.st_dev &&
			    in.st_ino == st.st_ino)
				return err_set(e, ERR_USAGE, "-o %s: is an input (%s); "
					       "refusing to overwrite it", target,
					       inputs[i]);
	} else if (errno != ENOENT) {
		return err_set(e, ERR_USAGE, "-o %s: %s", target, strerror(errno));
	}
	outp_dir(target, dir, sizeof dir);
	if (stat(dir, &st) < 0)
		return err_set(e, ERR_USAGE, "-o %s: directory %s: %s", target, dir,
			       strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return err_set(e, ERR_USAGE, "-o %s: %s is not a directory", target, dir);
	if (access(dir, W_OK | X_OK) < 0)
		return err_set(e, ERR_USAGE, "-o %s: directory %s is not writable: %s",
			       target, dir, strerror(errno));
	if (outp_try_create(target, e) < 0)
		return -1;
	outp_clean_stale(dir, strrchr(target, '/') ? strrchr(target, '/') + 1 : target);
	return 0;
}

int outp_check_scenario(const char *target, const struct scenario *sc, struct err *e)
{
	char **in;
	size_t n = sc_input_files(sc, &in);
	int rc = outp_check(target, (const char *const *)in, n, e);

	for (size_t i = 0; i < n; i++)
		free(in[i]);
	free(in);
	return rc;
}
