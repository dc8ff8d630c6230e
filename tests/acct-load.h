/*
 * acct-load.h -- for the accounting tests: load a scenario from tests/acct/
 * and build accounting on it, to drive it with activities directly.
 */
#ifndef ACCT_LOAD_H
#define ACCT_LOAD_H

#include <stdio.h>

#include "tap.h"
#include "sim/cfg.h"
#include "models/acct.h"
#include "models/gpu.h"
#include "models/layout.h"
#include "models/pool.h"
#include "models/run.h"
#include "models/transformer.h"

struct fixture {
	struct cfg_schema *schema;
	struct scenario *sc;
	struct tfm m;
	struct layout L;
	struct gpu_spec g;
	struct pools pools;
	struct platform pf;
	struct acct *a;
};

/* 0, or -1 after a failed check "FILE loads" that says why. */
static inline int fixture_open(struct fixture *f, const char *file, const char *const *ov,
			       size_t n_ov)
{
	char path[4096];
	struct err e = { 0 };
	/* The accounting tests check sums, not the GPU's power level
	 * (tests/kpower-t.c does): their training GPUs draw idle + 0.8 x
	 * (TDP - idle), 330 W for the A100, set here. */
	const char *all[32] = { "power.gpu_busy_fraction=0.8" };

	memset(f, 0, sizeof *f);
	snprintf(path, sizeof path, "%s/tests/acct/%s", tap_srcdir(), file);
	f->schema = run_schema_new();
	for (size_t i = 0; i < n_ov && i + 1 < sizeof all / sizeof all[0]; i++)
		all[i + 1] = ov[i];
	f->sc = sc_load(f->schema, path, all, n_ov + 1, &e);
	if (f->sc == NULL)
		goto fail;
	tfm_from_scenario(f->sc, &f->m);
	if (layout_from_scenario(f->sc, &f->m, &f->L, &e) < 0)
		goto fail;
	gpu_from_scenario(f->sc, f->L.gpu, &f->g);
	if (pools_from_scenario(f->sc, f->L.nodes, &f->pools, &e) < 0)
		goto fail;
	struct net_cfg *net = net_cfg_from_scenario(f->sc, &e);
	int rc = net ? platform_from_cfg(net, &f->pf, &e) : -1;
	net_cfg_free(net);
	if (rc < 0)
		goto fail;
	f->a = acct_new(f->sc, &f->g, &f->L, &f->pools, &f->pf, &e);
	if (f->a == NULL)
		goto fail;
	return 0;
fail:
	tap_ok(0, "%s loads", file);
	tap_diag("%s: %s", file, e.msg);
	return -1;
}

static inline void fixture_close(struct fixture *f)
{
	acct_free(f->a);
	sc_free(f->sc);
	cfg_schema_free(f->schema);
}

/* n nodes of 8 GPUs held in pool 0, `training` of their GPUs training. */
static inline struct activity held(int nodes, int training)
{
	struct activity act = { .nodes_held = nodes, .gpus_held = nodes * 8,
				.gpus_training = training };
	act.pool_nodes_held[0] = nodes;
	return act;
}

#define S (INT64_C(1000000000))

#endif
