/*
 * step_layer.h -- one layer's costs, one microbatch, one TP rank: what
 * step.c builds a plan's virtual stages from (step_layer.c).  Internal to
 * the step model; step.h is its face.
 */
#ifndef MODELS_STEP_LAYER_H
#define MODELS_STEP_LAYER_H

#include "models/step.h"

/* A layer's GEMM weights: QKV, projection, the MLP's two (GPT's; other
 * shapes are counted as GPT's for the launches, by their bytes). */
#define STEP_LAYER_WEIGHTS 4.0

/* Everything per layer, one microbatch, one TP rank. */
struct layer_costs {
	struct cmp_cost fwd, bwd;	/* bwd includes recomputation */
	struct cmp_cost moe_fwd, moe_bwd;	/* an MoE layer's (MoE models) */
	double ep_fwd_s, ep_bwd_s;	/* its dispatch and combine all-to-alls,
					 * exposed */
	double shared_fwd_s, shared_bwd_s;	/* its shared experts' compute */
	double ep_near_bytes;		/* a forward's dispatch and combine: what one
					 * GPU sends to EP peers on its node, */
	double ep_far_bytes;		/* and on other nodes */
	double cp_fwd_s, cp_bwd_s;	/* every layer's context-parallel exchange */
	double cp_bytes;		/* sent per GPU per layer, forward and backward */
	double tp_fwd_s, tp_bwd_s;
	double moe_tp_fwd_s, moe_tp_bwd_s;	/* an MoE layer's (its dispatcher's
						 * gather and scatter for the MLP's) */
	struct cmp_cost emb_f, emb_b, log_f, log_b;
	double tp_emb_s, tp_log_s;	/* one collective each */
	double host_frac;		/* the host's time to issue a layer pass's
					 * kernels over the GPU's time to run them,
					 * the largest of the layer's passes (>= 1:
					 * host-bound; host.h) */
};

/* Fill c for the model's layers on the layout, with the TP collectives
 * timed on the first stage's TP group (tp_gpus). */
int step_layer_costs(const struct tfm *m, const struct layout *L,
		     const struct par_opts *o, const struct gpu_spec *g,
		     double peak, struct net *net, const int *tp_gpus,
		     struct layer_costs *c, struct err *e);
/* The MoE layer's MLP alone (the model's MoELayer: router, dispatch,
 * experts, shared experts, combine), one microbatch, forward and backward
 * seconds as Megatron-LM's moe_perf test times them: CUDA events around
 * the layer's forward and its backward, a long GEMM queued before each so
 * that the host has issued the router's kernels by the time the GPU gets
 * there.  The GPU's work and the exposed EP all-to-alls; past a dropless
 * dispatcher's host sync the larger of the routed part's GPU time (its
 * all-to-alls with it) and the host's time to issue its kernels; the
 * backward, whose launches nothing hides, the larger of its two sides.
 * Models without experts: 0 both. */
int step_layer_moe_block(const struct tfm *m, const struct layout *L,
			 const struct par_opts *o, const struct gpu_spec *g,
			 double peak, struct net *net, const int *rank_gpu,
			 double *fwd_s, double *bwd_s, struct err *e);
/* One MoE layer's forward dispatch and combine, and HybridEP's metadata
 * preprocessing before the dispatch (0 for the others), each alone on the
 * fabric, seconds: what the dispatchers' own benchmarks time.  Models
 * without experts or EP: 0 each. */
int step_layer_ep_s(const struct tfm *m, const struct layout *L,
		    const struct par_opts *o, struct net *net, const struct gpu_spec *g,
		    const int *rank_gpu, double *dispatch_s, double *combine_s,
		    double *meta_s, struct err *e);
/* `layers` layers' parameters on one GPU: split over TP, routed experts
 * also over EP (an MoE layer's when moe). */
double step_layer_rank_params(const struct tfm *m, const struct layout *L,
			      bool moe, double layers);
/* A layer's parameter tensors (weights, biases, norms' scale and shift). */
double step_layer_tensors(const struct tfm *m);
/* How much longer a pass's GEMMs run for covered_s of them overlapped by
 * Transformer Engine's TP-communication kernels, which hold the SMs of
 * TE's default config: 8.5 forward, 11 backward (step_layer.c). */
double step_ub_slow_s(const struct gpu_spec *g, double covered_s, bool bwd);

#endif
