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
 * a spine, two more 150 ns hops (ib_ndr's latency_ns); and its NVLink leg
 * (an all-to-all of 2 copies, 117,440,512 bytes, among the node's 8 GPUs:
 * 310.13 us, `trainsim collective tests/bench/step-moe.cfg --op all_to_all
 * --ranks 8` at that size) runs under the InfiniBand one but for 0.24 of
 * it (DEEPEP_LEG_SERIAL): 8 x 0.24 x 310.13 us = 0.5954 ms more, so 1.6670
 * ms less in all.
 * Two groups of 8 (one a node), one chosen: every token to one node, 8 x
 * (0.76667 - 0.5) x 1.2107 ms = 2.5829 ms less again.  FP8 dispatch
 * (1 + 4/128 bytes an element, the combine in bf16) on the 4 dispatch-way
 * all-to-alls: 4 x S_node/2 x (1 - 1.03125/2) / B = 1.7984 ms less, and
 * their NVLink legs' shares 4 x 0.24 x (310.13 - 165.92) us = 0.1384 ms
 * (165.92 us at 60,555,264 bytes, the same command): 1.9369 ms.  The
 * latencies are the same on both sides of each difference (both cross
 * nodes); the DES keeps whole nanoseconds: the differences hold to 1e-5.
 * DualPipe's overlap (two microbatches, one's all-to-alls under the
 * other's compute): whatever EP time it hides, the MoE compute runs that
 * long on 132 - 20 of H100's 132 SMs (DeepEP's 20, DeepSeek-V3 report
 * sec. 3.2.2), so the compute grows by 20/112 of the time hidden; on the
 * 32 Megatron-Bridge's performance scripts give HybridEP, 32/100 of the
 * same time (the EP time hidden does not depend on them).  (The
 * gradients are reduced after the backward here, overlap_grad_reduce off,
 * so no DP collective takes SMs beside the passes.)
 *
 * The dispatchers' own benchmarks, one dispatch or combine of 4096 tokens
 * of 7168 (step_ep_times), their printed bandwidths turned into times by
 * their own byte counts -- a token once per destination node, its own
 * node included, 2 bytes an element (FP8: 1 + 4/128):
 *   HybridEP (deepseek-ai/DeepEP hybrid-ep branch, docs/README_Hybrid-EP.md
 *   of 2026-05-13; top 8 of 128 experts uniform, 16 SMs, kernel time):
 *   on H100 at 16, 32, 64 ranks BF16 dispatch 71.71, 57.69, 49.97 GB/s and
 *   combine 62.95, 57.46, 49.77 -- what HYBRIDEP_LEG_SERIAL was fitted to,
 *   pinned within 10%; on B200, 8 ranks, one node, the bytes each GPU
 *   receives (a token once per destination GPU) at 734.95 GB/s, and on
 *   GB200 in one NVL72 domain at 8, 16, 32 ranks (32 SMs) 764.03, 706.95,
 *   642.23 GB/s -- nothing fitted there, within 10%.  DeepEP (its README: H800, best-tuned normal
 *   kernels; 256 experts, top 8 within at most 4 of its nodes): FP8
 *   dispatch 43, 58, 51 GB/s and BF16 combine 43, 57, 50 at EP 16, 32, 64
 *   -- what DEEPEP_LEG_SERIAL was fitted to, within 10%. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

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

/* One dispatch and combine of a benchmark's shape: 4096 tokens of 7168,
 * E experts, top 8 (within min(4, nodes) node groups when grouped), on
 * `gpus` GPUs of `gpu`, EP over all of them; GB200s as trays of 4 in one
 * NVLink domain (an NVL72's). */
