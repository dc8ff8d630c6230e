/* dualpipe.c -- see dualpipe.h; the step order is DualPipe.step's. */
#include "models/dualpipe.h"

static int near_dir(int pp, int k)
{
	return k < pp / 2 ? 0 : 1;
}

static void add(struct mg_op *ops, int *n, struct mg_op op)
{
	ops[(*n)++] = op;
}

static struct mg_op fwd(int *f_next, int dir)
{
	return (struct mg_op){ .bwd = 0, .chunk = dir, .mb = f_next[dir]++, .comm = MG_PASS };
}

static struct mg_op bwd(int *b_next, int dir, int input_only)
{
	return (struct mg_op){ .bwd = 1, .chunk = dir, .mb = b_next[dir]++, .comm = MG_PASS,
			       .part = input_only ? MG_PART_INPUT : MG_PART_WHOLE };
}

/* The oldest input-only backward not yet given its weight pass.  There is
 * always one: DualPipe.step pops WeightGradStore only after a zero-bubble
 * backward has filled it, and asserts the queue empty at the end
 * (tests/step-dualpipe-t counts a weight pass per input-only backward). */
static struct mg_op weight(const struct mg_op *ops, int n, int *w_seen)
{
	while (*w_seen < n && !(ops[*w_seen].comm == MG_PASS &&
				ops[*w_seen].part == MG_PART_INPUT))
		(*w_seen)++;
	struct mg_op w = ops[(*w_seen)++];
	w.part = MG_PART_WEIGHT;
	w.pair = 0;
	return w;
}

int dual_schedule(int pp, int m, int k, struct mg_op *ops)
{
	int P = pp / 2, h = k < pp - 1 - k ? k : pp - 1 - k, half_m = m / 2;
	int nd = near_dir(pp, k), fd = 1 - nd, n = 0, w_seen = 0;
	int f_next[2] = { 0, 0 }, b_next[2] = { 0, 0 };
	int middle = k == P - 1 || k == P;

	for (int i = 0; i < 2 * (P - h - 1); i++)				/* 1 */
		add(ops, &n, fwd(f_next, nd));
	for (int i = 0; i < h + 1; i++) {					/* 2 */
		add(ops, &n, fwd(f_next, nd));
		add(ops, &n, fwd(f_next, fd));
	}
	for (int i = 0; i < P - h - 1; i++) {					/* 3 */
		add(ops, &n, bwd(b_next, fd, 1));
		add(ops, &n, weight(ops, n, &w_seen));
		add(ops, &n, fwd(f_next, fd));
	}
	for (int i = 0; i < half_m - pp + h + 1; i++) {				/* 4 */
		struct mg_op f = fwd(f_next, nd);
		f.pair = !(i == 0 && middle);
		add(ops, &n, f);
		add(ops, &n, bwd(b_next, fd, 0));
		f = fwd(f_next, fd);
		f.pair = 1;
		add(ops, &n, f);
		add(ops, &n, bwd(b_next, nd, 0));
	}
	for (int i = 0; i < P - h - 1; i++) {					/* 5 */
		add(ops, &n, bwd(b_next, fd, 0));
		struct mg_op f = fwd(f_next, fd);
		f.pair = 1;
		add(ops, &n, f);
		add(ops, &n, bwd(b_next, nd, 0));
	}
	int zb = 0;								/* 6 */
	for (int i = 0; i < h + 1; i++) {
		if (i == (h + 1) / 2 && h % 2 == 1)
			zb = 1;
		add(ops, &n, bwd(b_next, fd, zb));
		if (i == (h + 1) / 2 && h % 2 == 0)
			zb = 1;
		add(ops, &n, bwd(b_next, nd, zb));
	}
	for (int i = 0; i < P - h - 1; i++) {					/* 7 */
		add(ops, &n, weight(ops, n, &w_seen));
		add(ops, &n, bwd(b_next, nd, 1));
	}
	for (int i = 0; i < h + 1; i++)						/* 8 */
		add(ops, &n, weight(ops, n, &w_seen));
	return n;
}

int dual_vs(int pp, int c, int k)
{
	return c == 0 ? k : pp + (pp - 1 - k);
}

int dual_rank(int pp, int vs)
{
	return vs < pp ? vs : 2 * pp - 1 - vs;
}
