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

/* Draw "TEXT  elapsed  ETA" when due; frac is the share done. */
static void progress_draw(struct progress *p, double frac, const char *text)
{
	double now, took_s;
	char eta[32] = "";

	if (!p->on)
		return;
	now = wall_s();
	took_s = now - p->start_wall_s;
	if (took_s < PROGRESS_AFTER_S || now - p->last_wall_s < 0.1)
		return;
	p->last_wall_s = now;
	p->drawn = true;
	/* Past 1% the pace so far predicts the rest well enough to say. */
	if (frac > 0.01 && frac < 1)
		snprintf(eta, sizeof eta, "  ETA %.0f s", took_s * (1 - frac) / frac);
	fprintf(stderr, "\r%s  %.0f s elapsed%-14s", text, took_s, eta);
	fflush(stderr);
}

void progress_update(void *ctx, double done_frac, double sim_s)
{
	char text[96];

	snprintf(text, sizeof text, "%5.1f%% of tokens  day %7.2f", 100.0 * done_frac,
		 sim_s / 86400.0);
	progress_draw(ctx, done_frac, text);
}

void progress_count(struct progress *p, const char *what, size_t done, size_t total)
{
	char text[96];

	snprintf(text, sizeof text, "%zu of %zu %s", done, total, what);
	progress_draw(p, total ? (double)done / total : 0, text);
}

void progress_replicas(void *ctx, int done, int total)
{
	progress_count(ctx, "replicas", (size_t)done, (size_t)total);
}

void progress_end(struct progress *p)
{
	if (p->on && p->drawn)
		fprintf(stderr, "\r%70s\r", "");
	p->drawn = false;
}
