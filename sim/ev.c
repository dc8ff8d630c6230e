/*
 * ev.c -- the event engine (see ev.h): a clock, the table of kinds and the
 * run loop, over the event queue of evq.c.
 *
 * A model that schedules into the past, with an unknown kind, or runs out of memory gets 0
 * back from ev_at/ev_after, and the engine remembers the first such error:
 * ev_run returns -1 with it as soon as the running handler returns (or at
 * once, if it happened outside a run), and every later ev_run too.  Handlers
 * therefore need not check every ev_at, and a bad schedule can never run
 * silently at the wrong time.
 */
#include <stdlib.h>
#include <string.h>

#include "sim/ev.h"

struct ev_kind_def {
	char *name;
	ev_handler fn;
	void *ctx;
};

struct ev_sim {
	struct evq *q;
	int64_t now_ns;
	uint64_t handled;
	int64_t window_s;	/* the simulated second being counted */
	uint64_t in_window;	/* events handled in it */
	bool stop;
	int nkinds;
	struct ev_kind_def kinds[EV_KINDS_MAX];
	struct err fault;	/* first scheduling error; sticky */
};

struct ev_sim *ev_sim_new(void)
{
	struct ev_sim *sim = calloc(1, sizeof *sim);

	if (sim == NULL)
		return NULL;
	sim->q = evq_new();
	if (sim->q == NULL) {
		free(sim);
		return NULL;
	}
	return sim;
}

void ev_sim_free(struct ev_sim *sim)
{
	if (sim == NULL)
		return;
	for (int k = 0; k < sim->nkinds; k++)
		free(sim->kinds[k].name);
	evq_free(sim->q);
	free(sim);
}

/*
 * Register a kind; returns its number (0, 1, ... in registration order) or
 * -1 when the name is missing or taken, fn is NULL, the table is full or
 * memory is short.  The failure is also kept for ev_run to report.
 */
int ev_kind(struct ev_sim *sim, const char *name, ev_handler fn, void *ctx)
{
	if (name == NULL || fn == NULL)
		return err_set(&sim->fault, ERR_RUN,
			       "ev_kind: %s missing", name ? "handler" : "name");
	for (int k = 0; k < sim->nkinds; k++)
		if (strcmp(sim->kinds[k].name, name) == 0)
			return err_set(&sim->fault, ERR_RUN,
				       "ev_kind: '%s' registered twice", name);
	if (sim->nkinds == EV_KINDS_MAX)
		return err_set(&sim->fault, ERR_RUN,
			       "ev_kind: '%s': more than %d event kinds",
			       name, EV_KINDS_MAX);
	char *copy = strdup(name);
	if (copy == NULL)
		return err_set(&sim->fault, ERR_RUN, "ev_kind: out of memory");
	sim->kinds[sim->nkinds] = (struct ev_kind_def){ copy, fn, ctx };
	return sim->nkinds++;
}

/* The registered name, or NULL for a number that was never returned. */
const char *ev_kind_name(const struct ev_sim *sim, int kind)
{
	if (kind < 0 || kind >= sim->nkinds)
		return NULL;
	return sim->kinds[kind].name;
}

int64_t ev_now(const struct ev_sim *sim)
{
	return sim->now_ns;
}

/* Schedule at an absolute time >= ev_now(); 0 (and a kept error) if not. */
uint64_t ev_at(struct ev_sim *sim, int64_t time_ns, int kind, uint64_t arg)
{
	if (kind < 0 || kind >= sim->nkinds) {
		err_set(&sim->fault, ERR_RUN, "ev_at: unknown event kind %d", kind);
		return 0;
	}
	if (time_ns < sim->now_ns) {
		err_set(&sim->fault, ERR_RUN,
			"ev_at: %s at %lld ns is before now (%lld ns)",
			sim->kinds[kind].name, (long long)time_ns,
			(long long)sim->now_ns);
		return 0;
	}
	uint64_t id = evq_push(sim->q, time_ns, kind, arg);
	if (id == 0)
		err_set(&sim->fault, ERR_RUN, "ev_at: %s: out of memory",
			sim->kinds[kind].name);
	return id;
}

/* Schedule delay_ns >= 0 from now; a delay past INT64_MAX is an error. */
uint64_t ev_after(struct ev_sim *sim, int64_t delay_ns, int kind, uint64_t arg)
{
	if (delay_ns < 0 || delay_ns > INT64_MAX - sim->now_ns) {
		err_set(&sim->fault, ERR_RUN,
			"ev_after: %s: delay %lld ns is negative or overflows the clock",
			ev_kind_name(sim, kind) ? ev_kind_name(sim, kind) : "?",
			(long long)delay_ns);
		return 0;
	}
	return ev_at(sim, sim->now_ns + delay_ns, kind, arg);
}

bool ev_cancel(struct ev_sim *sim, uint64_t id)
{
	return evq_cancel(sim->q, id);
}

void ev_stop(struct ev_sim *sim)
{
	sim->stop = true;
}

uint64_t ev_count(const struct ev_sim *sim)
{
	return sim->handled;
}

static int ev_fault(struct ev_sim *sim, struct err *e)
{
	return err_set(e, sim->fault.status, "%s", sim->fault.msg);
}

/*
 * Run events with time <= until_ns, each after the clock moves to its time.
 * Returns 0 when the bound is reached, the queue empties or a handler calls
 * ev_stop(); -1 with e filled when a handler fails (its message unchanged,
 * so "FILE:LINE: ..." stays at the front) or a scheduling error was kept.
 * On a return at the bound with events still pending the clock reads
 * until_ns; when the queue ran dry it stays at the last event, so running
 * "to INT64_MAX" leaves a usable clock.  ev_stop() outside a run does nothing.
 */
int ev_run(struct ev_sim *sim, int64_t until_ns, struct err *e)
{
	struct err local = { 0 };
	struct ev ev;

	if (e == NULL)
		e = &local;
	if (sim->fault.status != ERR_OK)
		return ev_fault(sim, e);
	sim->stop = false;
	for (;;) {
		int64_t t;
		if (!evq_peek_time(sim->q, &t))
			break;
		if (t > until_ns) {
			if (until_ns > sim->now_ns)
				sim->now_ns = until_ns;
			break;
		}
		evq_pop(sim->q, &ev);
		sim->now_ns = ev.time_ns;
		sim->handled++;
		if (ev.time_ns / 1000000000 != sim->window_s) {
			sim->window_s = ev.time_ns / 1000000000;
			sim->in_window = 0;
		}
		if (++sim->in_window > EV_MAX_PER_SIM_S)
			return err_set(e, ERR_RUN, "event %s at %.9f s: more than %g events "
				       "within one simulated second (events spaced below "
				       "the models' resolution: a livelock)",
				       sim->kinds[ev.kind].name, ev.time_ns * 1e-9,
				       (double)EV_MAX_PER_SIM_S);
		const struct ev_kind_def *k = &sim->kinds[ev.kind];
		if (k->fn(sim, &ev, k->ctx, e) != 0) {
			if (e->status == ERR_OK)
				err_set(e, ERR_RUN,
					"event %s at %lld ns failed without a message",
					k->name, (long long)ev.time_ns);
			sim->stop = false;
			return -1;
		}
		if (sim->fault.status != ERR_OK)
			return ev_fault(sim, e);
		if (sim->stop)
			break;
	}
	sim->stop = false;
	return 0;
}
