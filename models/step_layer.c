/*
 * step_layer.c -- one layer's costs for the step plan (step_layer.h): its
 * kernels forward and backward (with recomputation), the tensor-, expert-
 * and context-parallel collectives each pass exposes, and the passes the
 * stack adds per layer (gradient accumulation, autocast, FSDP).
 */
#include <math.h>

#include "models/cgraph.h"
#include "models/compute.h"
#include "models/dispatch.h"
#include "models/eager.h"
#include "models/host.h"
#include "models/megatron.h"
#include "models/step_layer.h"
#include "topologies/topo.h"

/* Time of one TP collective of S bytes among the first stage's TP group. */
static int tp_coll_s(struct net *net, const int *tp_gpus, int tp, enum coll_op op,
		     double bytes, double *t, struct err *e)
{
	struct coll c = { op, COLL_AUTO, tp_gpus, tp, bytes, 0 };

	*t = 0;
	if (tp <= 1)
		return 0;
	*t = net_coll_time_s(net, &c, e);
	return *t < 0 ? -1 : 0;
}

static int tp_layer_s(struct net *net, const int *tp_gpus, int tp,
		      const struct mg_tp *x, double *t, struct err *e)
{
	double ar, ag, rs;

	if (tp_coll_s(net, tp_gpus, tp, COLL_ALL_REDUCE, x->bytes, &ar, e) < 0 ||
	    tp_coll_s(net, tp_gpus, tp, COLL_ALL_GATHER, x->bytes, &ag, e) < 0 ||
	    tp_coll_s(net, tp_gpus, tp, COLL_REDUCE_SCATTER, x->bytes, &rs, e) < 0)
		return -1;
	*t = x->all_reduces * ar + x->ag_rs_pairs * (ag + rs);
	return 0;
}

void step_layer_shape(const struct tfm *m, int micro_batch, int tp, int ep, int etp,
		      bool sp, bool flash, double peak, bool moe, struct cmp_shape *sh)
{
	struct cmp_shape x = {
		.b = micro_batch, .s = m->seq_len, .h = m->hidden,
		.a = m->heads, .V = m->vocab, .tp = tp,
		.sp = sp, .flash = flash, .peak_flops = peak,
		.kv = m->kv_heads, .f = m->ffn_hidden, .gated = m->mlp != TFM_GELU,
		.dqk = tfm_qk_head_dim(m), .dv = tfm_v_head_dim(m),
		.dropout = m->dropout, .bias = m->bias, .qk_norm = m->qk_norm,
		.rotary = m->rotary, .rotary_scaled = m->yarn,
		.window = m->window, .window_frac = tfm_window_frac(m),
	};

	if (m->mla.kv_lora_rank > 0) {
		x.q_lora = m->mla.q_lora_rank;
		x.kv_lora = m->mla.kv_lora_rank;
		x.rope = m->mla.qk_rope_dim;
	}
	if (moe && m->moe.experts > 0) {
		x.experts = m->moe.experts;
		x.topk = m->moe.top_k;
		x.shared = m->moe.shared_experts;
		x.fe = m->moe.ffn_hidden;
		x.load = m->moe.capacity_factor > 0 ? m->moe.capacity_factor :
			 m->moe.imbalance;
		x.capacity = m->moe.capacity_factor > 0;
		x.ep = ep;
		x.etp = etp;
	}
	*sh = x;
}

/* One layer's parameters on one GPU: split over TP, routed experts over
 * expert TP and EP.  (d P)/t for dense layers, as the closed form was
 * written. */
double step_layer_rank_params(const struct tfm *m, const struct layout *L,
				bool moe, double layers)
{
	double t = L->tp, ep = L->ep > 1 ? L->ep : 1, et = layout_etp(L);

	if (!moe || m->moe.experts == 0)
		return layers * tfm_layer_params(m, false) / t;
	double x = tfm_layer_expert_params(m, true);
	return layers * ((tfm_layer_params(m, true) - x) / t + x / (et * ep));
}

/* One layer's forward and backward (with recomputation: selective's
 * attention core and the modules it also redoes, o->recompute_modules). */
static void layer_pass(const struct gpu_spec *g, const struct cmp_shape *sh,
		       const struct par_opts *o, struct cmp_cost *fwd, struct cmp_cost *bwd)
{
	struct cmp_cost extra;

	cmp_layer_fwd(g, sh, fwd);
	cmp_layer_bwd(g, sh, bwd);
	if (o->recompute == PAR_RECOMPUTE_FULL)
		cmp_add(bwd, fwd, 1);
	else if (o->recompute == PAR_RECOMPUTE_SELECTIVE) {
		cmp_attn_recompute(g, sh, &extra);
		cmp_add(bwd, &extra, 1);
		cmp_module_recompute(g, sh, o->recompute_modules, &extra);
		cmp_add(bwd, &extra, 1);
	}
}

/* The GPUs of stage 0's first group of n ranks standing `stride` apart
 * (rank = t + tp d + tp dp k): a CP group is n consecutive DP ranks of TP
 * rank 0 (stride tp); an EP group's ranks stand expert-TP apart (ep_group). */
#define GROUP_MAX 1024
static int rank_subgroup(const int *rank_gpu, int n, int stride, const char *key,
			 int *group, struct err *e)
{
	if (n > GROUP_MAX)
		return err_set(e, ERR_USAGE, "%s: %d ranks in a group (at most %d)",
			       key, n, GROUP_MAX);
	for (int d = 0; d < n; d++)
		group[d] = rank_gpu[stride * d];
	return 0;
}

/*
 * Expert parallelism: an MoE layer dispatches each token's hidden state to
 * its top_k experts and combines the results, two all-to-alls forward and
 * two backward (and two more when full recomputation repeats the forward)
 * among the ep ranks of an EP group (consecutive DP ranks of one TP rank
 * and stage).  Each GPU sends its 1/t share of its s / cp tokens
 * (sequence-parallel split), k copies of h bf16 elements.  Dropless
 * routing (Megatron-Core's default) sends them where the router says:
 * the busiest expert's rank takes in model.moe.imbalance times the mean
 * (an alltoallv, the same as `trainsim collective --imbalance`), the total
 * stays the mean's.  A capacity factor pads every expert's buffer to
 * capacity_factor times the mean: a balanced all-to-all that much larger.
 * Timed alone on the fabric, one group (as the TP collectives are), on
 * the compute stream's critical path: Megatron-Core's all-to-all
 * dispatcher does not overlap it with compute.
 */
double step_ep_bytes(const struct tfm *m, const struct layout *L)
{
	double pad = m->moe.capacity_factor > 0 ? m->moe.capacity_factor : 1;
	double cp = L->cp > 1 ? L->cp : 1;	/* each CP rank holds s / cp tokens */

	return (double)L->micro_batch * m->seq_len / cp / L->tp * m->moe.top_k *
	       m->hidden * 2.0 * pad;
}

double step_ep_skew(const struct tfm *m, int ep)
{
	/* the busiest rank takes at most all of it: an expert's imbalance
	 * beyond ep ranks' worth is one rank receiving everything */
	double f = m->moe.capacity_factor > 0 ? 1 : m->moe.imbalance;
	return f < ep ? f : ep;
}

