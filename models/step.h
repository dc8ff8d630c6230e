/*
 * step.h -- one training iteration simulated on the event engine.
 *
 *   struct step_cfg cfg;		once per load
 *   step_cfg_from_scenario(sc, &cfg);
 *   if (step_cfg_read_net(sc, &cfg, &err) < 0) ...
 *   struct step_result r;
 *   if (step_simulate(&cfg, &tfm, &layout, &gpu, &r, &err) < 0) ...
 *
 * Ranks: one pipeline (pp stages; each stage is a TP group running in
 * lockstep) is simulated op by op: a compute stream per stage runs the
 * schedule's forward and backward passes (megatron.h), whose durations come
 * from the kernel model (compute.h) plus the tensor-parallel collectives,
 * which Megatron runs on the compute stream's critical path; pipeline p2p
 * transfers delay the receiving stage.  Data-parallel replicas run the
 * identical pipeline, so their compute is not repeated (exact when the
 * replicas sit on identical parts of a symmetric fabric); their collectives
 * are not shortcut: when stage k's gradient bucket is ready, the collectives
 * of all tp DP groups of that stage start at once as flows on the netsim, so
 * DP groups contend for the fabric.  Symmetry is used only where routing
 * shows it exact (step_sym.c): when no link carries groups of two TP ranks
 * (rail-optimised fat tree), TP rank 0's group stands for its stage's tp;
 * when no link carries two groups at all, each collective takes its time
 * alone on the fabric, without the netsim.  NCCL's algorithm (AUTO) is
 * chosen once per operation, size and group size and reused for every
 * group, as NCCL's tuner does from the same inputs.  Buckets that queue
 * behind a busy stream go as one collective (the lost per-call latency is
 * ~10 us each).  TP collectives and p2p transfers are timed alone on the
 * fabric (net_coll_time_s), once per size: a TP group inside one NVLink
 * domain shares no link with another TP group; p2p flows of different
 * replicas use different NICs on a rail-aligned fabric.
 *
 * Data parallelism: Megatron DDP all-reduces gradient buckets as the last
 * microbatch's backward produces them (overlap_grad_reduce), or after it;
 * the distributed optimizer and ZeRO-1 reduce-scatter them and all-gather
 * the updated weights after the optimizer step; ZeRO-2 reduce-scatters every
 * microbatch; ZeRO-3 also all-gathers each layer's weights before its
 * forward and backward, prefetching up to zero_prefetch_mb ahead.  All
 * stages then synchronise and run Adam.  A MoE model's routed experts are
 * reduced (and gathered) apart, over the ranks that hold the same experts
 * (Megatron-Core's expert data parallelism, tp dp / (etp ep) ranks, every
 * ep-th of the DP group): with EP inside a node that group has one GPU a
 * node, and its traffic crosses the scale-out fabric whole; a group of
 * one reduces nothing (step_des.c expert_params).
 *
 * Hybrid sharding (parallel.zero_shard_ranks; PyTorch FSDP HYBRID_SHARD
 * and _HYBRID_SHARD_ZERO2): ZeRO-2/3's gathers and reduce-scatters run in
 * groups of that many consecutive data-parallel ranks, and each
 * reduce-scatter is followed on the same stream by the all-reduce of its
 * 1/S result across the groups (FSDP's post-backward hook does both per
 * unit and microbatch).  The run times shard group 0 and the replicas of
 * its first shard: the other groups' collectives are alike and, on a
 * rail-optimised fabric with groups inside a node, share no link with
 * them.
 *
 * ZeRO-3 as DeepSpeed ran it from v0.3.13 (2021-03) to v0.5.4 (2021-10)
 * (parallel.zero3_fetch = "sync_per_tensor"): every parameter tensor of a
 * layer is gathered by its own torch.distributed.all_gather, each after a
 * torch.cuda.synchronize() (partition_parameters.py _allgather_param),
 * and fetch_sub_module waits for them and synchronizes the device again
 * (stage3.py _synchronize_communication), so no gather runs under the
 * compute and none starts before the previous reduce-scatter is done;
 * DeepSpeed's PR #1188 (2021-10-31), which removed it: "the async version
 * is not async at all, because each all_gather calls
 * torch.cuda.synchronize()".  Gradients are reduce-scattered a tensor at a
 * time the same way.  PyTorch's list collectives copy each rank's slice
 * out of (all_gather) or into (reduce_scatter) a flat buffer, one copy
 * kernel per rank (ProcessGroupNCCL.cpp, PyTorch 1.8: "Copy the flattened
 * output tensors to the outputs"; the PR: "the torch.distributed.all_gather
 * will do implicit memcpy at the end of each ncclAllgather").  So a layer's
 * gather or reduce-scatter of T tensors over n ranks costs the collective
 * of its bytes, T - 1 more collective latencies and T n copies, each at
 * the GPU's per-kernel cost (launch_us; the host's cost to issue them is
 * not charged: a lower bound), in series with the compute.  With full
 * recomputation the backward also gathers again the modules its
 * recomputed forward released: those not needed again within
 * stage3_max_reuse_distance elements (step.c zero3_regather).
 *
 * With pp > 1 the first and last stages then all-reduce the gradients of
 * the tied word embedding (Megatron's embedding group), timed alone.
 *
 * TP communication overlapped with GEMMs (parallel.tp_comm_overlap,
 * Megatron-Core with Transformer Engine) exposes per layer only what the
 * layer's GEMMs cannot cover.
 *
 * TP overlap also slows the GEMMs it runs beside (the SMs Transformer
 * Engine's userbuffer kernels hold, step_layer.c), runs them as chunks
 * (cmp_ub_splits) and leaves the last chunk of each pipelined
 * reduce-scatter exposed.  A DP collective running beside the compute
 * slows the GEMM share of the stage's pass by the SMs its NCCL channels
 * hold, for exactly the time it is in flight (step_des.c).  The
 * distributed optimizer's weight all-gather runs under the next
 * iteration's first forward passes with overlap_param_gather
 * (Megatron-Core --overlap-param-gather).
 *
 * DeepSpeed's pipeline schedule (parallel.schedule = "deepspeed",
 * deepspeed.h) runs its transfers as commands of the stages' own: a
 * blocking send/recv that both neighbours wait for (step_des.c).
 *
 * Megatron DDP's gradient NaN check (parallel.check_for_nan_in_grad): as
 * each bucket's gradients are ready, start_grad_sync reads the bucket's
 * norm (grad_data.norm, one kernel over its bytes) and asks the host
 * whether it is NaN and then Inf (rerun_state_machine.validate_result:
 * `if torch.isnan(norm)` -- a device-to-host copy the host waits on;
 * megatron/core/distributed/param_and_grad_buffer.py check_grads,
 * Megatron-LM of 2026-08; one isnan before the rerun state machine,
 * core_r0.8.0).  The wait drains the launch queue, so the compute stream
 * idles from the norm's end until the host has launched the isinf
 * check, waited again, launched the bucket's collective and issued the
 * backward's next op: three launches and one framework op of the host
 * model (host.h), per bucket, besides the norm's own launch.  Buckets
 * as the DDP cuts them (one per chunk without overlap_grad_reduce: the
 * whole buffer, checked after the last backward); it runs whatever the
 * dp, the DDP calling start_grad_sync for a group of one too.  The time
 * lengthens the chunk's last backward (grad_check_s, step_des.c).  Not
 * modelled: the same command-line flag's check of the loss (pretrain_gpt.py
 * loss_func: two host round trips a microbatch on the last stage, ~0.2 ms
 * beside a microbatch's tens of milliseconds).
 *
 * Stragglers (straggler.h): every rank's kernels run at the speed of the
 * job's slowest GPU, 1 + sigma E[max of N normals] times the kernel
 * model's (cluster.gpu_speed_sigma); compute_s includes it.
 *
 * Not modelled: the gradient-norm all-reduce (a few scalars),
 * host-side (Python, launch queue) stalls, data loading, SMs taken by
 * pipeline p2p kernels (two channels per peer, a few per cent of the time:
 * under 0.2%), HBM bandwidth the collectives take from memory-bound
 * kernels, ZeRO-3's prefetch buffers in memory, per-iteration jitter
 * (transient slowdowns that differ from step to step) and throttling
 * common to all GPUs.
 *
 * Breakdown, mean over stages, summing to iteration_s exactly:
 *   compute_s     kernels (incl. recomputation)
 *   tp_exposed_s  TP collectives and MoE layers' EP all-to-alls (on the
 *                 critical path)
 *   bubble_s      idle waiting for the pipeline with free p2p
 *   pp_exposed_s  extra idle the p2p transfers cause
 *   dp_exposed_s  after the pipeline's last compute: gradient collectives
 *                 not hidden, the tied-embedding all-reduce, the weight
 *                 all-gather; ZeRO-3's gather stalls
 *   optimizer_s   Adam and the once-an-iteration gradient kernels
 *                 (cmp_grad_buffer_s: Megatron's buffer zeroed and scaled,
 *                 the clip-grad norm)
 */
