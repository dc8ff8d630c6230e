/* acct.c -- see acct.h. */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/acct.h"
#include "models/budget.h"
#include "models/carbon.h"
#include "models/cost.h"
#include "models/power.h"
#include "models/region.h"
#include "models/storage.h"
#include "models/telemetry.h"
#include "models/trace.h"

static const struct cfg_setting acct_settings[] = {
	{ "run.start_utc", CFG_STRING, "", 0, 0, "", NULL,
	  "UTC time of the run's start (YYYY-MM-DD HH:MM:SS), placing it on the "
	  "traces; empty: each trace from its first row" },
	CFG_END
};

const struct cfg_setting *const acct_setting_tables[] = {
	acct_settings, region_settings, power_settings, node_settings, cost_settings,
	carbon_settings,
	storage_settings, storage_price_settings, budget_settings, NULL
};

/* Traces: fixed slots, then one spot trace per pool. */
enum { TR_PUE, TR_GRID, TR_ELEC, TR_SPOT0, TR_N = TR_SPOT0 + POOLS_MAX };

/* Instances started at the same time, for per-second billing. */
struct starts {
	int64_t start_ns;
	int count;
};

struct billing {
	struct starts *s;
	size_t n, cap;
	int billed;		/* instances being billed now */
};

/* Rates in force between two change points. */
struct rates {
	double gpu_w, node_w, network_w, storage_w, it_w, facility_w;
	double pool_gpu_w[POOLS_MAX];
	double compute_usd_s, storage_usd_s, electricity_usd_s, capex_usd_s, opex_usd_s;
	double location_kg_s, market_kg_s, embodied_kg_s;
};

struct acct {
	struct platform pf;
	struct power pw;
	struct cost cost;
	struct carbon co2;
	struct storage st;
	struct budget bud;
	struct pools pools;
	int gpus, nodes, gpus_per_node;

	struct trace tr[TR_N];
	bool traces_shared;	/* tr belongs to the acct this one copies */
	struct trace_cur cur[TR_N];
	bool has[TR_N];
	/* values of traced quantities in force */
	double pue, grid_g_per_kwh, electricity_usd_per_kwh;
	double node_usd_per_h[POOLS_MAX];

	struct activity act;
	int64_t act_ns;		/* when act began */
	double pool_nodes[POOLS_MAX];	/* act's nodes per pool (made consistent) */
	struct billing bill[POOLS_MAX];

	int64_t last_ns;	/* books are exact up to here */
	struct rates r;
	struct acct_totals tot;
	double pool_gpu_j[POOLS_MAX];

	int n_alerts;		/* raised so far (the summary's budget_alerts) */
};

/* --- traces ---------------------------------------------------------------- */

/* The setting that names the trace in slot. */
static void trace_key(const struct acct *a, int slot, char *key, size_t n)
{
	static const char *const key_of[TR_SPOT0] = {
		[TR_PUE] = "power.pue_trace", [TR_GRID] = "carbon.grid_trace",
		[TR_ELEC] = "cost.electricity_trace",
	};

	if (slot < TR_SPOT0)
		snprintf(key, n, "%s", key_of[slot]);
	else
		snprintf(key, n, "pools.%s.spot_price_trace", a->pools.p[slot - TR_SPOT0].name);
}

static int load_trace(struct acct *a, const struct scenario *sc, int slot, const char *rel,
		      enum trace_qty q, const char *column, const char *type,
		      const char *zone, struct err *e)
{
	char path[4096], key[256];

	if (rel == NULL || rel[0] == '\0')
		return 0;
	trace_key(a, slot, key, sizeof key);
	if (sc_path(sc, key, rel, path, sizeof path, e) < 0)
		return -1;
	if (q == TRACE_SPOT ? trace_load_aws_spot(&a->tr[slot], path, type, zone, e) :
			      trace_load_csv(&a->tr[slot], path, q, column, e))
		return sc_where_named(sc_where_of(sc), e, key);
	a->has[slot] = true;
	return 0;
}

