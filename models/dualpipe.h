/*
 * dualpipe.h -- DeepSeek's DualPipe pipeline schedule (DeepSeek-V3
 * report, arXiv:2412.19437, sec. 3.2.1; deepseek-ai/DualPipe,
 * dualpipe/dualpipe.py, DualPipe.step), as parallel.schedule = "dualpipe".
 *
 * Two pipelines run through the same pp ranks in opposite directions:
 * direction 0 puts stage s on rank s, direction 1 on rank pp-1-s, so rank
 * k holds stages k and pp-1-k (twice the parameters of 1F1B, and the first
 * stage beside the last).  Half the m microbatches enter at each end.
 * For rank k, "near" is the direction in which it is an early stage
 * (direction 0 on the first half of the ranks, 1 on the second) and
 * "far" the other; with h = min(k, pp-1-k) and P = pp/2 it runs:
 *   1. 2(P-h-1) forwards near;
 *   2. h+1 times: forward near, forward far;
 *   3. P-h-1 times: backward far for inputs only, a weight pass, forward far;
 *   4. m/2-pp+h+1 times: forward near with backward far as one overlapped
 *      pair (the middle ranks' first not overlapped), then forward far
 *      with backward near;
 *   5. P-h-1 times: backward far, then forward far with backward near;
 *   6. h+1 times: backward far, backward near, the second half of them
 *      for inputs only (zero bubble);
 *   7. P-h-1 times: a weight pass, backward near for inputs only;
 *   8. h+1 weight passes.
 * A weight pass runs the oldest deferred weight gradient (WeightGradStore's
 * queue).  A pair starts when both its inputs are there and runs the two
 * passes back to back (each one's communication under the other's
 * compute: parallel.ep_overlap = dualpipe prices that); its outputs leave
 * when it ends.  With uniform stages and free p2p the idle time is the
 * README's (pp/2-1)(F&B + B - 3W), F&B = F + B (tests/step-dualpipe-t).
 *
 * Ops use chunk 0 for direction 0 and 1 for direction 1 and count each
 * direction's microbatches 0..m/2-1; dual_vs() maps them to the virtual
 * stage index of the step plan, direction x pp + stage.
 */
#ifndef MODELS_DUALPIPE_H
#define MODELS_DUALPIPE_H

#include "models/megatron.h"

/* Upper bound on dual_schedule()'s count: a forward and a backward per
 * microbatch and chunk, and at most as many weight passes. */
#define DUAL_OPS_MAX(m) (3 * (m))

/* Fill ops with rank k's passes in order (pp even, m even and >= 2 pp);
 * returns the count. */
int dual_schedule(int pp, int m, int k, struct mg_op *ops);

/* The virtual stage of chunk (direction) c on rank k, and its rank. */
int dual_vs(int pp, int c, int k);
int dual_rank(int pp, int vs);

#endif
