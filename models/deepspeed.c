/* deepspeed.c -- see deepspeed.h; the step-to-microbatch mapping is
 * TrainSchedule's (_even_step_forward_id and its three siblings). */
#include "models/deepspeed.h"

static int is_even(int x)
{
	return x % 2 == 0;
}

/* Microbatch of stage k at step t (may be out of 0..m-1: no pass). */
static int step_mb(int pp, int k, int t, int *fwd)
{
	if (is_even(t) && is_even(k)) {
		*fwd = 1;
		return t / 2 - k / 2;
	}
	if (!is_even(t) && !is_even(k)) {
		*fwd = 1;
		return (t - 1) / 2 - k / 2;
	}
	*fwd = 0;
	if (is_even(t))		/* odd stage */
		return t / 2 - pp + (k + 1) / 2;
	return (t - 1) / 2 - pp + 1 + k / 2;
}

static struct mg_op cmd(int comm, int bwd, int mb)
{
	return (struct mg_op){ .bwd = (uint8_t)bwd, .mb = mb, .comm = (uint8_t)comm };
}

int ds_schedule(int pp, int m, int k, struct mg_op *ops)
{
	int n = 0, prev = -1, steps = 2 * (m + pp - 1);

	for (int t = 0; t < steps; t++) {
		int fwd, mb = step_mb(pp, k, t, &fwd);
		int ok = mb >= 0 && mb < m, prev_ok = prev >= 0 && prev < m;
		if (fwd && k > 0) {
			if (prev_ok)
				ops[n++] = cmd(MG_SEND_GRAD, 1, prev);
			if (ok)
				ops[n++] = cmd(MG_RECV_ACT, 0, mb);
		} else if (!fwd && k < pp - 1) {
			if (ok)
				ops[n++] = cmd(MG_RECV_GRAD, 1, mb);
			if (prev_ok)
				ops[n++] = cmd(MG_SEND_ACT, 0, prev);
		}
		if (ok)
			ops[n++] = cmd(MG_PASS, !fwd, mb);
		prev = mb;
	}
	return n;
}
