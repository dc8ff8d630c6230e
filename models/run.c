/* run.c -- see run.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

#include "sim/ev.h"
#include "sim/rng.h"
#include "models/acct.h"
#include "models/checkpoint.h"
#include "models/failure.h"
#include "models/gc.h"
#include "models/gpu.h"
#include "models/layout.h"
#include "models/pace.h"
#include "models/parallel.h"
#include "models/pool.h"
#include "models/run.h"
#include "models/spot.h"
#include "models/step.h"
#include "models/transformer.h"
#include "topologies/net.h"

static const struct cfg_setting run_settings[] = {
	{ "run.seed", CFG_INT, "", 0, 9.2e18, "1", NULL,
	  "seed of every random stream (--seed overrides)" },
	{ "run.max_days", CFG_FLOAT, "days", 1e-6, 1e6, "3650", NULL,
	  "give up (completed = 0) if the run has not finished by then" },
	{ "run.full_fidelity", CFG_BOOL, "", 0, 0, "false", NULL,
	  "one event per iteration instead of analytic progress (to check the fast path)" },
	{ "output.sample_interval_s", CFG_FLOAT, "s", 1e-3, 1e9, "3600", NULL,
	  "time between time-series samples" },
	CFG_END
};

static const struct cfg_setting *const setting_tables[] = {
	run_settings, pace_settings, par_settings, tfm_settings, layout_settings,
	gpu_settings, pool_settings, spot_settings, ckpt_settings,
	ckpt_storage_settings, failure_settings, gc_settings, net_settings, NULL
};

struct cfg_schema *run_schema_new(void)
{
	struct cfg_schema *s = cfg_schema_new();

	if (s == NULL)
		return NULL;
	for (size_t i = 0; setting_tables[i]; i++)
		cfg_schema_add(s, setting_tables[i]);
	for (size_t i = 0; acct_setting_tables[i]; i++)
		cfg_schema_add(s, acct_setting_tables[i]);
	return s;
}

enum run_state { RS_TRAIN, RS_REDO, RS_CKPT, RS_DETECT, RS_WAIT, RS_RESTART, RS_DONE,
		 RS_COUNT };
static const char *const state_names[RS_COUNT] = {
	"training", "redo", "checkpoint", "detecting", "waiting", "restarting", "done"
};

/* The run's time series, in column order after time_s; accounting's
 * columns follow. */
enum { TS_TOKENS, TS_STATE, TS_ACTIVE_GPUS, TS_NODES, TS_DP, TS_IO_BPS, TS_IO_BYTES,
       TS_STALL, TS_LOST, TS_COUNT };
static const struct { const char *name, *unit; } series[TS_COUNT] = {
	{ "tokens", "tokens" }, { "state", "code" }, { "active_gpus", "GPUs" },
	{ "nodes_held", "nodes" }, { "dp", "replicas" },
	{ "storage_write_Bps", "bytes/s" }, { "checkpoint_bytes", "bytes" },
	{ "checkpoint_stall_s", "s" }, { "lost_work_s", "s" },
};
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
	bool full_fidelity;
	double params;
	struct pace_src src;		/* how paces are computed */
	struct pace full;		/* the whole cluster's pace */
	struct mem_breakdown mem;	/* memory per GPU, largest stage */
	double iteration_s;		/* compute time at full dp */
	double flops_per_iter;		/* with recomputation, Megatron's count */
	int64_t tokens_per_iter;	/* at full dp */
	int64_t total_iters;
	int64_t tokens_needed;		/* total_iters x tokens_per_iter */
	int nodes_per_replica;		/* tp x pp GPUs, in nodes (may be fractional: GPUs) */
	int gpus_per_replica;
	double mtti_s;
};

static int model_from_scenario(const struct scenario *sc, struct pace_cache *cache,
			       struct model *md, struct err *e)
{
	memset(md, 0, sizeof *md);
	tfm_from_scenario(sc, &md->m);
	if (layout_from_scenario(sc, &md->m, &md->L, e) < 0)
		return -1;
	gpu_from_scenario(sc, md->L.gpu, &md->g);
	if (pools_from_scenario(sc, md->L.nodes, &md->pools, e) < 0)
		return -1;
	if (failure_from_scenario(sc, md->L.nodes, md->L.gpus_per_node, &md->fl, e) < 0)
		return -1;
	if (spot_from_scenario(sc, &md->pools, &md->spot, e) < 0) {
		failure_free(&md->fl);
		return -1;
	}
	gc_from_scenario(sc, &md->gc);
	md->full_fidelity = sc_bool(sc, "run.full_fidelity");
	md->gpus_per_replica = md->L.tp * md->L.pp;

	md->params = tfm_params(&md->m);
	if (step_check_memory(sc, &md->m, &md->L, &md->g, &md->mem, e) < 0) {
		spot_free(&md->spot);
		failure_free(&md->fl);
		return -1;
	}
	pace_src_from_scenario(sc, &md->src);
	md->src.m = &md->m;
	md->src.L = &md->L;
	md->src.g = &md->g;
	md->src.gc = &md->gc;
	md->src.shrink_batch = md->spot.shrink_batch;
	md->src.cache = cache;
	if (pace_compute(&md->src, md->L.dp, &md->full, e) < 0) {
		spot_free(&md->spot);
		failure_free(&md->fl);
		return -1;
	}
	md->iteration_s = md->full.compute_s;
	md->flops_per_iter = md->full.flops_per_iter;
	md->tokens_per_iter = (int64_t)md->L.global_batch * md->m.seq_len;
	md->total_iters = (int64_t)ceil(md->m.tokens / (double)md->tokens_per_iter);
	md->tokens_needed = md->total_iters * md->tokens_per_iter;
	md->mtti_s = 1.0 / (1.0 / failure_mtti_s(&md->fl) + md->spot.rate_per_s);
	if (ckpt_from_scenario(sc, md->params, md->L.nodes, md->L.gpus, md->iteration_s,
			       md->mtti_s, &md->ck, e) < 0) {
		spot_free(&md->spot);
		failure_free(&md->fl);
		return -1;
	}
	return 0;
}

