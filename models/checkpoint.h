/*
 * checkpoint.h -- first checkpoint model: periodic, synchronous (training
 * stalls while the checkpoint is written), at iteration boundaries.
 *
 * Size = parameters x bytes_per_param.  The default 14 bytes per parameter
 * is fp16 weights (2) + fp32 master weights (4) + Adam momentum and variance
 * (4 + 4), gradients excluded; BLOOM-176B's 2.3 TB checkpoint is 13 B/param
 * (shared/reference/reliability.md section 5.1).  Write and load times are
 * size / aggregate storage bandwidth.
 */
#ifndef MODELS_CHECKPOINT_H
#define MODELS_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/cfg.h"

struct ckpt {
	bool enabled;
	double interval_s;	/* requested time between checkpoints */
	int64_t interval_iters;	/* the same, in whole iterations (>= 1) */
	double size_bytes;
	double write_s;
	double load_s;
};

extern const struct cfg_setting ckpt_settings[];
void ckpt_from_scenario(const struct scenario *sc, double params,
			double iteration_s, struct ckpt *c);

#endif
