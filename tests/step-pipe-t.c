/* step-pipe-t.c -- the iteration DES on explicit plans: pipeline bubbles
 * and data-parallel volumes.  Expected numbers:
 *   1F1B bubble (p-1)/m, interleaved (p-1)/(v m) of the ideal time, with
 *   uniform stages and free communication (Narayanan et al., doc/sources.md section 8);
 *   DP volume per rank per step 2 Psi, ZeRO-1/2 2 Psi, ZeRO-3 3 Psi
 *   elements at one microbatch (Rajbhandari et al., doc/sources.md section 8). */
#include <math.h>
#include <string.h>

#include "tests/tap.h"
#include "models/step.h"

#define MAXV 64

static double fwd[MAXV], bwd[MAXV], params[MAXV];
static int layers[MAXV];

static void plan(struct step_plan *p, int pp, int v, int m, double f_s, double b_s)
{
	memset(p, 0, sizeof *p);
	p->pp = pp;
	p->v = v;
	p->microbatches = m;
	for (int i = 0; i < pp * v; i++) {
		fwd[i] = f_s;
		bwd[i] = b_s;
		params[i] = 1e6;
		layers[i] = 4;
	}
	p->fwd_s = fwd;
	p->bwd_s = bwd;
	p->tp = 1;
	p->dp = 1;
	p->chunk_params = params;
	p->chunk_layers = layers;
	p->bucket_bytes = 1e9;
	p->overlap_grad_reduce = true;
}

/* One stage of m = 4 (t_f 1 ms, t_b 2 ms, 1e6 parameters) whose dp ranks
 * reduce after the pipeline, without overlap, over the transport tr. */
static void plan_dp(struct step_plan *p, int dp, const struct step_transport *tr,
		    const int *rank_gpu)
{
	plan(p, 1, 1, 4, 1e-3, 2e-3);
	p->dp = dp;
	p->net = tr;
	p->rank_gpu = rank_gpu;
	p->contention = true;
	p->overlap_grad_reduce = false;
}

/* 1F1B over pp stages of m = 4 (t_f 1 ms, t_b 2 ms) with Megatron DDP's
 * NaN check: 2-byte gradients read at 1 GB/s, 0.1 ms a bucket, buckets[vs]
 * of them. */
static void plan_check(struct step_plan *p, int pp, const double *buckets)
{
	plan(p, pp, 1, 4, 1e-3, 2e-3);
	p->grad_check_Bps = 1e9;
	p->grad_check_bucket_s = 0.1e-3;
	p->chunk_buckets = buckets;
}

/* A transport where every collective takes bytes / (1 GB/s), alone or not;
 * it notes the ranks and first two GPUs of each collective it starts. */
static int started, started_n[64], started_gpu[64][2];

struct fake {
	struct ev_sim *sim;
	int kind;
	struct { coll_done_fn fn; void *ctx; uint64_t tag; } pend[256];
	int n;
};

static int fake_fire(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct fake *f = ctx;

	(void)sim;
	return f->pend[ev->arg].fn(f->pend[ev->arg].ctx, f->pend[ev->arg].tag, e);
}

static int fake_open(void *ctx, struct ev_sim *sim, struct err *e)
{
	struct fake *f = ctx;

	(void)e;
	f->sim = sim;
	f->kind = ev_kind(sim, "fake_collective", fake_fire, f);
	f->n = 0;
	return 0;
}

static double fake_alone_s(void *ctx, const struct coll *c, struct err *e)
{
	(void)ctx;
	(void)e;
	return c->bytes / 1e9;
}

static int fake_start(void *ctx, const struct coll *c, coll_done_fn done,
		      void *done_ctx, uint64_t tag, struct err *e)
{
	struct fake *f = ctx;

	if (f->n == 256)
		return err_set(e, ERR_RUN, "fake transport full");
	if (started < 64) {
		started_n[started] = c->n_gpus;
		started_gpu[started][0] = c->gpus[0];
		started_gpu[started][1] = c->n_gpus > 1 ? c->gpus[1] : -1;
		started++;
	}
	f->pend[f->n].fn = done;
	f->pend[f->n].ctx = done_ctx;
	f->pend[f->n].tag = tag;
	ev_after(f->sim, (int64_t)llround(fake_alone_s(ctx, c, e) * 1e9), f->kind,
		 (uint64_t)f->n++);
	return 0;
}

