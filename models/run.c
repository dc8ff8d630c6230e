/*
 * run.c -- the whole-run model's core (API in run.h).
 *
 * The settings schema, the entry point run_simulate(), the event kinds
 * and the state machine's core: entering a state, committing progress
 * and training segments.  Its parts, each one concern, share struct run
 * through run_int.h: run_model.c (the figures), run_ckpt.c (checkpoints,
 * storage I/O, accounting hand-off), run_fail.c (interruptions, restarts,
 * failures), run_spot.c (spot preemptions) and run_out.c (samples, the
 * end, summary and /step).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/rng.h"
#include "models/parallel.h"
#include "models/run_int.h"
#include "models/straggler.h"
#include "topologies/net.h"

static const struct cfg_setting run_settings[] = {
	{ "run.seed", CFG_INT, "", 0, 9.2e18, "1", NULL,
	  "seed of every random stream (--seed overrides)" },
	{ "run.max_days", CFG_FLOAT, "days", 1e-6, 1e6, "3650", NULL,
	  "give up (completed = 0) if the run has not finished by then" },
	{ "run.full_fidelity", CFG_BOOL, "", 0, 0, "false", NULL,
	  "one event per iteration instead of analytic progress (to check the fast path)" },
	{ "output.sample_interval_s", CFG_FLOAT, "s", 1e-3, 1e9, "3600", NULL,
	  "time between time-series samples (at most 1e8 over the run at full speed)" },
	CFG_END
};

static const struct cfg_setting *const setting_tables[] = {
	run_settings, pace_settings, par_settings, tfm_settings, layout_settings, ramp_settings,
	gpu_settings, pool_settings, spot_settings, ckpt_settings,
	ckpt_storage_settings, failure_settings, gc_settings, evl_settings, net_settings, strag_settings,
	NULL
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

const char *const run_state_names[RS_COUNT] = {
	"training", "redo", "checkpoint", "detecting", "waiting", "restarting", "done"
};

/* The run's time series, in column order after time_s; accounting's
 * columns follow. */
static const struct { const char *name, *unit; } series[TS_COUNT] = {
	{ "tokens", "tokens" }, { "state", "" }, { "active_gpus", "GPUs" },
	{ "nodes_held", "nodes" }, { "dp", "replicas" },
	{ "storage_write_Bps", "bytes/s" }, { "checkpoint_bytes", "bytes" },
	{ "checkpoint_stall_s", "s" }, { "lost_work_s", "s" },
};

/* The run's event kinds and what who and value mean for each; the file
 * carries these sentences as attributes of /events.  failure_KIND rows are
 * added per failure kind (run_declare_events). */
static const char *const run_event_kinds[][2] = {
	{ "checkpoint_start", "a checkpoint began; who -1, value = iterations done" },
	{ "checkpoint_end", "a checkpoint became durable; who -1, value = iterations it holds" },
	{ "elastic_grow", "training stops to grow; who -1, value = the data-parallel "
			  "replicas it will run with" },
	{ "resize", "the job resumes at another size; who -1, value = data-parallel replicas" },
	{ "restart_start", "a restart (reload the checkpoint) began; who -1, "
			   "value = data-parallel replicas" },
	{ "restart_end", "training resumed; who -1, value = iterations done" },
	{ "preempt_notice", "the provider warned of a preemption; who = spot pool, "
			    "value = nodes to be taken" },
	{ "preemption", "spot nodes were taken; who = spot pool, value = nodes taken" },
	{ "preempted_work", "a preemption stopped training; who -1, value = work lost (s)" },
	{ "capacity_return", "spot nodes came back; who = spot pool, value = nodes returned" },
	{ "run_end", "the run ended; who -1, value = iterations done" },
};

static int run_declare_events(struct report *rep)
{
	char name[64], meaning[160];
	size_t i;

	for (i = 0; i < sizeof run_event_kinds / sizeof run_event_kinds[0]; i++)
		if (rep_event_kind(rep, run_event_kinds[i][0], run_event_kinds[i][1]) < 0)
			return -1;
	for (i = 0; i < FK_COUNT; i++) {
		snprintf(name, sizeof name, "failure_%s", fail_kind_names[i]);
		snprintf(meaning, sizeof meaning, "a %s failure took a node; who = node, "
			 "value = work lost (s), 0 when nothing was running",
			 fail_kind_names[i]);
		if (rep_event_kind(rep, name, meaning) < 0)
			return -1;
	}
	return 0;
}

/* --- the run's state -------------------------------------------------- */

int64_t run_s_to_ns(double s)
{
	if (!(s < RUN_HORIZON_S))
		return (int64_t)(RUN_HORIZON_S * 1e9);
	return (int64_t)llround(s * 1e9);
}

bool run_working(const struct run *r)
{
	return r->state == RS_TRAIN || r->state == RS_REDO;
}

/* The pace at dp replicas, computed once (a step simulation) and cached. */
const struct pace *run_pace_get(struct run *r, int dp, struct err *e)
{
	if (dp == r->md->L.dp)
		return &r->md->full;
	if (!r->paces[dp].ready && pace_compute(&r->src, dp, &r->paces[dp], e) < 0)
		return NULL;
	return &r->paces[dp];
}

