/*
 * replay_sky.c -- spot capacity traces of skypilot-org/spot-traces
 * (https://github.com/skypilot-org/spot-traces; Wu et al., "Can't Be Late:
 * Optimizing Spot Instance Savings under Deadlines", NSDI'24):
 *
 *   {"metadata": {"gap_seconds": 300, ...}, "data": [16, 16, 12, ...], ...}
 *
 * data[i] nodes are available for tick i, from i x gap_seconds for
 * gap_seconds; the trace lasts ticks x gap_seconds.  gap_seconds is a
 * positive number and each count an integer from 0 to 10^7, as JSON
 * numbers (a count written "16", or 16.0, is refused); other keys are
 * ignored.  A value is named in messages by its path: "FILE: data[3]: ...".
 */
#include <stdio.h>
#include <stdlib.h>

#include "sim/jsonfile.h"
#include "models/replay_int.h"
#include "models/trace.h"

#define SKY_FORMAT "(expected skypilot JSON {\"metadata\": {\"gap_seconds\": N}, " \
	"\"data\": [counts]})"
#define SKY_MAX_COUNT 10000000	/* a sanity bound: no spot group has 10^7 nodes */

static int gap(const char *path, json_t *doc, double *gap_s, struct err *e)
{
	json_t *meta = json_object_get(doc, "metadata");
	json_t *g = json_object_get(meta, "gap_seconds");

	if (g == NULL)
		return err_set(e, ERR_USAGE, "%s: no metadata.gap_seconds " SKY_FORMAT, path);
	*gap_s = json_number_value(g);
	if (!json_is_number(g) || !(*gap_s > 0))
		return err_set(e, ERR_USAGE, "%s: metadata.gap_seconds: must be a positive "
			       "number " SKY_FORMAT, path);
	if (*gap_s > TRACE_SPAN_MAX_S)
		return err_set(e, ERR_USAGE, "%s: metadata.gap_seconds: %g s is past %.0f s "
			       "(the %d..%d window of every trace)", path, *gap_s,
			       TRACE_SPAN_MAX_S, TRACE_YEAR_MIN, TRACE_YEAR_MAX);
	return 0;
}

/* Why v is not a count, into why (empty when it is one). */
static void count_check(json_t *v, char *why, size_t len)
{
	static const char *const type[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string", [JSON_INTEGER] = "an integer",
		[JSON_REAL] = "a real number", [JSON_TRUE] = "true",
		[JSON_FALSE] = "false", [JSON_NULL] = "null",
	};
	json_int_t n = json_integer_value(v);

	why[0] = '\0';
	if (json_is_real(v))
		snprintf(why, len, "%.17g written as a real number", json_real_value(v));
	else if (!json_is_integer(v))
		snprintf(why, len, "%s, not a number", type[json_typeof(v)]);
	else if (n < 0 || n > SKY_MAX_COUNT)
		snprintf(why, len, "%lld is out of range", (long long)n);
}

static int counts(const char *path, json_t *data, double gap_s, struct replay_cap *t,
		  struct err *e)
{
	size_t cap = 0, i;
	json_t *v;
	char why[64];

	json_array_foreach(data, i, v) {
		count_check(v, why, sizeof why);
		if (why[0])
			return err_set(e, ERR_USAGE, "%s: data[%zu]: %s (expected a count of "
				       "nodes, an integer from 0 to %d)", path, i, why,
				       SKY_MAX_COUNT);
		if (replay_cap_push(t, &cap, (double)i * gap_s, (int)json_integer_value(v),
				    e) < 0)
			return -1;
	}
	t->end_s = (double)json_array_size(data) * gap_s;
	if (t->end_s > TRACE_SPAN_MAX_S)
		return err_set(e, ERR_USAGE, "%s: %zu ticks of %g s span %g s, past %.0f s "
			       "(the %d..%d window of every trace)", path,
			       json_array_size(data), gap_s, t->end_s, TRACE_SPAN_MAX_S,
			       TRACE_YEAR_MIN, TRACE_YEAR_MAX);
	return 0;
}

int replay_read_skypilot(const char *path, struct replay_cap *t, struct err *e)
{
	json_t *doc = jsonfile_load(path, e), *data;
	double gap_s = 0;
	int rc = -1;

	if (doc == NULL)
		return -1;
	data = json_object_get(doc, "data");
	if (!json_is_object(doc))
		err_set(e, ERR_USAGE, "%s: an array at the top " SKY_FORMAT, path);
	else if (!json_is_array(data) || json_array_size(data) == 0)
		err_set(e, ERR_USAGE, "%s: no data " SKY_FORMAT, path);
	else if (gap(path, doc, &gap_s, e) == 0)
		rc = counts(path, data, gap_s, t, e);
	json_decref(doc);
	return rc;
}
