/*
 * args.h -- numbers on the command line, read the one way every command
 * reads them: the whole argument, in range, or a usage error that names the
 * command, the option and what was expected.
 */
#ifndef CLI_ARGS_H
#define CLI_ARGS_H

#include "sim/err.h"

/* TEXT as a whole decimal integer from LO to HI into *V; otherwise ERR_USAGE
 * "WHO TEXT: expected EXPECT" (WHO is e.g. "plan: --top"). */
int args_long(const char *who, const char *text, long lo, long hi,
	      const char *expect, long *v, struct err *e);

/* TEXT as a whole finite number above LO (and at most HI) into *V; otherwise
 * the same error. */
int args_double(const char *who, const char *text, double lo, double hi,
		const char *expect, double *v, struct err *e);

/* The run schema, or ERR_RUN "out of memory". */
struct cfg_schema *args_run_schema(struct err *e);

#endif