/* A pass whose TP collectives run beside its GEMMs: only what the GEMMs
 * cannot cover stays exposed, and while they overlap the GEMMs run on the
 * SMs the communication kernels leave: Transformer Engine's userbuffers
 * (transformer_engine/pytorch/module/base.py, initialize_ub's default
 * config, TE 1.x to 2026: get_default_config's num_sm) give the
 * ring-exchange overlaps 1 SM and the pipelined and bulk ones 16.  Forward
 * has two of each (qkv_fprop and fc1_fprop ring-exchange, proj_fprop and
 * fc2_fprop pipelined), a mean of TE_UB_SMS_FWD = 8.5 SMs; backward two
 * ring-exchange (proj_dgrad, fc2_dgrad) and four bulk (qkv_ and fc1_
 * dgrad and wgrad), a mean of TE_UB_SMS_BWD = 11 (8.5 until 2026-12-08,
 * when the backward was taken as the forward).  That many of the GPU's
 * SMs (132 on H100) are lost to the GEMMs for the overlapped time: a GEMM
 * of G seconds overlapped for min(T, G) takes min(T, G) f / (1 - f)
 * longer, f = sms_comm / sms.
 * A lower bound for the TE of 2024: until TE 2.0 (2025-02) set_sm_margin
 * defaulted to 0, so the overlapped GEMMs were launched for all the SMs
 * (comm_gemm_overlap.h of v1.8, 2024-07-24: _math_sms = the SM count
 * without it) and blocks the comm kernels displace run in a later wave;
 * how much later depends on cuBLAS's kernel (a 132-block H100 GEMM beside
 * a 24-block NCCL kernel nearly doubles: NVIDIA developer forum thread
 * 337991), which is not known here, so only the SMs are charged. */
#define TE_UB_SMS_FWD 8.5
#define TE_UB_SMS_BWD 11.0
/* TE's num_splits default for its "pipeline" overlaps (base.py) */
#define UB_RS_SPLITS 4.0

/* How much longer GEMMs overlapped for covered_s run while a communication
 * kernel holds comm_sms of the GPU's SMs. */
static double comm_sms_slow_s(const struct gpu_spec *g, double covered_s, double comm_sms)
{
	double f = g->k.sms > 0 ? comm_sms / g->k.sms : 0;

	return f > 0 && f < 1 ? covered_s * f / (1 - f) : 0;
}

double step_ub_slow_s(const struct gpu_spec *g, double covered_s, bool bwd)
{
	return comm_sms_slow_s(g, covered_s, bwd ? TE_UB_SMS_BWD : TE_UB_SMS_FWD);
}

static void tp_overlap(const struct gpu_spec *g, struct cmp_cost *pass, double *tp_s,
		       bool bwd)
{
	double slow_s = step_ub_slow_s(g, fmin(*tp_s, pass->gemm_s), bwd);

	pass->time_s += slow_s;
	pass->gemm_s += slow_s;
	*tp_s = fmax(0, *tp_s - pass->gemm_s);
}

/* Megatron-LM's asynchronous TP communication in backward (2021-09 on;
 * mpu/layers.py LinearWithGradAccumulationAndAsyncCommunication, main of
 * 2022-05-25, and megatron/core/tensor_parallel/layers.py since): a
 * column-parallel layer (QKV, MLP up, the logits) launches its input
 * gradient's all-reduce -- reduce-scatter with sequence parallelism --
 * before its weight-gradient GEMM and waits after it; with sequence
 * parallelism the all-gather of the saved 1/t input that GEMM needs runs
 * under the data-gradient GEMM.  Each collective is exposed only beyond
 * the GEMM under it.  Meanwhile NCCL's kernel holds one SM per channel
 * (one thread block each), NCCL_TP_CHANNELS of them: NCCL's logs on A100
 * over NVSwitch show "Channel 00/24" (NVIDIA/nccl issue 578, 2021-10;
 * NVIDIA/nccl-tests issue 100, 8 GPUs of an HGX A100), carried to other
 * GPUs.  The recomputed forward's collectives, the row-parallel
 * layers' (the attention projection's and MLP down's all-gathers with
 * sequence parallelism) and the embedding's stay synchronous. */
#define NCCL_TP_CHANNELS 24.0

/*
 * Megatron-Core's combined 1F1B (--overlap-moe-expert-parallel-comm; the
 * pairing DeepSeek-V3's DualPipe introduced, arXiv:2412.19437 sec. 3.2.1,
 * Fig. 4): a forward layer of one microbatch runs beside a backward layer
 * of another, each part on one of two CUDA streams in the order the
 * schedule issues them (NVIDIA/Megatron-LM megatron/core/models/common/
 * model_chunk_schedule_plan.py, TransformerLayerSchedulePlan.run):
 *   communication: combine_bwd  dispatch_fwd  dispatch_bwd  combine_fwd
 *   computation:   attn_fwd  mlp_bwd (dgrad, wgrad)  mlp_fwd  attn_bwd
 * each waiting for what it consumes: mlp_bwd for combine_bwd, dispatch_fwd
 * for attn_fwd, dispatch_bwd for the MLP's dgrad (taken as half its
 * backward), mlp_fwd for dispatch_fwd, combine_fwd for mlp_fwd, attn_bwd
 * for dispatch_bwd; the next pair's combine_bwd for this attn_bwd, its
 * attn_fwd for this combine_fwd.  The steady period of a chain of pairs
 * (max-plus: eight pairs, the last four averaged) less their compute is
 * what the pair exposes.  A part's communication hides only behind the
 * compute the schedule pairs it with: the layer's totals (the law until
 * 2026-12-07) were a lower bound on the exposure.
 */
static double ep_pair_exposed_s(const struct ep_parts *p)
{
	double comm = 0, comp = 0, attn_bwd = 0, combine_fwd = 0, at4 = 0;

	for (int l = 0; l < 8; l++) {
		double cb = comm = fmax(comm, attn_bwd) + p->combine_bwd_s;
		double af = comp = fmax(comp, combine_fwd) + p->attn_fwd_s;
		double dgrad = comp = fmax(comp, cb) + p->mlp_bwd_s / 2;
		comp += p->mlp_bwd_s / 2;
		double df = comm = fmax(comm, af) + p->dispatch_fwd_s;
		double db = comm = fmax(comm, dgrad) + p->dispatch_bwd_s;
		double mf = comp = fmax(comp, df) + p->mlp_fwd_s;
		combine_fwd = comm = fmax(comm, mf) + p->combine_fwd_s;
		attn_bwd = comp = fmax(comp, db) + p->attn_bwd_s;
		if (l == 3)
			at4 = attn_bwd;
	}
	double compute = p->attn_fwd_s + p->mlp_fwd_s + p->attn_bwd_s + p->mlp_bwd_s;
	return fmax(0, (attn_bwd - at4) / 4 - compute);
}

/*
 * What hides the all-to-alls (parallel.ep_overlap), an upper bound on the
 * overlap as TP's is (the transfers' waits are not counted; the SMs they
 * take are, by ep_overlap_slow):
 *   shared_expert (Megatron-Core --moe-shared-expert-overlap): the shared
 *     experts' GEMMs run beside the dispatch and combine of each pass;
 *   dualpipe: the combined 1F1B's pairs (ep_pair_exposed_s), the exposure
 *     shared between the passes in proportion to their all-to-alls.  The
 *     bidirectional schedule itself is parallel.schedule = "dualpipe"
 *     (dualpipe.h); either may be chosen without the other.
 */
