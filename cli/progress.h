/*
 * progress.h -- a one-line progress display on stderr for work that takes
 * a while: what is done, wall time so far and the time left (ETA, from the
 * pace so far).  Shown only when stderr is a terminal, only once the work
 * has run PROGRESS_AFTER_S (short work stays silent), and at most ten
 * times a second, so it costs nothing in sweeps.
 *
 *   progress_init(&p, quiet);
 *   progress_count(&p, "replicas", done, n);   // or progress_update()
 *   progress_end(&p);                          // erases the line
 */
#ifndef CLI_PROGRESS_H
#define CLI_PROGRESS_H

#include <stdbool.h>
#include <stddef.h>

#define PROGRESS_AFTER_S 2.0

struct progress {
	bool on;
	double start_wall_s;
	double last_wall_s;
	bool drawn;
};

void progress_init(struct progress *p, bool quiet);
/* The run's callback (models/run.h): share of tokens done, simulated time. */
void progress_update(void *ctx, double done_frac, double sim_s);
/* done of total things (replicas, files) finished. */
void progress_count(struct progress *p, const char *what, size_t done, size_t total);
/* The same for replicas_run_with()'s callback (ctx a struct progress). */
void progress_replicas(void *ctx, int done, int total);
void progress_end(struct progress *p);

#endif
