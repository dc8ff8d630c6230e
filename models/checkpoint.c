/* checkpoint.c -- see checkpoint.h. */
#include <math.h>
#include <string.h>

#include "models/checkpoint.h"

const struct cfg_setting ckpt_settings[] = {
	{ "training.checkpoint.enabled", CFG_BOOL, "", 0, 0, "true", NULL,
	  "write periodic checkpoints" },
	{ "training.checkpoint.policy", CFG_ENUM, "", 0, 0, "time", "time|iterations|young|daly",
	  "interval: fixed training time, fixed iterations, Young's or Daly's optimum" },
	{ "training.checkpoint.interval_s", CFG_FLOAT, "s", 1e-3, 1e9, "3600", NULL,
	  "policy time: training time between checkpoints (rounded to whole iterations)" },
	{ "training.checkpoint.interval_iters", CFG_INT, "iterations", 1, 1e12, "1000", NULL,
	  "policy iterations: iterations between checkpoints" },
	{ "training.checkpoint.mode", CFG_ENUM, "", 0, 0, "sync", "sync|async",
	  "sync: stall for the write; async: stall for the host snapshot, drain behind" },
	{ "training.checkpoint.bytes_per_param", CFG_FLOAT, "bytes", 0.1, 64, "14", NULL,
	  "checkpoint bytes per parameter (bf16 weights + fp32 master + Adam m, v)" },
	{ "training.checkpoint.storage", CFG_STRING, "", 0, 0, "", NULL,
	  "storage type (storage_types.NAME, scenarios/catalog/storage.cfg); empty: "
	  "use write_bw_gbyte_s / read_bw_gbyte_s" },
	{ "training.checkpoint.write_bw_gbyte_s", CFG_FLOAT, "GB/s", 1e-3, 1e6, "100", NULL,
	  "aggregate storage write bandwidth (10^9 bytes/s); a cap on the tier's when set" },
	{ "training.checkpoint.read_bw_gbyte_s", CFG_FLOAT, "GB/s", 1e-3, 1e6, "200", NULL,
	  "aggregate storage read bandwidth for restores; a cap on the tier's when set" },
	{ "training.checkpoint.snapshot_bw_gbyte_s", CFG_FLOAT, "GB/s", 1e-3, 1e6, "25", NULL,
	  "async: per-GPU device-to-host copy bandwidth (PCIe Gen4 x16 ~25 GB/s, "
	  "doc/sources.md section 3)" },
	CFG_RENAMED_TO("training.checkpoint.write_bw_gbps",
		       "training.checkpoint.write_bw_gbyte_s"),
	CFG_RENAMED_TO("training.checkpoint.read_bw_gbps",
		       "training.checkpoint.read_bw_gbyte_s"),
	CFG_RENAMED_TO("training.checkpoint.snapshot_gbps",
		       "training.checkpoint.snapshot_bw_gbyte_s"),
	{ "training.checkpoint.drain_slowdown", CFG_FLOAT, "", -1, 1, "-1", NULL,
	  "async: share of training speed lost while a checkpoint drains to storage; "
	  "-1: the share of each node's scale-out bandwidth the drain takes" },
	{ "training.checkpoint.minimize", CFG_ENUM, "", 0, 0, "time", "time|cost",
	  "policy young/daly: the optimum of lost training time, or of money (the "
	  "checkpoint's storage cost weighed against the job's cost per second)" },
	{ "training.checkpoint.on_notice", CFG_BOOL, "", 0, 0, "true", NULL,
	  "on a spot preemption notice, checkpoint and stop if the write fits in the "
	  "notice (Megatron --exit-signal-handler)" },
	CFG_END
};