void step_ep_overlap(enum layout_ep_overlap ov, const struct ep_parts *p,
		     double *ep_fwd_s, double *ep_bwd_s)
{
	double f = p->dispatch_fwd_s + p->combine_fwd_s;
	double b = p->combine_bwd_s + p->dispatch_bwd_s;

	*ep_fwd_s = f;
	*ep_bwd_s = b;
	if (ov == LAYOUT_EP_OVERLAP_SHARED) {
		*ep_fwd_s = fmax(0, f - p->shared_fwd_s);
		*ep_bwd_s = fmax(0, b - p->shared_bwd_s);
	} else if (ov == LAYOUT_EP_OVERLAP_DUALPIPE && f + b > 0) {
		double left = ep_pair_exposed_s(p);
		*ep_fwd_s = left * f / (f + b);
		*ep_bwd_s = left * b / (f + b);
	}
}

/*
 * An MoE layer's TP collectives: the attention's all-gather and reduce-
 * scatter as a dense layer's (mg_tp_layer), but in place of the MLP's the
 * dispatcher's: with expert TP (etp > 1, sequence parallelism) it gathers
 * over the etp ranks the tokens the EP all-to-all brought before the
 * experts and reduce-scatters their outputs after ("permute->A2A(EP)->
 * AG(TP)", "RS(TP)->A2A(EP)->unpermute": Megatron-Core core_r0.10.0,
 * transformer/moe/token_dispatcher.py, MoEAlltoAllTokenDispatcher), k x
 * (capacity factor) x etp/tp times the tokens of the dense MLP's pair; with
 * etp = 1 there is none.  tp_bytes: the dense pair's buffer.  With TE's TP
 * overlap the layer's exposed TP time stands for the attention's and this
 * pair is all exposed.  Per pass; the result is what to add to the dense
 * layer's TP time (negative when the dispatcher moves less).
 */
static int moe_tp_extra_s(const struct tfm *m, const struct layout *L,
			  const struct par_opts *o, struct net *net, const int *tp_gpus,
			  double tp_bytes, double *t, struct err *e)
{
	double pad = m->moe.capacity_factor > 0 ? m->moe.capacity_factor : 1;
	int et = layout_etp(L);
	double moe_bytes = tp_bytes * m->moe.top_k * pad * et / L->tp;
	double ag = 0, rs = 0, ag0 = 0, rs0 = 0;

	*t = 0;
	if (L->tp <= 1 || !o->sequence_parallel)
		return 0;
	if (tp_coll_s(net, tp_gpus, et, COLL_ALL_GATHER, moe_bytes, &ag, e) < 0 ||
	    tp_coll_s(net, tp_gpus, et, COLL_REDUCE_SCATTER, moe_bytes, &rs, e) < 0)
		return -1;
	if (!o->tp_comm_overlap &&
	    (tp_coll_s(net, tp_gpus, L->tp, COLL_ALL_GATHER, tp_bytes, &ag0, e) < 0 ||
	     tp_coll_s(net, tp_gpus, L->tp, COLL_REDUCE_SCATTER, tp_bytes, &rs0, e) < 0))
		return -1;
	*t = ag + rs - ag0 - rs0;
	return 0;
}

/* The EP group's members on group[0]'s node (local) and one member on each
 * node the group spans, in order of appearance (rail): DeepEP's two legs. */
static void ep_legs(const struct net *net, const int *group, int ep, int *local,
		    int *g, int *rail, int *n_nodes)
{
	int per_node = net_gpus_per_node(net);

	*g = *n_nodes = 0;
	for (int i = 0; i < ep; i++) {
		int node = per_node > 0 ? group[i] / per_node : 0, seen = 0;
		if (node == (per_node > 0 ? group[0] / per_node : 0))
			local[(*g)++] = group[i];
		for (int j = 0; j < *n_nodes && !seen; j++)
			seen = per_node > 0 && rail[j] / per_node == node;
		if (!seen)
			rail[(*n_nodes)++] = group[i];
	}
}

static int a2a_s(struct net *net, const int *gpus, int n, double bytes, double skew,
		 double *t, struct err *e)
{
	struct coll x = { COLL_ALL_TO_ALL, COLL_AUTO, gpus, n, bytes,
			  skew < n ? skew : n };

	*t = n > 1 && bytes > 0 ? net_coll_time_s(net, &x, e) : 0;
	return *t < 0 ? -1 : 0;
}

/*
 * The flex dispatcher's two legs share its SMs (the warps that post RDMA
 * writes and those that forward over NVLink), so they overlap only in
 * part: a dispatch takes the slower leg's time and a share of the other's,
 * fitted to each implementation's own published benchmark, its bandwidths
 * turned into times by its own byte count (tests/step-dispatch-t):
 *   HybridEP: deepseek-ai/DeepEP hybrid-ep branch, docs/README_Hybrid-EP.md
 *     of 2026-05-13, H100, kernel-only times, 4096 tokens of 7168, top 8
 *     of 128 experts drawn uniformly, 16 SMs, BF16 dispatch and combine at
 *     16, 32 and 64 ranks: the six give 0.34-0.64, mean 0.47;
 *   DeepEP: its README (main branch), H800 (NVLink 160 GB/s), its
 *     best-tuned normal kernels at EP 16, 32 and 64, FP8 dispatch and BF16
 *     combine, DeepSeek-V3's routing (256 experts, top 8, at most 4 nodes):
 *     0.13-0.43, mean 0.24.
 * Both are 0.41-0.43 at two nodes; beyond, DeepEP's pipeline hides more.
 * Within one NVLink domain there is one leg, and the law meets HybridEP's
 * kernel times there with nothing fitted (B200, 8 ranks, and GB200, 8-32
 * in an NVL72: within 4%).  Not modelled: what its Python API adds to its
 * kernels, 0.1-0.5 ms a call in the same benchmark, more across nodes.
 */
#define HYBRIDEP_LEG_SERIAL 0.47
#define DEEPEP_LEG_SERIAL 0.24

/*
 * One dispatch (or combine) of elem_bytes per element, its time and the
 * bytes one GPU sends to peers on its node (near) and beyond (far).
 *   alltoall: one all-to-all among the ep ranks of top_k copies of each
 *     token (step_ep_bytes), skewed by the imbalance;
 *   deepep (dispatch.h): an all-to-all among one GPU per node (the rail of
 *     group[0]'s local index) of one copy per destination node, the node's
 *     share of the imbalance on the hot node, beside an all-to-all among the
 *     node's GPUs of one copy per destination GPU, the imbalance on the hot
 *     GPU; pipelined, the slower leg's time and part of the other's
 *     (HYBRIDEP_LEG_SERIAL, DEEPEP_LEG_SERIAL).  Each leg is timed alone on
 *     the fabric, as every collective here is.
 */