static int load_traces(struct acct *a, const struct scenario *sc, struct err *e)
{
	const char *start = sc_str(sc, "run.start_utc");
	int64_t origin = 0;

	if (start[0] && trace_parse_utc(start, &origin) < 0)
		return sc_error(sc, e, "run.start_utc", "bad time \"%s\" (expected "
				"YYYY-MM-DD HH:MM:SS in UTC, years %d to %d)", start,
				TRACE_YEAR_MIN, TRACE_YEAR_MAX);
	if (load_trace(a, sc, TR_PUE, a->pw.pue_trace, TRACE_PUE, "", "", "", e) < 0 ||
	    load_trace(a, sc, TR_GRID, a->co2.grid_trace, TRACE_CARBON,
		       a->co2.trace_column, "", "", e) < 0)
		return -1;
	if (a->cost.mode == COST_OWNED &&
	    load_trace(a, sc, TR_ELEC, a->cost.electricity_trace, TRACE_ELECTRICITY, "",
		       "", "", e) < 0)
		return -1;
	if (a->cost.mode == COST_CLOUD)
		for (int i = 0; i < a->pools.n; i++) {
			const struct pool_price *pp = &a->cost.pool[i];
			if (load_trace(a, sc, TR_SPOT0 + i, pp->spot_trace, TRACE_SPOT, "",
				       pp->spot_type, pp->spot_zone, e) < 0)
				return -1;
		}
	for (int k = 0; k < TR_N; k++)
		if (a->has[k] && trace_cur_init(&a->cur[k], &a->tr[k],
						start[0] ? origin : a->tr[k].t_s[0], e) < 0) {
			char key[256];
			trace_key(a, k, key, sizeof key);
			return sc_where_named(sc_where_of(sc), e, key);
		}
	return 0;
}

/* Values of the traced quantities at the cursors. */
static void trace_values(struct acct *a)
{
	a->pue = a->has[TR_PUE] ? a->cur[TR_PUE].value : a->pw.pue;
	a->grid_g_per_kwh = a->has[TR_GRID] ? a->cur[TR_GRID].value : a->co2.grid_g_per_kwh;
	a->electricity_usd_per_kwh = a->has[TR_ELEC] ? a->cur[TR_ELEC].value :
				     a->cost.electricity_usd_per_kwh;
	for (int i = 0; i < a->pools.n; i++)
		a->node_usd_per_h[i] = a->has[TR_SPOT0 + i] ? a->cur[TR_SPOT0 + i].value :
				       a->cost.pool[i].usd_per_node_hour;
}

static int64_t next_change_ns(const struct acct *a)
{
	int64_t next = INT64_MAX;

	for (int k = 0; k < TR_N; k++)
		if (a->has[k] && a->cur[k].next_ns < next)
			next = a->cur[k].next_ns;
	return next;
}

/* --- rates ------------------------------------------------------------------ */

static double stored_bytes(const struct acct *a, int tier)
{
	return storage_held_bytes(&a->st, tier, a->act.checkpoint_bytes,
				  a->act.checkpoints_written);
}

