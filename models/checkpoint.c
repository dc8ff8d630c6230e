/* checkpoint.c -- see checkpoint.h. */
#include <math.h>

#include "models/checkpoint.h"

const struct cfg_setting ckpt_settings[] = {
	{ "training.checkpoint.enabled", CFG_BOOL, "", 0, 0, "true", NULL,
	  "write periodic checkpoints" },
	{ "training.checkpoint.interval_s", CFG_FLOAT, "s", 1, 1e9, "3600", NULL,
	  "training time between checkpoints (rounded to whole iterations)" },
	{ "training.checkpoint.bytes_per_param", CFG_FLOAT, "bytes", 0.1, 64, "14", NULL,
	  "checkpoint bytes per parameter (weights + optimizer state)" },
	{ "training.checkpoint.write_bw_gbps", CFG_FLOAT, "GB/s", 1e-3, 1e6, "100", NULL,
	  "aggregate storage write bandwidth (10^9 bytes/s)" },
	{ "training.checkpoint.read_bw_gbps", CFG_FLOAT, "GB/s", 1e-3, 1e6, "200", NULL,
	  "aggregate storage read bandwidth for restores (10^9 bytes/s)" },
	CFG_END
};

void ckpt_from_scenario(const struct scenario *sc, double params,
			double iteration_s, struct ckpt *c)
{
	c->enabled = sc_bool(sc, "training.checkpoint.enabled");
	c->interval_s = sc_float(sc, "training.checkpoint.interval_s");
	c->interval_iters = (int64_t)llround(c->interval_s / iteration_s);
	if (c->interval_iters < 1)
		c->interval_iters = 1;
	c->size_bytes = params * sc_float(sc, "training.checkpoint.bytes_per_param");
	c->write_s = c->size_bytes / (sc_float(sc, "training.checkpoint.write_bw_gbps") * 1e9);
	c->load_s = c->size_bytes / (sc_float(sc, "training.checkpoint.read_bw_gbps") * 1e9);
}
