/* infile.c -- see infile.h. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "sim/infile.h"

int infile_check(const char *path, struct err *e)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode))
		return err_set(e, ERR_USAGE, "%s: cannot read: %s", path, strerror(EISDIR));
	if (!S_ISREG(st.st_mode))
		return err_set(e, ERR_USAGE, "%s: not a regular file (a directory, "
			       "device or FIFO is never read)", path);
	if ((long long)st.st_size > INFILE_MAX_BYTES)
		return err_set(e, ERR_USAGE, "%s: %lld bytes (expected at most %lld, "
			       "the limit for an input file)", path,
			       (long long)st.st_size, INFILE_MAX_BYTES);
	return 0;
}
