/* step-dispatch-t.c -- where an MoE dispatch sends a token (dispatch.h) and
 * what the two dispatchers cost on the fabric (step_layer.c ep_a2a_s).
 *
 * Counts (disp_distinct), by hand from the hypergeometric law: top-k of E
 * experts drawn uniformly from the pool of the chosen groups' experts miss
 * a bin of x of them with chance C(P - x, k) / C(P, k):
 *   - top 2 of 8 experts on 8 GPUs: 2 distinct GPUs, always;
 *   - top 2 of 8 on 4 GPUs of 2: 4 (1 - 6/8 x 5/7) = 13/7 = 1.857143;
 *   - DeepSeek-V3 (256 experts, top 8, 8 groups, 4 chosen) on 8 nodes: a
 *     node is chosen with chance 1/2 and then missed with chance
 *     prod_{i<8} (96 - i)/(128 - i) = 0.0927473, so 4 (1 - 0.0927473) =
 *     3.629011 nodes; without groups 8 (1 - prod_{i<8} (224 - i)/(256 - i))
 *     = 5.294652; on its 64 GPUs (4 experts each) 32 (1 - prod_{i<8}
 *     (124 - i)/(128 - i)) = 7.359370;
 *   - 16 groups of 16, 4 chosen, on 8 nodes (2 groups a node): the node's
 *     chosen groups are hypergeometric (0, 1, 2 with 1001, 728, 91 of
 *     1820), 8 (1 - sum p_c miss(64, 16 c, 8)) = 3.326236;
 *   - 3 groups on 8 bins do not nest: -1.
 *
 * Times: DeepSeek-V3's preset shrunk to 2 MoE layers of 16 experts, top 2,
 * balanced (capacity factor 1), on 2 nodes of 8 H100 with NDR InfiniBand
 * (400 Gb/s x 0.97 = 48.5 GB/s a NIC), TP 1, EP 16, one microbatch of 4096
 * tokens, no overlap: each layer's forward and backward each run one
 * dispatch and one combine, 8 all-to-alls an iteration, all in the exposed
 * TP/EP time.  The all-to-all dispatcher sends top_k copies, S = 4096 x 2 x
 * 7168 x 2 = 117,440,512 bytes, half of it to the other node over its NIC:
 * S/2 / 48.5 GB/s = 1.2107 ms.  DeepEP sends one copy per destination node,
 * 2 (1 - 8/16 x 7/15) = 1.5333 of them, half over InfiniBand: 1.5333/2 of
 * the all-to-all's bytes, 8 x (1 - 0.76667) x 1.2107 ms = 2.2600 ms less,
 * and 8 x 300 ns more: the fabric is rail-optimized, DeepEP's transfers
 * stay on their rail's leaf, the all-to-all's to other local indices pass
 * a spine, two more 150 ns hops (ib_ndr's latency_ns); the NVLink leg (7/8
 * of 2 copies at 345 GB/s, 0.30 ms) hides under the InfiniBand one.
 * Two groups of 8 (one a node), one chosen: every token to one node, 8 x
 * (0.76667 - 0.5) x 1.2107 ms = 2.5829 ms less again.  FP8 dispatch
 * (1 + 4/128 bytes an element, the combine in bf16) on the 4 dispatch-way
 * all-to-alls: 4 x S_node/2 x (1 - 1.03125/2) / B = 1.7984 ms less.  The
 * latencies are the same on both sides of each difference (both cross
 * nodes); the DES keeps whole nanoseconds: the differences hold to 1e-5.
 * DualPipe's overlap (two microbatches, one's all-to-alls under the
 * other's compute): whatever EP time it hides, the MoE compute runs that
 * long on 132 - 20 of H100's 132 SMs (DeepEP's 20, DeepSeek-V3 report
 * sec. 3.2.2), so the compute grows by 20/112 of the time hidden; on the
 * 32 Megatron-Bridge's performance scripts give HybridEP, 32/100 of the
 * same time (the EP time hidden does not depend on them).  (The
 * gradients are reduced after the backward here, overlap_grad_reduce off,
 * so no DP collective takes SMs beside the passes.) */
#include <stdio.h>

#include "tests/tap.h"
#include "models/dispatch.h"
#include "tests/step-load.h"

static double distinct(int E, int k, int G, int tk, int bins)
{
	struct tfm_moe x = { .experts = E, .top_k = k, .groups = G, .group_topk = tk };

	return disp_distinct(&x, bins);
}

/* parallel.ep_dispatcher_sms for run_ov (a repeated setting when unset) */
static const char *sms_ov = "parallel.micro_batch=1";

static int run_ov(struct cfg_schema *s, const char *disp, int groups, int topk,
		  const char *dtype, int fp8_disp, const char *overlap, int batch,
		  struct step_job *j, struct err *e)
{
	char file[4096], d[64], g[64], t[64], dt[64], f8[64], ov[64], gb[64];
	const char *const o[] = {
		"model.layers=2", "model.mtp_layers=0", "model.moe.dense_layers=0",
		"model.moe.experts=16", "model.moe.top_k=2",
		"model.moe.capacity_factor=1.0", "model.seq_len=4096", g, t,
		"cluster.gpus=16", "parallel.tp=1", "parallel.pp=1", "parallel.ep=16",
		"parallel.last_stage_layers=0", gb,
		"parallel.micro_batch=1", "parallel.recompute=\"none\"", d, dt, f8,
		"cluster.gpu_speed_sigma=0", ov, "parallel.overlap_grad_reduce=false",
		sms_ov,
	};

