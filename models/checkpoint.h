/*
 * checkpoint.h -- checkpoints: how big, where to, how long, how often.
 *
 * Size: parameters x bytes_per_param.  The default 14 B/param is what a
 * restartable mixed-precision Adam checkpoint holds: bf16 weights (2) +
 * fp32 master weights (4) + Adam momentum and variance (4 + 4); gradients
 * and activations are not saved.  BLOOM-176B's 2.3 TB checkpoint is 13.1
 * B/param (BigScience 176B model card; doc/sources.md section 3).  The checkpoint is
 * sharded evenly over every GPU (distributed checkpoint format), so each
 * node writes size / nodes.
 *
 * Storage: a type from storage_types (scenarios/catalog/storage.cfg:
 * per-node and aggregate bandwidth, latency) or, without one,
 * the aggregate write_bw_gbyte_s / read_bw_gbyte_s.  Bandwidth used =
 * min(nodes x per-node, aggregate cap, write_bw_gbyte_s when given); write
 * time = latency + size / bandwidth, load time likewise with the read
 * figures.
 *
 * Modes: sync stalls training for the whole write.  async stalls for the
 * snapshot (each GPU copies its shard to host memory at
 * snapshot_bw_gbyte_s), then drains to storage in the background; the
 * checkpoint counts (can be restored) when the drain ends.  The drain is
 * not free: it goes out through the nodes' NICs beside training's
 * collectives, slowing training by drain_slowdown (by default the share
 * of a node's scale-out bandwidth it takes: write_Bps / nodes over the
 * node's NICs) for write_s, which the run charges as stall at the
 * snapshot (the same training time lost, in one piece).  A checkpoint
 * due while the previous one still drains waits for it (one host buffer),
 * which is the contention of back-to-back checkpoints; so an async
 * optimum is never shorter than write_s.
 *
 * Interval policies: iterations (fixed count), time (fixed training time,
 * rounded to whole iterations), young (sqrt(2 delta M), Young 1974) and
 * daly (Daly 2006 eq. 37), with delta = the training time a checkpoint
 * costs (sync: the write; async: snapshot + drain_slowdown x write) and M
 * = the job's mean time to interrupt from the failure and preemption rates.
 * What keeping checkpoints costs (retention, $/GB-month, $/GB written) is
 * accounting's (storage.tiers and the checkpoint storage type's catalog
 * prices, models/storage.h): the run model reports checkpoints written.
 *
 * minimize = cost weighs money instead of time (young and daly only).
 * A run spends R USD a second whatever it does (instances, or capital,
 * operation and electricity); a checkpoint costs delta_s of training and
 * c USD of storage (its writes, and its holding where every checkpoint is
 * kept).  Per second of useful training, to first order,
 *   cost(T) = R (1 + delta / T + T / 2M) + c / T,
 * least at T = sqrt(2 M (delta + c / R)): Young's optimum with delta
 * raised by c / R, the seconds of the run that cost what the checkpoint
 * costs; Daly's formula takes the same delta.  R and c come from
 * accounting once it is built (ckpt_minimize_cost).
 */
#ifndef MODELS_CHECKPOINT_H
#define MODELS_CHECKPOINT_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/cfg.h"
#include "sim/err.h"

enum ckpt_mode { CKPT_SYNC, CKPT_ASYNC };
enum ckpt_policy { CKPT_TIME, CKPT_ITERATIONS, CKPT_YOUNG, CKPT_DALY };

struct ckpt {
	bool enabled;
	enum ckpt_mode mode;
	enum ckpt_policy policy;
	const char *tier;	/* storage catalog entry, "" for none */
	double size_bytes;
	double write_Bps, read_Bps;	/* aggregate, as used */
	double write_s;		/* latency + size / write_Bps */
	double load_s;		/* latency + size / read_Bps */
	double snapshot_s;	/* async: shard / snapshot bandwidth */
	double stall_s;		/* what training pays per checkpoint */
	double drain_slowdown;	/* async: training speed lost while draining */
	double interval_s;	/* chosen training time between checkpoints */
	int64_t interval_iters;	/* the same in whole iterations (>= 1) */
	double young_s, daly_s;	/* the two optima for this job (NaN without M) */
	bool on_notice;		/* checkpoint on a spot notice when it fits */
	bool minimize_cost;	/* minimize = cost */
	double usd_per_ckpt;	/* storage cost of one checkpoint (c above) */
	double money_s;		/* c / R, added to delta when minimising cost */
};

extern const struct cfg_setting ckpt_settings[];
extern const struct cfg_setting ckpt_storage_settings[];

/* mtti_s: the job's mean time to interrupt (INFINITY when nothing fails). */
/* node_out_Bps: one node's scale-out bandwidth (0: no fabric), what the
 * drain shares with training's collectives. */
int ckpt_from_scenario(const struct scenario *sc, double params, int nodes, int gpus,
		       double iteration_s, double mtti_s, double node_out_Bps,
		       struct ckpt *c, struct err *e);

/* With minimize = cost and policy young or daly: re-choose the interval
 * with delta = stall_s + usd_per_ckpt / usd_per_s (the header's
 * derivation); otherwise only record usd_per_ckpt.  No money rate (R <= 0)
 * or no failures: the time optimum stands. */
void ckpt_minimize_cost(struct ckpt *c, double usd_per_ckpt, double usd_per_s,
			double iteration_s, double mtti_s);

/* Young 1974: sqrt(2 delta M). */
double ckpt_young_s(double delta_s, double mtti_s);
/* Daly 2006 eq. 37: sqrt(2 delta M) (1 + sqrt(delta/2M)/3 + (delta/2M)/9) - delta
 * for delta < 2M, else M. */
double ckpt_daly_s(double delta_s, double mtti_s);

#endif
