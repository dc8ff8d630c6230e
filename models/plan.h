/*
 * plan.h -- the planner: which cluster size, parallel layout and checkpoint
 * interval finish a run by a deadline at the least cost, carbon or time.
 *
 *   trainsim plan SCENARIO.cfg --deadline-days D [--minimize cost|carbon|time]
 *
 * It searches cluster.gpus, parallel.tp, .pp, .micro_batch,
 * training.recompute, parallel.zero_stage (when the scenario schema has it)
 * and training.checkpoint.interval_s; the global batch is kept (it is a
 * training hyperparameter, not a systems choice).  Every candidate is
 * evaluated by the real run model, in-process, on the scenario with
 * overrides, so `trainsim -s ... SCENARIO.cfg` with the printed overrides
 * reproduces the reported figures bit for bit.  Pruning, cheapest first:
 *   1. layout rules (the scenario loader's own errors) and a lower bound on
 *      the memory per GPU (plan_mem_bound_bytes) against the GPU's HBM;
 *   2. a lower bound on the objective and on the duration: the same run with
 *      failures and checkpoints off (they only add time and cost);
 *      candidates whose bound misses the deadline are dropped;
 *   3. branch and bound: layouts are evaluated in order of their bound, with
 *      checkpoint intervals around Daly's optimum, and the search stops once
 *      the next bound exceeds the worst of the N best found.
 */
#ifndef MODELS_PLAN_H
#define MODELS_PLAN_H

#include <stdbool.h>

#include "models/transformer.h"

/* A lower bound on the bytes one GPU holds: model states under tp x pp
 * (and ZeRO over dp) plus 1F1B activations of the first pipeline stage.
 * See plan_bound.c for the formulas and their sources. */
double plan_mem_bound_bytes(const struct tfm *m, int tp, int pp, int dp,
			    int micro_batch, bool recompute, int zero_stage);

/* Daly's optimum checkpoint interval (compute time between checkpoints)
 * for a checkpoint of write_s seconds and a mean time between
 * interruptions of mtbf_s (Daly 2006, eq. 37; valid for write_s < 2 mtbf_s,
 * else mtbf_s). */
double plan_daly_interval_s(double write_s, double mtbf_s);

#endif
