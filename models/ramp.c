/* ramp.c -- see ramp.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/ramp.h"

const struct cfg_setting ramp_settings[] = {
	{ "parallel.rampup_start_batch", CFG_INT, "", 0, 1e9, "0", NULL,
	  "batch ramp-up: the first global batch in sequences (Megatron-LM's "
	  "--rampup-batch-size START); 0: no ramp-up" },
	{ "parallel.rampup_increment", CFG_INT, "", 0, 1e9, "0", NULL,
	  "batch ramp-up: sequences added at each step up (INCREMENT)" },
	{ "parallel.rampup_samples", CFG_FLOAT, "sequences", 0, 1e15, "0", NULL,
	  "batch ramp-up: sequences consumed until the batch is the full "
	  "parallel.global_batch (SAMPLES)" },
	CFG_END
};

/* Megatron's consistency check: every batch of the ramp in whole
 * microbatches on every replica. */
static int check_split(const struct scenario *sc, const struct layout *L, int start,
		       int inc, struct err *e)
{
	int unit = L->micro_batch * layout_replicas(L);

	if (start % unit)
		return sc_error(sc, e, "parallel.rampup_start_batch", "%d sequences do "
				"not split into microbatches of %d over %d replicas "
				"(expected a multiple of %d)", start, L->micro_batch,
				layout_replicas(L), unit);
	if (inc % unit)
		return sc_error(sc, e, "parallel.rampup_increment", "steps of %d sequences "
				"do not split into microbatches of %d over %d replicas "
				"(expected a multiple of %d)", inc, L->micro_batch,
				layout_replicas(L), unit);
	return 0;
}

static int check_settings(const struct scenario *sc, const struct layout *L, bool elastic,
			  int start, int inc, double samples, struct err *e)
{
	if (start == 0) {
		if (inc > 0 || samples > 0)
			return sc_error(sc, e, inc > 0 ? "parallel.rampup_increment" :
					"parallel.rampup_samples", "a ramp-up needs its "
					"first batch (expected parallel.rampup_start_batch "
					"> 0, or no ramp-up setting)");
		return 0;
	}
	if (start >= L->global_batch)
		return sc_error(sc, e, "parallel.rampup_start_batch", "%d sequences is "
				"not below the global batch of %d (expected a smaller "
				"first batch)", start, L->global_batch);
	if (inc <= 0 || (L->global_batch - start) % inc)
		return sc_error(sc, e, "parallel.rampup_increment", "%d does not step "
				"from %d to the global batch of %d (expected a positive "
				"divisor of %d)", inc, start, L->global_batch,
				L->global_batch - start);
	if ((L->global_batch - start) / inc > RAMP_MAX_PHASES)
		return sc_error(sc, e, "parallel.rampup_increment", "%d steps up "
				"(expected at most %d)",
				(L->global_batch - start) / inc, RAMP_MAX_PHASES);
	if (!(samples > 0))
		return sc_error(sc, e, "parallel.rampup_samples", "a ramp-up needs the "
				"sequences it takes (expected > 0)");
	if (elastic)
		return sc_error(sc, e, "parallel.rampup_start_batch", "a batch ramp-up "
				"with an elastic job is not modelled (expected no "
				"ramp-up, or spot.policy other than \"elastic\")");
	return check_split(sc, L, start, inc, e);
}

int ramp_from_scenario(const struct scenario *sc, const struct layout *L, bool elastic,
		       struct ramp *out, struct err *e)
{
	int start = (int)sc_int(sc, "parallel.rampup_start_batch");
	int inc = (int)sc_int(sc, "parallel.rampup_increment");
	double samples = sc_float(sc, "parallel.rampup_samples");

	memset(out, 0, sizeof *out);
	if (check_settings(sc, L, elastic, start, inc, samples, e) < 0)
		return -1;
	if (start == 0)
		return 0;
	int steps = (L->global_batch - start) / inc;
	double per_step = samples / steps;	/* Megatron's samples per increment */

	out->batch = malloc((size_t)steps * sizeof *out->batch);
	out->end_iter = malloc((size_t)steps * sizeof *out->end_iter);
	if (!out->batch || !out->end_iter) {
		ramp_free(out);
		return err_set(e, ERR_RUN, "out of memory");
	}
	/* each phase runs until the consumed sequences reach its step's end;
	 * a big batch may jump past a step, which then gets no phase */
	double c = 0;
	int64_t iters = 0;
	for (int s = 0; s < steps; s = (int)floor(c / per_step)) {
		int b = start + s * inc;
		int64_t n = (int64_t)ceil(((s + 1) * per_step - c) / b);

		if (n < 1)	/* rounding at a step's edge: one iteration */
			n = 1;
		c += (double)n * b;
		iters += n;
		out->batch[out->n] = b;
		out->end_iter[out->n] = iters;
		out->n++;
	}
	return 0;
}

void ramp_free(struct ramp *r)
{
	free(r->batch);
	free(r->end_iter);
	memset(r, 0, sizeof *r);
}

int ramp_phase(const struct ramp *r, int64_t iters)
{
	int lo = 0, hi = r->n;	/* the first phase ending after iters */

	while (lo < hi) {
		int mid = (lo + hi) / 2;
		if (r->end_iter[mid] > iters)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo < r->n ? lo : -1;
}

int64_t ramp_sequences(const struct ramp *r, int64_t iters, int global_batch)
{
	int64_t seq = 0, done = 0;

	for (int k = 0; k < r->n && done < iters; k++) {
		int64_t n = (r->end_iter[k] < iters ? r->end_iter[k] : iters) - done;
		seq += n * r->batch[k];
		done += n;
	}
	return seq + (iters - done) * global_batch;
}

int64_t ramp_iters_for(const struct ramp *r, double sequences, int global_batch)
{
	double seq = 0;
	int64_t done = 0;

	for (int k = 0; k < r->n; k++) {
		int64_t n = r->end_iter[k] - done;
		if (seq + (double)n * r->batch[k] >= sequences)
			return done + (int64_t)ceil((sequences - seq) / r->batch[k]);
		seq += (double)n * r->batch[k];
		done += n;
	}
	return done + (int64_t)ceil((sequences - seq) / global_batch);
}
