/*
 * report.c -- see report.h.  The in-memory side of the report: summary,
 * /step data and root attributes kept until rep_commit(), the series
 * registry, streaming of samples and events to h5out.c, and the JSON and
 * human summaries.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/grow.h"
#include "sim/h5out.h"
#include "sim/report.h"

/* A named figure: a summary key or a /step scalar. */
struct rep_num {
	char *name, *unit;
	double value;
};

struct rep_nums {
	struct rep_num *v;
	size_t n, cap;
};

/* A /step dataset (table NULL) or a column of /TABLE: a float vector, or
 * labels when labels != NULL. */
struct rep_vec {
	char *name, *unit, *table;
	double *v;
	char **labels;
	size_t n;
};

/* A declared time series; an enum of names[0..nnames-1] when names != NULL. */
struct rep_series {
	char *name, *unit;
	char **names;
	size_t nnames;
};

/* A declared event kind and what its who and value mean. */
struct rep_kind {
	char *name, *meaning;
};

/* A root attribute: a string when str != NULL, else u64. */
struct rep_attr {
	char *name, *str;
	uint64_t u64;
};

struct report {
	struct rep_nums summary, step_scalars;
	struct rep_vec *vecs;
	size_t nvecs, capvecs;
	struct rep_attr *attrs;
	size_t nattrs, capattrs;

	struct rep_series *series;
	size_t nseries, capseries;
	int series_frozen;	/* set by the first sample */

	struct h5o *file;	/* NULL when not writing */
	struct h5o_col **cols;	/* time_s then each series, once sampled */
	struct h5o_col *events;
	struct rep_kind *kinds;
	size_t nkinds, capkinds;

	struct err deferred;	/* first failure of a void setter */
	struct err broken;	/* a file failure: later writes and commit fail */
};

static int rep_valid_name(const char *name)
{
	return name != NULL && name[0] != '\0' && strchr(name, '/') == NULL &&
	       strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

/* The code of a declared event kind, or -1. */
static int rep_kind_code(const struct report *r, const char *kind)
{
	for (size_t i = 0; i < r->nkinds; i++)
		if (strcmp(r->kinds[i].name, kind) == 0)
			return (int)i;
	return -1;
}

static char *rep_strdup0(const char *s)
{
	return strdup(s != NULL ? s : "");
}

struct report *rep_new(void)
{
	return calloc(1, sizeof(struct report));
}

static void rep_nums_free(struct rep_nums *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].unit);
	}
	free(l->v);
}

static void rep_vec_free(struct rep_vec *v)
{
	if (v->labels != NULL)
		for (size_t i = 0; i < v->n; i++)
			free(v->labels[i]);
	free(v->labels);
	free(v->v);
	free(v->name);
	free(v->unit);
	free(v->table);
}

static void rep_series_free(struct rep_series *s)
{
	for (size_t i = 0; i < s->nnames; i++)
		free(s->names[i]);
	free(s->names);
	free(s->name);
	free(s->unit);
}

void rep_abort(struct report *r)
{
	if (r == NULL || r->file == NULL)
		return;
	h5o_abort(r->file);
	r->file = NULL;
	free(r->cols);
	r->cols = NULL;
	r->events = NULL;
}

void rep_free(struct report *r)
{
	size_t i;

	if (r == NULL)
		return;
	rep_abort(r);
	rep_nums_free(&r->summary);
	rep_nums_free(&r->step_scalars);
	for (i = 0; i < r->nvecs; i++)
		rep_vec_free(&r->vecs[i]);
	free(r->vecs);
	for (i = 0; i < r->nattrs; i++) {
		free(r->attrs[i].name);
		free(r->attrs[i].str);
	}
	free(r->attrs);
	for (i = 0; i < r->nseries; i++)
		rep_series_free(&r->series[i]);
	free(r->series);
	for (i = 0; i < r->nkinds; i++) {
		free(r->kinds[i].name);
		free(r->kinds[i].meaning);
	}
	free(r->kinds);
	free(r);
}

