/*
 * bench.h -- clocks and memory for the benchmarks in tests/bench (run by
 * `make bench`, never by make check): wall time, this process's CPU time
 * (on a shared machine wall time counts others' turns too) and peak RSS.
 */
#ifndef TESTS_BENCH_H
#define TESTS_BENCH_H

#include <sys/resource.h>
#include <time.h>

static inline double bench_clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static inline double bench_now_s(void)
{
	return bench_clock_s(CLOCK_MONOTONIC);
}

static inline double bench_cpu_s(void)
{
	return bench_clock_s(CLOCK_PROCESS_CPUTIME_ID);
}

static inline long bench_peak_rss_kib(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss;
}

#endif