static int ep_a2a_s(const struct tfm *m, const struct layout *L, const struct par_opts *o,
		    struct net *net, const int *group, int ep, double elem_bytes,
		    double *t, double *near_bytes, double *far_bytes, struct err *e)
{
	double tokens = step_ep_bytes(m, L) / (m->moe.top_k * m->hidden * 2.0);
	double F = step_ep_skew(m, ep);
	int local[GROUP_MAX], rail[GROUP_MAX], g, N;

	ep_legs(net, group, ep, local, &g, rail, &N);
	if (!o->ep_deepep) {
		double S = step_ep_bytes(m, L) * elem_bytes / 2;
		*near_bytes = S * (g - 1) / ep;
		*far_bytes = S * (ep - g) / ep;
		return a2a_s(net, group, ep, S, F, t, e);
	}
	double d_node = disp_distinct(&m->moe, N), d_gpu = disp_distinct(&m->moe, ep);
	if (d_node < 0 || d_gpu < 0)
		return err_set(e, ERR_USAGE, "model.moe.groups: %d expert groups do not "
			       "nest with the EP group's %d nodes and %d GPUs", m->moe.groups,
			       N, ep);
	double S_node = tokens * d_node * m->hidden * elem_bytes;
	double S_gpu = tokens * d_gpu * m->hidden * elem_bytes;
	double t_far, t_near;
	if (a2a_s(net, rail, N, S_node, 1 + (F - 1) / g, &t_far, e) < 0 ||
	    a2a_s(net, local, g, S_gpu, F, &t_near, e) < 0)
		return -1;
	double serial = o->ep_hybridep ? HYBRIDEP_LEG_SERIAL : DEEPEP_LEG_SERIAL;
	*t = fmax(t_far, t_near) + serial * fmin(t_far, t_near);
	*near_bytes = S_gpu * (g - 1) / g;
	*far_bytes = S_node * (N - 1) / N;
	return 0;
}

/*
 * While an all-to-all runs beside the MoE layer's compute, its kernel holds
 * SMs the GEMMs then lack (as TP's overlap does, comm_sms_slow_s): DeepEP's
 * flex dispatcher's kernels take parallel.ep_dispatcher_sms -- by default
 * 20, of H800's 132 enough to saturate IB and NVLink, and giving them to
 * communication limits the compute's throughput (DeepSeek-V3 report,
 * arXiv:2412.19437, sec. 3.2.2 and 3.5.1; deepseek-ai/DeepEP's
 * Buffer.num_sms and Megatron-Core's moe_deepep_num_sms default to 20);
 * NCCL's all-to-all one SM per channel, the NCCL_TP_CHANNELS of the TP
 * collectives (an assumption carried from its ring logs).  Charged on the
 * time hidden, forward and backward alike.
 */
static void ep_overlap_slow(const struct gpu_spec *g, const struct par_opts *o,
			    double hidden_fwd_s, double hidden_bwd_s, struct layer_costs *c)
{
	double sms = o->ep_deepep ? o->ep_sms : NCCL_TP_CHANNELS;
	double f = comm_sms_slow_s(g, hidden_fwd_s, sms);
	double b = comm_sms_slow_s(g, hidden_bwd_s, sms);

	c->moe_fwd.time_s += f;
	c->moe_fwd.gemm_s += f;
	c->moe_bwd.time_s += b;
	c->moe_bwd.gemm_s += b;
}

/*
 * HybridEP's metadata preprocessing, before each dispatch: every rank's
 * routing map (a bool per token and expert) all-gathered over the EP
 * group -- NCCL's all_gather_into_tensor when the group spans nodes, a
 * 32-SM copy kernel over NVLink within one, timed here as NCCL's -- then
 * scanned for where each token goes (deepseek-ai/DeepEP, hybrid-ep
 * branch, csrc/hybrid_ep/executor/executor.cu: allgather_routing_map and
 * metadata_preprocess_core; the scan priced as one read of the gathered
 * map).  The combine and the backward reuse the handle it builds.
 * DeepEP's normal kernels exchange per-rank counts only.
 */
static int hybridep_meta_s(const struct tfm *m, const struct layout *L,
			   const struct gpu_spec *g, struct net *net, const int *group,
			   int ep, double *t, struct err *e)
{
	double tokens = step_ep_bytes(m, L) / (m->moe.top_k * m->hidden * 2.0);
	double all_maps = tokens * m->moe.experts * ep;
	struct coll x = { COLL_ALL_GATHER, COLL_AUTO, group, ep, all_maps, 0 };
	double ag_s = net_coll_time_s(net, &x, e);

	if (ag_s < 0)
		return -1;
	*t = ag_s + kern_stream_s(&g->k, KS_COPY, all_maps);
	return 0;
}

int step_layer_ep_s(const struct tfm *m, const struct layout *L,
		    const struct par_opts *o, struct net *net, const struct gpu_spec *g,
		    const int *rank_gpu, double *dispatch_s, double *combine_s,
		    double *meta_s, struct err *e)
{
	int ep = layout_ep_group(L), group[GROUP_MAX];
	double near, far;

	*dispatch_s = *combine_s = *meta_s = 0;
	if (m->moe.experts == 0 || ep <= 1)
		return 0;
	if (rank_subgroup(rank_gpu, ep, layout_etp(L), "parallel.ep", group, e) < 0 ||
	    ep_a2a_s(m, L, o, net, group, ep, o->ep_fp8_dispatch ? DISP_FP8_BYTES : 2,
		     dispatch_s, &near, &far, e) < 0 ||
	    ep_a2a_s(m, L, o, net, group, ep, 2, combine_s, &near, &far, e) < 0)
		return -1;
	return o->ep_hybridep ? hybridep_meta_s(m, L, g, net, group, ep, meta_s, e) : 0;
}

/* Each pass's second half (compute.h cmp_mlp_half), an MoE layer's
 * routed part: what cgraph.h splits a pass's kernels by, and
 * the combined 1F1B pairs an MoE layer's parts by (ep_layer_s). */
struct halves {
	struct cmp_cost f, b, moe_f, moe_b, routed_f, routed_b;
};

static int ep_layer_s(const struct tfm *m, const struct layout *L,
		      const struct par_opts *o, const struct gpu_spec *g, struct net *net,
		      const int *rank_gpu, double tp_bytes, const struct halves *hv,
		      struct layer_costs *c, struct err *e)
{
	int ep = layout_ep_group(L);
	int group[GROUP_MAX], passes = par_moe_recomputed(o) ? 2 : 1;
	double extra, t_disp, t_comb, t_meta = 0, near_d, far_d, near_c, far_c;