static void model_free(struct model *md)
{
	spot_free(&md->spot);
	failure_free(&md->fl);
}

/* --- the run ------------------------------------------------------------ */

struct spot_state {
	int held;			/* nodes the pool holds now */
	int next_avail;			/* trace: count after the next change */
	double next_change_s;
	uint64_t notice_ev;		/* rate model: pending notice */
	int notices;			/* rate model: announced, not yet taken */
};

struct run {
	const struct scenario *sc;
	const struct run_opts *opts;
	struct report *rep;
	struct ev_sim *sim;
	struct model md;
	struct acct *acct;
	gsl_rng *rng_fail[FK_COUNT], *rng_where, *rng_spot;

	enum run_state state;
	int64_t state_since_ns;
	double state_s[RS_COUNT];
	double gc_s[RS_COUNT];		/* GC pauses inside training and redo */

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
static int64_t s_to_ns(double s)
{
	if (!(s < RUN_HORIZON_S))
		return (int64_t)(RUN_HORIZON_S * 1e9);
	return (int64_t)llround(s * 1e9);
}

static bool working(const struct run *r)
{
	return r->state == RS_TRAIN || r->state == RS_REDO;
}

/* The pace at dp replicas, computed once (a step simulation) and cached. */
static const struct pace *pace_get(struct run *r, int dp, struct err *e)
{
	if (dp == r->md.L.dp)
		return &r->md.full;
	if (!r->paces[dp].ready && pace_compute(&r->md.src, dp, &r->paces[dp], e) < 0)
		return NULL;
	return &r->paces[dp];
}

static double iters_now(const struct run *r, int64_t now_ns)
{
	if (!working(r))
		return (double)r->iters;
	return pace_iters_at(r->pace, r->iters, (now_ns - r->seg_start_ns) * 1e-9);
}

static int event(struct run *r, const char *kind, int64_t who, double value,
		 struct err *e)
{
	/* ns / 1e9, not ns * 1e-9: whole seconds stay whole */
	return rep_event(r->rep, ev_now(r->sim) / 1e9, kind, who, value, e);
}

/* --- accounting and storage I/O ------------------------------------------ */

static int nodes_held(const struct run *r, int *per_pool)
{
	int total = 0;

	for (int i = 0; i < r->md.pools.n; i++)
		per_pool[i] = r->md.pools.p[i].nodes;
	for (int j = 0; j < r->md.spot.n; j++)
		per_pool[r->md.spot.sp[j].pool] = r->sp[j].held;
	for (int i = 0; i < r->md.pools.n; i++)
		total += per_pool[i];
	return total;
}

/* What the cluster holds and does now: every node held until the run ends
 * (spot pools only what the provider left them); only training and redo
 * keep GPUs busy, and only the replicas running. */
static void tell_accounting(struct run *r)
{
	struct activity act = { 0 };
	bool held = r->state != RS_DONE;
	int n = nodes_held(r, act.pool_nodes_held);

	act.nodes_held = held ? n : 0;
	act.gpus_held = act.nodes_held * r->md.L.gpus_per_node;
	act.gpus_training = working(r) ? r->dp * r->md.gpus_per_replica : 0;
	/* training time still needed, at the running pace (budget projections) */
	act.work_left_s = (double)(r->md.tokens_needed - r->tokens) / r->pace->tokens_per_iter *
			  r->pace->iter_s;
	act.checkpoint_bytes = r->md.ck.size_bytes;
	if (r->pace->step.iteration_s > 0) {	/* the step model's activity mix */
		const struct step_result *st = &r->pace->step;
		act.busy_frac = st->busy_frac;
		act.tensor_active_frac = st->tensor_active_frac;
		act.comm_frac = (st->tp_exposed_s + st->pp_exposed_s + st->dp_exposed_s) /
				st->iteration_s;
	}
	act.checkpoints_written = r->checkpoints;
	if (!held)
		memset(act.pool_nodes_held, 0, sizeof act.pool_nodes_held);
	acct_set_activity(r->acct, ev_now(r->sim), &act);
}

static void io_set_rate(struct run *r, double rate_Bps)
{
	int64_t now = ev_now(r->sim);

	r->io_bytes += r->io_rate_Bps * (now - r->io_since_ns) * 1e-9;
	r->io_since_ns = now;
	r->io_rate_Bps = rate_Bps;
}

/* Leave the current state: its time, and the GC share of training time. */
static void enter(struct run *r, enum run_state st)
{
	int64_t now = ev_now(r->sim);

	r->state_s[r->state] += (now - r->state_since_ns) * 1e-9;
	r->state = st;
	r->state_since_ns = now;
	tell_accounting(r);
}

/* Commit training progress up to now at `done` (fractional) iterations;
 * the committed count is floor(done). */
static void commit_progress(struct run *r, double done)
{
	int64_t now = ev_now(r->sim);
	double elapsed = (now - r->seg_start_ns) * 1e-9;
	int64_t whole = (int64_t)floor(done + 1e-9);

	if (whole > r->seg_target)
		whole = r->seg_target;
	if (pace_has_gc(r->pace))
		r->gc_s[r->state] += elapsed - (done - r->iters) * r->pace->compute_s;
	r->work_since_ck_s += elapsed;
	r->tokens += (whole - r->iters) * r->pace->tokens_per_iter;
	r->iters = whole;
	if (r->iters > r->hwm_iters)
		r->hwm_iters = r->iters;
	r->seg_start_ns = now;
}

/* --- training segments ----------------------------------------------------- */

static void schedule_iter(struct run *r)
{
	r->pending = ev_after(r->sim, s_to_ns(pace_time_s(r->pace, r->iters, r->iters + 1)),
			      r->k_iter, 0);
}

/* Train from r->iters to the next checkpoint, the end of redo or the end
 * of the run, whichever comes first. */
static void start_work(struct run *r)
{
	const struct pace *p = r->pace;
	int64_t left = r->md.tokens_needed - r->tokens;
	int64_t target = r->iters + (left + p->tokens_per_iter - 1) / p->tokens_per_iter;

	if (r->md.ck.enabled && r->ck_next_iter < target)
		target = r->ck_next_iter;
	if (r->iters < r->hwm_iters && r->hwm_iters < target)
		target = r->hwm_iters;
	enter(r, r->iters < r->hwm_iters ? RS_REDO : RS_TRAIN);
	r->seg_start_ns = ev_now(r->sim);
	r->seg_target = target;
	if (r->md.full_fidelity)
		schedule_iter(r);
	else
		r->pending = ev_after(r->sim, s_to_ns(pace_time_s(p, r->iters, target)),
				      r->k_seg_end, 0);
}

static int begin_checkpoint(struct run *r, struct err *e);
static int finish(struct run *r, int completed, struct err *e);
static int try_resume(struct run *r, struct err *e);

static int dp_possible(const struct run *r)
{
	int per_pool[POOLS_MAX];
	long gpus = (long)nodes_held(r, per_pool) * r->md.L.gpus_per_node;
	long dp = gpus / r->md.gpus_per_replica;

	return dp > r->md.L.dp ? r->md.L.dp : (int)dp;
}

static int segment_done(struct run *r, struct err *e)
{
	r->pending = 0;
	if (r->tokens >= r->md.tokens_needed)
		return finish(r, 1, e);
	if (r->md.ck.enabled && r->iters == r->ck_next_iter)
		return begin_checkpoint(r, e);
	start_work(r);		/* redo caught up: training again */
	return 0;
}

static int on_seg_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	commit_progress(r, (double)r->seg_target);
	return segment_done(r, e);
}

