/* run.c -- see run.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/ev.h"
#include "sim/rng.h"
#include "models/acct.h"
#include "models/checkpoint.h"
#include "models/failure.h"
#include "models/gpu.h"
#include "models/layout.h"
#include "models/pool.h"
#include "models/run.h"
#include "models/transformer.h"
#include "topologies/net.h"

static const struct cfg_setting run_settings[] = {
	{ "run.seed", CFG_INT, "", 0, 9.2e18, "1", NULL,
	  "seed of every random stream (--seed overrides)" },
	{ "run.max_days", CFG_FLOAT, "days", 1e-6, 1e6, "3650", NULL,
	  "give up (completed = 0) if the run has not finished by then" },
	{ "training.efficiency", CFG_FLOAT, "", 1e-3, 1, "0.44", NULL,
	  "first iteration-time model: achieved / peak FLOP/s, recomputation "
	  "counted (Megatron-LM README, GPT-3 175B on 1024 A100: 138 TFLOP/s, 44%)" },
	{ "training.recompute", CFG_BOOL, "", 0, 0, "true", NULL,
	  "full activation recomputation (one extra forward pass)" },
	{ "output.sample_interval_s", CFG_FLOAT, "s", 1e-3, 1e9, "3600", NULL,
	  "time between time-series samples" },
	CFG_END
};

static const struct cfg_setting *const setting_tables[] = {
	run_settings, tfm_settings, layout_settings, gpu_settings, pool_settings,
	ckpt_settings, failure_settings, net_settings, NULL
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

enum run_state { RS_TRAIN, RS_CKPT, RS_RESTART, RS_DONE, RS_COUNT };
static const char *const state_names[RS_COUNT] = {
	"training", "checkpoint", "restart", "done"
};

/* The run's time series, in column order after time_s; accounting's
 * columns follow. */
enum { TS_TOKENS, TS_STATE, TS_ACTIVE_GPUS, TS_COUNT };
static const struct { const char *name, *unit; } series[TS_COUNT] = {
	{ "tokens", "tokens" }, { "state", "code" }, { "active_gpus", "GPUs" },
};
#define ROW_MAX 128

struct model {
	struct tfm m;
	struct layout L;
	struct gpu_spec g;
	struct pools pools;
	struct ckpt ck;
	struct failure fl;
	double params;
	double iteration_s;
	double flops_per_iter;		/* with recomputation if on */
	double tokens_per_iter;
	int64_t total_iters;
};

struct run {
	const struct scenario *sc;
	const struct run_opts *opts;
	struct report *rep;
	struct ev_sim *sim;
	gsl_rng *fail_rng;
	struct model md;
	struct acct *acct;

	enum run_state state;
	int64_t state_since_ns;
	double state_s[RS_COUNT];
	int64_t iters_done;		/* at the start of the current segment */
	int64_t seg_start_ns;
	int64_t seg_target;		/* iteration where the segment ends */
	int64_t last_ckpt_iter;
	uint64_t pending;		/* event that ends the current state */
	int64_t end_ns;

	int64_t failures, checkpoints, restarts;
	double lost_work_s;
	int completed;

	int k_seg_end, k_ckpt_end, k_failure, k_restart_end, k_sample;
	int64_t sample_ns;
};

/* --- the model's figures --------------------------------------------- */

static int model_from_scenario(const struct scenario *sc, struct model *md,
			       struct err *e)
{
	double peak_flops;

	memset(md, 0, sizeof *md);
	tfm_from_scenario(sc, &md->m);
	if (layout_from_scenario(sc, &md->m, &md->L, e) < 0)
		return -1;
	gpu_from_scenario(sc, md->L.gpu, &md->g);
	if (pools_from_scenario(sc, md->L.nodes, &md->pools, e) < 0)
		return -1;
	failure_from_scenario(sc, md->L.nodes, &md->fl);

	md->params = tfm_params(&md->m);
	md->flops_per_iter = tfm_flops(&md->m, md->L.global_batch,
				       sc_bool(sc, "training.recompute"));
	peak_flops = md->L.gpus * md->g.peak_bf16_flops;
	md->iteration_s = md->flops_per_iter /
			  (peak_flops * sc_float(sc, "training.efficiency"));
	md->tokens_per_iter = (double)md->L.global_batch * md->m.seq_len;
	md->total_iters = (int64_t)ceil(md->m.tokens / md->tokens_per_iter);
	ckpt_from_scenario(sc, md->params, md->iteration_s, &md->ck);
	return 0;
}