#ifndef MODELS_STEP_H
#define MODELS_STEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/gpu.h"
#include "models/layout.h"
#include "models/memory.h"
#include "models/parallel.h"
#include "models/transformer.h"
#include "topologies/net.h"

#define STEP_TIERS_MAX 16

struct step_result {
	double iteration_s;
	double compute_s, tp_exposed_s, pp_exposed_s, dp_exposed_s, bubble_s,
	       optimizer_s;
	double busy_frac;		/* mean over GPUs: compute-busy / iteration */
	double tensor_active_frac;	/* mean over GPUs: GEMM kernels / iteration */
	double kernel_dyn_w;		/* mean over GPUs: the kernels' energy above
					 * idle (kpower.h), optimizer included,
					 * over the iteration */
	double peak_memory_bytes;	/* max over GPUs */
	double flops_per_iter;		/* model FLOPs incl. recomputation (Megatron) */
	double tflops_per_gpu;		/* flops_per_iter / (gpus * iteration_s) / 1e12 */
	double mfu;			/* (6N + attention) FLOPs per token, no
					 * recomputation, x tokens / (gpus x time x
					 * the datatype's peak) */
	size_t n_tiers;
	const char *tier_names[STEP_TIERS_MAX];	/* static strings */
	double tier_bytes[STEP_TIERS_MAX];	/* per iteration, once per link crossed */
	double dp_comm_elems_per_rank;	/* elements through DP collectives (AR = 2) */
	/* One layer as its stage runs it, one microbatch, seconds: the
	 * model's MoE layer where it has one, else its dense layer.  Forward
	 * and backward compute (a host-bound pass at the host's pace, the
	 * backward with its recomputation, both at the slowest GPU's speed),
	 * the tensor-core kernels among them, and the communication the
	 * layer waits for (TP, CP and EP exposed); and the output layer with
	 * the loss.  What a profile of one layer would show; /step writes
	 * each under its name. */
	double layer_fwd_s, layer_fwd_tensor_s, layer_fwd_comm_s;
	double layer_bwd_s, layer_bwd_tensor_s, layer_bwd_comm_s;
	double logits_fwd_s, logits_bwd_s;
	double host_issue_frac;		/* the host's time to issue a layer pass
					 * over the GPU's to run it, the largest
					 * pass (step_layer.h host_frac): >= 1 the
					 * step is host-bound, near 1 it moves
					 * with the host CPU's speed */
	uint64_t events;		/* engine events handled */
};