/* Full fidelity: one iteration at a time. */
static int on_iter(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	commit_progress(r, (double)(r->iters + 1));
	if (r->iters < r->seg_target) {
		schedule_iter(r);
		return 0;
	}
	return segment_done(r, e);
}

/* --- checkpoints ------------------------------------------------------------ */

static void snapshot_or_write(struct run *r)
{
	const struct ckpt *ck = &r->md.ck;

	r->ckpt_after_drain = false;
	if (ck->mode == CKPT_SYNC)
		io_set_rate(r, ck->size_bytes / ck->write_s);
	r->pending = ev_after(r->sim, s_to_ns(ck->mode == CKPT_SYNC ? ck->write_s
								    : ck->snapshot_s),
			      r->k_ckpt_end, 0);
}

static int begin_checkpoint(struct run *r, struct err *e)
{
	enter(r, RS_CKPT);
	if (event(r, "checkpoint_start", -1, (double)r->iters, e) < 0)
		return -1;
	if (r->draining)
		r->ckpt_after_drain = true;	/* one host buffer: wait for it */
	else
		snapshot_or_write(r);
	return 0;
}

/* A checkpoint is complete and restorable: iterations it holds. */
static int checkpoint_complete(struct run *r, int64_t iters, int64_t tokens, struct err *e)
{
	r->ck_iters = iters;
	r->ck_tokens = tokens;
	r->checkpoints++;
	return event(r, "checkpoint_end", -1, (double)iters, e);
}

static void interrupt(struct run *r, bool lose);

/* Elastic: restart with more replicas once a checkpoint holds the work. */
static int maybe_grow(struct run *r, struct err *e)
{
	int dp = dp_possible(r);

	if (!r->md.spot.elastic || !r->grow_pending || dp <= r->dp)
		return 0;
	r->grow_pending = false;
	interrupt(r, true);
	if (event(r, "elastic_grow", -1, dp, e) < 0)
		return -1;
	return try_resume(r, e);
}

static int on_ckpt_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	const struct ckpt *ck = &r->md.ck;

	(void)ev;
	r->pending = 0;
	r->work_since_ck_s += (ev_now(sim) - r->state_since_ns) * 1e-9;
	r->ck_next_iter = r->iters + ck->interval_iters;
	if (ck->mode == CKPT_SYNC) {
		io_set_rate(r, 0);
		r->work_since_ck_s = 0;
		if (checkpoint_complete(r, r->iters, r->tokens, e) < 0)
			return -1;
	} else {
		/* snapshot taken: drain it behind training */
		r->draining = true;
		r->drain_iters = r->iters;
		r->drain_tokens = r->tokens;
		r->work_at_snapshot_s = r->work_since_ck_s;
		io_set_rate(r, ck->size_bytes / ck->write_s);
		r->drain_end_ns = ev_now(sim) + s_to_ns(ck->write_s);
		r->drain_ev = ev_at(sim, r->drain_end_ns, r->k_drain_end, 0);
	}
	if (r->final_ckpt) {
		enter(r, RS_WAIT);	/* stop: the preemption comes next */
		return 0;
	}
	if (ck->mode == CKPT_SYNC && r->grow_pending) {
		start_work(r);
		return maybe_grow(r, e);
	}
	start_work(r);
	return 0;
}

