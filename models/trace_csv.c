/*
 * trace_csv.c -- hourly traces in CSV: grid carbon intensity, electricity
 * price, PUE, spot price of one instance (trace_load_csv, trace.h).
 *
 * The first column is the time in UTC (trace_parse_utc); the header names
 * the value column:
 *   - Electricity Maps hourly exports (https://www.electricitymaps.com/data-portal),
 *     both header generations:
 *       Datetime (UTC),Country,Zone Name,Zone Id,Carbon Intensity gCO₂eq/kWh (direct),
 *           Carbon Intensity gCO₂eq/kWh (LCA),...                       (older)
 *       Datetime (UTC),Country,Zone name,Zone id,Carbon intensity gCO₂eq/kWh (direct),
 *           Carbon intensity gCO₂eq/kWh (Life cycle),...                (newer)
 *     `column` picks "direct" or "lifecycle" (LCA / Life cycle).
 *   - trainsim's two columns, the second header naming the unit:
 *       datetime_utc,g_per_kwh      carbon: g_per_kwh, kg_per_mwh, lb_per_mwh
 *       datetime_utc,usd_per_kwh    electricity: usd_per_kwh, usd_per_mwh, cents_per_kwh
 *       datetime_utc,pue            PUE (>= 1)
 *       datetime_utc,usd_per_hour   spot price of one instance
 * Rows must be strictly increasing in time and evenly spaced (the step of the
 * first two rows, normally 3600 s): a gap, a duplicate or an earlier time is
 * an error, as are negative values, PUE below 1 and unknown units.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "sim/csv.h"
#include "models/trace_int.h"

#define LB_PER_MWH_TO_G_PER_KWH 0.45359237	/* 1 lb = 453.59237 g; /1000 kWh */

struct unit { enum trace_qty q; const char *name; double scale; };
static const struct unit units[] = {
	{ TRACE_CARBON, "g_per_kwh", 1 },
	{ TRACE_CARBON, "kg_per_mwh", 1 },
	{ TRACE_CARBON, "lb_per_mwh", LB_PER_MWH_TO_G_PER_KWH },
	{ TRACE_ELECTRICITY, "usd_per_kwh", 1 },
	{ TRACE_ELECTRICITY, "usd_per_mwh", 1e-3 },
	{ TRACE_ELECTRICITY, "cents_per_kwh", 1e-2 },
	{ TRACE_PUE, "pue", 1 },
	{ TRACE_SPOT, "usd_per_hour", 1 },
};

static int unit_scale(enum trace_qty q, const char *name, double *scale)
{
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (units[i].q == q && strcasecmp(units[i].name, name) == 0) {
			*scale = units[i].scale;
			return 0;
		}
	return -1;
}

static void unit_list(enum trace_qty q, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (units[i].q == q && at < len)
			at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? ", " : "",
					       units[i].name);
}

static bool starts_with_ci(const char *s, const char *prefix)
{
	return strncasecmp(s, prefix, strlen(prefix)) == 0;
}

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* Electricity Maps: "Carbon [Ii]ntensity gCO₂eq/kWh (direct|LCA|Life cycle)".
 * Returns 1 for the wanted column, 0 for another, -1 for a wrong unit. */
static int emaps_column(const char *h, const char *want, char *unit, size_t ulen)
{
	const char *u, *paren;
	bool direct;

	if (!starts_with_ci(h, "Carbon intensity "))
		return 0;
	u = h + strlen("Carbon intensity ");
	paren = strrchr(u, '(');
	if (paren == NULL || paren == u)
		return 0;
	direct = ends_with_ci(paren, "(direct)");
	if (!direct && !ends_with_ci(paren, "(LCA)") && !ends_with_ci(paren, "(Life cycle)"))
		return 0;
	snprintf(unit, ulen, "%.*s", (int)(paren - u - 1), u);
	if (strcmp(unit, "gCO\xe2\x82\x82" "eq/kWh") != 0 && strcmp(unit, "gCO2eq/kWh") != 0)
		return -1;
	return (strcmp(want, "direct") == 0) == direct;
}