	c->ep_fwd_s = c->ep_bwd_s = c->ep_near_bytes = c->ep_far_bytes = 0;
	c->moe_tp_fwd_s = c->tp_fwd_s;
	c->moe_tp_bwd_s = c->tp_bwd_s;
	if (m->moe.experts == 0)
		return 0;
	if (moe_tp_extra_s(m, L, o, net, rank_gpu, tp_bytes, &extra, e) < 0)
		return -1;
	c->moe_tp_fwd_s = fmax(0, c->tp_fwd_s + extra);
	c->moe_tp_bwd_s = fmax(0, c->tp_bwd_s + passes * extra);
	if (ep <= 1)
		return 0;
	/* Megatron-Core's expert rank grid runs expert TP fastest, then EP
	 * (parallel_state.py, order tp-cp-ep-dp-pp with the expert TP in tp's
	 * place and cp 1): an EP group's ranks stand etp apart */
	if (rank_subgroup(rank_gpu, ep, layout_etp(L), "parallel.ep", group, e) < 0)
		return -1;
	/* forward: dispatch, combine; backward: the combine's gradient goes
	 * the dispatch's way (FP8 with DeepSeek-V3's, before the experts'
	 * down-projection), the dispatch's comes back the combine's (bf16) */
	if (ep_a2a_s(m, L, o, net, group, ep, o->ep_fp8_dispatch ? DISP_FP8_BYTES : 2,
		     &t_disp, &near_d, &far_d, e) < 0 ||
	    ep_a2a_s(m, L, o, net, group, ep, 2, &t_comb, &near_c, &far_c, e) < 0 ||
	    (o->ep_hybridep && hybridep_meta_s(m, L, g, net, group, ep, &t_meta, e) < 0))
		return -1;
	c->ep_near_bytes = near_d + near_c;
	c->ep_far_bytes = far_d + far_c;
	/* a recomputed layer dispatches afresh: its preprocessing again */
	struct ep_parts p = {
		.shared_fwd_s = c->shared_fwd_s, .shared_bwd_s = c->shared_bwd_s,
		.mlp_fwd_s = fmin(hv->moe_f.time_s, c->moe_fwd.time_s),
		.mlp_bwd_s = fmin(hv->moe_b.time_s, c->moe_bwd.time_s),
		.dispatch_fwd_s = t_disp + t_meta, .combine_fwd_s = t_comb,
		.combine_bwd_s = passes * t_disp + (passes - 1) * t_meta,
		.dispatch_bwd_s = passes * t_comb,
	};
	p.attn_fwd_s = c->moe_fwd.time_s - p.mlp_fwd_s;
	p.attn_bwd_s = c->moe_bwd.time_s - p.mlp_bwd_s;
	double all_fwd_s = p.dispatch_fwd_s + p.combine_fwd_s;
	double all_bwd_s = p.combine_bwd_s + p.dispatch_bwd_s;
	step_ep_overlap(L->ep_overlap, &p, &c->ep_fwd_s, &c->ep_bwd_s);
	ep_overlap_slow(g, o, all_fwd_s - c->ep_fwd_s, all_bwd_s - c->ep_bwd_s, c);
	return 0;
}

/*
 * Context parallelism, per layer and microbatch, among the cp ranks of a CP
 * group (consecutive DP ranks of one TP rank and stage):
 *   ring attention (Liu et al. 2023, Megatron-Core's default): each rank
 *   passes its K and V block (b s/cp of the TP rank's key/value heads) to
 *   its ring neighbour cp-1 times forward; backward passes them again with
 *   their gradients (2(cp-1) blocks).  The transfers run beside the
 *   attention core's blocks: only what exceeds the core's time is exposed.
 *   all-gather (Llama 3, arXiv:2407.21783 sec. 3.3.2): the K and V blocks
 *   all-gathered before the core (forward, and again in backward), their
 *   gradients reduce-scattered after it; not overlapped.
 *   Ulysses (Jacobs et al. 2023): all-to-alls of Q, K, V before the core
 *   and of its output after, each rank's b s/cp share of them, forward and
 *   backward, not overlapped.
 * Full recomputation repeats the forward's exchange in backward.  Timed
 * alone on the fabric, one group, on the compute stream's critical path.
 */
double step_cp_block_bytes(const struct tfm *m, const struct layout *L)
{
	double tok = (double)L->micro_batch * m->seq_len / (L->cp > 1 ? L->cp : 1) / L->tp;
	double kv = m->mla.kv_lora_rank > 0 ? m->heads : m->kv_heads;

	return 2.0 * tok * kv * (tfm_qk_head_dim(m) + tfm_v_head_dim(m));
}

static int cp_layer_s(const struct tfm *m, const struct layout *L,
		      const struct par_opts *o, const struct gpu_spec *g,
		      const struct cmp_shape *sh, struct net *net, const int *rank_gpu,
		      struct layer_costs *c, struct err *e)
{
	int cp = L->cp < L->dp ? L->cp : L->dp;
	bool full = o->recompute == PAR_RECOMPUTE_FULL;
	double tok = (double)L->micro_batch * m->seq_len / (cp > 1 ? cp : 1) / L->tp;
	double a = m->heads, dqk = tfm_qk_head_dim(m), dv = tfm_v_head_dim(m);
	double kv = m->mla.kv_lora_rank > 0 ? a : m->kv_heads;

	c->cp_fwd_s = c->cp_bwd_s = c->cp_bytes = 0;
	if (cp <= 1)
		return 0;
	if (L->cp_all_gather) {
		/* all-gather the cp blocks before the core, reduce-scatter
		 * their gradients after its backward: not overlapped */
		double block = step_cp_block_bytes(m, L);
		int group[GROUP_MAX];
		if (rank_subgroup(rank_gpu, cp, L->tp, "parallel.cp", group, e) < 0)
			return -1;
		struct coll ag = { COLL_ALL_GATHER, COLL_AUTO, group, cp, cp * block, 0 };
		struct coll rs = { COLL_REDUCE_SCATTER, COLL_AUTO, group, cp, cp * block, 0 };
		double t_ag = net_coll_time_s(net, &ag, e);
		double t_rs = t_ag < 0 ? -1 : net_coll_time_s(net, &rs, e);
		if (t_rs < 0)
			return -1;
		c->cp_fwd_s = t_ag;
		c->cp_bwd_s = t_ag + t_rs + (full ? t_ag : 0);
		c->cp_bytes = (full ? 4 : 3) * (cp - 1) * block;
		return 0;
	}
	if (!L->cp_ulysses) {
		double block = step_cp_block_bytes(m, L);
		int pair[2] = { rank_gpu[0], rank_gpu[L->tp] };
		struct coll x = { COLL_SENDRECV, COLL_AUTO, pair, 2, (cp - 1) * block, 0 };
		double t = net_coll_time_s(net, &x, e);
		if (t < 0)
			return -1;
		double f = fmax(0, t - cmp_attn_core_s(g, sh, false));
		double b = fmax(0, 2 * t - cmp_attn_core_s(g, sh, true));
		c->cp_fwd_s = f;
		c->cp_bwd_s = b + (full ? f : 0);
		c->cp_bytes = (full ? 4 : 3) * (cp - 1) * block;
		return 0;
	}
	int group[GROUP_MAX];
	if (rank_subgroup(rank_gpu, cp, L->tp, "parallel.cp", group, e) < 0)
		return -1;
	double bytes[4] = { 2.0 * tok * a * dqk, 2.0 * tok * kv * dqk,
			    2.0 * tok * kv * dv, 2.0 * tok * a * dv };
	double t = 0;
	for (int i = 0; i < 4; i++) {
		struct coll x = { COLL_ALL_TO_ALL, COLL_AUTO, group, cp, bytes[i], 0 };
		double ti = net_coll_time_s(net, &x, e);
		if (ti < 0)
			return -1;
		t += ti;
		c->cp_bytes += bytes[i] * (cp - 1) / cp * (full ? 3 : 2);
	}
	c->cp_fwd_s = t;
	c->cp_bwd_s = (full ? 2 : 1) * t;
	return 0;
}


/* One collective of comm_s under a GEMM of gemm_s: what it hides, and the
 * GEMM's slowdown added to pass. */
static double async_hidden_s(const struct gpu_spec *g, double comm_s, double gemm_s,
			     struct cmp_cost *pass)
{
	double hidden = fmin(comm_s, gemm_s);
	double slow = comm_sms_slow_s(g, hidden, NCCL_TP_CHANNELS);

	pass->time_s += slow;
	pass->gemm_s += slow;
	return hidden;
}

/* The per-layer and logits' effect; the GEMMs are priced as compute.c
 * prices the backward's (the forward's shape), QKV of (a + 2 kv) d / t
 * outputs (latent attention's up projections are not taken: no overlap
 * on that side), the MLP up of f / t (2 f / t gated).  MoE layers expose
 * what the dense ones do (their GEMMs, longer, hide at least as much) and
 * lose the same SMs. */
