/*
 * plan.c -- see plan.h.  What the search needs from the scenario as given,
 * read once (plan_init), the user's overrides applied to each candidate
 * (plan_load), and the default cluster sizes.  The bounds are in
 * plan_bound.c, the candidates and the search in plan_search.c, the helpers
 * that warm paces in plan_warm.c; plan_int.h is what they share.  The
 * command, its options and its table are cli/plan.c.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sim/cfg.h"
#include "models/compute.h"
#include "models/plan_int.h"
#include "models/run.h"
#include "topologies/topo.h"

/* --- the scenario and the user's overrides -------------------------------- */

/* With spot fractions a candidate may lack the pool "sp" (no node on spot)
 * or "od" (all on spot): the user's settings of that pool (its price, its
 * preemptions) are left out of it, here and in the command printed (and
 * out of the scenario as given, c NULL, which has pools of neither name). */
bool plan_ov_applies(const struct plan *p, const struct cand *c, const char *ov)
{
	if (p->n_spot == 0)
		return true;
	if (strncmp(ov, "pools.sp.", 9) == 0)
		return c && c->spot_nodes > 0;
	if (strncmp(ov, "pools.od.", 9) == 0)
		return c && c->spot_nodes < c->gpus / p->gpus_per_node;
	return true;
}

struct scenario *plan_load(const struct plan *p, const struct cand *c,
			   const char *const *extra, size_t n_extra, struct err *e)
{
	const char *ov[64];
	size_t n = 0;

	if (p->n_base + n_extra > sizeof ov / sizeof *ov) {
		err_set(e, ERR_USAGE, "plan: too many -s overrides");
		return NULL;
	}
	for (size_t i = 0; i < p->n_base; i++)
		if (plan_ov_applies(p, c, p->base_ov[i]))
			ov[n++] = p->base_ov[i];
	for (size_t i = 0; i < n_extra; i++)
		ov[n++] = extra[i];
	return sc_load(p->schema, p->file, ov, n, e);
}

/* --- the scenario as given ------------------------------------------------ */

