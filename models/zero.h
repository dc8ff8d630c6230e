/*
 * zero.h -- ZeRO (Rajbhandari et al., SC'20) and Megatron's distributed
 * optimizer: how model states are split over N_d data-parallel ranks and
 * which collectives a step needs.
 *
 * Mixed-precision Adam keeps 16 bytes per parameter Psi: fp16 weights 2,
 * fp16 gradients 2, fp32 master weights, momentum and variance 12.
 *     stage 0 (plain DP)   16 Psi
 *     stage 1 (optimizer)  4 Psi + 12 Psi / N_d   (= distributed optimizer)
 *     stage 2 (+ grads)    2 Psi + 14 Psi / N_d
 *     stage 3 (+ weights)  16 Psi / N_d
 *
 * Collectives of one step, per rank, in parameter elements, with m
 * microbatches per step (the paper's figures are m = 1):
 *     stage 0: all-reduce of the gradients once        2 Psi (RS + AG)
 *     stage 1: reduce-scatter once, all-gather after   2 Psi
 *     stage 2: reduce-scatter each microbatch (grads are kept partitioned),
 *              all-gather after the step               (m + 1) Psi
 *     stage 3: all-gather before forward and before backward and reduce-
 *              scatter after backward, each microbatch 3 m Psi
 * Buffers for the weights ZeRO-3 has gathered whole (the layer computed
 * and those prefetched) are memory.c's, not these figures'.
 */
#ifndef MODELS_ZERO_H
#define MODELS_ZERO_H

#include <stdbool.h>

struct zero_mem {
	double weights_bytes, grads_bytes, optimizer_bytes;
};

/* stage 0..3; dist_opt (Megatron) behaves as stage 1. */
void zero_model_memory(double psi, int n_d, int stage, bool dist_opt,
		       struct zero_mem *out);
/* Elements a rank sends through data-parallel collectives in one step. */
double zero_comm_elems(double psi, int stage, bool dist_opt, int microbatches);

#endif
