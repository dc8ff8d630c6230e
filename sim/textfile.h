/*
 * textfile.h -- a whole text file in memory: the one file reader under the
 * CSV and JSON readers (csv.h, jsonfile.h) and the scenario loader's scan of
 * integer literals.
 *
 *   size_t len;
 *   char *text = textfile_read("trace.csv", &len, &e);   // NUL-terminated
 *   if (text == NULL) ... e.msg: "trace.csv: cannot read: No such file ..."
 *   free(text);
 *
 * A NUL byte is refused with its line ("FILE:LINE: a NUL byte ..."): it
 * would cut the text short for every string function after it, and it
 * means binary data or UTF-16, not the text a trace is.  Both errors are
 * ERR_USAGE: the file is the user's input.  A UTF-8 byte-order mark at the
 * start is dropped (spreadsheets write one before the first header).
 */
#ifndef SIM_TEXTFILE_H
#define SIM_TEXTFILE_H

#include <stddef.h>

#include "sim/err.h"

/* The file's bytes and a NUL after them (*len, if not NULL, excludes it). */
char *textfile_read(const char *path, size_t *len, struct err *e);

/* Line (from 1) of byte offset `at` in text. */
long textfile_line(const char *text, size_t at);

#endif
