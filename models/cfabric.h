/*
 * cfabric.h -- jobs of a shared cluster (trainsim cluster) sharing one
 * fabric: a badly placed job slows its neighbours.
 *
 * The fleet's network is built once from the scenario's network.*
 * settings (topologies/net.h), one node slot of models/fleet.h per
 * network node, so the leaves placement packs into are the fabric's.
 * Each running job that communicates (comm_fraction > 0: a training job's
 * from its step model, a fixed job's as given) and holds two nodes or
 * more puts its gradient collective on the fabric as NCCL's ring over
 * its nodes in placement order, one channel per NIC: for every node i and
 * NIC c, a standing flow from GPU c of node i to GPU c of node i+1 (the
 * last to the first), routed as the fabric routes (ECMP by channel).  All
 * jobs' flows share the links max-min fairly (topologies/flow.h,
 * progressive filling).
 *
 * A ring runs at the pace of its slowest edge, so a job's collective
 * bandwidth is the least rate among its flows: alone on the fabric (its
 * own flows only) and shared (everyone's).  Its collectives then take
 * s = alone / shared >= 1 times as long.  comm_fraction is the share of
 * the job's undisturbed time its scale-out collectives take (T / t); the
 * compute that hid part of them (a window H, exposed E = T - H) is the
 * same when shared, so what grows is exposed: E' = s T - H = E + (s-1) T,
 * and
 *
 *     slowdown = 1 + comm_fraction x (s - 1),
 *
 * exact whenever some of the collective was exposed alone, an upper
 * bound when compute hid all of it (then E' = max(0, s T - H)).
 *
 * Two jobs inside their own leaves share no link (a node is never
 * shared), so their s is exactly 1; two whose rings cross the same leaf
 * uplink, alone on it, each get half of it: s = 2.
 *
 * Simplifications (doc/cluster.txt): every job's collective is taken to run
 * whenever the others' do (the steady state of overlapping communication:
 * an upper bound on interference); the ring's faster edges keep their
 * max-min rates rather than being held to the ring's pace; a job that
 * others' flows would speed up (max-min is not monotone) keeps s = 1.
 *
 * Only jobs whose flows share a link with a changed job's are re-rated:
 * the flow model re-solves just the connected components that hold a
 * changed link; a job's rates (hence its pace) are read again only after
 * a start or stop, all the changes of one instant in one solve; a job's
 * rate alone is computed once per start.
 */
#ifndef MODELS_CFABRIC_H
#define MODELS_CFABRIC_H

#include <stdbool.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/cjob.h"
#include "models/fleet.h"

extern const struct cfg_setting cfab_settings[];

struct cfab;

/* The shared fabric of the fleet f for jobs js, or *out NULL when
 * fabric.sharing is off or no job communicates (nothing is built then). */
int cfab_new(const struct scenario *sc, const struct fleet *f, const struct cjobs *js,
	     struct cfab **out, struct err *e);
void cfab_free(struct cfab *fab);

/* Job job now runs on nodes (n of them): its ring joins the fabric (a job
 * that does not communicate, or holds one node, adds nothing). */
int cfab_start(struct cfab *fab, int job, const int *nodes, int n, struct err *e);
/* Its ring leaves the fabric (it ended, stopped or was interrupted). */
void cfab_stop(struct cfab *fab, int job);
/* Starts or stops since the last cfab_solve. */
bool cfab_dirty(const struct cfab *fab);

/* Re-solve the rates changed since the last call and tell changed(ctx,
 * job, s) of every running job whose stretch s (alone / shared) moved. */
typedef int (*cfab_changed_fn)(void *ctx, int job, double stretch, struct err *e);
int cfab_solve(struct cfab *fab, cfab_changed_fn changed, void *ctx, struct err *e);

/* A job's pace factor (wall seconds per undisturbed second). */
double cfab_slowdown(double comm_fraction, double stretch);

/* Work done by solves so far: flows (re)rated (the bench's measure). */
unsigned long long cfab_rated(const struct cfab *fab);

#endif
