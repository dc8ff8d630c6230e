/* forkjobs.c -- see forkjobs.h. */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/forkjobs.h"

struct child {
	pid_t pid;
	int fd;			/* read end of its pipe */
	int tag;
	char *data;
	size_t len, cap;
};

struct fj_pool {
	int workers, n;		/* slots; running children in c[0..n) */
	struct child *c;
	struct pollfd *pf;
	char *done;		/* the bytes of the job fj_wait last returned */
};

int fj_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

struct fj_pool *fj_pool_new(int workers, struct err *e)
{
	struct fj_pool *pool = calloc(1, sizeof *pool);

	if (pool)
		pool->workers = workers < 1 ? 1 : workers;
	if (pool && (pool->c = calloc((size_t)pool->workers, sizeof *pool->c)) &&
	    (pool->pf = calloc((size_t)pool->workers, sizeof *pool->pf)))
		return pool;
	fj_pool_free(pool);
	err_set(e, ERR_RUN, "out of memory");
	return NULL;
}

void fj_pool_free(struct fj_pool *pool)
{
	if (pool == NULL)
		return;
	for (int i = 0; i < pool->n; i++) {
		close(pool->c[i].fd);
		kill(pool->c[i].pid, SIGTERM);
		while (waitpid(pool->c[i].pid, NULL, 0) < 0 && errno == EINTR)
			;
		free(pool->c[i].data);
	}
	free(pool->c);
	free(pool->pf);
	free(pool->done);
	free(pool);
}

int fj_running(const struct fj_pool *pool)
{
	return pool->n;
}

int fj_start(struct fj_pool *pool, int tag, fj_job_fn job, void *ctx, struct err *e)
{
	int p[2];

	if (pool->n == pool->workers)
		return err_set(e, ERR_RUN, "fj_start: every worker is busy");
	if (pipe(p) < 0)
		return err_set(e, ERR_RUN, "pipe: %s", strerror(errno));
	fflush(NULL);	/* a child must not write out what the parent buffered */
	pid_t pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		return err_set(e, ERR_RUN, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(p[0]);
		for (int i = 0; i < pool->n; i++)	/* its siblings' */
			close(pool->c[i].fd);
		job(ctx, tag, p[1]);
		close(p[1]);
		_exit(0);
	}
	close(p[1]);
	pool->c[pool->n++] = (struct child){ .pid = pid, .fd = p[0], .tag = tag };
	return 0;
}

/* One read from a child's pipe: 1 data, 0 at its end, -1 error. */
static int read_some(struct child *c, struct err *e)
{
	if (c->len == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 65536;
		char *d = realloc(c->data, cap);
		if (d == NULL)
			return err_set(e, ERR_RUN, "out of memory");
		c->data = d;
		c->cap = cap;
	}
	ssize_t got = read(c->fd, c->data + c->len, c->cap - c->len);
	if (got < 0)
		return errno == EINTR ? 1 : err_set(e, ERR_RUN, "read: %s", strerror(errno));
	c->len += (size_t)got;
	return got > 0;
}

int fj_wait(struct fj_pool *pool, int *tag, const void **data, size_t *len,
	    int *status, struct err *e)
{
	free(pool->done);
	pool->done = NULL;
	if (pool->n == 0)
		return err_set(e, ERR_RUN, "fj_wait: nothing runs");
	for (;;) {
		for (int i = 0; i < pool->n; i++)
			pool->pf[i] = (struct pollfd){ .fd = pool->c[i].fd, .events = POLLIN };
		if (poll(pool->pf, (nfds_t)pool->n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return err_set(e, ERR_RUN, "poll: %s", strerror(errno));
		}
		for (int i = 0; i < pool->n; i++) {
			struct child *c = &pool->c[i];
			if (!(pool->pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			int r = read_some(c, e);
			if (r < 0)
				return -1;
			if (r > 0)
				continue;
			int st = 0;
			close(c->fd);
			while (waitpid(c->pid, &st, 0) < 0 && errno == EINTR)
				;
			if (status)
				*status = st;
			*tag = c->tag;
			*data = pool->done = c->data;
			*len = c->len;
			pool->c[i] = pool->c[--pool->n];
			return 0;
		}
	}
}

int fj_send(int fd, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		ssize_t put = write(fd, p, len);
		if (put < 0 && errno == EINTR)
			continue;
		if (put <= 0)
			return -1;
		p += put;
		len -= (size_t)put;
	}
	return 0;
}