static void rates_update(struct acct *a)
{
	const struct activity *act = &a->act;
	struct rates *r = &a->r;
	double train_w = power_train_gpu_w(&a->pw, act->kernel_frac, act->kernel_dyn_w);
	/* owned hot spares: powered and idle beside the job's nodes */
	double spares = a->cost.mode == COST_OWNED && act->nodes_held > 0 ? act->spare_nodes : 0;
	double idle = act->gpus_held - act->gpus_training + spares * a->gpus_per_node;
	double nodes = act->nodes_held, kwh_s, host_w;
	/* nodes whose GPUs train run their hosts busy */
	double busy_nodes = act->gpus_held > 0 ?
			    nodes * act->gpus_training / act->gpus_held : 0;
	/* the nodes' share of the fabric (all of it when all are held) */
	double share = a->pf.nodes > 0 ? nodes / a->pf.nodes : 0;

	memset(r, 0, sizeof *r);
	r->gpu_w = act->gpus_training * train_w + idle * a->pw.gpu_idle_w;
	for (int i = 0; i < a->pools.n; i++)
		r->pool_gpu_w[i] = nodes > 0 ? r->gpu_w * a->pool_nodes[i] / nodes : 0;
	host_w = busy_nodes * a->pw.host_busy_w +
		 (nodes - busy_nodes + spares) * a->pw.host_idle_w;
	r->node_w = host_w + node_psu_loss_w(&a->pw.node, r->gpu_w, host_w);
	r->network_w = a->pf.idle_w * share +
		       platform_traffic_w(&a->pf, act->tier_bytes_per_s);
	for (int t = 0; t < a->st.n; t++) {
		double gb = stored_bytes(a, t) / 1e9;
		r->storage_w += gb / 1e3 * a->st.t[t].w_per_tb;
		r->storage_usd_s += gb * a->st.t[t].usd_per_gb_month / STORAGE_MONTH_S;
	}
	r->it_w = r->gpu_w + r->node_w + r->network_w + r->storage_w;
	r->facility_w = r->it_w * a->pue;
	kwh_s = r->facility_w / ACCT_J_PER_KWH;
	if (a->cost.mode == COST_CLOUD) {
		for (int i = 0; i < a->pools.n; i++)
			r->compute_usd_s += a->bill[i].billed * a->node_usd_per_h[i] / 3600.0;
	} else {
		r->capex_usd_s = (nodes + spares) *
				 (a->cost.server_usd + a->cost.network_usd_per_node) /
				 a->cost.life_s;
		r->opex_usd_s = (nodes + spares) * a->cost.opex_usd_per_node_s;
		r->electricity_usd_s = kwh_s * a->electricity_usd_per_kwh;
	}
	r->location_kg_s = carbon_kg(kwh_s, a->grid_g_per_kwh);
	r->market_kg_s = a->co2.has_market ? carbon_kg(kwh_s, a->co2.market_g_per_kwh) :
			 r->location_kg_s;
	r->embodied_kg_s = carbon_embodied_kg_per_s(&a->co2,
						    act->gpus_held + spares * a->gpus_per_node,
						    nodes + spares, a->pf.embodied_kg * share);
}

static double cost_rate(const struct rates *r)
{
	return r->compute_usd_s + r->storage_usd_s + r->electricity_usd_s + r->capex_usd_s +
	       r->opex_usd_s;
}

/* --- integration ------------------------------------------------------------ */

static void integrate(struct acct *a, double dt_s)
{
	const struct rates *r = &a->r;
	struct acct_totals *t = &a->tot;

	t->gpu_energy_j += r->gpu_w * dt_s;
	t->node_energy_j += r->node_w * dt_s;
	t->network_energy_j += r->network_w * dt_s;
	t->storage_energy_j += r->storage_w * dt_s;
	t->it_energy_j += r->it_w * dt_s;
	t->facility_energy_j += r->facility_w * dt_s;
	for (int i = 0; i < a->pools.n; i++)
		a->pool_gpu_j[i] += r->pool_gpu_w[i] * dt_s;
	t->compute_usd += r->compute_usd_s * dt_s;
	t->storage_usd += r->storage_usd_s * dt_s;
	t->electricity_usd += r->electricity_usd_s * dt_s;
	t->capex_usd += r->capex_usd_s * dt_s;
	t->opex_usd += r->opex_usd_s * dt_s;
	t->carbon_location_kg += r->location_kg_s * dt_s;
	t->carbon_market_kg += r->market_kg_s * dt_s;
	t->embodied_kg += r->embodied_kg_s * dt_s;
	t->gpu_held_s += a->act.gpus_held * dt_s;
	t->node_held_s += a->act.nodes_held * dt_s;
}