static int bench_ep(struct cfg_schema *s, const char *disp, const char *gpu, int gpus,
		    int E, bool grouped, bool fp8, double *disp_s, double *comb_s)
{
	char gp[64], ep[64], gb[64], ex[64], gr[64], gt[64], dd[64], gg[64], f8[64], dt[64];
	char dom[64];
	bool nvl72 = strcmp(gpu, "gb200") == 0;
	int nodes = gpus / 8;
	const char *const o[] = {
		"model.layers=1", "model.mtp_layers=0", "model.moe.dense_layers=0",
		"model.moe.top_k=8", "model.moe.capacity_factor=1.0",
		"model.moe.shared_experts=0", "model.seq_len=4096", "parallel.tp=1",
		"parallel.pp=1", "parallel.last_stage_layers=0", "parallel.micro_batch=1",
		"parallel.recompute=\"none\"", gp, ep, gb, ex, gr, gt, dd, gg, f8, dt,
		nvl72 ? "cluster.gpus_per_node=4" : "parallel.tp=1",
		nvl72 ? "network.nics_per_node=4" : "parallel.tp=1", dom,
	};
	struct step_job j;
	struct err e;
	double meta_s;
	char file[4096];
	int rc;

	snprintf(file, sizeof file, "%s/tests/bench/step-moe.cfg", tap_srcdir());
	snprintf(gp, sizeof gp, "cluster.gpus=%d", gpus);
	snprintf(ep, sizeof ep, "parallel.ep=%d", gpus);
	snprintf(gb, sizeof gb, "parallel.global_batch=%d", gpus);
	snprintf(ex, sizeof ex, "model.moe.experts=%d", E);
	snprintf(gr, sizeof gr, "model.moe.groups=%d", grouped ? nodes : 0);
	snprintf(gt, sizeof gt, "model.moe.group_topk=%d", grouped ? (nodes < 4 ? nodes : 4) : 0);
	snprintf(dd, sizeof dd, "parallel.ep_dispatcher=\"%s\"", disp);
	snprintf(gg, sizeof gg, "cluster.gpu=\"%s\"", gpu);
	snprintf(f8, sizeof f8, "parallel.ep_fp8_dispatch=%s", fp8 ? "true" : "false");
	snprintf(dt, sizeof dt, "parallel.dtype=\"%s\"", fp8 ? "fp8" : "bf16");
	snprintf(dom, sizeof dom, nvl72 ? "network.scale_up_domain_gpus=%d" : "parallel.pp=1",
		 gpus);
	rc = step_job_load(s, file, o, sizeof o / sizeof o[0], &j, &e);
	if (rc == 0)
		rc = step_cfg_read_net(j.sc, &j.cfg, &e);
	if (rc == 0)
		rc = step_ep_times(&j.cfg, &j.m, &j.L, &j.g, disp_s, comb_s, &meta_s, &e);
	if (rc < 0)
		tap_diag("%s %s %d: %s", disp, gpu, gpus, e.msg);
	step_job_free(&j);
	return rc;
}

/* tap_near with a formatted name. */
static void near_f(double got, double want, double tol, const char *fmt, ...)
{
	char name[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name, sizeof name, fmt, ap);
	va_end(ap);
	tap_near(got, want, tol, name);
}

/* The published figure's time: bytes / (GB/s). */
static double bench_s(double tokens_copies, double elem_bytes, double gbyte_s)
{
	return 4096 * tokens_copies * 7168 * elem_bytes / (gbyte_s * 1e9);
}

