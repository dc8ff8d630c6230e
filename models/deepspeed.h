/*
 * deepspeed.h -- DeepSpeed's pipeline schedule (PipelineEngine with
 * TrainSchedule, deepspeed/runtime/pipe/schedule.py and engine.py; the
 * schedule is unchanged from 2020 to 2025), as Megatron-DeepSpeed runs it
 * (MT-NLG, BLOOM).
 *
 * A batch of m microbatches on p stages takes 2 (m + p - 1) steps.  At each
 * step a stage runs one forward or one backward pass or none: even stages
 * forward on even steps and backward on odd ones, odd stages the other way
 * round (_step_to_micro_batch).  Before its pass a stage exchanges with one
 * neighbour, in this order:
 *   forward step:  SendGrad (the previous step's input gradient) to the
 *                  previous stage, then RecvActivation from it;
 *   backward step: RecvGrad from the next stage, then SendActivation (the
 *                  previous step's output) to it.
 * So an output leaves only when its stage starts its next step, and every
 * transfer is a blocking torch.distributed send/recv (p2p.py; NCCL send and
 * recv of a whole activation): both sides wait for each other, then for
 * the transfer (a rendezvous, step_des.c).  After the last step: the tied
 * weights' all-reduce, the data-parallel gradient reduction, the
 * optimizer, none overlapped with the passes.
 *
 * Megatron-LM's 1F1B (megatron.h) instead sends each output as soon as it
 * is computed and receives just before the pass that needs it.
 */
#ifndef MODELS_DEEPSPEED_H
#define MODELS_DEEPSPEED_H

#include "models/megatron.h"

/* Upper bound on ds_schedule()'s count: two exchanges and a pass per step. */
#define DS_OPS_MAX(pp, m) (6 * ((m) + (pp) - 1))

/* Fill ops (room for DS_OPS_MAX) with stage k's commands in order: passes
 * (comm = MG_PASS) and exchanges (mb: the microbatch moved); returns the
 * count. */
int ds_schedule(int pp, int microbatches, int stage, struct mg_op *ops);

#endif
