/*
 * run_fail.c -- interruptions, restarts and node failures.
 *
 * A failure takes its node to repair (a spare replaces it if one is
 * free), the job is stopped and rolled back to the last restorable
 * checkpoint, detection and restart follow; a job that cannot run waits.
 * Part of the run model (see run.c, run_int.h).
 */
#include <math.h>
#include <stdio.h>

#include <gsl/gsl_rng.h>

#include "models/run_int.h"

/* --- interruptions ------------------------------------------------------------ */

/* Stop whatever runs now.  With lose, training since the last completed
 * checkpoint (and a checkpoint in flight) is lost and rolled back. */
void run_interrupt(struct run *r, bool lose)
{
	int64_t now = ev_now(r->sim);
	double lost = 0;

	if (run_working(r)) {
		double done = run_iters_now(r, now);
		if (pace_has_pauses(r->pace))
			run_add_pauses(r, (now - r->seg_start_ns) * 1e-9, done,
				       (int64_t)floor(done + 1e-9));
		if ((int64_t)floor(done) > r->hwm_iters)
			r->hwm_iters = (int64_t)floor(done);
		lost = r->work_since_ck_s + (now - r->seg_start_ns) * 1e-9;
	} else if (r->state == RS_CKPT) {
		lost = r->work_since_ck_s + (now - r->state_since_ns) * 1e-9;
		if (r->md->ck.mode == CKPT_SYNC && !r->ckpt_after_drain) {
			run_io_set_rate(r, 0);
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
		run_io_set_rate(r, 0);
	}
	if (!lose)
		return;
	r->lost_work_s += lost;
	r->last_lost_s = lost;
	r->iters = r->ck_iters;
	r->tokens = r->ck_tokens;
	r->work_since_ck_s = 0;
	r->ck_next_iter = r->ck_iters + r->md->ck.interval_iters;
	r->final_ckpt = false;
	r->ckpt_after_drain = false;
}

/* --- restarts ------------------------------------------------------------------ */

static bool spot_all_full(const struct run *r)
{
	for (int j = 0; j < r->md->spot.n; j++)
		if (r->sp[j].held < r->md->spot.sp[j].nodes)
			return false;
	return true;
}

/* The job is stopped (after detection, a preemption, a repair, returning
 * capacity): restart if it can, else wait. */
int run_try_resume(struct run *r, struct err *e)
{
	int dp = run_dp_possible(r);

	if (r->need_spare > 0 || dp < 1 || (!r->md->spot.elastic && !spot_all_full(r))) {
		if (r->state != RS_WAIT)
			run_enter(r, RS_WAIT);
		return 0;
	}
	if (dp != r->dp && !r->starting) {
		r->resizes++;
		if (run_event(r, "resize", -1, dp, e) < 0)
			return -1;
	}
	r->dp = dp;
	r->pace = run_pace_get(r, dp, e);
	if (r->pace == NULL)
		return -1;
	if (dp < r->dp_min)
		r->dp_min = dp;
	r->grow_pending = dp < r->md->L.dp;
	if (r->starting) {	/* the first start is not a restart */
		r->starting = false;
		run_start_work(r);
		return 0;
	}
	run_enter(r, RS_RESTART);
	if (run_event(r, "restart_start", -1, dp, e) < 0)
		return -1;
	r->pending = ev_after(r->sim, run_s_to_ns(r->md->fl.restart_s + r->md->ck.load_s),
			      r->k_restart_end, 0);
	return 0;
}

int run_on_restart_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	r->pending = 0;
	r->restarts++;
	if (run_event(r, "restart_end", -1, (double)r->iters, e) < 0)
		return -1;
	run_start_work(r);
	return 0;
}

/* --- failures ------------------------------------------------------------------- */

void run_schedule_failure(struct run *r, int kind)
{
	const struct failure *fl = &r->md->fl;

	if (fl->trace_n > 0) {
		if (r->trace_next < fl->trace_n)
			ev_at(r->sim, run_s_to_ns(fl->trace[r->trace_next].t_s), r->k_failure,
			      (uint64_t)r->trace_next);
		return;
	}
	if (fl->p[kind].rate_per_s > 0)
		ev_after(r->sim, run_s_to_ns(failure_next_gap_s(&fl->p[kind], r->rng_fail[kind])),
			 r->k_failure, (uint64_t)kind);
}

int run_on_failure(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	const struct failure *fl = &r->md->fl;
	int kind, node;
	char name[24];

	if (fl->trace_n > 0) {
		const struct fail_row *row = &fl->trace[ev->arg];
		kind = row->kind;
		node = row->node;
		r->trace_next = ev->arg + 1;
	} else {
		kind = (int)ev->arg;
		node = (int)gsl_rng_uniform_int(r->rng_where, (unsigned long)r->md->L.nodes);
	}
	run_schedule_failure(r, kind);
	if (r->state == RS_DONE)
		return 0;
	r->failures++;
	r->fail_kind[kind]++;
	/* the node goes to repair; a spare takes its place if there is one */
	run_spare_clock(r);
	if (r->spares_free > 0) {
		r->spares_free--;
	} else {
		r->need_spare++;
		r->spare_waits++;
	}
	ev_after(sim, run_s_to_ns(fl->repair_s), r->k_repair, 0);
	snprintf(name, sizeof name, "failure_%s", fail_kind_names[kind]);
	if (r->state == RS_WAIT) {
		/* nothing runs: the failure only takes a node */
		return run_event(r, name, node, 0, e);
	}
	if (r->state == RS_DETECT || r->state == RS_RESTART)
		r->interrupted_restarts++;
	run_interrupt(r, true);
	if (run_event(r, name, node, r->last_lost_s, e) < 0)
		return -1;
	run_enter(r, RS_DETECT);
	r->pending = ev_after(sim, run_s_to_ns(fl->detect_s), r->k_detect_end, 0);
	return 0;
}

int run_on_detect_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	r->pending = 0;
	return run_try_resume(r, e);
}

int run_on_repair(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	run_spare_clock(r);
	if (r->need_spare > 0)
		r->need_spare--;	/* the repaired node replaces the failed one */
	else
		r->spares_free++;
	if (acct_powers_spares(r->acct))
		run_tell_accounting(r);	/* a spare back: powered */
	if (r->state == RS_WAIT && !r->final_ckpt)
		return run_try_resume(r, e);
	return 0;
}
