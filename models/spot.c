/* spot.c -- see spot.h. */
#include <math.h>
#include <string.h>

#include "models/failure.h"
#include "models/spot.h"

const struct cfg_setting spot_settings[] = {
	{ "pools.*.preemption_per_node_hour", CFG_FLOAT, "1/(node h)", 0, 1e4, "0", NULL,
	  "spot: preemptions per held node-hour (rate model)" },
	{ "pools.*.interruption_band", CFG_ENUM, "", 0, 0, "none",
	  "none|lt5|5to10|10to15|15to20|gt20",
	  "spot: AWS Spot Advisor interruption band (% of capacity reclaimed a month)" },
	{ "pools.*.notice_s", CFG_FLOAT, "s", 0, 1e6, "120", NULL,
	  "spot: warning before a preemption (AWS 120 s, GCP and Azure 30 s)" },
	{ "pools.*.replacement_s", CFG_FLOAT, "s", 0, 1e9, "600", NULL,
	  "spot, rate model: time until a preempted node is replaced" },
	{ "pools.*.capacity_trace", CFG_STRING, "", 0, 0, "", NULL,
	  "spot: capacity trace to replay (skypilot .json or Bamboo .csv)" },
	{ "pools.*.capacity_scale", CFG_INT, "nodes", 1, 1e6, "1", NULL,
	  "spot: nodes per instance counted in the trace" },
	{ "pools.*.capacity_offset_s", CFG_FLOAT, "s", 0, 1e12, "0", NULL,
	  "spot: where in the trace the run starts" },
	{ "pools.*.capacity_loop", CFG_BOOL, "", 0, 0, "true", NULL,
	  "spot: replay the trace again from its start when it ends" },
	{ "spot.policy", CFG_ENUM, "", 0, 0, "wait", "wait|elastic",
	  "after a preemption: wait for full capacity, or continue with fewer "
	  "data-parallel replicas" },
	{ "spot.batch", CFG_ENUM, "", 0, 0, "keep", "keep|shrink",
	  "elastic: keep the global batch (more accumulation) or shrink it with dp" },
	CFG_END
};

/* Midpoints of the AWS Spot Instance Advisor bands, share of capacity
 * reclaimed per trailing month (<5%, 5-10%, 10-15%, 15-20%, >20%: AWS's
 * wording as quoted by pkg.go.dev/github.com/grailbio/base/cloud/spotadvisor). */
static const struct { const char *name; double monthly; } bands[] = {
	{ "none", 0 }, { "lt5", 0.025 }, { "5to10", 0.075 }, { "10to15", 0.125 },
	{ "15to20", 0.175 }, { "gt20", 0.25 },
};
#define HOURS_PER_MONTH 730.0

static double band_rate(const char *name)
{
	for (size_t i = 0; i < sizeof bands / sizeof bands[0]; i++)
		if (strcmp(bands[i].name, name) == 0)
			return bands[i].monthly / HOURS_PER_MONTH / 3600.0;
	return 0;
}

/* Change points closer than the run model resolves: every change is an
 * event, and ones closer than a nanosecond (gap_seconds = 1e-300) land on
 * the same instant again and again.  A millisecond is far below any
 * provider's capacity reporting (SkyPilot's traces: 300 s) and far above
 * the engine's nanosecond. */
#define SPOT_TRACE_RESOLUTION_S 1e-3

static int spot_check_spacing(const struct scenario *sc, const char *n,
			      const struct replay_cap *tr, struct err *e)
{
	char key[256];
	double gap_s = tr->end_s > 0 ? tr->end_s : INFINITY;

	for (size_t i = 1; i < tr->n; i++)
		gap_s = fmin(gap_s, tr->t_s[i] - tr->t_s[i - 1]);
	if (tr->n > 0 && tr->end_s > tr->t_s[tr->n - 1])
		gap_s = fmin(gap_s, tr->end_s - tr->t_s[tr->n - 1]);
	if (gap_s >= SPOT_TRACE_RESOLUTION_S)
		return 0;
	snprintf(key, sizeof key, "pools.%s.capacity_trace", n);
	return sc_error(sc, e, key, "change points %g s apart (expected at least "
			"%g s, the run model's trace resolution)", gap_s,
			SPOT_TRACE_RESOLUTION_S);
}

static int read_pool(const struct scenario *sc, const struct pool *p, int idx,
		     struct spot_pool *sp, struct err *e)
{
	const char *n = p->name;
	const char *trace = sc_str(sc, "pools.%s.capacity_trace", n);
	double per_h = sc_float(sc, "pools.%s.preemption_per_node_hour", n);
	double band = band_rate(sc_str(sc, "pools.%s.interruption_band", n));
	char key[256];

