/*
 * run_model.c -- the run model's figures, derived once from the scenario:
 * model, layout, GPU, pools, failures, spot, GC, the full-cluster pace and
 * the checkpoint plan; the job (with the accounting) that every run of the
 * load reads; and run_check(), which prints them without running.
 * Part of the run model (see run.c, run_int.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/dispatch.h"
#include "models/run_int.h"
#include "topologies/net.h"
#include "topologies/platform.h"

/* The settings the paces read, in the order their problems are reported:
 * the options and memory at the full layout, then, for the step model, the
 * GPU and the network's settings (the formula model's come last). */
static int pace_setup(const struct scenario *sc, struct pace_cache *cache,
		      struct model *md, struct err *e)
{
	step_cfg_from_scenario(sc, &md->step);
	if (step_check_memory(&md->step, &md->m, &md->L, &md->g, &md->mem, e) < 0)
		return -1;
	pace_src_from_scenario(sc, &md->src);
	md->src.step = &md->step;
	md->src.m = &md->m;
	md->src.L = &md->L;
	md->src.g = &md->g;
	md->src.gc = &md->gc;
	md->src.eval = &md->eval;
	md->src.shrink_batch = md->spot.shrink_batch;
	md->src.cache = cache;
	if (md->src.use_step && (step_check_gpu(&md->step, &md->g, e) < 0 ||
				 step_cfg_read_net(sc, &md->step, e) < 0))
		return -1;
	/* the formula model too: no FP8 run on a GPU without FP8 */
	if (step_check_dtype(&md->step, &md->g, e) < 0)
		return -1;
	return pace_compute(&md->src, md->L.dp, &md->full, e);
}

/* An elastic job restarts at the data-parallel size the nodes it holds
 * allow: every size from the one the non-spot pools alone hold up to the
 * full one can come, so each is checked now (microbatch rules, memory),
 * never a scenario error mid-run.  (Failures do not shrink the job: it
 * waits for a spare.) */
static int check_elastic(const struct model *md, struct err *e)
{
	int fixed_nodes = md->L.nodes, dp_lo;

	if (!md->spot.elastic)
		return 0;
	for (int i = 0; i < md->pools.n; i++)
		if (md->pools.p[i].cls == POOL_SPOT)
			fixed_nodes -= md->pools.p[i].nodes;
	dp_lo = (int)((long)fixed_nodes * md->L.gpus_per_node / md->gpus_per_replica);
	for (int dp = dp_lo > 1 ? dp_lo : 1; dp < md->L.dp; dp++) {
		struct err ce = { 0 };

		if (pace_check_dp(&md->src, dp, &ce) < 0)
			return err_set(e, ce.status, "%s [elastic: the job shrinks to dp = %d of "
				       "%d when the spot pools hold fewer nodes; expected a "
				       "layout every such size can run, spot.batch = "
				       "\"shrink\", or spot.policy = \"wait\"]", ce.msg, dp,
				       md->L.dp);
	}
	return 0;
}

/* The whole cluster's pace at ramp phase k's batch, computed. */
static int ramp_pace(struct model *md, int k, struct pace *p, struct err *e)
{
	struct layout L = md->L;
	struct pace_src src = md->src;

	L.global_batch = md->ramp.batch[k];
	L.microbatches = L.global_batch / (layout_replicas(&L) * L.micro_batch);
	src.L = &L;
	return pace_compute(&src, L.dp, p, e);
}

/* Interpolated paces within this of a computed one are taken. */
#define RAMP_LERP_TOL 1e-3

/* The batch ramp-up and the whole cluster's pace at each of its batches.
 * The first phase's is computed (its layout problems are the
 * scenario's), the others interpolated between it and the full batch's
 * (pace_lerp), checked against the middle phase's computed pace: beyond
 * RAMP_LERP_TOL every phase is computed.  The planner's candidates so cost
 * three step simulations, not one a phase. */
