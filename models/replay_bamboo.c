/*
 * replay_bamboo.c -- spot capacity from Bamboo's node events
 * (https://github.com/uclasystem/bamboo, traces/; Thorpe et al., "Bamboo:
 * Making Preemptible Instances Resilient for Affordable Training of Large
 * DNNs", NSDI'23), CSV without a header, '#' comments allowed:
 *
 *   TIME_MS,add|remove,NODE        e.g. 2040000,remove,node19
 *
 * The count at a time is the number of nodes added and not yet removed;
 * removing a node that is not there, adding one twice, or a time before the
 * previous line's is an error.  The trace lasts until its last event.
 */
#include <search.h>
#include <string.h>

#include "sim/csv.h"
#include "models/replay_int.h"
#include "models/trace.h"

/* The nodes in the group now: a tree (POSIX tsearch) of their names,
 * which point into the CSV text and live as long as it. */
struct live {
	void *root;
	size_t n;
};

static int name_cmp(const void *a, const void *b)
{
	return strcmp(a, b);
}

static int live_add(struct live *l, const struct csv *c, const char *node, struct err *e)
{
	if (tfind(node, &l->root, name_cmp) != NULL)
		return csv_error(c, e, "node %s added twice (expected a node not already in "
				 "the group)", node);
	if (tsearch(node, &l->root, name_cmp) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	l->n++;
	return 0;
}

static int live_remove(struct live *l, const struct csv *c, const char *node, struct err *e)
{
	if (tdelete(node, &l->root, name_cmp) == NULL)
		return csv_error(c, e, "unknown node %s removed (expected a node added "
				 "earlier)", node);
	l->n--;
	return 0;
}

static void live_free(struct live *l)
{
	while (l->root != NULL)	/* the root node's key is its first member */
		tdelete(*(const char *const *)l->root, &l->root, name_cmp);
}

/* One event line: the group changes at *last_s. */
static int event(const struct csv *c, struct live *nodes, double *last_s, struct err *e)
{
	double ms;

	if (c->n != 3 || csv_number(c->f[0], &ms) < 0 || ms < 0 || !*c->f[2])
		return csv_error(c, e, "malformed line (expected TIME_MS,add|remove,NODE with "
				 "TIME_MS >= 0)");
	if (ms / 1000.0 > TRACE_SPAN_MAX_S)
		return csv_error(c, e, "time %g ms is past %.0f s (expected times within "
				 "the %d..%d window of every trace)", ms, TRACE_SPAN_MAX_S,
				 TRACE_YEAR_MIN, TRACE_YEAR_MAX);
	if (ms / 1000.0 < *last_s)
		return csv_error(c, e, "time %g ms is before the previous line's (expected "
				 "times in order)", ms);
	*last_s = ms / 1000.0;
	if (strcmp(c->f[1], "add") == 0)
		return live_add(nodes, c, c->f[2], e);
	if (strcmp(c->f[1], "remove") == 0)
		return live_remove(nodes, c, c->f[2], e);
	return csv_error(c, e, "event \"%s\" (expected add or remove)", c->f[1]);
}

int replay_read_bamboo(const char *path, struct replay_cap *t, struct err *e)
{
	struct live nodes = { NULL, 0 };
	struct csv c;
	size_t cap = 0;
	double last_s = 0;
	int rc;

	if (csv_open(&c, path, CSV_COMMENTS, e) < 0)
		return -1;
	while (rc = csv_next(&c, e), rc > 0)
		if (event(&c, &nodes, &last_s, e) < 0 ||
		    (t->n == 0 && last_s > 0 && replay_cap_push(t, &cap, 0, 0, e) < 0) ||
		    replay_cap_push(t, &cap, last_s, (int)nodes.n, e) < 0) {
			rc = -1;
			break;
		}
	if (rc == 0 && t->n == 0)
		rc = csv_error(&c, e, "no events (expected TIME_MS,add|remove,NODE lines)");
	t->end_s = last_s;
	live_free(&nodes);
	csv_close(&c);
	return rc;
}
