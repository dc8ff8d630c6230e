/* replay.c -- see replay.h: the capacity step function, and which reader
 * reads a capacity trace. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "models/replay_int.h"

const char *const fail_kind_names[FK_COUNT] = { "gpu", "node", "nic", "software" };

int replay_cap_push(struct replay_cap *t, size_t *cap, double t_s, int avail,
		    struct err *e)
{
	if (t->n > 0 && t->t_s[t->n - 1] == t_s) {
		t->avail[t->n - 1] = avail;
		if (t->n > 1 && t->avail[t->n - 2] == avail)
			t->n--;
		return 0;
	}
	if (t->n > 0 && t->avail[t->n - 1] == avail)
		return 0;
	if (t->n == *cap) {
		size_t nc = *cap ? 2 * *cap : 64;
		double *nt = realloc(t->t_s, nc * sizeof *nt);
		if (nt == NULL)
			return err_set(e, ERR_RUN, "out of memory");
		t->t_s = nt;
		int *na = realloc(t->avail, nc * sizeof *na);
		if (na == NULL)
			return err_set(e, ERR_RUN, "out of memory");
		t->avail = na;
		*cap = nc;
	}
	t->t_s[t->n] = t_s;
	t->avail[t->n] = avail;
	t->n++;
	if (avail > t->max_avail)
		t->max_avail = avail;
	return 0;
}

void replay_cap_free(struct replay_cap *t)
{
	free(t->t_s);
	free(t->avail);
	memset(t, 0, sizeof *t);
}

int replay_cap_at(const struct replay_cap *t, double t_s, int loop)
{
	size_t lo = 0, hi = t->n;

	if (loop && t->end_s > 0 && t_s >= t->end_s)
		t_s = fmod(t_s, t->end_s);
	/* last i with t_s[i] <= t_s */
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (t->t_s[mid] <= t_s)
			lo = mid;
		else
			hi = mid;
	}
	return t->avail[lo];
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int replay_read_capacity(const char *path, struct replay_cap *t, struct err *e)
{
	int rc;

	memset(t, 0, sizeof *t);
	if (ends_with(path, ".json"))
		rc = replay_read_skypilot(path, t, e);
	else if (ends_with(path, ".csv"))
		rc = replay_read_bamboo(path, t, e);
	else
		return err_set(e, ERR_USAGE, "%s: unknown trace format (expected a skypilot "
			       ".json or a Bamboo .csv)", path);
	if (rc < 0)
		replay_cap_free(t);
	return rc;
}