	snprintf(file, sizeof file, "%s/tests/bench/step-moe.cfg", tap_srcdir());
	snprintf(d, sizeof d, "parallel.ep_dispatcher=\"%s\"", disp);
	snprintf(g, sizeof g, "model.moe.groups=%d", groups);
	snprintf(t, sizeof t, "model.moe.group_topk=%d", topk);
	snprintf(dt, sizeof dt, "parallel.dtype=\"%s\"", dtype);
	snprintf(f8, sizeof f8, "parallel.ep_fp8_dispatch=%s", fp8_disp ? "true" : "false");
	snprintf(ov, sizeof ov, "parallel.ep_overlap=\"%s\"", overlap);
	snprintf(gb, sizeof gb, "parallel.global_batch=%d", batch);
	return step_job_run(s, file, o, sizeof o / sizeof o[0], j, e);
}

static int run(struct cfg_schema *s, const char *disp, int groups, int topk,
	       const char *dtype, int fp8_disp, struct step_job *j, struct err *e)
{
	return run_ov(s, disp, groups, topk, dtype, fp8_disp, "none", 16, j, e);
}

int main(void)
{
	struct cfg_schema *s = step_schema_new();
	struct step_job a2a = { 0 }, dep = { 0 }, grp = { 0 }, f16 = { 0 }, f8 = { 0 };
	struct err e = { 0 };
	double half_s = 117440512.0 / 2 / 48.5e9, d = 2 * (1 - 8.0 / 16 * 7 / 15);

	tap_plan(17);
	tap_near(distinct(8, 2, 0, 0, 8), 2, 1e-12, "top 2 of 8 on 8 GPUs: 2");
	tap_near(distinct(8, 2, 0, 0, 4), 13.0 / 7, 1e-12, "top 2 of 8 on 4 GPUs: 13/7");
	tap_near(distinct(256, 8, 8, 4, 8), 3.629011, 1e-6,
		 "DeepSeek-V3 on 8 nodes, 4 of 8 groups: 3.629011 nodes");
	tap_near(distinct(256, 8, 0, 0, 8), 5.294652, 1e-6,
		 "256 experts, top 8, no groups, 8 nodes: 5.294652");
	tap_near(distinct(256, 8, 8, 4, 64), 7.359370, 1e-6,
		 "DeepSeek-V3 on 64 GPUs: 7.359370");
	tap_near(distinct(256, 8, 16, 4, 8), 3.326236, 1e-6,
		 "16 groups, 4 chosen, 8 nodes: 3.326236");
	tap_ok(distinct(24, 2, 3, 1, 8) < 0, "3 groups on 8 bins do not nest");

	int ok = run(s, "alltoall", 0, 0, "bf16", 0, &a2a, &e) == 0 &&
		 run(s, "deepep", 0, 0, "bf16", 0, &dep, &e) == 0 &&
		 run(s, "deepep", 2, 1, "bf16", 0, &grp, &e) == 0;
	if (tap_ok(ok, "all-to-all, DeepEP, DeepEP with 2 groups (%s)", e.msg)) {
		tap_near(a2a.r.tp_exposed_s - dep.r.tp_exposed_s,
			 8 * (1 - d / 2) * half_s + 8 * 300e-9, 1e-5,
			 "DeepEP: a copy per node, 2.2600 ms less, and on the rail, 2.4 us");
		tap_near(dep.r.tp_exposed_s - grp.r.tp_exposed_s,
			 8 * (d / 2 - 0.5) * half_s, 1e-5,
			 "one group of two: one node a token, 2.5829 ms less");
	}
	ok = run(s, "deepep", 0, 0, "fp8", 0, &f16, &e) == 0 &&
	     run(s, "deepep", 0, 0, "fp8", 1, &f8, &e) == 0;
	if (tap_ok(ok, "DeepEP in FP8 with and without FP8 dispatch (%s)", e.msg))
		tap_near(f16.r.tp_exposed_s - f8.r.tp_exposed_s,
			 4 * d / 2 * half_s * (1 - 1.03125 / 2), 1e-5,
			 "FP8 dispatch: 1.7984 ms less");
	struct step_job none = { 0 }, dual = { 0 }, dual32 = { 0 };
	ok = run_ov(s, "deepep", 0, 0, "bf16", 0, "none", 32, &none, &e) == 0 &&
	     run_ov(s, "deepep", 0, 0, "bf16", 0, "dualpipe", 32, &dual, &e) == 0;
	if (tap_ok(ok, "DeepEP with and without DualPipe's overlap (%s)", e.msg)) {
		double hidden_s = none.r.tp_exposed_s - dual.r.tp_exposed_s;
		tap_ok(hidden_s > 1e-3, "DualPipe hides EP time (%.4f ms)", hidden_s * 1e3);
		tap_near(dual.r.compute_s - none.r.compute_s, hidden_s * 20 / 112, 1e-6,
			 "the compute loses DeepEP's 20 SMs for the time hidden: 20/112 of it");
	}
	sms_ov = "parallel.ep_dispatcher_sms=32";
	ok = run_ov(s, "deepep", 0, 0, "bf16", 0, "dualpipe", 32, &dual32, &e) == 0;
	if (tap_ok(ok, "DualPipe with the dispatcher on 32 SMs (%s)", e.msg))
		tap_near(dual32.r.compute_s - none.r.compute_s,
			 (none.r.tp_exposed_s - dual32.r.tp_exposed_s) * 32 / 100, 1e-6,
			 "on 32 of them: 32/100 of the time hidden");
	step_job_free(&dual32);
	step_job_free(&none);
	step_job_free(&dual);
	step_job_free(&f16);
	step_job_free(&f8);
	step_job_free(&a2a);
	step_job_free(&dep);
	step_job_free(&grp);
	cfg_schema_free(s);
	return tap_done();
}
