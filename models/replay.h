/*
 * replay.h -- traces the run model replays: spot capacity and hardware failures.
 *
 * Capacity traces become a step function: avail[i] nodes are available
 * from t_s[i] until t_s[i+1] (or until end_s, where a replay may wrap to
 * the start).  Only change points are kept, so replaying a 13-day trace at
 * 32-second ticks costs one event per change, not per tick.  Accepted:
 *
 *   skypilot-org/spot-traces JSON (NSDI'24 "Can't Be Late"):
 *       {"metadata": {"gap_seconds": 300}, "data": [16, 16, 12, ...]}
 *     tick i lasts from i x gap_seconds; end_s = ticks x gap_seconds.
 *   Bamboo event CSV (uclasystem/bamboo, NSDI'23):
 *       TIME_MS,add|remove,NODE        e.g. 2040000,remove,node19
 *     the count is the number of nodes added and not yet removed; removing
 *     a node that is not there, or adding one twice, is an error;
 *     end_s = the last time.
 *
 * Failure traces (CSV, '#' comments and an optional header line):
 *       time_s,node,kind               e.g. 86400,17,gpu
 *   kind is gpu, node, nic or software; node counts from 0.
 *
 * Every reader checks its input: malformed lines, times that go backwards,
 * unknown nodes or kinds are "FILE:LINE: message" errors (ERR_USAGE).
 */
#ifndef MODELS_REPLAY_H
#define MODELS_REPLAY_H

#include <stddef.h>

#include "sim/err.h"

struct replay_cap {
	size_t n;
	double *t_s;		/* ascending, t_s[0] = 0 */
	int *avail;		/* nodes available from t_s[i] */
	double end_s;		/* length of the trace (> t_s[n-1] or equal) */
	int max_avail;
};

enum fail_kind { FK_GPU, FK_NODE, FK_NIC, FK_SOFTWARE, FK_COUNT };
extern const char *const fail_kind_names[FK_COUNT];

struct fail_row {
	double t_s;
	int node;
	int kind;		/* enum fail_kind */
};

/* Read by the file's extension: .json (skypilot) or .csv (Bamboo). */
int replay_read_capacity(const char *path, struct replay_cap *t, struct err *e);
void replay_cap_free(struct replay_cap *t);
/* Nodes available at t_s (wrapping at end_s when loop is set). */
int replay_cap_at(const struct replay_cap *t, double t_s, int loop);

int replay_read_failures(const char *path, int nodes, struct fail_row **rows,
			size_t *n, struct err *e);

#endif
