/*
 * infile.h -- may an input file (a scenario, a trace) be read?  Under the
 * one file reader (textfile.h) and the SWF reader.
 *
 *   if (infile_check(path, e) < 0)     // "PATH: not a regular file ..."
 *           return -1;
 *   FILE *f = fopen(path, "r");        // the reader's own open and errors
 *
 * A path that exists must be a regular file (a FIFO would block, a device
 * such as /dev/zero never ends) of at most INFILE_MAX_BYTES; a directory
 * reads "PATH: cannot read: Is a directory", as fopen's callers said.  A path that
 * cannot be stat'ed passes, so the reader's fopen names the real cause.
 * Called before fopen, so it never blocks on a FIFO.
 */
#ifndef SIM_INFILE_H
#define SIM_INFILE_H

#include "sim/err.h"

/* 256 MiB: the largest trace shipped is under 1 MiB; a year of one-second
 * samples as CSV is about 40 MB. */
#define INFILE_MAX_BYTES (256ll << 20)

int infile_check(const char *path, struct err *e);

#endif
