/*
 * whatif-plan-t.c -- the planner's bounds against numbers worked by hand.
 *
 * GPT-3 175B (96 layers, hidden 12288, 96 heads, sequence 2048, vocabulary
 * 51200): 12 l h^2 (1 + 13/(12h) + (V+s)/(12 l h)) = 174,615,822,336
 * parameters (Narayanan et al. 2021, eq. for P).
 */
#include <math.h>

#include "tests/tap.h"
#include "models/plan.h"

static struct tfm gpt3;

int main(void)
{
	const double P = 174615822336.0, s = 2048, h = 12288, a = 96;
	/* Korthikanti et al. 2022, Table 2, TP 8 with sequence parallelism:
	 * s b h (34/t + 5 a s / (h t)) per layer = 25,165,824 x 14.25 bytes. */
	const double layer_full = s * h * (34.0 / 8 + 5 * a * s / (h * 8));
	double m;

	tfm_gpt(&gpt3, 96, 12288, 96, 2048, 51200);
	tap_plan(9);
	tap_near(layer_full, 358612992.0, 1e-12, "one layer's activations, TP 8, b 1: "
		 "2048 x 12288 x 14.25 = 358,612,992 bytes");
	/* TP 8 x PP 16: P/128 parameters per GPU x 16 bytes (ZeRO paper, sec. 3.1)
	 * = 21,826,977,792; recomputation keeps 96 layer inputs of
	 * 2 s h / 8 = 6,291,456 bytes (603,979,776) plus one layer's full set. */
	m = plan_mem_bound_bytes(&gpt3, 8, 16, 8, 1, true, 0, false, 1);
	tap_near(m, P / 128 * 16 + 96 * 6291456.0 + layer_full, 1e-12,
		 "175B TP8 PP16, recompute: states + 96 inputs + one layer");
	tap_near(m, 22789570560.0, 1e-12, "  = 22,789,570,560 bytes by hand");
	/* Without recomputation: 96 layers x 358,612,992 + 21,826,977,792. */
	m = plan_mem_bound_bytes(&gpt3, 8, 16, 8, 1, false, 0, false, 1);
	tap_near(m, 56253825024.0, 1e-12, "175B TP8 PP16, no recompute: 56,253,825,024 bytes");
	/* ZeRO-3 over dp 128 with TP 8, PP 1: P/8 x 16 / 128 = 2,728,372,224 of
	 * states, plus the same activations. */
	m = plan_mem_bound_bytes(&gpt3, 8, 1, 128, 1, true, 3, false, 1);
	tap_near(m, 3690964992.0, 1e-12, "ZeRO-3 TP8 dp128, recompute: 3,690,964,992 bytes");
	tap_ok(plan_mem_bound_bytes(&gpt3, 8, 1, 128, 1, true, 1, false, 1) >
	       plan_mem_bound_bytes(&gpt3, 8, 1, 128, 1, true, 2, false, 1) &&
	       plan_mem_bound_bytes(&gpt3, 8, 1, 128, 1, true, 2, false, 1) > m,
	       "each ZeRO stage shards more: stage 1 > 2 > 3");
	/* Context parallelism 2: s/2 tokens per GPU, the scores s/2 x s: the
	 * activations of the no-recompute case halve (56,253,825,024 -
	 * 21,826,977,792 = 34,426,847,232 -> 17,213,423,616) */
	tap_near(plan_mem_bound_bytes(&gpt3, 8, 16, 8, 1, false, 0, false, 2),
		 21826977792.0 + 17213423616.0, 1e-12,
		 "CP 2: states + half the activations");
	/* Daly 2006 eq. 37 for 175b.cfg: checkpoint P x 14 B / 100 GB/s =
	 * 24.446 s; 128 nodes x 6.5 per 1000 node-days: M = 103,846.15 s;
	 * sqrt(2 d M) = 2253.25; x (1 + 0.003617 + 0.0000131) - d = 2237.02 s. */
	tap_near(plan_daly_interval_s(P * 14 / 100e9, 1 / (128 * 6.5 / 1000 / 86400)),
		 2237.0164, 1e-7, "Daly's interval for 175b.cfg: 2237.02 s");
	tap_near(plan_daly_interval_s(300, 100), 100, 0,
		 "a checkpoint longer than 2M: Daly's interval is M");
	return tap_done();
}
