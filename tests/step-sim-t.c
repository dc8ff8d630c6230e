/* step-sim-t.c -- step_simulate() on scenarios with the real network:
 * accounting identities, Megatron's FLOPs, the 175B README figure, elastic
 * layouts, schedules and ZeRO.  Expected numbers cited per test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/tap.h"
#include "tests/step-load.h"
#include "sim/cfg.h"
#include "sim/report.h"
#include "models/gpu.h"
#include "models/layout.h"
#include "models/memory.h"
#include "models/parallel.h"
#include "models/step.h"
#include "models/transformer.h"
#include "topologies/net.h"

/* One iteration of the scenario file rel (in the source tree). */
static int run(struct cfg_schema *s, const char *rel, const char *const *ov,
	       size_t n_ov, struct step_job *j, struct err *e)
{
	char file[4096];

	snprintf(file, sizeof file, "%s/%s", tap_srcdir(), rel);
	return step_job_run(s, file, ov, n_ov, j, e);
}

static double parts(const struct step_result *r)
{
	return r->compute_s + r->tp_exposed_s + r->bubble_s + r->pp_exposed_s +
	       r->dp_exposed_s + r->optimizer_s;
}

/* One iteration of rel with the one override ov (NULL: none): its time
 * and host_issue_frac (frac may be NULL); < 0 on error. */
static double run_s(struct cfg_schema *s, const char *rel, const char *ov, double *frac)
{
	const char *ovs[1] = { ov };
	struct step_job j;
	struct err e = { 0 };

	int rc = run(s, rel, ovs, ov ? 1 : 0, &j, &e);
	double t = rc == 0 ? j.r.iteration_s : -1;
	if (frac)
		*frac = rc == 0 ? j.r.host_issue_frac : -1;
	if (rc < 0)
		tap_diag("%s: %s", rel, e.msg);
	step_job_free(&j);
	return t;
}

/* The same with the node's host_op_scale set to scale (0: the catalog's). */
static double host_scaled_s(struct cfg_schema *s, const char *rel, const char *node,
			    double scale, double *frac)
{
	char ov[128];

	snprintf(ov, sizeof ov, "nodes.%s.host_op_scale=%g", node, scale);
	return run_s(s, rel, scale > 0 ? ov : NULL, frac);
}

/*
 * An MoE model with no dense layer (Qwen3-30B-A3B: every layer routed,
 * moe.dense_layers 0) has no dense MLP, so model.ffn_hidden, the dense
 * MLP's width, can change nothing it reports.  A 64-wide dense MLP makes
 * the dense pass, were it counted, the most host-bound one (its ratio
 * 2.52 against the routed passes' 2.05 before step_layer.c took only the
 * passes the model runs), and its matrix share, were it taken, changes
 * the FP8 weights cast each step (step.c te_params).
 */
static void moe_dense_width_tests(struct cfg_schema *s)
{
	const char *moe = "scenarios/validation/mbridge-h100-qwen3-30b-16-fp8cs.cfg";
	double f_wide, f_thin;
	double wide = run_s(s, moe, "model.ffn_hidden=6144", &f_wide);
	double thin = run_s(s, moe, "model.ffn_hidden=64", &f_thin);

	tap_ok(wide > 0 && f_thin == f_wide, "all-MoE model: host_issue_frac %.4f with a "
	       "64-wide dense MLP it does not have, %.4f with 6144", f_thin, f_wide);
	tap_ok(wide > 0 && thin == wide, "all-MoE model: iteration %.9f s either way "
	       "(%.9f)", thin, wide);
}

/*
 * /step host_issue_frac: the host's time to issue a layer pass's kernels
 * over the GPU's time to run them (host.h).  What it promises: under 0.5 a
 * host twice as slow leaves the step as it is; above 1 the step is the
 * host's and moves with it.  Megatron-LM CI's 12-layer GPT of hidden 512
 * (its golden times set Megatron-Core's host cost, stack.c), on a DGX
 * H100 and a host twice as slow; GPT-3 175B on 1,024 A100 (the bench
 * scenario), on a DGX A100 and a host twice as slow as its 1.33.
 */
