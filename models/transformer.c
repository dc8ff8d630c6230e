/* transformer.c -- see transformer.h. */
#include "models/transformer.h"

const struct cfg_setting tfm_settings[] = {
	{ "model.name", CFG_STRING, "", 0, 0, "", NULL, "label for reports" },
	{ "model.layers", CFG_INT, "", 1, 100000, NULL, NULL, "transformer layers l" },
	{ "model.hidden", CFG_INT, "", 1, 1e7, NULL, NULL, "hidden size h" },
	{ "model.heads", CFG_INT, "", 1, 1e5, NULL, NULL, "attention heads a" },
	{ "model.seq_len", CFG_INT, "tokens", 1, 1e8, NULL, NULL, "sequence length s" },
	{ "model.vocab", CFG_INT, "tokens", 1, 1e8, NULL, NULL, "vocabulary size V" },
	{ "run.tokens", CFG_FLOAT, "tokens", 1, 1e16, NULL, NULL,
	  "tokens to train on (the run ends when they are consumed)" },
	CFG_END
};

void tfm_from_scenario(const struct scenario *sc, struct tfm *m)
{
	m->layers = (int)sc_int(sc, "model.layers");
	m->hidden = (int)sc_int(sc, "model.hidden");
	m->heads = (int)sc_int(sc, "model.heads");
	m->seq_len = (int)sc_int(sc, "model.seq_len");
	m->vocab = (int)sc_int(sc, "model.vocab");
	m->tokens = sc_float(sc, "run.tokens");
}

double tfm_params(const struct tfm *m)
{
	double l = m->layers, h = m->hidden, s = m->seq_len, v = m->vocab;

	return 12.0 * l * h * h * (1.0 + 13.0 / (12.0 * h) + (v + s) / (12.0 * l * h));
}

/* The bracket shared by both FLOPs formulas: attention's s/(6h) and the
 * logits' V/(16 l h) relative to the dense GEMMs. */
static double flops_bracket(const struct tfm *m)
{
	double l = m->layers, h = m->hidden, s = m->seq_len, v = m->vocab;

	return 1.0 + s / (6.0 * h) + v / (16.0 * l * h);
}

double tfm_flops(const struct tfm *m, double sequences, bool recompute)
{
	double l = m->layers, h = m->hidden, s = m->seq_len;
	double k = recompute ? 96.0 : 72.0;

	return k * sequences * s * l * h * h * flops_bracket(m);
}

double tfm_model_flops_per_token(const struct tfm *m)
{
	double l = m->layers, h = m->hidden;

	return 72.0 * l * h * h * flops_bracket(m);
}