static void totals_sum(struct acct *a)
{
	struct acct_totals *t = &a->tot;

	t->cost_usd = t->compute_usd + t->storage_usd + t->electricity_usd + t->capex_usd +
		      t->opex_usd;
	t->carbon_kg = a->co2.market_basis ? t->carbon_market_kg : t->carbon_location_kg;
}

void acct_advance(struct acct *a, int64_t now_ns)
{
	while (a->last_ns < now_ns) {
		int64_t change = next_change_ns(a);
		int64_t to = change < now_ns ? change : now_ns;

		integrate(a, (double)(to - a->last_ns) * 1e-9);
		a->last_ns = to;
		if (to == change) {
			for (int k = 0; k < TR_N; k++)
				if (a->has[k])
					trace_cur_advance(&a->cur[k], to);
			trace_values(a);
			rates_update(a);
		}
	}
	totals_sum(a);
}

/* --- per-second billing ------------------------------------------------------ */

static int bill_start(struct billing *b, int64_t now_ns, int count)
{
	if (b->n > 0 && b->s[b->n - 1].start_ns == now_ns) {
		b->s[b->n - 1].count += count;
		return 0;
	}
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 16;
		struct starts *ns = realloc(b->s, nc * sizeof *ns);
		if (ns == NULL)
			return -1;
		b->s = ns;
		b->cap = nc;
	}
	b->s[b->n++] = (struct starts){ now_ns, count };
	return 0;
}

/* Release `count` instances of pool `pool`, newest first; returns the
 * seconds billed on top of the time held (rounding up and minimum, or the
 * rest of a commitment), summed over them; *term_s: the commitment's part. */
static double bill_stop(struct billing *b, const struct cost *c, int pool, int64_t now_ns,
			int count, double *term_s)
{
	double extra_s = 0;

	*term_s = 0;
	while (count > 0 && b->n > 0) {
		struct starts *s = &b->s[b->n - 1];
		int k = s->count < count ? s->count : count;
		int64_t held_ns = now_ns - s->start_ns;

		double billed_s = cost_pool_billed_s(c, pool, held_ns);
		double rounded_s = cost_billed_s(c, held_ns);

		extra_s += k * (billed_s - held_ns * 1e-9);
		if (billed_s > rounded_s)
			*term_s += k * (billed_s - rounded_s);
		s->count -= k;
		count -= k;
		if (s->count == 0)
			b->n--;
	}
	return extra_s;
}

/* Instances billed in pool i under activity act. */
static int billed_nodes(const struct acct *a, int i, const struct activity *act,
			const double *pool_nodes)
{
	if (a->cost.pool[i].committed)
		return act->nodes_held > 0 ? a->pools.p[i].nodes : 0;
	return (int)pool_nodes[i];
}

static void billing_update(struct acct *a, int64_t now_ns, const double *pool_nodes)
{
	if (a->cost.mode != COST_CLOUD)
		return;
	for (int i = 0; i < a->pools.n; i++) {
		struct billing *b = &a->bill[i];
		int want = billed_nodes(a, i, &a->act, pool_nodes);

		if (want > b->billed) {
			if (bill_start(b, now_ns, want - b->billed) < 0)
				want = b->billed;	/* out of memory: bill exactly */
		} else if (want < b->billed) {
			double term_s;
			double extra_s = bill_stop(b, &a->cost, i, now_ns, b->billed - want,
						   &term_s);

			a->tot.compute_usd += extra_s * a->node_usd_per_h[i] / 3600.0;
			a->tot.commitment_unused_usd += term_s * a->node_usd_per_h[i] / 3600.0;
		}
		b->billed = want;
	}
}

/* --- activity ----------------------------------------------------------------- */

/* Checkpoints written since the last activity: the tiers' price per GB
 * written, paid when they are written. */