/* What the step model reads from the scenario, once per load: the
 * parallel options and the network's settings (typed), and a handle that
 * names the keys in errors found later, e.g. a job that no longer fits in
 * memory after an elastic resize (the models read no value from it). */
struct step_cfg {
	struct par_opts par;		/* dp_bucket_bytes 0: Megatron's for the dp */
	struct net_cfg *net;		/* owned; NULL until step_cfg_read_net() */
	const struct sc_where *where;
};
void step_cfg_from_scenario(const struct scenario *sc, struct step_cfg *c);
/* The network's settings, read apart: only a model that builds the network
 * reports problems in them, and after the checks that come first. */
int step_cfg_read_net(const struct scenario *sc, struct step_cfg *c, struct err *e);
void step_cfg_free(struct step_cfg *c);

/* The options against the layout, then peak memory per GPU: an error with
 * the breakdown when it does not fit HBM.  out may be NULL. */
int step_check_memory(const struct step_cfg *c, const struct tfm *m,
		      const struct layout *L, const struct gpu_spec *g,
		      struct mem_breakdown *out, struct err *e);
void step_print_memory(FILE *f, const struct mem_breakdown *b, double hbm_bytes);
/* The run's datatype on the GPU: FP8 only where it has FP8 tensor cores,
 * MXFP8 only where they scale blocks (both models, step and formula). */
