/*
 * run_int.h -- the run model's private parts, shared by its files only:
 * models/run.c, run_model.c, run_ckpt.c, run_fail.c, run_spot.c and
 * run_out.c may include it; nothing else may (the API is run.h).
 *
 * struct model holds the figures derived once from the scenario; struct
 * run the state of one simulated run.  Every function shared between
 * the files is prefixed run_ and declared here; event handlers are
 * run_on_*.
 */
#ifndef MODELS_RUN_INT_H
#define MODELS_RUN_INT_H

#include <stdbool.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "sim/ev.h"
#include "models/acct.h"
#include "models/checkpoint.h"
#include "models/evaluation.h"
#include "models/failure.h"
#include "models/gc.h"
#include "models/gpu.h"
#include "models/layout.h"
#include "models/pace.h"
#include "models/pool.h"
#include "models/ramp.h"
#include "models/run.h"
#include "models/spot.h"
#include "models/step.h"
#include "models/transformer.h"

enum run_state { RS_TRAIN, RS_REDO, RS_CKPT, RS_DETECT, RS_WAIT, RS_RESTART, RS_DONE,
		 RS_COUNT };
/* The run's time series, in column order after time_s; accounting's
 * columns follow. */
enum { TS_TOKENS, TS_STATE, TS_ACTIVE_GPUS, TS_NODES, TS_DP, TS_IO_BPS, TS_IO_BYTES,
       TS_STALL, TS_LOST, TS_COUNT };
#define ROW_MAX 128

/* --- the model's figures --------------------------------------------- */

struct model {
	struct tfm m;
	struct layout L;
	struct gpu_spec g;
	struct pools pools;
	struct ckpt ck;
	struct failure fl;
	struct spot spot;
	struct gc gc;
	struct evl eval;
	bool full_fidelity;
	double max_s;			/* run.max_days */
	double sample_interval_s;	/* output.sample_interval_s */
	double params;
	struct step_cfg step;		/* the step model's settings (owned) */
	struct pace_src src;		/* how paces are computed */
	struct pace full;		/* the whole cluster's pace */
	struct ramp ramp;		/* batch ramp-up (ramp.n 0: none) */
	struct pace *ramp_pace;		/* the whole cluster's, per ramp phase */
	struct mem_breakdown mem;	/* memory per GPU, largest stage */
	double iteration_s;		/* compute time at full dp */
	double flops_per_iter;		/* with recomputation, Megatron's count */
	int64_t tokens_per_iter;	/* at full dp and the full batch */
	int64_t total_iters;
	int64_t tokens_needed;		/* total_iters x tokens_per_iter */
	int nodes_per_replica;		/* tp x pp GPUs, in nodes (may be fractional: GPUs) */
	int gpus_per_replica;
	double mtti_s;
	double band;			/* relative uncertainty of iteration_s: the
					 * GPU's and the stack's in quadrature */
	struct platform pf;		/* the hardware as built, for accounting */
};

/* What every run of the job reads: the model and the accounting, whose
 * settings and traces each run's books copy (acct_new_like). */
struct run_job {
	struct model md;
	struct acct *acct;
};

/* --- the run ------------------------------------------------------------ */

struct spot_state {
	int held;			/* nodes the pool holds now */
	int next_avail;			/* trace: count after the next change */
	double next_change_s;
	uint64_t notice_ev;		/* rate model: pending notice */
	int notices;			/* rate model: announced, not yet taken */
};

struct run {
	const struct run_opts *opts;
	struct report *rep;
	struct ev_sim *sim;
	const struct model *md;
	struct pace_src src;		/* md's, with the run's pace cache */
	struct acct *acct;
	gsl_rng *rng_fail[FK_COUNT], *rng_where, *rng_spot;

	enum run_state state;
	int64_t state_since_ns;
	double state_s[RS_COUNT];
	double gc_s[RS_COUNT];		/* GC pauses inside training and redo */
	double eval_s[RS_COUNT];	/* evaluations inside training and redo */

	/* progress */
	int dp;
	struct pace *paces;		/* cache, index dp */
	const struct pace *pace;
	int64_t iters, tokens;		/* committed, at seg_start_ns */
	int64_t seg_start_ns, seg_target;
	int64_t hwm_iters;		/* furthest iteration ever reached */
	uint64_t pending;		/* event that ends the current state */
	int64_t end_ns;
	int completed;

