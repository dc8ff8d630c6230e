/*
 * run_ckpt.c -- checkpoints, storage I/O and the hand-off to accounting.
 *
 * Sync checkpoints stop training for the write; async ones stop it for
 * the snapshot and drain to storage behind training, one host buffer at a
 * time.  A checkpoint is restorable only once written.  Elastic runs grow
 * back at a checkpoint.  Part of the run model (see run.c, run_int.h).
 */
#include <string.h>

#include "models/run_int.h"

/* --- accounting and storage I/O ------------------------------------------ */

int run_nodes_held(const struct run *r, int *per_pool)
{
	int total = 0;

	for (int i = 0; i < r->md->pools.n; i++)
		per_pool[i] = r->md->pools.p[i].nodes;
	for (int j = 0; j < r->md->spot.n; j++)
		per_pool[r->md->spot.sp[j].pool] = r->sp[j].held;
	for (int i = 0; i < r->md->pools.n; i++)
		total += per_pool[i];
	return total;
}

/* What the cluster holds and does now: every node held until the run ends
 * (spot pools only what the provider left them); only training and redo
 * keep GPUs busy, and only the replicas running. */
void run_tell_accounting(struct run *r)
{
	struct activity act = { 0 };
	bool held = r->state != RS_DONE;
	int n = run_nodes_held(r, act.pool_nodes_held);

	act.nodes_held = held ? n : 0;
	act.spare_nodes = held ? r->spares_free : 0;
	act.gpus_held = act.nodes_held * r->md->L.gpus_per_node;
	act.gpus_training = run_working(r) ? r->dp * r->md->gpus_per_replica : 0;
	/* training time still needed, at the running pace (budget projections) */
	act.work_left_s = (double)(r->md->tokens_needed - r->tokens) / r->pace->tokens_per_iter *
			  r->pace->iter_s;
	act.checkpoint_bytes = r->md->ck.size_bytes;
	if (r->pace->step.iteration_s > 0) {	/* the step model's activity mix */
		const struct step_result *st = &r->pace->step;
		act.busy_frac = st->busy_frac;
		act.tensor_active_frac = st->tensor_active_frac;
		act.comm_frac = (st->tp_exposed_s + st->pp_exposed_s + st->dp_exposed_s) /
				st->iteration_s;
		/* the kernels' share and energy over the paced iteration */
		double paced = st->iteration_s / r->pace->iter_s;
		act.kernel_frac = paced * (st->busy_frac + st->optimizer_s / st->iteration_s);
		act.kernel_dyn_w = paced * st->kernel_dyn_w;
		/* traffic while the replicas run, at the pace in force (GC
		 * pauses included: the same bytes over a longer iteration) */
		for (size_t i = 0; run_working(r) && i < st->n_tiers; i++) {
			int t = platform_tier_index(st->tier_names[i]);
			if (t >= 0)
				act.tier_bytes_per_s[t] += st->tier_bytes[i] /
							   r->pace->iter_s;
		}
	}
	act.checkpoints_written = r->checkpoints;
	if (!held)
		memset(act.pool_nodes_held, 0, sizeof act.pool_nodes_held);
	acct_set_activity(r->acct, ev_now(r->sim), &act);
}

void run_io_set_rate(struct run *r, double rate_Bps)
{
	int64_t now = ev_now(r->sim);

	r->io_bytes += r->io_rate_Bps * (now - r->io_since_ns) * 1e-9;
	r->io_since_ns = now;
	r->io_rate_Bps = rate_Bps;
}

/* --- checkpoints ------------------------------------------------------------ */

static void snapshot_or_write(struct run *r)
{
	const struct ckpt *ck = &r->md->ck;

	r->ckpt_after_drain = false;
	if (ck->mode == CKPT_SYNC)
		run_io_set_rate(r, ck->size_bytes / ck->write_s);
	/* sync: the write; async: the snapshot and the drain's interference */
	r->pending = ev_after(r->sim, run_s_to_ns(ck->stall_s), r->k_ckpt_end, 0);
}

int run_begin_checkpoint(struct run *r, struct err *e)
{
	run_enter(r, RS_CKPT);
	if (run_event(r, "checkpoint_start", -1, (double)r->iters, e) < 0)
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
	return run_event(r, "checkpoint_end", -1, (double)iters, e);
}

/* Elastic: restart with more replicas once a checkpoint holds the work. */
int run_maybe_grow(struct run *r, struct err *e)
{
	int dp = run_dp_possible(r);

	if (!r->md->spot.elastic || !r->grow_pending || dp <= r->dp)
		return 0;
	r->grow_pending = false;
	run_interrupt(r, true);
	if (run_event(r, "elastic_grow", -1, dp, e) < 0)
		return -1;
	return run_try_resume(r, e);
}

int run_on_ckpt_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;
	const struct ckpt *ck = &r->md->ck;

	(void)ev;
	r->pending = 0;
	r->work_since_ck_s += (ev_now(sim) - r->state_since_ns) * 1e-9;
	r->ck_next_iter = r->iters + ck->interval_iters;
	if (ck->mode == CKPT_SYNC) {
		run_io_set_rate(r, 0);
		r->work_since_ck_s = 0;
		if (checkpoint_complete(r, r->iters, r->tokens, e) < 0)
			return -1;
	} else {
		/* snapshot taken: drain it behind training */
		r->draining = true;
		r->drain_iters = r->iters;
		r->drain_tokens = r->tokens;
		r->work_at_snapshot_s = r->work_since_ck_s;
		run_io_set_rate(r, ck->size_bytes / ck->write_s);
		r->drain_end_ns = ev_now(sim) + run_s_to_ns(ck->write_s);
		r->drain_ev = ev_at(sim, r->drain_end_ns, r->k_drain_end, 0);
	}
	if (r->final_ckpt) {
		run_enter(r, RS_WAIT);	/* stop: the preemption comes next */
		return 0;
	}
	if (ck->mode == CKPT_SYNC && r->grow_pending) {
		run_start_work(r);
		return run_maybe_grow(r, e);
	}
	run_start_work(r);
	return 0;
}

int run_on_drain_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct run *r = ctx;

	(void)sim;
	(void)ev;
	r->draining = false;
	r->drain_ev = 0;
	run_io_set_rate(r, 0);
	/* keep only the work after the snapshot; the running segment's share
	 * is added when it commits */
	r->work_since_ck_s -= r->work_at_snapshot_s;
	if (checkpoint_complete(r, r->drain_iters, r->drain_tokens, e) < 0)
		return -1;
	if (r->ckpt_after_drain) {
		snapshot_or_write(r);
		return 0;
	}
	if (run_working(r) && r->grow_pending)
		return run_maybe_grow(r, e);
	return 0;
}
