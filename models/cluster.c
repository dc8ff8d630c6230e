/*
 * cluster.c -- the shared-cluster simulation: events, books and output
 * (see cluster.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "sim/ev.h"
#include "sim/rng.h"
#include "models/autoscale.h"
#include "models/cfabric.h"
#include "models/cjob.h"
#include "models/cluster.h"
#include "models/cost.h"
#include "models/fleet.h"
#include "models/gpu.h"
#include "models/jobgen.h"
#include "models/sched.h"
#include "topologies/net.h"

static const struct cfg_setting cluster_settings[] = {
	{ "cluster_run.seed", CFG_INT, "", 0, 9.2e18, "1", NULL,
	  "seed of every random stream (--seed overrides)" },
	{ "cluster_run.max_days", CFG_FLOAT, "days", 1e-6, 1e5, "3650", NULL,
	  "stop the simulation then, jobs still waiting or running" },
	{ "cluster_run.sample_interval_s", CFG_FLOAT, "s", 1, 1e9, "3600", NULL,
	  "time between time-series samples" },
	CFG_END
};

struct cfg_schema *cluster_schema_new(void)
{
	static const struct cfg_setting *const tables[] = {
		cluster_settings, fleet_settings, sched_settings, as_settings,
		jobgen_settings, gpu_settings, node_settings, cost_settings, net_settings,
		cfab_settings, NULL
	};
	struct cfg_schema *s = cfg_schema_new();

	for (size_t i = 0; s && tables[i]; i++)
		cfg_schema_add(s, tables[i]);
	return s;
}

enum { K_ARRIVE, K_END, K_STOPPED, K_FAIL, K_REPAIR, K_SPOT, K_BOOTED, K_TICK,
       K_SAMPLE, K_PASS, K_FABRIC, K_COUNT };

struct cl {
	const struct scenario *sc;
	struct report *rep;
	struct ev_sim *sim;
	int kind[K_COUNT];
	struct fleet f;
	struct cjobs js;
	struct sched s;
	struct as_rule rule;
	struct as_window win;
	bool elastic, pass_pending, fabric_pending;
	struct cfab *fab;		/* NULL: jobs do not share the fabric */
	gsl_rng *rng_fail, *rng_spot;
	int *place;			/* scratch: a job's nodes */
	size_t done, arrived;
	int running_gpus, stopping_nodes;
	double horizon_s;
	/* books */
	double last_s;
	double pool_held_s[CJOB_POOLS_MAX], pool_busy_s[CJOB_POOLS_MAX];
	double pool_cost_usd[CJOB_POOLS_MAX], pool_job_usd[CJOB_POOLS_MAX];
	double energy_kwh, job_energy_kwh, running_gpu_s, held_gpu_s;
	double *team_usd;
	double (*team_class_usd)[FC_COUNT];	/* per team, per pricing class */
	bool *team_alerted;
	int booting, down;		/* nodes on their way up */
	int quiet_ticks;		/* autoscaler ticks with nothing able to change */
	size_t stranded;
	int failures, reclaims, scale_ups, scale_downs;
};

static double now_s(const struct cl *c)
{
	return (double)ev_now(c->sim) / EV_NS_PER_S;
}

static int64_t ns_of(double s)
{
	return (int64_t)llround(s * EV_NS_PER_S);
}

static double power_w(const struct cl *c)
{
	int held = 0, busy = 0;

	for (int p = 0; p < c->f.n_pools; p++) {
		held += c->f.pool[p].held;
		busy += c->f.pool[p].busy;
	}
	double held_gpus = (double)held * c->f.gpus_per_node;
	double gpu_w = c->running_gpus * c->f.busy_gpu_w +
		       (held_gpus - c->running_gpus) * c->f.idle_gpu_w;
	double host_w = busy * c->f.host_busy_w + (held - busy) * c->f.host_idle_w;
	return (gpu_w + host_w) / c->f.node.psu_efficiency * c->f.pue;
}

/* Integrate the fleet's rates up to now. */
static void books_advance(struct cl *c)
{
	double t = now_s(c), dt = t - c->last_s;

	if (dt <= 0)
		return;
	for (int p = 0; p < c->f.n_pools; p++) {
		const struct fleet_pool *q = &c->f.pool[p];
		c->pool_held_s[p] += q->held * dt;
		c->pool_busy_s[p] += q->busy * dt;
		c->pool_cost_usd[p] += q->held * q->usd_per_node_s * dt;
		c->held_gpu_s += (double)q->held * c->f.gpus_per_node * dt;
	}
	c->running_gpu_s += c->running_gpus * dt;
	c->energy_kwh += power_w(c) * dt / 3.6e6;
	c->last_s = t;
}

