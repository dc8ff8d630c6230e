/*
 * transformer.h -- the GPT-style model being trained: its shape, parameter
 * count and FLOPs, by the formulas of Narayanan et al., "Efficient
 * Large-Scale Language Model Training on GPU Clusters Using Megatron-LM"
 * (SC'21; doc/sources.md section 8):
 *
 *   P = 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h))
 *   F = K B s l h^2 (1 + s/(6h) + V/(16 l h)),  K = 96 with full activation
 *       recomputation (one extra forward), 72 without
 *
 * l layers, h hidden size, s sequence length, V vocabulary, B sequences.
 * The FFN is 4h wide and attention has h/a dimensions per head (GPT-3).
 */
#ifndef MODELS_TRANSFORMER_H
#define MODELS_TRANSFORMER_H

#include <stdbool.h>

#include "sim/cfg.h"
#include "sim/err.h"

struct tfm {
	int layers;
	int hidden;
	int heads;
	int seq_len;
	int vocab;
	double tokens;		/* training tokens for the whole run */
};

extern const struct cfg_setting tfm_settings[];

void tfm_from_scenario(const struct scenario *sc, struct tfm *m);
double tfm_params(const struct tfm *m);
/* FLOPs of one training iteration over `sequences` sequences. */
double tfm_flops(const struct tfm *m, double sequences, bool recompute);
/* Model FLOPs per token without recomputation (6N plus attention): MFU's numerator. */
double tfm_model_flops_per_token(const struct tfm *m);

#endif
