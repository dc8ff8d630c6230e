/*
 * cluster-autoscale-t.c -- the autoscaler's decisions (models/autoscale.h)
 * on a scripted sequence, with the default rule: 15 s samples, a
 * 3-minute window (12 samples), up above 85% or 20 waiting, down below
 * 30% with fewer than 5 waiting.
 */
#include "tests/tap.h"
#include "models/autoscale.h"

static int feed(struct as_window *w, const struct as_rule *r, double util, double q, int k)
{
	int d = AS_HOLD;

	for (int i = 0; i < k; i++)
		d = as_sample(w, r, util, q);
	return d;
}

int main(void)
{
	struct as_rule r = { 15, 180, 0.85, 20, 0.30, 5, 8, 300 };
	struct as_window w;

	tap_plan(7);
	as_window_init(&w, &r);
	tap_ok(w.want == 12, "180 s / 15 s = 12 samples a window");
	tap_ok(feed(&w, &r, 0.95, 0, 11) == AS_HOLD, "no decision before the 12th sample");
	tap_ok(as_sample(&w, &r, 0.95, 0) == AS_UP, "mean 0.95 > 0.85: up");
	/* 6 samples at 0.9 and 6 at 0.7: mean 0.8, 10 waiting: hold */
	feed(&w, &r, 0.9, 10, 6);
	tap_ok(feed(&w, &r, 0.7, 10, 6) == AS_HOLD, "mean 0.80, 10 waiting: hold");
	tap_ok(feed(&w, &r, 0.5, 21, 12) == AS_UP, "21 waiting > 20: up at 50%");
	tap_ok(feed(&w, &r, 0.2, 4, 12) == AS_DOWN, "mean 0.20 < 0.30 and 4 < 5 waiting: down");
	tap_ok(feed(&w, &r, 0.2, 5, 12) == AS_HOLD, "5 waiting is not fewer than 5: hold");
	return tap_done();
}
