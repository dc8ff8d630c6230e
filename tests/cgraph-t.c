/* cgraph-t.c -- CUDA graphs (models/cgraph.h): the kernels the host still
 * issues per layer pass under each scope (and of them the library-loop
 * launches), by hand, and on tiny.cfg's step
 * model made host-bound (5 ms a launch): a whole-step graph gives the
 * iteration of a host that launches for free, and per-layer scopes land
 * between. */
#include <math.h>
#include <stdio.h>

#include "tests/tap.h"
#include "tests/formula-run.h"
#include "models/cgraph.h"

static struct cmp_cost kernels(double k)
{
	struct cmp_cost c = { 0 };

	c.kernels = k;
	return c;
}

/* tiny.cfg's iteration time with a host of 5 ms a launch and overrides. */
static double iteration(const char *scope, const char *host)
{
	char sc[128];
	const char *ov[] = { host, sc, "failures.enabled=false", "run.tokens=1e8" };
	struct report *r = rep_new();
	double v = NAN;

	snprintf(sc, sizeof sc, "parallel.cuda_graph_scope=\"%s\"", scope);
	if (scenario_run("scenarios/tiny.cfg", ov, 4, 1, r) == 0)
		v = rep_summary_get(r, "iteration_time_s");
	rep_free(r);
	return v;
}

int main(void)
{
	unsigned bits;
	char bad[32];

	tap_plan(17);
	tap_ok(cg_parse("", &bits, bad) == 0 && bits == 0, "\"\": no graphs");
	tap_ok(cg_parse("attn,mlp", &bits, bad) == 0 && bits == (CG_ATTN | CG_MLP),
	       "attn,mlp");
	tap_ok(cg_parse("moe_preprocess", &bits, bad) == 0 && bits == CG_MOE_ROUTER,
	       "moe_preprocess names the router's part");
	tap_ok(cg_parse("attn,mpl", &bits, bad) < 0 && strcmp(bad, "mpl") == 0,
	       "an unknown name is reported: \"%s\"", bad);
	tap_ok(cg_parse("attn,", &bits, bad) < 0 && bad[0] == 0, "an empty name is refused");

	/* a dense pass of 30 kernels whose second half has 12 */
	struct cmp_cost pass = kernels(30), second = kernels(12), none = kernels(0);
	tap_near(cg_issued_kernels(CG_ATTN, &pass, &second, &none), 1 + 12, 1e-12,
		 "dense, attn: one replay and the MLP's 12");
	tap_near(cg_issued_kernels(CG_ATTN | CG_MLP, &pass, &second, &none), 2, 1e-12,
		 "dense, attn,mlp: two replays");
	tap_near(cg_issued_kernels(CG_FULL, &pass, &second, &none), 0, 1e-12,
		 "full_iteration: nothing per pass");
	/* an MoE pass of 50 kernels: second half 35, of which 20 routed */
	struct cmp_cost moe = kernels(50), moe_second = kernels(35), routed = kernels(20);
	tap_near(cg_issued_kernels(CG_ATTN | CG_MOE_ROUTER, &moe, &moe_second, &routed),
		 1 + 1 + 20, 1e-12, "MoE, attn,moe_router: two replays and the routed 20");
	tap_near(cg_issued_kernels(CG_MOE_ROUTER, &moe, &moe_second, &routed),
		 15 + 1 + 20, 1e-12, "MoE, moe_router: attention's 15, a replay, the routed 20");
	tap_near(cg_issued_kernels(CG_ATTN | CG_MLP, &moe, &moe_second, &routed),
		 1 + 15 + 20, 1e-12, "MoE, attn,mlp: mlp captures no MoE part");
	/* library-loop launches (e.g. a grouped GEMM's per-expert loop):
	 * attention's 3, the router part's 4, the routed experts' 8 */
	moe.lib_kernels = 15, moe_second.lib_kernels = 12, routed.lib_kernels = 8;
	tap_near(cg_issued_lib_kernels(CG_ATTN, &moe, &moe_second, &routed), 12, 1e-12,
		 "MoE lib, attn: the router's 4 and the routed 8 stay, no replay counted");
	tap_near(cg_issued_lib_kernels(CG_ATTN | CG_MOE_ROUTER, &moe, &moe_second, &routed),
		 8, 1e-12, "MoE lib, attn,moe_router: only the routed 8 stay");
	tap_near(cg_issued_lib_kernels(CG_FULL, &moe, &moe_second, &routed), 0, 1e-12,
		 "MoE lib, full_iteration: none");

	double eager = iteration("", "training.host_us_per_kernel=5000");
	double free_host = iteration("", "training.host_us_per_kernel=0");
	double full = iteration("full_iteration", "training.host_us_per_kernel=5000");
	double layers = iteration("attn,mlp", "training.host_us_per_kernel=5000");
	tap_ok(eager > 2 * free_host, "tiny at 5 ms a launch is host-bound: %.3f s against "
	       "%.3f s for free launches", eager, free_host);
	tap_near(full, free_host, 1e-12, "full_iteration: the iteration of a host that "
		 "launches for free");
	tap_ok(layers < eager && layers > free_host, "attn,mlp: between (%.3f s; the "
	       "embedding's and the loss's launches remain)", layers);
	return tap_done();
}
