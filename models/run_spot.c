/*
 * run_spot.c -- spot preemptions: notices, lost and returning capacity.
 *
 * Trace pools change capacity at recorded times; rate pools lose one node
 * at a time (exponential gaps per node held) and get it back after the
 * replacement delay.  A notice may trigger a final checkpoint if it can
 * finish in time.  Part of the run model (see run.c, run_int.h).
 */
#include <math.h>

#include <gsl/gsl_randist.h>

#include "models/run_int.h"

/* --- spot preemptions ------------------------------------------------------------- */

void run_schedule_spot(struct run *r, int j)
{
	const struct spot_pool *p = &r->md->spot.sp[j];
	struct spot_state *s = &r->sp[j];
	double now_s = ev_now(r->sim) * 1e-9;

	if (p->has_trace) {
		s->next_change_s = spot_next_change(p, now_s, &s->next_avail);
		if (!(s->next_change_s < RUN_HORIZON_S))
			return;
		if (s->next_avail < s->held)
			ev_at(r->sim, run_s_to_ns(fmax(now_s, s->next_change_s - p->notice_s)),
			      r->k_notice, (uint64_t)j);
		ev_at(r->sim, run_s_to_ns(s->next_change_s), r->k_spot_change, (uint64_t)j);
		return;
	}
	/* rate model: the next notice among the nodes held and not yet noticed */
	if (s->notice_ev)
		ev_cancel(r->sim, s->notice_ev);
	s->notice_ev = 0;
	if (p->rate_per_node_s > 0 && s->held - s->notices > 0)
		s->notice_ev = ev_after(r->sim, run_s_to_ns(gsl_ran_exponential(r->rng_spot,
				1.0 / (p->rate_per_node_s * (s->held - s->notices)))),
				r->k_notice, (uint64_t)j);
}

/* Would losing k spot nodes now stop the job?  Waiting needs every pool
 * full; elastic stops only if fewer whole replicas than run would remain. */
static bool loss_stops_job(const struct run *r, int k)
{
	int per_pool[POOLS_MAX];
	long gpus = ((long)run_nodes_held(r, per_pool) - k) * r->md->L.gpus_per_node;
	long dp = gpus / r->md->gpus_per_replica;

	if (!r->md->spot.elastic)
		return true;
	return (dp > r->md->L.dp ? r->md->L.dp : dp) < r->dp;
}

/* Time a complete checkpoint would take from now. */
static double checkpoint_needs_s(const struct run *r)
{
	const struct ckpt *ck = &r->md->ck;
	double drain_left = r->draining ? (r->drain_end_ns - ev_now(r->sim)) * 1e-9 : 0;

	return ck->mode == CKPT_SYNC ? ck->write_s : drain_left + ck->snapshot_s + ck->write_s;
}

int run_on_notice(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	int j = (int)ev->arg;
	const struct spot_pool *p = &r->md->spot.sp[j];
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
		ev_after(sim, run_s_to_ns(p->notice_s), r->k_spot_preempt, (uint64_t)j);
		run_schedule_spot(r, j);
	}
	if (run_event(r, "preempt_notice", p->pool, lose, e) < 0)
		return -1;
	if (r->state == RS_DONE || !r->md->ck.enabled || !r->md->ck.on_notice ||
	    !loss_stops_job(r, lose))
		return 0;
	if (run_working(r)) {
		double done = run_iters_now(r, ev_now(sim));
		if ((int64_t)floor(done) <= r->ck_iters || checkpoint_needs_s(r) > left_s)
			return 0;	/* nothing new to save, or no time to */
		/* the partial iteration is wasted; checkpoint what is whole */
		run_commit_progress(r, done);
		r->lost_work_s += (done - r->iters) * r->pace->iter_s;
		if (r->pending)
			ev_cancel(sim, r->pending);
		r->pending = 0;
		r->final_ckpt = true;
		r->notice_checkpoints++;
		return run_begin_checkpoint(r, e);
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
	run_tell_accounting(r);
	if (run_event(r, "preemption", r->md->spot.sp[j].pool, k, e) < 0)
		return -1;
	if (r->state == RS_DONE)
		return 0;
	if (stopped_for_notice) {
		r->final_ckpt = false;
		if (r->draining)	/* the drain did not make it */
			run_interrupt(r, true);
		return run_try_resume(r, e);
	}
	if (r->state == RS_WAIT || r->state == RS_DETECT)
		return 0;	/* resumes when it can */
	if ((run_working(r) || r->state == RS_CKPT) && !stops)
		return 0;	/* idle nodes went */
	run_interrupt(r, true);
	if (run_event(r, "preempted_work", -1, r->last_lost_s, e) < 0)
		return -1;
	return run_try_resume(r, e);
}

static int capacity_return(struct run *r, int j, int k, struct err *e)
{
	r->sp[j].held += k;
	run_tell_accounting(r);
	if (run_event(r, "capacity_return", r->md->spot.sp[j].pool, k, e) < 0)
		return -1;
	if (r->state == RS_WAIT && !r->final_ckpt)
		return run_try_resume(r, e);
	if (r->md->spot.elastic && run_dp_possible(r) > r->dp) {
		r->grow_pending = true;
		if (!r->md->ck.enabled && run_working(r))
			return run_maybe_grow(r, e);
	}
	return 0;
}

int run_on_spot_change(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
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
	run_schedule_spot(r, j);
	return 0;
}

int run_on_spot_preempt(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	int j = (int)ev->arg;

	r->sp[j].notices--;
	if (preempt(r, j, 1, e) < 0)
		return -1;
	ev_after(sim, run_s_to_ns(r->md->spot.sp[j].replacement_s), r->k_spot_return, (uint64_t)j);
	run_schedule_spot(r, j);
	return 0;
}

int run_on_spot_return(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	int j = (int)ev->arg;

	(void)sim;
	if (capacity_return(r, j, 1, e) < 0)
		return -1;
	run_schedule_spot(r, j);
	return 0;
}
