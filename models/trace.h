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
 * The readers, each with its format and source in its header comment:
 *   trace_csv.c   hourly CSV: Electricity Maps carbon intensity, or a
 *                 time column and a value column named by its unit
 *                 (carbon, electricity price, PUE, spot price)
 *   trace_aws.c   AWS spot price history (aws ec2 describe-spot-price-history)
 * CSV rows are a regular trace: evenly spaced, repeating after its last step
 * (a one-year trace covers a run of any length).  AWS records are change
 * points: a price holds until the next record, the last one for ever.
 * Times are UTC ("2024-01-01 00:00:00", "2024-01-01T00:00:00Z", or with an
 * offset "+01:00", which is applied), read with the C library (strptime,
 * timegm).
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
	char first_at[48];	/* where the earliest row is, after the file name in
				   messages: ":LINE" or ": SpotPriceHistory[i]" */
};

int trace_load_csv(struct trace *t, const char *path, enum trace_qty q,
		   const char *column, struct err *e);
int trace_load_aws_spot(struct trace *t, const char *path, const char *instance_type,
			const char *zone, struct err *e);
void trace_free(struct trace *t);

/* "YYYY-MM-DD[ T]HH:MM[:SS[.000]][Z|+HH:MM|-HH:MM]" -> UTC seconds; -1 if bad
 * (a day or time that does not exist, like 2023-02-29 or 24:00, is bad). */
int trace_parse_utc(const char *text, int64_t *out_s);
/* The years a trace time may fall in (others are refused as bad times). */
#define TRACE_YEAR_MIN 1970
#define TRACE_YEAR_MAX 2200
/* The longest time a trace may span, or an offset in one be, in seconds:
 * the window above, 1970-01-01 to 2201-01-01 (84,371 days).  Every
 * reader of times in seconds (failure, capacity and job traces) refuses
 * more, before the seconds become int64 nanoseconds (which hold 292
 * years: 10^20 s wrapped to a negative time). */
#define TRACE_SPAN_MAX_S 7289654400.0

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