	/* checkpoints */
	int64_t ck_iters, ck_tokens;	/* last completed, restorable */
	int64_t ck_next_iter;
	double work_since_ck_s;		/* what an interruption now would lose */
	bool final_ckpt;		/* notice checkpoint: stop after it */
	bool ckpt_after_drain;		/* async checkpoint waiting for the drain */
	bool draining;
	uint64_t drain_ev;
	int64_t drain_iters, drain_tokens, drain_end_ns;
	double work_at_snapshot_s;
	bool grow_pending;
	bool starting;			/* before the first start */

	/* resources */
	int spares_free, need_spare;
	double spare_wait_s;		/* waiting with a node short */
	int64_t spare_clock_ns;		/* spare_wait_s counted up to here */
	struct spot_state sp[POOLS_MAX];
	size_t trace_next;

	/* storage I/O */
	double io_rate_Bps, io_bytes, io_bytes_at_sample;
	int64_t io_since_ns, last_sample_ns;

	/* counts */
	int64_t failures, fail_kind[FK_COUNT], preemptions, preempted_nodes;
	int64_t checkpoints, checkpoints_lost, notice_checkpoints, restarts;
	int64_t interrupted_restarts, spare_waits, resizes;
	int dp_min;
	double lost_work_s, last_lost_s;

	int k_seg_end, k_iter, k_ckpt_end, k_drain_end, k_failure, k_detect_end,
	    k_restart_end, k_repair, k_notice, k_spot_change, k_spot_preempt,
	    k_spot_return, k_sample;
	int64_t sample_ns;
};

/* Seconds to ns, capped at 4e9 s (127 years): a delay that long never
 * comes (run.max_days is capped the same way), and now + cap stays far
 * from INT64_MAX. */
#define RUN_HORIZON_S 4e9

extern const char *const run_state_names[RS_COUNT];

/* run.c: helpers and the state machine core */
int64_t run_s_to_ns(double s);
bool run_working(const struct run *r);
const struct pace *run_pace_get(struct run *r, int dp, struct err *e);
double run_iters_now(const struct run *r, int64_t now_ns);
int run_event(struct run *r, const char *kind, int64_t who, double value,
	      struct err *e);
void run_enter(struct run *r, enum run_state st);
void run_spare_clock(struct run *r);
void run_commit_progress(struct run *r, double done);
void run_add_pauses(struct run *r, double elapsed, double done, int64_t whole);
void run_start_work(struct run *r);
int run_dp_possible(const struct run *r);

/* run_model.c: the figures */
int run_model_from_scenario(const struct scenario *sc, struct pace_cache *cache,
			    struct model *md, struct err *e);
void run_model_free(struct model *md);
/* The whole cluster's pace in ramp phase k (ramp.h; -1: the full batch's). */
const struct pace *run_phase_pace(const struct model *md, int k);
/* Time of iterations i0+1 .. i1 at the full cluster's paces, each phase at
 * its own; compute only: without GC. */
double run_work_s(const struct model *md, int64_t i0, int64_t i1, bool compute_only);

/* run_ckpt.c: accounting, storage I/O, checkpoints */
int run_nodes_held(const struct run *r, int *per_pool);
void run_tell_accounting(struct run *r);
void run_io_set_rate(struct run *r, double rate_Bps);
int run_begin_checkpoint(struct run *r, struct err *e);
int run_maybe_grow(struct run *r, struct err *e);
int run_on_ckpt_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);
int run_on_drain_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);

/* run_fail.c: interruptions, restarts, failures */
void run_interrupt(struct run *r, bool lose);
int run_try_resume(struct run *r, struct err *e);
int run_on_restart_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);
void run_schedule_failure(struct run *r, int kind);
int run_on_failure(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);
int run_on_detect_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);
int run_on_repair(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);

/* run_spot.c: spot preemptions */
void run_schedule_spot(struct run *r, int j);
int run_on_notice(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);
int run_on_spot_change(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);
int run_on_spot_preempt(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);
int run_on_spot_return(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);

/* run_out.c: samples, the end, outputs */
int run_sample(struct run *r, struct err *e);
int run_on_sample(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e);
int run_finish(struct run *r, int completed, struct err *e);
void run_summarize(struct run *r);
int run_end_reason(struct run *r, struct err *e);
int run_write_step(struct run *r, struct err *e);

#endif