static void host_frac_tests(struct cfg_schema *s)
{
	const char *ci = "scenarios/validation/megatron-ci-gpt-tp2pp2.cfg";
	const char *big = "tests/bench/step-175b.cfg";
	double f_ci, f_big;
	double ci1 = host_scaled_s(s, ci, "dgx_h100", 0, &f_ci);
	double ci2 = host_scaled_s(s, ci, "dgx_h100", 2, NULL);
	double big1 = host_scaled_s(s, big, "dgx_a100", 0, &f_big);
	double big2 = host_scaled_s(s, big, "dgx_a100", 2 * 1.33, NULL);

	tap_ok(ci1 > 0 && f_ci > 1, "CI GPT: host-bound, host_issue_frac %.2f > 1", f_ci);
	tap_ok(ci1 > 0 && ci2 > 1.5 * ci1, "CI GPT: a host twice as slow, %.4f -> %.4f s",
	       ci1, ci2);
	tap_ok(big1 > 0 && f_big < 0.5, "175B: host_issue_frac %.3f < 0.5", f_big);
	tap_ok(big1 > 0 && big2 > 0 && big2 / big1 - 1 < 1e-9 && big1 / big2 - 1 < 1e-9,
	       "175B: a host twice as slow leaves the step (%.6f -> %.6f s)", big1, big2);
	moe_dense_width_tests(s);
}

/*
 * One layer's passes in /step (step.h): the figures a profile of one
 * layer would show, each checked by hand against what the model is.
 */
static void layer_pass_tests(struct cfg_schema *s)
{
	struct step_job j;
	struct err e = { 0 };

	/* GPT-3 175B with full recomputation (Narayanan et al. SC'21: 96 B s
	 * l h^2 = 4 x 24, the forward's GEMMs once more and the backward's
	 * twice their FLOPs): the backward's tensor time is 3x the forward's,
	 * the GEMMs' shapes transposed.  Megatron's TP: the forward waits
	 * for two all-reduces, the backward for four (the recomputed
	 * forward's two and its own; Korthikanti et al. 2022, Table 2). */
	int rc = run(s, "tests/bench/step-175b.cfg", NULL, 0, &j, &e);
	tap_ok(rc == 0 && j.r.layer_fwd_tensor_s > 0 &&
	       j.r.layer_fwd_tensor_s <= j.r.layer_fwd_s,
	       "175B layer forward %.3f ms, %.3f ms of it tensor kernels (%s)",
	       j.r.layer_fwd_s * 1e3, j.r.layer_fwd_tensor_s * 1e3, rc ? e.msg : "");
	tap_near(j.r.layer_bwd_tensor_s, 3 * j.r.layer_fwd_tensor_s, 0.02,
		 "full recomputation: backward tensor time 3x the forward's within 2%");
	tap_near(j.r.layer_bwd_comm_s, 2 * j.r.layer_fwd_comm_s, 1e-9,
		 "TP: the backward waits for twice the forward's all-reduces");
	step_job_free(&j);

	/* Table 1's 1.7B on one DGX H200 under Megatron-Core, data-parallel
	 * only (a layer waits for no communication; the host is ahead of the
	 * GPU): a GPU's compute is its four microbatches' 24 layers and
	 * output layer; what is left is the embedding's lookup and gradient,
	 * under 1% */
	const char *one[] = { "cluster.gpu=\"h200_sxm\"", "cluster.gpus=8",
			      "parallel.global_batch=512", "parallel.micro_batch=16",
			      "training.stack=\"megatron_core\"" };
	rc = run(s, "scenarios/validation/megatron-table1-1.cfg", one, 5, &j, &e);
	double sum = 4 * (24 * (j.r.layer_fwd_s + j.r.layer_bwd_s) + j.r.logits_fwd_s +
			  j.r.logits_bwd_s);
	tap_ok(rc == 0 && j.r.compute_s >= sum && j.r.compute_s < 1.01 * sum,
	       "1.7B on 8 H200: compute %.4f s = 4 x (24 layers + logits) %.4f s "
	       "and the embedding (%s)", j.r.compute_s, sum, rc ? e.msg : "");
	tap_ok(rc == 0 && j.r.layer_fwd_comm_s == 0 && j.r.layer_bwd_comm_s == 0,
	       "data parallelism only: a layer waits for no communication");
	step_job_free(&j);

	/* Qwen3-30B-A3B, EP 16 over two DGX H100 (8 NICs of NDR 400 Gb/s at
	 * links.ib_ndr.efficiency 0.97): a dispatch or combine moves 4096
	 * tokens x top 8 x 2048 x 2 bytes a GPU, half of it to the other
	 * node through the GPU's own NIC (the NVLink half is faster), so the
	 * forward's two all-to-alls take 2 x 67.1 MB / 48.5 GB/s = 2.77 ms
	 * and the layer's exposed communication is theirs (no EP overlap) */
	rc = run(s, "scenarios/validation/mbridge-h100-qwen3-30b-16-bf16-eager.cfg", NULL, 0,
		 &j, &e);
	double a2a = 2 * (4096.0 * 8 * 2048 * 2 / 2) / (400e9 / 8 * 0.97);
	tap_near(rc == 0 ? j.r.layer_fwd_comm_s : 0, a2a, 0.03,
		 "MoE layer: forward waits for its two all-to-alls, 2.77 ms by hand within 3%");
	tap_near(j.r.layer_bwd_comm_s, j.r.layer_fwd_comm_s, 1e-9,
		 "MoE layer: the backward's two all-to-alls as the forward's");
	step_job_free(&j);
}