static int on_drain_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	r->draining = false;
	r->drain_ev = 0;
	io_set_rate(r, 0);
	/* keep only the work after the snapshot; the running segment's share
	 * is added when it commits */
	r->work_since_ck_s -= r->work_at_snapshot_s;
	if (checkpoint_complete(r, r->drain_iters, r->drain_tokens, e) < 0)
		return -1;
	if (r->ckpt_after_drain) {
		snapshot_or_write(r);
		return 0;
	}
	if (working(r) && r->grow_pending)
		return maybe_grow(r, e);
	return 0;
}

/* --- interruptions ------------------------------------------------------------ */

/* Stop whatever runs now.  With lose, training since the last completed
 * checkpoint (and a checkpoint in flight) is lost and rolled back. */
static void interrupt(struct run *r, bool lose)
{
	int64_t now = ev_now(r->sim);
	double lost = 0;

	if (working(r)) {
		double done = iters_now(r, now);
		if (pace_has_gc(r->pace))
			r->gc_s[r->state] += (now - r->seg_start_ns) * 1e-9 -
					     (done - r->iters) * r->pace->compute_s;
		if ((int64_t)floor(done) > r->hwm_iters)
			r->hwm_iters = (int64_t)floor(done);
		lost = r->work_since_ck_s + (now - r->seg_start_ns) * 1e-9;
	} else if (r->state == RS_CKPT) {
		lost = r->work_since_ck_s + (now - r->state_since_ns) * 1e-9;
		if (r->md.ck.mode == CKPT_SYNC && !r->ckpt_after_drain) {
			io_set_rate(r, 0);
			r->checkpoints_lost++;
		}
	} else {
		lost = r->work_since_ck_s;
	}
	if (r->pending)
		ev_cancel(r->sim, r->pending);
	r->pending = 0;
	if (r->draining && lose) {
		ev_cancel(r->sim, r->drain_ev);
		r->draining = false;
		r->checkpoints_lost++;
		io_set_rate(r, 0);
	}
	if (!lose)
		return;
	r->lost_work_s += lost;
	r->last_lost_s = lost;
	r->iters = r->ck_iters;
	r->tokens = r->ck_tokens;
	r->work_since_ck_s = 0;
	r->ck_next_iter = r->ck_iters + r->md.ck.interval_iters;
	r->final_ckpt = false;
	r->ckpt_after_drain = false;
}

/* --- restarts ------------------------------------------------------------------ */

static bool spot_all_full(const struct run *r)
{
	for (int j = 0; j < r->md.spot.n; j++)
		if (r->sp[j].held < r->md.spot.sp[j].nodes)
			return false;
	return true;
}

/* The job is stopped (after detection, a preemption, a repair, returning
 * capacity): restart if it can, else wait. */
static int try_resume(struct run *r, struct err *e)
{
	int dp = dp_possible(r);

	if (r->need_spare > 0 || dp < 1 || (!r->md.spot.elastic && !spot_all_full(r))) {
		if (r->state != RS_WAIT)
			enter(r, RS_WAIT);
		return 0;
	}
	if (dp != r->dp && !r->starting) {
		r->resizes++;
		if (event(r, "resize", -1, dp, e) < 0)
			return -1;
	}
	r->dp = dp;
	r->pace = pace_get(r, dp, e);
	if (r->pace == NULL)
		return -1;
	if (dp < r->dp_min)
		r->dp_min = dp;
	r->grow_pending = dp < r->md.L.dp;
	if (r->starting) {	/* the first start is not a restart */
		r->starting = false;
		start_work(r);
		return 0;
	}
	enter(r, RS_RESTART);
	if (event(r, "restart_start", -1, dp, e) < 0)
		return -1;
	r->pending = ev_after(r->sim, s_to_ns(r->md.fl.restart_s + r->md.ck.load_s),
			      r->k_restart_end, 0);
	return 0;
}

static int on_restart_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	r->pending = 0;
	r->restarts++;
	if (event(r, "restart_end", -1, (double)r->iters, e) < 0)
		return -1;
	start_work(r);
	return 0;
}

/* --- failures ------------------------------------------------------------------- */

static void schedule_failure(struct run *r, int kind)
{
	const struct failure *fl = &r->md.fl;

	if (fl->trace_n > 0) {
		if (r->trace_next < fl->trace_n)
			ev_at(r->sim, s_to_ns(fl->trace[r->trace_next].t_s), r->k_failure,
			      (uint64_t)r->trace_next);
		return;
	}
	if (fl->p[kind].rate_per_s > 0)
		ev_after(r->sim, s_to_ns(failure_next_gap_s(&fl->p[kind], r->rng_fail[kind])),
			 r->k_failure, (uint64_t)kind);
}

static int on_failure(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	const struct failure *fl = &r->md.fl;
	int kind, node;
	char name[24];

	if (fl->trace_n > 0) {
		const struct fail_row *row = &fl->trace[ev->arg];
		kind = row->kind;
		node = row->node;
		r->trace_next = ev->arg + 1;
	} else {
		kind = (int)ev->arg;
		node = (int)gsl_rng_uniform_int(r->rng_where, (unsigned long)r->md.L.nodes);
	}
	schedule_failure(r, kind);
	if (r->state == RS_DONE)
		return 0;
	r->failures++;
	r->fail_kind[kind]++;
	/* the node goes to repair; a spare takes its place if there is one */
	if (r->spares_free > 0) {
		r->spares_free--;
	} else {
		r->need_spare++;
		r->spare_waits++;
	}
	ev_after(sim, s_to_ns(fl->repair_s), r->k_repair, 0);
	snprintf(name, sizeof name, "failure_%s", fail_kind_names[kind]);
	if (r->state == RS_WAIT) {
		/* nothing runs: the failure only takes a node */
		return event(r, name, node, 0, e);
	}
	if (r->state == RS_DETECT || r->state == RS_RESTART)
		r->interrupted_restarts++;
	interrupt(r, true);
	if (event(r, name, node, r->last_lost_s, e) < 0)
		return -1;
	enter(r, RS_DETECT);
	r->pending = ev_after(sim, s_to_ns(fl->detect_s), r->k_detect_end, 0);
	return 0;
}