const struct cfg_setting ckpt_storage_settings[] = {
	{ "storage_types.*.write_bw_per_node_gbyte_s", CFG_FLOAT, "GB/s", 1e-6, 1e6, NULL, NULL,
	  "write bandwidth one node reaches" },
	{ "storage_types.*.read_bw_per_node_gbyte_s", CFG_FLOAT, "GB/s", 1e-6, 1e6, NULL, NULL,
	  "read bandwidth one node reaches" },
	{ "storage_types.*.write_bw_max_gbyte_s", CFG_FLOAT, "GB/s", 1e-6, 1e9, "1e9", NULL,
	  "aggregate write cap of the whole tier" },
	{ "storage_types.*.read_bw_max_gbyte_s", CFG_FLOAT, "GB/s", 1e-6, 1e9, "1e9", NULL,
	  "aggregate read cap of the whole tier" },
	{ "storage_types.*.latency_s", CFG_FLOAT, "s", 0, 1e6, "0", NULL,
	  "fixed cost of one save or load (open, metadata, commit)" },
	{ "storage_types.*.source", CFG_STRING, "", 0, 0, "", NULL,
	  "where the figures come from (paper, URL, date; trainsim list)" },
	CFG_RENAMED_TO("storage_types.*.write_gbps_per_node",
		       "storage_types.*.write_bw_per_node_gbyte_s"),
	CFG_RENAMED_TO("storage_types.*.read_gbps_per_node",
		       "storage_types.*.read_bw_per_node_gbyte_s"),
	CFG_RENAMED_TO("storage_types.*.write_gbps_max",
		       "storage_types.*.write_bw_max_gbyte_s"),
	CFG_RENAMED_TO("storage_types.*.read_gbps_max",
		       "storage_types.*.read_bw_max_gbyte_s"),
	CFG_END
};

static const char *const policy_names[] = { "time", "iterations", "young", "daly", NULL };

double ckpt_young_s(double delta_s, double mtti_s)
{
	return sqrt(2.0 * delta_s * mtti_s);
}

double ckpt_daly_s(double delta_s, double mtti_s)
{
	double x = delta_s / (2.0 * mtti_s);

	if (delta_s >= 2.0 * mtti_s)
		return mtti_s;
	return sqrt(2.0 * delta_s * mtti_s) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - delta_s;
}

static int find_policy(const char *s)
{
	for (int i = 0; policy_names[i]; i++)
		if (strcmp(s, policy_names[i]) == 0)
			return i;
	return 0;
}

/* Young's and Daly's optima for a checkpoint costing delta_s of training. */
static void optima(struct ckpt *c, double delta_s, double mtti_s)
{
	c->young_s = isfinite(mtti_s) ? ckpt_young_s(delta_s, mtti_s) : NAN;
	c->daly_s = isfinite(mtti_s) ? ckpt_daly_s(delta_s, mtti_s) : NAN;
	/* async: a checkpoint due while the previous one drains waits for it,
	 * so no optimum is shorter than the drain */
	if (c->mode == CKPT_ASYNC && isfinite(mtti_s)) {
		c->young_s = fmax(c->young_s, c->write_s);
		c->daly_s = fmax(c->daly_s, c->write_s);
	}
}

/* Aggregate bandwidths (bytes/s) and latency from the tier and the caps. */
static int storage_figures(const struct scenario *sc, int nodes, struct ckpt *c,
			   double *latency_s, struct err *e)
{
	const char *t = c->tier;
	double w = INFINITY, r = INFINITY;

	*latency_s = 0;
	if (t[0]) {
		const char *const *names;
		size_t n = sc_children(sc, "storage_types", &names), i;
		for (i = 0; i < n && strcmp(names[i], t) != 0; i++)
			;
		if (i == n)
			return sc_error(sc, e, "training.checkpoint.storage", "no storage type "
					"\"%s\" (expected an entry of storage_types, as in "
					"scenarios/catalog/storage.cfg)", t);
		w = fmin(nodes * sc_float(sc, "storage_types.%s.write_bw_per_node_gbyte_s", t),
			 sc_float(sc, "storage_types.%s.write_bw_max_gbyte_s", t)) * 1e9;
		r = fmin(nodes * sc_float(sc, "storage_types.%s.read_bw_per_node_gbyte_s", t),
			 sc_float(sc, "storage_types.%s.read_bw_max_gbyte_s", t)) * 1e9;
		*latency_s = sc_float(sc, "storage_types.%s.latency_s", t);
	}
	if (!t[0] || sc_has(sc, "training.checkpoint.write_bw_gbyte_s"))
		w = fmin(w, sc_float(sc, "training.checkpoint.write_bw_gbyte_s") * 1e9);
	if (!t[0] || sc_has(sc, "training.checkpoint.read_bw_gbyte_s"))
		r = fmin(r, sc_float(sc, "training.checkpoint.read_bw_gbyte_s") * 1e9);
	c->write_Bps = w;
	c->read_Bps = r;
	return 0;
}

