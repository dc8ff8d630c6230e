/*
 * autoscale.c -- the elastic pools' rule (see autoscale.h).
 */
#include <math.h>

#include "models/autoscale.h"

const struct cfg_setting as_settings[] = {
	{ "autoscale.period_s", CFG_FLOAT, "s", 1, 86400, "15", NULL,
	  "time between utilisation and queue samples (the issue's seed: 15 s)" },
	{ "autoscale.window_s", CFG_FLOAT, "s", 1, 86400 * 7, "180", NULL,
	  "samples averaged for a decision (the seed: a 3-minute window)" },
	{ "autoscale.up_util", CFG_FLOAT, "", 0, 1, "0.85", NULL,
	  "grow when mean utilisation is above this (the seed: 85%)" },
	{ "autoscale.up_queue", CFG_FLOAT, "jobs", 0, 1e9, "20", NULL,
	  "... or more than this many jobs wait (the seed: 20)" },
	{ "autoscale.down_util", CFG_FLOAT, "", 0, 1, "0.30", NULL,
	  "shrink when mean utilisation is below this (the seed: 30%) ..." },
	{ "autoscale.down_queue", CFG_FLOAT, "jobs", 0, 1e9, "5", NULL,
	  "... and fewer than this many jobs wait (the seed: 5)" },
	{ "autoscale.step_nodes", CFG_INT, "nodes", 1, 1e6, "8", NULL,
	  "nodes requested or released per decision" },
	{ "autoscale.provision_s", CFG_FLOAT, "s", 0, 86400 * 7, "300", NULL,
	  "from request to a usable node (boot, image pull, health check); an "
	  "assumption: clouds quote minutes for GPU instances" },
	CFG_END
};

void as_from_scenario(const struct scenario *sc, struct as_rule *r)
{
	r->period_s = sc_float(sc, "autoscale.period_s");
	r->window_s = sc_float(sc, "autoscale.window_s");
	r->up_util = sc_float(sc, "autoscale.up_util");
	r->up_queue = sc_float(sc, "autoscale.up_queue");
	r->down_util = sc_float(sc, "autoscale.down_util");
	r->down_queue = sc_float(sc, "autoscale.down_queue");
	r->step_nodes = (int)sc_int(sc, "autoscale.step_nodes");
	r->provision_s = sc_float(sc, "autoscale.provision_s");
}

void as_window_init(struct as_window *w, const struct as_rule *r)
{
	double k = floor(r->window_s / r->period_s + 1e-9);

	w->want = k < 1 ? 1 : k > AS_WINDOW_MAX ? AS_WINDOW_MAX : (int)k;
	w->n = 0;
	w->util_sum = w->queue_sum = 0;
}

int as_sample(struct as_window *w, const struct as_rule *r, double util, double waiting)
{
	int d = AS_HOLD;

	w->util_sum += util;
	w->queue_sum += waiting;
	if (++w->n < w->want)
		return AS_HOLD;
	double u = w->util_sum / w->n, q = w->queue_sum / w->n;
	if (u > r->up_util || q > r->up_queue)
		d = AS_UP;
	else if (u < r->down_util && q < r->down_queue)
		d = AS_DOWN;
	w->n = 0;			/* tumbling windows: see autoscale.h */
	w->util_sum = w->queue_sum = 0;
	return d;
}