int rep_open(struct report *r, const char *path, struct err *e)
{
	if (r->file != NULL)
		return err_set(e, ERR_RUN, "%s: cannot create: a report file is already open",
			       path);
	r->file = h5o_create(path, e);
	return r->file != NULL ? 0 : -1;
}

/* --- named figures ------------------------------------------------------ */

static struct rep_num *rep_nums_find(const struct rep_nums *l, const char *name)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i].name, name) == 0)
			return &l->v[i];
	return NULL;
}

static void rep_nums_set(struct report *r, struct rep_nums *l, const char *what,
			 const char *name, double value, const char *unit)
{
	struct rep_num *x;
	char *u;
	void *grown;

	if (!rep_valid_name(name)) {
		err_set(&r->deferred, ERR_RUN,
			"%s name \"%s\" is empty, \".\", \"..\" or holds '/'", what,
			name ? name : "(null)");
		return;
	}
	if ((x = rep_nums_find(l, name)) != NULL) {
		if ((u = rep_strdup0(unit)) == NULL)
			goto oom;
		free(x->unit);
		x->unit = u;
		x->value = value;
		return;
	}
	if ((grown = grow_room(l->v, &l->cap, l->n, sizeof *l->v, 8)) == NULL)
		goto oom;
	l->v = grown;
	x = &l->v[l->n];
	x->name = strdup(name);
	x->unit = rep_strdup0(unit);
	if (x->name == NULL || x->unit == NULL) {
		free(x->name);
		free(x->unit);
		goto oom;
	}
	x->value = value;
	l->n++;
	return;
oom:
	err_set(&r->deferred, ERR_RUN, "%s %s: out of memory", what, name);
}

void rep_summary(struct report *r, const char *name, double value, const char *unit)
{
	rep_nums_set(r, &r->summary, "summary", name, value, unit);
}

double rep_summary_get(const struct report *r, const char *name)
{
	const struct rep_num *x = rep_nums_find(&r->summary, name);

	return x != NULL ? x->value : NAN;
}

size_t rep_summary_count(const struct report *r)
{
	return r->summary.n;
}

const char *rep_summary_name(const struct report *r, size_t i)
{
	return i < r->summary.n ? r->summary.v[i].name : NULL;
}

double rep_summary_value(const struct report *r, size_t i)
{
	return i < r->summary.n ? r->summary.v[i].value : NAN;
}

const char *rep_summary_unit(const struct report *r, size_t i)
{
	return i < r->summary.n ? r->summary.v[i].unit : NULL;
}

void rep_step_scalar(struct report *r, const char *name, double value, const char *unit)
{
	rep_nums_set(r, &r->step_scalars, "step scalar", name, value, unit);
}

/* --- root attributes ---------------------------------------------------- */

static struct rep_attr *rep_attr_slot(struct report *r, const char *name, struct err *e)
{
	struct rep_attr *a;
	size_t i;
	void *grown;

	if (!rep_valid_name(name)) {
		err_set(e, ERR_RUN, "attribute name \"%s\" is empty, \".\", \"..\" or holds '/'",
			name ? name : "(null)");
		return NULL;
	}
	for (i = 0; i < r->nattrs; i++)
		if (strcmp(r->attrs[i].name, name) == 0)
			return &r->attrs[i];
	grown = grow_room(r->attrs, &r->capattrs, r->nattrs, sizeof *r->attrs, 8);
	if (grown == NULL) {
		err_set(e, ERR_RUN, "attribute %s: out of memory", name);
		return NULL;
	}
	r->attrs = grown;
	a = &r->attrs[r->nattrs];
	if ((a->name = strdup(name)) == NULL) {
		err_set(e, ERR_RUN, "attribute %s: out of memory", name);
		return NULL;
	}
	r->nattrs++;
	a->str = NULL;
	a->u64 = 0;
	return a;
}

int rep_attr_str(struct report *r, const char *name, const char *value, struct err *e)
{
	char *s = rep_strdup0(value);
	struct rep_attr *a;

	if (s == NULL)
		return err_set(e, ERR_RUN, "attribute %s: out of memory", name);
	if ((a = rep_attr_slot(r, name, e)) == NULL) {
		free(s);
		return -1;
	}
	free(a->str);
	a->str = s;
	return 0;
}