double run_iters_now(const struct run *r, int64_t now_ns)
{
	if (!run_working(r))
		return (double)r->iters;
	return pace_iters_at(r->pace, r->iters, (now_ns - r->seg_start_ns) * 1e-9);
}

int run_event(struct run *r, const char *kind, int64_t who, double value,
	      struct err *e)
{
	/* ns / 1e9, not ns * 1e-9: whole seconds stay whole */
	return rep_event(r->rep, ev_now(r->sim) / 1e9, kind, who, value, e);
}

/* Count the time waited for a spare up to now; called before the state
 * or the nodes short (need_spare) change. */
void run_spare_clock(struct run *r)
{
	int64_t now = ev_now(r->sim);

	if (r->state == RS_WAIT && r->need_spare > 0)
		r->spare_wait_s += (now - r->spare_clock_ns) * 1e-9;
	r->spare_clock_ns = now;
}

/* Leave the current state: its time, and the GC share of training time. */
void run_enter(struct run *r, enum run_state st)
{
	int64_t now = ev_now(r->sim);

	run_spare_clock(r);
	r->state_s[r->state] += (now - r->state_since_ns) * 1e-9;
	r->state = st;
	r->state_since_ns = now;
	run_tell_accounting(r);
}

/* Book the pauses in elapsed seconds of a segment that reached done
 * iterations, whole of them complete: the evaluations that ended, GC the
 * rest.  Cut short inside the pauses after iteration whole (an
 * interruption), the evaluation, which comes first, keeps what elapsed of
 * it and GC's pause there gets the rest. */
void run_add_pauses(struct run *r, double elapsed, double done, int64_t whole)
{
	const struct pace *p = r->pace;
	double pauses = elapsed - (done - r->iters) * p->compute_s;
	double ev_s = pace_eval_s(p, r->iters, whole);
	double cut = pace_time_s(p, r->iters, whole) - elapsed;

	if (cut > 0 && whole > r->iters) {
		double gc_at = p->every > 0 && whole % p->every == 0 ? p->manual_s : 0;
		ev_s -= fmin(pace_eval_s(p, whole - 1, whole), fmax(0, cut - gc_at));
	}
	if (p->iter_s == p->compute_s && p->every == 0)
		ev_s = pauses;	/* no GC: every pause is an evaluation */
	r->eval_s[r->state] += ev_s;
	r->gc_s[r->state] += pauses - ev_s;
}

/* Commit training progress up to now at `done` (fractional) iterations;
 * the committed count is floor(done). */
void run_commit_progress(struct run *r, double done)
{
	int64_t now = ev_now(r->sim);
	double elapsed = (now - r->seg_start_ns) * 1e-9;
	int64_t whole = (int64_t)floor(done + 1e-9);

	if (whole > r->seg_target)
		whole = r->seg_target;
	if (pace_has_pauses(r->pace))
		run_add_pauses(r, elapsed, done, whole);
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
	r->pending = ev_after(r->sim, run_s_to_ns(pace_time_s(r->pace, r->iters, r->iters + 1)),
			      r->k_iter, 0);
}

/* Train from r->iters to the next checkpoint, the end of redo, the end of
 * a batch ramp-up phase or the end of the run, whichever comes first.  A
 * ramp-up runs on the whole cluster (ramp.h: no elastic job has one), at
 * the pace of the phase's batch. */
void run_start_work(struct run *r)
{
	int k = ramp_phase(&r->md->ramp, r->iters);

	if (r->md->ramp.n > 0)
		r->pace = run_phase_pace(r->md, k);

	const struct pace *p = r->pace;
	int64_t left = r->md->tokens_needed - r->tokens;
	int64_t target = r->iters + (left + p->tokens_per_iter - 1) / p->tokens_per_iter;

	if (k >= 0 && r->md->ramp.end_iter[k] < target)
		target = r->md->ramp.end_iter[k];
	if (r->md->ck.enabled && r->ck_next_iter < target)
		target = r->ck_next_iter;
	if (r->iters < r->hwm_iters && r->hwm_iters < target)
		target = r->hwm_iters;
	run_enter(r, r->iters < r->hwm_iters ? RS_REDO : RS_TRAIN);
	r->seg_start_ns = ev_now(r->sim);
	r->seg_target = target;
	if (r->md->full_fidelity)
		schedule_iter(r);
	else
		r->pending = ev_after(r->sim, run_s_to_ns(pace_time_s(p, r->iters, target)),
				      r->k_seg_end, 0);
}

int run_dp_possible(const struct run *r)
{
	int per_pool[POOLS_MAX];
	long gpus = (long)run_nodes_held(r, per_pool) * r->md->L.gpus_per_node;
	long dp = gpus / r->md->gpus_per_replica;

	return dp > r->md->L.dp ? r->md->L.dp : (int)dp;
}

static int segment_done(struct run *r, struct err *e)
{
	r->pending = 0;
	if (r->tokens >= r->md->tokens_needed)
		return run_finish(r, 1, e);
	if (r->md->ck.enabled && r->iters == r->ck_next_iter)
		return run_begin_checkpoint(r, e);
	run_start_work(r);		/* redo caught up: training again */
	return 0;
}

