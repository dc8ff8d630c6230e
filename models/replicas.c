/* replicas.c -- see replicas.h. */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

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
	size_t len, cap, pos;
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

static int buf_get(struct buf *b, void *out, size_t n)
{
	if (b->pos + n > b->len)
		return -1;
	memcpy(out, b->p + b->pos, n);
	b->pos += n;
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
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

/* A worker: replicas w, w + W, ...; one record each, then exit.  Replicas
 * differ only in their seed, so they share step results (models/pace.h),
 * starting from the parent's (the worker's own copy, after fork). */
static void worker(const struct scenario *sc, uint64_t seed, int n, int w, int W,
		   struct pace_cache *known, int fd)
{
	struct pace_cache *paces = known ? known : pace_cache_new();

	for (int i = w; i < n; i += W) {
		struct report *rep = rep_new();
		struct run_opts o = { .seed = seed + (uint64_t)i, .pace_cache = paces };
		struct err e = { 0 };
		struct buf b = { 0 };
		int ok = rep != NULL && run_simulate(sc, &o, rep, &e) == 0;

		if (rep == NULL)
			err_set(&e, ERR_RUN, "out of memory");
		encode(&b, i, rep, &e, ok);
		rep_free(rep);
		if (b.p == NULL || write_all(fd, b.p, b.len) < 0) {
			free(b.p);
			pace_cache_free(paces);
			_exit(3);
		}
		free(b.p);
	}
	pace_cache_free(paces);
	close(fd);
	_exit(0);
}

/* Read every worker's pipe to its end, as data comes. */
static int collect(int *fds, struct buf *bufs, int W, struct err *e)
{
	struct pollfd *pf = calloc((size_t)W, sizeof *pf);
	int open_n = W;
	char chunk[65536];

	if (pf == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (int w = 0; w < W; w++)
		pf[w] = (struct pollfd){ .fd = fds[w], .events = POLLIN };
	while (open_n > 0) {
		if (poll(pf, (nfds_t)W, -1) < 0) {
			if (errno == EINTR)
				continue;
			free(pf);
			return err_set(e, ERR_RUN, "replicas: poll: %s", strerror(errno));
		}
		for (int w = 0; w < W; w++) {
			if (pf[w].fd < 0 || !(pf[w].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			ssize_t got = read(pf[w].fd, chunk, sizeof chunk);
			if (got < 0 && errno == EINTR)
				continue;
			if (got > 0) {
				if (buf_put(&bufs[w], chunk, (size_t)got) < 0) {
					free(pf);
					return err_set(e, ERR_RUN, "out of memory");
				}
				continue;
			}
			close(pf[w].fd);
			pf[w].fd = fds[w] = -1;
			open_n--;
		}
	}
	free(pf);
	return 0;
}

static int decode(struct replicas *rs, struct buf *b, bool *seen, uint64_t seed,
		  struct err *e)
{
	while (b->pos < b->len) {
		int32_t idx, status;
		uint32_t keys;

		if (buf_get(b, &idx, 4) < 0 || buf_get(b, &status, 4) < 0 ||
		    buf_get(b, &keys, 4) < 0 || idx < 0 || idx >= rs->n)
			return err_set(e, ERR_RUN, "replicas: a worker sent a bad record");
		if (status != 0) {
			char msg[1024];
			uint32_t len = keys < sizeof msg - 1 ? keys : sizeof msg - 1;
			if (buf_get(b, msg, len) < 0)
				len = 0;
			msg[len] = '\0';
			return err_set(e, ERR_RUN, "replica %d (seed %llu): %s", idx,
				       (unsigned long long)(seed + (uint64_t)idx), msg);
		}
		if (rs->keys == 0) {
			rs->keys = (int)keys;
			rs->names = calloc(keys ? keys : 1, sizeof *rs->names);
			rs->v = calloc((size_t)rs->n * (keys ? keys : 1), sizeof *rs->v);
			if (rs->names == NULL || rs->v == NULL)
				return err_set(e, ERR_RUN, "out of memory");
		}
		if ((int)keys != rs->keys)
			return err_set(e, ERR_RUN, "replicas: replica %d has %u summary figures, "
				       "not %d", idx, keys, rs->keys);
		for (uint32_t k = 0; k < keys; k++) {
			uint8_t len;
			char name[NAME_MAX_LEN];
			double v;
			if (buf_get(b, &len, 1) < 0 || len >= NAME_MAX_LEN ||
			    buf_get(b, name, len) < 0 || buf_get(b, &v, 8) < 0)
				return err_set(e, ERR_RUN, "replicas: a worker sent a bad record");
			name[len] = '\0';
			if (rs->names[k][0] == '\0')
				memcpy(rs->names[k], name, (size_t)len + 1);
			else if (strcmp(rs->names[k], name) != 0)
				return err_set(e, ERR_RUN, "replicas: summary figures in another "
					       "order in replica %d", idx);
			rs->v[(size_t)idx * keys + k] = v;
		}
		seen[idx] = true;
	}
	return 0;
}

int replicas_run(const struct scenario *sc, uint64_t seed, int n, int workers,
		 struct pace_cache *paces, struct replicas **out, struct err *e)
{
	struct replicas *rs = calloc(1, sizeof *rs);
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	int W = workers > 0 ? workers : (cpus > 0 ? (int)cpus : 1);
	int *fds = NULL, rc = -1, started = 0;
	pid_t *pids = NULL;
	struct buf *bufs = NULL;
	bool *seen = NULL;

	*out = NULL;
	if (W > n)
		W = n;
	if (rs == NULL || n < 1)
		return err_set(e, ERR_RUN, "out of memory");
	rs->n = n;
	fds = calloc((size_t)W, sizeof *fds);
	pids = calloc((size_t)W, sizeof *pids);
	bufs = calloc((size_t)W, sizeof *bufs);
	seen = calloc((size_t)n, sizeof *seen);
	if (!fds || !pids || !bufs || !seen) {
		err_set(e, ERR_RUN, "out of memory");
		goto out;
	}
	for (int w = 0; w < W; w++)
		fds[w] = -1;
	fflush(NULL);	/* nothing buffered may be written twice */
	for (; started < W; started++) {
		int p[2];
		if (pipe(p) < 0) {
			err_set(e, ERR_RUN, "replicas: pipe: %s", strerror(errno));
			goto reap;
		}
		pids[started] = fork();
		if (pids[started] < 0) {
			close(p[0]);
			close(p[1]);
			err_set(e, ERR_RUN, "replicas: fork: %s", strerror(errno));
			goto reap;
		}
		if (pids[started] == 0) {
			close(p[0]);
			for (int w = 0; w < started; w++)
				close(fds[w]);
			worker(sc, seed, n, started, W, paces, p[1]);
		}
		close(p[1]);
		fds[started] = p[0];
	}
	if (collect(fds, bufs, W, e) < 0)
		goto reap;
	rc = 0;
	for (int w = 0; w < W && rc == 0; w++)
		rc = decode(rs, &bufs[w], seen, seed, e);
reap:
	if (rc < 0)
		for (int w = 0; w < started; w++)
			kill(pids[w], SIGTERM);
	for (int w = 0; w < started; w++) {
		int status;
		if (fds[w] >= 0)
			close(fds[w]);
		while (waitpid(pids[w], &status, 0) < 0 && errno == EINTR)
			;
		if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
			rc = err_set(e, ERR_RUN, "replicas: worker %d failed", w);
	}
	for (int i = 0; i < n && rc == 0; i++)
		if (!seen[i])
			rc = err_set(e, ERR_RUN, "replicas: replica %d sent nothing", i);
out:
	for (int w = 0; bufs && w < W; w++)
		free(bufs[w].p);
	free(bufs);
	free(fds);
	free(pids);
	free(seen);
	if (rc < 0)
		replicas_free(rs);
	else
		*out = rs;
	return rc;
}

void replicas_add(const struct replicas *rs, struct report *rep)
{
	double t = rs->n > 1 ? gsl_cdf_tdist_Pinv(0.975, rs->n - 1) : NAN;

	rep_summary(rep, "replicas", rs->n, "");
	for (int k = 0; k < rs->keys; k++) {
		double sum = 0, sq = 0, mean, sd;
		char name[NAME_MAX_LEN + 8];

		for (int i = 0; i < rs->n; i++)
			sum += rs->v[(size_t)i * rs->keys + k];
		mean = sum / rs->n;
		for (int i = 0; i < rs->n; i++) {
			double d = rs->v[(size_t)i * rs->keys + k] - mean;
			sq += d * d;
		}
		sd = rs->n > 1 ? sqrt(sq / (rs->n - 1)) : NAN;
		snprintf(name, sizeof name, "%s_mean", rs->names[k]);
		rep_summary(rep, name, mean, "");
		snprintf(name, sizeof name, "%s_ci95", rs->names[k]);
		rep_summary(rep, name, t * sd / sqrt(rs->n), "");
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
