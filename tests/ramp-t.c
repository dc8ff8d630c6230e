/*
 * ramp-t.c -- the batch ramp-up's phases (models/ramp.h) on tiny.cfg
 * (global batch 256, micro batch 4 on 4 replicas), against Megatron-LM's
 * rule worked by hand: before each iteration the batch is start +
 * min(floor(c / (samples / n)), n) x increment, c the sequences consumed.
 */
#include <string.h>

#include "tests/tap.h"
#include "sim/cfg.h"
#include "models/layout.h"
#include "models/ramp.h"
#include "models/run.h"
#include "models/transformer.h"

/* tiny.cfg with the ramp-up start inc samples: 0, or -1 with e set */
static int load(const char *start, const char *inc, const char *samples, struct ramp *rp,
		struct err *e)
{
	char path[4096], a[64], b[64], c[64];
	const char *ov[] = { a, b, c };
	struct cfg_schema *s = run_schema_new();
	struct scenario *sc;
	struct tfm m;
	struct layout L;
	int rc = -1;

	snprintf(path, sizeof path, "%s/scenarios/tiny.cfg", tap_srcdir());
	snprintf(a, sizeof a, "parallel.rampup_start_batch=%s", start);
	snprintf(b, sizeof b, "parallel.rampup_increment=%s", inc);
	snprintf(c, sizeof c, "parallel.rampup_samples=%s", samples);
	memset(e, 0, sizeof *e);
	memset(rp, 0, sizeof *rp);
	sc = sc_load(s, path, ov, 3, e);
	if (sc) {
		tfm_from_scenario(sc, &m);
		if (layout_from_scenario(sc, &m, &L, e) == 0)
			rc = ramp_from_scenario(sc, &L, false, rp, e);
	}
	sc_free(sc);
	cfg_schema_free(s);
	return rc;
}

static void error_names(const char *start, const char *inc, const char *samples,
			const char *key, const char *what)
{
	struct ramp rp;
	struct err e;
	int rc = load(start, inc, samples, &rp, &e);

	tap_ok(rc < 0 && e.status == ERR_USAGE && strstr(e.msg, key) != NULL,
	       "%s: a scenario error naming %s", what, key);
	if (rc == 0 || !strstr(e.msg, key))
		tap_diag("message: %s", e.msg);
	ramp_free(&rp);
}

int main(void)
{
	struct ramp rp;
	struct err e;

	tap_plan(17);

	/* 64 64 768: steps of 256; 4 x 64 (256), 2 x 128 (512), 2 x 192 (896) */
	tap_ok(load("64", "64", "768", &rp, &e) == 0, "64 64 768 loads (%s)", e.msg);
	tap_ok(rp.n == 3 && rp.batch[0] == 64 && rp.batch[1] == 128 && rp.batch[2] == 192,
	       "three phases of 64, 128, 192 sequences");
	tap_ok(rp.n == 3 && rp.end_iter[0] == 4 && rp.end_iter[1] == 6 && rp.end_iter[2] == 8,
	       "ending after iterations 4, 6, 8");
	tap_ok(ramp_phase(&rp, 0) == 0 && ramp_phase(&rp, 3) == 0 && ramp_phase(&rp, 4) == 1 &&
	       ramp_phase(&rp, 7) == 2 && ramp_phase(&rp, 8) == -1,
	       "iterations 1-4 in phase 0, 5-6 in 1, 7-8 in 2, then the full batch");
	tap_int(ramp_sequences(&rp, 8, 256), 896, "8 iterations consume 4 x 64 + 2 x 128 + 2 x 192");
	tap_int(ramp_sequences(&rp, 10, 256), 896 + 512, "two more of 256");
	tap_int(ramp_iters_for(&rp, 600, 256), 7, "600 sequences within the ramp: 7 iterations (704)");
	tap_int(ramp_iters_for(&rp, 1000, 256), 9, "1000: the ramp's 896, then one of 256");
	ramp_free(&rp);

	/* 16 16 240: steps of 16 sequences; a batch of 32 jumps from 16 to 48
	 * consumed (step 3), 64 to 112 (step 7), 128 to 240 (the end) */
	tap_ok(load("16", "16", "240", &rp, &e) == 0, "16 16 240 loads (%s)", e.msg);
	tap_ok(rp.n == 4 && rp.batch[0] == 16 && rp.batch[1] == 32 && rp.batch[2] == 64 &&
	       rp.batch[3] == 128 && rp.end_iter[3] == 4,
	       "steps skipped by large batches: 16, 32, 64, 128, one iteration each");
	ramp_free(&rp);

	tap_ok(load("0", "0", "0", &rp, &e) == 0 && rp.n == 0, "no ramp-up by default");
	error_names("256", "16", "1000", "parallel.rampup_start_batch", "a first batch of the full 256");
	error_names("64", "80", "1000", "parallel.rampup_increment", "80 does not step 64 to 256");
	error_names("8", "8", "1000", "parallel.rampup_start_batch",
		    "8 sequences on 4 replicas of micro batch 4");
	error_names("64", "0", "1000", "parallel.rampup_increment", "no increment");
	error_names("64", "64", "0", "parallel.rampup_samples", "no ramp-up length");
	error_names("0", "16", "0", "parallel.rampup_increment", "an increment without a first batch");
	return tap_done();
}
