/*
 * cfg_value.c -- one libconfig value against the setting it is for.
 *
 * cfg_check_value() says what is wrong with a value ("3.5 is not an
 * integer", "element 2: 0 is out of range"), cfg_expected_words() what the
 * setting wants ("an integer in 1..1000 layers"); callers join the two as
 * "what is wrong (expected ...)" and say where.  The checks:
 *   - INT takes an integer literal (int or int64), FLOAT any number; both
 *     and every list element must lie in the setting's range if it has one;
 *   - STRING, ENUM and REF take text; an ENUM one of its "a|b|c" choices,
 *     a REF the name of a child of the group in its choices.  A REF is only
 *     checked against a scenario when one is given (not for defaults, which
 *     scenario.c checks where they are used);
 *   - lists are a libconfig array or list of numbers.
 */
#include <string.h>

#include "sim/cfg_int.h"

/* ---- in words ---------------------------------------------------------- */

/* "one of: a, b, c" -- the entries a REF may name. */
static void ref_words(const struct scenario *sc, const struct cfg_setting *d,
		      char *buf, size_t n)
{
	const config_setting_t *g = sc ? config_lookup(&sc->cfg, d->choices) : NULL;
	int len = g && config_setting_is_group(g) ? config_setting_length(g) : 0;

	if (len == 0) {
		cfg_cat(buf, n, "the name of an entry in %s, which has none",
			d->choices);
		return;
	}
	cfg_cat(buf, n, "one of: ");
	for (int i = 0; i < len; i++) {
		if (i == 20) {
			cfg_cat(buf, n, ", ...");
			break;
		}
		cfg_cat(buf, n, "%s%s", i ? ", " : "",
			config_setting_name(config_setting_get_elem(g, (unsigned)i)));
	}
}

void cfg_expected_words(const struct scenario *sc, const struct cfg_setting *d,
			char *buf, size_t n)
{
	char range[128];
	const char *unit = d->unit && d->unit[0] ? d->unit : NULL;

	cfg_range_words(d, range, sizeof range);
	buf[0] = '\0';
	switch (d->type) {
	case CFG_INT:
		cfg_cat(buf, n, "an integer%s", range);
		break;
	case CFG_FLOAT:
		cfg_cat(buf, n, "a number%s", range);
		break;
	case CFG_INT_LIST:
		cfg_cat(buf, n, "a list of integers%s", range);
		break;
	case CFG_FLOAT_LIST:
		cfg_cat(buf, n, "a list of numbers%s", range);
		break;
	case CFG_BOOL:
		cfg_cat(buf, n, "true or false");
		unit = NULL;
		break;
	case CFG_STRING:
		cfg_cat(buf, n, "text in double quotes");
		unit = NULL;
		break;
	case CFG_ENUM:
		cfg_cat(buf, n, "%s", d->choices ? d->choices : "");
		unit = NULL;
		break;
	case CFG_REF:
		ref_words(sc, d, buf, n);
		unit = NULL;
		break;
	case CFG_RENAMED:	/* an old name, never an entry (cfg_schema_add) */
		unit = NULL;
		break;
	}
	if (unit != NULL)
		cfg_cat(buf, n, " %s", unit);
}

void cfg_value_words(const config_setting_t *s, char *buf, size_t n)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		snprintf(buf, n, "%d", s->value.ival);
		break;
	case CONFIG_TYPE_INT64:
		snprintf(buf, n, "%lld", s->value.llval);
		break;
	case CONFIG_TYPE_FLOAT:
		snprintf(buf, n, "%.15g", s->value.fval);
		break;
	case CONFIG_TYPE_BOOL:
		snprintf(buf, n, "%s", s->value.ival ? "true" : "false");
		break;
	case CONFIG_TYPE_STRING:
		snprintf(buf, n, "\"%.80s%s\"", s->value.sval,
			 strlen(s->value.sval) > 80 ? "..." : "");
		break;
	case CONFIG_TYPE_GROUP:
		snprintf(buf, n, "a group");
		break;
	default:
		snprintf(buf, n, "a list");
		break;
	}
}

/* ---- numbers ----------------------------------------------------------- */

static bool is_int(const config_setting_t *s)
{
	return config_setting_type(s) == CONFIG_TYPE_INT ||
	       config_setting_type(s) == CONFIG_TYPE_INT64;
}