static int on_detect_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	r->pending = 0;
	return try_resume(r, e);
}

static int on_repair(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	if (r->need_spare > 0)
		r->need_spare--;	/* the repaired node replaces the failed one */
	else
		r->spares_free++;
	if (r->state == RS_WAIT && !r->final_ckpt)
		return try_resume(r, e);
	return 0;
}

/* --- spot preemptions ------------------------------------------------------------- */

static void schedule_spot(struct run *r, int j)
{
	const struct spot_pool *p = &r->md.spot.sp[j];
	struct spot_state *s = &r->sp[j];
	double now_s = ev_now(r->sim) * 1e-9;

	if (p->has_trace) {
		s->next_change_s = spot_next_change(p, now_s, &s->next_avail);
		if (!(s->next_change_s < RUN_HORIZON_S))
			return;
		if (s->next_avail < s->held)
			ev_at(r->sim, s_to_ns(fmax(now_s, s->next_change_s - p->notice_s)),
			      r->k_notice, (uint64_t)j);
		ev_at(r->sim, s_to_ns(s->next_change_s), r->k_spot_change, (uint64_t)j);
		return;
	}
	/* rate model: the next notice among the nodes held and not yet noticed */
	if (s->notice_ev)
		ev_cancel(r->sim, s->notice_ev);
	s->notice_ev = 0;
	if (p->rate_per_node_s > 0 && s->held - s->notices > 0)
		s->notice_ev = ev_after(r->sim, s_to_ns(gsl_ran_exponential(r->rng_spot,
				1.0 / (p->rate_per_node_s * (s->held - s->notices)))),
				r->k_notice, (uint64_t)j);
}

/* Would losing k spot nodes now stop the job?  Waiting needs every pool
 * full; elastic stops only if fewer whole replicas than run would remain. */
static bool loss_stops_job(const struct run *r, int k)
{
	int per_pool[POOLS_MAX];
	long gpus = ((long)nodes_held(r, per_pool) - k) * r->md.L.gpus_per_node;
	long dp = gpus / r->md.gpus_per_replica;

	if (!r->md.spot.elastic)
		return true;
	return (dp > r->md.L.dp ? r->md.L.dp : dp) < r->dp;
}

/* Time a complete checkpoint would take from now. */
static double checkpoint_needs_s(const struct run *r)
{
	const struct ckpt *ck = &r->md.ck;
	double drain_left = r->draining ? (r->drain_end_ns - ev_now(r->sim)) * 1e-9 : 0;

	return ck->mode == CKPT_SYNC ? ck->write_s : drain_left + ck->snapshot_s + ck->write_s;
}

static int on_notice(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	int j = (int)ev->arg;
	const struct spot_pool *p = &r->md.spot.sp[j];
	struct spot_state *s = &r->sp[j];
	double left_s;
	int lose;

	if (p->has_trace) {
		lose = s->held - s->next_avail;
		left_s = s->next_change_s - ev_now(sim) * 1e-9;
	} else {
		lose = 1;
		left_s = p->notice_s;
		s->notice_ev = 0;
		s->notices++;
		ev_after(sim, s_to_ns(p->notice_s), r->k_spot_preempt, (uint64_t)j);
		schedule_spot(r, j);
	}
	if (event(r, "preempt_notice", p->pool, lose, e) < 0)
		return -1;
	if (r->state == RS_DONE || !r->md.ck.enabled || !r->md.ck.on_notice ||
	    !loss_stops_job(r, lose))
		return 0;
	if (working(r)) {
		double done = iters_now(r, ev_now(sim));
		if ((int64_t)floor(done) <= r->ck_iters || checkpoint_needs_s(r) > left_s)
			return 0;	/* nothing new to save, or no time to */
		/* the partial iteration is wasted; checkpoint what is whole */
		commit_progress(r, done);
		r->lost_work_s += (done - r->iters) * r->pace->iter_s;
		if (r->pending)
			ev_cancel(sim, r->pending);
		r->pending = 0;
		r->final_ckpt = true;
		r->notice_checkpoints++;
		return begin_checkpoint(r, e);
	}
	if (r->state == RS_CKPT)	/* stop after it, if it ends in time */
		r->final_ckpt = true;
	return 0;
}

/* k nodes of spot pool j are gone. */
static int preempt(struct run *r, int j, int k, struct err *e)
{
	struct spot_state *s = &r->sp[j];
	bool stopped_for_notice = r->state == RS_WAIT && r->final_ckpt;
	bool stops = loss_stops_job(r, k);

	s->held -= k;
	r->preemptions++;
	r->preempted_nodes += k;
	tell_accounting(r);
	if (event(r, "preemption", r->md.spot.sp[j].pool, k, e) < 0)
		return -1;
	if (r->state == RS_DONE)
		return 0;
	if (stopped_for_notice) {
		r->final_ckpt = false;
		if (r->draining)	/* the drain did not make it */
			interrupt(r, true);
		return try_resume(r, e);
	}
	if (r->state == RS_WAIT || r->state == RS_DETECT)
		return 0;	/* resumes when it can */
	if ((working(r) || r->state == RS_CKPT) && !stops)
		return 0;	/* idle nodes went */
	interrupt(r, true);
	if (event(r, "preempted_work", -1, r->last_lost_s, e) < 0)
		return -1;
	return try_resume(r, e);
}

