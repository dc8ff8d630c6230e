/*
 * run_out.c -- what the run writes: time-series samples (and budget polls),
 * the end of the run, the summary and /step.
 * Part of the run model (see run.c, run_int.h).
 */
#include <math.h>
#include <stdio.h>

#include "models/run_int.h"

/* --- samples and the end --------------------------------------------------------- */

int run_sample(struct run *r, struct err *e)
{
	int64_t now = ev_now(r->sim);
	double row[ROW_MAX], dt_s = (now - r->last_sample_ns) * 1e-9;
	int per_pool[POOLS_MAX];
	double done = run_iters_now(r, now);

	run_io_set_rate(r, r->io_rate_Bps);
	row[TS_TOKENS] = r->tokens + (done - r->iters) * (run_working(r) ? r->pace->tokens_per_iter : 0);
	row[TS_STATE] = r->state;
	row[TS_ACTIVE_GPUS] = run_working(r) ? r->dp * r->md->gpus_per_replica : 0;
	row[TS_NODES] = r->state == RS_DONE ? 0 : run_nodes_held(r, per_pool);
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
				  row[TS_TOKENS] / (double)r->md->tokens_needed, now * 1e-9);
	return rep_sample(r->rep, now / 1e9, row, e);
}

int run_on_sample(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)ev;
	int stop;

	if (run_sample(r, e) < 0)
		return -1;
	stop = acct_poll(r->acct, ev_now(sim), r->rep, e);	/* budgets */
	if (stop < 0)
		return -1;
	if (stop > 0) {
		if (run_working(r))
			run_commit_progress(r, run_iters_now(r, ev_now(sim)));
		return run_finish(r, 0, e);
	}
	ev_after(sim, r->sample_ns, r->k_sample, 0);
	return 0;
}

int run_finish(struct run *r, int completed, struct err *e)
{
	r->completed = completed;
	if (r->draining) {
		ev_cancel(r->sim, r->drain_ev);
		r->draining = false;
		run_io_set_rate(r, 0);
	}
	run_enter(r, RS_DONE);
	r->end_ns = ev_now(r->sim);
	run_io_set_rate(r, 0);
	if (run_event(r, "run_end", -1, (double)r->iters, e) < 0)
		return -1;
	ev_stop(r->sim);
	return 0;
}

/* --- outputs ----------------------------------------------------------- */

/* The band of the iteration time (the GPU's and the stack's validation
 * residuals, gpus.cfg and stack.c) carried to what scales with it: the
 * time spent training (and redoing lost work) stretches by the same
 * factor, so duration moves by band x that share of it; cost, energy and
 * carbon are taken to move with duration (to first order: the same power
 * for longer, GPU-hours billed by the hour), except the commitment paid
 * past the run's end, which is fixed (and on the high side would be used
 * up first: cost_usd_hi is then an upper bound).  A band above 1 (a
 * published run more than twice as slow as predicted) leaves no lower
 * bound: the low side stops at 0. */
static double lo_factor(double x)
{
	return x > 0 ? x : 0;
}

static void summarize_band(struct run *r, double iter_s, double dur_s)
{
	static const char *const scaled[][2] = {
		{ "cost_usd", "USD" }, { "energy_kwh", "kWh" }, { "carbon_kg", "kgCO2e" },
	};
	double b = r->md->band;
	double share = dur_s > 0 ? (r->state_s[RS_TRAIN] + r->state_s[RS_REDO]) / dur_s : 0;
	char name[64];

	rep_summary(r->rep, "calibrated", r->md->g.calibration != GPU_CAL_NONE, "");
	rep_summary(r->rep, "band", b, "");
	rep_summary(r->rep, "iteration_time_s_lo", iter_s * lo_factor(1 - b), "s");
	rep_summary(r->rep, "iteration_time_s_hi", iter_s * (1 + b), "s");
	rep_summary(r->rep, "duration_s_lo", dur_s * lo_factor(1 - b * share), "s");
	rep_summary(r->rep, "duration_s_hi", dur_s * (1 + b * share), "s");
	for (size_t i = 0; i < sizeof scaled / sizeof scaled[0]; i++) {
		double v = rep_summary_get(r->rep, scaled[i][0]);
		double fixed = i == 0 ? rep_summary_get(r->rep, "cost_commitment_unused_usd") : 0;
		snprintf(name, sizeof name, "%s_lo", scaled[i][0]);
		rep_summary(r->rep, name, fixed + (v - fixed) * lo_factor(1 - b * share),
			    scaled[i][1]);
		snprintf(name, sizeof name, "%s_hi", scaled[i][0]);
		rep_summary(r->rep, name, fixed + (v - fixed) * (1 + b * share), scaled[i][1]);
	}
}

