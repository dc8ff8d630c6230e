/*
 * progress.h -- a one-line progress display on stderr: share of tokens done,
 * simulated day, wall time.  Shown only when stderr is a terminal, and at
 * most ten times a second, so it costs nothing in sweeps.
 */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <stdbool.h>

struct progress {
	bool on;
	double start_wall_s;
	double last_wall_s;
	bool drawn;
};

void progress_init(struct progress *p, bool quiet);
void progress_update(void *ctx, double done_frac, double sim_s);
void progress_end(struct progress *p);

#endif