static void charge_writes(struct acct *a, const struct activity *act)
{
	int64_t fresh = act->checkpoints_written - a->act.checkpoints_written;

	for (int t = 0; fresh > 0 && t < a->st.n; t++)
		a->tot.storage_usd += (double)fresh * act->checkpoint_bytes / 1e9 *
				      a->st.t[t].usd_per_gb_written;
}

void acct_set_activity(struct acct *a, int64_t now_ns, const struct activity *act)
{
	int sum = 0;

	acct_advance(a, now_ns);
	charge_writes(a, act);
	a->act = *act;
	a->act_ns = now_ns;
	for (int i = 0; i < a->pools.n; i++)
		sum += act->pool_nodes_held[i];
	/* A caller that does not split nodes by pool: all in the first. */
	for (int i = 0; i < a->pools.n; i++)
		a->pool_nodes[i] = sum == act->nodes_held ? act->pool_nodes_held[i] :
				   i == 0 ? act->nodes_held : 0;
	billing_update(a, now_ns, a->pool_nodes);
	rates_update(a);
	totals_sum(a);
}

/* --- construction ------------------------------------------------------------- */

static struct acct *acct_build(const struct scenario *sc, const struct gpu_spec *g,
			       const struct layout *L, const struct pools *pools,
			       const struct platform *pf, struct err *e)
{
	struct acct *a = calloc(1, sizeof *a);

	if (a == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		return NULL;
	}
	a->pf = *pf;
	a->pools = *pools;
	a->gpus = L->gpus;
	a->nodes = L->nodes;
	a->gpus_per_node = L->gpus_per_node;
	carbon_from_scenario(sc, &a->co2);
	storage_from_scenario(sc, &a->st);
	budget_from_scenario(sc, &a->bud);
	if (power_from_scenario(sc, g, &a->pw, e) < 0 || region_check(sc, e) < 0 ||
	    cost_from_scenario(sc, pools, L->gpus_per_node, &a->cost, e) < 0 ||
	    load_traces(a, sc, e) < 0) {
		acct_free(a);
		return NULL;
	}
	trace_values(a);
	rates_update(a);
	return a;
}

struct acct *acct_new(const struct scenario *sc, const struct gpu_spec *g,
		      const struct layout *L, const struct pools *pools,
		      const struct platform *pf, struct err *e)
{
	return acct_build(sc, g, L, pools, pf, e);
}

bool acct_powers_spares(const struct acct *a)
{
	return a->cost.mode == COST_OWNED;
}

double acct_training_usd_per_s(const struct acct *a)
{
	struct acct t = *a;	/* rates on a copy: the books stay as they are */

	memset(&t.act, 0, sizeof t.act);
	t.act.nodes_held = a->nodes;
	t.act.gpus_held = a->gpus;
	t.act.gpus_training = a->gpus;
	for (int i = 0; i < a->pools.n; i++) {
		t.pool_nodes[i] = a->pools.p[i].nodes;
		t.bill[i].billed = a->pools.p[i].nodes;
	}
	rates_update(&t);
	return cost_rate(&t.r);
}

double acct_checkpoint_usd(const struct acct *a, double bytes, double run_s)
{
	return storage_usd_per_checkpoint(&a->st, bytes, run_s);
}

struct acct *acct_new_like(const struct acct *proto, struct err *e)
{
	struct acct *a = malloc(sizeof *a);

	if (a == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		return NULL;
	}
	*a = *proto;	/* the cursors keep pointing at proto's traces */
	a->traces_shared = true;
	for (int i = 0; i < POOLS_MAX; i++)
		a->bill[i] = (struct billing){ 0 };
	a->n_alerts = 0;
	return a;
}

static void describe_trace(FILE *out, const char *what, const struct trace *t)
{
	fprintf(out, "%-22s trace %s: %zu rows, %s\n", what, t->file, t->n,
		t->step_s ? "regular, repeats after its last row" :
			    "change points, the last holds");
}