/* Charge the job's segment so far (it holds its nodes until now). */
static int job_charge(struct cl *c, int job, struct err *e)
{
	struct cjob *j = &c->js.v[job];
	double seg = now_s(c) - j->seg_start_s, usd = 0;
	double idle = (double)j->nodes * c->f.gpus_per_node - j->gpus;

	for (int p = 0; p < c->f.n_pools; p++) {
		double u = j->pool_nodes[p] * c->f.pool[p].usd_per_node_s * seg;
		c->pool_job_usd[p] += u;
		c->team_class_usd[j->team][c->f.pool[p].klass] += u;
		usd += u;
	}
	double kwh = (j->gpus * c->f.busy_gpu_w + idle * c->f.idle_gpu_w +
		      j->nodes * c->f.host_busy_w) / c->f.node.psu_efficiency * c->f.pue *
		     seg / 3.6e6;
	j->gpu_s += (double)j->gpus * seg;
	j->cost_usd += usd;
	j->energy_kwh += kwh;
	j->carbon_kg += kwh * c->f.grid_kg_per_kwh;
	c->job_energy_kwh += kwh;
	j->seg_start_s = now_s(c);
	double *team = &c->team_usd[j->team];
	double budget = sc_float(c->sc, "teams.%s.budget_usd", c->js.teams[j->team]);
	*team += usd;
	if (budget > 0 && *team >= budget && !c->team_alerted[j->team]) {
		c->team_alerted[j->team] = true;
		if (rep_event(c->rep, now_s(c), "budget_alert", j->team, *team, e) < 0)
			return -1;
	}
	return 0;
}

static void request_pass(struct cl *c)
{
	if (!c->pass_pending) {
		c->pass_pending = true;
		ev_after(c->sim, 0, c->kind[K_PASS], 0);
	}
}

/* Re-rate the fabric once every change at this instant is in. */
static void request_fabric(struct cl *c)
{
	if (c->fab && cfab_dirty(c->fab) && !c->fabric_pending) {
		c->fabric_pending = true;
		ev_after(c->sim, 0, c->kind[K_FABRIC], 0);
	}
}

/* Bring a running job's work up to now at its current pace. */
static void pace_settle(struct cl *c, struct cjob *j)
{
	double dt = now_s(c) - j->pace_since_s;

	if (j->state != CJ_RUNNING || dt <= 0)
		return;
	j->seg_work_s += dt / j->slow;
	j->run_wall_s += dt;
	j->run_work_s += dt / j->slow;
	j->pace_since_s = now_s(c);
}

/* The job's end, at its pace, from its work still to do. */
static void schedule_end(struct cl *c, int job)
{
	struct cjob *j = &c->js.v[job];
	double left = j->work_s - j->done_s - j->seg_work_s;

	j->end_ev = ev_after(c->sim, ns_of(left * j->slow), c->kind[K_END], (uint64_t)job);
}

/* Its ring leaves the fabric: it stops training (and so communicating). */
static void job_quiet(struct cl *c, int job)
{
	if (c->fab) {
		cfab_stop(c->fab, job);
		request_fabric(c);
	}
}

/* The job lets go of its nodes (those still busy with it). */
static void job_release(struct cl *c, int job)
{
	struct cjob *j = &c->js.v[job];

	books_advance(c);
	for (int i = 0; i < j->nodes; i++)
		if (c->f.state[j->node[i]] == FN_BUSY && c->f.job[j->node[i]] == job)
			fleet_set(&c->f, j->node[i], FN_FREE);
	memset(j->pool_nodes, 0, sizeof j->pool_nodes);
	c->running_gpus -= j->gpus;
	sched_stopped(&c->s, job);
}

/* --- the scheduler's hooks ---------------------------------------------- */

static int env_free(void *ctx)
{
	return ((struct cl *)ctx)->f.free_nodes;
}

