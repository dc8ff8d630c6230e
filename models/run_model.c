/*
 * run_model.c -- the run model's figures, derived once from the scenario:
 * model, layout, GPU, pools, failures, spot, GC, the full-cluster pace and
 * the checkpoint plan; and run_check(), which prints them without running.
 * Part of the run model (see run.c, run_int.h).
 */
#include <math.h>
#include <string.h>

#include "models/run_int.h"
#include "topologies/platform.h"

int run_model_from_scenario(const struct scenario *sc, struct pace_cache *cache,
			    struct model *md, struct err *e)
{
	memset(md, 0, sizeof *md);
	tfm_from_scenario(sc, &md->m);
	if (layout_from_scenario(sc, &md->m, &md->L, e) < 0)
		return -1;
	gpu_from_scenario(sc, md->L.gpu, &md->g);
	if (pools_from_scenario(sc, md->L.nodes, &md->pools, e) < 0)
		return -1;
	if (failure_from_scenario(sc, md->L.nodes, md->L.gpus_per_node, &md->fl, e) < 0)
		return -1;
	if (spot_from_scenario(sc, &md->pools, &md->spot, e) < 0) {
		failure_free(&md->fl);
		return -1;
	}
	gc_from_scenario(sc, &md->gc);
	md->full_fidelity = sc_bool(sc, "run.full_fidelity");
	md->gpus_per_replica = md->L.tp * md->L.pp;

	md->params = tfm_params(&md->m);
	if (step_check_memory(sc, &md->m, &md->L, &md->g, &md->mem, e) < 0) {
		spot_free(&md->spot);
		failure_free(&md->fl);
		return -1;
	}
	pace_src_from_scenario(sc, &md->src);
	md->src.m = &md->m;
	md->src.L = &md->L;
	md->src.g = &md->g;
	md->src.gc = &md->gc;
	md->src.shrink_batch = md->spot.shrink_batch;
	md->src.cache = cache;
	if (pace_compute(&md->src, md->L.dp, &md->full, e) < 0) {
		spot_free(&md->spot);
		failure_free(&md->fl);
		return -1;
	}
	md->iteration_s = md->full.compute_s;
	md->flops_per_iter = md->full.flops_per_iter;
	md->tokens_per_iter = (int64_t)md->L.global_batch * md->m.seq_len;
	md->total_iters = (int64_t)ceil(md->m.tokens / (double)md->tokens_per_iter);
	md->tokens_needed = md->total_iters * md->tokens_per_iter;
	md->mtti_s = 1.0 / (1.0 / failure_mtti_s(&md->fl) + md->spot.rate_per_s);
	if (ckpt_from_scenario(sc, md->params, md->L.nodes, md->L.gpus, md->iteration_s,
			       md->mtti_s, &md->ck, e) < 0 ||
	    pace_cache_platform(cache, sc, &md->pf, e) < 0) {
		spot_free(&md->spot);
		failure_free(&md->fl);
		return -1;
	}
	return 0;
}

void run_model_free(struct model *md)
{
	spot_free(&md->spot);
	failure_free(&md->fl);
}

int run_check(const struct scenario *sc, struct pace_cache *cache, FILE *out,
	      struct err *e)
{
	struct model md;
	int rc;

	if (run_model_from_scenario(sc, cache, &md, e) < 0)
		return -1;
	if (out != NULL) {
		fprintf(out, "# derived\n");
		fprintf(out, "parameters            %.4g\n", md.params);
		fprintf(out, "flops_per_token       %.4g  (model, no recomputation)\n",
			tfm_model_flops_per_token(&md.m));
		fprintf(out, "gpus                  %d  (%d nodes of %d)\n", md.L.gpus,
			md.L.nodes, md.L.gpus_per_node);
		fprintf(out, "layout                tp %d  pp %d  dp %d  microbatches %d\n",
			md.L.tp, md.L.pp, md.L.dp, md.L.microbatches);
		fprintf(out, "iteration_time_s      %.4f\n", md.iteration_s);
		fprintf(out, "iterations            %lld\n", (long long)md.total_iters);
		fprintf(out, "checkpoint            %.4g bytes, write %.1f s, stall %.2f s, "
			"every %lld iterations\n", md.ck.size_bytes, md.ck.write_s,
			md.ck.stall_s, (long long)md.ck.interval_iters);
		fprintf(out, "mtti_s                %.6g  (young %.6g s, daly %.6g s)\n",
			md.mtti_s, md.ck.young_s, md.ck.daly_s);
		step_print_memory(out, &md.mem, md.g.hbm_bytes);
	}
	rc = acct_check(sc, &md.g, &md.L, &md.pools, &md.pf, out, e);
	run_model_free(&md);
	return rc;
}
