/* textfile.c -- see textfile.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/infile.h"
#include "sim/textfile.h"

#define TEXTFILE_CHUNK_BYTES 65536

long textfile_line(const char *text, size_t at)
{
	long line = 1;

	for (size_t i = 0; i < at; i++)
		line += text[i] == '\n';
	return line;
}

static char *read_all(FILE *f, size_t *len)
{
	char *buf = NULL;
	size_t n = 0, cap = 0, got;

	do {
		if (cap - n < TEXTFILE_CHUNK_BYTES) {
			size_t nc = cap ? 2 * cap : TEXTFILE_CHUNK_BYTES + 1;
			char *nb = realloc(buf, nc);

			if (nb == NULL) {
				free(buf);
				errno = ENOMEM;
				return NULL;
			}
			buf = nb;
			cap = nc;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
	} while (got > 0);
	if (ferror(f)) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

char *textfile_read(const char *path, size_t *len, struct err *e)
{
	FILE *f = infile_check(path, e) < 0 ? NULL : fopen(path, "rb");
	char *text;
	size_t n = 0, first_nul;

	if (f == NULL && e->status)
		return NULL;
	if (f == NULL) {
		err_set(e, ERR_USAGE, "%s: cannot read: %s", path, strerror(errno));
		return NULL;
	}
	text = read_all(f, &n);
	if (text == NULL) {
		err_set(e, errno == ENOMEM ? ERR_RUN : ERR_USAGE, "%s: cannot read: %s", path,
			strerror(errno));
		fclose(f);
		return NULL;
	}
	fclose(f);
	first_nul = strlen(text);
	if (first_nul != n) {
		err_set(e, ERR_USAGE, "%s:%ld: a NUL byte (expected text: is it binary or "
			"UTF-16?)", path, textfile_line(text, first_nul));
		free(text);
		return NULL;
	}
	/* A UTF-8 byte-order mark (spreadsheets write one) is no part of
	 * the first field or key. */
	if (n >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0) {
		memmove(text, text + 3, n - 2);	/* and its NUL */
		n -= 3;
	}
	if (len)
		*len = n;
	return text;
}
