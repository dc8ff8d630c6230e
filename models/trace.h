/*
 * trace.h -- time-value traces read from files: hourly grid carbon
 * intensity, electricity price or PUE (CSV), and spot prices (AWS
 * describe-spot-price-history JSON), validated row by row.
 *
 *   struct trace t;
 *   if (trace_load_csv(&t, "FR_2024_hourly.csv", TRACE_CARBON, "lifecycle", &e) < 0)
 *           ... e.msg is "FILE:LINE: what is wrong (expected ...)" ...
 *   struct trace_cur c;
 *   trace_cur_init(&c, &t, start_utc_s, &e);   // sim time 0 = start_utc_s
 *   trace_cur_advance(&c, now_ns);             // c.value holds over [now, c.next_ns)
 *
 * CSV layouts (the first column is the time in UTC: "2024-01-01 00:00:00",
 * "2024-01-01T00:00:00Z", or with "+00:00"; other offsets are applied):
 *   - Electricity Maps, both header generations:
 *       Datetime (UTC),Country,Zone Name,Zone Id,Carbon Intensity gCO₂eq/kWh (direct),
 *           Carbon Intensity gCO₂eq/kWh (LCA),...                       (older)
 *       Datetime (UTC),Country,Zone name,Zone id,Carbon intensity gCO₂eq/kWh (direct),
 *           Carbon intensity gCO₂eq/kWh (Life cycle),...                (newer)
 *     `column` picks "direct" or "lifecycle" (LCA / Life cycle).
 *   - Two columns, the second header naming the unit:
 *       datetime_utc,g_per_kwh      carbon: g_per_kwh, kg_per_mwh, lb_per_mwh
 *       datetime_utc,usd_per_kwh    electricity: usd_per_kwh, usd_per_mwh, cents_per_kwh
 *       datetime_utc,pue            PUE (>= 1)
 *       datetime_utc,usd_per_hour   spot price of one instance
 * Rows must be strictly increasing in time and evenly spaced (the step of the
 * first two rows, normally 3600 s): a gap, a duplicate or an earlier time is
 * an error, as are negative values, PUE below 1 and unknown units.  A
 * regular trace repeats itself after its last step (a one-year trace covers
 * a run of any length).
 *
 * AWS JSON: {"SpotPriceHistory": [{"AvailabilityZone", "InstanceType",
 * "ProductDescription", "SpotPrice", "Timestamp"}, ...]} (or the bare
 * array).  Records are change points: a price holds until the next record
 * and the last one holds for ever.  The CLI lists newest first; records must
 * be strictly monotone in time (either direction) after filtering by
 * instance type and zone (each required when the file holds several).
 */
#ifndef MODELS_TRACE_H
#define MODELS_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "sim/err.h"

enum trace_qty {
	TRACE_CARBON,		/* gCO2e/kWh */
	TRACE_ELECTRICITY,	/* USD/kWh */
	TRACE_PUE,		/* ratio >= 1 */
	TRACE_SPOT,		/* USD per instance-hour */
};

struct trace {
	char *file;
	size_t n;
	int64_t *t_s;		/* UTC seconds since 1970, strictly increasing */
	double *v;		/* in the canonical unit of its quantity */
	int64_t step_s;		/* regular traces: the step; 0: change points */
	long first_line;	/* file line of the earliest row, for messages */
};

int trace_load_csv(struct trace *t, const char *path, enum trace_qty q,
		   const char *column, struct err *e);
int trace_load_aws_spot(struct trace *t, const char *path, const char *instance_type,
			const char *zone, struct err *e);
void trace_free(struct trace *t);

/* "YYYY-MM-DD[ T]HH:MM[:SS[.fff]][Z|+HH:MM|-HH:MM]" -> UTC seconds; -1 if bad. */
int trace_parse_utc(const char *text, int64_t *out_s);

/* Time-weighted mean over [from_s, to_s) of UTC time (cycling as above). */
double trace_mean(const struct trace *t, int64_t from_s, int64_t to_s);

/* Walks a trace forward in simulated time; sim time 0 is UTC origin_s. */
struct trace_cur {
	const struct trace *tr;
	int64_t origin_s;
	size_t i;		/* row in force */
	int64_t cycle;		/* repetitions of a regular trace so far */
	double value;		/* value in force ... */
	int64_t next_ns;	/* ... until this sim time (INT64_MAX: for ever) */
};

/* The run must start within the trace (at or after its first row). */
int trace_cur_init(struct trace_cur *c, const struct trace *t, int64_t origin_s,
		   struct err *e);
void trace_cur_advance(struct trace_cur *c, int64_t now_ns);

#endif
