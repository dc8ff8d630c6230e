/* step-tpasync-t.c -- Megatron-LM's asynchronous TP all-reduce in backward
 * (parallel.tp_async_allreduce, step_layer.c tp_async): a GPT of 2 layers,
 * h = 8192, on one node of 8 A100 at TP 8, PP 1, two microbatches of 4
 * (tests/bench/step-175b.cfg, shrunk).
 *
 * Without sequence parallelism a layer runs four all-reduces of the same
 * size (Megatron's f and g, forward and backward), the embedding one
 * forward and the logits one backward (the dX of the column-parallel
 * logits): 4 l + 2 in all.  Asynchronous, the backward's two per layer (the
 * QKV's and the MLP up's input gradients) and the logits' run under the
 * weight-gradient GEMMs of their own layers, each longer than an
 * all-reduce here (h / t = 1024 columns and more on 8192 x 4 tokens), so
 * 2 l + 1 of them hide: exposed TP time halves, (2 l + 1)/(4 l + 2) = 1/2.
 * With full recomputation each layer's backward also redoes the forward's
 * two, which stay exposed: (4 l + 1)/(6 l + 2) = 9/14 for l = 2.
 * While hidden, NCCL's kernel holds 24 of the A100's 108 SMs (one per
 * channel): the GEMMs under it take 24/(108 - 24) = 2/7 of the hidden
 * time longer, so compute grows by 2/7 of what TP time shrank.
 * Straggler spread 0: compute is the kernels' alone; the DES keeps whole
 * nanoseconds, so a difference of two runs holds to 1e-6.
 * Last, the SMs Transformer Engine's own TP overlap holds (below). */
#include <stdio.h>

#include "tests/tap.h"
#include "tests/step-load.h"
#include "models/step_layer.h"

static int run(struct cfg_schema *s, const char *async, const char *recompute,
	       struct step_job *j, struct err *e)
{
	char file[4096], a[64], r[64];
	const char *const o[] = {
		"model.layers=2", "model.hidden=8192", "model.heads=64",
		"cluster.gpus=8", "parallel.tp=8", "parallel.pp=1",
		"parallel.global_batch=8", "parallel.micro_batch=4",
		"cluster.gpu_speed_sigma=0", a, r,
	};

	/* 175B's file (stack megatron_lm_2021, no sequence parallelism),
	 * shrunk */
	snprintf(file, sizeof file, "%s/tests/bench/step-175b.cfg", tap_srcdir());
	snprintf(a, sizeof a, "parallel.tp_async_allreduce=%s", async);
	snprintf(r, sizeof r, "parallel.recompute=\"%s\"", recompute);
	return step_job_run(s, file, o, sizeof o / sizeof o[0], j, e);
}

int main(void)
{
	struct cfg_schema *s = step_schema_new();
	struct step_job off, on, foff, fon;
	struct err e = { 0 };

	tap_plan(7);
	int ok = run(s, "false", "none", &off, &e) == 0 && run(s, "true", "none", &on, &e) == 0 &&
		 run(s, "false", "full", &foff, &e) == 0 && run(s, "true", "full", &fon, &e) == 0;
	if (tap_ok(ok, "the four runs (%s)", e.msg)) {
		tap_near(on.r.tp_exposed_s / off.r.tp_exposed_s, 0.5, 1e-9,
			 "no recomputation: exposed TP time (2l + 1)/(4l + 2) = 1/2 of it");
		tap_near((on.r.compute_s - off.r.compute_s) /
			 (off.r.tp_exposed_s - on.r.tp_exposed_s), 2.0 / 7, 1e-6,
			 "GEMMs under NCCL's 24 of 108 SMs: compute + 2/7 of the hidden time");
		tap_near(fon.r.tp_exposed_s / foff.r.tp_exposed_s, 9.0 / 14, 1e-9,
			 "full recomputation: (4l + 1)/(6l + 2) = 9/14");
		tap_ok(on.r.iteration_s < off.r.iteration_s,
		       "faster on the whole: %.6f s < %.6f s", on.r.iteration_s, off.r.iteration_s);
	}
	/* Transformer Engine's userbuffers overlap (parallel.tp_comm_overlap),
	 * its default config (base.py get_default_config): forward two
	 * ring-exchange overlaps of 1 SM and two pipelined of 16, a mean of
	 * 8.5; backward two ring-exchange and four bulk of 16, a mean of 11.
	 * On 132 SMs a GEMM overlapped for 1 ms takes 8.5/123.5 ms (11/121)
	 * longer */
	struct gpu_spec h100 = { 0 };
	h100.k.sms = 132;
	tap_near(step_ub_slow_s(&h100, 1e-3, false), 1e-3 * 8.5 / 123.5, 1e-15,
		 "TE overlap forward: 8.5 of 132 SMs, 1 ms covered -> 8.5/123.5 ms longer");
	tap_near(step_ub_slow_s(&h100, 1e-3, true), 1e-3 * 11.0 / 121.0, 1e-15,
		 "TE overlap backward: 11 of 132 SMs (4 bulk x 16, 2 ring x 1) -> 11/121 ms");
	step_job_free(&off);
	step_job_free(&on);
	step_job_free(&foff);
	step_job_free(&fon);
	cfg_schema_free(s);
	return tap_done();
}