static int tp_async(const struct tfm *m, const struct par_opts *o,
		    const struct gpu_spec *g, const struct cmp_shape *sh, struct net *net,
		    const int *tp_gpus, double coll_bytes, struct layer_costs *c,
		    struct err *e)
{
	double T = sh->b * sh->s / (sh->cp > 1 ? sh->cp : 1), t = sh->tp;
	double kv = sh->kv > 0 ? sh->kv : sh->a, dqk = sh->dqk > 0 ? sh->dqk : sh->h / sh->a;
	double f = sh->f > 0 ? sh->f : 4 * sh->h;
	double width[2] = { sh->kv_lora > 0 ? 0 : (sh->a + 2 * kv) * dqk / t,
			    (sh->gated ? 2 : 1) * f / t };
	double dx_s, ag_s = 0;
	struct cmp_cost gm, slow;

	if (tp_coll_s(net, tp_gpus, sh->tp, o->sequence_parallel ? COLL_REDUCE_SCATTER :
		      COLL_ALL_REDUCE, coll_bytes, &dx_s, e) < 0 ||
	    (o->sequence_parallel &&
	     tp_coll_s(net, tp_gpus, sh->tp, COLL_ALL_GATHER, coll_bytes, &ag_s, e) < 0))
		return -1;
	cmp_zero(&slow);
	for (int i = 0; i < 2; i++) {
		if (width[i] <= 0)
			continue;
		cmp_te_gemm(g, sh, 1, T, width[i], sh->h, &gm);
		c->tp_bwd_s -= async_hidden_s(g, dx_s, gm.time_s, &slow);
		/* the re-gathered input, new here: only its excess shows */
		c->tp_bwd_s += ag_s - async_hidden_s(g, ag_s, gm.time_s, &slow);
	}
	cmp_add(&c->bwd, &slow, 1);
	if (m->moe.experts > 0)
		cmp_add(&c->moe_bwd, &slow, 1);
	else
		c->moe_bwd = c->bwd;
	cmp_gemm(g, false, 1, T, sh->V / t, sh->h, &gm);	/* bf16: compute.c */
	c->tp_log_s -= async_hidden_s(g, c->tp_log_s, gm.time_s, &c->log_b);
	return 0;
}

/* Weight gradients into their accumulator, every backward pass: Megatron's
 * fp32 main_grad or DeepSpeed's engine's (compute.h CMP_ACCUM_*), or under
 * torch.autocast the cast back to the fp32 parameter's .grad and the
 * in-place add (eager.h; the casts only where whole weights were cast, not
 * under ZeRO/FSDP sharding).  tensors: the weight matrices holding params. */
static void grad_accum(const struct gpu_spec *g, const struct par_opts *o,
		       const struct layout *L, double params, double tensors,
		       bool cast, struct cmp_cost *out)
{
	if (o->amp_fp32_weights)	/* ZeRO-2/3 (FSDP) add into the shard */
		eager_grad_accum(g, o->zero_stage >= 2 ? params / par_shard_ranks(o, L->dp) :
				 params, tensors, cast && o->zero_stage == 0,
				 L->microbatches, out);
	else if (o->ds_engine)
		cmp_grad_accum(g, params, o->dtype == PAR_FP16 ? CMP_ACCUM_HALF :
				       CMP_ACCUM_UPCAST, out);
	else
		cmp_grad_accum(g, params, o->grad_accum_fusion ? CMP_ACCUM_FUSED :
				       CMP_ACCUM_MAIN_GRAD, out);
}

/* FSDP's per-microbatch upcast and divides of a unit's unsharded gradient
 * of params (eager.h), added to the backward pass it follows: under the AMP
 * loop with ZeRO-2/3 (FSDP SHARD_GRAD_OP / FULL_SHARD) over dp ranks. */
static void fsdp_grad(const struct gpu_spec *g, const struct par_opts *o,
		      const struct layout *L, double params, struct cmp_cost *pass)
{
	struct cmp_cost c;

	if (!o->amp_fp32_weights || o->zero_stage < 2)
		return;
	eager_fsdp_grad(g, params, par_shard_ranks(o, L->dp), o->zero_reduce_fp32, &c);
	cmp_add(pass, &c, 1);
}

/* A layer's parameter tensors: a GPT layer's four weight matrices, their
 * biases and its two norms' scale (and shift with LayerNorm); MoE and MLA
 * layers are counted as GPT's. */
double step_layer_tensors(const struct tfm *m)
{
	double norm = m->norm == TFM_LAYERNORM ? 2 : 1;

	return STEP_LAYER_WEIGHTS * (m->bias ? 2 : 1) + 2 * norm;
}

/* Autocast's per-microbatch cast of the fp32 weights a pass's GEMMs use
 * (eager.h), added to the pass; not with ZeRO/FSDP, whose mixed precision
 * casts the shard. */
static void weight_cast(const struct gpu_spec *g, const struct par_opts *o,
			double params, double tensors, struct cmp_cost *pass)
{
	struct cmp_cost c;

	if (!o->amp_fp32_weights || o->zero_stage > 0)
		return;
	eager_weight_cast(g, params, tensors, &c);
	cmp_add(pass, &c, 1);
}

/* A layer's autocast passes over fp32 parameters (eager.h), without
 * ZeRO/FSDP (whose mixed precision holds bf16 weights, so the stream is
 * bf16): the weight casts and the fp32 residual stream, again in backward
 * when full recomputation reruns the forward. */
static void amp_layer(const struct gpu_spec *g, const struct par_opts *o,
		      const struct cmp_shape *sh, double params, struct cmp_cost *fwd,
		      struct cmp_cost *bwd)
{
	struct cmp_cost xf, xb;
	double cp = sh->cp > 0 ? sh->cp : 1;

	if (!o->amp_fp32_weights || o->zero_stage > 0)
		return;
	eager_fp32_stream(g, sh->b * sh->s / cp * sh->h / (sh->sp ? sh->tp : 1), &xf, &xb);
	weight_cast(g, o, params, STEP_LAYER_WEIGHTS, &xf);
	cmp_add(fwd, &xf, 1);
	cmp_add(bwd, &xb, 1);
	if (o->recompute == PAR_RECOMPUTE_FULL)
		cmp_add(bwd, &xf, 1);
}

/*
 * A dropless MoE layer does not know how many tokens each expert gets
 * until its router has run, and its dispatcher needs those counts on the
 * host: the all-to-all's split sizes and the grouped GEMM's m_splits are
 * Python integers.  Megatron-Core copies them device to host and
 * synchronizes once per MoE layer forward (token_dispatcher.py,
 * _maybe_dtoh_and_synchronize, cuda_sync_point "before_ep_alltoall" with
 * EP, "before_finish" without; core_v0.15), DeepEP's normal dispatch waits
 * on the host for its receive counts, HybridEP sizes its buffers from
 * them.  Padding each expert to its capacity (a capacity factor:
 * Megatron-Bridge's token-drop recipes set moe_pad_expert_input_to_capacity,
 * training/utils/moe_token_drop.py) fixes the shapes and needs no sync.
 */
static bool moe_host_sync(const struct tfm *m)
{
	return m->moe.experts > 0 && m->moe.capacity_factor <= 0;
}

/* A pass's kernels, and its library-loop launches, as the host issues
 * them once the scope's graphs replay their parts (cgraph.h). */