int step_check_dtype(const struct step_cfg *c, const struct gpu_spec *g, struct err *e);
/* The GPU for the step model: its efficiency curve, FP8 when asked for. */
int step_check_gpu(const struct step_cfg *c, const struct gpu_spec *g, struct err *e);

/* One iteration of the job on layout L (L->dp may be smaller than the
 * scenario's, for a job shrunk by failures): the checks above for L, then
 * the network built from c->net and the simulation. */
int step_simulate(const struct step_cfg *c, const struct tfm *m,
		  const struct layout *L, const struct gpu_spec *g,
		  struct step_result *out, struct err *e);

/* An MoE layer's MoELayer alone, one microbatch, forward and backward
 * seconds as Megatron-LM's moe_perf test times them (step_layer.h
 * step_layer_moe_block), on the scenario's network (c's, read). */
int step_moe_layer(const struct step_cfg *c, const struct tfm *m,
		   const struct layout *L, const struct gpu_spec *g,
		   double *fwd_s, double *bwd_s, struct err *e);

/* One MoE layer's forward dispatch, combine and HybridEP's metadata
 * preprocessing, each alone on the scenario's network (c's, read), seconds
 * (step_layer.h step_layer_ep_s). */
int step_ep_times(const struct step_cfg *c, const struct tfm *m,
		  const struct layout *L, const struct gpu_spec *g, double *dispatch_s,
		  double *combine_s, double *meta_s, struct err *e);

/* The kernel shape (compute.h) of the model's dense layers, or of its MoE
 * layers (moe), on one TP rank. */
struct cmp_shape;
void step_layer_shape(const struct tfm *m, int micro_batch, int tp, int ep, int etp,
		      bool sp, bool flash, double peak, bool moe, struct cmp_shape *sh);

/* One EP all-to-all's mean bytes per GPU (nccl-tests' size): the GPU's
 * 1/t of a microbatch's tokens, top_k copies of h bf16 elements each,
 * times the capacity factor when one pads the buffers; and its skew over
 * ep ranks (struct coll): the busiest expert's load when dropless, at
 * most ep; 1 with a capacity factor (step_layer.c). */
double step_ep_bytes(const struct tfm *m, const struct layout *L);
double step_ep_skew(const struct tfm *m, int ep);
/* One MoE layer's parts, one microbatch, for what hides its all-to-alls. */
struct ep_parts {
	double shared_fwd_s, shared_bwd_s;	/* its shared experts' compute */
	double attn_fwd_s, attn_bwd_s;	/* its compute before the dispatch */
	double mlp_fwd_s, mlp_bwd_s;	/* its MLP half (backward: dgrad + wgrad) */
	double dispatch_fwd_s, combine_fwd_s;	/* the forward's all-to-alls */
	double combine_bwd_s, dispatch_bwd_s;	/* their gradients', in that order */
};
/* The all-to-alls' time per pass cut to what parallel.ep_overlap leaves
 * exposed (ep_fwd_s, ep_bwd_s): all of it (none); less the shared
 * experts' compute of the same pass (shared_expert); what a forward and a
 * backward layer of two microbatches, run as one pair on a compute and a
 * communication stream, take beyond their compute, shared in proportion
 * (dualpipe) (step_layer.c). */