static bool is_num(const config_setting_t *s)
{
	return is_int(s) || config_setting_type(s) == CONFIG_TYPE_FLOAT;
}

double cfg_num_of(const config_setting_t *s)
{
	switch (config_setting_type(s)) {
	case CONFIG_TYPE_INT:
		return s->value.ival;
	case CONFIG_TYPE_INT64:
		return (double)s->value.llval;
	case CONFIG_TYPE_FLOAT:
		return s->value.fval;
	default:
		return 0;
	}
}

static bool in_range(const struct cfg_setting *d, double v)
{
	return !cfg_has_range(d) || (v >= d->min && v <= d->max);
}

/* One number (a scalar or a list element) against d; why on failure. */
static int check_number(const struct cfg_setting *d, const config_setting_t *s,
			bool want_int, char *why, size_t n)
{
	char v[128];

	cfg_value_words(s, v, sizeof v);
	if (want_int ? !is_int(s) : !is_num(s)) {
		snprintf(why, n, "%s is not %s", v, want_int ? "an integer" : "a number");
		return -1;
	}
	if (!in_range(d, cfg_num_of(s))) {
		snprintf(why, n, "%s is out of range", v);
		return -1;
	}
	return 0;
}

static int check_list(const struct cfg_setting *d, const config_setting_t *s,
		      const char *v, char *why, size_t n)
{
	if (config_setting_type(s) != CONFIG_TYPE_ARRAY &&
	    config_setting_type(s) != CONFIG_TYPE_LIST) {
		snprintf(why, n, "%s is not a list", v);
		return -1;
	}
	for (int i = 0; i < config_setting_length(s); i++) {
		char w[256];
		if (check_number(d, config_setting_get_elem(s, (unsigned)i),
				 d->type == CFG_INT_LIST, w, sizeof w) < 0) {
			snprintf(why, n, "element %d: %s", i, w);
			return -1;
		}
	}
	return 0;
}

/* ---- text -------------------------------------------------------------- */

static bool enum_has(const char *choices, const char *v)
{
	size_t vl = strlen(v);

	while (choices && *choices) {
		size_t cl = strcspn(choices, "|");
		if (cl == vl && memcmp(choices, v, vl) == 0)
			return true;
		choices += cl + (choices[cl] == '|');
	}
	return false;
}

bool cfg_ref_exists(const config_t *cfg, const char *group, const char *name)
{
	const config_setting_t *g = config_lookup(cfg, group);

	return g != NULL && config_setting_is_group(g) &&
	       config_setting_get_member(g, name) != NULL;
}

static int check_text(const struct cfg_setting *d, const config_setting_t *s,
		      const config_t *cfg, const char *v, char *why, size_t n)
{
	if (config_setting_type(s) != CONFIG_TYPE_STRING) {
		snprintf(why, n, "%s is not text", v);
		return -1;
	}
	if (d->type == CFG_ENUM && !enum_has(d->choices, s->value.sval)) {
		snprintf(why, n, "%s is not a choice", v);
		return -1;
	}
	if (d->type == CFG_REF && cfg != NULL &&
	    !cfg_ref_exists(cfg, d->choices, s->value.sval)) {
		snprintf(why, n, "no such entry %s in %s", v, d->choices);
		return -1;
	}
	return 0;
}

/* ---- any value --------------------------------------------------------- */

int cfg_check_value(const struct cfg_setting *d, const config_setting_t *s,
		    const config_t *cfg, char *why, size_t n)
{
	char v[128];

	cfg_value_words(s, v, sizeof v);
	switch (d->type) {
	case CFG_INT:
	case CFG_FLOAT:
		return check_number(d, s, d->type == CFG_INT, why, n);
	case CFG_BOOL:
		if (config_setting_type(s) != CONFIG_TYPE_BOOL) {
			snprintf(why, n, "%s is not true or false", v);
			return -1;
		}
		return 0;
	case CFG_STRING:
	case CFG_ENUM:
	case CFG_REF:
		return check_text(d, s, cfg, v, why, n);
	case CFG_INT_LIST:
	case CFG_FLOAT_LIST:
		return check_list(d, s, v, why, n);
	case CFG_RENAMED:	/* an old name, never an entry (cfg_schema_add) */
		break;
	}
	snprintf(why, n, "has an unknown type");
	return -1;
}
