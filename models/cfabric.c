/*
 * cfabric.c -- jobs sharing the fleet's fabric (see cfabric.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/cfabric.h"
#include "topologies/flow.h"
#include "topologies/topo.h"

const struct cfg_setting cfab_settings[] = {
	{ "fabric.sharing", CFG_BOOL, "", 0, 0, "true", NULL,
	  "running jobs' collectives share the fleet's network (max-min), so a "
	  "job's pace depends on where it and its neighbours run; false: every "
	  "job runs as if alone" },
	CFG_END
};

/* A standing flow never finishes: no solve here advances time. */
#define CFAB_BYTES 1e30

struct cfab_job {
	int32_t *flow;			/* its ring's flows while it runs */
	int n_flow;
	bool on;			/* its ring is on the fabric */
	double private_Bps;		/* its slowest flow that shares no link */
	double alone_Bps, stretch;
	bool seen;			/* cfab_solve's mark */
};

struct cfab {
	struct net *net;
	struct flow_sys *fs;		/* every running job's flows */
	struct flow_sys *alone;		/* one job's at a time */
	const struct cjobs *js;
	int gpus_per_node, nics;
	struct cfab_job *job;
	bool dirty;
	int32_t *scratch;		/* a job's flow ids alone; the jobs a solve re-rated */
};

static bool communicates(const struct cjob *j)
{
	return j->comm_frac > 0;
}

int cfab_new(const struct scenario *sc, const struct fleet *f, const struct cjobs *js,
	     struct cfab **out, struct err *e)
{
	bool any = false;