	memset(sp, 0, sizeof *sp);
	sp->pool = idx;
	sp->nodes = p->nodes;
	sp->notice_s = sc_float(sc, "pools.%s.notice_s", n);
	sp->replacement_s = sc_float(sc, "pools.%s.replacement_s", n);
	sp->scale = (int)sc_int(sc, "pools.%s.capacity_scale", n);
	sp->offset_s = sc_float(sc, "pools.%s.capacity_offset_s", n);
	sp->loop = sc_bool(sc, "pools.%s.capacity_loop", n);
	if ((per_h > 0) + (band > 0) + (trace[0] != 0) > 1) {
		snprintf(key, sizeof key, "pools.%s", n);
		return sc_error(sc, e, key, "more than one preemption model (expected one of "
				"preemption_per_node_hour, interruption_band, trace)");
	}
	sp->rate_per_node_s = per_h > 0 ? per_h / 3600.0 : band;
	if (trace[0]) {
		char path[4096];
		snprintf(key, sizeof key, "pools.%s.capacity_trace", n);
		if (sc_path(sc, key, trace, path, sizeof path, e) < 0)
			return -1;
		if (replay_read_capacity(path, &sp->tr, e) < 0)
			return sc_where_named(sc_where_of(sc), e, key);
		sp->has_trace = true;
		if (spot_check_spacing(sc, n, &sp->tr, e) < 0) {
			replay_cap_free(&sp->tr);
			sp->has_trace = false;
			return -1;
		}
	}
	return 0;
}

int spot_from_scenario(const struct scenario *sc, const struct pools *pools,
		       struct spot *s, struct err *e)
{
	memset(s, 0, sizeof *s);
	s->elastic = strcmp(sc_str(sc, "spot.policy"), "elastic") == 0;
	s->shrink_batch = strcmp(sc_str(sc, "spot.batch"), "shrink") == 0;
	for (int i = 0; i < pools->n; i++) {
		const struct pool *p = &pools->p[i];
		if (p->cls != POOL_SPOT) {
			if (sc_str(sc, "pools.%s.capacity_trace", p->name)[0] ||
			    sc_float(sc, "pools.%s.preemption_per_node_hour", p->name) > 0) {
				char key[256];
				snprintf(key, sizeof key, "pools.%s.class", p->name);
				spot_free(s);
				return sc_error(sc, e, key, "preemptions set on a %s pool "
						"(expected class = \"spot\")",
						pool_class_names[p->cls]);
			}
			continue;
		}
		if (read_pool(sc, p, i, &s->sp[s->n], e) < 0) {
			spot_free(s);
			return -1;
		}
		s->rate_per_s += s->sp[s->n].nodes * s->sp[s->n].rate_per_node_s;
		s->n++;
	}
	return 0;
}

void spot_free(struct spot *s)
{
	for (int i = 0; i < s->n; i++)
		replay_cap_free(&s->sp[i].tr);
	s->n = 0;
}

static int scaled(const struct spot_pool *p, int count)
{
	long v = (long)count * p->scale;

	return v < p->nodes ? (int)v : p->nodes;
}

int spot_avail_at(const struct spot_pool *p, double t_s)
{
	if (!p->has_trace)
		return p->nodes;
	return scaled(p, replay_cap_at(&p->tr, t_s + p->offset_s, p->loop));
}

double spot_next_change(const struct spot_pool *p, double t_s, int *avail)
{
	const struct replay_cap *tr = &p->tr;
	double x = t_s + p->offset_s, base = 0, end = tr->end_s;
	int now = spot_avail_at(p, t_s);
	size_t i = 0;

	if (!p->has_trace)
		return INFINITY;
	if (p->loop && end > 0 && x >= end) {
		base = floor(x / end) * end;
		x -= base;
	}
	while (i < tr->n && tr->t_s[i] <= x)	/* first change point after x */
		i++;
	/* Walk change points (wrapping) until the scaled count differs. */
	for (size_t steps = 0; steps <= tr->n + 1; steps++) {
		if (i == tr->n) {
			if (!p->loop || end <= 0)
				return INFINITY;
			base += end;
			i = 0;
		}
		int v = scaled(p, tr->avail[i]);
		if (v != now) {
			*avail = v;
			return base + tr->t_s[i] - p->offset_s;
		}
		i++;
	}
	return INFINITY;
}
