/*
 * replay_fail.c -- hardware failure traces (replay_read_failures): trainsim's
 * own CSV, '#' comments and an optional header line allowed, e.g.
 * scenarios/traces/failures-example.csv:
 *
 *   time_s,node,kind               e.g. 86400,17,gpu
 *
 * time_s >= 0 in order, node an integer from 0 to nodes - 1, kind one of
 * gpu, node, nic, software (fail_kind_names).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/csv.h"
#include "models/replay.h"
#include "models/trace.h"

/* The header line: its first field is not a time and its second is "node". */
static int is_header(const struct csv *c)
{
	double t_s;

	return c->n == 3 && csv_number(c->f[0], &t_s) < 0 && strcmp(c->f[1], "node") == 0;
}

static int fail_row(const struct csv *c, int nodes, double last_s, struct fail_row *r,
		    struct err *e)
{
	double t_s, node;
	int kind = -1;

	if (c->n != 3 || csv_number(c->f[0], &t_s) < 0 || t_s < 0 ||
	    csv_number(c->f[1], &node) < 0 || node != floor(node))
		return csv_error(c, e, "malformed line (expected time_s,node,kind with time_s "
				 ">= 0 and an integer node)");
	if (t_s > TRACE_SPAN_MAX_S)
		return csv_error(c, e, "time %g s is past %.0f s (expected times within "
				 "the %d..%d window of every trace)", t_s, TRACE_SPAN_MAX_S,
				 TRACE_YEAR_MIN, TRACE_YEAR_MAX);
	if (t_s < last_s)
		return csv_error(c, e, "time %g s is before the previous line's (expected "
				 "times in order)", t_s);
	if (node < 0 || node >= nodes)
		return csv_error(c, e, "unknown node %g (expected 0 to %d)", node, nodes - 1);
	for (int k = 0; k < FK_COUNT; k++)
		if (strcmp(c->f[2], fail_kind_names[k]) == 0)
			kind = k;
	if (kind < 0)
		return csv_error(c, e, "failure kind \"%s\" (expected gpu, node, nic or "
				 "software)", c->f[2]);
	*r = (struct fail_row){ t_s, (int)node, kind };
	return 0;
}

int replay_read_failures(const char *path, int nodes, struct fail_row **rows,
			size_t *n, struct err *e)
{
	struct csv c;
	size_t cap = 0;
	double last_s = 0;
	int rc, first = 1;

	*rows = NULL;
	*n = 0;
	if (csv_open(&c, path, CSV_COMMENTS, e) < 0)
		return -1;
	while (rc = csv_next(&c, e), rc > 0) {
		if (first && is_header(&c)) {
			first = 0;
			continue;
		}
		first = 0;
		if (*n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			struct fail_row *nr = realloc(*rows, nc * sizeof *nr);

			if (nr == NULL) {
				rc = err_set(e, ERR_RUN, "out of memory");
				break;
			}
			*rows = nr;
			cap = nc;
		}
		if (fail_row(&c, nodes, last_s, &(*rows)[*n], e) < 0) {
			rc = -1;
			break;
		}
		last_s = (*rows)[(*n)++].t_s;
	}
	if (rc == 0 && *n == 0)	/* none: the rates were meant, or another file */
		rc = csv_error(&c, e, "no failures (expected time_s,node,kind rows; for no "
			       "failures leave failures.trace empty and the rates 0)");
	csv_close(&c);
	if (rc < 0) {
		free(*rows);
		*rows = NULL;
		*n = 0;
	}
	return rc;
}