static int env_start(void *ctx, int job, struct err *e)
{
	struct cl *c = ctx;
	struct cjob *j = &c->js.v[job];

	books_advance(c);
	if (j->node == NULL && (j->node = malloc((size_t)j->nodes * sizeof *j->node)) == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	j->leaves = fleet_place(&c->f, j->nodes, j->node);
	for (int i = 0; i < j->nodes; i++) {
		fleet_set(&c->f, j->node[i], FN_BUSY);
		c->f.job[j->node[i]] = job;
		j->pool_nodes[fleet_pool_of(&c->f, j->node[i])]++;
	}
	if (j->start_s < 0)
		j->start_s = now_s(c);
	j->seg_start_s = j->pace_since_s = now_s(c);
	j->seg_work_s = 0;
	j->slow = 1;	/* until the fabric says otherwise, at this instant */
	j->state = CJ_RUNNING;
	c->running_gpus += j->gpus;
	schedule_end(c, job);
	if (c->fab && cfab_start(c->fab, job, j->node, j->nodes, e) < 0)
		return -1;
	request_fabric(c);
	return sched_started(&c->s, job, now_s(c), e);
}

static int env_preempt(void *ctx, int job, struct err *e)
{
	struct cl *c = ctx;
	struct cjob *j = &c->js.v[job];

	ev_cancel(c->sim, j->end_ev);
	pace_settle(c, j);
	j->done_s += j->seg_work_s;	/* the checkpoint keeps it all */
	j->seg_work_s = 0;
	job_quiet(c, job);
	j->preemptions++;
	j->state = CJ_STOPPING;
	c->stopping_nodes += j->nodes;
	ev_after(c->sim, ns_of(c->s.cfg.preempt_checkpoint_s), c->kind[K_STOPPED],
		 (uint64_t)job);
	return rep_event(c->rep, now_s(c), "preempt", job, j->nodes, e);
}

/* A failure or reclaim: the work since the last checkpoint is lost. */
static int job_interrupt(struct cl *c, int job, struct err *e)
{
	struct cjob *j = &c->js.v[job];

	if (j->state != CJ_RUNNING)
		return 0;		/* stopping already: its checkpoint holds */
	pace_settle(c, j);
	double worked = j->done_s + j->seg_work_s;
	double keep = j->ckpt_s > 0 ? floor(worked / j->ckpt_s) * j->ckpt_s : 0;
	ev_cancel(c->sim, j->end_ev);
	job_quiet(c, job);
	j->seg_work_s = 0;
	if (job_charge(c, job, e) < 0)
		return -1;
	j->lost_s += worked - keep;
	j->done_s = keep;
	job_release(c, job);
	request_pass(c);
	return sched_enqueue(&c->s, job, e);
}

/* --- events -------------------------------------------------------------- */

static int on_arrive(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;

	(void)sim;
	c->arrived++;
	request_pass(c);
	return sched_enqueue(&c->s, (int)ev->arg, e);
}

static int on_end(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;
	int job = (int)ev->arg;
	struct cjob *j = &c->js.v[job];

	(void)sim;
	pace_settle(c, j);
	job_quiet(c, job);
	if (job_charge(c, job, e) < 0)
		return -1;
	j->done_s = j->work_s;
	j->seg_work_s = 0;
	j->end_s = now_s(c);
	j->state = CJ_DONE;
	job_release(c, job);
	c->done++;
	if (c->done == c->js.n)
		ev_stop(c->sim);	/* the run ends with its last job */
	request_pass(c);
	return 0;
}

static int on_stopped(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;
	int job = (int)ev->arg;

	(void)sim;
	if (job_charge(c, job, e) < 0)
		return -1;
	c->stopping_nodes -= c->js.v[job].nodes;
	job_release(c, job);
	request_pass(c);
	return sched_enqueue(&c->s, job, e);
}

/* Nothing can change by itself: every job has arrived, none runs or
 * stops, no node boots or is in repair -- yet some wait (they do not fit
 * what is up).  Only the autoscaler could still help. */
static bool quiescent(const struct cl *c)
{
	return c->arrived == c->js.n && c->s.nq > 0 && c->s.nr == 0 &&
	       c->stopping_nodes == 0 && c->booting == 0 && c->down == 0 &&
	       !c->pass_pending;
}

/* The waiting jobs can never start: give them their end state and end
 * the run now (rather than ticking to cluster_run.max_days). */
static int strand(struct cl *c, struct err *e)
{
	for (size_t i = 0; i < c->s.nq; i++) {
		int job = c->s.queue[i];
		c->js.v[job].state = CJ_STRANDED;
		if (rep_event(c->rep, now_s(c), "stranded", job, c->js.v[job].nodes, e) < 0)
			return -1;
	}
	c->stranded += c->s.nq;
	c->s.nq = 0;
	ev_stop(c->sim);
	return 0;
}

static int on_pass(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;
	struct sched_env env = { c, env_free, env_start, env_preempt, c->stopping_nodes };

	(void)sim, (void)ev;
	c->pass_pending = false;
	if (sched_pass(&c->s, &env, now_s(c), e) < 0)
		return -1;
	/* A fixed fleet: nothing will ever grow (elastic ones: on_tick). */
	return !c->elastic && quiescent(c) ? strand(c, e) : 0;
}

/* A running job's stretch on the shared fabric moved: its pace, and so
 * its end, move with it. */
static int on_stretch(void *ctx, int job, double stretch, struct err *e)
{
	struct cl *c = ctx;
	struct cjob *j = &c->js.v[job];

	(void)e;
	pace_settle(c, j);
	j->slow = cfab_slowdown(j->comm_frac, stretch);
	ev_cancel(c->sim, j->end_ev);
	schedule_end(c, job);
	return 0;
}

static int on_fabric(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;

	(void)sim, (void)ev;
	c->fabric_pending = false;
	return cfab_solve(c->fab, on_stretch, c, e);
}

/* Failures: a Poisson process over every slot, thinned to the nodes that
 * are up (the rate of a slot does not depend on the others). */
static void next_fail(struct cl *c)
{
	double rate = c->f.fail_per_node_s * c->f.n_nodes;

	if (rate > 0)
		ev_after(c->sim, ns_of(gsl_ran_exponential(c->rng_fail, 1.0 / rate)),
			 c->kind[K_FAIL], gsl_rng_uniform_int(c->rng_fail,
							      (unsigned long)c->f.n_nodes));
}

static int on_fail(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;
	int node = (int)ev->arg, job = c->f.job[node];
	enum fleet_node st = c->f.state[node];

	(void)sim;
	if (c->done < c->js.n)
		next_fail(c);
	if (st != FN_FREE && st != FN_BUSY)
		return 0;
	c->failures++;
	if (job >= 0) {
		c->js.v[job].failures++;
		if (job_interrupt(c, job, e) < 0)
			return -1;
	}
	books_advance(c);
	fleet_set(&c->f, node, FN_DOWN);
	c->down++;
	ev_after(c->sim, ns_of(c->f.repair_s), c->kind[K_REPAIR], (uint64_t)node);
	request_pass(c);
	return rep_event(c->rep, now_s(c), "node_failure", node, job, e);
}

static int on_repair(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;

	(void)sim, (void)e;
	if (c->f.state[ev->arg] == FN_DOWN) {
		books_advance(c);
		c->down--;
		fleet_set(&c->f, (int)ev->arg, FN_FREE);
		request_pass(c);
	}
	return 0;
}

/* Spot reclaims: per spot pool, a Poisson process over its slots. */
static void next_spot(struct cl *c, int p)
{
	const struct fleet_pool *q = &c->f.pool[p];
	double rate = q->preempt_per_node_s * q->max_nodes;

	if (rate > 0 && c->done < c->js.n)
		ev_after(c->sim, ns_of(gsl_ran_exponential(c->rng_spot, 1.0 / rate)),
			 c->kind[K_SPOT], (uint64_t)p);
}

static int on_spot(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;
	int p = (int)ev->arg;
	const struct fleet_pool *q = &c->f.pool[p];
	int node = q->base + (int)gsl_rng_uniform_int(c->rng_spot, (unsigned long)q->max_nodes);
	int job = c->f.job[node];
	enum fleet_node st = c->f.state[node];

	(void)sim;
	next_spot(c, p);
	if (st != FN_FREE && st != FN_BUSY)
		return 0;
	c->reclaims++;
	if (job >= 0) {
		c->js.v[job].preemptions++;
		if (job_interrupt(c, job, e) < 0)
			return -1;
	}
	books_advance(c);
	fleet_set(&c->f, node, FN_OFF);
	request_pass(c);
	return rep_event(c->rep, now_s(c), "spot_reclaim", node, job, e);
}

static int on_booted(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;

	(void)sim, (void)e;
	if (c->f.state[ev->arg] == FN_BOOT) {
		books_advance(c);
		c->booting--;
		fleet_set(&c->f, (int)ev->arg, FN_FREE);
		request_pass(c);
	}
	return 0;
}

static double utilisation(const struct cl *c)
{
	int held = 0;

	for (int p = 0; p < c->f.n_pools; p++)
		held += c->f.pool[p].held;
	return held ? c->running_gpus / ((double)held * c->f.gpus_per_node) : 0;
}

static int scale(struct cl *c, int dir, struct err *e)
{
	int want = c->rule.step_nodes, got = 0;

	books_advance(c);
	for (int k = 0; k < c->f.n_pools && got < want; k++) {
		int p = dir == AS_UP ? k : c->f.n_pools - 1 - k;
		const struct fleet_pool *q = &c->f.pool[p];
		if (q->klass == FC_RESERVED)
			continue;
		if (dir == AS_UP) {
			int n = fleet_grow(&c->f, p, want - got, c->place);
			for (int i = 0; i < n; i++)
				ev_after(c->sim, ns_of(c->rule.provision_s), c->kind[K_BOOTED],
					 (uint64_t)c->place[i]);
			c->booting += n;
			got += n;
		} else {
			got += fleet_shrink(&c->f, p, want - got);
		}
	}
	if (got == 0)
		return 0;
	dir == AS_UP ? c->scale_ups++ : c->scale_downs++;
	return rep_event(c->rep, now_s(c), dir == AS_UP ? "scale_up" : "scale_down", -1,
			 got, e);
}

static int on_tick(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;
	int d = as_sample(&c->win, &c->rule, utilisation(c), (double)c->s.nq);

	(void)ev;
	ev_after(sim, ns_of(c->rule.period_s), c->kind[K_TICK], 0);
	if (d != AS_HOLD && scale(c, d, e) < 0)
		return -1;
	/* Two whole windows quiescent, the second decided on quiescent
	 * samples alone, and no pool grew: it never will. */
	c->quiet_ticks = quiescent(c) ? c->quiet_ticks + 1 : 0;
	return c->quiet_ticks > 2 * c->win.want ? strand(c, e) : 0;
}

static int sample(struct cl *c, struct err *e)
{
	double v[8 + CJOB_POOLS_MAX];
	int held = 0, busy = 0, n = 0;

	books_advance(c);
	for (int p = 0; p < c->f.n_pools; p++) {
		held += c->f.pool[p].held;
		busy += c->f.pool[p].busy;
	}
	double usd_h = 0, cost = 0;
	for (int p = 0; p < c->f.n_pools; p++) {
		usd_h += c->f.pool[p].held * c->f.pool[p].usd_per_node_s * 3600;
		cost += c->pool_cost_usd[p];
	}
	v[n++] = utilisation(c);
	v[n++] = (double)c->running_gpus;
	v[n++] = (double)busy * c->f.gpus_per_node;
	v[n++] = (double)held * c->f.gpus_per_node;
	v[n++] = (double)c->s.nq;
	v[n++] = (double)c->s.nr;
	for (int p = 0; p < c->f.n_pools; p++)
		v[n++] = c->f.pool[p].held;
	v[n++] = power_w(c);
	v[n++] = usd_h;
	v[n++] = cost;
	return rep_sample(c->rep, now_s(c), v, e);
}

static int on_sample(struct ev_sim *sim, const struct ev *ev, void *ctx, struct err *e)
{
	struct cl *c = ctx;

	(void)ev;
	ev_after(sim, ns_of(sc_float(c->sc, "cluster_run.sample_interval_s")),
		 c->kind[K_SAMPLE], 0);
	return sample(c, e);
}

/* --- setup, output ------------------------------------------------------ */

static int declare_series(struct cl *c)
{
	static const char *const names[][2] = {
		{ "utilisation", "" }, { "running_gpus", "GPUs" }, { "allocated_gpus", "GPUs" },
		{ "held_gpus", "GPUs" }, { "queue_length", "jobs" }, { "running_jobs", "jobs" },
	};
	char name[96];
	int rc = 0;

	for (size_t i = 0; i < sizeof names / sizeof *names; i++)
		rc |= rep_series(c->rep, names[i][0], names[i][1]);
	for (int p = 0; p < c->f.n_pools; p++) {
		snprintf(name, sizeof name, "pool_%s_nodes", c->f.pool[p].name);
		rc |= rep_series(c->rep, name, "nodes");
	}
	rc |= rep_series(c->rep, "power_w", "W");
	rc |= rep_series(c->rep, "cost_rate_usd_per_h", "USD/h");
	rc |= rep_series(c->rep, "cost_usd", "USD");
	return rc;
}

/* The /events kinds, with what their who and value mean. */
static int declare_events(struct cl *c)
{
	static const char *const kinds[][2] = {
		{ "budget_alert", "a team's cost crossed its budget; who = team index, "
				  "value = its cost so far (USD)" },
		{ "preempt", "a job is preempted for a higher-priority one; who = job "
			     "index, value = its nodes" },
		{ "node_failure", "a node failed; who = node, value = the job it ran (-1: "
				  "none)" },
		{ "spot_reclaim", "the provider took a spot node back; who = node, "
				  "value = the job it ran (-1: none)" },
		{ "scale_up", "the autoscaler requested nodes; value = how many" },
		{ "scale_down", "the autoscaler released nodes; value = how many" },
		{ "stranded", "a job can never start; who = job index, value = its nodes" },
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		rc |= rep_event_kind(c->rep, kinds[i][0], kinds[i][1]);
	return rc;
}

static int cl_setup(struct cl *c, const struct scenario *sc, struct report *rep,
		    struct err *e)
{
	static const struct { const char *name; ev_handler fn; } kinds[K_COUNT] = {
		{ "arrive", on_arrive }, { "end", on_end }, { "stopped", on_stopped },
		{ "fail", on_fail }, { "repair", on_repair }, { "spot", on_spot },
		{ "booted", on_booted }, { "tick", on_tick }, { "sample", on_sample },
		{ "pass", on_pass }, { "fabric", on_fabric },
	};
	uint64_t seed = (uint64_t)sc_int(sc, "cluster_run.seed");
	struct sched_cfg scfg;
	int max_nodes = 0;

	c->sc = sc;
	c->rep = rep;
	if (fleet_from_scenario(sc, &c->f, e) < 0 ||
	    jobgen_from_scenario(sc, sc_str(sc, "fleet.gpu"), c->f.gpus_per_node, seed,
				 &c->js, e) < 0)
		return -1;
	for (int p = 0; p < c->f.n_pools; p++) {
		max_nodes += c->f.pool[p].max_nodes;
		c->elastic = c->elastic || (c->f.pool[p].klass != FC_RESERVED &&
					    c->f.pool[p].max_nodes > c->f.pool[p].min_nodes);
	}
	for (size_t i = 0; i < c->js.n; i++)
		if (c->js.v[i].nodes > max_nodes)
			return sc_error(sc, e, "fleet.pools", "job %lld (%s) needs %d nodes; "
					"the fleet has at most %d",
					(long long)c->js.v[i].id, c->js.classes[c->js.v[i].klass],
					c->js.v[i].nodes, max_nodes);
	if (c->js.n > INT32_MAX / 2)
		return sc_error(sc, e, "workload", "more than 2^30 jobs");
	sched_cfg_from_scenario(sc, &scfg);
	sched_init(&c->s, &scfg, c->js.v);
	as_from_scenario(sc, &c->rule);
	if (c->rule.down_util >= c->rule.up_util)
		return sc_error(sc, e, "autoscale.down_util", "%g is not below "
				"autoscale.up_util (%g): every window would both grow and "
				"shrink", c->rule.down_util, c->rule.up_util);
	if (c->rule.window_s < c->rule.period_s)
		return sc_error(sc, e, "autoscale.window_s", "%g s is shorter than "
				"autoscale.period_s (%g s): no window holds a sample",
				c->rule.window_s, c->rule.period_s);
	as_window_init(&c->win, &c->rule);
	if (cfab_new(sc, &c->f, &c->js, &c->fab, e) < 0)
		return -1;
	c->place = malloc(((size_t)c->f.n_nodes + 1) * sizeof *c->place);
	c->team_usd = calloc(c->js.n_teams + 1, sizeof *c->team_usd);
	c->team_class_usd = calloc(c->js.n_teams + 1, sizeof *c->team_class_usd);
	c->team_alerted = calloc(c->js.n_teams + 1, sizeof *c->team_alerted);
	c->sim = ev_sim_new();
	c->rng_fail = rng_stream(seed, "cluster.failures");
	c->rng_spot = rng_stream(seed, "cluster.spot");
	if (!c->place || !c->team_usd || !c->team_class_usd || !c->team_alerted || !c->sim || !c->rng_fail ||
	    !c->rng_spot)
		return err_set(e, ERR_RUN, "out of memory");
	for (int k = 0; k < K_COUNT; k++)
		c->kind[k] = ev_kind(c->sim, kinds[k].name, kinds[k].fn, c);
	if (declare_series(c) != 0)
		return err_set(e, ERR_RUN, "time series: bad or repeated pool name");
	if (declare_events(c) != 0)
		return err_set(e, ERR_RUN, "event kinds: bad or repeated");
	return 0;
}

static void cl_free(struct cl *c)
{
	ev_sim_free(c->sim);
	cfab_free(c->fab);
	if (c->rng_fail)
		gsl_rng_free(c->rng_fail);
	if (c->rng_spot)
		gsl_rng_free(c->rng_spot);
	sched_free(&c->s);
	cjobs_free(&c->js);
	fleet_free(&c->f);
	free(c->place);
	free(c->team_usd);
	free(c->team_class_usd);
	free(c->team_alerted);
}

static int by_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static const char *const state_names[CJ_COUNT] = {
	"pending", "queued", "running", "stopping", "done", "stranded"
};

enum { JC_ID, JC_SUBMIT, JC_START, JC_END, JC_WAIT, JC_GPUS, JC_NODES, JC_LEAVES,
       JC_COST, JC_ENERGY, JC_CARBON, JC_PRIORITY, JC_PREEMPT, JC_FAIL, JC_LOST,
       JC_GPU_H, JC_SLOWDOWN, JC_COMM, JC_FABRIC, JC_COUNT };

/* Wall time over work done while running (1: never slowed; NaN: never
 * ran). */
static double fabric_slowdown(const struct cjob *j)
{
	return j->run_work_s > 0 ? j->run_wall_s / j->run_work_s :
	       j->start_s < 0 ? NAN : 1;
}

static int write_jobs(struct cl *c, struct err *e)
{
	static const char *const cols[JC_COUNT][2] = {
		{ "id", "" }, { "submit_s", "s" }, { "start_s", "s" }, { "end_s", "s" },
		{ "wait_s", "s" }, { "gpus", "GPUs" }, { "nodes", "nodes" },
		{ "leaves", "switches" }, { "cost_usd", "USD" }, { "energy_kwh", "kWh" },
		{ "carbon_kg", "kg" }, { "priority", "" }, { "preemptions", "" },
		{ "failures", "" }, { "lost_work_s", "s" }, { "gpu_hours", "GPU-h" },
		{ "slowdown", "" }, { "comm_fraction", "" }, { "fabric_slowdown", "" },
	};
	size_t n = c->js.n;
	double *v = malloc((n ? n : 1) * JC_COUNT * sizeof *v);
	const char **lab = malloc((n ? n : 1) * 4 * sizeof *lab);
	int rc = 0;

	if (v == NULL || lab == NULL) {
		free(v);
		free(lab);
		return err_set(e, ERR_RUN, "out of memory");
	}
	for (size_t i = 0; i < n; i++) {
		const struct cjob *j = &c->js.v[i];
		double *r = v + i;
		double end = j->end_s, run = end - j->start_s;
		r[JC_ID * n] = (double)j->id;
		r[JC_SUBMIT * n] = j->submit_s;
		r[JC_START * n] = j->start_s < 0 ? NAN : j->start_s;
		r[JC_END * n] = end < 0 ? NAN : end;
		r[JC_WAIT * n] = j->start_s < 0 ? NAN : j->start_s - j->submit_s;
		r[JC_GPUS * n] = j->gpus;
		r[JC_NODES * n] = j->nodes;
		r[JC_LEAVES * n] = j->leaves;
		r[JC_COST * n] = j->cost_usd;
		r[JC_ENERGY * n] = j->energy_kwh;
		r[JC_CARBON * n] = j->carbon_kg;
		r[JC_PRIORITY * n] = j->priority;
		r[JC_PREEMPT * n] = j->preemptions;
		r[JC_FAIL * n] = j->failures;
		r[JC_LOST * n] = j->lost_s;
		r[JC_GPU_H * n] = j->gpu_s / 3600;
		/* Bounded slowdown, 10 s threshold (Feitelson et al., JSSPP 1997). */
		r[JC_SLOWDOWN * n] = end < 0 ? NAN :
			fmax(1, (end - j->submit_s) / fmax(j->work_s, 10));
		(void)run;
		r[JC_COMM * n] = j->comm_frac;
		r[JC_FABRIC * n] = fabric_slowdown(j);
		lab[i] = state_names[j->state];
		lab[n + i] = c->js.teams[j->team];
		lab[2 * n + i] = c->js.projects[j->project];
		lab[3 * n + i] = c->js.classes[j->klass];
	}
	for (int k = 0; k < JC_COUNT && rc == 0; k++)
		rc = rep_table_vector(c->rep, "jobs", cols[k][0], v + (size_t)k * n, n,
				      cols[k][1], e);
	static const char *const lnames[4] = { "state", "team", "project", "class" };
	for (int k = 0; k < 4 && rc == 0; k++)
		rc = rep_table_labels(c->rep, "jobs", lnames[k], lab + (size_t)k * n, n, e);
	free(v);
	free(lab);
	return rc;
}

/* /teams: each team's cost by pricing class, then one row for the
 * capacity held but unused (the idle lines), so the rows sum to the
 * fleet total. */
static int write_teams(struct cl *c, struct err *e)
{
	size_t n = c->js.n_teams + 1;
	double *v = calloc(n * (FC_COUNT + 1), sizeof *v);
	const char **lab = malloc(n * sizeof *lab);
	char col[64];
	int rc = 0;

	if (v == NULL || lab == NULL) {
		free(v);
		free(lab);
		return err_set(e, ERR_RUN, "out of memory");
	}
	for (size_t t = 0; t < c->js.n_teams; t++) {
		lab[t] = c->js.teams[t];
		for (int k = 0; k < FC_COUNT; k++)
			v[k * n + t] = c->team_class_usd[t][k];
		v[FC_COUNT * n + t] = c->team_usd[t];
	}
	lab[n - 1] = "idle capacity";
	for (int p = 0; p < c->f.n_pools; p++) {
		double idle = c->pool_cost_usd[p] - c->pool_job_usd[p];
		v[c->f.pool[p].klass * n + n - 1] += idle;
		v[FC_COUNT * n + n - 1] += idle;
	}
	rc = rep_table_labels(c->rep, "teams", "team", lab, n, e);
	for (int k = 0; k <= FC_COUNT && rc == 0; k++) {
		snprintf(col, sizeof col, "%s_usd", k < FC_COUNT ? fleet_class_names[k] : "cost");
		rc = rep_table_vector(c->rep, "teams", col, v + (size_t)k * n, n, "USD", e);
	}
	free(v);
	free(lab);
	return rc;
}

static void write_summary(struct cl *c, double end_s)
{
	struct report *r = c->rep;
	size_t n = c->js.n, k = 0;
	double *wait = malloc((n ? n : 1) * sizeof *wait);
	double wsum = 0, sd = 0, useful = 0, total = 0, idle_res = 0, idle_el = 0;
	double gpu_s = 0, carbon = 0, leaves = 0, fab = 0, fab_max = 1;
	size_t slowed = 0;
	char name[160];

	for (size_t i = 0; i < n; i++) {
		const struct cjob *j = &c->js.v[i];
		gpu_s += j->gpu_s;
		carbon += j->carbon_kg;
		if (j->state != CJ_DONE)
			continue;
		double w = j->start_s - j->submit_s;
		if (wait)
			wait[k] = w;
		k++;
		wsum += w;
		sd += fmax(1, (j->end_s - j->submit_s) / fmax(j->work_s, 10));
		useful += j->work_s * j->gpus;
		leaves += j->leaves;
		double f = fabric_slowdown(j);
		fab += f;
		fab_max = fmax(fab_max, f);
		slowed += f > 1;
	}
	for (int p = 0; p < c->f.n_pools; p++) {
		double idle = c->pool_cost_usd[p] - c->pool_job_usd[p];
		total += c->pool_cost_usd[p];
		if (c->f.pool[p].klass == FC_RESERVED)
			idle_res += idle;
		else
			idle_el += idle;
	}
	rep_summary(r, "duration_s", end_s, "s");
	rep_summary(r, "jobs", (double)n, "");
	rep_summary(r, "jobs_done", (double)k, "");
	rep_summary(r, "jobs_stranded", (double)c->stranded, "");
	rep_summary(r, "jobs_unfinished", (double)(n - k - c->stranded), "");
	rep_summary(r, "utilisation", c->held_gpu_s > 0 ? c->running_gpu_s / c->held_gpu_s : 0,
		    "");
	rep_summary(r, "mean_wait_s", k ? wsum / k : NAN, "s");
	if (wait && k) {
		qsort(wait, k, sizeof *wait, by_double);
		/* nearest rank: the ceil(0.95 k)-th smallest */
		rep_summary(r, "p95_wait_s", wait[(size_t)ceil(0.95 * k) - 1], "s");
	} else {
		rep_summary(r, "p95_wait_s", NAN, "s");
	}
	rep_summary(r, "mean_bounded_slowdown", k ? sd / k : NAN, "");
	rep_summary(r, "goodput", gpu_s > 0 ? useful / gpu_s : 0, "");
	rep_summary(r, "mean_leaves_per_job", k ? leaves / k : NAN, "");
	rep_summary(r, "mean_fabric_slowdown", k ? fab / k : NAN, "");
	rep_summary(r, "max_fabric_slowdown", k ? fab_max : NAN, "");
	rep_summary(r, "jobs_fabric_slowed", (double)slowed, "");
	rep_summary(r, "gpu_hours", gpu_s / 3600, "GPU-h");
	rep_summary(r, "cost_usd", total, "USD");
	rep_summary(r, "idle_reserved_usd", idle_res, "USD");
	rep_summary(r, "idle_elastic_usd", idle_el, "USD");
	rep_summary(r, "energy_kwh", c->energy_kwh, "kWh");
	rep_summary(r, "idle_energy_kwh", c->energy_kwh - c->job_energy_kwh, "kWh");
	rep_summary(r, "carbon_kg", c->energy_kwh * c->f.grid_kg_per_kwh, "kg");
	rep_summary(r, "jobs_carbon_kg", carbon, "kg");
	rep_summary(r, "failures", c->failures, "");
	rep_summary(r, "spot_reclaims", c->reclaims, "");
	rep_summary(r, "scale_ups", c->scale_ups, "");
	rep_summary(r, "scale_downs", c->scale_downs, "");
	rep_summary(r, "events", (double)ev_count(c->sim), "");
	for (int p = 0; p < c->f.n_pools; p++) {
		snprintf(name, sizeof name, "cost_usd_pool_%s", c->f.pool[p].name);
		rep_summary(r, name, c->pool_cost_usd[p], "USD");
		snprintf(name, sizeof name, "node_hours_pool_%s", c->f.pool[p].name);
		rep_summary(r, name, c->pool_held_s[p] / 3600, "node-h");
	}
	for (size_t t = 0; t < c->js.n_teams; t++) {
		snprintf(name, sizeof name, "cost_usd_team_%s", c->js.teams[t]);
		rep_summary(r, name, c->team_usd[t], "USD");
	}
	free(wait);
}

int cluster_simulate(const struct scenario *sc, struct report *rep, struct err *e)
{
	struct cl c;
	int rc = -1;

	memset(&c, 0, sizeof c);
	if (cl_setup(&c, sc, rep, e) < 0)
		goto out;
	for (size_t i = 0; i < c.js.n; i++) {
		/* On the clock's nanosecond grid, so a job started on arrival
		 * waits exactly 0 s. */
		int64_t at = ns_of(c.js.v[i].submit_s);
		c.js.v[i].submit_s = (double)at / EV_NS_PER_S;
		ev_at(c.sim, at, c.kind[K_ARRIVE], i);
	}
	ev_at(c.sim, 0, c.kind[K_SAMPLE], 0);
	if (c.elastic)
		ev_at(c.sim, ns_of(c.rule.period_s), c.kind[K_TICK], 0);
	next_fail(&c);
	for (int p = 0; p < c.f.n_pools; p++)
		next_spot(&c, p);
	/* No jobs: nothing to simulate (the run would tick to max_days). */
	if (c.js.n > 0 &&
	    ev_run(c.sim, ns_of(sc_float(sc, "cluster_run.max_days") * 86400), e) < 0)
		goto out;
	/* Jobs still holding nodes at the end are charged up to it. */
	for (size_t i = 0; i < c.js.n; i++) {
		pace_settle(&c, &c.js.v[i]);
		if ((c.js.v[i].state == CJ_RUNNING || c.js.v[i].state == CJ_STOPPING) &&
		    job_charge(&c, (int)i, e) < 0)
			goto out;
	}
	if (sample(&c, e) < 0 || write_jobs(&c, e) < 0 || write_teams(&c, e) < 0)
		goto out;
	write_summary(&c, now_s(&c));
	rc = 0;
out:
	cl_free(&c);
	return rc;
}

int cluster_check(const struct scenario *sc, FILE *out, struct err *e)
{
	struct cl c;
	int rc = -1;

	memset(&c, 0, sizeof c);
	struct report *rep = rep_new();
	if (rep == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	if (cl_setup(&c, sc, rep, e) == 0) {
		fprintf(out, "# fleet: %d pools, %d node slots, %d leaves of %d nodes; "
			"%zu jobs, %zu teams\n", c.f.n_pools, c.f.n_nodes, c.f.n_leaves,
			c.f.nodes_per_leaf, c.js.n, c.js.n_teams);
		rc = 0;
	}
	cl_free(&c);
	rep_free(rep);
	return rc;
}