void step_ep_overlap(enum layout_ep_overlap ov, const struct ep_parts *p,
		     double *ep_fwd_s, double *ep_bwd_s);

/* Ring attention's K/V block per GPU (bytes): b s/cp tokens of the TP
 * rank's key/value heads, keys and values in bf16; a layer's forward
 * passes cp-1 of them to the ring neighbour (step_layer.c). */
double step_cp_block_bytes(const struct tfm *m, const struct layout *L);

/* The result at weight w between a and b, two iterations of one layout
 * that differ in microbatches only (step_report.c): times, FLOPs, bytes
 * and the kernels' busy time and energy move linearly, the fractions are
 * theirs over the iteration; peak memory is the larger. */
void step_result_lerp(const struct step_result *a, const struct step_result *b, double w,
		      struct step_result *out);
/* The breakdown into the report's /step group (step_report.c). */
struct report;
int step_report(struct report *r, const struct step_result *s, struct err *e);

/* The same with options and network given (tests, benchmarks, sweeps);
 * no memory check. */
int step_simulate_net(const struct tfm *m, const struct layout *L,
		      const struct par_opts *o, const struct gpu_spec *g,
		      struct net *net, struct step_result *out, struct err *e);

/* How the DP groups use the fabric (checked on the routes of every
 * collective algorithm the groups may run on a fat tree: rings only when
 * they only reduce-scatter and all-gather; step_sym.c). */
struct step_sym {
	bool rails_symmetric;	/* TP rank 0's groups stand for every rank's */
	bool all_disjoint;	/* no two groups share one: time them alone */
};
int step_dp_symmetry(struct net *net, const int *rank_gpu, int tp, int pp, int dp,
		     bool rings_only, struct step_sym *sym, struct err *e);

/* --- the level below: an explicit plan (tests fill one by hand) -------- */
enum step_dp_mode {
	STEP_DP_ALLREDUCE,	/* Megatron DDP */
	STEP_DP_SHARDED,	/* distributed optimizer, ZeRO-1: RS once, AG after */
	STEP_DP_ALLREDUCE_GATHER,	/* DeepSpeed's engine with ZeRO-1 or its bf16
				 * optimizer: all-reduce once, AG after */
	STEP_DP_ZERO2,		/* RS every microbatch, AG after */
	STEP_DP_ZERO3,		/* + per-layer AG before forward and backward */
};

/* How step_run() moves data: a netsim opened on the run's engine, or
 * collectives timed alone.  step.c backs it with topologies/net.h; tests
 * may back it with anything.  close() adds per-tier bytes to out (NULL:
 * just release). */
struct step_transport {
	void *ctx;
	int (*open)(void *ctx, struct ev_sim *sim, struct err *e);
	int (*start)(void *ctx, const struct coll *c, coll_done_fn done,
		     void *done_ctx, uint64_t tag, struct err *e);
	double (*alone_s)(void *ctx, const struct coll *c, struct err *e);
	void (*close)(void *ctx, struct step_result *out);
};

