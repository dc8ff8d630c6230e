/* human.c -- see human.h. */
#include <math.h>
#include <string.h>

#include "cli/human.h"

/* The one table of groups: a key goes to the first row that matches it
 * ("x*" a prefix, "*x" a suffix, else the whole name); keys no row names
 * go to "other", so a new figure is never hidden. */
static const struct { const char *pattern, *group; } human_groups[] = {
	{ "duration_*", "time" }, { "time_*", "time" }, { "iteration_time_s", "time" },
	{ "checkpoint_interval_*", "time" }, { "young_interval_s", "time" },
	{ "daly_interval_s", "time" }, { "checkpoint_stall_s", "time" },
	{ "completed", "time" },
	{ "iterations", "throughput" }, { "tokens", "throughput" },
	{ "tflops_per_gpu", "throughput" }, { "mfu", "throughput" },
	{ "goodput", "throughput" }, { "gc_slowdown", "throughput" },
	{ "failures*", "disruptions" }, { "preempt*", "disruptions" },
	{ "restarts", "disruptions" }, { "interrupted_restarts", "disruptions" },
	{ "checkpoints*", "disruptions" }, { "notice_checkpoints", "disruptions" },
	{ "lost_work_s", "disruptions" }, { "mtti_s", "disruptions" },
	{ "spare*", "disruptions" }, { "resizes", "disruptions" },
	{ "dp_min", "disruptions" }, { "budget_*", "disruptions" },
	{ "checkpoint_bytes_written", "disruptions" },
	{ "*_kwh", "energy" }, { "kwh_per_*", "energy" }, { "*power*", "energy" },
	{ "pue*", "energy" },
	{ "cost*", "cost" }, { "*_usd", "cost" }, { "usd_per_*", "cost" },
	{ "gpu_hours", "cost" }, { "node_hours", "cost" },
	{ "carbon*", "carbon" }, { "*_kg", "carbon" }, { "gco2e_per_*", "carbon" },
	{ "params", "run" }, { "gpus", "run" }, { "peak_memory_gib", "run" },
	{ "events", "run" }, { "replicas", "run" }, { "calibrated", "run" },
	{ "band", "run" },
};
static const char *const human_order[] = {
	"time", "throughput", "disruptions", "energy", "cost", "carbon", "run", "other"
};
#define HUMAN_GROUPS (sizeof human_order / sizeof human_order[0])

static bool human_match(const char *pattern, const char *name)
{
	size_t p = strlen(pattern), n = strlen(name);

	if (p > 0 && pattern[p - 1] == '*')
		return strncmp(pattern, name, p - 1) == 0;
	if (pattern[0] == '*')
		return n >= p - 1 && strcmp(name + n - (p - 1), pattern + 1) == 0;
	return strcmp(pattern, name) == 0;
}

static bool human_strip(const char *name, const char *suffix, char *base, size_t len);

static const char *human_group(const char *name)
{
	char base[96];

	/* A figure's band (KEY_lo, KEY_hi) goes where KEY goes. */
	if (human_strip(name, "_lo", base, sizeof base) ||
	    human_strip(name, "_hi", base, sizeof base))
		name = base;
	for (size_t i = 0; i < sizeof human_groups / sizeof human_groups[0]; i++)
		if (human_match(human_groups[i].pattern, name))
			return human_groups[i].group;
	return "other";
}

/* A value as a person reads it: to about 4 significant digits, but never
 * fewer whole digits than it has below 1e9 (a mean of 4545123 s keeps
 * its units next to an interval of 1064 s). */
static void human_value(double v, char *buf, size_t len)
{
	double a = fabs(v);

	if (isnan(v))
		snprintf(buf, len, "n/a");
	else if (isinf(v))
		snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
	else if (a >= 1e9 || (a < 1e-3 && a > 0))
		snprintf(buf, len, "%.4e", v);
	else if (a >= 1e5 || v == floor(v))
		snprintf(buf, len, "%.0f", v);
	else if (a >= 1000)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.4g", v);
}

/* Long spans in days or hours as well as seconds. */
static void human_hint(double v, const char *unit, char *buf, size_t len)
{
	buf[0] = '\0';
	if (strcmp(unit, "s") != 0 || !isfinite(v))
		return;
	if (fabs(v) >= 2 * 86400.0)
		snprintf(buf, len, "  (%.2f days)", v / 86400.0);
	else if (fabs(v) >= 2 * 3600.0)
		snprintf(buf, len, "  (%.2f hours)", v / 3600.0);
}

