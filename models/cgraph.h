/*
 * cgraph.h -- CUDA graphs: which parts of a layer the host launches as one
 * replayed graph instead of kernel by kernel (parallel.cuda_graph_scope).
 *
 * Megatron-Core captures per layer with Transformer Engine's
 * make_graphed_callables (--cuda-graph-impl transformer_engine, scopes
 * attn, mlp, moe_router, moe_preprocess) or the whole forward-backward
 * iteration (full_iteration); Megatron-Bridge's performance recipes name
 * theirs per model and GPU (docs/training/cuda-graphs.md: "dense models:
 * attn, then optionally mlp; dropless MoE: attn moe_router
 * moe_preprocess").  A replay is one launch where the captured kernels
 * were each one (host.h): what the host still issues for a layer pass is
 * its uncaptured kernels plus one launch per captured part.
 *
 * The parts of a layer pass, by kernels (compute.h):
 *   attn            the first half: norm, QKV, attention, projection,
 *                   residual add (with what the pass adds beside them:
 *                   recomputation, chunked TP-overlap GEMMs);
 *   mlp             a dense layer's second half: norm, MLP, residual add;
 *   moe_router      an MoE layer's second half up to its dispatcher's host
 *   moe_preprocess  sync: the router and the routing maps (either name
 *                   captures that part: they run back to back);
 *   the routed part  permutation, experts, unpermutation, shared experts,
 *                   and the all-to-alls: never captured per layer (their
 *                   shapes follow the routing);
 *   full_iteration  everything, the embedding and the loss too; it needs
 *                   fixed shapes, so it refuses a dropless MoE (whose
 *                   dispatcher reads its token counts on the host each
 *                   layer).
 * Assumed, stated: a replay costs the host one kernel launch; a captured
 * pass's GPU time is unchanged (graphs remove launch gaps, not work).
 */
#ifndef MODELS_CGRAPH_H
#define MODELS_CGRAPH_H

#include <stdbool.h>

#include "sim/cfg.h"
#include "sim/err.h"
#include "models/compute.h"

enum {
	CG_ATTN = 1u << 0,
	CG_MLP = 1u << 1,
	CG_MOE_ROUTER = 1u << 2,	/* moe_router or moe_preprocess */
	CG_FULL = 1u << 3,		/* full_iteration */
};

/* "a,b" into CG_* bits; -1 with bad (size 32) holding the first name
 * that is none ("" for an empty one). */
int cg_parse(const char *list, unsigned *bits, char *bad);

/* The kernels the host issues for one layer pass under the scope: pass
 * holds the whole pass, second its second half (compute.h cmp_mlp_half),
 * routed the routed part of an MoE layer's second half (zero for a dense
 * layer). */
double cg_issued_kernels(unsigned scope, const struct cmp_cost *pass,
			 const struct cmp_cost *second, const struct cmp_cost *routed);
/* ... and of those, the launches from a library's own loop (cmp_cost
 * lib_kernels) left outside the captured parts. */
double cg_issued_lib_kernels(unsigned scope, const struct cmp_cost *pass,
			     const struct cmp_cost *second, const struct cmp_cost *routed);

#endif
