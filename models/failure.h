/*
 * failure.h -- hardware and software failures of the job, and what a
 * failure costs before training resumes.
 *
 * Four component processes (gpu, node, nic, software), each with a rate
 * per unit (per GPU for gpu, per node for the others) scaled to the job:
 * job rate = units x rate.  Each is a renewal process in wall time with
 * exponential gaps (Poisson) or Weibull gaps of the same mean and a shape
 * k (k < 1: failures cluster, as field studies of HPC systems find); the
 * process runs whether or not the job is training, as hardware ages
 * either way.  Or, instead of the processes, a failure trace (replay.h:
 * time_s,node,kind) replayed as is.
 *
 * A failure stops the job (synchronous training cannot lose a rank):
 *   detecting  detect_s (collective timeout, health checks)
 *   waiting    for a spare node; the spare pool holds `spares` nodes, a
 *              failed node returns to it after repair_s, so waiting happens
 *              only when the pool is empty.  By default (spares = -1) the
 *              pool is sized to the cluster: failed nodes arrive at the job
 *              rate lambda and each stays repair_s, so by Palm's theorem
 *              (the M/G/inf queue; Palm 1938, the basis of spare-parts
 *              stocking since Sherbrooke's METRIC, Operations Research 16,
 *              1968) the nodes in repair at once are Poisson with mean
 *              lambda x repair_s, and the pool is its spares_confidence
 *              (99.9%) quantile.  At RSC-1's 6.50 per 1000 node-days and a
 *              1-day repair that is 26 spares for 2,048 nodes (1.3%), 5 for
 *              128 nodes (3.9%): proportional to the cluster, plus the
 *              square-root margin a Poisson count needs
 *   restarting restart_s (reschedule, process and NCCL init) + checkpoint load
 * and then the work since the last completed checkpoint is redone.
 *
 * Default rates: 6.50 node failures per 1000 node-days, Meta RSC-1
 * (Kokolis et al., HPCA 2025, arXiv:2410.21680).  Llama 3's 54-day run on
 * 16,384 H100 (arXiv:2407.21783, Table 5) gives per-component rates; see
 * scenarios/llama3-405b.cfg.  Restart 5-20 min on RSC: detect 60 s +
 * restart 540 s = 10 min by default.
 */
#ifndef MODELS_FAILURE_H
#define MODELS_FAILURE_H

#include <stdbool.h>
#include <stddef.h>

#include <gsl/gsl_rng.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/replay.h"

struct failure_proc {
	double rate_per_s;	/* job-level, units x per-unit rate */
	double shape;		/* Weibull k; 1 = exponential */
	double scale_s;		/* Weibull scale giving mean 1/rate */
};

struct failure {
	bool enabled;
	struct failure_proc p[FK_COUNT];
	double job_rate_per_s;	/* sum over components */
	double detect_s, restart_s, repair_s;
	int spares;
	struct fail_row *trace;	/* replayed instead of the processes */
	size_t trace_n;
};

extern const struct cfg_setting failure_settings[];
int failure_from_scenario(const struct scenario *sc, int nodes, int gpus_per_node,
			  struct failure *f, struct err *e);
void failure_free(struct failure *f);
/* Seconds to the next failure of one component process. */
double failure_next_gap_s(const struct failure_proc *p, gsl_rng *rng);
/* Mean time between failures of the job (INFINITY if none). */
double failure_mtti_s(const struct failure *f);

/* Mean nodes in repair at once (job failure rate x repair time). */
double failure_in_repair(const struct failure *f);
/* The smallest pool that covers Poisson(in_repair) nodes in repair with
 * probability >= confidence. */
int failure_spares_for(double in_repair, double confidence);

#endif