static void test_benchmarks(struct cfg_schema *s)
{
	static const struct { int gpus; double disp, comb; } hy[] = {
		{ 16, 71.71, 62.95 }, { 32, 57.69, 57.46 }, { 64, 49.97, 49.77 },
	}, dp[] = { { 16, 43, 43 }, { 32, 58, 57 }, { 64, 51, 50 } };
	double t_d, t_c;

	for (int i = 0; i < 3; i++) {
		int n = hy[i].gpus / 8;
		double d_node = distinct(128, 8, 0, 0, n);
		if (bench_ep(s, "hybridep", "h100_sxm", hy[i].gpus, 128, false, false, &t_d,
			     &t_c) < 0)
			continue;
		near_f(t_d, bench_s(d_node, 2, hy[i].disp), 0.10, "HybridEP on %d H100: "
			 "dispatch %.3f ms, its benchmark's %.3f (10%%)", hy[i].gpus, t_d * 1e3,
			 bench_s(d_node, 2, hy[i].disp) * 1e3);
		near_f(t_c, bench_s(d_node, 2, hy[i].comb), 0.10, "... combine %.3f ms, "
			 "its %.3f", t_c * 1e3, bench_s(d_node, 2, hy[i].comb) * 1e3);
	}
	if (bench_ep(s, "hybridep", "b200", 8, 128, false, false, &t_d, &t_c) == 0)
		near_f(t_d, bench_s(distinct(128, 8, 0, 0, 8), 2, 734.95), 0.10,
			 "held out: HybridEP on 8 B200 (one node): dispatch %.3f ms, its "
			 "benchmark's %.3f (10%%)", t_d * 1e3,
			 bench_s(distinct(128, 8, 0, 0, 8), 2, 734.95) * 1e3);
	static const struct { int gpus; double disp; } nv[] = {
		{ 8, 764.03 }, { 16, 706.95 }, { 32, 642.23 },
	};
	for (int i = 0; i < 3; i++) {
		double want = bench_s(distinct(128, 8, 0, 0, nv[i].gpus), 2, nv[i].disp);
		if (bench_ep(s, "hybridep", "gb200", nv[i].gpus, 128, false, false, &t_d, &t_c) == 0)
			near_f(t_d, want, 0.10, "held out: HybridEP on %d GB200 (one NVLink "
			       "domain): dispatch %.3f ms, its benchmark's %.3f (10%%)",
			       nv[i].gpus, t_d * 1e3, want * 1e3);
	}
	for (int i = 0; i < 3; i++) {
		int n = dp[i].gpus / 8;
		double d_node = distinct(256, 8, n, n < 4 ? n : 4, n);
		if (bench_ep(s, "deepep", "h800_sxm", dp[i].gpus, 256, true, true, &t_d, &t_c) < 0)
			continue;
		near_f(t_d, bench_s(d_node, 1.03125, dp[i].disp), 0.10, "DeepEP on %d H800: "
			 "FP8 dispatch %.3f ms, its benchmark's %.3f (10%%)", dp[i].gpus,
			 t_d * 1e3, bench_s(d_node, 1.03125, dp[i].disp) * 1e3);
		near_f(t_c, bench_s(d_node, 2, dp[i].comb), 0.10, "... combine %.3f ms, its "
			 "%.3f", t_c * 1e3, bench_s(d_node, 2, dp[i].comb) * 1e3);
	}
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

	tap_plan(33);
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
			 8 * (1 - d / 2) * half_s + 8 * 300e-9 - 8 * 0.24 * 310.13e-6, 1e-5,
			 "DeepEP: a copy per node, 2.2600 ms less, on the rail 2.4 us, "
			 "0.24 of its NVLink leg 0.5954 ms more");
		tap_near(dep.r.tp_exposed_s - grp.r.tp_exposed_s,
			 8 * (d / 2 - 0.5) * half_s, 1e-5,
			 "one group of two: one node a token, 2.5829 ms less");
	}
	ok = run(s, "deepep", 0, 0, "fp8", 0, &f16, &e) == 0 &&
	     run(s, "deepep", 0, 0, "fp8", 1, &f8, &e) == 0;
	if (tap_ok(ok, "DeepEP in FP8 with and without FP8 dispatch (%s)", e.msg))
		tap_near(f16.r.tp_exposed_s - f8.r.tp_exposed_s,
			 4 * d / 2 * half_s * (1 - 1.03125 / 2) +
				 4 * 0.24 * (310.13e-6 - 165.92e-6), 1e-5,
			 "FP8 dispatch: 1.7984 + 0.1384 ms less");
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
	test_benchmarks(s);
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