/* --- state and accounting -------------------------------------------- */

static int64_t s_to_ns(double s)
{
	return (int64_t)llround(s * 1e9);
}

static double iters_now(const struct run *r, int64_t now_ns)
{
	if (r->state != RS_TRAIN)
		return (double)r->iters_done;
	return r->iters_done + (now_ns - r->seg_start_ns) * 1e-9 / r->md.iteration_s;
}

/* What the cluster does in the current state: every GPU is held until the
 * run ends; only training keeps them busy. */
static void tell_accounting(struct run *r, int64_t now_ns)
{
	const struct layout *L = &r->md.L;
	bool held = r->state != RS_DONE;
	struct activity act = {
		.nodes_held = held ? L->nodes : 0,
		.gpus_held = held ? L->gpus : 0,
		.gpus_training = r->state == RS_TRAIN ? L->gpus : 0,
		.work_left_s = (r->md.total_iters - iters_now(r, now_ns)) * r->md.iteration_s,
		.checkpoint_bytes = r->md.ck.size_bytes,
		.checkpoints_written = r->checkpoints,
	};

	for (int i = 0; i < r->md.pools.n; i++)
		act.pool_nodes_held[i] = held ? r->md.pools.p[i].nodes : 0;
	acct_set_activity(r->acct, now_ns, &act);
}

static void enter(struct run *r, enum run_state st)
{
	int64_t now = ev_now(r->sim);

	r->state_s[r->state] += (now - r->state_since_ns) * 1e-9;
	r->state = st;
	r->state_since_ns = now;
	tell_accounting(r, now);
}

static int event(struct run *r, const char *kind, int64_t who, double value,
		 struct err *e)
{
	return rep_event(r->rep, ev_now(r->sim) * 1e-9, kind, who, value, e);
}

/* Train from iters_done to the next checkpoint or the end of the run. */
static void start_segment(struct run *r)
{
	const struct model *md = &r->md;
	int64_t target = md->total_iters;

	if (md->ck.enabled) {
		int64_t next = r->last_ckpt_iter + md->ck.interval_iters;
		if (next < target)
			target = next;
	}
	enter(r, RS_TRAIN);
	r->seg_start_ns = ev_now(r->sim);
	r->seg_target = target;
	r->pending = ev_after(r->sim, s_to_ns((target - r->iters_done) * md->iteration_s),
			      r->k_seg_end, 0);
}

/* --- event handlers ---------------------------------------------------- */

static int sample(struct run *r, struct err *e)
{
	int64_t now = ev_now(r->sim);
	double row[ROW_MAX];

	row[TS_TOKENS] = iters_now(r, now) * r->md.tokens_per_iter;
	row[TS_STATE] = r->state;
	row[TS_ACTIVE_GPUS] = r->state == RS_TRAIN ? r->md.L.gpus : 0;
	acct_sample(r->acct, now, row + TS_COUNT);
	if (r->opts->progress)
		r->opts->progress(r->opts->progress_ctx,
				  row[TS_TOKENS] / (r->md.total_iters * r->md.tokens_per_iter),
				  now * 1e-9);
	return rep_sample(r->rep, now * 1e-9, row, e);
}

static int finish(struct run *r, int completed, struct err *e);

static int on_sample(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	int stop;

	(void)ev;
	if (sample(r, e) < 0)
		return -1;
	stop = acct_poll(r->acct, ev_now(sim), r->rep, e);	/* budgets */
	if (stop < 0)
		return -1;
	if (stop > 0) {
		if (r->state == RS_TRAIN)
			r->iters_done = (int64_t)floor(iters_now(r, ev_now(sim)));
		return finish(r, 0, e);
	}
	ev_after(sim, r->sample_ns, r->k_sample, 0);
	return 0;
}

static int finish(struct run *r, int completed, struct err *e)
{
	r->completed = completed;
	enter(r, RS_DONE);
	r->end_ns = ev_now(r->sim);
	if (event(r, "run_end", -1, (double)r->iters_done, e) < 0)
		return -1;
	ev_stop(r->sim);
	return 0;
}

