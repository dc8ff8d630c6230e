/*
 * megatron.h -- Megatron-LM's pipeline schedules and tensor-parallel
 * communication (Narayanan et al., SC'21; Korthikanti et al. 2022).
 *
 * Schedules: the order in which one pipeline rank runs the forward (F) and
 * backward (B) passes of its model chunks over m microbatches.
 *   1F1B: min(p-k-1, m) warm-up forwards on stage k, then F/B pairs, then
 *         the remaining backwards.
 *   interleaved (v chunks per rank, m a multiple of p): virtual microbatch
 *         j runs chunk (j mod p v) / p (reversed for backward) of
 *         microbatch (j / (p v)) p + j mod p; warm-up 2(p-k-1) + (v-1)p.
 * With uniform stages and free communication the bubbles are (p-1)/m and
 * (p-1)/(v m) of the ideal time.
 *
 * Tensor parallelism per layer: two all-reduces of s b h elements forward
 * and two backward (f and g of Megatron's MLP and attention blocks); with
 * sequence parallelism each becomes an all-gather + reduce-scatter pair of
 * the same total volume.  Full recomputation repeats the forward's.
 */
#ifndef MODELS_MEGATRON_H
#define MODELS_MEGATRON_H

#include <stdbool.h>
#include <stdint.h>

/* What an op is: a pass, or (DeepSpeed's schedule, deepspeed.h) one side
 * of a blocking pipeline transfer. */
enum { MG_PASS, MG_SEND_ACT, MG_RECV_ACT, MG_SEND_GRAD, MG_RECV_GRAD };

/* Which part of a backward pass an op runs: all of it, or (zero-bubble
 * schedules, dualpipe.h) the input gradients and the weight gradients
 * apart. */
enum { MG_PART_WHOLE, MG_PART_INPUT, MG_PART_WEIGHT };

struct mg_op {
	uint8_t bwd;		/* 0 forward, 1 backward */
	int chunk;		/* model chunk on this rank, 0..v-1 */
	int mb;			/* microbatch, 0..m-1 */
	uint8_t comm;		/* MG_PASS for Megatron's schedules */
	uint8_t part;		/* MG_PART_*: backward ops only */
	uint8_t pair;		/* a forward run with the next op, a backward,
				 * as one overlapped unit (dualpipe.h) */
};

/* Fill ops (room for 2 m v) with stage k's order; returns the count. */
int mg_schedule(int pp, int v, int microbatches, int stage, struct mg_op *ops);

/* Tensor-parallel collectives of one layer, one microbatch. */
struct mg_tp {
	int all_reduces;	/* without SP */
	int ag_rs_pairs;	/* with SP: all-gather + reduce-scatter pairs */
	double bytes;		/* S of each collective (nccl-tests convention) */
};
void mg_tp_layer(double s, double b, double h, bool sp, bool backward,
		 bool recompute_full, struct mg_tp *out);

#endif