void run_summarize(struct run *r)
{
	const struct model *md = r->md;
	struct report *rep = r->rep;
	const struct pace *full = &md->full;
	double dur_s = r->end_ns * 1e-9;
	double iter_s = full->iter_s + (full->every ? full->manual_s / full->every : 0);
	double gc_s = 0, eval_s = 0;
	char name[64];

	for (int s = 0; s < RS_COUNT; s++) {
		gc_s += r->gc_s[s];
		eval_s += r->eval_s[s];
	}
	rep_summary(rep, "duration_s", dur_s, "s");
	rep_summary(rep, "iterations", (double)r->iters, "");
	rep_summary(rep, "tokens", (double)r->tokens, "tokens");
	rep_summary(rep, "iteration_time_s", iter_s, "s");
	rep_summary(rep, "tflops_per_gpu", md->flops_per_iter / (iter_s * md->L.gpus) / 1e12,
		    "TFLOP/s");
	rep_summary(rep, "mfu", tfm_model_flops_per_token(&md->m) * md->tokens_per_iter /
		    (iter_s * md->L.gpus * pace_peak_flops(&md->src)), "");
	/* useful training time: the iterations done at the full cluster's
	 * pace (a ramp-up's phases at theirs) without GC, so slower elastic
	 * training and GC count as lost */
	rep_summary(rep, "goodput", dur_s > 0 ? (md->ramp.n == 0 ?
		    (double)r->tokens / md->tokens_per_iter * md->iteration_s :
		    run_work_s(md, 0, r->iters, true)) / dur_s : NAN, "");
	acct_summarize(r->acct, r->end_ns, rep);
	summarize_band(r, iter_s, dur_s);
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
		snprintf(name, sizeof name, "time_%s_s", run_state_names[s]);
		rep_summary(rep, name, r->state_s[s] - r->gc_s[s] - r->eval_s[s], "s");
	}
	rep_summary(rep, "time_gc_s", gc_s, "s");
	rep_summary(rep, "time_eval_s", eval_s, "s");
	for (int k = 0; k < FK_COUNT; k++) {
		snprintf(name, sizeof name, "failures_%s", fail_kind_names[k]);
		rep_summary(rep, name, (double)r->fail_kind[k], "");
	}
	rep_summary(rep, "preempted_nodes", (double)r->preempted_nodes, "nodes");
	rep_summary(rep, "notice_checkpoints", (double)r->notice_checkpoints, "");
	rep_summary(rep, "checkpoints_lost", (double)r->checkpoints_lost, "");
	rep_summary(rep, "interrupted_restarts", (double)r->interrupted_restarts, "");
	rep_summary(rep, "spare_waits", (double)r->spare_waits, "");
	rep_summary(rep, "spares", md->fl.spares, "nodes");
	rep_summary(rep, "spare_wait_s", r->spare_wait_s, "s");
	rep_summary(rep, "spare_wait_fraction", dur_s > 0 ? r->spare_wait_s / dur_s : 0, "");
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

/* Waiting for spares past this share of the run is worth a warning:
 * the spare pool, not the failures, sets the run's length. */
#define SPARE_WAIT_WARN 0.05

/* Why the run ended, as a sentence: the root attribute end_reason, and
 * through opts->warn what the user should hear of (a run that did not
 * complete, one that waited long for spares). */
int run_end_reason(struct run *r, struct err *e)
{
	const struct model *md = r->md;
	double dur_s = r->end_ns * 1e-9, wait = dur_s > 0 ? r->spare_wait_s / dur_s : 0;
	char why[320], spare[200] = "";

	if (wait > SPARE_WAIT_WARN)
		snprintf(spare, sizeof spare, "waited for spare nodes %.1f%% of the run "
			 "(%.3g of %.3g days; failures.spares = %d, repair_s = %.0f): more "
			 "spares or faster repair would shorten it", 100 * wait,
			 r->spare_wait_s / 86400, dur_s / 86400, md->fl.spares, md->fl.repair_s);
	if (r->completed)
		snprintf(why, sizeof why, "completed");
	else if (rep_summary_get(r->rep, "budget_stopped") > 0)
		snprintf(why, sizeof why, "did not complete: stopped by its budget (budget.stop) "
			 "at %.1f%% of the tokens", 100.0 * r->tokens / md->tokens_needed);
	else
		snprintf(why, sizeof why, "did not complete: run.max_days (%.4g days) reached "
			 "at %.1f%% of the tokens%s%s", md->max_s / 86400,
			 100.0 * r->tokens / md->tokens_needed, spare[0] ? "; it " : "", spare);
	if (r->opts->warn && !r->completed)
		r->opts->warn(r->opts->warn_ctx, why);
	if (r->opts->warn && spare[0] && r->completed)
		r->opts->warn(r->opts->warn_ctx, spare);
	return rep_attr_str(r->rep, "end_reason", why, e);
}

/* /step: the step model's breakdown of one full-cluster iteration (the
 * formula model knows only the total), then what the run adds to it. */
int run_write_step(struct run *r, struct err *e)
{
	const struct model *md = r->md;
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
	/* Memory per GPU of the fullest pipeline stage, part by part, and what
	 * the GPU holds: the parts stack under the HBM line, the optimizer
	 * step's transients in the activations' place (the larger counts). */
	rep_step_scalar(rep, "memory_weights_bytes", md->mem.weights_bytes, "bytes");
	rep_step_scalar(rep, "memory_grads_bytes", md->mem.grads_bytes, "bytes");
	rep_step_scalar(rep, "memory_optimizer_bytes", md->mem.optimizer_bytes, "bytes");
	rep_step_scalar(rep, "memory_activations_bytes", md->mem.activations_bytes, "bytes");
	rep_step_scalar(rep, "memory_step_temp_bytes", md->mem.step_temp_bytes, "bytes");
	rep_step_scalar(rep, "memory_reserve_bytes", md->mem.reserve_bytes, "bytes");
	rep_step_scalar(rep, "hbm_bytes", md->g.hbm_bytes, "bytes");
	return 0;
}
