/*
 * evq-hold-b.c -- the classic hold-model benchmark of the event queue.
 *
 * Fill the queue with N pending events, then repeat ROUNDS times: pop the
 * earliest event and push one at its time plus a random increment drawn from
 * an exponential distribution (mean 1e6 ns).  One pop plus one push is one
 * hold operation (Vaucher & Duval 1975; Jones 1986 "An empirical comparison
 * of priority-queue and event-set implementations", CACM 29(4)).
 *
 *   tests/bench/evq-hold-b [N [ROUNDS]]     defaults 1000000 20000000
 *
 * The increments come from GSL's mt19937 and gsl_ran_exponential, drawn
 * ahead into a 2^16-entry table that the loop walks cyclically: a log() per
 * draw would cost more than the queue operations being measured.  The table
 * loop alone is timed too and printed, so the queue's share is visible.
 * Popped times must never decrease; the bench fails (exit 1) if they do.
 * Both wall-clock and CPU-time rates are printed: on a shared machine the
 * wall clock also counts the turns of other processes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>

#include "sim/ev.h"
#include "sim/rng.h"
#include "bench.h"

#define HOLD_MEAN_NS 1e6
#define INC_TABLE (1u << 16)

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	long rounds = argc > 2 ? atol(argv[2]) : 20000000;
	int64_t *inc = malloc(INC_TABLE * sizeof *inc);
	gsl_rng *r = rng_stream(1, "evq-hold-b");
	struct evq *q = evq_new();

	if (n < 1 || rounds < 1 || inc == NULL || r == NULL || q == NULL) {
		fprintf(stderr, "evq-hold-b: bad arguments or out of memory\n");
		return 1;
	}
	for (unsigned i = 0; i < INC_TABLE; i++)
		inc[i] = (int64_t)gsl_ran_exponential(r, HOLD_MEAN_NS);
	for (long i = 0; i < n; i++)
		if (evq_push(q, (int64_t)gsl_ran_exponential(r, HOLD_MEAN_NS), 0,
			     (uint64_t)i) == 0) {
			fprintf(stderr, "evq-hold-b: push failed\n");
			return 1;
		}

	/* The same loop without the queue: what the harness itself costs. */
	double t0 = bench_now_s();
	volatile int64_t sink = 0;
	int64_t acc = 0;
	for (long i = 0; i < rounds; i++)
		acc += inc[(unsigned long)i & (INC_TABLE - 1)];
	sink = acc;
	double harness_s = bench_now_s() - t0;
	(void)sink;

	struct ev ev;
	int64_t last = INT64_MIN;
	uint64_t check = 0;
	t0 = bench_now_s();
	double c0 = bench_cpu_s();
	for (long i = 0; i < rounds; i++) {
		if (!evq_pop(q, &ev) || ev.time_ns < last) {
			fprintf(stderr, "evq-hold-b: queue order broken at round %ld\n", i);
			return 1;
		}
		last = ev.time_ns;
		check += ev.id;
		evq_push(q, ev.time_ns + inc[(unsigned long)i & (INC_TABLE - 1)],
			 ev.kind, ev.arg);
	}
	double hold_s = bench_now_s() - t0;
	double hold_cpu_s = bench_cpu_s() - c0;

	double hold_ops = (double)rounds / hold_s;
	printf("evq hold model: N=%ld pending, %ld rounds, mean increment %.0f ns\n",
	       n, rounds, HOLD_MEAN_NS);
	printf("  %.3f s: %.2f M hold ops/s (%.1f ns each), %.2f M queue ops/s\n",
	       hold_s, hold_ops / 1e6, 1e9 / hold_ops, 2 * hold_ops / 1e6);
	printf("  CPU time %.3f s: %.2f M hold ops/s (%.1f ns each) on the CPU\n",
	       hold_cpu_s, (double)rounds / hold_cpu_s / 1e6,
	       1e9 * hold_cpu_s / (double)rounds);
	printf("  harness alone %.3f s (%.2f ns per round)\n", harness_s,
	       1e9 * harness_s / (double)rounds);
	printf("  final time %.3f s, pending %zu, id checksum %" PRIu64 "\n",
	       (double)last / 1e9, evq_len(q), check);
	printf("  peak RSS %ld KiB\n", bench_peak_rss_kib());
	evq_free(q);
	gsl_rng_free(r);
	free(inc);
	return 0;
}
