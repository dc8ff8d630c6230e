/*
 * replay.h -- traces the run model replays: spot capacity and hardware failures.
 *
 * Capacity traces become a step function: avail[i] nodes are available
 * from t_s[i] until t_s[i+1] (or until end_s, where a replay may wrap to
 * the start).  Only change points are kept, so replaying a 13-day trace at
 * 32-second ticks costs one event per change, not per tick.
 *
 * The readers, each with its format and source in its header comment:
 *   replay_sky.c      spot capacity, skypilot-org/spot-traces JSON
 *   replay_bamboo.c   spot capacity, Bamboo node events CSV
 *   replay_fail.c     hardware failures, trainsim's CSV (time_s,node,kind)
 * Every reader checks its input: malformed lines, times that go backwards,
 * unknown nodes or kinds are errors (ERR_USAGE) that say where: FILE:LINE
 * in CSV, FILE and the value's path in JSON ("FILE: data[3]: ...").
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