struct step_plan {
	int pp, v, microbatches;
	/* per virtual stage (chunk c of stage k is index c*pp + k; DualPipe's,
	 * dualpipe.h), seconds */
	const double *fwd_s, *bwd_s;		/* whole pass incl. TP comm */
	const double *fwd_tp_s, *bwd_tp_s;	/* of which TP comm; NULL = 0 */
	const double *fwd_gemm_s, *bwd_gemm_s;	/* of which GEMM kernels; NULL = 0 */
	const double *fwd_dyn_j, *bwd_dyn_j;	/* the kernels' energy above idle
						 * (kpower.h), J; NULL = 0 */
	double p2p_s;				/* activation / gradient transfer */
	bool p2p_blocking;			/* the sender waits for it (step.c) */
	bool ds_schedule;			/* DeepSpeed's TrainSchedule (deepspeed.h):
						 * v = 1, transfers as rendezvous */
	bool dualpipe;				/* DualPipe (dualpipe.h): v = 2, the
						 * second chunk runs the other way */
	const double *wgrad_s;			/* per virtual stage: the weight-
						 * gradient part of bwd_s, which a
						 * zero-bubble schedule runs apart;
						 * NULL = none */
	/* data parallelism */
	int tp, dp;
	enum step_dp_mode dp_mode;
	const double *chunk_params;	/* per virtual stage: parameters per GPU */
	const double *chunk_expert_params;	/* ... of which routed experts',
						 * reduced over the expert-data-
						 * parallel group (NULL: none) */
	int expert_dp;			/* that group's ranks, tp dp / (etp ep), at
					 * stride dp / expert_dp in the DP group
					 * (step_des.c) */
	const int *chunk_layers;	/* per virtual stage (ZeRO-3 granularity) */
	/* of virtual stage 0's parameters, the input embedding's: the first
	 * weights a forward reads and the last gradients a backward makes,
	 * so one bucket of their own, the last reduced and the first
	 * gathered (step_des.c; 0: spread as the layers') */
	double embed_params;
	double bucket_bytes;
	/* per virtual stage (NULL: bytes / bucket_bytes): the buckets its
	 * gradients but the input embedding's fill, as buckets.h cuts them */
	const double *chunk_buckets;
	double grad_bytes;		/* per gradient element in DP collectives
					 * (0: 2, the weights' bf16/fp16) */
	double weight_bytes;		/* per weight element in the all-gather after
					 * the optimizer (sharded modes; 0: 2) */
	double prefetch_bytes;		/* ZeRO-3: weights gathered ahead */
	int shard_ranks;		/* ZeRO-2/3 hybrid sharding: ranks a shard
					 * group holds (0: all dp) */
	bool zero3_sync;		/* ZeRO-3 in series with the compute, a
					 * collective per tensor (above) */
	double zero3_tensors;		/* ... parameter tensors per layer */
	double zero3_regather_frac;	/* ... a layer's weights a backward gathers
					 * again after its recomputed forward */
	double zero3_regather_tensors;	/* ... and their tensors */
	double coll_copy_s;		/* ... one rank's copy in a list collective */
	bool overlap_grad_reduce;
	/* per stage (NULL: none): compute of the next iteration's first
	 * forward passes that hides the weight all-gather after Adam
	 * (sharded modes; Megatron-Core --overlap-param-gather) */
	const double *param_gather_hide_s;
	/* Megatron-Core --align-param-gather: the gather goes a chunk at a
	 * time, chunk c's when chunk c-1 starts its first forward (the first
	 * two at once); it waits as step_des.c's aligned_wait_s says, and
	 * param_gather_hide_s is not used */
	bool param_gather_aligned;
	double optimizer_s;
	double optimizer_dyn_j;			/* its kernels' energy above idle */
	double final_sync_s;		/* after the gradients, before Adam: the
					 * tied-embedding all-reduce */
	/* Megatron DDP's NaN check (above), in a chunk's last backward or,
	 * without overlap_grad_reduce, after the stage's last pass: the norm
	 * reads the gradients at grad_check_Bps (0: no check), and each
	 * bucket costs grad_check_bucket_s more */
	double grad_check_Bps;
	double grad_check_bucket_s;
	/* network: NULL = communication free */
	const struct step_transport *net;
	bool contention;		/* DP collectives as shared flows (start) */
	bool one_group_per_stage;	/* the tp groups of a stage share no link:
					 * launch TP rank 0's only (step_sym.c) */
	const int *rank_gpu;		/* rank -> GPU (tp*pp*dp entries) */
	/* fraction of the GPU's SMs a DP collective's kernel holds while it
	 * runs beside the compute (step.c: its NCCL channels); 0 = none */
	double comm_sm_frac;
};

int step_run(const struct step_plan *p, struct step_result *out, struct err *e);
/* The NCCL channels (thread blocks, so SMs) a DP collective of stage 0's
 * first group runs on: two per GPU of the group on its first node, at most
 * 32 (step.c); 0 without data parallelism. */
int step_dp_channels(const struct net *net, const int *rank_gpu, const struct layout *L);
/* The static string for a tier name (unknown names: "other"). */
const char *step_tier_name(const char *name);

#endif