static void issue(unsigned scope, struct cmp_cost *pass, const struct cmp_cost *second,
		  const struct cmp_cost *routed)
{
	double lib = cg_issued_lib_kernels(scope, pass, second, routed);

	pass->kernels = cg_issued_kernels(scope, pass, second, routed);
	pass->lib_kernels = fmin(lib, pass->kernels);
}

/* The kernels the host issues per pass once the scenario's CUDA graphs
 * replay their parts (cgraph.h): a layer pass by its halves, the
 * embedding's and the loss's only under a whole-step graph. */
static void graph_launches(const struct par_opts *o, const struct tfm *m,
			   const struct halves *hv, struct layer_costs *c)
{
	unsigned scope = o->cuda_graph_scope;
	struct cmp_cost none = { 0 };

	if (scope == 0)
		return;
	issue(scope, &c->fwd, &hv->f, &none);
	issue(scope, &c->bwd, &hv->b, &none);
	if (m->moe.experts > 0) {
		issue(scope, &c->moe_fwd, &hv->moe_f, &hv->routed_f);
		issue(scope, &c->moe_bwd, &hv->moe_b, &hv->routed_b);
	} else {
		c->moe_fwd.kernels = c->fwd.kernels;
		c->moe_fwd.lib_kernels = c->fwd.lib_kernels;
		c->moe_bwd.kernels = c->bwd.kernels;
		c->moe_bwd.lib_kernels = c->bwd.lib_kernels;
	}
	if (scope & CG_FULL) {
		struct cmp_cost *outer[] = { &c->emb_f, &c->emb_b, &c->log_f, &c->log_b };
		for (size_t i = 0; i < sizeof outer / sizeof outer[0]; i++)
			outer[i]->kernels = outer[i]->lib_kernels = 0;
	}
}

/* The kernel shape of the model's dense (moe: MoE) layers on one rank,
 * with the run's kernels and dispatcher (compute.h). */
static void layer_shape(const struct tfm *m, const struct layout *L,
			const struct par_opts *o, double peak, bool moe,
			struct cmp_shape *sh)
{
	step_layer_shape(m, L->micro_batch, L->tp, L->ep, layout_etp(L), o->sequence_parallel,
			 o->flash_attention, peak, moe, sh);
	sh->attn = o->attention_kernel;
	sh->fused = o->fused_kernels;
	sh->fp32_logits = o->fp32_logits;
	sh->loss = o->loss;
	sh->metric_ce = o->metric_ce;
	sh->fp8 = o->dtype == PAR_FP8;
	sh->fp8_scaling = o->fp8_recipe;
	sh->fp4_no_rht = !o->nvfp4_hadamard;
	sh->cp = L->cp;
	sh->cp_ring = L->cp > 1 && !L->cp_ulysses && !L->cp_all_gather;
	if (!moe)
		return;
	sh->per_expert_gemms = !o->moe_grouped_gemm;
	sh->ep_sort = !o->ep_deepep;
	sh->ep_fused_permute = o->ep_permute_fused;
	sh->moe_eager_act = o->fused_kernels && !o->moe_act_fused;
	sh->moe_pad_copies = sh->fp8 && !o->moe_router_padding && !o->ep_hybridep;
}

/* How near the host's issue rate is to setting a pass's time: the largest
 * of host issue time over GPU time among the first n passes (the layer's
 * forward and backward, dense and MoE), taken before host_bound. */
static double layer_host_frac(struct cmp_cost *const *passes, size_t n,
			      const struct host_cost *hc)
{
	double frac = 0;

	for (size_t i = 0; i < n; i++)
		if (passes[i]->time_s > 0)
			frac = fmax(frac, host_issue_s(passes[i]->kernels,
						       passes[i]->lib_kernels, hc) /
					  passes[i]->time_s);
	return frac;
}

int step_layer_costs(const struct tfm *m, const struct layout *L,
		       const struct par_opts *o, const struct gpu_spec *g,
		       double peak, struct net *net, const int *tp_gpus,
		       struct layer_costs *c, struct err *e)
{
	struct cmp_shape sh;
	bool full = o->recompute == PAR_RECOMPUTE_FULL;
	bool sync = moe_host_sync(m);
	struct cmp_cost extra;
	struct halves hv = { 0 };
	struct mg_tp x;

	layer_shape(m, L, o, peak, false, &sh);
	layer_pass(g, &sh, o, &c->fwd, &c->bwd);
	cmp_mlp_half(g, &sh, false, &hv.f);
	cmp_mlp_half(g, &sh, true, &hv.b);
	if (m->moe.experts > 0) {
		struct cmp_shape xs;
		layer_shape(m, L, o, peak, true, &xs);
		layer_pass(g, &xs, o, &c->moe_fwd, &c->moe_bwd);
		cmp_moe_routed_fwd(g, &xs, &hv.routed_f);
		cmp_moe_routed_bwd(g, &xs, &hv.routed_b);
		cmp_mlp_half(g, &xs, false, &hv.moe_f);
		cmp_mlp_half(g, &xs, true, &hv.moe_b);
		/* the shared experts' part: the layer's time less its time
		 * without them */
		struct cmp_cost nf, nb;
		xs.shared = 0;
		layer_pass(g, &xs, o, &nf, &nb);
		c->shared_fwd_s = c->moe_fwd.time_s - nf.time_s;
		c->shared_bwd_s = c->moe_bwd.time_s - nb.time_s;
	} else {
		c->shared_fwd_s = c->shared_bwd_s = 0;
		c->moe_fwd = c->fwd;
		c->moe_bwd = c->bwd;
	}
	cmp_embed_fwd(g, &sh, &c->emb_f);
	cmp_embed_bwd(g, &sh, &c->emb_b);
	cmp_logits_fwd(g, &sh, &c->log_f);
	cmp_logits_bwd(g, &sh, &c->log_b);
	/* weight gradients accumulate over microbatches every backward pass */
	double h = m->hidden, t = L->tp, vocab_params = (double)m->vocab * h / t;
	double dense_p = step_layer_rank_params(m, L, false, 1);
	double moe_p = step_layer_rank_params(m, L, true, 1);
	amp_layer(g, o, &sh, dense_p, &c->fwd, &c->bwd);
	grad_accum(g, o, L, dense_p, STEP_LAYER_WEIGHTS, true, &extra);
	cmp_add(&c->bwd, &extra, 1);
	if (m->moe.experts > 0) {
		amp_layer(g, o, &sh, moe_p, &c->moe_fwd, &c->moe_bwd);
		grad_accum(g, o, L, moe_p, STEP_LAYER_WEIGHTS, true, &extra);
		cmp_add(&c->moe_bwd, &extra, 1);
	} else {
		c->moe_fwd = c->fwd;
		c->moe_bwd = c->bwd;
	}
	/* the embedding's lookup is not autocast: its gradient is fp32 */
	grad_accum(g, o, L, vocab_params + (m->learned_positions ?
		   (double)m->seq_len * h : 0), 1, false, &extra);
	cmp_add(&c->emb_b, &extra, 1);
	/* FSDP's work on each unit's unsharded gradient: a unit per layer,
	 * the root (embeddings, head, final norm) with the embedding's */
	fsdp_grad(g, o, L, dense_p, &c->bwd);
	if (m->moe.experts > 0)
		fsdp_grad(g, o, L, moe_p, &c->moe_bwd);
	fsdp_grad(g, o, L, vocab_params + (double)tfm_head_params(m) / t +
		  (m->learned_positions ? (double)m->seq_len * h : 0), &c->emb_b);
	weight_cast(g, o, vocab_params, 1, &c->log_f);
	grad_accum(g, o, L, vocab_params, 1, true, &extra);
	cmp_add(&c->log_b, &extra, 1);
	/* every pass waits for the host to launch its kernels (host.h), but
	 * those of its parts replayed as CUDA graphs (cgraph.h); a dropless
	 * MoE layer's forward in two parts around its sync, once its
	 * all-to-alls are known (below: they run in the second part) */
	struct cmp_cost *passes[] = { &c->fwd, &c->bwd, &c->moe_fwd, &c->moe_bwd,
				      &c->emb_f, &c->emb_b, &c->log_f, &c->log_b };
	graph_launches(o, m, &hv, c);
	struct host_cost hc = { o->host_s_per_kernel, o->host_s_per_launch };
	/* over the passes the model runs (passes[]: dense fwd, bwd, then MoE
	 * fwd, bwd): an MoE model's dense pair only where it has dense layers
	 * (moe.dense_layers); a dense model's MoE pair is a copy of its own */
	bool has_dense = m->moe.experts <= 0 || m->moe.dense_layers > 0;
	c->host_frac = layer_host_frac(passes + (has_dense ? 0 : 2),
				       has_dense ? 4 : 2, &hc);
	for (size_t i = 0; i < sizeof passes / sizeof passes[0]; i++)
		if (passes[i] != &c->moe_fwd || !sync || o->launch_blocking)
			host_bound(passes[i], &hc, o->launch_blocking);

