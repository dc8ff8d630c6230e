/*
 * err.h -- errors that travel up with their context.
 *
 * A function that can fail takes a `struct err *` and returns -1 (or NULL)
 * after filling it; the caller adds nothing or passes it up.  Only main()
 * prints the message and exits, with the status the error carries:
 *
 *   ERR_USAGE (2)  bad command line, bad scenario, bad trace, bad override
 *   ERR_RUN   (1)  anything else (I/O, out of memory, HDF5)
 *
 * Scenario errors read "FILE:LINE: KEY: what is wrong (expected ...)"; the
 * scenario loader (cfg.h) builds those, err.h only holds the text.
 */
#ifndef SIM_ERR_H
#define SIM_ERR_H

#include <stdarg.h>

enum { ERR_OK = 0, ERR_RUN = 1, ERR_USAGE = 2 };

struct err {
	int status;		/* ERR_OK until something fails */
	char msg[1024];
};

/* Fill e (first error wins) and return -1, so `return err_set(...)` reads well. */
int err_set(struct err *e, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int err_vset(struct err *e, int status, const char *fmt, va_list ap);

/* Put "what: " in front of an existing message (adding outer context). */
void err_prefix(struct err *e, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#endif
