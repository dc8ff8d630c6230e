/*
 * dispatch.h -- where an MoE layer's dispatch sends a token: how many
 * distinct nodes and GPUs of the EP group its top_k experts sit on, and
 * the two dispatchers that move it (step_layer.c times them):
 *
 *   alltoall: Megatron-Core's MoEAlltoAllTokenDispatcher permutes tokens
 *     by expert and all-to-alls them, one copy per (token, expert) pair:
 *     top_k copies, whichever GPUs hold the experts.
 *   deepep: DeepEP's normal (high-throughput) kernels, as DeepSeek-V3
 *     trained (arXiv:2412.19437 sec. 3.2.2) and Megatron-Core's flex
 *     dispatcher runs them (--moe-token-dispatcher-type flex
 *     --moe-enable-deepep): a token crosses the scale-out fabric once per
 *     destination node, to the GPU of its own local index there, which
 *     forwards it over NVLink once per destination GPU of that node; the
 *     two legs run pipelined (chunks forwarded as they arrive).
 *
 * Experts sit contiguously on the EP ranks (rank r holds experts r E/ep
 * onwards), so a node or a GPU is a bin of consecutive experts.  Group-
 * limited routing (model.moe.groups, group_topk) picks group_topk groups,
 * then top_k experts within them: DeepSeek-V3 groups its 256 experts by
 * node, 8 groups of 32, and routes each token to at most 4 nodes.
 *
 * Assumption, stated: the router's choices are uniform -- the groups
 * uniformly, then the experts uniformly among the chosen groups' -- as a
 * balanced router is trained to be; the busiest expert's excess is the
 * separate model.moe.imbalance.
 */
#ifndef MODELS_DISPATCH_H
#define MODELS_DISPATCH_H

#include "models/transformer.h"

/* Bytes of one dispatched element in FP8: the value and its share of a
 * float32 scale per 128 (DeepSeek-V3's 1x128 tile quantization of the
 * activations, arXiv:2412.19437 sec. 3.3.2). */
#define DISP_FP8_BYTES (1.0 + 4.0 / 128)

/* The expected number of distinct bins a token's top_k experts fall in,
 * the experts split into `bins` equal bins of consecutive experts; -1 when
 * the groups and the bins do not nest (neither count divides the other). */
double disp_distinct(const struct tfm_moe *x, int bins);

#endif