static int on_seg_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	run_commit_progress(r, (double)r->seg_target);
	return segment_done(r, e);
}

/* Full fidelity: one iteration at a time. */
static int on_iter(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	run_commit_progress(r, (double)(r->iters + 1));
	if (r->iters < r->seg_target) {
		schedule_iter(r);
		return 0;
	}
	return segment_done(r, e);
}

/* --- entry points ------------------------------------------------------ */

static int register_kinds(struct run *r)
{
	r->k_seg_end = ev_kind(r->sim, "segment_end", on_seg_end, r);
	r->k_iter = ev_kind(r->sim, "iteration", on_iter, r);
	r->k_ckpt_end = ev_kind(r->sim, "checkpoint_end", run_on_ckpt_end, r);
	r->k_drain_end = ev_kind(r->sim, "drain_end", run_on_drain_end, r);
	r->k_failure = ev_kind(r->sim, "failure", run_on_failure, r);
	r->k_detect_end = ev_kind(r->sim, "detect_end", run_on_detect_end, r);
	r->k_restart_end = ev_kind(r->sim, "restart_end", run_on_restart_end, r);
	r->k_repair = ev_kind(r->sim, "repair", run_on_repair, r);
	r->k_notice = ev_kind(r->sim, "preempt_notice", run_on_notice, r);
	r->k_spot_change = ev_kind(r->sim, "spot_change", run_on_spot_change, r);
	r->k_spot_preempt = ev_kind(r->sim, "spot_preempt", run_on_spot_preempt, r);
	r->k_spot_return = ev_kind(r->sim, "spot_return", run_on_spot_return, r);
	r->k_sample = ev_kind(r->sim, "sample", run_on_sample, r);
	return r->k_sample < 0 ? -1 : 0;
}

static void start_processes(struct run *r)
{
	if (r->md->fl.enabled) {
		if (r->md->fl.trace_n > 0)
			run_schedule_failure(r, 0);
		else
			for (int k = 0; k < FK_COUNT; k++)
				run_schedule_failure(r, k);
	}
	for (int j = 0; j < r->md->spot.n; j++) {
		r->sp[j].held = spot_avail_at(&r->md->spot.sp[j], 0);
		run_schedule_spot(r, j);
	}
}

static int run_events(struct run *r, struct err *e)
{
	int64_t max_ns = run_s_to_ns(r->md->max_s);

	for (int i = 0; i < TS_COUNT; i++)
		if (i == TS_STATE
			    ? rep_series_enum(r->rep, series[i].name, run_state_names, RS_COUNT) < 0
			    : rep_series(r->rep, series[i].name, series[i].unit) < 0)
			return err_set(e, ERR_RUN, "cannot declare series %s", series[i].name);
	if (run_declare_events(r->rep) < 0)
		return err_set(e, ERR_RUN, "cannot declare the event kinds");
	if (acct_series(r->acct, r->rep) < 0 || TS_COUNT + acct_columns(r->acct) > ROW_MAX)
		return err_set(e, ERR_RUN, "cannot declare the accounting series");
	r->sample_ns = run_s_to_ns(r->md->sample_interval_s);
	r->spares_free = r->md->fl.spares;
	r->dp = r->dp_min = r->md->L.dp;
	r->pace = &r->md->full;
	r->ck_next_iter = r->md->ck.interval_iters;
	start_processes(r);
	r->state = RS_WAIT;
	r->starting = true;
	if (run_try_resume(r, e) < 0)
		return -1;
	if (run_sample(r, e) < 0)
		return -1;
	ev_after(r->sim, r->sample_ns, r->k_sample, 0);
	if (ev_run(r->sim, max_ns, e) < 0)
		return -1;
	if (r->state != RS_DONE) {
		if (run_working(r))
			run_commit_progress(r, run_iters_now(r, ev_now(r->sim)));
		if (run_finish(r, 0, e) < 0)
			return -1;
	}
	return run_sample(r, e);
}

int run_simulate(const struct scenario *sc, const struct run_opts *o,
		 struct report *rep, struct err *e)
{
	struct run_job *j = run_job_from_scenario(sc, o->pace_cache, e);
	int rc = j ? run_simulate_job(j, o, rep, e) : -1;

	run_job_free(j);
	return rc;
}

int run_simulate_job(const struct run_job *j, const struct run_opts *o,
		     struct report *rep, struct err *e)
{
	struct run r;
	int rc = -1;

	memset(&r, 0, sizeof r);
	r.opts = o;
	r.rep = rep;
	r.md = &j->md;
	r.src = j->md.src;
	r.src.cache = o->pace_cache;
	if ((r.acct = acct_new_like(j->acct, e)) == NULL)
		return -1;
	r.sim = ev_sim_new();
	r.paces = calloc((size_t)r.md->L.dp + 1, sizeof *r.paces);
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
	run_summarize(&r);
	if (run_end_reason(&r, e) < 0)
		goto out;
	rc = run_write_step(&r, e);
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
	return rc;
}