int main(void)
{
	struct cfg_schema *s = step_schema_new();
	struct step_job j, k;
	struct err e;
	const char *bench = "tests/bench/step-175b.cfg";

	tap_plan(59);

	/* NVIDIA/Megatron-LM README: GPT-3 175B, 1024 A100, TP 8, PP 16,
	 * batch 1536: about 32 s per iteration, 138 TFLOP/s per GPU */
	int rc = run(s, bench, NULL, 0, &j, &e);
	if (!tap_ok(rc == 0, "175B on 1024 GPUs (%s)", e.msg)) {
		step_job_free(&j);
		cfg_schema_free(s);
		return tap_done();
	}
	tap_near(j.r.tflops_per_gpu, 138, 0.10, "175B: 138 TFLOP/s per GPU within 10%");
	tap_near(j.r.iteration_s, 32, 0.10, "175B: about 32 s per iteration within 10%");
	tap_near(parts(&j.r), j.r.iteration_s, 1e-9, "breakdown sums to the iteration");
	/* Narayanan et al.: F = 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) */
	tap_near(j.r.flops_per_iter, tfm_flops(&j.m, 1536, true), 1e-12,
		 "FLOPs per iteration: Megatron's 96 B s l h^2 (...) with full recompute");
	tap_near(j.r.tflops_per_gpu, j.r.flops_per_iter / (1024 * j.r.iteration_s) / 1e12,
		 1e-12, "TFLOP/s per GPU = FLOPs / (GPUs x time)");
	/* MFU counts 72 B s l h^2 (1 + s/(6h)) + 6 B s h V (no recomputation;
	 * the logits are never recomputed) of the 96 B s l h^2 (...) + 6 B s h V */
	double lay = 96 * 12288.0 * 12288 * (1 + 2048 / (6 * 12288.0));
	double lg = 6 * 12288.0 * 51200;
	tap_near(j.r.mfu, j.r.tflops_per_gpu * 1e12 * (72 * lay + lg) / (96 * lay + lg) /
		 312e12, 1e-12, "MFU = TFLOP/s x (72 + logits)/(96 + logits) / 312 "
		 "(full recomputation on A100)");
	/* 1F1B bubble (p-1)/m = 15/192 of the ideal time; the first and last
	 * stages' embedding and logits make it slightly larger */
	double ideal = j.r.compute_s + j.r.tp_exposed_s;
	tap_ok(j.r.bubble_s / ideal >= 15.0 / 192 && j.r.bubble_s / ideal < 1.5 * 15.0 / 192,
	       "bubble %.4f of ideal, at least (p-1)/m = %.4f", j.r.bubble_s / ideal,
	       15.0 / 192);
	tap_ok(j.r.busy_frac > 0.5 && j.r.busy_frac < 1 &&
	       j.r.tensor_active_frac > 0.3 && j.r.tensor_active_frac <= j.r.busy_frac + 1e-12,
	       "busy %.3f and tensor-active %.3f fractions", j.r.busy_frac,
	       j.r.tensor_active_frac);
	/* NVLink carries only TP traffic here (DP groups have one GPU per
	 * node): per GPU and microbatch, 6 layers x 6 all-reduces (2 forward,
	 * 2 recomputed, 2 backward) of S = 2 s b h bytes, each sending
	 * 2(t-1)/t S, plus the embedding's and logits' all-reduce on 2 of 16
	 * stages; every transfer crosses two NVLink links (GPU-switch-GPU). */
	double S = 2.0 * 2048 * 12288, nvl = 0;
	for (size_t i = 0; i < j.r.n_tiers; i++)
		if (strcmp(j.r.tier_names[i], "nvlink") == 0)
			nvl = j.r.tier_bytes[i];
	tap_near(nvl, 2 * 1024 * 192 * (6 * 6 * 1.75 * S + 2 * 1.75 * S / 16), 1e-12,
		 "TP bytes on the nvlink tier by hand");

	/* elastic: the same job with 4 of 8 replicas, half the batch */
	struct layout half = j.L;
	half.dp = 4;
	half.global_batch = 768;
	struct step_result r2;
	rc = step_simulate(&j.cfg, &j.m, &half, &j.g, &r2, &e);
	tap_ok(rc == 0,
	       "a job shrunk to dp = 4 runs (%s)", e.msg);
	tap_near(r2.iteration_s, j.r.iteration_s, 0.02,
		 "same microbatches per pipeline: same iteration time within 2%");
	struct report *rep = rep_new();
	tap_ok(rep && step_report(rep, &j.r, &e) == 0, "breakdown goes to /step");
	rep_free(rep);
	step_job_free(&j);

	/* interleaving (v = 2) halves the schedule's bubble (p-1)/(v m); the
	 * idle time the heavier first and last chunks (embedding, logits)
	 * cause does not halve, so between 0.4 and 0.75 of 1F1B's */
	const char *il[] = { "parallel.schedule=\"interleaved\"", "parallel.virtual_stages=2" };
	rc = run(s, bench, il, 2, &k, &e);
	tap_ok(rc == 0, "interleaved 175B (%s)", e.msg);
	tap_ok(k.r.bubble_s < 0.75 * j.r.bubble_s && k.r.bubble_s > 0.4 * j.r.bubble_s,
	       "interleaved bubble %.3f s against 1F1B's %.3f s",
	       k.r.bubble_s, j.r.bubble_s);
	step_job_free(&k);

	/* without overlap the whole gradient all-reduce is exposed */
	const char *no[] = { "parallel.overlap_grad_reduce=false" };
	rc = run(s, bench, no, 1, &k, &e);
	tap_ok(rc == 0, "no overlap (%s)", e.msg);
	struct step_job j2;
	run(s, bench, NULL, 0, &j2, &e);
	tap_ok(k.r.dp_exposed_s > j2.r.dp_exposed_s,
	       "overlap hides gradient traffic (%.3f s exposed vs %.3f s)",
	       j2.r.dp_exposed_s, k.r.dp_exposed_s);
	step_job_free(&k);
	step_job_free(&j2);

	/* distributed optimizer: optimizer states 12 Psi / N_d (doc/sources.md section 8) */
	const char *dopt[] = { "parallel.distributed_optimizer=true" };
	int dopt_rc = run(s, bench, dopt, 1, &k, &e);
	tap_ok(dopt_rc == 0 && k.r.peak_memory_bytes < j.r.peak_memory_bytes,
	       "distributed optimizer lowers peak memory (%.1f GB)",
	       k.r.peak_memory_bytes / 1e9);
	step_job_free(&k);

	/* determinism: the same scenario twice gives the same bits */
	struct step_job a, b;
	run(s, bench, NULL, 0, &a, &e);
	run(s, bench, NULL, 0, &b, &e);
	tap_ok(memcmp(&a.r.iteration_s, &b.r.iteration_s, sizeof(double)) == 0 &&
	       memcmp(&a.r.dp_exposed_s, &b.r.dp_exposed_s, sizeof(double)) == 0 &&
	       a.r.events == b.r.events, "deterministic: identical results twice");
	step_job_free(&a);
	step_job_free(&b);

	/* ZeRO (Rajbhandari et al.): 7.5B parameters (Table 1 row 3's shape)
	 * on N_d = 64, one microbatch: model states 16 Psi, 4 Psi + 12 Psi/N_d,
	 * 2 Psi + 14 Psi/N_d, 16 Psi/N_d; per-rank traffic 2 Psi (ZeRO-1, -2)
	 * and 3 Psi (ZeRO-3) elements */
	const char *zero_file = "scenarios/validation/megatron-table1-3.cfg";
	double l = 36, h = 4096;
	double psi = 12 * l * h * h * (1 + 13 / (12 * h) + (51200 + 2048) / (12 * l * h)) + 2 * h;
	const double states[4] = { 16 * psi, 4 * psi + 12 * psi / 64,
				   2 * psi + 14 * psi / 64,
				   /* plus the layer computed and one fetched ahead, bf16
				    * whole: a layer's 0.42 GB exceeds the 100 MB prefetch */
				   16 * psi / 64 + 2 * (2 * psi / l) };
	const double elems[4] = { 2 * psi, 2 * psi, 2 * psi, 3 * psi };
	for (int z = 0; z < 4; z++) {
		char stage[64];
		const char *ov[] = { "cluster.gpus=64", "parallel.tp=1", "parallel.global_batch=64",
				     "parallel.micro_batch=1", "parallel.recompute=\"full\"", stage };
		snprintf(stage, sizeof stage, "parallel.zero_stage=%d", z);
		int zrc = run(s, zero_file, ov, 6, &k, &e);
		struct mem_breakdown mb = { 0 };
		struct err e2 = { 0 };
		if (k.sc && par_check(k.cfg.where, &k.m, &k.L, &k.cfg.par, &e2) == 0)
			mem_peak(&k.m, &k.L, &k.cfg.par, &mb);
		tap_near(mb.weights_bytes + mb.grads_bytes + mb.optimizer_bytes, states[z],
			 1e-12, z == 0 ? "DP, 7.5B on 64 GPUs: model states 16 Psi = 120 GB" :
			 z == 1 ? "ZeRO-1: 4 Psi + 12 Psi/64 = 31.4 GB" :
			 z == 2 ? "ZeRO-2: 2 Psi + 14 Psi/64 = 16.6 GB" :
			 "ZeRO-3: 16 Psi/64 = 1.9 GB + 2 layers gathered (2 x 2 Psi/l)");
		if (z == 0)	/* 120 GB of model states: the reason ZeRO exists */
			tap_ok(zrc < 0 && e.status == ERR_USAGE && strstr(e.msg, "does not fit"),
			       "plain DP does not fit 80 GB: scenario error");
		else
			tap_near(k.r.dp_comm_elems_per_rank, elems[z], 1e-12,
				 z == 3 ? "ZeRO-3 traffic 3 Psi per rank" :
				 "traffic 2 Psi per rank");
		step_job_free(&k);
	}
	const char *z3[] = { "cluster.gpus=64", "parallel.tp=1", "parallel.global_batch=256",
			     "parallel.micro_batch=1", "parallel.zero_stage=3" };
	int z3_rc = run(s, zero_file, z3, 5, &k, &e);
	tap_ok(z3_rc == 0 && fabs(parts(&k.r) - k.r.iteration_s) < 1e-9 * k.r.iteration_s,
	       "ZeRO-3 with 4 microbatches runs, breakdown sums (%.3f s, %s)",
	       k.r.iteration_s, e.msg);
	step_job_free(&k);
	/* ZeRO-2 on 2 pipeline stages (FSDP as Llama 3 ran it): each stage
	 * reduce-scatters every microbatch's gradients, m = 64 / 32 = 2 of
	 * them, then gathers its weights once: (m + 1) x its parameters; the
	 * stages hold Psi and the last one the tied word embedding again
	 * (V h), per rank the mean over the 2 stages */
	const char *z2pp[] = { "cluster.gpus=64", "parallel.tp=1", "parallel.pp=2",
			       "parallel.global_batch=64", "parallel.micro_batch=1",
			       "parallel.recompute=\"full\"", "parallel.zero_stage=2" };
	int z2_rc = run(s, zero_file, z2pp, 7, &k, &e);
	tap_ok(z2_rc == 0, "ZeRO-2 with 2 pipeline stages runs (%s)", e.msg);
	tap_near(k.r.dp_comm_elems_per_rank, 3 * (psi + 51200 * h) / 2, 1e-9,
		 "ZeRO-2 with pp 2: (m + 1)(Psi + V h)/pp = 1.5 (Psi + V h) per rank");
	step_job_free(&k);
	/* Llama 3's pipeline on 175B: 94 layers on 16 stages (5, 6 x 14, 5)
	 * in 6 chunks a stage, one layer each, the first stage's first chunk
	 * only the embedding and the last's last only the logits (layout.h).
	 * The interleaved bubble, (p-1)/(v m) = 15/1152 of the ideal time,
	 * stays below 1F1B's 15/192 on the same layers. */
	const char *emp[] = { "model.layers=94", "parallel.schedule=\"interleaved\"",
			      "parallel.virtual_stages=6" };
	const char *emp1[] = { "model.layers=94" };
	struct step_job ki, k1;
	int rci = run(s, bench, emp, 3, &ki, &e), rc1 = run(s, bench, emp1, 1, &k1, &e);
	tap_ok(rci == 0 && rc1 == 0 && fabs(parts(&ki.r) - ki.r.iteration_s) <
	       1e-9 * ki.r.iteration_s, "empty embedding and loss chunks run, breakdown "
	       "sums (%s)", e.msg);
	if (rci == 0 && rc1 == 0)
		tap_ok(ki.r.bubble_s / (ki.r.compute_s + ki.r.tp_exposed_s) >= 15.0 / 1152 &&
		       ki.r.bubble_s < k1.r.bubble_s / 3,
		       "bubble %.4f of ideal, at least 15/1152, under a third of 1F1B's (%.3f s "
		       "against %.3f s)", ki.r.bubble_s / (ki.r.compute_s + ki.r.tp_exposed_s),
		       ki.r.bubble_s, k1.r.bubble_s);
	else
		tap_ok(0, "empty chunks: both runs");
	step_job_free(&ki);
	step_job_free(&k1);
	/* A ramp-up's paces (run_model.c, pace_lerp): an iteration of one
	 * layout is affine in its microbatches, each adding a pipeline slot.
	 * 175B on 1024 GPUs at 96, 144 and 192 microbatches: the middle one
	 * as the mean of the other two, within 0.1% (the run's tolerance). */
	const char *b96[] = { "parallel.global_batch=768" };
	const char *b144[] = { "parallel.global_batch=1152" };
	struct step_job ka, kb, km;
	int ra = run(s, bench, b96, 1, &ka, &e), rm = run(s, bench, b144, 1, &km, &e);
	int rb = run(s, bench, NULL, 0, &kb, &e);
	if (ra == 0 && rb == 0 && rm == 0) {
		struct step_result x;
		step_result_lerp(&ka.r, &kb.r, 0.5, &x);
		tap_diag("m = 144: %.4f s as the mean, %.4f s simulated", x.iteration_s,
			 km.r.iteration_s);
		tap_near(x.iteration_s, km.r.iteration_s, 1e-3,
			 "affine in microbatches: m = 144 as the mean of 96 and 192");
		tap_near(x.busy_frac, km.r.busy_frac, 1e-3, "... and its busy fraction");
	} else {
		tap_ok(0, "175B at 96, 144, 192 microbatches");
		tap_ok(0, "175B at 96, 144, 192 microbatches");
	}
	step_job_free(&ka);
	step_job_free(&kb);
	step_job_free(&km);

	/* symmetry (step_sym.c), 175B TP8 PP16 on 1024 GPUs.  Radix 40 (HDR):
	 * a scalable unit is 20 nodes on 8 rail leaves and a pod holds 20
	 * leaves, so the third unit's rails 0-3 sit in pod 0 and its rails 4-7
	 * in pod 1: rail 4's routes are not rail 0's renamed, and every group
	 * goes on the netsim.  Without rail optimisation a leaf carries every
	 * rail.  Radix 64, leaves 2:1: two pods' worth of leaves in one tier,
	 * rails apart, but the stages of a rail meet on spine links.  16,384
	 * GPUs on radix 64: each stage's 128 nodes in one pod of 32 leaves x 32
	 * ports, rail i on leaves of its own, no link carries two DP groups.
	 * Rings alone (sharded DP): with TP 8 a rank's rings keep to its one
	 * rail, and the third unit's rails 0-3 and 4-7 still sit in different
	 * pods: not symmetric.  With TP 4 and PP 1 (radix 40 again) rank i's
	 * DP group holds GPUs i and i+4 of all 128 nodes; a ring channel
	 * leaves and enters each node on one rail (coll.c), so rank i's rings
	 * use rails i and i+4, one of each pod's pair, and are rank 0's
	 * renamed, no link carrying two ranks: symmetric.  Its trees and
	 * hierarchical rings are not, and without rail optimisation rails meet. */
	const char *cases[][3] = {
		{ "network.fat_tree.radix=40", NULL, NULL },
		{ "network.fat_tree.rail_optimized=false", NULL, NULL },
		{ "network.fat_tree.radix=64", "network.fat_tree.oversubscription=[2.0, 1.0]", NULL },
		{ "cluster.gpus=16384", "parallel.global_batch=24576",
		  "network.fat_tree.radix=64" },
		{ "network.fat_tree.radix=40", "parallel.tp=4", "parallel.pp=1" },
	};
	enum { N_CASES = sizeof cases / sizeof *cases };
	struct step_sym sym[N_CASES], ring[N_CASES];
	for (int f = 0; f < N_CASES; f++) {
		char file[4096];
		snprintf(file, sizeof file, "%s/%s", tap_srcdir(), bench);
		struct scenario *sc = sc_load(s, file, cases[f],
					    cases[f][2] ? 3 : cases[f][1] ? 2 : 1, &e);
		struct tfm m;
		struct layout L;
		struct net *net = NULL;
		int *rg = NULL;
		memset(&sym[f], 0, sizeof sym[f]);
		memset(&ring[f], 0, sizeof ring[f]);
		if (sc) {
			tfm_from_scenario(sc, &m);
			layout_from_scenario(sc, &m, &L, &e);
			struct net_cfg *cfg = net_cfg_from_scenario(sc, &e);
			net = cfg ? net_build(cfg, &e) : NULL;
			net_cfg_free(cfg);
		}
		if (net) {
			rg = malloc(sizeof *rg * (size_t)L.gpus);
			for (int r = 0; rg && r < L.gpus; r++)
				rg[r] = net_rank_gpu(net, r);
			if (rg) {
				step_dp_symmetry(net, rg, L.tp, L.pp, L.dp, false, &sym[f], &e);
				step_dp_symmetry(net, rg, L.tp, L.pp, L.dp, true, &ring[f], &e);
			}
		}
		free(rg);
		net_free(net);
		sc_free(sc);
	}
	tap_ok(!sym[0].rails_symmetric && !sym[0].all_disjoint,
	       "radix 40: a unit split over two pods, every group on the netsim");
	tap_ok(!sym[1].rails_symmetric && !sym[1].all_disjoint,
	       "not rail-optimised: rails meet on the leaves");
	tap_ok(sym[2].rails_symmetric && !sym[2].all_disjoint,
	       "radix 64, leaves 2:1: rails apart, stages meet: one rail on the netsim");
	tap_ok(sym[3].rails_symmetric, "16,384 GPUs on radix 64: rails symmetric");
	tap_ok(sym[3].all_disjoint, "... and every DP group on links of its own");
	tap_ok(!ring[0].rails_symmetric, "radix 40, TP 8, rings only: still split over the pods");
	tap_ok(!ring[1].rails_symmetric, "not rail-optimised, rings only: rails still meet");
	tap_ok(!sym[4].rails_symmetric, "radix 40, TP 4 PP 1, every algorithm: not symmetric");
	tap_ok(ring[4].rails_symmetric && ring[4].all_disjoint,
	       "... rings only: symmetric and apart (rails i and i+4 per rank)");
	tap_ok(ring[3].rails_symmetric && ring[3].all_disjoint,
	       "16,384 GPUs on radix 64, rings only: symmetric and apart");
	/* Transformer Engine's pipelined reduce-scatters (TE v1.8
	 * split_overlap_rs) leave their last chunk's share, 1/4, exposed:
	 * the Megatron-Core 32B row on one node (TP 8, DP 1, 4 microbatches
	 * of 4096 tokens, 48 layers), whose GEMMs hide the rest of its TP
	 * time, exposes per microbatch 48 x 2 x RS/4 (projection and MLP
	 * output) plus the embedding's and the logits' all-reduces, RS and
	 * AR of one [4096, 7168] bf16 activation among GPUs 0-7 on its net */
	{
		const char *ov[] = { "cluster.gpus=8", "parallel.global_batch=4" };
		int ok = run(s, "scenarios/validation/mcore-weak-32b.cfg", ov, 2, &k, &e) == 0;
		struct net *net = ok ? net_build(k.cfg.net, &e) : NULL;
		double want = -1;
		if (net) {
			int tp[8] = { 0, 1, 2, 3, 4, 5, 6, 7 };
			double S = 2.0 * 4096 * 7168;
			struct coll rs = { COLL_REDUCE_SCATTER, COLL_AUTO, tp, 8, S, 0 };
			struct coll ar = { COLL_ALL_REDUCE, COLL_AUTO, tp, 8, S, 0 };
			want = 4 * (48 * 2 * net_coll_time_s(net, &rs, &e) / 4 +
				    2 * net_coll_time_s(net, &ar, &e));
		}
		tap_near(k.r.tp_exposed_s, want, 1e-9,
			 "TP overlap: 1/4 of each pipelined reduce-scatter exposed");
		net_free(net);
		step_job_free(&k);
	}
	/* NCCL's channels for a DP collective (2 per GPU the group has on a
	 * node, NCCL 2.21's ring search doubled): the Megatron-Core rows on
	 * 8-GPU nodes, TP 1 (8 per node: 16), TP 2 (4: 8), TP 4 (2: 4),
	 * TP 8 (1: 2) */
	{
		const char *rows[4] = { "1.7b", "7.1b", "16b", "32b" };
		int got[4] = { -1, -1, -1, -1 };
		for (int i = 0; i < 4; i++) {
			char rel[128];
			snprintf(rel, sizeof rel, "scenarios/validation/mcore-weak-%s.cfg", rows[i]);
			char file[4096];
			snprintf(file, sizeof file, "%s/%s", tap_srcdir(), rel);
			struct scenario *sc = sc_load(s, file, NULL, 0, &e);
			struct tfm m;
			struct layout L;
			if (!sc)
				continue;
			tfm_from_scenario(sc, &m);
			struct net_cfg *cfg = layout_from_scenario(sc, &m, &L, &e) == 0 ?
					      net_cfg_from_scenario(sc, &e) : NULL;
			struct net *net = cfg ? net_build(cfg, &e) : NULL;
			int *rg = net ? malloc(sizeof *rg * (size_t)L.gpus) : NULL;
			for (int r = 0; rg && r < L.gpus; r++)
				rg[r] = net_rank_gpu(net, r);
			if (rg)
				got[i] = step_dp_channels(net, rg, &L);
			free(rg);
			net_free(net);
			net_cfg_free(cfg);
			sc_free(sc);
		}
		tap_ok(got[0] == 16 && got[1] == 8 && got[2] == 4 && got[3] == 2,
		       "DP collectives' NCCL channels: 16, 8, 4, 2 at TP 1, 2, 4, 8");
	}
	host_frac_tests(s);
	layer_pass_tests(s);
	cfg_schema_free(s);
	return tap_done();
}