void acct_describe(const struct acct *a, FILE *out)
{
	fprintf(out, "# accounting\n");
	fprintf(out, "gpu_power_w            idle %.0f, training %.0f (no step breakdown: the formula level)\n",
		a->pw.gpu_idle_w, power_train_gpu_w(&a->pw, 0, 0));
	fprintf(out, "gpu_levels_w           gemm %.0f, memory-bound %.0f, communication %.0f\n",
		a->pw.gemm_w, a->pw.mem_w, a->pw.comm_w);
	fprintf(out, "node                   %s: host %.0f W busy, %.0f W idle per %d-GPU "
		"node; PSU efficiency %.3g\n", a->pw.node.name, a->pw.host_busy_w,
		a->pw.host_idle_w, a->pw.gpus_per_node, a->pw.node.psu_efficiency);
	platform_print(&a->pf, out);
	if (a->has[TR_PUE])
		describe_trace(out, "pue", &a->tr[TR_PUE]);
	else
		fprintf(out, "pue                    %.3g\n", a->pw.pue);
	if (a->has[TR_GRID])
		describe_trace(out, "grid_g_per_kwh", &a->tr[TR_GRID]);
	else
		fprintf(out, "grid_g_per_kwh         %.4g\n", a->co2.grid_g_per_kwh);
	if (a->cost.mode == COST_OWNED) {
		fprintf(out, "cost                   owned: $%.0f + $%.0f per node over %.1f "
			"years, $%.4g per node-hour\n", a->cost.server_usd,
			a->cost.network_usd_per_node, a->cost.life_s / (365.25 * 86400),
			a->cost.opex_usd_per_node_s * 3600);
		if (a->has[TR_ELEC])
			describe_trace(out, "electricity_usd_kwh", &a->tr[TR_ELEC]);
		else
			fprintf(out, "electricity_usd_kwh    %.4g\n",
				a->cost.electricity_usd_per_kwh);
	}
	for (int i = 0; a->cost.mode == COST_CLOUD && i < a->pools.n; i++) {
		char what[64];
		snprintf(what, sizeof what, "pool %s", a->pools.p[i].name);
		if (a->has[TR_SPOT0 + i])
			describe_trace(out, what, &a->tr[TR_SPOT0 + i]);
		else
			fprintf(out, "%-22s %d nodes, %s, $%.4g per node-hour%s\n", what,
				a->pools.p[i].nodes, pool_class_names[a->pools.p[i].cls],
				a->cost.pool[i].usd_per_node_hour,
				!a->cost.pool[i].committed ? "" :
				a->cost.pool[i].block ? ", a capacity block (whole days, then weeks)" :
				a->cost.pool[i].term_s > 0 ? ", committed for its term" :
				", paid for the whole run");
	}
	for (int k = 0; k < BUDGET_KINDS; k++)
		if (a->bud.limit[k] > 0)
			fprintf(out, "%-22s %.6g%s\n", budget_kind_name(k), a->bud.limit[k],
				a->bud.stop ? ", stop when reached" : "");
}

void acct_free(struct acct *a)
{
	if (a == NULL)
		return;
	for (int k = 0; k < TR_N && !a->traces_shared; k++)
		trace_free(&a->tr[k]);
	for (int i = 0; i < POOLS_MAX; i++)
		free(a->bill[i].s);
	free(a);
}

const struct acct_totals *acct_totals(const struct acct *a)
{
	return &a->tot;
}

/* --- budgets -------------------------------------------------------------------- */

void acct_projection(struct acct *a, int64_t now_ns, double out[BUDGET_KINDS])
{
	double left_s = a->act.work_left_s;
	const struct rates *r = &a->r;

	acct_advance(a, now_ns);
	if (a->act.gpus_training > 0)
		left_s -= (double)(now_ns - a->act_ns) * 1e-9;
	if (left_s < 0)
		left_s = 0;
	out[BUDGET_COST] = a->tot.cost_usd + cost_rate(r) * left_s;
	out[BUDGET_CARBON] = a->tot.carbon_kg +
			     (a->co2.market_basis ? r->market_kg_s : r->location_kg_s) * left_s;
}