static void fake_close(void *ctx, struct step_result *out)
{
	(void)ctx;
	(void)out;
}

static void sums_to_total(const struct step_result *r, const char *what)
{
	double sum = r->compute_s + r->tp_exposed_s + r->bubble_s + r->pp_exposed_s +
		     r->dp_exposed_s + r->optimizer_s;
	tap_near(sum, r->iteration_s, 1e-9, what);
}

int main(void)
{
	struct step_plan p;
	struct step_result r;
	struct err e = { 0 };

	tap_plan(76);
	/* 1F1B, p = 4, m = 8, t_f = 1 ms, t_b = 2 ms per stage:
	 * T = (m + p - 1)(t_f + t_b) = 33 ms, bubble (p-1)/m = 3/8 */
	plan(&p, 4, 1, 8, 1e-3, 2e-3);
	tap_ok(step_run(&p, &r, &e) == 0, "1F1B runs (%s)", e.msg);
	tap_near(r.iteration_s, 33e-3, 1e-12, "1F1B: (m + p - 1)(t_f + t_b)");
	tap_near(r.bubble_s / r.compute_s, 3.0 / 8, 1e-12, "1F1B bubble (p-1)/m = 3/8");
	tap_near(r.compute_s, 24e-3, 1e-12, "compute m (t_f + t_b) per stage");
	sums_to_total(&r, "1F1B breakdown sums to the iteration");
	/* the kernels' energy above idle (kpower.h): 3 J per forward, 5 J per
	 * backward pass, 2 J of optimizer; each stage runs 8 of each: mean per
	 * GPU (8 x (3 + 5) + 2) J over the iteration (33 ms + 0.5 ms of Adam) */
	{
		double fj[4] = { 3, 3, 3, 3 }, bj[4] = { 5, 5, 5, 5 };
		struct step_plan q = p;
		struct step_result rq;

		q.fwd_dyn_j = fj;
		q.bwd_dyn_j = bj;
		q.optimizer_s = 0.5e-3;
		q.optimizer_dyn_j = 2;
		int rc = step_run(&q, &rq, &e);

		tap_ok(rc == 0 && fabs(rq.kernel_dyn_w - 66 / 33.5e-3) < 1e-9 * rq.kernel_dyn_w,
		       "kernel energy: (8 x (3 + 5) + 2) J / 33.5 ms = %.1f W (got %.1f)",
		       66 / 33.5e-3, rc == 0 ? rq.kernel_dyn_w : 0);
	}

	/* 1F1B with m < p: bubble still (p-1)/m of ideal */
	plan(&p, 8, 1, 2, 1e-3, 1e-3);
	step_run(&p, &r, &e);
	tap_near(r.bubble_s / r.compute_s, 7.0 / 2, 1e-12, "1F1B p = 8, m = 2: (p-1)/m");

	/* interleaved, p = 4, v = 2, m = 8: chunks take half a stage */
	plan(&p, 4, 2, 8, 0.5e-3, 1e-3);
	tap_ok(step_run(&p, &r, &e) == 0, "interleaved runs (%s)", e.msg);
	tap_near(r.bubble_s / r.compute_s, 3.0 / 16, 1e-12,
		 "interleaved bubble (p-1)/(v m) = 3/16");
	sums_to_total(&r, "interleaved breakdown sums to the iteration");
	plan(&p, 4, 4, 8, 0.25e-3, 0.5e-3);
	step_run(&p, &r, &e);
	tap_near(r.bubble_s / r.compute_s, 3.0 / 32, 1e-12,
		 "interleaved v = 4: (p-1)/(v m) = 3/32");

	/* p2p transfers of 0.1 ms: exposed, bubble unchanged */
	plan(&p, 4, 1, 8, 1e-3, 2e-3);
	p.p2p_s = 1e-4;
	step_run(&p, &r, &e);
	tap_near(r.bubble_s / r.compute_s, 3.0 / 8, 1e-12, "p2p leaves the bubble");
	tap_ok(r.pp_exposed_s > 0 && r.iteration_s > 33e-3,
	       "p2p is exposed (%.3g s)", r.pp_exposed_s);
	sums_to_total(&r, "with p2p the breakdown still sums");

	/* 1F1B, p = 2, m = 2, t_f = 1 ms, t_b = 2 ms, p2p 0.5 ms.  Sends
	 * beside the compute: stage 1 runs F1 B1 F2 B2 from t_f + p on, its
	 * B2 ends at 3t_f + 2t_b + p and its gradient reaches stage 0 at
	 * 3t_f + 2t_b + 2p; stage 0's B2 ends at 3t_f + 3t_b + 2p = 10 ms.
	 * Blocking sends (Megatron-LM's 1F1B waits on its isend/irecv):
	 * stage 0 holds after F1 and F2 for p each, so F2 reaches stage 1 at
	 * 2t_f + 2p, after B1's end (2t_f + t_b + p) plus its own send: F2
	 * starts at 2t_f + t_b + 2p, B2 ends at 3t_f + 2t_b + 2p, its gradient
	 * arrives at + p more, and stage 0 ends at 3t_f + 3t_b + 3p = 10.5 ms */
	plan(&p, 2, 1, 2, 1e-3, 2e-3);
	p.p2p_s = 0.5e-3;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 10e-3, 1e-12, "p2p beside compute: 3t_f + 3t_b + 2p");
	p.p2p_blocking = true;
	tap_ok(step_run(&p, &r, &e) == 0, "blocking p2p runs (%s)", e.msg);
	tap_near(r.iteration_s, 10.5e-3, 1e-12, "blocking p2p: 3t_f + 3t_b + 3p");
	tap_near(r.compute_s, 6e-3, 1e-12, "blocking p2p is not compute");
	sums_to_total(&r, "blocking p2p: the breakdown sums");
	/* DeepSpeed's TrainSchedule (models/deepspeed.h), same plan.  Stage
	 * 0 runs F1 SendAct1 F2 RecvGrad1 SendAct2 B1 RecvGrad2 B2, stage 1
	 * RecvAct1 F1 B1 SendGrad1 RecvAct2 F2 B2 SendGrad2 (schedule.py's
	 * steps 0-5), each transfer a rendezvous of both stages then p:
	 * SendAct1 at t_f, stage 1's F1 B1 from t_f + p, RecvGrad1 at 2t_f
	 * + t_b + p, SendAct2 after it, F2 B2 on stage 1 from 2t_f + t_b +
	 * 3p, RecvGrad2 at 3t_f + 2t_b + 3p, stage 0's B2 ends at 3t_f + 3t_b
	 * + 4p = 11 ms: each transfer waits for the next step, one p more
	 * than Megatron's blocking 1F1B.  Without transfers, 9 ms = (m + p -
	 * 1)(t_f + t_b), 1F1B's. */
	plan(&p, 2, 1, 2, 1e-3, 2e-3);
	p.ds_schedule = true;
	tap_ok(step_run(&p, &r, &e) == 0, "DeepSpeed's schedule runs (%s)", e.msg);
	tap_near(r.iteration_s, 9e-3, 1e-12, "DeepSpeed, free p2p: (m + p - 1)(t_f + t_b)");
	p.p2p_s = 0.5e-3;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 11e-3, 1e-12, "DeepSpeed, p2p 0.5 ms: 3t_f + 3t_b + 4p");
	tap_near(r.pp_exposed_s, 2e-3, 1e-12, "DeepSpeed: the 4p of transfers are exposed p2p");
	plan(&p, 4, 1, 8, 1e-3, 2e-3);
	p.ds_schedule = true;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 33e-3, 1e-12, "DeepSpeed p = 4, m = 8, free p2p: 1F1B's 33 ms");
	tap_near(r.bubble_s / r.compute_s, 3.0 / 8, 1e-12, "DeepSpeed bubble (p-1)/m = 3/8");

	/* optimizer step after everything */
	plan(&p, 2, 1, 4, 1e-3, 2e-3);
	p.optimizer_s = 5e-3;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, (4 + 1) * 3e-3 + 5e-3, 1e-12, "optimizer step adds");
	p.final_sync_s = 1e-3;	/* tied-embedding all-reduce before Adam */
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, (4 + 1) * 3e-3 + 6e-3, 1e-12, "embedding sync adds");
	tap_near(r.dp_exposed_s, 1e-3, 1e-9, "and counts as DP exposure");

	/* DP volumes, one microbatch, free communication: Psi = 1e6 x 4 chunks
	 * per rank (pp = 1, v = 1 here: one chunk of 1e6) */
	const char *name[4] = { "DP all-reduce: 2 Psi", "ZeRO-1: 2 Psi",
				"ZeRO-2: 2 Psi", "ZeRO-3: 3 Psi" };
	enum step_dp_mode mode[4] = { STEP_DP_ALLREDUCE, STEP_DP_SHARDED,
				      STEP_DP_ZERO2, STEP_DP_ZERO3 };
	double want[4] = { 2e6, 2e6, 2e6, 3e6 };
	for (int i = 0; i < 4; i++) {
		plan(&p, 1, 1, 1, 1e-3, 2e-3);
		p.dp = 8;
		p.dp_mode = mode[i];
		p.bucket_bytes = 3e5;	/* several buckets, odd sizes */
		step_run(&p, &r, &e);
		tap_near(r.dp_comm_elems_per_rank, want[i], 1e-12, name[i]);
	}
	plan(&p, 2, 1, 4, 1e-3, 2e-3);
	p.dp = 4;
	p.overlap_grad_reduce = false;	/* one all-reduce of the whole buffer */
	step_run(&p, &r, &e);
	tap_near(r.dp_comm_elems_per_rank, 2e6, 1e-12, "DP without overlap: 2 Psi");
	/* DP on a 1 GB/s transport: one stage, m = 4, t_f 1 ms, t_b 2 ms,
	 * 1e6 parameters = 2 MB of fp16 gradients.  Without overlap one
	 * all-reduce of 2 MB (2 ms) follows the pipeline's 12 ms: 14 ms. */
	struct fake f;
	struct step_transport tr = { &f, fake_open, fake_start, fake_alone_s, fake_close };
	int rank_gpu[2] = { 0, 1 };
	plan_dp(&p, 2, &tr, rank_gpu);
	p.bucket_bytes = 0.5e6;
	tap_ok(step_run(&p, &r, &e) == 0, "DP over a transport runs (%s)", e.msg);
	tap_near(r.iteration_s, 14e-3, 1e-12, "no overlap: 12 ms + 2 MB at 1 GB/s");
	tap_near(r.dp_exposed_s, 2e-3, 1e-9, "all of it exposed");
	/* with overlap: 4 buckets of 0.5 MB ready at 1/4..4/4 of the last
	 * backward (10-12 ms), 0.5 ms each, back to back: done at 12.5 ms */
	p.overlap_grad_reduce = true;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 12.5e-3, 1e-12, "overlap hides all but the last bucket");
	tap_near(r.dp_exposed_s, 0.5e-3, 1e-9, "0.5 ms exposed");
	p.contention = false;	/* timed alone: the same here */
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 12.5e-3, 1e-12, "alone timing agrees without contention");
	/* the input embedding, 0.5e6 of the 1e6 parameters, is the last
	 * gradient the backward makes (step_des.c, Megatron-Core's buckets in
	 * reverse registration order): the other 1 MB in two buckets ready at
	 * 11 and 12 ms (11-11.5, 12-12.5), the embedding's 1 MB at 12 ms
	 * after them, 12.5-13.5 ms */
	p.embed_params = 0.5e6;
	p.contention = true;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 13.5e-3, 1e-12, "the embedding's bucket reduces last: 13.5 ms");
	tap_near(r.dp_exposed_s, 1.5e-3, 1e-9, "1.5 ms exposed");
	p.embed_params = 0;
	/* a collective beside the compute holds a quarter of the SMs: a pass
	 * of GEMMs alone runs at 3/4 speed while it is in flight.  Two 1 MB
	 * buckets ready at 11 and 12 ms reduce back to back 11-13 ms; the
	 * last backward (10-12 ms at full speed) does 1 ms by 11, then 3/4
	 * ms per ms: its last 0.25 ms of work ends at 12 + 1/3 ms.  The
	 * iteration still ends with the second bucket, 13 ms. */
	double gemm_f[1] = { 1e-3 }, gemm_b[1] = { 2e-3 };
	p.fwd_gemm_s = gemm_f;
	p.bwd_gemm_s = gemm_b;
	p.bucket_bytes = 1e6;
	step_run(&p, &r, &e);
	tap_near(r.compute_s, 12e-3, 1e-12, "no SMs taken: 12 ms of compute");
	p.comm_sm_frac = 0.25;
	step_run(&p, &r, &e);
	tap_near(r.compute_s, 12e-3 + 1e-3 / 3, 1e-7, "a quarter of the SMs taken for 1.33 ms: +1/3 ms");
	tap_near(r.iteration_s, 13e-3, 1e-9, "the iteration still ends with the last bucket");
	p.comm_sm_frac = 0;
	p.fwd_gemm_s = p.bwd_gemm_s = NULL;
	p.bucket_bytes = 0.5e6;
	/* gradients reduced in 4 bytes (PyTorch AMP's fp32 gradients): the
	 * all-reduce without overlap moves 4 MB, 4 ms: 16 ms; still 2 Psi */
	p.overlap_grad_reduce = false;
	p.contention = true;
	p.grad_bytes = 4;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 16e-3, 1e-12, "fp32 gradients: 12 ms + 4 MB at 1 GB/s");
	tap_near(r.dp_comm_elems_per_rank, 2e6, 1e-12, "fp32 gradients: still 2 Psi elements");
	/* distributed optimizer, no overlap: reduce-scatter of 2 MB (12-14
	 * ms), Adam free, all-gather of 2 MB in four 0.5 ms buckets (14-16
	 * ms); with --overlap-param-gather the next forward hides 1.5 ms of
	 * it: 14.5 ms; a 3 ms cover hides it all, down to Adam's end, 14 ms */
	p.grad_bytes = 0;
	p.dp_mode = STEP_DP_SHARDED;
	double hide = 1.5e-3;
	p.param_gather_hide_s = &hide;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 14.5e-3, 1e-12, "param gather: 16 ms less the 1.5 ms it hides");
	hide = 3e-3;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 14e-3, 1e-12, "param gather fully hidden: ends with Adam");
	/* the embedding's weights (0.5e6, 1 MB) are gathered before the
	 * first forward can start, whatever the forward hides: 14 + 1 ms */
	p.embed_params = 0.5e6;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 15e-3, 1e-12, "the embedding's 1 MB gather delays the first "
		 "forward: 15 ms under a 3 ms cover");
	p.embed_params = 0;
	p.param_gather_hide_s = NULL;
	/* interleaved, two stages of three chunks (m = 4, t_f 1 ms, n =
	 * min(pp, m) = 2 forwards a chunk before the next), 2 MB of weights a
	 * chunk: each stage gathers 6 ms after Adam.  Bucket by bucket the
	 * next forward hides one pass (3 ms): 3 ms wait.  Aligned: chunks 0
	 * and 1 from the start (ready at 2, 4 ms), chunk 2 from chunk 1's
	 * first forward (4 ms; ready at 6); chunk 0 runs 2-3 and 3-4, chunk 1
	 * 4-5 and 5-6, chunk 2's first 6-7, against 4-5 with the weights
	 * there: 2 ms wait, 1 ms less than bucket by bucket, 4 ms less than
	 * no overlap */
	{
		int rank_gpu4[4] = { 0, 1, 2, 3 };
		double pass[2] = { 3e-3, 3e-3 };
		struct step_result none, paced;

		plan(&p, 2, 3, 4, 1e-3, 2e-3);
		p.dp = 2;
		p.net = &tr;
		p.rank_gpu = rank_gpu4;
		p.contention = true;
		p.bucket_bytes = 0.5e6;
		p.dp_mode = STEP_DP_SHARDED;
		step_run(&p, &none, &e);
		p.param_gather_hide_s = pass;
		step_run(&p, &paced, &e);
		p.param_gather_aligned = true;
		step_run(&p, &r, &e);
		tap_ok(fabs(none.iteration_s - r.iteration_s - 4e-3) < 1e-12 &&
		       fabs(paced.iteration_s - r.iteration_s - 1e-3) < 1e-12,
		       "aligned param gather: 2 ms of 6 waits (3 bucket by bucket, 6 "
		       "without overlap): %g %g %g ms", none.iteration_s * 1e3,
		       paced.iteration_s * 1e3, r.iteration_s * 1e3);
		plan_dp(&p, 2, &tr, rank_gpu);	/* back to the one stage above */
		p.bucket_bytes = 0.5e6;
		p.dp_mode = STEP_DP_SHARDED;
	}
	/* FP8 weights gathered in FP8 (weight_bytes 1): 1 MB, 14-15 ms, the
	 * same 2 Psi elements moved */
	p.weight_bytes = 1;
	step_run(&p, &r, &e);
	tap_ok(fabs(r.iteration_s - 15e-3) < 15e-15 && fabs(r.dp_comm_elems_per_rank - 2e6) < 1e-6,
	       "FP8 param gather: 1 MB after Adam, 15 ms; still 2 Psi elements");
	p.weight_bytes = 0;
	/* ZeRO-3 on the 1 GB/s transport: one stage, m = 1, two layers of
	 * 0.5e6 parameters (1 MB of fp16 weights: 1 ms to gather or reduce),
	 * forward 1 ms and backward 2 ms per layer, one gather ahead.
	 * Gathers 0-1, 1-2, 2-3, 3-4 ms; forward layers 1-2, 2-3; backward
	 * 3-5, 5-7; reduce-scatters 5-6, 7-8: T = 8 ms, 1 ms of it waiting for
	 * the first gather, 1 ms for the last reduce-scatter. */
	plan(&p, 1, 1, 1, 2e-3, 4e-3);
	layers[0] = 2;
	p.dp = 2;
	p.dp_mode = STEP_DP_ZERO3;
	p.net = &tr;
	p.rank_gpu = rank_gpu;
	p.contention = true;
	p.prefetch_bytes = 1;	/* one layer ahead */
	tap_ok(step_run(&p, &r, &e) == 0, "ZeRO-3 over the transport runs (%s)", e.msg);
	tap_near(r.iteration_s, 8e-3, 1e-12, "ZeRO-3: T = 8 ms by hand");
	tap_near(r.dp_exposed_s, 2e-3, 1e-9, "first gather and last reduce-scatter exposed");
	tap_near(r.pp_exposed_s, 0, 1e-12, "no pipeline, nothing on p2p");
	tap_near(r.dp_comm_elems_per_rank, 3e6, 1e-12, "ZeRO-3 moves 3 Psi");
	/* The same in series, as DeepSpeed 2021 ran it (step.h): no gather
	 * under the compute and none before the last reduce-scatter is done.
	 * Gathers 0-1, 2-3; forward layers 1-2, 3-4; backward: gather 4-5,
	 * layer 5-7, reduce-scatter 7-8, gather 8-9, layer 9-11,
	 * reduce-scatter 11-12: T = 12 ms, 6 of them communication. */
	p.zero3_sync = true;
	p.zero3_tensors = 1;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 12e-3, 1e-7, "ZeRO-3 in series: T = 12 ms by hand");
	tap_near(r.dp_exposed_s, 6e-3, 1e-7, "all 6 ms of collectives exposed");
	/* three tensors a layer, each collective copying each of the two
	 * ranks' slices at 0.1 ms: +3 x 2 x 0.1 ms on each of the 6
	 * collectives (the two extra latencies of a 4-byte collective are 8
	 * ns on this transport): 15.6 ms */
	p.zero3_tensors = 3;
	p.coll_copy_s = 0.1e-3;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 15.6e-3, 1e-5, "per-tensor copies: +6 x 0.6 ms");
	/* full recomputation: each backward gathers half a layer again (1.5
	 * MB, 1.5 ms) in one more tensor (4 x 2 x 0.1 ms): gathers 2 x 1.6 +
	 * 2 x 2.3 ms, reduce-scatters 2 x 1.6 ms, compute 6 ms: 17 ms */
	p.zero3_regather_frac = 0.5;
	p.zero3_regather_tensors = 1;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 17e-3, 1e-5, "re-gathers after the recomputed forward: 17 ms");
	tap_near(r.dp_comm_elems_per_rank, 3.5e6, 1e-12, "and move 3.5 Psi");
	/* Hybrid sharding (FSDP HYBRID_SHARD), 4 ranks in shard groups of 2,
	 * prefetching as the first ZeRO-3 case: each layer's reduce-scatter
	 * (1 ms) is followed by the all-reduce of its half across the two
	 * groups (0.5 MB, 0.5 ms): the first layer's 5-6.5 ms, the second's
	 * 7-8.5 ms: T = 8.5 ms; the all-reduces add 2 x Psi/2 elements to
	 * 3 Psi */
	p.zero3_sync = false;
	p.zero3_tensors = 0;
	p.coll_copy_s = 0;
	p.zero3_regather_frac = p.zero3_regather_tensors = 0;
	p.dp = 4;
	p.shard_ranks = 2;
	int rank_gpu4[4] = { 0, 1, 2, 3 };
	p.rank_gpu = rank_gpu4;
	tap_ok(step_run(&p, &r, &e) == 0, "hybrid ZeRO-3 runs (%s)", e.msg);
	tap_near(r.iteration_s, 8.5e-3, 1e-9, "hybrid ZeRO-3: T = 8.5 ms by hand");
	tap_near(r.dp_comm_elems_per_rank, 4e6, 1e-12, "hybrid ZeRO-3: 3 Psi + 2 x Psi/2");
	tap_ok(r.events > 0, "events were simulated (%llu)", (unsigned long long)r.events);
	/* Routed experts' gradients go over the expert-data-parallel group
	 * (Megatron-Core: the ranks holding the same experts): one stage of
	 * m = 4 (t_f 1 ms, t_b 2 ms), DP 4, 1e6 parameters of which 0.6e6
	 * routed experts' with expert_dp 2 (EP 2: members 2 apart).  Without
	 * overlap, after the pipeline's 12 ms, the dense 0.8 MB over the 4
	 * ranks (0.8 ms), then the experts' 1.2 MB over {0, 2} and {1, 3} at
	 * once (1.2 ms): 14 ms; with expert_dp 1 (EP 4) the experts need no
	 * collective: 12.8 ms; with one rank-group of 4 the old 2 MB: 14 ms */
	double xparams[MAXV] = { 0.6e6 };
	plan_dp(&p, 4, &tr, rank_gpu4);
	p.chunk_expert_params = xparams;
	p.expert_dp = 2;
	started = 0;
	tap_ok(step_run(&p, &r, &e) == 0, "experts' groups run (%s)", e.msg);
	tap_near(r.iteration_s, 14e-3, 1e-12, "dense 0.8 MB over 4, experts' 1.2 MB over 2: 14 ms");
	tap_ok(started == 3 && started_n[0] == 4 && started_n[1] == 2 && started_n[2] == 2 &&
	       started_gpu[1][0] == 0 && started_gpu[1][1] == 2 &&
	       started_gpu[2][0] == 1 && started_gpu[2][1] == 3,
	       "one collective on the 4 ranks, then {0, 2} and {1, 3} (%d started)", started);
	tap_near(r.dp_comm_elems_per_rank, 2e6, 1e-12, "still 2 Psi elements moved");
	p.expert_dp = 1;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 12.8e-3, 1e-12, "expert_dp 1: no experts' collective, 12.8 ms");
	p.chunk_expert_params = NULL;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 14e-3, 1e-12, "no split: 2 MB over the 4 ranks, 14 ms");
	/* Megatron DDP's NaN check (step.h): one stage of m = 4 (t_f 1 ms,
	 * t_b 2 ms, 12 ms), its 1e6 parameters' 2-byte gradients read at
	 * 1 GB/s (2 ms) and 0.1 ms a bucket.  With overlap, three buckets in
	 * the last backward: 12 + 2 + 0.3 ms, whatever the dp; without, the
	 * buffer as one after the last pass: 12 + 2.1 ms */
	double nb[MAXV] = { 3 };
	plan_check(&p, 1, nb);
	tap_ok(step_run(&p, &r, &e) == 0, "NaN check runs (%s)", e.msg);
	tap_near(r.iteration_s, 14.3e-3, 1e-12, "NaN check, 3 buckets: 12 + 2 + 3 x 0.1 ms");
	tap_near(r.compute_s, 14.3e-3, 1e-12, "its time is the stage's (compute_s)");
	p.overlap_grad_reduce = false;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 14.1e-3, 1e-12, "without overlap, one bucket: 12 + 2.1 ms");
	/* 1F1B, p = 2, m = 4: 15 ms; each stage checks one bucket (2.1 ms)
	 * in its last backward, stage 0's after stage 1's: 15 + 2 x 2.1 ms */
	double nb2[MAXV] = { 1, 1 };
	plan_check(&p, 2, nb2);
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, 19.2e-3, 1e-12, "p = 2: the stages' checks in series, 19.2 ms");
	return tap_done();
}
