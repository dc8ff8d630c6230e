/*
 * step-load.h -- for the step model's tests and benchmarks: the schema of
 * the settings one iteration reads, and a scenario loaded with the model,
 * layout, GPU and step settings read from it (and, run, its simulated
 * iteration).
 *
 *   struct cfg_schema *s = step_schema_new();
 *   struct step_job j;
 *   if (step_job_run(s, path, NULL, 0, &j, &e) < 0) ... e.msg
 *   ... j.r.iteration_s ...
 *   step_job_free(&j);		(either way)
 */
#ifndef TESTS_STEP_LOAD_H
#define TESTS_STEP_LOAD_H

#include <string.h>

#include "sim/cfg.h"
#include "models/gpu.h"
#include "models/node.h"
#include "models/layout.h"
#include "models/parallel.h"
#include "models/step.h"
#include "models/straggler.h"
#include "models/transformer.h"
#include "topologies/net.h"

struct step_job {
	struct scenario *sc;
	struct tfm m;
	struct layout L;
	struct gpu_spec g;
	struct step_cfg cfg;	/* the network only after step_job_run */
	struct step_result r;
};

/* Model, layout, GPU, parallelism and network settings. */
static inline struct cfg_schema *step_schema_new(void)
{
	struct cfg_schema *s = cfg_schema_new();

	if (s) {
		cfg_schema_add(s, tfm_settings);
		cfg_schema_add(s, layout_settings);
		cfg_schema_add(s, gpu_settings);
		cfg_schema_add(s, node_settings);	/* the catalogs come together */
		cfg_schema_add(s, par_settings);
		cfg_schema_add(s, strag_settings);
		cfg_schema_add(s, net_settings);
	}
	return s;
}

/* Load path with its overrides; read model, layout, GPU and the step
 * settings but the network: 0, or -1 with e set. */
static inline int step_job_load(const struct cfg_schema *s, const char *path,
				const char *const *ov, size_t n_ov, struct step_job *j,
				struct err *e)
{
	memset(j, 0, sizeof *j);
	memset(e, 0, sizeof *e);
	j->sc = sc_load(s, path, ov, n_ov, e);
	if (!j->sc)
		return -1;
	tfm_from_scenario(j->sc, &j->m);
	if (layout_from_scenario(j->sc, &j->m, &j->L, e) < 0)
		return -1;
	gpu_from_scenario(j->sc, j->L.gpu, &j->g);
	step_cfg_from_scenario(j->sc, &j->cfg);
	return 0;
}

/* step_job_load, the network's settings, then one simulated iteration
 * into j->r. */
static inline int step_job_run(const struct cfg_schema *s, const char *path,
			       const char *const *ov, size_t n_ov, struct step_job *j,
			       struct err *e)
{
	if (step_job_load(s, path, ov, n_ov, j, e) < 0 ||
	    step_cfg_read_net(j->sc, &j->cfg, e) < 0)
		return -1;
	return step_simulate(&j->cfg, &j->m, &j->L, &j->g, &j->r, e);
}

static inline void step_job_free(struct step_job *j)
{
	step_cfg_free(&j->cfg);
	sc_free(j->sc);
	j->sc = NULL;
}

#endif
