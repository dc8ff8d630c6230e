/*
 * host.h -- the CPU's side of a training step: a kernel runs only after
 * the host has issued it, and an eager framework spends CPU time on every
 * kernel it launches (Python, the module call, the autograd and ATen
 * dispatchers, the allocator, cudaLaunchKernel).  The launch queue lets
 * the host run ahead of the GPU while kernels are long, so what a pass
 * costs is the larger of its two sides:
 *
 *     pass_s = max(sum of the pass's kernel times, kernels x host_s)
 *
 * per layer pass (forward or backward of one layer, one microbatch): the
 * layers repeat, so this is the steady state of the queue.  When the CPU
 * side is longer the GPU idles between kernels (small models, small
 * microbatches); when the GPU side is longer the host's cost is hidden.
 * The kernels are those compute.h counts for the pass (one per GEMM call,
 * eager elementwise op, flash call; an MoE layer's experts one GEMM call
 * each, parallel.moe_gemm).  Each costs the host a framework op,
 *
 *     host_s = (kernels - lib_kernels) x op_s + lib_kernels x launch_s
 *
 * but those a library launches from its own C++ (cmp_cost lib_kernels: a
 * Transformer Engine module's backward's second GEMM, its FP8 casts and
 * scale swizzles, GroupedLinear's experts past the first), which cost a
 * launch: op_s is the stack's CPU time per op (stack.c, with its source:
 * 15.5 us for the eager stacks, 131 us for Megatron-Core, calibrated on
 * its CI), launch_s the H200's 15.5 us floor, both times the node's
 * host_op_scale (a Grace CPU issues Megatron-Core's ops 1.70x slower than
 * the DGX H100 host the figures were measured on, a DGX A100's 1.33x,
 * from the same CI: nodes.cfg);
 * training.host_us_per_kernel
 * sets op_s.  Parts replayed as CUDA graphs
 * (parallel.cuda_graph_scope, cgraph.h) count one launch each instead of
 * their kernels; no stack replays any by default.
 *
 * A dropless MoE layer's forward waits on the host for its routed token
 * counts (host_sync_bound): its two parts are bound separately.
 *
 * An upper bound on the host's effect: the lead the host builds during a
 * GPU-bound pass (the logits' GEMM and loss, a long attention kernel) is not
 * carried into the host-bound passes after it, which a queue would allow
 * (exactly: max over k of the host's time to pass k plus the GPU's from
 * pass k on); with a host sync once per step (loss.item()) that lead is
 * lost once per iteration anyway.  Idle GPU time inside a host-bound pass
 * counts as compute in the breakdown and in power (busy_frac).
 *
 * Not modelled: views and other ops that launch no kernel (their CPU time
 * is folded into the per-kernel figure, as the measurements behind it
 * include them), the optimizer's and the data loader's host time, host
 * syncs (loss.item()) that drain the queue once per step.
 */
#ifndef MODELS_HOST_H
#define MODELS_HOST_H

#include "models/compute.h"

/* What the host spends issuing work: op_s for each kernel the framework
 * launches from Python (a module's call, an eager op, a fused kernel),
 * launch_s for each a library launches from its own C++ loop (cmp_cost
 * lib_kernels: TE's GroupedLinear, an expert's GEMM past the first). */
struct host_cost {
	double op_s, launch_s;
};

/* The host's time to issue `kernels` kernels of which lib_kernels from a
 * library's loop. */
double host_issue_s(double kernels, double lib_kernels, const struct host_cost *h);
/* A pass bound by its host side: time_s becomes max(time_s, the host's
 * time to issue its kernels); the difference is GPU idle, so gemm_s and
 * flops are kept.  With blocking launches (CUDA_LAUNCH_BLOCKING=1:
 * cudaLaunchKernel returns once the kernel has run, CUDA C Programming
 * Guide, "Asynchronous Concurrent Execution") the two sides take turns:
 * time_s + the host's time. */
void host_bound(struct cmp_cost *pass, const struct host_cost *h, bool blocking);
/* A pass whose host waits, part-way, for the GPU to reach a point (a
 * device-to-host copy it needs: a dropless MoE layer's token counts,
 * step_layer.c).  Neither side runs ahead across it, so the part before
 * and the tail after each cost the larger of their two sides, where a
 * pass without it costs the larger of its totals.  pass holds the whole
 * pass, tail included; cover_s is GPU time in the tail outside
 * tail->time_s (collectives issued at once and run while the host goes
 * on), which hides host time as kernels do.  The GPU's idle time is
 * added to pass->time_s. */
void host_sync_bound(struct cmp_cost *pass, const struct cmp_cost *tail,
		     double cover_s, const struct host_cost *h);

#endif
