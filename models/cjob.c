/*
 * cjob.c -- the job table of trainsim cluster and its name tables (see
 * cjob.h).
 */
#include <stdlib.h>
#include <string.h>

#include "sim/grow.h"
#include "models/cjob.h"

struct cjob *cjobs_add(struct cjobs *js, struct err *e)
{
	void *grown = grow_room(js->v, &js->cap, js->n, sizeof *js->v, 256);

	if (grown == NULL)
		return err_set(e, ERR_RUN, "jobs: out of memory"), NULL;
	js->v = grown;
	struct cjob *j = &js->v[js->n++];
	memset(j, 0, sizeof *j);
	j->id = (int64_t)js->n;
	j->end_s = -1;
	j->start_s = -1;
	return j;
}

static int name_index(char ***names, size_t *n, size_t *cap, const char *name,
		      struct err *e)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*names)[i], name) == 0)
			return (int)i;
	void *grown = grow_room(*names, cap, *n, sizeof **names, 8);
	if (grown == NULL)
		return err_set(e, ERR_RUN, "jobs: out of memory");
	*names = grown;
	if (((*names)[*n] = strdup(name)) == NULL)
		return err_set(e, ERR_RUN, "jobs: out of memory");
	return (int)(*n)++;
}

int cjobs_team(struct cjobs *js, const char *name, struct err *e)
{
	return name_index(&js->teams, &js->n_teams, &js->cap_teams, name, e);
}

int cjobs_project(struct cjobs *js, const char *name, struct err *e)
{
	return name_index(&js->projects, &js->n_projects, &js->cap_projects, name, e);
}

int cjobs_class(struct cjobs *js, const char *name, struct err *e)
{
	return name_index(&js->classes, &js->n_classes, &js->cap_classes, name, e);
}

static int by_submit(const void *a, const void *b)
{
	const struct cjob *x = a, *y = b;

	if (x->submit_s != y->submit_s)
		return x->submit_s < y->submit_s ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;	/* keeps the order given */
}

void cjobs_sort(struct cjobs *js)
{
	/* ids are unique within a source; the generator and the inline list
	 * number theirs in order, so (submit, id) is a total order. */
	if (js->n > 1)
		qsort(js->v, js->n, sizeof *js->v, by_submit);
}

static void names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

void cjobs_free(struct cjobs *js)
{
	for (size_t i = 0; i < js->n; i++)
		free(js->v[i].node);
	free(js->v);
	names_free(js->teams, js->n_teams);
	names_free(js->projects, js->n_projects);
	names_free(js->classes, js->n_classes);
	memset(js, 0, sizeof *js);
}