static int capacity_return(struct run *r, int j, int k, struct err *e)
{
	r->sp[j].held += k;
	tell_accounting(r);
	if (event(r, "capacity_return", r->md.spot.sp[j].pool, k, e) < 0)
		return -1;
	if (r->state == RS_WAIT && !r->final_ckpt)
		return try_resume(r, e);
	if (r->md.spot.elastic && dp_possible(r) > r->dp) {
		r->grow_pending = true;
		if (!r->md.ck.enabled && working(r))
			return maybe_grow(r, e);
	}
	return 0;
}

static int on_spot_change(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	int j = (int)ev->arg;
	struct spot_state *s = &r->sp[j];
	int delta = s->next_avail - s->held;
	int rc;

	(void)sim;
	rc = delta < 0 ? preempt(r, j, -delta, e) : capacity_return(r, j, delta, e);
	if (rc < 0)
		return -1;
	schedule_spot(r, j);
	return 0;
}

static int on_spot_preempt(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	int j = (int)ev->arg;

	r->sp[j].notices--;
	if (preempt(r, j, 1, e) < 0)
		return -1;
	ev_after(sim, s_to_ns(r->md.spot.sp[j].replacement_s), r->k_spot_return, (uint64_t)j);
	schedule_spot(r, j);
	return 0;
}

static int on_spot_return(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	int j = (int)ev->arg;

	(void)sim;
	if (capacity_return(r, j, 1, e) < 0)
		return -1;
	schedule_spot(r, j);
	return 0;
}

/* --- samples and the end --------------------------------------------------------- */

static int sample(struct run *r, struct err *e)
{
	int64_t now = ev_now(r->sim);
	double row[ROW_MAX], dt_s = (now - r->last_sample_ns) * 1e-9;
	int per_pool[POOLS_MAX];
	double done = iters_now(r, now);

	io_set_rate(r, r->io_rate_Bps);
	row[TS_TOKENS] = r->tokens + (done - r->iters) * (working(r) ? r->pace->tokens_per_iter : 0);
	row[TS_STATE] = r->state;
	row[TS_ACTIVE_GPUS] = working(r) ? r->dp * r->md.gpus_per_replica : 0;
	row[TS_NODES] = r->state == RS_DONE ? 0 : nodes_held(r, per_pool);
	row[TS_DP] = r->dp;
	row[TS_IO_BPS] = dt_s > 0 ? (r->io_bytes - r->io_bytes_at_sample) / dt_s : 0;
	row[TS_IO_BYTES] = r->io_bytes;
	row[TS_STALL] = r->state_s[RS_CKPT] +
			(r->state == RS_CKPT ? (now - r->state_since_ns) * 1e-9 : 0);
	row[TS_LOST] = r->lost_work_s;
	r->io_bytes_at_sample = r->io_bytes;
	r->last_sample_ns = now;
	acct_sample(r->acct, now, row + TS_COUNT);
	if (r->opts->progress)
		r->opts->progress(r->opts->progress_ctx,
				  row[TS_TOKENS] / (double)r->md.tokens_needed, now * 1e-9);
	return rep_sample(r->rep, now / 1e9, row, e);
}

static int on_sample(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)ev;
	int stop;

	if (sample(r, e) < 0)
		return -1;
	stop = acct_poll(r->acct, ev_now(sim), r->rep, e);	/* budgets */
	if (stop < 0)
		return -1;
	if (stop > 0) {
		if (working(r))
			commit_progress(r, iters_now(r, ev_now(sim)));
		return finish(r, 0, e);
	}
	ev_after(sim, r->sample_ns, r->k_sample, 0);
	return 0;
}

static int finish(struct run *r, int completed, struct err *e)
{
	r->completed = completed;
	if (r->draining) {
		ev_cancel(r->sim, r->drain_ev);
		r->draining = false;
		io_set_rate(r, 0);
	}
	enter(r, RS_DONE);
	r->end_ns = ev_now(r->sim);
	io_set_rate(r, 0);
	if (event(r, "run_end", -1, (double)r->iters, e) < 0)
		return -1;
	ev_stop(r->sim);
	return 0;
}

/* --- outputs ----------------------------------------------------------- */

