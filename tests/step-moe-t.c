/* step-moe-t.c -- an MoE layer's dispatch under tensor parallelism
 * (step_layer.c moe_tp_extra_s): DeepSeek-V3's preset shrunk to 2 MoE
 * layers of 16 routed experts (no dense or MTP layer) on one node of 8
 * H100, TP 4 with sequence parallelism, EP 1 (no all-to-all), one
 * microbatch of 4096 tokens, capacity factor 1 (every expert's buffer
 * padded to the mean).
 *
 * Megatron-Core's all-to-all dispatcher all-gathers the routed tokens over
 * the TP group before the experts and reduce-scatters their outputs after
 * (core_r0.10.0 token_dispatcher.py): k copies of the s b h bf16 elements
 * a dense MLP's all-gather and reduce-scatter move, S = 2 x 4096 x 7168 =
 * 58,720,256 bytes.  The layer's TP time already holds the dense pair, so
 * top-k adds (k - 1) pairs' worth.  On NVLink 4 (450 GB/s x 0.767 =
 * 345.15 GB/s, links.cfg) a ring all-gather or reduce-scatter of S takes
 * a fixed latency plus (n - 1)/n S / B: the latency cancels in the
 * difference, so top 2 over top 1 adds 2 x 3/4 x S / B = 255.2 us per
 * pass, forward and backward of 2 layers: 4 x 255.2 = 1.0208 ms of
 * exposed TP time.  With parallel.expert_tp = 1 the experts are whole on
 * each GPU and their tokens are not gathered (Megatron-Core's MoE
 * parallel folding).  Folding lets EP take in TP ranks as well: with
 * expert TP 1 the experts' grid of EP 8 covers the stage's 4 x 2 ranks,
 * more than its 2 DP ranks.  Selective recomputation with the moe module
 * (parallel.recompute_modules) dispatches again in the backward.
 * Straggler spread 0; the DES keeps whole
 * nanoseconds, each pass rounded: the differences hold to 1e-5. */
#include <stdio.h>

#include "tests/tap.h"
#include "models/memory.h"
#include "tests/step-load.h"

static int run(struct cfg_schema *s, int top_k, int etp, int ep, const char *mods,
	       struct step_job *j, struct err *e)
{
	char file[4096], k[64], x[64], r[96], r2[64], p[64];
	const char *const o[] = {
		"model.layers=2", "model.mtp_layers=0", "model.moe.dense_layers=0",
		"model.moe.experts=16",
		"model.moe.capacity_factor=1.0", "model.seq_len=4096", k, x,
		"cluster.gpus=8", "parallel.tp=4", "parallel.pp=1", p,
		"parallel.last_stage_layers=0", "parallel.global_batch=2",
		"parallel.micro_batch=1", "parallel.sequence_parallel=true",
		r, r2, "parallel.dtype=\"bf16\"",
		"cluster.gpu_speed_sigma=0",
	};

	snprintf(file, sizeof file, "%s/tests/bench/step-moe.cfg", tap_srcdir());
	snprintf(k, sizeof k, "model.moe.top_k=%d", top_k);
	snprintf(x, sizeof x, "parallel.expert_tp=%d", etp);
	snprintf(p, sizeof p, "parallel.ep=%d", ep);
	snprintf(r, sizeof r, "parallel.recompute_modules=\"%s\"", mods ? mods : "");
	snprintf(r2, sizeof r2, "parallel.recompute=\"%s\"", mods ? "selective" : "none");
	return step_job_run(s, file, o, sizeof o / sizeof o[0], j, e);
}