	double s_local = sh.s / (L->cp > 1 ? L->cp : 1);
	mg_tp_layer(s_local, sh.b, sh.h, sh.sp, false, full, &x);
	if (tp_layer_s(net, tp_gpus, L->tp, &x, &c->tp_fwd_s, e) < 0)
		return -1;
	mg_tp_layer(s_local, sh.b, sh.h, sh.sp, true, full, &x);
	if (tp_layer_s(net, tp_gpus, L->tp, &x, &c->tp_bwd_s, e) < 0)
		return -1;
	/* Transformer Engine's TP-communication overlap (Megatron-Core
	 * --tp-comm-overlap, with sequence parallelism): the all-gathers and
	 * reduce-scatters are cut into chunks pipelined with the GEMMs they
	 * feed and drain, so a layer exposes only what its GEMMs cannot cover
	 * (an upper bound on the overlap: the chunks' waits for their data are
	 * not counted); the GEMMs run as chunks (cmp_ub_splits) */
	if (o->tp_comm_overlap && o->sequence_parallel) {
		/* MoE layers lose the same SMs while overlapped; their exposed
		 * TP time is taken as the dense layers' (their GEMMs, longer,
		 * would hide at least as much) */
		double tf = c->tp_fwd_s, tb = c->tp_bwd_s;
		struct cmp_cost uf, ub;
		cmp_ub_splits(g, &sh, false, &uf);
		cmp_ub_splits(g, &sh, true, &ub);
		cmp_add(&c->fwd, &uf, 1);
		cmp_add(&c->bwd, &ub, 1);
		if (o->recompute == PAR_RECOMPUTE_FULL)
			cmp_add(&c->bwd, &uf, 1);	/* the forward again */
		tp_overlap(g, &c->fwd, &c->tp_fwd_s, false);
		tp_overlap(g, &c->bwd, &c->tp_bwd_s, true);
		/* The pipelined reduce-scatters (proj_fprop, fc2_fprop) send
		 * each chunk's partial sums while the next chunk's GEMM runs;
		 * the last chunk's goes after the last GEMM, with nothing to
		 * hide it, and the layer waits for it (TE v1.8
		 * split_overlap_rs: stream_main waits on _stop_comm): 1/4 of
		 * each reduce-scatter exposed, forward (and its recomputation) */
		double rs, tail;
		if (tp_coll_s(net, tp_gpus, L->tp, COLL_REDUCE_SCATTER, x.bytes, &rs, e) < 0)
			return -1;
		tail = rs / UB_RS_SPLITS;
		c->tp_fwd_s += 2 * tail;
		c->tp_bwd_s += full ? 2 * tail : 0;
		if (m->moe.experts > 0) {
			/* an MoE layer's attention is split alike */
			struct cmp_shape xs = sh;
			xs.experts = m->moe.experts;
			cmp_ub_splits(g, &xs, false, &uf);
			cmp_ub_splits(g, &xs, true, &ub);
			cmp_add(&c->moe_fwd, &uf, 1);
			cmp_add(&c->moe_bwd, &ub, 1);
			if (o->recompute == PAR_RECOMPUTE_FULL)
				cmp_add(&c->moe_bwd, &uf, 1);
			tp_overlap(g, &c->moe_fwd, &tf, false);
			tp_overlap(g, &c->moe_bwd, &tb, true);
		} else {
			c->moe_fwd = c->fwd;
			c->moe_bwd = c->bwd;
		}
	}
	if (cp_layer_s(m, L, o, g, &sh, net, tp_gpus, c, e) < 0)
		return -1;
	/* vocab-parallel embedding: one all-reduce forward; the column-
	 * parallel logits: one all-reduce of dX backward */
	if (tp_coll_s(net, tp_gpus, L->tp, COLL_ALL_REDUCE, x.bytes, &c->tp_emb_s, e) < 0)
		return -1;
	c->tp_log_s = c->tp_emb_s;
	if (o->tp_async_allreduce && !(o->tp_comm_overlap && o->sequence_parallel) &&
	    L->tp > 1 && tp_async(m, o, g, &sh, net, tp_gpus, x.bytes, c, e) < 0)
		return -1;
	/* MoE layers last: their TP time starts from the dense layer's */
	if (ep_layer_s(m, L, o, g, net, tp_gpus, x.bytes, &hv, c, e) < 0)
		return -1;
	if (sync && !o->launch_blocking)
		host_sync_bound(&c->moe_fwd, &hv.routed_f, c->ep_fwd_s, &hc);
	return 0;
}

int step_layer_moe_block(const struct tfm *m, const struct layout *L,
			 const struct par_opts *o, const struct gpu_spec *g,
			 double peak, struct net *net, const int *rank_gpu,
			 double *fwd_s, double *bwd_s, struct err *e)
{
	struct layer_costs c;
	struct cmp_shape xs;
	struct cmp_cost f, b, tail;
	struct host_cost hc = { o->host_s_per_kernel, o->host_s_per_launch };

	*fwd_s = *bwd_s = 0;
	if (m->moe.experts == 0)
		return 0;
	if (step_layer_costs(m, L, o, g, peak, net, rank_gpu, &c, e) < 0)
		return -1;
	layer_shape(m, L, o, peak, true, &xs);
	cmp_moe_mlp(g, &xs, false, &f);
	cmp_moe_mlp(g, &xs, true, &b);
	cmp_moe_routed_fwd(g, &xs, &tail);
	if (moe_host_sync(m))
		*fwd_s = f.time_s - tail.time_s +
			 fmax(tail.time_s + c.ep_fwd_s,
			      host_issue_s(tail.kernels, tail.lib_kernels, &hc));
	else
		*fwd_s = f.time_s + c.ep_fwd_s;
	*bwd_s = fmax(b.time_s + c.ep_bwd_s, host_issue_s(b.kernels, b.lib_kernels, &hc));
	return 0;
}
