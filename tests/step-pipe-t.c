/* step-pipe-t.c -- the iteration DES on explicit plans: pipeline bubbles
 * and data-parallel volumes.  Expected numbers:
 *   1F1B bubble (p-1)/m, interleaved (p-1)/(v m) of the ideal time, with
 *   uniform stages and free communication (Narayanan et al., formulas.md);
 *   DP volume per rank per step 2 Psi, ZeRO-1/2 2 Psi, ZeRO-3 3 Psi
 *   elements at one microbatch (Rajbhandari et al., formulas.md). */
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

	tap_plan(20);
	/* 1F1B, p = 4, m = 8, t_f = 1 ms, t_b = 2 ms per stage:
	 * T = (m + p - 1)(t_f + t_b) = 33 ms, bubble (p-1)/m = 3/8 */
	plan(&p, 4, 1, 8, 1e-3, 2e-3);
	tap_ok(step_run(&p, &r, &e) == 0, "1F1B runs (%s)", e.msg);
	tap_near(r.iteration_s, 33e-3, 1e-12, "1F1B: (m + p - 1)(t_f + t_b)");
	tap_near(r.bubble_s / r.compute_s, 3.0 / 8, 1e-12, "1F1B bubble (p-1)/m = 3/8");
	tap_near(r.compute_s, 24e-3, 1e-12, "compute m (t_f + t_b) per stage");
	sums_to_total(&r, "1F1B breakdown sums to the iteration");

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

	/* optimizer step after everything */
	plan(&p, 2, 1, 4, 1e-3, 2e-3);
	p.optimizer_s = 5e-3;
	step_run(&p, &r, &e);
	tap_near(r.iteration_s, (4 + 1) * 3e-3 + 5e-3, 1e-12, "optimizer step adds");

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
	tap_ok(r.events > 0, "events were simulated (%llu)", (unsigned long long)r.events);
	return tap_done();
}