/* Does name end in suffix?  Then its base (name without it) goes to base. */
static bool human_strip(const char *name, const char *suffix, char *base, size_t len)
{
	size_t n = strlen(name), s = strlen(suffix);

	if (n <= s || strcmp(name + n - s, suffix) != 0 || n - s >= len)
		return false;
	memcpy(base, name, n - s);
	base[n - s] = '\0';
	return true;
}

struct human_row {
	char value[48], ci[48], seed[48], unit[32], hint[48], band[112];
};

/* Figure i as printed: its value (the mean with replicas), the interval,
 * the seed's own value, unit and a days/hours hint. */
static void human_row_fill(const struct report *r, size_t i, bool replicas,
			   struct human_row *row)
{
	const char *name = rep_summary_name(r, i), *unit = rep_summary_unit(r, i);
	double v = rep_summary_value(r, i);
	char key[128];

	memset(row, 0, sizeof *row);
	snprintf(row->unit, sizeof row->unit, "%s", unit);
	human_value(v, row->seed, sizeof row->seed);
	if (replicas) {
		snprintf(key, sizeof key, "%s_mean", name);
		v = rep_summary_get(r, key);
		snprintf(key, sizeof key, "%s_ci95", name);
		human_value(rep_summary_get(r, key), row->ci, sizeof row->ci);
	}
	human_value(v, row->value, sizeof row->value);
	human_hint(v, unit, row->hint, sizeof row->hint);
	/* The model's error band, when the run gives one (KEY_lo, KEY_hi). */
	snprintf(key, sizeof key, "%s_lo", name);
	if (!isnan(rep_summary_get(r, key))) {
		char lo[48], hi[48];

		human_value(rep_summary_get(r, key), lo, sizeof lo);
		snprintf(key, sizeof key, "%s_hi", name);
		human_value(rep_summary_get(r, key), hi, sizeof hi);
		snprintf(row->band, sizeof row->band, "  [band %s to %s]", lo, hi);
	}
}

/* Is figure name one human_print shows on a row of its own?  Not the
 * replicas' KEY_mean and KEY_ci95, nor KEY_lo and KEY_hi of a KEY shown
 * (they are printed on KEY's row). */
static bool human_shown(const struct report *r, const char *name, bool replicas)
{
	char base[96];

	if ((human_strip(name, "_lo", base, sizeof base) ||
	     human_strip(name, "_hi", base, sizeof base)) && !isnan(rep_summary_get(r, base)))
		return false;
	return !human_strip(name, "_mean", base, sizeof base) &&
	       !human_strip(name, "_ci95", base, sizeof base) &&
	       !(replicas && strcmp(name, "replicas") == 0);
}

struct human_widths {
	int name, value, ci, seed;
};

static void human_widen(int *w, const char *s)
{
	if ((int)strlen(s) > *w)
		*w = (int)strlen(s);
}

static void human_line(const char *name, const struct human_row *row, bool replicas,
		       bool verbose, const struct human_widths *w, FILE *out)
{
	fprintf(out, "  %-*s  %*s", w->name, name, w->value, row->value);
	if (replicas)
		fprintf(out, " ± %-*s", w->ci, row->ci);
	if (replicas && verbose)
		fprintf(out, "  [%*s]", w->seed, row->seed);
	fprintf(out, "%s%s%s%s\n", row->unit[0] ? " " : "", row->unit, row->hint, row->band);
}

void human_print(const struct report *r, bool verbose, FILE *out)
{
	size_t n = rep_summary_count(r), i, g;
	bool replicas = !isnan(rep_summary_get(r, "replicas")), any = false;
	struct human_widths w = { 0, 0, 0, 0 };
	struct human_row row;

	for (i = 0; i < n; i++) {
		if (!human_shown(r, rep_summary_name(r, i), replicas))
			continue;
		human_row_fill(r, i, replicas, &row);
		human_widen(&w.name, rep_summary_name(r, i));
		human_widen(&w.value, row.value);
		human_widen(&w.ci, row.ci);
		human_widen(&w.seed, row.seed);
	}
	if (replicas)
		fprintf(out, "mean ± 95%% confidence interval over %.0f seeds%s\n\n",
			rep_summary_get(r, "replicas"),
			verbose ? "; [the first seed's own value]" : "");
	for (g = 0; g < HUMAN_GROUPS; g++) {
		bool head = false;

		for (i = 0; i < n; i++) {
			const char *name = rep_summary_name(r, i);

			if (strcmp(human_group(name), human_order[g]) != 0 ||
			    !human_shown(r, name, replicas))
				continue;
			if (!head)
				fprintf(out, "%s%s\n", any ? "\n" : "", human_order[g]);
			head = any = true;
			human_row_fill(r, i, replicas, &row);
			human_line(name, &row, replicas, verbose, &w, out);
		}
	}
}
