/*
 * validate-layer.h -- `make validate`'s LAYER table (validate-layer.c): one
 * MoE layer timed alone against Megatron-LM's own measurements of it.
 *
 * DIR/moe-layer.tsv has a row per measured case: its scenario (the proxy
 * model), the dispatcher and precision to run it with, and the published
 * forward and backward milliseconds.  Each is predicted by step_moe_layer()
 * (models/step.h) and printed with its errors, forward and backward, then
 * the mean and largest |error| per precision (returned too, for the last
 * lines validate.c prints for tests/step-validate.sh).
 */
#ifndef TESTS_BENCH_VALIDATE_LAYER_H
#define TESTS_BENCH_VALIDATE_LAYER_H

#include <stddef.h>

#include "sim/cfg.h"

/* What the table found: rows run, and per precision the passes
 * (forward and backward of each row) with their mean and largest |error|,
 * in percent. */
struct layer_summary {
	int rows;
	int bf16_n, fp8_n;
	double bf16_mean, bf16_max, fp8_mean, fp8_max;
};

/* Print the table; ov (n_ov) are `-s` overrides for every row.  0, or 1
 * when the file or a row could not be read or run. */
int validate_layer(const struct cfg_schema *schema, const char *dir,
		   const char *const *ov, size_t n_ov, struct layer_summary *out);

#endif