	*out = NULL;
	for (size_t i = 0; i < js->n && !any; i++)
		any = communicates(&js->v[i]) && js->v[i].nodes > 1;
	if (!sc_bool(sc, "fabric.sharing") || !any)
		return 0;
	struct cfab *fab = calloc(1, sizeof *fab);
	struct net_cfg *cfg = NULL;
	if (fab == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	fab->js = js;
	fab->gpus_per_node = f->gpus_per_node;
	cfg = net_cfg_for_gpus(sc, sc_str(sc, "fleet.gpu"), f->n_nodes * f->gpus_per_node,
			       f->gpus_per_node, "fleet.pools", e);
	if (cfg == NULL || (fab->net = net_build(cfg, e)) == NULL)
		goto fail;
	net_cfg_free(cfg);
	cfg = NULL;
	fab->nics = fab->net->p.nics_per_node;
	struct graph *g = &fab->net->g;
	fab->fs = flow_sys_new(g->n_links, g->bw_Bps, g->tier, TIER_COUNT, e);
	fab->alone = flow_sys_new(g->n_links, g->bw_Bps, g->tier, TIER_COUNT, e);
	fab->job = calloc(js->n + 1, sizeof *fab->job);
	fab->scratch = malloc(((size_t)f->n_nodes * fab->nics + 1) * sizeof *fab->scratch);
	if (!fab->fs || !fab->alone || !fab->job || !fab->scratch) {
		err_set(e, ERR_RUN, "out of memory for the shared fabric");
		goto fail;
	}
	*out = fab;
	return 0;
fail:
	net_cfg_free(cfg);
	cfab_free(fab);
	return -1;
}

void cfab_free(struct cfab *fab)
{
	if (fab == NULL)
		return;
	for (size_t i = 0; fab->job && i < fab->js->n; i++)
		free(fab->job[i].flow);
	free(fab->job);
	free(fab->scratch);
	flow_sys_free(fab->fs);
	flow_sys_free(fab->alone);
	net_free(fab->net);
	free(fab);
}

/* Links no other job's flow can cross: a GPU's NVLink or PCIe hop, a
 * NIC's link to its leaf (or router).  A node is never shared and its ring
 * sends one flow a channel out of each node and one into the next, so a
 * flow that crosses only these is alone on all of them: its rate is its
 * path's least capacity, now and whoever else runs. */
static bool private_tier(int tier)
{
	return tier == TIER_NVLINK || tier == TIER_PCIE || tier == TIER_LEAF ||
	       tier == TIER_TERMINAL;
}

/* Add the ring over nodes (n >= 2) to fs, its flow ids into ids: the
 * flows that cross a switch-to-switch link.  The others (an edge inside
 * one leaf) go into *private_Bps, the least of their rates. */
static int add_ring(struct cfab *fab, struct flow_sys *fs, int job, const int *nodes,
		    int n, int32_t *ids, double *private_Bps, struct err *e)
{
	int32_t path[NET_PATH_MAX];
	int per_nic = fab->gpus_per_node / fab->nics, k = 0;
	const struct graph *g = &fab->net->g;

	*private_Bps = INFINITY;
	for (int i = 0; i < n; i++) {
		int next = nodes[(i + 1) % n];
		for (int c = 0; c < fab->nics; c++) {
			int src = nodes[i] * fab->gpus_per_node + c * per_nic;
			int dst = next * fab->gpus_per_node + c * per_nic;
			int len = net_route(fab->net, src, dst, (uint64_t)c, NULL, path);
			double cap = INFINITY;
			bool alone = true;
			for (int h = 0; h < len; h++) {
				alone = alone && private_tier(g->tier[path[h]]);
				cap = fmin(cap, g->bw_Bps[path[h]]);
			}
			if (alone) {
				*private_Bps = fmin(*private_Bps, cap);
				continue;
			}
			int32_t id = flow_add(fs, path, len, CFAB_BYTES, 0, (uint64_t)job, 0, e);
			if (id < 0)
				return -1;
			ids[k++] = id;
		}
	}
	return k;
}

/* The ring's pace: its slowest flow. */
static double ring_Bps(const struct flow_sys *fs, const int32_t *ids, int n)
{
	double r = INFINITY;

	for (int i = 0; i < n; i++)
		r = fmin(r, flow_rate_Bps(fs, ids[i]));
	return r;
}

int cfab_start(struct cfab *fab, int job, const int *nodes, int n, struct err *e)
{
	struct cfab_job *fj = &fab->job[job];

	if (!communicates(&fab->js->v[job]) || n < 2)
		return 0;
	/* Alone: the job's flows on an empty fabric. */
	int k = add_ring(fab, fab->alone, job, nodes, n, fab->scratch, &fj->private_Bps, e);
	if (k < 0)
		return -1;
	if (k == 0)
		return 0;	/* inside its leaves: nobody slows it */
	flow_solve(fab->alone, 0);
	fj->alone_Bps = fmin(fj->private_Bps, ring_Bps(fab->alone, fab->scratch, k));

	/* Shared: the same flows, routed once, on the fabric everyone uses. */
	if ((fj->flow = malloc((size_t)k * sizeof *fj->flow)) == NULL)
		return err_set(e, ERR_RUN, "out of memory for the shared fabric");
	for (int i = 0; i < k; i++) {
		const int32_t *path;
		int len = flow_path(fab->alone, fab->scratch[i], &path);
		if ((fj->flow[i] = flow_add(fab->fs, path, len, CFAB_BYTES, 0, (uint64_t)job, 0,
					    e)) < 0)
			return -1;
		fj->n_flow++;
	}
	for (int i = 0; i < k; i++)
		flow_cancel(fab->alone, fab->scratch[i]);
	flow_solve(fab->alone, 0);	/* forget them now, not at the next job */
	fj->stretch = 1;
	fj->on = true;
	fab->dirty = true;
	return 0;
}

void cfab_stop(struct cfab *fab, int job)
{
	struct cfab_job *fj = &fab->job[job];

	if (!fj->on)
		return;
	for (int i = 0; i < fj->n_flow; i++)
		flow_cancel(fab->fs, fj->flow[i]);
	free(fj->flow);
	fj->flow = NULL;
	fj->n_flow = 0;
	fj->on = false;
	fab->dirty = true;
}

bool cfab_dirty(const struct cfab *fab)
{
	return fab->dirty;
}

static int by_id(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
	return (x > y) - (x < y);
}

int cfab_solve(struct cfab *fab, cfab_changed_fn changed, void *ctx, struct err *e)
{
	const int32_t *ids;
	int n = 0;

	if (!fab->dirty)
		return 0;
	fab->dirty = false;
	flow_solve(fab->fs, 0);
	/* The jobs whose flows were re-rated (each once), in job order: the
	 * callbacks schedule events, whose order the output follows. */
	int32_t nf = flow_solved(fab->fs, &ids);
	for (int32_t i = 0; i < nf; i++) {
		int job = (int)flow_owner(fab->fs, ids[i]);
		if (!fab->job[job].seen) {
			fab->job[job].seen = true;
			fab->scratch[n++] = job;
		}
	}
	qsort(fab->scratch, (size_t)n, sizeof *fab->scratch, by_id);
	for (int i = 0; i < n; i++) {
		int job = fab->scratch[i];
		struct cfab_job *fj = &fab->job[job];
		fj->seen = false;
		if (!fj->on)
			continue;	/* its flows are gone */
		double s = fj->alone_Bps / fmin(fj->private_Bps,
						ring_Bps(fab->fs, fj->flow, fj->n_flow));
		/* Others' flows never speed a job up (max-min is not
		 * monotone), and a rate that differs from its alone one only
		 * by the filling's rounding is not slowed. */
		if (s < 1 + 1e-12)
			s = 1;
		if (s != fj->stretch) {
			fj->stretch = s;
			if (changed(ctx, job, s, e) < 0)
				return -1;
		}
	}
	return 0;
}

double cfab_slowdown(double comm_fraction, double stretch)
{
	return 1 + comm_fraction * (stretch - 1);
}

unsigned long long cfab_rated(const struct cfab *fab)
{
	return fab ? flow_stat_rated(fab->fs) : 0;
}
