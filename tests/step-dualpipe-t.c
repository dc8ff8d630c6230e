/* step-dualpipe-t.c -- DualPipe's schedule (dualpipe.h) in the iteration
 * DES, on explicit plans of uniform stages with free communication.
 *
 * The bubble the DualPipe README tabulates (deepseek-ai/DualPipe,
 * "Pipeline Bubbles and Memory Usage Comparison"; DeepSeek-V3 report
 * Table 2): (PP/2 - 1)(F&B + B - 3W), F the forward of a chunk, B its
 * whole backward, W its weight-gradient part, F&B an overlapped forward
 * and backward pair, here F + B (the pair's compute back to back).  Each
 * rank runs m/2 microbatches of each direction's chunk, m (F + B) of work,
 * so with F = 1, B = 2, W = 1 ms: T = m (F + B) + (PP/2 - 1)(F + 2B - 3W),
 *   PP 2, m 4:    12 ms, no bubble (each rank holds both stages);
 *   PP 4, m 8:    24 + 1 x 2 = 26 ms;
 *   PP 8, m 20:   60 + 3 x 2 = 66 ms;
 *   PP 16, m 32:  96 + 7 x 2 = 110 ms.
 * Against 1F1B's (PP - 1)(F + B): 45 ms more at PP 16 where DualPipe's is
 * 14.  Without the weight split (W = 0) the zero-bubble steps have nothing
 * to move, and the table's formula is not claimed: it is checked only that
 * the bubble grows (each deferred weight pass filled a gap).
 * Each rank holds stage k of direction 0 and stage PP-1-k of direction 1:
 * the op counts per rank are m forwards, m backwards and as many weight
 * passes as input-only backwards. */
#include <stdio.h>
#include <string.h>

#include "tests/tap.h"
#include "models/dualpipe.h"
#include "models/step.h"

#define MAXV 64

static double fwd[MAXV], bwd[MAXV], wgrad[MAXV], params[MAXV];

static void plan(struct step_plan *p, int pp, int m, double f_s, double b_s, double w_s)
{
	memset(p, 0, sizeof *p);
	p->pp = pp;
	p->v = 2;
	p->microbatches = m;
	p->dualpipe = true;
	for (int i = 0; i < 2 * pp; i++) {
		fwd[i] = f_s;
		bwd[i] = b_s;
		wgrad[i] = w_s;
		params[i] = 1e6;
	}
	p->fwd_s = fwd;
	p->bwd_s = bwd;
	p->wgrad_s = wgrad;
	p->tp = 1;
	p->dp = 1;
	p->chunk_params = params;
	p->bucket_bytes = 1e9;
	p->overlap_grad_reduce = true;
}

static void counts(int pp, int m)
{
	struct mg_op ops[DUAL_OPS_MAX(64)];
	int bad = 0;

	for (int k = 0; k < pp; k++) {
		int n = dual_schedule(pp, m, k, ops), f[2] = { 0 }, b[2] = { 0 }, in = 0, w = 0;
		for (int i = 0; i < n; i++) {
			if (!ops[i].bwd)
				f[ops[i].chunk]++;
			else if (ops[i].part == MG_PART_WEIGHT)
				w++;
			else
				b[ops[i].chunk]++;
			in += ops[i].bwd && ops[i].part == MG_PART_INPUT;
		}
		bad += f[0] != m / 2 || f[1] != m / 2 || b[0] != m / 2 || b[1] != m / 2 ||
		       w != in || n > DUAL_OPS_MAX(m);
	}
	tap_ok(bad == 0, "PP %d, m %d: every rank runs m/2 forwards and backwards "
	       "of each direction and a weight pass per input-only backward", pp, m);
}

int main(void)
{
	static const int cases[][2] = { { 2, 4 }, { 4, 8 }, { 8, 20 }, { 16, 32 } };
	struct step_plan p;
	struct step_result r, r0;
	struct err e = { 0 };

	tap_plan(14);
	tap_ok(dual_vs(8, 0, 3) == 3 && dual_vs(8, 1, 3) == 12 && dual_rank(8, 12) == 3 &&
	       dual_rank(8, 8) == 7, "rank 3 of 8 holds stage 3 of direction 0 (vs 3) and "
	       "stage 4 of direction 1 (vs 8 + 4); direction 1's stage 0 is on rank 7");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		counts(cases[i][0], cases[i][1]);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int pp = cases[i][0], m = cases[i][1];
		double want = m * 3e-3 + (pp / 2 - 1) * (1e-3 + 2 * 2e-3 - 3 * 1e-3);
		plan(&p, pp, m, 1e-3, 2e-3, 1e-3);
		char name[128];
		snprintf(name, sizeof name, "PP %d, m %d: m (F + B) + (PP/2 - 1)(F&B + B - 3W) "
			 "= %.0f ms", pp, m, want * 1e3);
		if (tap_ok(step_run(&p, &r, &e) == 0, "PP %d, m %d runs (%s)", pp, m, e.msg))
			tap_near(r.iteration_s, want, 1e-9, name);
	}
	plan(&p, 16, 32, 1e-3, 2e-3, 0);
	int rc = step_run(&p, &r0, &e);
	tap_ok(rc == 0 && r0.iteration_s > 110e-3 + 1e-6,
	       "without the weight split the bubble grows (%.1f ms > 110 ms)",
	       r0.iteration_s * 1e3);
	return tap_done();
}