static int on_seg_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)ev;
	r->iters_done = r->seg_target;
	r->pending = 0;
	if (r->iters_done >= r->md.total_iters) {
		return finish(r, 1, e);
	}
	enter(r, RS_CKPT);
	if (event(r, "checkpoint_start", -1, (double)r->iters_done, e) < 0)
		return -1;
	r->pending = ev_after(sim, s_to_ns(r->md.ck.write_s), r->k_ckpt_end, 0);
	return 0;
}

static int on_ckpt_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	r->pending = 0;
	r->last_ckpt_iter = r->iters_done;
	r->checkpoints++;
	if (event(r, "checkpoint_end", -1, r->md.ck.write_s, e) < 0)
		return -1;
	start_segment(r);
	return 0;
}

/* Work that a failure now throws away: training since the last completed
 * checkpoint, plus a checkpoint being written. */
static double work_lost_s(const struct run *r, int64_t now_ns)
{
	double lost = (iters_now(r, now_ns) - r->last_ckpt_iter) * r->md.iteration_s;

	if (r->state == RS_CKPT)
		lost += (now_ns - r->state_since_ns) * 1e-9;
	return lost;
}

static int on_failure(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	int64_t now = ev_now(sim);
	double lost_s = r->state == RS_RESTART ? 0 : work_lost_s(r, now);
	int64_t node = (int64_t)gsl_rng_uniform_int(r->fail_rng, (unsigned long)r->md.L.nodes);

	(void)ev;
	r->failures++;
	r->lost_work_s += lost_s;
	if (r->pending)
		ev_cancel(sim, r->pending);
	r->iters_done = r->last_ckpt_iter;
	enter(r, RS_RESTART);
	if (event(r, "failure", node, lost_s, e) < 0)
		return -1;
	r->pending = ev_after(sim, s_to_ns(r->md.fl.restart_s + r->md.ck.load_s),
			      r->k_restart_end, 0);
	ev_after(sim, s_to_ns(failure_next_gap_s(&r->md.fl, r->fail_rng)), r->k_failure, 0);
	return 0;
}

static int on_restart_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	r->pending = 0;
	r->restarts++;
	if (event(r, "restart_end", -1, (double)r->iters_done, e) < 0)
		return -1;
	start_segment(r);
	return 0;
}

/* --- outputs ----------------------------------------------------------- */

static void summarize(struct run *r)
{
	const struct model *md = &r->md;
	struct report *rep = r->rep;
	double dur_s = r->end_ns * 1e-9;
	double tokens = r->iters_done * md->tokens_per_iter;
	double train_s = r->iters_done * md->iteration_s;

	rep_summary(rep, "duration_s", dur_s, "s");
	rep_summary(rep, "iterations", (double)r->iters_done, "");
	rep_summary(rep, "tokens", tokens, "tokens");
	rep_summary(rep, "iteration_time_s", md->iteration_s, "s");
	rep_summary(rep, "tflops_per_gpu", md->flops_per_iter / (md->iteration_s * md->L.gpus) / 1e12,
		    "TFLOP/s");
	rep_summary(rep, "mfu", tfm_model_flops_per_token(&md->m) * md->tokens_per_iter /
		    (md->iteration_s * md->L.gpus * md->g.peak_bf16_flops), "");
	rep_summary(rep, "goodput", dur_s > 0 ? train_s / dur_s : NAN, "");
	acct_summarize(r->acct, r->end_ns, rep);
	rep_summary(rep, "failures", (double)r->failures, "");
	rep_summary(rep, "preemptions", 0, "");
	rep_summary(rep, "checkpoints", (double)r->checkpoints, "");
	rep_summary(rep, "restarts", (double)r->restarts, "");
	rep_summary(rep, "lost_work_s", r->lost_work_s, "s");
	rep_summary(rep, "peak_memory_gib", NAN, "GiB");
	rep_summary(rep, "completed", r->completed, "");
	rep_summary(rep, "duration_days", dur_s / 86400.0, "days");
	rep_summary(rep, "params", md->params, "");
	rep_summary(rep, "gpus", md->L.gpus, "");
	for (int s = 0; s < RS_DONE; s++) {
		char name[64];
		snprintf(name, sizeof name, "time_%s_s", state_names[s]);
		rep_summary(rep, name, r->state_s[s], "s");
	}
	rep_summary(rep, "events", (double)ev_count(r->sim), "");
}