static void summarize(struct run *r)
{
	const struct model *md = &r->md;
	struct report *rep = r->rep;
	const struct pace *full = &md->full;
	double dur_s = r->end_ns * 1e-9;
	double iter_s = full->iter_s + (full->every ? full->manual_s / full->every : 0);
	double gc_s = 0;
	char name[64];

	for (int s = 0; s < RS_COUNT; s++)
		gc_s += r->gc_s[s];
	rep_summary(rep, "duration_s", dur_s, "s");
	rep_summary(rep, "iterations", (double)r->iters, "");
	rep_summary(rep, "tokens", (double)r->tokens, "tokens");
	rep_summary(rep, "iteration_time_s", iter_s, "s");
	rep_summary(rep, "tflops_per_gpu", md->flops_per_iter / (iter_s * md->L.gpus) / 1e12,
		    "TFLOP/s");
	rep_summary(rep, "mfu", tfm_model_flops_per_token(&md->m) * md->tokens_per_iter /
		    (iter_s * md->L.gpus * md->g.peak_bf16_flops), "");
	/* useful training time: the tokens done at the full cluster's pace
	 * without GC, so slower elastic training and GC count as lost */
	rep_summary(rep, "goodput", dur_s > 0 ? (double)r->tokens / md->tokens_per_iter *
		    md->iteration_s / dur_s : NAN, "");
	acct_summarize(r->acct, r->end_ns, rep);
	rep_summary(rep, "failures", (double)r->failures, "");
	rep_summary(rep, "preemptions", (double)r->preemptions, "");
	rep_summary(rep, "checkpoints", (double)r->checkpoints, "");
	rep_summary(rep, "restarts", (double)r->restarts, "");
	rep_summary(rep, "lost_work_s", r->lost_work_s, "s");
	rep_summary(rep, "peak_memory_gib", md->mem.total_bytes / 1073741824.0, "GiB");
	rep_summary(rep, "completed", r->completed, "");
	rep_summary(rep, "duration_days", dur_s / 86400.0, "days");
	rep_summary(rep, "params", md->params, "");
	rep_summary(rep, "gpus", md->L.gpus, "");
	for (int s = 0; s < RS_DONE; s++) {
		snprintf(name, sizeof name, "time_%s_s", state_names[s]);
		rep_summary(rep, name, r->state_s[s] - r->gc_s[s], "s");
	}
	rep_summary(rep, "time_gc_s", gc_s, "s");
	for (int k = 0; k < FK_COUNT; k++) {
		snprintf(name, sizeof name, "failures_%s", fail_kind_names[k]);
		rep_summary(rep, name, (double)r->fail_kind[k], "");
	}
	rep_summary(rep, "preempted_nodes", (double)r->preempted_nodes, "nodes");
	rep_summary(rep, "notice_checkpoints", (double)r->notice_checkpoints, "");
	rep_summary(rep, "checkpoints_lost", (double)r->checkpoints_lost, "");
	rep_summary(rep, "interrupted_restarts", (double)r->interrupted_restarts, "");
	rep_summary(rep, "spare_waits", (double)r->spare_waits, "");
	rep_summary(rep, "resizes", (double)r->resizes, "");
	rep_summary(rep, "dp_min", r->dp_min, "replicas");
	rep_summary(rep, "mtti_s", md->mtti_s, "s");
	rep_summary(rep, "checkpoint_interval_s", md->ck.interval_iters * md->iteration_s, "s");
	rep_summary(rep, "checkpoint_interval_iters", (double)md->ck.interval_iters, "");
	rep_summary(rep, "checkpoint_stall_s", md->ck.stall_s, "s");
	rep_summary(rep, "young_interval_s", md->ck.young_s, "s");
	rep_summary(rep, "daly_interval_s", md->ck.daly_s, "s");
	rep_summary(rep, "checkpoint_bytes_written", r->io_bytes, "bytes");
	rep_summary(rep, "gc_slowdown", iter_s / full->compute_s, "");
	rep_summary(rep, "events", (double)ev_count(r->sim), "");
}

/* /step: the step model's breakdown of one full-cluster iteration (the
 * formula model knows only the total), then what the run adds to it. */
static int write_step(struct run *r, struct err *e)
{
	const struct model *md = &r->md;
	struct report *rep = r->rep;

	if (md->src.use_step) {
		if (step_report(rep, &md->full.step, e) < 0)
			return -1;
	} else {
		rep_step_scalar(rep, "iteration_s", md->iteration_s, "s");
		rep_step_scalar(rep, "compute_s", md->iteration_s, "s");
		rep_step_scalar(rep, "flops_per_iter", md->flops_per_iter, "FLOP");
		rep_step_scalar(rep, "peak_memory_bytes", md->mem.total_bytes, "bytes");
	}
	rep_step_scalar(rep, "iteration_with_gc_s", md->full.iter_s, "s");
	rep_step_scalar(rep, "tokens_per_iteration", (double)md->tokens_per_iter, "tokens");
	rep_step_scalar(rep, "checkpoint_write_s", md->ck.write_s, "s");
	rep_step_scalar(rep, "checkpoint_load_s", md->ck.load_s, "s");
	rep_step_scalar(rep, "checkpoint_bytes", md->ck.size_bytes, "bytes");
	return 0;
}

/* --- entry points ------------------------------------------------------ */

int run_check(const struct scenario *sc, FILE *out, struct err *e)
{
	struct model md;
	struct net *net;
	int rc;

	if (model_from_scenario(sc, NULL, &md, e) < 0)
		return -1;
	/* The network is built only to check it until the step model uses it. */
	net = net_build(sc, e);
	if (net == NULL) {
		model_free(&md);
		return -1;
	}
	net_free(net);
	if (out != NULL) {
		fprintf(out, "# derived\n");
		fprintf(out, "parameters            %.4g\n", md.params);
		fprintf(out, "flops_per_token       %.4g  (model, no recomputation)\n",
			tfm_model_flops_per_token(&md.m));
		fprintf(out, "gpus                  %d  (%d nodes of %d)\n", md.L.gpus,
			md.L.nodes, md.L.gpus_per_node);
		fprintf(out, "layout                tp %d  pp %d  dp %d  microbatches %d\n",
			md.L.tp, md.L.pp, md.L.dp, md.L.microbatches);
		fprintf(out, "iteration_time_s      %.4f\n", md.iteration_s);
		fprintf(out, "iterations            %lld\n", (long long)md.total_iters);
		fprintf(out, "checkpoint            %.4g bytes, write %.1f s, stall %.2f s, "
			"every %lld iterations\n", md.ck.size_bytes, md.ck.write_s,
			md.ck.stall_s, (long long)md.ck.interval_iters);
		fprintf(out, "mtti_s                %.6g  (young %.6g s, daly %.6g s)\n",
			md.mtti_s, md.ck.young_s, md.ck.daly_s);
		step_print_memory(out, &md.mem, md.g.hbm_bytes);
	}
	rc = acct_check(sc, &md.g, &md.L, &md.pools, out, e);
	model_free(&md);
	return rc;
}

