/* host-eager-t.c -- the host's launch bound (models/host.h) and the eager
 * AMP loop's passes (models/eager.h) on the made-up GPU of toy-gpu.h
 * (1 TB/s, copies at half of it, 5 us per elementwise launch).  Expected
 * numbers by hand from the byte counts eager.h derives from PyTorch's
 * sources (torch/optim/adam.py _multi_tensor_adam, torch/nn/utils/
 * clip_grad.py, autocast's weight cache) and the kernel lists of
 * compute.h. */
#include <stdio.h>

#include "tests/tap.h"
#include "models/compute.h"
#include "models/stack.h"
#include "models/eager.h"
#include "models/host.h"
#include "tests/toy-gpu.h"

#define US 1e-6

/* What FP8 experts' padding copies add to a routed pass (compute.c
 * moe_pad_copies): its time, and in *ops the framework ops. */
static double pad_copies_s(const struct gpu_spec *g, struct cmp_shape *moe, bool bwd,
			   double *ops)
{
	struct cmp_cost plain, padded;

	moe->moe_pad_copies = false;
	(bwd ? cmp_moe_routed_bwd : cmp_moe_routed_fwd)(g, moe, &plain);
	moe->moe_pad_copies = true;
	(bwd ? cmp_moe_routed_bwd : cmp_moe_routed_fwd)(g, moe, &padded);
	moe->moe_pad_copies = false;
	*ops = (padded.kernels - padded.lib_kernels) - (plain.kernels - plain.lib_kernels);
	return padded.time_s - plain.time_s;
}

