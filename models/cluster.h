/*
 * cluster.h -- trainsim cluster: many jobs on one shared fleet, as events
 * on the engine (sim/ev.h).
 *
 * Jobs (models/jobgen.h) arrive, wait in the scheduler's queue
 * (models/sched.h), run on whole nodes placed by models/fleet.h, and end;
 * node failures and spot reclaims interrupt the job holding the node (its
 * work since the last checkpoint is lost and it is queued again), repaired
 * nodes come back after fleet.repair_s; the autoscaler (models/autoscale.h)
 * grows and shrinks the elastic pools.  A job runs at the pace it was
 * given (fixed time, or the run model's undisturbed pace), slowed while
 * its collectives share the fleet's fabric with its neighbours'
 * (models/cfabric.h): its work advances at 1 / slowdown a second, and its
 * end moves whenever a start or stop elsewhere changes its share.
 *
 * Accounting integrates piecewise-constant rates between events: each
 * pool bills its held nodes (booting, free, busy and down alike); a job
 * is charged its nodes' price while it holds them, so the fleet total is
 * the jobs' costs plus the idle lines (reserved nodes held but unused,
 * elastic nodes held but unused).  Energy: a GPU running a job draws
 * idle + fleet.gpu_busy_fraction x (TDP - idle), every other held GPU its
 * idle power; a node running a job its host's busy power (node catalog,
 * fleet.node), every other held node its host's idle power; GPUs and hosts
 * through the power supplies' efficiency, times fleet.pue; carbon at
 * fleet.grid_g_per_kwh.
 *
 * Output (report.h): /summary, /timeseries (utilisation, allocated and
 * held GPUs, queue, running jobs, nodes per pool, power, cost rate and
 * cumulative cost), /events (budget alerts, autoscaling, failures), and
 * /jobs, one column per field, one row per job in submit order
 * (doc/cluster.txt lists them).
 */
#ifndef MODELS_CLUSTER_H
#define MODELS_CLUSTER_H

#include <stdint.h>
#include <stdio.h>

#include "sim/cfg.h"
#include "sim/report.h"

struct cfg_schema *cluster_schema_new(void);
/* Validate only: read the fleet and the jobs, print what was found. */
int cluster_check(const struct scenario *sc, FILE *out, struct err *e);
int cluster_simulate(const struct scenario *sc, struct report *rep, struct err *e);

#endif