int acct_poll(struct acct *a, int64_t now_ns, struct report *rep, struct err *e)
{
	struct budget_alert fresh[BUDGET_KINDS * BUDGET_LEVELS_MAX];
	double proj[BUDGET_KINDS];
	int n;

	acct_projection(a, now_ns, proj);
	n = budget_check(&a->bud, now_ns, proj, fresh);
	for (int i = 0; i < n; i++) {
		a->n_alerts++;
		if (rep && rep_event(rep, now_ns * 1e-9, budget_kind_name(fresh[i].kind),
				     llround(fresh[i].fraction * 100), fresh[i].projected, e) < 0)
			return -1;
	}
	return a->bud.stop_requested ? 1 : 0;
}

/* --- outputs --------------------------------------------------------------------- */

enum { COL_IT_POWER, COL_FAC_POWER, COL_IT_ENERGY, COL_ENERGY, COL_COST,
       COL_CARBON, COL_EMBODIED, COL_COST_RATE, COL_PUE, COL_GRID, COL_PROJ_COST,
       COL_PROJ_CARBON, COL_COUNT };
static const struct { const char *name, *unit; } columns[COL_COUNT] = {
	{ "it_power_w", "W" }, { "facility_power_w", "W" },
	{ "it_energy_kwh", "kWh" }, { "energy_kwh", "kWh" },
	{ "cost_usd", "USD" }, { "carbon_kg", "kgCO2e" },
	{ "embodied_carbon_kg", "kgCO2e" }, { "cost_usd_per_hour", "USD/h" },
	{ "pue", "" }, { "grid_g_per_kwh", "gCO2e/kWh" },
	{ "projected_cost_usd", "USD" }, { "projected_carbon_kg", "kgCO2e" },
};

int acct_series(struct acct *a, struct report *rep)
{
	for (int i = 0; i < COL_COUNT; i++)
		if (rep_series(rep, columns[i].name, columns[i].unit) < 0)
			return -1;
	for (int k = 0; k < BUDGET_KINDS; k++)
		if (rep_event_kind(rep, budget_kind_name(k), k == BUDGET_COST
				   ? "the projected cost crossed a budget level; who = the level "
				     "(% of the budget), value = projected cost (USD)"
				   : "the projected carbon crossed a budget level; who = the level "
				     "(% of the budget), value = projected carbon (kgCO2e)") < 0)
			return -1;
	return telemetry_series(&a->pools, rep);
}

int acct_columns(const struct acct *a)
{
	return COL_COUNT + telemetry_columns(&a->pools);
}

void acct_sample(struct acct *a, int64_t now_ns, double *v)
{
	struct telemetry_pool tp[POOLS_MAX];
	struct telemetry_util tu = { a->act.busy_frac, a->act.comm_frac,
				     a->act.tensor_active_frac };
	double proj[BUDGET_KINDS];
	double share = a->act.gpus_held > 0 ?
		       (double)a->act.gpus_training / a->act.gpus_held : 0;

	acct_projection(a, now_ns, proj);	/* advances the books to now */
	v[COL_IT_POWER] = a->r.it_w;
	v[COL_FAC_POWER] = a->r.facility_w;
	v[COL_IT_ENERGY] = a->tot.it_energy_j / ACCT_J_PER_KWH;
	v[COL_ENERGY] = a->tot.facility_energy_j / ACCT_J_PER_KWH;
	v[COL_COST] = a->tot.cost_usd;
	v[COL_CARBON] = a->tot.carbon_kg;
	v[COL_EMBODIED] = a->tot.embodied_kg;
	v[COL_COST_RATE] = cost_rate(&a->r) * 3600.0;
	v[COL_PUE] = a->pue;
	v[COL_GRID] = a->grid_g_per_kwh;
	v[COL_PROJ_COST] = proj[BUDGET_COST];
	v[COL_PROJ_CARBON] = proj[BUDGET_CARBON];
	for (int i = 0; i < a->pools.n; i++) {
		tp[i].gpus_held = a->pool_nodes[i] * a->gpus_per_node;
		tp[i].gpus_training = tp[i].gpus_held * share;
		tp[i].gpu_power_w = a->r.pool_gpu_w[i];
		tp[i].gpu_energy_j = a->pool_gpu_j[i];
	}
	telemetry_sample(&a->pools, tp, &tu, v + COL_COUNT);
}