static int write_step(struct run *r, struct err *e)
{
	const struct model *md = &r->md;
	struct report *rep = r->rep;

	(void)e;
	rep_step_scalar(rep, "iteration_time_s", md->iteration_s, "s");
	rep_step_scalar(rep, "flops_per_iteration", md->flops_per_iter, "FLOP");
	rep_step_scalar(rep, "tokens_per_iteration", md->tokens_per_iter, "tokens");
	rep_step_scalar(rep, "compute_s", md->iteration_s, "s");
	rep_step_scalar(rep, "checkpoint_write_s", md->ck.write_s, "s");
	rep_step_scalar(rep, "checkpoint_bytes", md->ck.size_bytes, "bytes");
	return 0;
}

/* --- entry points ------------------------------------------------------ */

int run_check(const struct scenario *sc, FILE *out, struct err *e)
{
	struct model md;
	struct net *net;

	if (model_from_scenario(sc, &md, e) < 0)
		return -1;
	/* The network is built only to check it until the step model uses it. */
	net = net_build(sc, e);
	if (net == NULL)
		return -1;
	net_free(net);
	if (out == NULL)
		return acct_check(sc, &md.g, &md.L, &md.pools, NULL, e);
	fprintf(out, "# derived\n");
	fprintf(out, "parameters            %.4g\n", md.params);
	fprintf(out, "flops_per_token       %.4g  (model, no recomputation)\n",
		tfm_model_flops_per_token(&md.m));
	fprintf(out, "gpus                  %d  (%d nodes of %d)\n", md.L.gpus, md.L.nodes,
		md.L.gpus_per_node);
	fprintf(out, "layout                tp %d  pp %d  dp %d  microbatches %d\n",
		md.L.tp, md.L.pp, md.L.dp, md.L.microbatches);
	fprintf(out, "iteration_time_s      %.4f\n", md.iteration_s);
	fprintf(out, "iterations            %lld\n", (long long)md.total_iters);
	fprintf(out, "checkpoint            %.4g bytes, write %.1f s, every %lld iterations\n",
		md.ck.size_bytes, md.ck.write_s, (long long)md.ck.interval_iters);
	return acct_check(sc, &md.g, &md.L, &md.pools, out, e);
}

static int register_kinds(struct run *r)
{
	r->k_seg_end = ev_kind(r->sim, "segment_end", on_seg_end, r);
	r->k_ckpt_end = ev_kind(r->sim, "checkpoint_end", on_ckpt_end, r);
	r->k_failure = ev_kind(r->sim, "failure", on_failure, r);
	r->k_restart_end = ev_kind(r->sim, "restart_end", on_restart_end, r);
	r->k_sample = ev_kind(r->sim, "sample", on_sample, r);
	return r->k_sample < 0 ? -1 : 0;
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
	r->state = RS_TRAIN;
	start_segment(r);
	if (sample(r, e) < 0)
		return -1;
	ev_after(r->sim, r->sample_ns, r->k_sample, 0);
	if (r->md.fl.enabled)
		ev_after(r->sim, s_to_ns(failure_next_gap_s(&r->md.fl, r->fail_rng)),
			 r->k_failure, 0);
	if (ev_run(r->sim, max_ns, e) < 0)
		return -1;
	if (r->state != RS_DONE) {
		if (r->state == RS_TRAIN)
			r->iters_done = (int64_t)floor(iters_now(r, ev_now(r->sim)));
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
	if (model_from_scenario(sc, &r.md, e) < 0)
		return -1;
	r.acct = acct_new(sc, &r.md.g, &r.md.L, &r.md.pools, e);
	if (r.acct == NULL)
		return -1;
	r.sim = ev_sim_new();
	r.fail_rng = rng_stream(o->seed, "failures");
	if (r.sim == NULL || r.fail_rng == NULL) {
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
	if (r.fail_rng)
		gsl_rng_free(r.fail_rng);
	ev_sim_free(r.sim);
	acct_free(r.acct);
	return rc;
}
