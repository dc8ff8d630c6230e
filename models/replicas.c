/* replicas.c -- see replicas.h. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include <gsl/gsl_cdf.h>

#include "sim/forkjobs.h"
#include "models/pace.h"
#include "models/replicas.h"
#include "models/run.h"

#define NAME_MAX_LEN 64

struct replicas {
	int n;			/* replicas */
	int keys;
	char (*names)[NAME_MAX_LEN];
	double *v;		/* v[i * keys + k] */
};

/* --- the wire: a record per replica ----------------------------------------
 * int32 index, int32 status, then on success uint32 keys and per key
 * uint8 name length, name, double value; on failure uint32 length, message. */

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_put(struct buf *b, const void *data, size_t n)
{
	if (b->len + n > b->cap) {
		size_t nc = (b->len + n) * 2 + 256;
		char *np = realloc(b->p, nc);
		if (np == NULL)
			return -1;
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	return 0;
}

/* A worker's bytes, as fj_wait hands them over. */
struct rd {
	const char *p;
	size_t len, pos;
};

static int rd_get(struct rd *r, void *out, size_t n)
{
	if (r->pos + n > r->len)
		return -1;
	memcpy(out, r->p + r->pos, n);
	r->pos += n;
	return 0;
}

static void encode(struct buf *b, int32_t idx, const struct report *rep, const struct err *e,
		   int ok)
{
	int32_t status = ok ? 0 : 1;

	buf_put(b, &idx, sizeof idx);
	buf_put(b, &status, sizeof status);
	if (!ok) {
		uint32_t len = (uint32_t)strlen(e->msg);
		buf_put(b, &len, sizeof len);
		buf_put(b, e->msg, len);
		return;
	}
	uint32_t keys = (uint32_t)rep_summary_count(rep);
	buf_put(b, &keys, sizeof keys);
	for (uint32_t k = 0; k < keys; k++) {
		const char *name = rep_summary_name(rep, k);
		uint8_t len = (uint8_t)strnlen(name, NAME_MAX_LEN - 1);
		double v = rep_summary_value(rep, k);
		buf_put(b, &len, 1);
		buf_put(b, name, len);
		buf_put(b, &v, sizeof v);
	}
}

/* --- the workers ----------------------------------------------------------- */

/* What every worker is given (its copy, after the fork). */
struct job {
	const struct run_job *run;	/* read once per load */
	uint64_t seed;
	int n, W;
	struct pace_cache *paces;	/* the caller's; may be NULL */
};

/* Worker w (an fj_job_fn): replicas w, w + W, ..., one record each.
 * Replicas differ only in their seed, so they share step results
 * (models/pace.h), starting from the parent's.  If a record cannot be
 * sent, the parent finds the replica missing and says so. */
static void worker(void *ctx, int w, int fd)
{
	const struct job *j = ctx;
	struct pace_cache *paces = j->paces ? j->paces : pace_cache_new();

	for (int i = w; i < j->n; i += j->W) {
		struct report *rep = rep_new();
		struct run_opts o = { .seed = j->seed + (uint64_t)i, .pace_cache = paces };
		struct err e = { 0 };
		struct buf b = { 0 };
		int ok = rep != NULL && run_simulate_job(j->run, &o, rep, &e) == 0;

		if (rep == NULL)
			err_set(&e, ERR_RUN, "out of memory");
		encode(&b, i, rep, &e, ok);
		rep_free(rep);
		ok = b.p != NULL && fj_send(fd, b.p, b.len) == 0;
		free(b.p);
		if (!ok)
			break;
	}
	if (paces != j->paces)
		pace_cache_free(paces);
}

/* --- the parent: records by replica index ---------------------------------- */

/* Workers end in any order, so a failure is kept only if it is the
 * least replica's so far: the error, like the figures, does not depend on
 * the number of workers or their timing. */
struct gather {
	struct replicas *rs;
	uint64_t seed;
	int W;
	bool *got;		/* got[i]: replica i's figures are in */
	int bad;		/* the least failed replica (INT_MAX: none) ... */
	struct err why;		/* ... and why */
	replicas_progress_fn *progress;	/* told of each replica in (may be NULL) */
	void *progress_ctx;
	int done;
};

static void failed(struct gather *g, int idx, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void failed(struct gather *g, int idx, const char *fmt, ...)
{
	va_list ap;

	if (idx >= g->bad)
		return;
	g->bad = idx;
	g->why = (struct err){ 0 };
	va_start(ap, fmt);
	err_vset(&g->why, ERR_RUN, fmt, ap);
	va_end(ap);
}

/* Room for the figures, at the first record (it tells how many). */
static int make_room(struct replicas *rs, uint32_t keys, struct err *e)
{
	if (rs->names == NULL) {
		rs->keys = (int)keys;
		rs->names = calloc(keys ? keys : 1, sizeof *rs->names);
		rs->v = calloc((size_t)rs->n * (keys ? keys : 1), sizeof *rs->v);
		if (rs->names == NULL || rs->v == NULL)
			return err_set(e, ERR_RUN, "out of memory");
	}
	return 0;
}

/* One replica's figures, their names as the first record's: 1 done, 0 cut
 * short (its worker died while writing), -1 malformed. */
static int take_figures(struct replicas *rs, struct rd *r, int32_t idx, uint32_t keys,
			struct err *e)
{
	if (make_room(rs, keys, e) < 0)
		return -1;
	if ((int)keys != rs->keys)
		return err_set(e, ERR_RUN, "replicas: replica %d has %u summary figures, "
			       "not %d", idx, keys, rs->keys);
	for (uint32_t k = 0; k < keys; k++) {
		uint8_t len;
		char name[NAME_MAX_LEN];
		double v;
		if (rd_get(r, &len, 1) < 0)
			return 0;
		if (len >= NAME_MAX_LEN)
			return err_set(e, ERR_RUN, "replicas: a worker sent a bad record");
		if (rd_get(r, name, len) < 0 || rd_get(r, &v, 8) < 0)
			return 0;
		name[len] = '\0';
		if (rs->names[k][0] == '\0')
			memcpy(rs->names[k], name, (size_t)len + 1);
		else if (strcmp(rs->names[k], name) != 0)
			return err_set(e, ERR_RUN, "replicas: summary figures in another "
				       "order in replica %d", idx);
		rs->v[(size_t)idx * keys + k] = v;
	}
	return 1;
}

/* Worker w's records. */
static int take_records(struct gather *g, int w, struct rd *r, struct err *e)
{
	while (r->pos < r->len) {
		int32_t idx, status;
		uint32_t keys;

		if (rd_get(r, &idx, 4) < 0 || rd_get(r, &status, 4) < 0 ||
		    rd_get(r, &keys, 4) < 0)
			return 0;
		if (idx < 0 || idx >= g->rs->n || idx % g->W != w || g->got[idx])
			return err_set(e, ERR_RUN, "replicas: a worker sent a bad record");
		if (status != 0) {
			char msg[1024];
			uint32_t len = keys < sizeof msg - 1 ? keys : sizeof msg - 1;
			if (rd_get(r, msg, len) < 0)
				return 0;	/* cut short: the worker's end tells */
			msg[len] = '\0';
			failed(g, idx, "replica %d (seed %llu): %s", idx,
			       (unsigned long long)(g->seed + (uint64_t)idx), msg);
			continue;
		}
		int got = take_figures(g->rs, r, idx, keys, e);
		if (got <= 0)
			return got;
		g->got[idx] = true;
		if (g->progress)
			g->progress(g->progress_ctx, ++g->done, g->rs->n);
	}
	return 0;
}

/* How a worker's child ended (its wait status), for a message. */
static void ended(int st, char *how, size_t size)
{
	if (WIFSIGNALED(st))
		snprintf(how, size, "was killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		snprintf(how, size, "exited with status %d", WEXITSTATUS(st));
	else
		snprintf(how, size, "ended");
}

/* Worker w has ended, with wait status st, having sent data. */
static int take(struct gather *g, int w, const void *data, size_t len, int st,
		struct err *e)
{
	struct rd r = { .p = data, .len = len };
	char how[160];

	if (take_records(g, w, &r, e) < 0)
		return -1;
	ended(st, how, sizeof how);
	for (int i = w; i < g->rs->n; i += g->W)
		if (!g->got[i]) {	/* failed, or the first it did not send */
			failed(g, i, "replica %d (seed %llu): its worker %s before sending "
			       "its result", i, (unsigned long long)(g->seed + (uint64_t)i), how);
			break;
		}
	if (st != 0)	/* after all it sent: ranked after every replica */
		failed(g, g->rs->n + w, "replicas: worker %d %s", w, how);
	return 0;
}

int replicas_run(const struct run_job *job, uint64_t seed, int n, int workers,
		 struct pace_cache *paces, struct replicas **out, struct err *e)
{
	return replicas_run_with(job, seed, n, workers, paces, NULL, NULL, out, e);
}

int replicas_run_with(const struct run_job *job, uint64_t seed, int n, int workers,
		      struct pace_cache *paces, replicas_progress_fn *progress,
		      void *progress_ctx, struct replicas **out, struct err *e)
{
	struct job j = { job, seed, n, workers > 0 ? workers : fj_cpus(), paces };
	struct gather g = { .seed = seed, .bad = INT_MAX, .progress = progress,
			    .progress_ctx = progress_ctx };
	struct fj_pool *pool = NULL;
	int rc = -1;

	*out = NULL;
	if (n < 1)
		return err_set(e, ERR_RUN, "replicas: %d replicas", n);
	if (j.W > n)
		j.W = n;
	g.W = j.W;
	g.rs = calloc(1, sizeof *g.rs);
	g.got = calloc((size_t)n, sizeof *g.got);
	if (g.rs == NULL || g.got == NULL) {
		err_set(e, ERR_RUN, "out of memory");
		goto out;
	}
	g.rs->n = n;
	if ((pool = fj_pool_new(j.W, e)) == NULL)
		goto out;
	for (int w = 0; w < j.W; w++)
		if (fj_start(pool, w, worker, &j, e) < 0) {
			err_prefix(e, "replicas");
			goto out;
		}
	while (fj_running(pool) > 0) {
		const void *data;
		size_t len;
		int w, st;
		if (fj_wait(pool, &w, &data, &len, &st, e) < 0) {
			err_prefix(e, "replicas");
			goto out;
		}
		if (take(&g, w, data, len, st, e) < 0)
			goto out;
	}
	if (g.bad != INT_MAX)
		err_set(e, g.why.status, "%s", g.why.msg);
	else
		rc = 0;
out:
	fj_pool_free(pool);	/* on failure, stops the workers still running */
	free(g.got);
	if (rc < 0)
		replicas_free(g.rs);
	else
		*out = g.rs;
	return rc;
}

/* The unit the run gave figure name ("" when it has none): its mean and
 * interval are in the same unit. */
static const char *replicas_unit(const struct report *rep, const char *name)
{
	for (size_t i = 0; i < rep_summary_count(rep); i++)
		if (strcmp(rep_summary_name(rep, i), name) == 0)
			return rep_summary_unit(rep, i);
	return "";
}

void replicas_add(const struct replicas *rs, struct report *rep)
{
	double t = rs->n > 1 ? gsl_cdf_tdist_Pinv(0.975, rs->n - 1) : NAN;

	rep_summary(rep, "replicas", rs->n, "");
	for (int k = 0; k < rs->keys; k++) {
		double sum = 0, sq = 0, mean, sd;
		char name[NAME_MAX_LEN + 8];
		const char *unit = replicas_unit(rep, rs->names[k]);

		for (int i = 0; i < rs->n; i++)
			sum += rs->v[(size_t)i * rs->keys + k];
		mean = sum / rs->n;
		for (int i = 0; i < rs->n; i++) {
			double d = rs->v[(size_t)i * rs->keys + k] - mean;
			sq += d * d;
		}
		sd = rs->n > 1 ? sqrt(sq / (rs->n - 1)) : NAN;
		snprintf(name, sizeof name, "%s_mean", rs->names[k]);
		rep_summary(rep, name, mean, unit);
		snprintf(name, sizeof name, "%s_ci95", rs->names[k]);
		rep_summary(rep, name, t * sd / sqrt(rs->n), unit);
	}
}

void replicas_free(struct replicas *rs)
{
	if (rs == NULL)
		return;
	free(rs->names);
	free(rs->v);
	free(rs);
}
