/* step-ds-t.c -- DeepSpeed's engine holding the gradients (training.stack
 * megatron_deepspeed, models/stack.c) against megatron_lm_2021 at ZeRO
 * stage 1, on a GPT of 2 layers, h = 8192, at TP 8 on A100s
 * (tests/bench/step-175b.cfg, shrunk; straggler spread 0, no DP overlap).
 *
 * Accumulation, one node (PP 1, DP 1, four microbatches): the stacks differ
 * only in the bytes each backward pass streams per parameter into the
 * accumulator (compute.h CMP_ACCUM_*): DeepSpeed's BF16_Optimizer 18
 * (update_hp_grads: hp.add_(lp.grad.to(fp32))), Megatron's main_grad 10,
 * DeepSpeed fp16 6 (autograd into the 16-bit .grad).  The copy law is
 * linear in bytes, so the time differences stand as the byte differences:
 * (t18 - t10) / (t10 - t6) = 8 / 4 = 2, and t18 - t6 is 12 bytes per local
 * parameter per microbatch at the copy rate (within 1%: biases, norms and
 * each kernel's launch are left out).
 *
 * Reduction, two nodes (DP 2): Megatron's ZeRO-1 reduce-scatters and
 * all-gathers (2 Psi elements per rank); DeepSpeed's engine all-reduces the
 * whole gradient before its sharded step and then all-gathers the weights
 * (3 Psi): 1.5 times the elements, in bf16 and fp16 alike. */
#include <math.h>
#include <stdio.h>

#include "tests/tap.h"
#include "tests/step-load.h"
#include "models/kernels.h"

static int run(struct cfg_schema *s, const char *stack, const char *dtype, int gpus,
	       struct step_job *j, struct err *e)
{
	char file[4096], st[64], dt[64], g[64], gb[64];
	const char *const o[] = {
		"model.layers=2", "model.hidden=8192", "model.heads=64",
		"parallel.tp=8", "parallel.pp=1", "parallel.micro_batch=4",
		"parallel.zero_stage=1", "parallel.overlap_grad_reduce=false",
		"cluster.gpu_speed_sigma=0", st, dt, g, gb,
	};

	snprintf(file, sizeof file, "%s/tests/bench/step-175b.cfg", tap_srcdir());
	snprintf(st, sizeof st, "training.stack=\"%s\"", stack);
	snprintf(dt, sizeof dt, "parallel.dtype=\"%s\"", dtype);
	snprintf(g, sizeof g, "cluster.gpus=%d", gpus);
	/* four microbatches of 4 per DP replica */
	snprintf(gb, sizeof gb, "parallel.global_batch=%d", 16 * gpus / 8);
	return step_job_run(s, file, o, sizeof o / sizeof o[0], j, e);
}

int main(void)
{
	struct cfg_schema *s = step_schema_new();
	struct step_job m21, bf16, fp16, m21dp, dsdp, dsdp16;
	struct err e = { 0 };
	/* parameters whose gradients each backward accumulates (step_layer.c): 2
	 * layers of 12 h^2 / t, the word embedding's V h / t and the learned
	 * positions' s h at the embedding, the head's V h / t again at the
	 * logits (tied: autograd sums it into the same weight, a pass of its
	 * own); biases and norms under 0.1% */
	double h = 8192, P = 2 * 12 * h * h / 8 + 2 * 51200 * h / 8 + 2048 * h;

	tap_plan(6);
	int ok = run(s, "megatron_lm_2021", "bf16", 8, &m21, &e) == 0 &&
		 run(s, "megatron_deepspeed", "bf16", 8, &bf16, &e) == 0 &&
		 run(s, "megatron_deepspeed", "fp16", 8, &fp16, &e) == 0;
	if (tap_ok(ok, "the three one-node runs (%s)", e.msg)) {
		double t10 = m21.r.compute_s, t18 = bf16.r.compute_s, t6 = fp16.r.compute_s;
		double want = 4 * (kern_stream_s(&m21.g.k, KS_COPY, 12 * P) -
				   kern_stream_s(&m21.g.k, KS_COPY, 0));
		tap_near((t18 - t10) / (t10 - t6), 2.0, 1e-6,
			 "accumulation: (18 - 10) / (10 - 6) bytes per parameter = 2");
		tap_ok(fabs(t18 - t6 - want) <= 0.01 * want, "bf16 - fp16 engine: %.6f s = 12 B x "
		       "%.4g parameters x 4 microbatches at the copy rate, %.6f s, within 1%%",
		       t18 - t6, P, want);
	}
	ok = run(s, "megatron_lm_2021", "bf16", 16, &m21dp, &e) == 0 &&
	     run(s, "megatron_deepspeed", "bf16", 16, &dsdp, &e) == 0 &&
	     run(s, "megatron_deepspeed", "fp16", 16, &dsdp16, &e) == 0;
	if (tap_ok(ok, "the three DP 2 runs (%s)", e.msg)) {
		tap_near(dsdp.r.dp_comm_elems_per_rank / m21dp.r.dp_comm_elems_per_rank, 1.5,
			 1e-12, "DeepSpeed's engine: all-reduce + all-gather = 3 Psi, "
			 "ZeRO-1's reduce-scatter + all-gather 2 Psi");
		tap_near(dsdp16.r.dp_comm_elems_per_rank, dsdp.r.dp_comm_elems_per_rank, 1e-12,
			 "the same elements in fp16");
	}
	step_job_free(&m21);
	step_job_free(&bf16);
	step_job_free(&fp16);
	step_job_free(&m21dp);
	step_job_free(&dsdp);
	step_job_free(&dsdp16);
	cfg_schema_free(s);
	return tap_done();
}
