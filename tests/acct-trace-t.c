/*
 * acct-trace-t.c -- reading traces: UTC times, both Electricity Maps header
 * generations (rows in the layout of the Electricity Maps dataset CSVs,
 * doc/sources.md section 5), unit conversion, AWS
 * spot JSON in either order, and walking a trace in simulated time.
 */
#include <math.h>
#include <stdint.h>

#include "tap.h"
#include "models/trace.h"

static int load_csv(struct trace *t, const char *name, enum trace_qty q, const char *col)
{
	char path[4096];
	struct err e = { 0 };

	snprintf(path, sizeof path, "%s/tests/acct/%s", tap_srcdir(), name);
	if (trace_load_csv(t, path, q, col, &e) == 0)
		return 0;
	tap_diag("%s", e.msg);
	return -1;
}

static void test_times(void)
{
	int64_t t = -1;

	tap_ok(trace_parse_utc("1970-01-01 00:00:00", &t) == 0 && t == 0, "the epoch is 0");
	/* 2024-01-01 is day 19723 since 1970 (54 years, 13 leap days). */
	tap_ok(trace_parse_utc("2024-01-01T00:00:00+00:00", &t) == 0 && t == 19723 * 86400LL,
	       "2024-01-01 = 19723 days x 86400 s");
	tap_ok(trace_parse_utc("2024-01-01T01:00:00+01:00", &t) == 0 && t == 19723 * 86400LL,
	       "an offset is applied (+01:00)");
	tap_ok(trace_parse_utc("2024-03-01T00:00:00.000Z", &t) == 0 &&
	       t == (19723 + 31 + 29) * 86400LL, "2024 is a leap year; .000Z accepted");
	tap_ok(trace_parse_utc("2023-02-29 00:00:00", &t) < 0, "2023-02-29 refused");
	tap_ok(trace_parse_utc("2024-01-01 24:00:00", &t) < 0, "hour 24 refused");
	tap_ok(trace_parse_utc("01/01/2024 00:00", &t) < 0, "other layouts refused");
	tap_ok(trace_parse_utc("2024-1-01 00:00:00", &t) < 0 &&
	       trace_parse_utc("2024- 1-01 00:00:00", &t) < 0, "a month without two digits refused");
	tap_ok(trace_parse_utc("2024-06-30 23:59:60", &t) < 0, "second 60 refused");
	tap_ok(trace_parse_utc("2024-01-01 00:00:00.5", &t) < 0, "a fraction of a second refused");
	tap_ok(trace_parse_utc("2024-01-01 00:00", &t) == 0 && t == 19723 * 86400LL,
	       "seconds may be left out");
	tap_ok(trace_parse_utc("2024-01-01T05:30:00+05:30", &t) == 0 && t == 19723 * 86400LL &&
	       trace_parse_utc("2023-12-31T19:00:00-05:00", &t) == 0 && t == 19723 * 86400LL,
	       "offsets +05:30 and -05:00 applied");
	tap_ok(trace_parse_utc("2024-01-01 00:00:00 UTC", &t) < 0, "a zone name refused");
}

static void test_csv(void)
{
	struct trace t;

	if (load_csv(&t, "grid-old-header.csv", TRACE_CARBON, "lifecycle") == 0) {
		tap_ok(t.n == 2 && t.v[0] == 30.02 && t.step_s == 3600,
		       "older Electricity Maps header: LCA column, hourly");
		trace_free(&t);
	} else {
		tap_ok(0, "older header loads");
	}
	if (load_csv(&t, "grid-old-header.csv", TRACE_CARBON, "direct") == 0) {
		tap_ok(t.v[1] == 2.60, "older header: direct column");
		trace_free(&t);
	} else {
		tap_ok(0, "older header loads (direct)");
	}
	if (load_csv(&t, "grid-4h.csv", TRACE_CARBON, "lifecycle") == 0) {
		tap_ok(t.n == 4 && t.v[0] == 150 && t.v[3] == 450,
		       "newer header: Life cycle column (a quoted field with a comma skipped)");
		trace_free(&t);
	} else {
		tap_ok(0, "newer header loads");
	}
	if (load_csv(&t, "grid-lb.csv", TRACE_CARBON, "") == 0) {
		tap_near(t.v[0], 453.59237, 1e-12, "1000 lb/MWh = 453.59237 g/kWh (1 lb = 453.59237 g)");
		trace_free(&t);
	} else {
		tap_ok(0, "lb_per_mwh loads");
	}
	if (load_csv(&t, "elec-mwh.csv", TRACE_ELECTRICITY, "") == 0) {
		tap_ok(t.t_s[1] - t.t_s[0] == 3600 && t.v[0] == 0.05,
		       "$50/MWh = $0.05/kWh; 00:00+01:00 is an hour before 00:00Z");
		trace_free(&t);
	} else {
		tap_ok(0, "usd_per_mwh loads");
	}
}

