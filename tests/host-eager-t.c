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

int main(void)
{
	struct gpu_spec g;
	struct cmp_cost c;

	toy(&g);
	tap_plan(20);

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
	host_bound(&c, 15.5 * US);
	tap_near(c.time_s, 155 * US, 1e-15, "host-bound pass: 10 kernels x 15.5 us");
	tap_near(c.gemm_s, 60 * US, 1e-15, "the GEMMs' own time is kept");
	c.time_s = 100 * US;
	c.kernels = 5;
	host_bound(&c, 15.5 * US);
	tap_near(c.time_s, 100 * US, 1e-15, "GPU-bound pass: 5 x 15.5 us hide under 100 us");
	host_bound(&c, 0);
	tap_near(c.time_s, 100 * US, 1e-15, "host time 0: never host-bound");

	/* the kernels compute.h launches for one eager GPT layer forward:
	 * LN, QKV, flash, projection, dropout + add (two), LN, h->4h, GeLU,
	 * 4h->h, dropout + add (two) = 12; without flash Q K^T, scale, mask,
	 * softmax, dropout and x V replace the flash call: 17 */
	struct cmp_shape sh = { .b = 1, .s = 128, .h = 64, .a = 1, .V = 256, .tp = 1,
				.flash = true, .fused = false, .fp32_logits = true,
				.peak_flops = 312e12 };
	cmp_layer_fwd(&g, &sh, &c);
	tap_near(c.kernels, 12, 1e-12, "eager layer forward with flash: 12 launches");
	/* its kernels take ~70 us on the toy GPU; the host needs 12 x 15.5 */
	host_bound(&c, 15.5 * US);
	tap_near(c.time_s, 12 * 15.5 * US, 1e-15, "a small layer is host-bound: 186 us");
	sh.flash = false;
	cmp_layer_fwd(&g, &sh, &c);
	tap_near(c.kernels, 17, 1e-12, "eager layer forward without flash: 17 launches");
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
	tap_near(xb.time_s, 48 * US + 16 * US + 34 * US, 1e-12, "fp32 stream backward: 98 us");
	/* AdamW foreach: 80 B/param = 160 us in eight passes (eight launches);
	 * clip_grad_norm_: 12 B/param = 24 us in two */
	tap_near(eager_optimizer_s(&g, 1e6, true, true, false), 160 * US + 8 * 5 * US +
		 24 * US + 2 * 5 * US, 1e-15,
		 "AdamW foreach + clip_grad_norm_: 92 bytes per parameter");
	tap_near(eager_optimizer_s(&g, 1e6, false, false, false), 56 * US + 5 * US, 1e-15,
		 "AdamW fused=True: 28 bytes per parameter, one launch");
	/* DDP's bucket copies, in and back: 16 B/param = 32 us */
	tap_near(eager_optimizer_s(&g, 1e6, false, false, true), 56 * US + 5 * US + 32 * US +
		 5 * US, 1e-15, "with DDP's bucket copies: 16 bytes per parameter more");
	return tap_done();
}