static double per_mtok(double x, double tokens)
{
	return tokens > 0 ? x / (tokens / 1e6) : NAN;
}

void acct_summarize(struct acct *a, int64_t end_ns, struct report *rep)
{
	struct activity none = { 0 };
	const struct acct_totals *t = &a->tot;
	double tokens = rep_summary_get(rep, "tokens");

	/* Whatever is still held is released at the end (final billing). */
	if (a->act.nodes_held > 0 || a->act.gpus_held > 0)
		acct_set_activity(a, end_ns, &none);
	acct_advance(a, end_ns);
	rep_summary(rep, "gpu_hours", t->gpu_held_s / 3600.0, "GPU-h");
	rep_summary(rep, "energy_kwh", t->facility_energy_j / ACCT_J_PER_KWH, "kWh");
	rep_summary(rep, "it_energy_kwh", t->it_energy_j / ACCT_J_PER_KWH, "kWh");
	rep_summary(rep, "carbon_kg", t->carbon_kg, "kgCO2e");
	rep_summary(rep, "embodied_carbon_kg", t->embodied_kg, "kgCO2e");
	rep_summary(rep, "cost_usd", t->cost_usd, "USD");
	rep_summary(rep, "node_hours", t->node_held_s / 3600.0, "node-h");
	rep_summary(rep, "gpu_energy_kwh", t->gpu_energy_j / ACCT_J_PER_KWH, "kWh");
	rep_summary(rep, "node_energy_kwh", t->node_energy_j / ACCT_J_PER_KWH, "kWh");
	rep_summary(rep, "network_energy_kwh", t->network_energy_j / ACCT_J_PER_KWH, "kWh");
	rep_summary(rep, "storage_energy_kwh", t->storage_energy_j / ACCT_J_PER_KWH, "kWh");
	rep_summary(rep, "carbon_location_kg", t->carbon_location_kg, "kgCO2e");
	rep_summary(rep, "carbon_market_kg", t->carbon_market_kg, "kgCO2e");
	rep_summary(rep, "cost_compute_usd", t->compute_usd, "USD");
	rep_summary(rep, "cost_storage_usd", t->storage_usd, "USD");
	rep_summary(rep, "cost_electricity_usd", t->electricity_usd, "USD");
	rep_summary(rep, "cost_capex_usd", t->capex_usd, "USD");
	rep_summary(rep, "cost_opex_usd", t->opex_usd, "USD");
	rep_summary(rep, "cost_commitment_unused_usd", t->commitment_unused_usd, "USD");
	rep_summary(rep, "usd_per_mtok", per_mtok(t->cost_usd, tokens), "USD/Mtoken");
	rep_summary(rep, "kwh_per_mtok", per_mtok(t->facility_energy_j / ACCT_J_PER_KWH,
						  tokens), "kWh/Mtoken");
	rep_summary(rep, "gco2e_per_mtok", per_mtok(t->carbon_kg * 1e3, tokens),
		    "gCO2e/Mtoken");
	rep_summary(rep, "budget_alerts", a->n_alerts, "");
	rep_summary(rep, "budget_stopped", a->bud.stop_requested, "");
}
