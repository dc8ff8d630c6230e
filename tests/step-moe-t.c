/* step-moe-t.c -- an MoE layer's dispatch under tensor parallelism
 * (step_layer.c ep_tp_pair_s): DeepSeek-V3's preset shrunk to 2 MoE
 * layers (no dense or MTP layer) on one node of 8 H100, TP 4 with sequence
 * parallelism, EP 1 (no all-to-all), one microbatch of 4096 tokens,
 * capacity factor 1 (every expert's buffer padded to the mean).
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
 * exposed TP time.  Straggler spread 0; the DES keeps whole nanoseconds, each pass rounded:
 * the differences hold to 1e-5. */
#include <stdio.h>

#include "tests/tap.h"
#include "tests/step-load.h"

static int run(struct cfg_schema *s, int top_k, struct step_job *j, struct err *e)
{
	char file[4096], k[64];
	const char *const o[] = {
		"model.layers=2", "model.mtp_layers=0", "model.moe.dense_layers=0",
		"model.moe.capacity_factor=1.0", "model.seq_len=4096", k,
		"cluster.gpus=8", "parallel.tp=4", "parallel.pp=1", "parallel.ep=1",
		"parallel.last_stage_layers=0", "parallel.global_batch=2",
		"parallel.micro_batch=1", "parallel.sequence_parallel=true",
		"parallel.recompute=\"none\"", "parallel.dtype=\"bf16\"",
		"cluster.gpu_speed_sigma=0",
	};

	snprintf(file, sizeof file, "%s/tests/bench/step-moe.cfg", tap_srcdir());
	snprintf(k, sizeof k, "model.moe.top_k=%d", top_k);
	return step_job_run(s, file, o, sizeof o / sizeof o[0], j, e);
}

int main(void)
{
	struct cfg_schema *s = step_schema_new();
	struct step_job k1, k2, k3;
	struct err e = { 0 };
	double pass_s = 2 * 0.75 * 58720256.0 / (450e9 * 0.767);

	tap_plan(4);
	int ok = run(s, 1, &k1, &e) == 0 && run(s, 2, &k2, &e) == 0 &&
		 run(s, 3, &k3, &e) == 0;
	if (tap_ok(ok, "the three runs (%s)", e.msg)) {
		tap_near(k2.r.tp_exposed_s - k1.r.tp_exposed_s, 4 * pass_s, 1e-5,
			 "top 2: one more gather and scatter of S, 4 x 255.2 us");
		tap_near(k3.r.tp_exposed_s - k1.r.tp_exposed_s, 2 * 4 * pass_s, 1e-5,
			 "top 3: two more, 8 x 255.2 us");
		tap_ok(k2.r.iteration_s > k1.r.iteration_s,
		       "slower on the whole: %.6f s > %.6f s", k2.r.iteration_s,
		       k1.r.iteration_s);
	}
	step_job_free(&k1);
	step_job_free(&k2);
	step_job_free(&k3);
	cfg_schema_free(s);
	return tap_done();
}
