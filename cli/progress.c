/* progress.c -- see progress.h. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "cli/progress.h"

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void progress_init(struct progress *p, bool quiet)
{
	p->on = !quiet && isatty(STDERR_FILENO);
	p->start_wall_s = p->last_wall_s = wall_s();
	p->drawn = false;
}

void progress_update(void *ctx, double done_frac, double sim_s)
{
	struct progress *p = ctx;
	double now;

	if (!p->on)
		return;
	now = wall_s();
	if (now - p->last_wall_s < 0.1)
		return;
	p->last_wall_s = now;
	p->drawn = true;
	fprintf(stderr, "\r%5.1f%% of tokens  day %7.2f  %6.1f s elapsed ",
		100.0 * done_frac, sim_s / 86400.0, now - p->start_wall_s);
	fflush(stderr);
}

void progress_end(struct progress *p)
{
	if (p->on && p->drawn)
		fprintf(stderr, "\r%60s\r", "");
}
