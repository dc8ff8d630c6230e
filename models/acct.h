/*
 * acct.h -- accounting: power, energy, cost and carbon of the run,
 * integrated exactly between events.
 *
 * The run model tells accounting what the cluster is doing (an activity:
 * GPUs held, GPUs training, ...) whenever that changes; in between, every
 * rate is constant, so integrating is a product, not a sample.  Accounting
 * owns its settings (power.*, cost.*, carbon.*), its time-series columns and
 * its summary figures, so the run model knows nothing of watts or dollars.
 *
 *   struct acct *a = acct_new(sc, &gpu, &layout, e);
 *   acct_set_activity(a, now_ns, &act);     // at every state change
 *   acct_series(a, rep, e);                  // declare its columns
 *   acct_sample(a, now_ns, row + k);         // fill them at a sample
 *   acct_summarize(a, end_ns, rep);          // energy_kwh, cost_usd, ...
 */
#ifndef MODELS_ACCT_H
#define MODELS_ACCT_H

#include <stdint.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "sim/report.h"
#include "models/gpu.h"
#include "models/layout.h"
#include "models/pool.h"

#define ACCT_J_PER_KWH 3.6e6

/* What the cluster is doing until the next change. */
struct activity {
	int nodes_held;		/* powered and paid for, all pools */
	int gpus_held;
	int gpus_training;	/* running iterations; the other held GPUs idle */
	int pool_nodes_held[POOLS_MAX];	/* per pool of struct pools, same order */
};

struct acct;

extern const struct cfg_setting *const acct_setting_tables[];

struct acct *acct_new(const struct scenario *sc, const struct gpu_spec *g,
		      const struct layout *L, const struct pools *pools, struct err *e);
void acct_free(struct acct *a);
void acct_set_activity(struct acct *a, int64_t now_ns, const struct activity *act);
/* Bring the books up to now with the rates in force. */
void acct_advance(struct acct *a, int64_t now_ns);

/* Time-series columns: acct_series declares them, acct_sample fills
 * acct_columns() values at now. */
int acct_series(struct acct *a, struct report *rep);
int acct_columns(const struct acct *a);
void acct_sample(struct acct *a, int64_t now_ns, double *values);
void acct_summarize(struct acct *a, int64_t end_ns, struct report *rep);

#endif