int ckpt_from_scenario(const struct scenario *sc, double params, int nodes, int gpus,
		       double iteration_s, double mtti_s, double node_out_Bps,
		       struct ckpt *c, struct err *e)
{
	double slowdown = sc_float(sc, "training.checkpoint.drain_slowdown");

	double latency_s;

	memset(c, 0, sizeof *c);
	c->enabled = sc_bool(sc, "training.checkpoint.enabled");
	c->mode = strcmp(sc_str(sc, "training.checkpoint.mode"), "async") == 0 ? CKPT_ASYNC
									       : CKPT_SYNC;
	c->policy = (enum ckpt_policy)find_policy(sc_str(sc, "training.checkpoint.policy"));
	c->tier = sc_str(sc, "training.checkpoint.storage");
	c->size_bytes = params * sc_float(sc, "training.checkpoint.bytes_per_param");
	if (storage_figures(sc, nodes, c, &latency_s, e) < 0)
		return -1;
	c->write_s = latency_s + c->size_bytes / c->write_Bps;
	c->load_s = latency_s + c->size_bytes / c->read_Bps;
	c->snapshot_s = c->size_bytes / gpus /
			(sc_float(sc, "training.checkpoint.snapshot_bw_gbyte_s") * 1e9);
	/* each node drains size / nodes at write_Bps / nodes */
	if (slowdown < 0)
		slowdown = node_out_Bps > 0 ? fmin(1, c->write_Bps / nodes / node_out_Bps) : 0;
	c->drain_slowdown = c->mode == CKPT_ASYNC ? slowdown : 0;
	c->stall_s = c->mode == CKPT_ASYNC ? c->snapshot_s + slowdown * c->write_s
					   : c->write_s;
	c->on_notice = sc_bool(sc, "training.checkpoint.on_notice");
	c->minimize_cost = strcmp(sc_str(sc, "training.checkpoint.minimize"), "cost") == 0;
	optima(c, c->stall_s, mtti_s);

	switch (c->policy) {
	case CKPT_TIME:
		c->interval_s = sc_float(sc, "training.checkpoint.interval_s");
		break;
	case CKPT_ITERATIONS:
		c->interval_s = sc_int(sc, "training.checkpoint.interval_iters") * iteration_s;
		break;
	case CKPT_YOUNG:
	case CKPT_DALY:
		if (!isfinite(mtti_s))
			return sc_error(sc, e, "training.checkpoint.policy", "%s needs a failure "
					"or preemption rate (expected failures or spot pools "
					"with a rate)", policy_names[c->policy]);
		c->interval_s = c->policy == CKPT_YOUNG ? c->young_s : c->daly_s;
		break;
	}
	if (c->policy == CKPT_ITERATIONS)
		c->interval_iters = sc_int(sc, "training.checkpoint.interval_iters");
	else
		c->interval_iters = (int64_t)llround(c->interval_s / iteration_s);
	if (c->interval_iters < 1)
		c->interval_iters = 1;
	return 0;
}

void ckpt_minimize_cost(struct ckpt *c, double usd_per_ckpt, double usd_per_s,
			double iteration_s, double mtti_s)
{
	c->usd_per_ckpt = usd_per_ckpt;
	if (!c->minimize_cost || usd_per_s <= 0 || !isfinite(mtti_s))
		return;		/* no money rate to weigh: the time optimum */
	c->money_s = usd_per_ckpt / usd_per_s;
	optima(c, c->stall_s + c->money_s, mtti_s);
	if (c->policy != CKPT_YOUNG && c->policy != CKPT_DALY)
		return;
	c->interval_s = c->policy == CKPT_YOUNG ? c->young_s : c->daly_s;
	c->interval_iters = (int64_t)llround(c->interval_s / iteration_s);
	if (c->interval_iters < 1)
		c->interval_iters = 1;
}
