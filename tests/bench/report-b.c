/*
 * report-b.c -- cost of streaming time series to HDF5: 10^6 samples of 20
 * series (the size of a long run sampled every minute, ~2 years), timed,
 * with the peak RSS after 10^5 and after 10^6 rows: the two should match,
 * since memory holds one chunk per column, not the rows.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/report.h"
#include "bench.h"

#define NSERIES 20
#define NROWS 1000000
/* One day of one-minute samples: the daily wave's period, in rows. */
#define ROWS_PER_DAY 1440.0
#define TWO_PI 6.283185307179586

int main(void)
{
	const char *tmp = getenv("TMPDIR");
	char path[512], name[32];
	struct report *r = rep_new();
	struct err e = {0};
	double v[NSERIES], t0, t1;
	long rss_1e5 = 0;
	struct stat st;

	snprintf(path, sizeof path, "%s/report-b.%ld.h5", tmp && *tmp ? tmp : "/tmp",
		 (long)getpid());
	for (int s = 0; s < NSERIES; s++) {
		snprintf(name, sizeof name, "series_%02d", s);
		rep_series(r, name, "W");
	}
	t0 = bench_now_s();
	if (rep_open(r, path, &e) < 0)
		goto fail;
	for (long i = 0; i < NROWS; i++) {
		/* Smooth, realistic-looking values: a slow ramp plus a daily wave. */
		for (int s = 0; s < NSERIES; s++)
			v[s] = 1e6 * (s + 1) + 0.37 * i + 1e4 * sin(TWO_PI * i / ROWS_PER_DAY);
		if (rep_sample(r, 60.0 * i, v, &e) < 0)
			goto fail;
		if (i == 100000)
			rss_1e5 = bench_peak_rss_kib();
	}
	rep_summary(r, "duration_s", 60.0 * NROWS, "s");
	if (rep_commit(r, &e) < 0)
		goto fail;
	t1 = bench_now_s();
	stat(path, &st);
	printf("report: %d rows x %d series + time_s: %.2f s (%.1f M values/s), "
	       "file %.1f MiB (raw %.1f MiB), peak RSS %ld KiB at 1e5 rows, %ld KiB at 1e6\n",
	       NROWS, NSERIES, t1 - t0, NROWS * (NSERIES + 1) / (t1 - t0) / 1e6,
	       st.st_size / 1048576.0, NROWS * (NSERIES + 1) * 8 / 1048576.0, rss_1e5,
	       bench_peak_rss_kib());
	unlink(path);
	rep_free(r);
	return 0;
fail:
	fprintf(stderr, "report-b: %s\n", e.msg);
	rep_free(r);
	return 1;
}