int main(void)
{
	struct cfg_schema *s = step_schema_new();
	struct step_job k1, k2, k3, x1, x2;
	struct err e = { 0 };
	double pass_s = 2 * 0.75 * 58720256.0 / (450e9 * 0.767);

	tap_plan(15);
	int ok = run(s, 1, 0, 1, NULL, &k1, &e) == 0 && run(s, 2, 0, 1, NULL, &k2, &e) == 0 &&
		 run(s, 3, 0, 1, NULL, &k3, &e) == 0;
	if (tap_ok(ok, "the three runs (%s)", e.msg)) {
		tap_near(k2.r.tp_exposed_s - k1.r.tp_exposed_s, 4 * pass_s, 1e-5,
			 "top 2: one more gather and scatter of S, 4 x 255.2 us");
		tap_near(k3.r.tp_exposed_s - k1.r.tp_exposed_s, 2 * 4 * pass_s, 1e-5,
			 "top 3: two more, 8 x 255.2 us");
		tap_ok(k2.r.iteration_s > k1.r.iteration_s,
		       "slower on the whole: %.6f s > %.6f s", k2.r.iteration_s,
		       k1.r.iteration_s);
	}
	/* Expert TP 1 (parallel folding): whole experts, nothing gathered
	 * over TP for them, so top 2 exposes what top 1 does; each GPU holds
	 * 4 times the routed experts' weights: 16 experts of 3 x 7168 x 2048
	 * = 704,643,072 parameters a layer, 2 layers, 1 - 1/4 more */
	ok = run(s, 1, 1, 1, NULL, &x1, &e) == 0 && run(s, 2, 1, 1, NULL, &x2, &e) == 0;
	if (tap_ok(ok, "expert TP 1 runs (%s)", e.msg)) {
		tap_near(x2.r.tp_exposed_s, x1.r.tp_exposed_s, 1e-9,
			 "expert TP 1: top 2 exposes the TP time of top 1");
		tap_near(mem_stage_params(&x1.m, &x1.L, 0) - mem_stage_params(&k1.m, &k1.L, 0),
			 2 * 704643072.0 * 0.75, 1e-9,
			 "expert TP 1: 2 x 704,643,072 x 3/4 more parameters a GPU");
	}
	/* Selective recomputation with the moe module (Megatron-Core
	 * --recompute-modules moe) runs the dispatch again in the backward:
	 * at top 2 one more excess pair a layer, 2 x 255.2 us, over the
	 * same recomputation without it (the stack's selective: nothing else
	 * recomputed with flash attention) */
	struct step_job r0, r1;
	ok = run(s, 2, 0, 1, "", &r0, &e) == 0 && run(s, 2, 0, 1, "moe", &r1, &e) == 0;
	if (tap_ok(ok, "selective runs with and without the moe module (%s)", e.msg)) {
		tap_near(r1.r.tp_exposed_s - r0.r.tp_exposed_s, 2 * pass_s, 1e-5,
			 "recompute moe: the dispatcher's gather and scatter again, 2 x 255.2 us");
		tap_ok(r1.r.compute_s > r0.r.compute_s,
		       "recompute moe: the experts' forward again, %.6f s > %.6f s",
		       r1.r.compute_s, r0.r.compute_s);
		tap_ok(r1.r.peak_memory_bytes < r0.r.peak_memory_bytes,
		       "recompute moe: less memory, %.4g < %.4g bytes",
		       r1.r.peak_memory_bytes, r0.r.peak_memory_bytes);
	}
	/* Folded EP: expert TP 1, EP 8 over the stage's 4 TP x 2 DP ranks
	 * (2 experts a GPU, none replicated: 4 x 2 / (1 x 8) = 1), where
	 * EP 8 over DP alone cannot be (2 DP ranks) */
	struct step_job f8;
	ok = run(s, 2, 1, 8, NULL, &f8, &e) == 0;
	if (tap_ok(ok, "EP 8 folded over TP 4 x DP 2 runs (%s)", e.msg)) {
		tap_near(mem_stage_params(&x2.m, &x2.L, 0) - mem_stage_params(&f8.m, &f8.L, 0),
			 2 * 704643072.0 * 7 / 8, 1e-9,
			 "folded EP 8: 2 of 16 experts a GPU, 2 x 704,643,072 x 7/8 fewer parameters");
		tap_ok(f8.r.tp_exposed_s > x2.r.tp_exposed_s,
		       "folded EP 8: its all-to-alls are exposed, %.6f s > %.6f s",
		       f8.r.tp_exposed_s, x2.r.tp_exposed_s);
		tap_ok(layout_ep_group(&f8.L) == 8, "folded EP 8: an EP group of %d ranks",
		       layout_ep_group(&f8.L));
	}
	step_job_free(&f8);
	step_job_free(&k1);
	step_job_free(&k2);
	step_job_free(&k3);
	step_job_free(&x1);
	step_job_free(&x2);
	step_job_free(&r0);
	step_job_free(&r1);
	cfg_schema_free(s);
	return tap_done();
}