static void test_spot(void)
{
	char path[4096];
	struct err e = { 0 };
	struct trace t;

	snprintf(path, sizeof path, "%s/tests/acct/spot-step.json", tap_srcdir());
	if (trace_load_aws_spot(&t, path, "p4de.24xlarge", "us-east-1a", &e) == 0) {
		tap_ok(t.n == 2 && t.v[0] == 10 && t.v[1] == 20 && t.t_s[1] - t.t_s[0] == 7200,
		       "newest-first records filtered by zone and put in time order");
		trace_free(&t);
	} else {
		tap_ok(0, "spot-step.json: %s", e.msg);
	}
	snprintf(path, sizeof path, "%s/tests/acct/spot-step.json", tap_srcdir());
	tap_ok(trace_load_aws_spot(&t, path, "", "", &e) < 0 && strstr(e.msg, "zone us-east-1a"),
	       "two zones and no zone filter: an error naming the zone");
	e = (struct err){ 0 };
	snprintf(path, sizeof path, "%s/tests/acct/spot-ascending.json", tap_srcdir());
	if (trace_load_aws_spot(&t, path, "", "", &e) == 0) {
		tap_ok(t.n == 2 && t.v[1] == 31.25 && t.t_s[1] - t.t_s[0] == 17 * 60 + 31 &&
		       t.step_s == 0, "a bare array, oldest first, irregular times");
		trace_free(&t);
	} else {
		tap_ok(0, "spot-ascending.json: %s", e.msg);
	}
}

/* A regular trace repeats; a change-point trace holds its last value.
 * grid-4h.csv's direct column is 100, 200, 300, 400 g/kWh from 00:00, hourly. */
static void test_cursor(void)
{
	static const double want_v[5] = { 200, 300, 400, 100, 200 };
	struct trace t;
	struct trace_cur c;
	struct err e = { 0 };
	const int64_t h = 3600LL * 1000000000;
	double sum = 0;
	int64_t now = 0;
	int steps_ok = 1;

	if (load_csv(&t, "grid-4h.csv", TRACE_CARBON, "direct") < 0) {
		tap_ok(0, "grid-4h.csv loads");
		return;
	}
	if (trace_cur_init(&c, &t, t.t_s[0] + 5400, &e) == 0) {
		tap_ok(c.value == 200 && c.next_ns == h / 2, "starting at 01:30: 200 until 02:00");
		/* Four hours from 01:30, step by step: half an hour of 200, an hour
		 * each of 300, 400 and (the trace starting over at 04:00) 100, half
		 * an hour of 200; the mean is (100 + 300 + 400 + 100 + 100) / 4 = 250. */
		for (int k = 0; k < 5; k++) {
			int64_t next = c.next_ns < 4 * h ? c.next_ns : 4 * h;

			steps_ok &= c.value == want_v[k] &&
				    next == (k < 4 ? h / 2 + k * h : 4 * h);
			sum += c.value * (double)(next - now);
			now = next;
			trace_cur_advance(&c, now);
		}
		tap_ok(steps_ok, "01:30 to 05:30: 200, 300, 400, then 100 at 04:00 (the four-hour "
		       "trace starts over), 200 at 05:00");
		tap_near(sum / (double)(4 * h), 250, 1e-12,
			 "mean over four hours of the cycle is 250 (100..400 each for an hour)");
	} else {
		tap_ok(0, "cursor: %s", e.msg);
	}
	trace_free(&t);
}

int main(void)
{
	test_times();
	test_csv();
	test_spot();
	test_cursor();
	return tap_done();
}