int plan_default_gpus(struct plan *p, struct err *e)
{
	static const double scale[] = { 0.25, 0.5, 0.75, 1, 1.5, 2, 3, 4 };
	int nodes = p->gpus / p->gpus_per_node;

	if ((p->gpu_list = calloc(8, sizeof *p->gpu_list)) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (size_t i = 0; i < 8; i++) {
		int g = (int)fmax(1, round(nodes * scale[i])) * p->gpus_per_node;

		if (p->n_gpu_list == 0 || p->gpu_list[p->n_gpu_list - 1] != g)
			p->gpu_list[p->n_gpu_list++] = g;
	}
	return 0;
}

/* The network figures of the communication bound (comm_lb_s). */
static int plan_net_setup(struct plan *p, const struct scenario *sc, struct err *e)
{
	struct net_cfg *cfg = net_cfg_from_scenario(sc, e);
	struct net *net = cfg ? net_build(cfg, e) : NULL;

	net_cfg_free(cfg);
	if (!net)
		return -1;
	p->nic_Bps = net->p.scale_out.bw_Bps * net->p.scale_out.efficiency *
		     net->p.nics_per_node / net->p.gpus_per_node;
	p->domain_gpus = net->p.domain_gpus;
	p->placed = sc_list_len(sc, "network.placement") > 0;
	p->dist_opt = sc_bool(sc, "parallel.distributed_optimizer");
	net_free(net);
	return 0;
}

/* The scenario's own pools: a candidate of another size scales their nodes
 * (they must add up to the cluster's), and its bound runs calm the spot
 * ones.  With --spot-fractions the planner makes its own pools instead. */
static int plan_pools_setup(struct plan *p, const struct scenario *sc, struct err *e)
{
	const char *const *names;
	size_t n = sc_children(sc, "pools", &names);

	p->n_pools = 0;
	if (p->n_spot > 0)
		return 0;
	if (n > PLAN_POOLS_MAX)
		return err_set(e, ERR_USAGE, "plan: more than %d pools", PLAN_POOLS_MAX);
	for (size_t i = 0; i < n; i++) {
		if (strlen(names[i]) >= sizeof p->pool_name[0])
			return err_set(e, ERR_USAGE, "plan: pool name %s too long", names[i]);
		strcpy(p->pool_name[i], names[i]);
		p->pool_nodes[i] = (int)sc_int(sc, "pools.%s.nodes", names[i]);
		p->pool_spot[i] = strcmp(sc_str(sc, "pools.%s.class", names[i]), "spot") == 0;
	}
	p->n_pools = (int)n;
	return 0;
}

/* What the search needs from the scenario as given. */
static int plan_setup(struct plan *p, struct err *e)
{
	static const char *const zero[] = { "parallel.zero_stage=0" };
	struct err pe = { 0 };
	struct scenario *sc = plan_load(p, NULL, zero, 1, &pe);

	struct gpu_spec g;
	const char *gpu;

	/* Does this trainsim have ZeRO?  Ask the schema. */
	p->has_zero = sc != NULL;
	sc_free(sc);
	if ((sc = plan_load(p, NULL, NULL, 0, e)) == NULL)
		return -1;
	if (run_check(sc, p->paces, NULL, e) < 0) {
		sc_free(sc);
		return -1;
	}
	tfm_from_scenario(sc, &p->m);
	p->rc_modules = sc_str(sc, "parallel.recompute_modules")[0] != '\0';
	p->gpus = (int)sc_int(sc, "cluster.gpus");
	p->gpus_per_node = (int)sc_int(sc, "cluster.gpus_per_node");
	p->global_batch = (int)sc_int(sc, "parallel.global_batch");
	gpu = sc_str(sc, "cluster.gpu");
	p->hbm_bytes = gpu_hbm_bytes(sc, gpu);
	if (strlen(gpu) >= sizeof p->gpu_name) {
		sc_free(sc);
		return err_set(e, ERR_USAGE, "plan: GPU name %s too long", gpu);
	}
	strcpy(p->gpu_name, gpu);
	/* For the analytic bound (see bound_analytic): the peak and the
	 * kernels' best efficiency the step model can reach. */
	gpu_from_scenario(sc, gpu, &g);
	p->fp8 = strcmp(sc_str(sc, "parallel.dtype"), "fp8") == 0;
	p->cp = (int)sc_int(sc, "parallel.cp");
	p->peak_tflops = (p->fp8 ? g.peak_fp8_flops : g.peak_bf16_flops) / 1e12;
	p->eff_max = cmp_best_eff(&g, p->fp8, p->peak_tflops * 1e12);
	p->gpu = g;
	p->gpu.name = p->gpu_name;	/* g's strings die with sc */
	p->gpu.nvlink = NULL;
	/* as the step model will run them: the stack's defaults where the
	 * scenario says nothing (megatron_core runs flash attention) */
	struct par_opts par;
	par_from_scenario(sc, &par);
	p->sp = par.sequence_parallel;
	p->flash = par.flash_attention;
	p->attn = par.attention_kernel;
	if (p->attn == ATTN_UNFUSED && p->flash)
		p->attn = ATTN_FLASH2;
	p->virtual_stages = strcmp(sc_str(sc, "parallel.schedule"), "interleaved") == 0 ?
			    (int)sc_int(sc, "parallel.virtual_stages") : 1;
	p->ckpt_s = sc_float(sc, "training.checkpoint.interval_s");
	p->ckpt_bytes_per_param = sc_float(sc, "training.checkpoint.bytes_per_param");
	p->ckpt_write_Bps = sc_float(sc, "training.checkpoint.write_bw_gbyte_s") * 1e9;
	p->fail_per_node_per_s = sc_bool(sc, "failures.enabled") ?
		sc_float(sc, "failures.per_node_per_1000_days") / 1000.0 / 86400.0 : 0;
	p->ckpt_fixed = strcmp(sc_str(sc, "training.checkpoint.policy"), "time") == 0 ||
			strcmp(sc_str(sc, "training.checkpoint.policy"), "iterations") == 0;
	p->pp0 = (int)sc_int(sc, "parallel.pp");
	p->uneven = sc_int(sc, "parallel.first_stage_layers") > 0 ||
		    sc_int(sc, "parallel.last_stage_layers") > 0;
	if (plan_pools_setup(p, sc, e) < 0) {
		sc_free(sc);
		return -1;
	}
	p->step_model = strcmp(sc_str(sc, "training.iteration_model"), "step") == 0;
	p->formula_eff = sc_float(sc, "training.efficiency");
	int rc = plan_net_setup(p, sc, e);
	sc_free(sc);
	return rc;
}

int plan_init(struct plan *p, struct err *e)
{
	if ((p->schema = run_schema_new()) == NULL || (p->paces = pace_cache_new()) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	return plan_setup(p, e);
}

void plan_free(struct plan *p)
{
	free(p->spot_fractions);
	cfg_schema_free(p->schema);
	pace_cache_free(p->paces);
	free(p->gpu_list);
	free(p->why);
	p->why = NULL;
	p->spot_fractions = NULL;
	p->schema = NULL;
	p->paces = NULL;
	p->gpu_list = NULL;
}
