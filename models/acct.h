/*
 * acct.h -- accounting: power, energy, cost and carbon of the run,
 * integrated exactly between events.
 *
 * The run model tells accounting what the cluster is doing (an activity:
 * nodes and GPUs held per pool, GPUs training, ...) whenever that changes.
 * In between, the rates change only at the change points of the traces
 * (hourly PUE, grid intensity, electricity price; spot price records), and
 * accounting integrates piecewise over them: acct_advance() walks from one
 * change point to the next, so every integral is a sum of exact products
 * and the number of engine events does not depend on the traces.  A 54-day
 * run over an hourly trace is 1,296 pieces, walked once, in order.
 *
 * Accounting owns its settings (power.*, cost.*, carbon.*, storage.*,
 * budget.*, run.start_utc, and pools.*.price... beside pool.c's), its
 * time-series columns and its summary figures, so the run model knows
 * nothing of watts or dollars.  See power.h, cost.h, carbon.h, storage.h,
 * budget.h, trace.h and telemetry.h for each part's model and sources.
 *
 *   struct acct *a = acct_new(sc, &gpu, &layout, &pools, &platform, e);
 *   acct_set_activity(a, now_ns, &act);      // at every state change
 *   acct_series(a, rep);                     // declare its columns
 *   acct_sample(a, now_ns, row + k);         // fill them at a sample
 *   if (acct_poll(a, now_ns, rep, e) > 0)    // at samples: budget alerts;
 *           end the run;                     //   > 0: the budget says stop
 *   acct_summarize(a, end_ns, rep);          // energy_kwh, cost_usd, ...
 */
#ifndef MODELS_ACCT_H
#define MODELS_ACCT_H

#include <stdint.h>
#include <stdio.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "sim/report.h"
#include "models/budget.h"
#include "models/gpu.h"
#include "models/layout.h"
#include "models/pool.h"
#include "topologies/platform.h"

#define ACCT_J_PER_KWH 3.6e6

/* What the cluster is doing until the next change.  Fields after
 * pool_nodes_held are optional: zero means "not known" and gives the
 * documented default. */
struct activity {
	int nodes_held;		/* powered and paid for, all pools */
	int gpus_held;
	int gpus_training;	/* running iterations; the other held GPUs idle */
	int pool_nodes_held[POOLS_MAX];	/* per pool of struct pools, same order */
	/* Hot spares ready to replace a failed node (failures.spares): an
	 * owned cluster's own nodes, powered and idle (a spare that takes over
	 * at once is running), with their capital, operation and embodied
	 * carbon; a cloud provider's pool is not the job's to pay or power. */
	int spare_nodes;
	/* From the step model, per training GPU and iteration (0: unknown,
	 * power uses the formula level, power.h).  With struct step_result:
	 * busy_frac and tensor_active_frac as they are, comm_frac =
	 * (tp_exposed_s + pp_exposed_s + dp_exposed_s) / iteration_s; the rest
	 * of the iteration is pipeline bubble. */
	double busy_frac;		/* compute kernels running */
	double tensor_active_frac;	/* of which tensor-core (GEMM) kernels */
	double comm_frac;		/* exposed communication wait */
	/* For power (power.h): the share of the time in kernels (the passes
	 * and the optimizer) and their energy above idle over the time
	 * (kpower.h), both over the iteration as paced (GC pauses included:
	 * no kernels run in them). */
	double kernel_frac;
	double kernel_dyn_w;
	/* Training time still needed at this activity's start, for budget
	 * projections (accounting counts it down while GPUs train). */
	double work_left_s;
	/* Bytes per second crossing each link tier of the platform (the step
	 * model's tier bytes per iteration over the iteration time, while
	 * training; 0: no traffic known), for the network's energy per bit. */
	double tier_bytes_per_s[TIER_COUNT];
	/* Checkpoints: size of one, and how many written so far (storage). */
	double checkpoint_bytes;
	int64_t checkpoints_written;
};

struct acct;

extern const struct cfg_setting *const acct_setting_tables[];

/* Reads the settings and the traces; trace and price errors name the file
 * and line (status ERR_USAGE).  pf is the platform as built (its network
 * idle power and switches are shared by the nodes held, in proportion). */
struct acct *acct_new(const struct scenario *sc, const struct gpu_spec *g,
		      const struct layout *L, const struct pools *pools,
		      const struct platform *pf, struct err *e);
/* Another run's books for the same job (replicas, read once per load):
 * proto's settings and traces, which it shares, so proto must outlive the
 * copy; proto is an acct no run has used. */
struct acct *acct_new_like(const struct acct *proto, struct err *e);
/* Print what accounting will use (prices, PUE, grid, network, traces,
 * budgets). */
void acct_describe(const struct acct *a, FILE *out);
void acct_free(struct acct *a);
void acct_set_activity(struct acct *a, int64_t now_ns, const struct activity *act);
/* What the job spends a second while all its nodes train (instances or
 * capital, operation and electricity at the training power without a
 * step breakdown), and what one more checkpoint of `bytes` costs in
 * storage over a run of run_s (models/storage.h): the two prices a cost-
 * minimising checkpoint interval weighs (models/checkpoint.h). */
double acct_training_usd_per_s(const struct acct *a);
/* Whether spares are the job's to power (owned), so a change in their
 * number must reach the books. */
bool acct_powers_spares(const struct acct *a);
double acct_checkpoint_usd(const struct acct *a, double bytes, double run_s);
/* Bring the books up to now with the rates in force. */
void acct_advance(struct acct *a, int64_t now_ns);

/* Time-series columns and the budget event kinds: acct_series declares
 * them, acct_sample fills acct_columns() values at now. */
int acct_series(struct acct *a, struct report *rep);
int acct_columns(const struct acct *a);
void acct_sample(struct acct *a, int64_t now_ns, double *values);

/* Budgets: check the projections at now, write alert events (kind
 * budget_cost / budget_carbon, who = threshold in percent, value = the
 * projected total) into rep (may be NULL).  Returns 1 when the run should
 * stop (budget.stop and a budget reached), 0 otherwise, -1 on error. */
int acct_poll(struct acct *a, int64_t now_ns, struct report *rep, struct err *e);
/* Projected totals now: [BUDGET_COST] in USD, [BUDGET_CARBON] in kg. */
void acct_projection(struct acct *a, int64_t now_ns, double out[BUDGET_KINDS]);

/* Totals so far (after acct_advance). */
struct acct_totals {
	double it_energy_j, facility_energy_j;
	double gpu_energy_j, node_energy_j, network_energy_j, storage_energy_j;
	double cost_usd;
	double compute_usd, storage_usd, electricity_usd, capex_usd, opex_usd;
	double commitment_unused_usd;	/* committed time paid after the run */
	double carbon_location_kg, carbon_market_kg, carbon_kg, embodied_kg;
	double gpu_held_s, node_held_s;
};
const struct acct_totals *acct_totals(const struct acct *a);

/* Summary figures: energy_kwh, it_energy_kwh, cost_usd, carbon_kg,
 * embodied_carbon_kg, gpu_hours, breakdowns, and per-token figures when
 * the report already holds "tokens". */
void acct_summarize(struct acct *a, int64_t end_ns, struct report *rep);

#endif
