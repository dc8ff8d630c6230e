/*
 * args.c -- numbers on the command line (args.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "models/run.h"
#include "cli/args.h"

int args_long(const char *who, const char *text, long lo, long hi,
	      const char *expect, long *v, struct err *e)
{
	char *end;

	errno = 0;
	*v = strtol(text, &end, 10);
	if (errno || end == text || *end || *v < lo || *v > hi)
		return err_set(e, ERR_USAGE, "%s %s: expected %s", who, text, expect);
	return 0;
}

int args_double(const char *who, const char *text, double lo, double hi,
		const char *expect, double *v, struct err *e)
{
	char *end;

	*v = strtod(text, &end);
	if (end == text || *end || !(*v > lo && *v <= hi) || !isfinite(*v))
		return err_set(e, ERR_USAGE, "%s %s: expected %s", who, text, expect);
	return 0;
}

struct cfg_schema *args_run_schema(struct err *e)
{
	struct cfg_schema *schema = run_schema_new();

	if (schema == NULL)
		err_set(e, ERR_RUN, "out of memory");
	return schema;
}
