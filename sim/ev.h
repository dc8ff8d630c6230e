/*
 * ev.h -- the event engine: a simulated clock and a queue of future events.
 *
 * Simulated time is an int64_t count of nanoseconds.  Events at equal times
 * run in insertion order (each push takes the next sequence number), so the
 * same inputs always give the same run.
 *
 * Event kinds are registered by name with a handler; a model keeps the kind
 * numbers it registered.  An event carries one 64-bit argument (an index into
 * the model's own tables, a node number, ...).
 *
 *   struct ev_sim *sim = ev_sim_new();
 *   int ckpt_end = ev_kind(sim, "checkpoint_end", on_ckpt_end, model);
 *   uint64_t id = ev_after(sim, write_ns, ckpt_end, 0);
 *   ev_cancel(sim, id);            // a preemption cancels the pending end
 *   ev_run(sim, INT64_MAX, &err);  // until the queue empties or ev_stop()
 *
 * The queue itself (evq_*) is usable alone: the step model and the
 * benchmarks drive it directly.
 */
#ifndef SIM_EV_H
#define SIM_EV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

#define EV_NS_PER_S INT64_C(1000000000)
#define EV_KINDS_MAX 64

struct ev {
	int64_t time_ns;
	uint64_t id;		/* sequence number: insertion order, cancel handle */
	int kind;
	uint64_t arg;
};

/* --- the bare queue: ordered by (time_ns, id) --------------------------- */
struct evq;
struct evq *evq_new(void);
void evq_free(struct evq *q);
uint64_t evq_push(struct evq *q, int64_t time_ns, int kind, uint64_t arg);
bool evq_pop(struct evq *q, struct ev *out);	/* false when empty */
bool evq_peek_time(struct evq *q, int64_t *time_ns);
bool evq_cancel(struct evq *q, uint64_t id);	/* false if not pending */
size_t evq_len(const struct evq *q);		/* pending, not cancelled */

/* --- the engine: clock + queue + handlers -------------------------------- */
struct ev_sim;
typedef int (*ev_handler)(struct ev_sim *sim, const struct ev *ev, void *ctx,
			  struct err *e);

struct ev_sim *ev_sim_new(void);
void ev_sim_free(struct ev_sim *sim);
int ev_kind(struct ev_sim *sim, const char *name, ev_handler fn, void *ctx);
const char *ev_kind_name(const struct ev_sim *sim, int kind);
int64_t ev_now(const struct ev_sim *sim);
uint64_t ev_at(struct ev_sim *sim, int64_t time_ns, int kind, uint64_t arg);
uint64_t ev_after(struct ev_sim *sim, int64_t delay_ns, int kind, uint64_t arg);
bool ev_cancel(struct ev_sim *sim, uint64_t id);
/* A hard bound on events handled within one simulated second (a window
 * [k, k+1) s): a model that schedules events closer than it can resolve
 * (a trace change every 1e-300 s rounds to the same nanosecond, forever)
 * stops with an error instead of spinning.  The largest step models
 * handle a few million events per simulated second; 10^9 takes a couple
 * of minutes to reach at the engine's rate, so no real run comes near. */
#define EV_MAX_PER_SIM_S 1000000000ull
/* Run events with time <= until_ns; returns 0, or -1 if a handler failed
 * or EV_MAX_PER_SIM_S was passed (ERR_RUN). */
int ev_run(struct ev_sim *sim, int64_t until_ns, struct err *e);
void ev_stop(struct ev_sim *sim);		/* from a handler: end ev_run */
uint64_t ev_count(const struct ev_sim *sim);	/* events handled so far */

#endif