/* The header row: find the value column; fills *col and *scale. */
static int header(const struct csv *c, enum trace_qty q, const char *want, size_t *col,
		  double *scale, struct err *e)
{
	char unit[256], list[256];

	if (strcasecmp(c->f[0], "Datetime (UTC)") != 0 && strcasecmp(c->f[0], "datetime_utc") != 0)
		return csv_error(c, e, "first column '%s' is not a time (expected a header "
				 "'Datetime (UTC)' or 'datetime_utc')", c->f[0]);
	if (q == TRACE_CARBON)
		for (size_t i = 1; i < c->n; i++) {
			int k = emaps_column(c->f[i], want, unit, sizeof unit);
			if (k < 0)
				return csv_error(c, e, "unknown unit '%s' in column '%s' "
						 "(expected gCO\xe2\x82\x82" "eq/kWh)", unit, c->f[i]);
			if (k > 0) {
				*col = i;
				*scale = 1;
				return 0;
			}
		}
	unit_list(q, list, sizeof list);
	if (c->n != 2)
		return csv_error(c, e, "%zu columns and no Electricity Maps carbon column "
				 "(expected 'datetime_utc,UNIT' with UNIT one of %s)", c->n, list);
	if (unit_scale(q, c->f[1], scale) < 0)
		return csv_error(c, e, "unknown unit '%s' for a %s trace (expected one of %s)",
				 c->f[1], trace_qty_name(q), list);
	*col = 1;
	return 0;
}

/* Append (ts, v), keeping times strictly increasing and evenly spaced. */
static int add_row(struct trace *t, size_t *cap, const struct csv *c, int64_t ts, double v,
		   struct err *e)
{
	if (t->n > 0) {
		int64_t dt = ts - t->t_s[t->n - 1];

		if (dt == 0)
			return csv_error(c, e, "duplicate time (the previous row has the same time)");
		if (dt < 0)
			return csv_error(c, e, "time out of order, %lld s before the previous row "
					 "(expected increasing times)", (long long)-dt);
		if (t->n == 1)
			t->step_s = dt;
		else if (dt != t->step_s)
			return csv_error(c, e, "gap in the trace: %lld s after the previous row "
					 "(expected every %lld s)", (long long)dt,
					 (long long)t->step_s);
	} else {
		snprintf(t->first_at, sizeof t->first_at, ":%ld", c->line);
	}
	return trace_push(t, cap, ts, v, e);
}

static int row(struct trace *t, size_t *cap, const struct csv *c, enum trace_qty q,
	       size_t col, double scale, struct err *e)
{
	char where[4200];
	int64_t ts;
	double v;

	if (trace_parse_utc(c->f[0], &ts) < 0)
		return csv_error(c, e, "bad time '%s' (expected YYYY-MM-DD HH:MM:SS in UTC, years 1970 to 2200)",
				 c->f[0]);
	if (col >= c->n)
		return csv_error(c, e, "missing %s value (the row has %zu columns)",
				 trace_qty_name(q), c->n);
	snprintf(where, sizeof where, "%s:%ld", c->file, c->line);
	if (trace_value(where, q, c->f[col], &v, e) < 0)
		return -1;
	return add_row(t, cap, c, ts, v * scale, e);
}

int trace_load_csv(struct trace *t, const char *path, enum trace_qty q,
		   const char *column, struct err *e)
{
	struct csv c;
	size_t cap = 0, col = 0;
	double scale = 1;
	int rc;

	if (trace_begin(t, path, e) < 0)
		return -1;
	if (csv_open(&c, path, CSV_HEADER, e) < 0) {
		trace_free(t);
		return -1;
	}
	rc = csv_next(&c, e);
	if (rc > 0)
		rc = header(&c, q, column, &col, &scale, e);
	while (rc >= 0 && (rc = csv_next(&c, e)) > 0)
		rc = row(t, &cap, &c, q, col, scale, e);
	if (rc == 0 && t->n == 0)
		rc = csv_error(&c, e, "no rows (expected a header and at least one row)");
	if (rc == 0 && t->n == 1)
		t->step_s = 3600;	/* one row: one hour, repeated */
	csv_close(&c);
	if (rc < 0)
		trace_free(t);
	return rc;
}
