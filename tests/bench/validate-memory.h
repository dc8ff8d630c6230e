/*
 * validate-memory.h -- `make validate`'s MEMORY table (validate-memory.c):
 * the memory model's peak per GPU against what PyTorch measured.
 *
 * DIR/memory.tsv has a row per measured run: its scenario, the GPU it ran
 * on, and two figures the run logged from its last rank (the last pipeline
 * stage): torch.cuda.memory_allocated between steps (the model's states
 * and the buffers that outlive a step) and max_memory_allocated (the peak
 * of the tensors PyTorch allocated; not the caching allocator's reserve
 * nor the CUDA context).  Each is set against memory.h's breakdown of that
 * stage: weights + gradients + optimizer, and that plus the activations;
 * the framework reserve (parallel.memory_reserve_gb) is what trainsim adds
 * for the rest, so "covered" says whether the peak trainsim admits a job
 * at, reserve included, is at least the measured one.
 */
#ifndef TESTS_BENCH_VALIDATE_MEMORY_H
#define TESTS_BENCH_VALIDATE_MEMORY_H

#include "sim/cfg.h"

/* What the table found: rows run, the peak's mean and largest |error| in
 * percent, and how many rows the reserve-included peak covers. */
struct memory_summary {
	int rows, covered;
	double peak_mean, peak_max;
};

/* Print the table.  0, or 1 when the file or a row could not be read or
 * run. */
int validate_memory(const struct cfg_schema *schema, const char *dir,
		    struct memory_summary *out);

#endif
