/*
 * budget.h -- cost and carbon budgets: alerts when the projected total
 * crosses a threshold, and optionally a stop (the FinOps budget gate).
 *
 *   budget = { cost_usd = 2e6; carbon_kg = 3e5;
 *              alert_at = [0.5, 0.8, 1.0]; stop = true; };
 *
 * Projected total = spent so far + the rate in force x the training time
 * still needed (struct activity's work_left_s).  While training at constant
 * rates the projection is constant (spending and remaining work move
 * together); it moves when rates change (a price or grid step, a restart
 * that spends without progress, lost work).  Accounting checks it whenever
 * the run model polls (at every sample, see acct_poll), so an alert fires
 * at the first poll at or after the crossing: within one sample interval.
 * Each threshold fires once per budget; with stop = true, crossing 1.0 of a
 * budget asks the run model to end the run there (completed = 0).
 */
#ifndef MODELS_BUDGET_H
#define MODELS_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/cfg.h"

#define BUDGET_LEVELS_MAX 8

enum { BUDGET_COST, BUDGET_CARBON, BUDGET_KINDS };

struct budget_alert {
	int64_t time_ns;
	int kind;		/* BUDGET_COST or BUDGET_CARBON */
	double fraction;	/* the threshold crossed */
	double projected;	/* projected total then (USD or kg) */
};

struct budget {
	double limit[BUDGET_KINDS];	/* 0: no budget */
	double level[BUDGET_LEVELS_MAX];
	int levels;
	bool stop;
	bool fired[BUDGET_KINDS][BUDGET_LEVELS_MAX];
	bool stop_requested;
};

extern const struct cfg_setting budget_settings[];
void budget_from_scenario(const struct scenario *sc, struct budget *b);
/* Compare projections with the thresholds not yet crossed; append an alert
 * for each newly crossed one to out (room for BUDGET_KINDS x levels);
 * returns how many. */
int budget_check(struct budget *b, int64_t now_ns, const double projected[BUDGET_KINDS],
		 struct budget_alert *out);
const char *budget_kind_name(int kind);

#endif