int rep_attr_u64(struct report *r, const char *name, uint64_t value, struct err *e)
{
	struct rep_attr *a = rep_attr_slot(r, name, e);

	if (a == NULL)
		return -1;
	free(a->str);
	a->str = NULL;
	a->u64 = value;
	return 0;
}

/* --- /step vectors and labels ------------------------------------------- */

static bool rep_same_table(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static struct rep_vec *rep_vec_new(struct report *r, const char *table, const char *name,
				   struct err *e)
{
	struct rep_vec *v;
	void *grown;

	if (!rep_valid_name(name) || strcmp(name, "units") == 0)
		return err_set(e, ERR_RUN, "step dataset name \"%s\" is empty, holds '/' "
			       "or is the reserved \"units\"", name ? name : "(null)"),
		       NULL;
	if (table && (!rep_valid_name(table) || strcmp(table, "step") == 0 ||
		      strcmp(table, "summary") == 0 || strcmp(table, "timeseries") == 0 ||
		      strcmp(table, "events") == 0))
		return err_set(e, ERR_RUN, "table name \"%s\" is bad or reserved", table),
		       NULL;
	for (size_t i = 0; i < r->nvecs; i++)
		if (rep_same_table(r->vecs[i].table, table) &&
		    strcmp(r->vecs[i].name, name) == 0)
			return err_set(e, ERR_RUN, "dataset %s/%s given twice",
				       table ? table : "step", name), NULL;
	grown = grow_room(r->vecs, &r->capvecs, r->nvecs, sizeof *r->vecs, 8);
	if (grown == NULL)
		return err_set(e, ERR_RUN, "step %s: out of memory", name), NULL;
	r->vecs = grown;
	v = &r->vecs[r->nvecs];
	memset(v, 0, sizeof *v);
	r->nvecs++;
	if ((v->name = strdup(name)) == NULL ||
	    (table && (v->table = strdup(table)) == NULL)) {
		rep_vec_free(v);
		r->nvecs--;
		return err_set(e, ERR_RUN, "step %s: out of memory", name), NULL;
	}
	return v;
}

int rep_table_vector(struct report *r, const char *table, const char *name,
		     const double *v, size_t n, const char *unit, struct err *e)
{
	struct rep_vec *x = rep_vec_new(r, table, name, e);

	if (x == NULL)
		return -1;
	x->n = n;
	x->unit = rep_strdup0(unit);
	x->v = malloc((n ? n : 1) * sizeof *x->v);
	if (x->unit == NULL || x->v == NULL) {
		rep_vec_free(x);
		r->nvecs--;
		return err_set(e, ERR_RUN, "step %s: out of memory", name);
	}
	if (n > 0)
		memcpy(x->v, v, n * sizeof *v);
	return 0;
}

int rep_step_vector(struct report *r, const char *name, const double *v, size_t n,
		    const char *unit, struct err *e)
{
	return rep_table_vector(r, NULL, name, v, n, unit, e);
}

int rep_step_labels(struct report *r, const char *name, const char *const *labels,
		    size_t n, struct err *e)
{
	return rep_table_labels(r, NULL, name, labels, n, e);
}

int rep_table_labels(struct report *r, const char *table, const char *name,
		     const char *const *labels, size_t n, struct err *e)
{
	struct rep_vec *x;
	size_t i;

	for (i = 0; i < n; i++)
		if (labels[i] == NULL)
			return err_set(e, ERR_RUN, "step labels %s: label %zu is NULL",
				       name, i);
	if ((x = rep_vec_new(r, table, name, e)) == NULL)
		return -1;
	/* Count only what was copied, so rep_vec_free is right on failure. */
	if ((x->labels = calloc(n ? n : 1, sizeof *x->labels)) == NULL)
		goto oom;
	for (i = 0; i < n; i++, x->n++)
		if ((x->labels[i] = strdup(labels[i])) == NULL)
			goto oom;
	return 0;
oom:
	rep_vec_free(x);
	r->nvecs--;
	return err_set(e, ERR_RUN, "step %s: out of memory", name);
}

/* --- time series and events --------------------------------------------- */

static struct rep_series *rep_series_add(struct report *r, const char *name,
					  const char *unit)
{
	struct rep_series *s;
	void *grown;

	if (r->series_frozen || !rep_valid_name(name) || strcmp(name, "time_s") == 0)
		return NULL;
	for (size_t i = 0; i < r->nseries; i++)
		if (strcmp(r->series[i].name, name) == 0)
			return NULL;
	grown = grow_room(r->series, &r->capseries, r->nseries, sizeof *r->series, 8);
	if (grown == NULL)
		return NULL;
	r->series = grown;
	s = &r->series[r->nseries];
	memset(s, 0, sizeof *s);
	s->name = strdup(name);
	s->unit = rep_strdup0(unit);
	if (s->name == NULL || s->unit == NULL) {
		rep_series_free(s);
		return NULL;
	}
	r->nseries++;
	return s;
}

int rep_series(struct report *r, const char *name, const char *unit)
{
	return rep_series_add(r, name, unit) != NULL ? 0 : -1;
}

int rep_series_enum(struct report *r, const char *name, const char *const *names,
		    size_t n)
{
	struct rep_series *s;

	if (n == 0 || n > H5O_ENUM_MAX || (s = rep_series_add(r, name, "")) == NULL)
		return -1;
	if ((s->names = calloc(n, sizeof *s->names)) == NULL)
		goto fail;
	for (; s->nnames < n; s->nnames++)
		if ((s->names[s->nnames] = strdup(names[s->nnames])) == NULL)
			goto fail;
	return 0;
fail:
	rep_series_free(s);
	r->nseries--;
	return -1;
}

int rep_event_kind(struct report *r, const char *kind, const char *meaning)
{
	struct rep_kind *k;
	void *grown;

	if (r->events != NULL || r->nkinds == H5O_ENUM_MAX || !rep_valid_name(kind) ||
	    strlen(kind) > REP_KIND_MAX || rep_kind_code(r, kind) >= 0)
		return -1;
	grown = grow_room(r->kinds, &r->capkinds, r->nkinds, sizeof *r->kinds, 8);
	if (grown == NULL)
		return -1;
	r->kinds = grown;
	k = &r->kinds[r->nkinds];
	k->name = strdup(kind);
	k->meaning = rep_strdup0(meaning);
	if (k->name == NULL || k->meaning == NULL) {
		free(k->name);
		free(k->meaning);
		return -1;
	}
	r->nkinds++;
	return 0;
}

/* A file operation failed: drop the file, and fail what follows with the
 * same message, so rep_commit() cannot report success for a lost file. */
static int rep_broke(struct report *r, struct err *e)
{
	if (e != NULL && e->status != ERR_OK)
		err_set(&r->broken, e->status, "%s", e->msg);
	else
		err_set(&r->broken, ERR_RUN, "report file: an earlier write failed");
	rep_abort(r);
	return -1;
}

static int rep_check_broken(const struct report *r, struct err *e)
{
	if (r->broken.status == ERR_OK)
		return 0;
	return err_set(e, r->broken.status, "%s", r->broken.msg);
}

/* Create /timeseries and its columns (on the first sample or at commit). */
static int rep_open_series(struct report *r, struct err *e)
{
	char path[512];
	size_t i;

	r->series_frozen = 1;
	if (r->file == NULL || r->cols != NULL)
		return 0;
	if ((r->cols = calloc(r->nseries + 1, sizeof *r->cols)) == NULL)
		return err_set(e, ERR_RUN, "time series: out of memory");
	if (h5o_group(r->file, "/timeseries", e) < 0)
		return -1;
	if ((r->cols[0] = h5o_col_f64(r->file, "/timeseries/time_s", "s", e)) == NULL)
		return -1;
	for (i = 0; i < r->nseries; i++) {
		snprintf(path, sizeof path, "/timeseries/%s", r->series[i].name);
		const struct rep_series *s = &r->series[i];

		r->cols[i + 1] = s->names != NULL
			? h5o_col_enum(r->file, path, (const char *const *)s->names, s->nnames, e)
			: h5o_col_f64(r->file, path, s->unit, e);
		if (r->cols[i + 1] == NULL)
			return -1;
	}
	return 0;
}

int rep_sample(struct report *r, double time_s, const double *values, struct err *e)
{
	if (rep_check_broken(r, e) < 0)
		return -1;
	if (rep_open_series(r, e) < 0)
		return rep_broke(r, e);
	if (r->file == NULL)
		return 0;
	if (h5o_col_put(r->cols[0], &time_s, e) < 0)
		return rep_broke(r, e);
	for (size_t i = 0; i < r->nseries; i++) {
		const struct rep_series *s = &r->series[i];
		uint8_t code = 0;
		int rc;

		if (s->names != NULL) {
			if (!(values[i] >= 0 && values[i] < (double)s->nnames))
				return err_set(e, ERR_RUN, "series %s: %g is not one of its %zu codes",
					       s->name, values[i], s->nnames);
			code = (uint8_t)values[i];
			rc = h5o_col_put(r->cols[i + 1], &code, e);
		} else {
			rc = h5o_col_put(r->cols[i + 1], &values[i], e);
		}
		if (rc < 0)
			return rep_broke(r, e);
	}
	return 0;
}

/* Create /events with the kinds declared so far (at the first event or
 * at commit). */
static int rep_open_events(struct report *r, struct err *e)
{
	const char **names;

	if (r->events != NULL)
		return 0;
	if ((names = calloc(r->nkinds ? r->nkinds : 1, sizeof *names)) == NULL)
		return err_set(e, ERR_RUN, "events: out of memory");
	for (size_t i = 0; i < r->nkinds; i++)
		names[i] = r->kinds[i].name;
	r->events = h5o_col_events(r->file, "/events", names, r->nkinds, e);
	free(names);
	return r->events != NULL ? 0 : -1;
}

int rep_event(struct report *r, double time_s, const char *kind, int64_t who,
	      double value, struct err *e)
{
	struct h5o_event ev;
	int code = rep_kind_code(r, kind);

	if (rep_check_broken(r, e) < 0)
		return -1;
	if (code < 0)
		return err_set(e, ERR_RUN, "event kind \"%s\" was not declared", kind);
	if (r->file == NULL)
		return 0;
	if (rep_open_events(r, e) < 0)
		return rep_broke(r, e);
	/* Zeroed first: no indeterminate padding goes near the file. */
	memset(&ev, 0, sizeof ev);
	ev.time_s = time_s;
	ev.kind = (uint8_t)code;
	ev.who = who;
	ev.value = value;
	if (h5o_col_put(r->events, &ev, e) < 0)
		return rep_broke(r, e);
	return 0;
}

/* --- commit ------------------------------------------------------------- */

/* Figures as float64 attributes of group, their units under group/units. */
static int rep_write_nums(struct h5o *f, const char *group, const struct rep_nums *l,
			  struct err *e)
{
	char units[64];
	size_t i;

	snprintf(units, sizeof units, "%s/units", group);
	if (h5o_group(f, units, e) < 0)
		return -1;
	for (i = 0; i < l->n; i++)
		if (h5o_attr_f64(f, group, l->v[i].name, l->v[i].value, e) < 0 ||
		    h5o_attr_str(f, units, l->v[i].name, l->v[i].unit, e) < 0)
			return -1;
	return 0;
}

/* The /step vectors, then each table's columns (a table's group is made
 * at its first column). */
static int rep_write_vecs(struct report *r, bool tables, struct err *e)
{
	char path[512];

	for (size_t i = 0; i < r->nvecs; i++) {
		const struct rep_vec *v = &r->vecs[i];
		bool first = true;
		int rc;

		if ((v->table != NULL) != tables)
			continue;
		for (size_t j = 0; j < i && tables; j++)
			first = first && !rep_same_table(r->vecs[j].table, v->table);
		snprintf(path, sizeof path, "/%s", v->table);
		if (tables && first && h5o_group(r->file, path, e) < 0)
			return -1;
		snprintf(path, sizeof path, "/%s/%s", tables ? v->table : "step", v->name);
		if (v->labels != NULL)
			rc = h5o_vec_str(r->file, path, (const char *const *)v->labels,
					 v->n, e);
		else
			rc = h5o_vec_f64(r->file, path, v->v, v->n, v->unit, e);
		if (rc < 0)
			return -1;
	}
	return 0;
}

static int rep_write_step(struct report *r, struct err *e)
{
	if (h5o_group(r->file, "/step", e) < 0 ||
	    rep_write_nums(r->file, "/step", &r->step_scalars, e) < 0)
		return -1;
	return rep_write_vecs(r, false, e) < 0 ? -1 : rep_write_vecs(r, true, e);
}

/* What each field of /events holds, then what who and value mean for each
 * kind, as string attributes of /events (so the file explains itself). */
static const char *const rep_event_fields[][2] = {
	{ "time_s", "simulated time of the event, s from the start of the run" },
	{ "kind", "what happened (an enum); the attribute named after the kind says "
		  "what who and value mean for it" },
	{ "who", "the node or pool it happened to; -1 when it concerns the whole job" },
	{ "value", "a figure that depends on kind (see the kind's attribute)" },
};

static int rep_write_events_doc(struct report *r, struct err *e)
{
	size_t i;

	for (i = 0; i < sizeof rep_event_fields / sizeof rep_event_fields[0]; i++)
		if (h5o_attr_str(r->file, "/events", rep_event_fields[i][0],
				 rep_event_fields[i][1], e) < 0)
			return -1;
	for (i = 0; i < r->nkinds; i++)
		if (h5o_attr_str(r->file, "/events", r->kinds[i].name, r->kinds[i].meaning,
				 e) < 0)
			return -1;
	return 0;
}

static int rep_write_all(struct report *r, struct err *e)
{
	size_t i;

	if (r->deferred.status != ERR_OK)
		return err_set(e, r->deferred.status, "%s", r->deferred.msg);
	if (h5o_attr_u64(r->file, "/", "layout_version", REP_LAYOUT_VERSION, e) < 0)
		return -1;
	for (i = 0; i < r->nattrs; i++) {
		const struct rep_attr *a = &r->attrs[i];
		int rc = a->str != NULL ? h5o_attr_str(r->file, "/", a->name, a->str, e)
					: h5o_attr_u64(r->file, "/", a->name, a->u64, e);
		if (rc < 0)
			return -1;
	}
	if (rep_open_series(r, e) < 0 || rep_open_events(r, e) < 0 ||
	    rep_write_events_doc(r, e) < 0)
		return -1;
	if (h5o_group(r->file, "/summary", e) < 0 ||
	    rep_write_nums(r->file, "/summary", &r->summary, e) < 0)
		return -1;
	return rep_write_step(r, e);
}

int rep_commit(struct report *r, struct err *e)
{
	struct h5o *f = r->file;
	int rc;

	if (rep_check_broken(r, e) < 0)
		return -1;
	if (f == NULL)
		return r->deferred.status != ERR_OK
			       ? err_set(e, r->deferred.status, "%s", r->deferred.msg)
			       : 0;
	if (rep_write_all(r, e) < 0)
		return rep_broke(r, e);
	/* h5o_commit frees f (and its columns) whether it succeeds or not. */
	r->file = NULL;
	free(r->cols);
	r->cols = NULL;
	r->events = NULL;
	rc = h5o_commit(f, e);
	if (rc < 0)
		rep_broke(r, e);
	return rc;
}

/* --- printing ----------------------------------------------------------- */

static void rep_json_string(const char *s, FILE *out)
{
	fputc('"', out);
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", out);
		else if (c == '\t')
			fputs("\\t", out);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void rep_print_json(const struct report *r, FILE *out)
{
	fputc('{', out);
	for (size_t i = 0; i < r->summary.n; i++) {
		double v = r->summary.v[i].value;

		if (i > 0)
			fputs(", ", out);
		rep_json_string(r->summary.v[i].name, out);
		fputs(": ", out);
		/* JSON has no NaN or infinity; %.17g round-trips a double. */
		if (isfinite(v))
			fprintf(out, "%.17g", v);
		else
			fputs("null", out);
	}
	fputs("}\n", out);
}
