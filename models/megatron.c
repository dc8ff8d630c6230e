/* megatron.c -- see megatron.h. */
#include "models/megatron.h"

static int min_int(int a, int b)
{
	return a < b ? a : b;
}

static int schedule_1f1b(int pp, int m, int k, struct mg_op *ops)
{
	int warm = min_int(pp - k - 1, m), n = 0, f = 0, b = 0;

	while (f < warm)
		ops[n++] = (struct mg_op){ .bwd = 0, .mb = f++, .comm = MG_PASS };
	while (f < m) {
		ops[n++] = (struct mg_op){ .bwd = 0, .mb = f++, .comm = MG_PASS };
		ops[n++] = (struct mg_op){ .bwd = 1, .mb = b++, .comm = MG_PASS };
	}
	while (b < m)
		ops[n++] = (struct mg_op){ .bwd = 1, .mb = b++, .comm = MG_PASS };
	return n;
}

/* Megatron's get_model_chunk_id and microbatch of virtual microbatch j. */
static struct mg_op virtual_op(int pp, int v, int j, int bwd)
{
	int in_group = j % (pp * v);
	int chunk = in_group / pp;
	struct mg_op op = { 0 };

	op.bwd = (uint8_t)bwd;
	op.chunk = bwd ? v - 1 - chunk : chunk;
	op.mb = (j / (pp * v)) * pp + in_group % pp;
	return op;
}

static int schedule_interleaved(int pp, int v, int m, int k, struct mg_op *ops)
{
	int total = m * v;
	int warm = min_int(2 * (pp - k - 1) + (v - 1) * pp, total);
	int n = 0, f = 0, b = 0;

	while (f < warm)
		ops[n++] = virtual_op(pp, v, f++, 0);
	while (f < total) {
		ops[n++] = virtual_op(pp, v, f++, 0);
		ops[n++] = virtual_op(pp, v, b++, 1);
	}
	while (b < total)
		ops[n++] = virtual_op(pp, v, b++, 1);
	return n;
}

int mg_schedule(int pp, int v, int microbatches, int stage, struct mg_op *ops)
{
	if (v <= 1)
		return schedule_1f1b(pp, microbatches, stage, ops);
	return schedule_interleaved(pp, v, microbatches, stage, ops);
}

void mg_tp_layer(double s, double b, double h, bool sp, bool backward,
		 bool recompute_full, struct mg_tp *out)
{
	int n = 2 + (backward && recompute_full ? 2 : 0);

	out->all_reduces = sp ? 0 : n;
	out->ag_rs_pairs = sp ? n : 0;
	out->bytes = 2.0 * s * b * h;	/* fp16 [s, b, h] */
}