static int register_kinds(struct run *r)
{
	r->k_seg_end = ev_kind(r->sim, "segment_end", on_seg_end, r);
	r->k_iter = ev_kind(r->sim, "iteration", on_iter, r);
	r->k_ckpt_end = ev_kind(r->sim, "checkpoint_end", on_ckpt_end, r);
	r->k_drain_end = ev_kind(r->sim, "drain_end", on_drain_end, r);
	r->k_failure = ev_kind(r->sim, "failure", on_failure, r);
	r->k_detect_end = ev_kind(r->sim, "detect_end", on_detect_end, r);
	r->k_restart_end = ev_kind(r->sim, "restart_end", on_restart_end, r);
	r->k_repair = ev_kind(r->sim, "repair", on_repair, r);
	r->k_notice = ev_kind(r->sim, "preempt_notice", on_notice, r);
	r->k_spot_change = ev_kind(r->sim, "spot_change", on_spot_change, r);
	r->k_spot_preempt = ev_kind(r->sim, "spot_preempt", on_spot_preempt, r);
	r->k_spot_return = ev_kind(r->sim, "spot_return", on_spot_return, r);
	r->k_sample = ev_kind(r->sim, "sample", on_sample, r);
	return r->k_sample < 0 ? -1 : 0;
}

static void start_processes(struct run *r)
{
	if (r->md.fl.enabled) {
		if (r->md.fl.trace_n > 0)
			schedule_failure(r, 0);
		else
			for (int k = 0; k < FK_COUNT; k++)
				schedule_failure(r, k);
	}
	for (int j = 0; j < r->md.spot.n; j++) {
		r->sp[j].held = spot_avail_at(&r->md.spot.sp[j], 0);
		schedule_spot(r, j);
	}
}

static int run_events(struct run *r, struct err *e)
{
	int64_t max_ns = s_to_ns(sc_float(r->sc, "run.max_days") * 86400.0);

	for (int i = 0; i < TS_COUNT; i++)
		if (rep_series(r->rep, series[i].name, series[i].unit) < 0)
			return err_set(e, ERR_RUN, "cannot declare series %s", series[i].name);
	if (acct_series(r->acct, r->rep) < 0 || TS_COUNT + acct_columns(r->acct) > ROW_MAX)
		return err_set(e, ERR_RUN, "cannot declare the accounting series");
	r->sample_ns = s_to_ns(sc_float(r->sc, "output.sample_interval_s"));
	r->spares_free = r->md.fl.spares;
	r->dp = r->dp_min = r->md.L.dp;
	r->pace = &r->md.full;
	r->ck_next_iter = r->md.ck.interval_iters;
	start_processes(r);
	r->state = RS_WAIT;
	r->starting = true;
	if (try_resume(r, e) < 0)
		return -1;
	if (sample(r, e) < 0)
		return -1;
	ev_after(r->sim, r->sample_ns, r->k_sample, 0);
	if (ev_run(r->sim, max_ns, e) < 0)
		return -1;
	if (r->state != RS_DONE) {
		if (working(r))
			commit_progress(r, iters_now(r, ev_now(r->sim)));
		if (finish(r, 0, e) < 0)
			return -1;
	}
	return sample(r, e);
}

int run_simulate(const struct scenario *sc, const struct run_opts *o,
		 struct report *rep, struct err *e)
{
	struct run r;
	int rc = -1;

	memset(&r, 0, sizeof r);
	r.sc = sc;
	r.opts = o;
	r.rep = rep;
	if (model_from_scenario(sc, o->pace_cache, &r.md, e) < 0)
		return -1;
	r.acct = acct_new(sc, &r.md.g, &r.md.L, &r.md.pools, e);
	if (r.acct == NULL) {
		model_free(&r.md);
		return -1;
	}
	r.sim = ev_sim_new();
	r.paces = calloc((size_t)r.md.L.dp + 1, sizeof *r.paces);
	for (int k = 0; k < FK_COUNT; k++) {
		char name[32];
		snprintf(name, sizeof name, "failures.%s", fail_kind_names[k]);
		r.rng_fail[k] = rng_stream(o->seed, name);
	}
	r.rng_where = rng_stream(o->seed, "failures.node");
	r.rng_spot = rng_stream(o->seed, "spot");
	if (r.sim == NULL || r.paces == NULL || r.rng_where == NULL || r.rng_spot == NULL ||
	    !r.rng_fail[0] || !r.rng_fail[1] || !r.rng_fail[2] || !r.rng_fail[3]) {
		err_set(e, ERR_RUN, "out of memory");
		goto out;
	}
	if (register_kinds(&r) < 0) {
		err_set(e, ERR_RUN, "cannot register event kinds");
		goto out;
	}
	if (run_events(&r, e) < 0)
		goto out;
	summarize(&r);
	rc = write_step(&r, e);
out:
	for (int k = 0; k < FK_COUNT; k++)
		if (r.rng_fail[k])
			gsl_rng_free(r.rng_fail[k]);
	if (r.rng_where)
		gsl_rng_free(r.rng_where);
	if (r.rng_spot)
		gsl_rng_free(r.rng_spot);
	free(r.paces);
	ev_sim_free(r.sim);
	acct_free(r.acct);
	model_free(&r.md);
	return rc;
}