int main(void)
{
	struct gpu_spec g;
	struct cmp_cost c;

	toy(&g);
	tap_plan(68);

	/* the stacks' host figure is the H200 GEMM table's floor: its
	 * shortest rows (4.3 GFLOP in 15.5 us, twice that in 16.0, a quarter
	 * in 16.5) are the host's issue time, not the GEMMs' */
	static struct kern_tables tb;
	char dir[4096];
	struct err e = { 0 };
	snprintf(dir, sizeof dir, "%s/scenarios/catalog/kernels/h200_sxm", tap_srcdir());
	int loaded = kern_tables_load(dir, &tb, &e) == 0;
	tap_ok(loaded, "the H200 kernel tables load");
	double floor_s = 1;
	for (int i = 0; loaded && i < tb.bf16.n; i++)
		if (tb.bf16.s[i] < floor_s)
			floor_s = tb.bf16.s[i];
	tap_near(stack_find("pytorch_eager")->host_us_per_kernel * US, floor_s, 0.005,
		 "host time per kernel = the H200 table's floor (15.5 us)");

	/* a pass of 100 us in 10 kernels: launched at 15.5 us each the host
	 * needs 155 us, so the GPU idles 55 us; at 5 kernels it is hidden */
	cmp_zero(&c);
	c.time_s = 100 * US;
	c.gemm_s = 60 * US;
	c.kernels = 10;
	host_bound(&c, &(struct host_cost){ 15.5 * US, 15.5 * US }, false);
	tap_near(c.time_s, 155 * US, 1e-15, "host-bound pass: 10 kernels x 15.5 us");
	tap_near(c.gemm_s, 60 * US, 1e-15, "the GEMMs' own time is kept");
	c.time_s = 100 * US;
	c.kernels = 5;
	host_bound(&c, &(struct host_cost){ 15.5 * US, 15.5 * US }, false);
	tap_near(c.time_s, 100 * US, 1e-15, "GPU-bound pass: 5 x 15.5 us hide under 100 us");
	host_bound(&c, &(struct host_cost){ 0, 0 }, false);
	tap_near(c.time_s, 100 * US, 1e-15, "host time 0: never host-bound");
	/* CUDA_LAUNCH_BLOCKING=1: the host waits for each kernel, so its 5 x
	 * 15.5 us add to the 100 us instead of hiding under them */
	host_bound(&c, &(struct host_cost){ 15.5 * US, 15.5 * US }, true);
	tap_near(c.time_s, 177.5 * US, 1e-15, "blocking launches: 100 + 5 x 15.5 us");
	c.time_s = 100 * US;

	/* a sync part-way: 300 us of GPU work in 20 kernels, of which a tail
	 * of 100 us in 15 kernels after the sync, with 40 us of collectives
	 * in it.  At 10 us a kernel the host issues the first part's 5 in
	 * 50 us (under its 200) and the tail's 15 in 150 against 140: the GPU
	 * idles 10 us, where the whole pass (200 us of host) was GPU-bound */
	struct cmp_cost tail;
	cmp_zero(&tail);
	tail.time_s = 100 * US;
	tail.kernels = 15;
	c.time_s = 300 * US;
	c.kernels = 20;
	host_sync_bound(&c, &tail, 40 * US, &(struct host_cost){ 10 * US, 10 * US });
	tap_near(c.time_s, 310 * US, 1e-15, "sync: the tail's 150 us of host over its 140 us");
	/* at 20 us a kernel the tail takes 300 us of host against 140: 160 us
	 * idle, 460 us in all, above the 400 us the host needs for the whole
	 * pass unsynchronized: the GPU's 200 us before the sync no longer
	 * hide the host's issuing after it */
	c.time_s = 300 * US;
	host_sync_bound(&c, &tail, 40 * US, &(struct host_cost){ 20 * US, 20 * US });
	tap_near(c.time_s, 460 * US, 1e-15, "sync: 200 us + 300 us of host - 40 us covered");
	c.time_s = 300 * US;
	host_sync_bound(&c, &tail, 40 * US, &(struct host_cost){ 0, 0 });
	tap_near(c.time_s, 300 * US, 1e-15, "sync with host time 0: the GPU's time");

	/* the kernels of an MoE layer's routed part (compute.h
	 * cmp_moe_routed_fwd), 16 local experts of a SwiGLU MLP: permute,
	 * FC1, activation, FC2, unpermute.  Transformer Engine's GroupedLinear
	 * launches a GEMM per expert: 1 + 16 + 1 + 16 + 1 = 35; one grouped
	 * kernel each: 5 */
	struct cmp_shape moe = { .b = 1, .s = 256, .h = 64, .a = 1, .V = 256, .tp = 1,
				 .flash = true, .fused = true, .gated = true,
				 .experts = 16, .topk = 2, .fe = 32, .ep = 1,
				 .per_expert_gemms = true, .peak_flops = 312e12 };
	cmp_moe_routed_fwd(&g, &moe, &c);
	tap_near(c.kernels, 35, 1e-12, "MoE routed forward, a GEMM per expert: 35 launches");
	/* ... of which the host issues 5 ops from Python (permute, FC1's
	 * GroupedLinear call, activation, FC2's, unpermute) and each module
	 * launches its other 15 GEMMs from C++: at 100 us an op and 10 us a
	 * launch, 5 x 100 + 30 x 10 = 800 us */
	tap_near(c.lib_kernels, 30, 1e-12, "... 30 of them from GroupedLinear's own loop");
	tap_near(host_issue_s(c.kernels, c.lib_kernels, &(struct host_cost){ 100 * US, 10 * US }),
		 800 * US, 1e-12, "host time: 5 ops x 100 us + 30 launches x 10 us");
	/* backward: each module's dgrad and wgrad GEMMs per expert, one call */
	cmp_moe_routed_bwd(&g, &moe, &c);
	tap_near(c.kernels - c.lib_kernels, 5, 1e-12,
		 "routed backward: 5 ops (each module's GEMMs past the first from C++)");
	moe.per_expert_gemms = false;
	cmp_moe_routed_fwd(&g, &moe, &c);
	tap_near(c.kernels, 5, 1e-12, "one grouped GEMM each: 5 launches");
	/* Megatron-Core's all-to-all dispatcher sorts the received pairs by
	 * local expert and back (token_dispatcher.py sort_chunks_by_idxs,
	 * "Permutation 2" and "Unpermutation 2"): two more copies of the
	 * 512 pairs x 64 x 2 bytes, read and written, each as long as the
	 * permute; with one expert a rank there is nothing to sort */
	{
		struct cmp_cost flex, copy;
		double pairs = 256 * 2;

		cmp_moe_routed_fwd(&g, &moe, &flex);
		moe.ep_sort = true;
		cmp_moe_routed_fwd(&g, &moe, &c);
		cmp_stream(&g, KS_COPY, pairs * 64 * 2 * 2, &copy);
		tap_near(c.kernels, 7, 1e-12, "all-to-all dispatcher: sort and unsort, 7 launches");
		tap_near(c.time_s - flex.time_s, 2 * copy.time_s, 1e-15,
			 "... two copies of the 512 routed rows");
		cmp_moe_routed_bwd(&g, &moe, &c);
		moe.ep_sort = false;
		cmp_moe_routed_bwd(&g, &moe, &flex);
		tap_near(c.time_s - flex.time_s, 2 * copy.time_s, 1e-15,
			 "... and their gradients' two sorts backward");
		moe.ep_sort = true;
		moe.ep = 16;	/* one expert a rank */
		cmp_moe_routed_fwd(&g, &moe, &c);
		moe.ep_sort = false;
		cmp_moe_routed_fwd(&g, &moe, &flex);
		tap_near(c.time_s, flex.time_s, 1e-15, "one local expert: no sort");
		moe.ep = 1;
		/* HybridEP with its permute fused into its dispatch and combine
		 * (Megatron-Core moe_permute_fusion_into_hybridep): neither the
		 * permute nor the unpermute, 2 x 131,072 B and 2 launches fewer */
		cmp_moe_routed_fwd(&g, &moe, &flex);
		moe.ep_fused_permute = true;
		cmp_moe_routed_fwd(&g, &moe, &c);
		moe.ep_fused_permute = false;
		tap_near(flex.time_s - c.time_s, 2 * copy.time_s, 1e-15,
			 "HybridEP, permute fused: the two permute copies gone");
	}
	/* Megatron-Core 0.12+ TEGroupedMLP's eager activation (compute.c
	 * mlp_act): with no fused kernel for it, the activation's own kernels,
	 * then the router's fp32 weights multiplied in and the product cast
	 * back.  16 experts x 32 tokens x 32 columns = 16,384 outputs; on
	 * the toy GPU every stream 0.5 TB/s and 5 us a launch.  GeGLU against
	 * the fused SwiGLU kernel (6 B an output forward, 10 backward): 22 B
	 * in 4 kernels forward, 60 in 9 backward; GeLU against the fused
	 * bias-GeLU (4 and 6): 16 in 3, 40 in 6 */
	{
		static const struct { bool gated; double fwd_b, fwd_k, bwd_b, bwd_k; } act[] = {
			{ true, 22 - 6, 3, 60 - 10, 8 }, { false, 16 - 4, 2, 40 - 6, 5 },
		};
		struct cmp_cost fused, eager;
		double n = 16 * 32 * 32;
		char what[160];

		for (size_t i = 0; i < 2; i++) {
			const char *name = act[i].gated ? "GeGLU" : "GeLU";
			moe.gated = act[i].gated;
			cmp_moe_routed_fwd(&g, &moe, &fused);
			moe.moe_eager_act = true;
			cmp_moe_routed_fwd(&g, &moe, &eager);
			snprintf(what, sizeof what, "%s eager, weighted in fp32: %.0f B an "
				 "output more forward, %.0f launches", name, act[i].fwd_b,
				 act[i].fwd_k);
			tap_near(eager.time_s - fused.time_s,
				 n * act[i].fwd_b / 0.5e12 + act[i].fwd_k * 5 * US, 1e-15, what);
			cmp_moe_routed_bwd(&g, &moe, &eager);
			moe.moe_eager_act = false;
			cmp_moe_routed_bwd(&g, &moe, &fused);
			snprintf(what, sizeof what, "... and backward: %.0f B, %.0f launches",
				 act[i].bwd_b, act[i].bwd_k);
			tap_near(eager.time_s - fused.time_s,
				 n * act[i].bwd_b / 0.5e12 + act[i].bwd_k * 5 * US, 1e-15, what);
		}
		moe.gated = true;
	}
	moe.per_expert_gemms = true;
	/* ... and their time: TE's GroupedLinear runs the per-expert GEMMs over
	 * 4 compute streams (common/util/multi_stream.h num_compute_streams),
	 * so 16 experts take 4 rounds of 4 side by side; 32 tokens an expert
	 * (256 x top 2 / 16), FC1 32 x 64 x 64 (up and gate), FC2 32 x 64 x 32 */
	{
		struct cmp_cost fc1, fc2;
		cmp_moe_routed_fwd(&g, &moe, &c);
		cmp_te_gemm(&g, &moe, 4, 32, 64, 64, &fc1);
		cmp_te_gemm(&g, &moe, 4, 32, 64, 32, &fc2);
		tap_near(c.gemm_s, 4 * (fc1.gemm_s + fc2.gemm_s), 1e-12,
			 "16 experts' GEMMs: 4 rounds of 4 on TE's 4 streams");
	}
	/* biased experts (GPT-OSS) on TEGroupedMLP (compute.c expert_bias):
	 * the second bias scaled by the router's fp32 weight after the GEMM,
	 * per local expert b p and t + b p, then the cat and the cast to
	 * bf16: 28 B an output in 16 x 2 + 2 = 34 eager launches forward,
	 * 36 B in 16 x 4 + 2 = 66 backward; 512 rows x 64 = 32,768 outputs
	 * at 0.5 TB/s, 5 us a launch; one grouped GEMM has no such loop */
	{
		struct cmp_cost plain, biased;
		double n = 512 * 64;

		cmp_moe_routed_fwd(&g, &moe, &plain);
		moe.bias = true;
		cmp_moe_routed_fwd(&g, &moe, &biased);
		tap_near(biased.time_s - plain.time_s, n * 28 / 0.5e12 + 34 * 5 * US, 1e-15,
			 "biased experts forward: 28 B an output, 34 launches");
		tap_near(biased.lib_kernels - plain.lib_kernels, 34, 1e-12,
			 "... each an eager op (the eager op's host time)");
		cmp_moe_routed_bwd(&g, &moe, &biased);
		moe.bias = false;
		cmp_moe_routed_bwd(&g, &moe, &plain);
		tap_near(biased.time_s - plain.time_s, n * 36 / 0.5e12 + 66 * 5 * US, 1e-12,
			 "... backward: 36 B an output, 66 launches");
		tap_near(biased.kernels - plain.kernels, 66, 1e-12, "... 66 of them");
		moe.per_expert_gemms = false;
		cmp_moe_routed_fwd(&g, &moe, &plain);
		moe.bias = true;
		cmp_moe_routed_fwd(&g, &moe, &biased);
		moe.bias = false;
		moe.per_expert_gemms = true;
		tap_near(biased.time_s, plain.time_s, 1e-15, "one grouped GEMM: no bias loop");
	}
	/* FP8: delayed scaling casts all experts' inputs in one fused kernel
	 * a GEMM (35 + 2); current scaling an amax and a cast per expert
	 * (35 + 2 x 2 x 16); MXFP8 a quantization per expert and, per
	 * grouped GEMM, two multi-tensor scale swizzles (35 + 32 + 4) */
	static const struct { enum cmp_fp8_scaling s; double kernels; const char *what; } f8[] = {
		{ CMP_FP8_DELAYED, 37, "delayed scaling: 37 launches" },
		{ CMP_FP8_CURRENT, 99, "current scaling: 99 launches" },
		{ CMP_FP8_MX, 71, "MXFP8: 71 launches" },
	};
	moe.fp8 = true;
	g.mx_gemm_ratio = 1.05;
	for (size_t i = 0; i < sizeof f8 / sizeof f8[0]; i++) {
		moe.fp8_scaling = f8[i].s;
		cmp_moe_routed_fwd(&g, &moe, &c);
		tap_near(c.kernels, f8[i].kernels, 1e-12, f8[i].what);
	}
	g.mx_gemm_ratio = 0;
	/* FP8 experts on unaligned tokens (compute.c moe_pad_copies): TE's
	 * Fp8Padding copies the 512 routed rows x 64 into a padded buffer, a
	 * second Fp8Padding pads the router's fp32 weights (8 B a row) and
	 * Fp8Unpadding copies the output back: 2 x 4 B x 32,768 + 8 x 512 =
	 * 266,240 B at 0.5 TB/s and three launches, each a framework op;
	 * backward the same copies the other way */
	{
		double bytes = 2 * 4 * 512 * 64 + 8 * 512, ops;

		moe.fp8_scaling = CMP_FP8_DELAYED;
		tap_near(pad_copies_s(&g, &moe, false, &ops), bytes / 0.5e12 + 3 * 5 * US, 1e-15,
			 "FP8 experts' padding copies forward: 266,240 B, 3 launches");
		tap_near(ops, 3, 1e-12, "... each a framework op the host issues");
		tap_near(pad_copies_s(&g, &moe, true, &ops), bytes / 0.5e12 + 3 * 5 * US, 1e-15,
			 "... and backward, their gradients the same copies");
		/* drop and pad: each expert takes a fixed 32 rows (256 x 2 /
		 * 16), a multiple of 16 and of MXFP8's 32, so nothing is
		 * copied; NVFP4 aligns to 128 and copies */
		moe.capacity = true;
		tap_near(pad_copies_s(&g, &moe, false, &ops), 0, 1e-15,
			 "drop and pad, 32 rows an expert: aligned, no copies");
		moe.fp8_scaling = CMP_FP4_NV;
		tap_near(pad_copies_s(&g, &moe, false, &ops), bytes / 0.5e12 + 3 * 5 * US, 1e-15,
			 "... NVFP4's 128-row alignment: the copies");
		moe.capacity = false;
	}
	moe.fp8 = false;

	/* the kernels compute.h launches for one eager GPT layer forward:
	 * LN, QKV, flash, projection, dropout + add (two), LN, h->4h, GeLU,
	 * 4h->h, dropout + add (two) = 12; without flash Q K^T, scale, mask,
	 * softmax, dropout and x V replace the flash call: 17 */
	struct cmp_shape sh = { .b = 1, .s = 128, .h = 64, .a = 1, .V = 256, .tp = 1,
				.flash = true, .fused = false, .fp32_logits = true, .dropout = true,
				.peak_flops = 312e12 };
	cmp_layer_fwd(&g, &sh, &c);
	tap_near(c.kernels, 12, 1e-12, "eager layer forward with flash: 12 launches");
	/* its kernels take ~70 us on the toy GPU; the host needs 12 x 15.5 */
	host_bound(&c, &(struct host_cost){ 15.5 * US, 15.5 * US }, false);
	tap_near(c.time_s, 12 * 15.5 * US, 1e-15, "a small layer is host-bound: 186 us");
	sh.flash = false;
	cmp_layer_fwd(&g, &sh, &c);
	tap_near(c.kernels, 17, 1e-12, "eager layer forward without flash: 17 launches");
	/* its backward: the dropout's (one: native_dropout_backward, dy x
	 * mask x scale; the add's gradient passes through), the MLP's GEMMs
	 * twice each (four), GeLU, LN, the other dropout's (one), projection
	 * twice, flash, QKV twice, LN = 14, and the eager autograd's own: two
	 * dgamma/dbeta kernels and the QKV split's concatenation = 17 */
	sh.flash = true;
	cmp_layer_bwd(&g, &sh, &c);
	tap_near(c.kernels, 17, 1e-12, "eager layer backward with flash: 14 + 3 autograd kernels");
	/* with biases, four reductions of the output gradients over the 128
	 * tokens: QKV 192, projection 64, MLP 256 and 64 columns, 2 bytes
	 * each: 147,456 B at 0.5 TB/s = 0.294912 us, plus four launches */
	struct cmp_cost cb;
	sh.bias = true;
	cmp_layer_bwd(&g, &sh, &cb);
	tap_near(cb.time_s - c.time_s, 0.294912 * US + 4 * 5 * US, 1e-15,
		 "bias gradients: one reduction per linear layer");
	sh.bias = false;
	sh.flash = false;
	/* the AMP loss backward: zero-fill 4, log_softmax backward 12, cast
	 * back 4 + 2 bytes per logit; with the logits GEMM twice and the final
	 * LN: 3 + 2 + 1 launches */
	cmp_logits_bwd(&g, &sh, &c);
	tap_near(c.kernels, 6, 1e-12, "AMP loss backward: three kernels, then GEMMs and LN");

	/* autocast's weight cast, 1M parameters in 4 tensors: 6 bytes each at
	 * 0.5 TB/s = 12 us, plus a launch per tensor */
	eager_weight_cast(&g, 1e6, 4, &c);
	tap_near(c.time_s, 12 * US + 4 * 5 * US, 1e-15, "weight cast: 6 B/param + 4 launches");
	tap_near(c.kernels, 4, 1e-12, "weight cast: one kernel per tensor");
	/* the gradient's cast back (32 us) and, on 3 of 4 microbatches, the
	 * in-place fp32 add: 12 B/param = 24 us + 4 launches = 44 us */
	eager_grad_accum(&g, 1e6, 4, true, 4, &c);
	tap_near(c.time_s, 32 * US + 0.75 * 44 * US, 1e-15,
		 "grad: cast back + accumulate on all but the first microbatch");
	eager_grad_accum(&g, 1e6, 4, true, 1, &c);
	tap_near(c.time_s, 32 * US, 1e-15, "one microbatch: .grad steals the cast, no add");
	/* the fp32 residual stream over 1M elements: forward two norms at 4
	 * more bytes each (8 MB at the toy's 0.25 TB/s LayerNorm rate: 32 us),
	 * two fp32 adds at 4 more (8 MB at 0.5: 16 us), two input casts of
	 * 6 B (12 us + a launch each: 34 us); backward the norms at 6 more
	 * (48 us), the adds (16 us) and the casts back (34 us) */
	struct cmp_cost xb;
	eager_fp32_stream(&g, 1e6, &c, &xb);
	tap_near(c.time_s, 32 * US + 16 * US + 34 * US, 1e-12, "fp32 stream forward: 82 us");
	tap_near(c.kernels, 2, 1e-12, "fp32 stream: two casts are new kernels");
	/* (and the dgamma/dbeta kernels' reread of x and dy, 4 more bytes a
	 * norm: 8 MB at 0.25 TB/s, 32 us) */
	tap_near(xb.time_s, 48 * US + 32 * US + 16 * US + 34 * US, 1e-12,
		 "fp32 stream backward: 130 us");
	/* AdamW foreach: 80 B/param = 160 us in eight passes (eight launches);
	 * clip_grad_norm_: 12 B/param = 24 us in two */
	struct eager_opt o = { .params = 1e6, .tensors = 100, .impl = EAGER_ADAM_FOREACH,
			       .clip = true, .host_s = 15.5 * US };
	tap_near(eager_optimizer_s(&g, &o), 160 * US + 8 * 5 * US + 24 * US + 2 * 5 * US, 1e-15,
		 "AdamW foreach + clip_grad_norm_: 92 bytes per parameter");
	o.impl = EAGER_ADAM_FUSED;
	o.clip = false;
	tap_near(eager_optimizer_s(&g, &o), 56 * US + 5 * US, 1e-15,
		 "AdamW fused=True: 28 bytes per parameter, one launch");
	/* DDP's bucket copies, in and back: 16 B/param = 32 us */
	o.ddp = true;
	tap_near(eager_optimizer_s(&g, &o), 56 * US + 5 * US + 32 * US + 5 * US, 1e-15,
		 "with DDP's bucket copies: 16 bytes per parameter more");
	/* a per-tensor loop (Composer's DecoupledAdamW) over 100 tensors with
	 * FSDP's per-tensor clip: on the GPU 160 us + 800 launches (4000 us)
	 * and 24 us + 200 launches (1000 us): 5184 us; the host launches the
	 * 1000 kernels at 15.5 us: 15.5 ms, which bounds the step */
	o = (struct eager_opt){ .params = 1e6, .tensors = 100, .impl = EAGER_ADAM_LOOP,
				.clip = true, .clip_per_tensor = true, .host_s = 15.5 * US };
	tap_near(eager_optimizer_s(&g, &o), 1000 * 15.5 * US, 1e-12,
		 "AdamW loop + FSDP clip: host-bound, 10 kernels per tensor");
	o.host_s = 0;
	tap_near(eager_optimizer_s(&g, &o), 5184 * US, 1e-12,
		 "AdamW loop + FSDP clip without host time: 1000 launches on the GPU");
	/* Composer's loop: two more host operations per tensor (the step
	 * count's += 1 and .item()), 1200 x 15.5 us = 18.6 ms, and each read
	 * waits out the tensor's last kernel, a mean one of the loop's
	 * (4160 us / 800 = 5.2 us) per tensor: 520 us more */
	o.impl = EAGER_ADAM_COMPOSER;
	o.host_s = 15.5 * US;
	tap_near(eager_optimizer_s(&g, &o), 1200 * 15.5 * US + 520 * US, 1e-12,
		 "Composer's DecoupledAdamW: a step-count read per tensor");

	/* FSDP's predivide factor (_get_gradient_predivide_factor by hand:
	 * f doubles while f | n and n / f > f) */
	tap_near(eager_fsdp_predivide(8), 4, 0, "FSDP predivide on 8 ranks: 4 (post 2)");
	tap_near(eager_fsdp_predivide(2), 2, 0, "FSDP predivide on 2 ranks: 2 (post 1)");
	tap_near(eager_fsdp_predivide(16), 4, 0, "FSDP predivide on 16 ranks: 4 (post 4)");
	tap_near(eager_fsdp_predivide(1), 1, 0, "FSDP predivide on 1 rank: none");
	/* a 1M-parameter unit on 8 ranks reducing in fp32: the upcast 6 MB
	 * (12 us + 5), the predivide 8 MB in place (16 + 5), the postdivide
	 * over the 125k shard 1 MB (2 + 5): 45 us in three kernels */
	eager_fsdp_grad(&g, 1e6, 8, true, &c);
	tap_near(c.time_s, 45 * US, 1e-15, "FSDP fp32 reduce: upcast + pre- and postdivide");
	tap_near(c.kernels, 3, 0, "FSDP fp32 reduce: three kernels");
	/* in bf16: no upcast, the divides over 2-byte elements: 13 + 6 us */
	eager_fsdp_grad(&g, 1e6, 8, false, &c);
	tap_near(c.time_s, 19 * US, 1e-15, "FSDP bf16 reduce: the two divides only");
	/* on 2 ranks the postdivide factor is 1: upcast and predivide */
	eager_fsdp_grad(&g, 1e6, 2, true, &c);
	tap_near(c.time_s, 38 * US, 1e-15, "FSDP on 2 ranks: no postdivide");

	/* the loss: flash-attn's fused cross-entropy reads the bf16 logits
	 * once (2 B) where autocast's casts (6 B) and runs log_softmax in fp32
	 * (8 B): 12 bytes and a launch less per logit forward; 32k logits
	 * here: 393.216 kB at 0.5 TB/s = 0.786432 us + 5 us */
	struct cmp_cost xe;
	double logits = 128 * 256;
	sh.flash = true;
	cmp_logits_fwd(&g, &sh, &c);
	sh.loss = CMP_LOSS_XENTROPY;
	cmp_logits_fwd(&g, &sh, &xe);
	tap_near(c.time_s - xe.time_s, logits * 12 / 0.5e12 + 5 * US, 1e-15,
		 "fused loss forward: 12 bytes per logit and a kernel less");
	/* backward: 4 bytes in one kernel against 22 in three */
	cmp_logits_bwd(&g, &sh, &xe);
	sh.loss = CMP_LOSS_STACK;
	cmp_logits_bwd(&g, &sh, &c);
	tap_near(c.time_s - xe.time_s, logits * 18 / 0.5e12 + 2 * 5 * US, 1e-15,
		 "fused loss backward: 18 bytes per logit and two kernels less");
	/* two training metrics: each a cast (6 B) and a log_softmax (8 B) */
	cmp_logits_fwd(&g, &sh, &c);
	sh.metric_ce = 2;
	cmp_logits_fwd(&g, &sh, &xe);
	tap_near(xe.time_s - c.time_s, 2 * (logits * 14 / 0.5e12 + 2 * 5 * US), 1e-15,
		 "two metric cross-entropies: 28 bytes per logit in four kernels");
	return tap_done();
}