static int ramp_setup(const struct scenario *sc, struct model *md, struct err *e)
{
	int n, mid;

	if (ramp_from_scenario(sc, &md->L, md->spot.elastic, &md->ramp, e) < 0)
		return -1;
	if ((n = md->ramp.n) == 0)
		return 0;
	md->ramp_pace = calloc((size_t)n, sizeof *md->ramp_pace);
	if (md->ramp_pace == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	mid = n / 2;
	if (ramp_pace(md, 0, &md->ramp_pace[0], e) < 0 ||
	    (mid > 0 && ramp_pace(md, mid, &md->ramp_pace[mid], e) < 0))
		return -1;
	struct pace guess;
	pace_lerp(&md->src, &md->ramp_pace[0], &md->full, md->ramp.batch[mid], &guess);
	bool affine = fabs(guess.compute_s - md->ramp_pace[mid].compute_s) <=
		      RAMP_LERP_TOL * md->ramp_pace[mid].compute_s;
	for (int k = 1; k < n; k++) {
		if (k == mid)
			continue;
		if (affine)
			pace_lerp(&md->src, &md->ramp_pace[0], &md->full, md->ramp.batch[k],
				  &md->ramp_pace[k]);
		else if (ramp_pace(md, k, &md->ramp_pace[k], e) < 0)
			return -1;
	}
	return 0;
}

const struct pace *run_phase_pace(const struct model *md, int k)
{
	return k < 0 ? &md->full : &md->ramp_pace[k];
}

double run_work_s(const struct model *md, int64_t i0, int64_t i1, bool compute_only)
{
	double t = 0;

	while (i0 < i1) {
		int k = ramp_phase(&md->ramp, i0);
		const struct pace *p = run_phase_pace(md, k);
		int64_t end = k < 0 || md->ramp.end_iter[k] > i1 ? i1 : md->ramp.end_iter[k];

		t += compute_only ? (double)(end - i0) * p->compute_s : pace_time_s(p, i0, end);
		i0 = end;
	}
	return t;
}

/* The most samples a time series may take: a run that asks for more is a
 * mistake in output.sample_interval_s, not a study.  A sample costs about
 * 3.7 us of CPU and 9 bytes of HDF5, all series together (scenarios/1b.cfg
 * at 0.1 s: 2.2M samples a series, 8.3 s, 19.8 MB, 2026-12-07), so at this
 * many a run writes about 0.9 GB for six minutes before its first answer. */
#define RUN_SAMPLES_MAX 1e8

/* The run at full speed, or until run.max_days, over the sample interval:
 * a lower bound on the samples each series will hold (stoppages only add). */
static int check_samples(const struct scenario *sc, const struct model *md, struct err *e)
{
	double span_s = fmin(run_work_s(md, 0, md->total_iters, false), md->max_s);
	double samples = span_s / md->sample_interval_s;

	if (samples <= RUN_SAMPLES_MAX)
		return 0;
	return sc_error(sc, e, "output.sample_interval_s", "%g s over the run's %.3g days "
			"would write %.2g samples a series, more than %.0g; raise the interval",
			md->sample_interval_s, span_s / 86400.0, samples, RUN_SAMPLES_MAX);
}

int run_model_from_scenario(const struct scenario *sc, struct pace_cache *cache,
			    struct model *md, struct err *e)
{
	memset(md, 0, sizeof *md);
	tfm_from_scenario(sc, &md->m);
	if (layout_from_scenario(sc, &md->m, &md->L, e) < 0)
		return -1;
	gpu_from_scenario(sc, md->L.gpu, &md->g);
	if (gpu_check(&md->g, sc_where_of(sc), e) < 0 || gpu_check_bands(sc, e) < 0)
		return -1;
	gpu_warn_uncalibrated(&md->g);
	if (pools_from_scenario(sc, md->L.nodes, &md->pools, e) < 0)
		return -1;
	if (failure_from_scenario(sc, md->L.nodes, md->L.gpus_per_node, &md->fl, e) < 0)
		return -1;
	if (spot_from_scenario(sc, &md->pools, &md->spot, e) < 0) {
		failure_free(&md->fl);
		return -1;
	}
	gc_from_scenario(sc, &md->gc);
	evl_from_scenario(sc, &md->eval);
	md->full_fidelity = sc_bool(sc, "run.full_fidelity");
	md->max_s = sc_float(sc, "run.max_days") * 86400.0;
	md->sample_interval_s = sc_float(sc, "output.sample_interval_s");
	md->gpus_per_replica = md->L.tp * md->L.pp;

	md->params = tfm_params(&md->m);
	if (pace_setup(sc, cache, md, e) < 0) {
		run_model_free(md);
		return -1;
	}
	md->band = gpu_band(sc, &md->g, md->step.par.stack, md->step.par.stack_band,
			    md->m.moe.experts > 0);
	md->iteration_s = md->full.compute_s;
	md->flops_per_iter = md->full.flops_per_iter;
	md->tokens_per_iter = (int64_t)md->L.global_batch * md->m.seq_len;
	if (ramp_setup(sc, md, e) < 0) {
		run_model_free(md);
		return -1;
	}
	if (md->ramp.n == 0) {
		md->total_iters = (int64_t)ceil(md->m.tokens / (double)md->tokens_per_iter);
		md->tokens_needed = md->total_iters * md->tokens_per_iter;
	} else {
		md->total_iters = ramp_iters_for(&md->ramp, md->m.tokens / md->m.seq_len,
						 md->L.global_batch);
		md->tokens_needed = ramp_sequences(&md->ramp, md->total_iters,
						   md->L.global_batch) * md->m.seq_len;
	}
	md->mtti_s = 1.0 / (1.0 / failure_mtti_s(&md->fl) + md->spot.rate_per_s);
	if (check_samples(sc, md, e) < 0 || check_elastic(md, e) < 0 ||
	    step_cfg_read_net(sc, &md->step, e) < 0 ||
	    ckpt_from_scenario(sc, md->params, md->L.nodes, md->L.gpus, md->iteration_s,
			       md->mtti_s, net_cfg_node_out_Bps(md->step.net), &md->ck, e) < 0 ||
	    pace_cache_platform(cache, md->step.net, md->L.gpus, md->L.gpus_per_node,
				&md->pf, e) < 0) {
		run_model_free(md);
		return -1;
	}
	return 0;
}

void run_model_free(struct model *md)
{
	free(md->ramp_pace);
	md->ramp_pace = NULL;
	ramp_free(&md->ramp);
	step_cfg_free(&md->step);
	spot_free(&md->spot);
	failure_free(&md->fl);
}

struct run_job *run_job_from_scenario(const struct scenario *sc,
				      struct pace_cache *cache, struct err *e)
{
	struct run_job *j = calloc(1, sizeof *j);

	if (j == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		return NULL;
	}
	if (run_model_from_scenario(sc, cache, &j->md, e) < 0) {
		free(j);
		return NULL;
	}
	j->acct = acct_new(sc, &j->md.g, &j->md.L, &j->md.pools, &j->md.pf, e);
	if (j->acct == NULL) {
		run_job_free(j);
		return NULL;
	}
	/* the checkpoint's money, now that accounting knows the prices */
	ckpt_minimize_cost(&j->md.ck,
			   acct_checkpoint_usd(j->acct, j->md.ck.size_bytes,
					       run_work_s(&j->md, 0, j->md.total_iters, false)),
			   acct_training_usd_per_s(j->acct), j->md.iteration_s, j->md.mtti_s);
	return j;
}

void run_job_shape(const struct run_job *j, int *gpus, const char **gpu,
		   double *work_s)
{
	*gpus = j->md.L.gpus;
	*gpu = j->md.g.name;
	*work_s = run_work_s(&j->md, 0, j->md.total_iters, false);
}

double run_job_fabric_s(const struct run_job *j, double *iteration_s, double *exposed_s)
{
	const struct step_result *r = &j->md.full.step;
	const struct layout *L = &j->md.L;
	double node_Bps = j->md.step.net ? net_cfg_node_out_Bps(j->md.step.net) : 0;

	*iteration_s = j->md.full.iter_s;
	*exposed_s = r->dp_exposed_s;
	/* Ranks go TP innermost, then DP, then PP: a DP group spans tp x dp
	 * consecutive ranks, inside one node when that fits (pipeline stages
	 * on different nodes send only their small p2p transfers out). */
	if (node_Bps <= 0 || L->nodes < 2 || L->dp < 2 ||
	    L->tp * L->dp <= L->gpus_per_node)
		return 0;
	/* A ring moves (n-1)/n of what each rank puts through the DP
	 * collectives (elements, an all-reduce twice).  Their size, as the
	 * step model sends them: ZeRO reduces in the weights' 2 bytes; else
	 * gradients go in the stack's reduce bytes (4: fp32), all of them
	 * under DDP's all-reduce, half of them under the distributed
	 * optimizer (its reduce-scatter; the all-gather moves 2-byte
	 * weights).  A node holds min(tp, GPUs per node) DP groups, each
	 * leaving it on one ring edge per channel, the channels spread over
	 * its NICs. */
	const struct par_opts *o = &j->md.step.par;
	double elem_bytes = o->zero_stage >= 1 ? 2 :
			    o->distributed_optimizer ? (o->grad_reduce_bytes + 2) / 2 :
			    o->grad_reduce_bytes;
	double rank_bytes = r->dp_comm_elems_per_rank * elem_bytes * (L->dp - 1) / L->dp;
	int groups = L->tp < L->gpus_per_node ? L->tp : L->gpus_per_node;
	return rank_bytes * groups / node_Bps;
}

void run_job_checkpoints(const struct run_job *j, double *interval_s, double *stall_s)
{
	const struct ckpt *ck = &j->md.ck;

	*interval_s = ck->enabled ? ck->interval_s : 0;
	*stall_s = ck->enabled ? ck->stall_s : 0;
}

void run_job_free(struct run_job *j)
{
	if (j == NULL)
		return;
	acct_free(j->acct);
	run_model_free(&j->md);
	free(j);
}

/* The attention kernel the step model prices, as the stack's choice
 * resolves on this GPU, and the kernel its law describes. */
static void print_attention(const struct model *md, FILE *out)
{
	enum attn_impl k = md->step.par.attention_kernel;
	enum attn_impl law = md->g.attn_law;

	if (!md->step.par.flash_attention) {
		fprintf(out, "attention             unfused (bmm, softmax, dropout, bmm)\n");
		return;
	}
	fprintf(out, "attention             %s", attn_impl_names[attn_impl_resolve(k, law)]);
	if (k == ATTN_TE)
		fprintf(out, " (te: Transformer Engine's pick on this GPU)");
	fprintf(out, "; %s's law is %s's\n", md->g.name, attn_impl_names[law]);
}

/* The GEMMs' datatype, FP8's scaling recipe, and the peak they run under. */
static void print_precision(const struct model *md, FILE *out)
{
	const struct par_opts *o = &md->step.par;
	static const char *const recipe[] = {
		[CMP_FP8_DELAYED] = "delayed scaling",
		[CMP_FP8_CURRENT] = "current scaling",
		[CMP_FP8_MX] = "MXFP8 block scaling",
		[CMP_FP4_NV] = "NVFP4 (4-bit) block scaling",
		[CMP_FP8_BLOCK] = "FP8 block scaling (1 x 128, 128 x 128)",
	};

	if (o->dtype != PAR_FP8) {
		fprintf(out, "precision             %s GEMMs (%.0f TFLOP/s dense peak)\n",
			o->dtype == PAR_FP16 ? "fp16" : "bf16", md->g.peak_bf16_flops / 1e12);
		return;
	}
	fprintf(out, "precision             fp8 GEMMs, %s (%.0f TFLOP/s dense peak)",
		recipe[o->fp8_recipe], md->g.peak_fp8_flops / 1e12);
	if (o->fp8_recipe == CMP_FP8_MX)
		fprintf(out, "; %.3fx the per-tensor GEMM time", md->g.mx_gemm_ratio);
	if (o->fp8_recipe == CMP_FP4_NV)
		fprintf(out, "; %.3fx the per-tensor FP8 GEMM time", md->g.nvfp4_gemm_ratio);
	if (o->fp8_recipe == CMP_FP8_BLOCK)
		fprintf(out, "; %.3fx the per-tensor GEMM time", md->g.fp8_block_gemm_ratio);
	fprintf(out, "\n");
}

/* ZeRO: the stage, the ranks a shard spans, how ZeRO-3 gathers. */
static void print_zero(const struct model *md, FILE *out)
{
	const struct par_opts *o = &md->step.par;
	int shard = par_shard_ranks(o, md->L.dp);

	if (o->zero_stage == 0)
		return;
	fprintf(out, "zero                  stage %d, sharded over %d of %d data-parallel "
		"ranks%s",
		o->zero_stage, shard, md->L.dp, shard < md->L.dp ? " (hybrid)" : "");
	if (o->zero_stage == 3)
		fprintf(out, "; weights gathered %s", o->zero3_sync ?
			"a tensor at a time, in series with the compute" :
			"a layer at a time, ahead of the compute");
	fprintf(out, "\n");
}

/* MoE: how the experts are spread, where an EP group's ranks sit, and
 * what the dispatch sends a token (dispatch.h; nodes as the default
 * placement puts ranks). */
static void print_experts(const struct model *md, FILE *out)
{
	const struct layout *L = &md->L;
	const struct par_opts *o = &md->step.par;
	int ep = L->ep > 1 ? L->ep : 1, et = layout_etp(L);
	int nodes = layout_ep_nodes(L);

	if (md->m.moe.experts == 0)
		return;
	fprintf(out, "experts               %d per GPU (ep %d, expert_tp %d); an EP "
		"group's ranks %d apart; %d data-parallel replicas of each\n",
		md->m.moe.experts / ep, ep, et, et, L->tp * L->dp / (et * ep));
	fprintf(out, "dispatch              %s", o->ep_permute_fused ? "hybridep (permute fused)" :
		o->ep_hybridep ? "hybridep" : o->ep_deepep ? "deepep" : "alltoall");
	if (o->ep_deepep)
		fprintf(out, ": a token to %.3g of %d nodes, %.3g of %d GPUs",
			disp_distinct(&md->m.moe, nodes), nodes,
			disp_distinct(&md->m.moe, ep), ep);
	else
		fprintf(out, ": %d copies a token", md->m.moe.top_k);
	fprintf(out, "; %s dispatch, bf16 combine\n", o->ep_fp8_dispatch ? "fp8" : "bf16");
}

static void print_derived(const struct model *md, FILE *out)
{
	fprintf(out, "# derived\n");
	fprintf(out, "parameters            %.4g\n", md->params);
	fprintf(out, "flops_per_token       %.4g  (model, no recomputation)\n",
		tfm_model_flops_per_token(&md->m));
	fprintf(out, "gpus                  %d  (%d nodes of %d)\n", md->L.gpus,
		md->L.nodes, md->L.gpus_per_node);
	fprintf(out, "layout                tp %d  pp %d  dp %d  microbatches %d\n",
		md->L.tp, md->L.pp, md->L.dp, md->L.microbatches);
	print_attention(md, out);
	print_precision(md, out);
	print_zero(md, out);
	print_experts(md, out);
	fprintf(out, "iteration_time_s      %.4f\n", md->iteration_s);
	fprintf(out, "iterations            %lld\n", (long long)md->total_iters);
	if (md->ramp.n > 0) {
		int64_t it = md->ramp.end_iter[md->ramp.n - 1];
		fprintf(out, "rampup                %d steps from %d sequences, %lld iterations, "
			"%.4g s (%.4g s at the full batch)\n", md->ramp.n, md->ramp.batch[0],
			(long long)it, run_work_s(md, 0, it, false),
			(double)ramp_sequences(&md->ramp, it, md->L.global_batch) /
			md->L.global_batch * md->full.iter_s);
	}
	fprintf(out, "checkpoint            %.4g bytes, write %.1f s, stall %.2f s, "
		"every %lld iterations\n", md->ck.size_bytes, md->ck.write_s,
		md->ck.stall_s, (long long)md->ck.interval_iters);
	fprintf(out, "mtti_s                %.6g  (young %.6g s, daly %.6g s)\n",
		md->mtti_s, md->ck.young_s, md->ck.daly_s);
	if (md->ck.usd_per_ckpt > 0)
		fprintf(out, "checkpoint_storage    $%.4g a checkpoint%s\n", md->ck.usd_per_ckpt,
			md->ck.money_s > 0 ? " (minimize cost: optima at stall + this "
					     "over the job's cost a second)" : "");
	step_print_memory(out, &md->mem, md->g.hbm_bytes);
}

int run_job_check(const struct run_job *j, FILE *out, struct err *e)
{
	/* Built to check it (the formula model does not use it). */
	struct net *net = net_build(j->md.step.net, e);

	if (net == NULL)
		return -1;
	net_free(net);
	if (out != NULL) {
		print_derived(&j->md, out);
		acct_describe(j->acct, out);
	}
	return 0;
}

int run_check(const struct scenario *sc, struct pace_cache *cache, FILE *out,
	      struct err *e)
{
	struct run_job *j = run_job_from_scenario(sc, cache, e);
	int rc = j ? run_job_check(j, out, e) : -1;

	run_job_free(j);
	return rc;
}
