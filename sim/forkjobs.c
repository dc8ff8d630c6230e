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
	int fd;			/* read end, -1 once drained */
	char *data;
	size_t len, cap;
};

int fj_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static int start(struct child *c, int job, fj_job_fn fn, void *ctx, struct err *e)
{
	int p[2];

	if (pipe(p) < 0)
		return err_set(e, ERR_RUN, "pipe: %s", strerror(errno));
	c->pid = fork();
	if (c->pid < 0) {
		c->pid = 0;
		close(p[0]);
		close(p[1]);
		return err_set(e, ERR_RUN, "fork: %s", strerror(errno));
	}
	if (c->pid == 0) {
		close(p[0]);
		fn(ctx, job, p[1]);
		_exit(0);
	}
	close(p[1]);
	c->fd = p[0];
	return 0;
}

/* One read from a child's pipe; 0 at its end. */
static int drain_once(struct child *c, struct err *e)
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

/* Read the running children's pipes as data comes; reap each whose pipe
 * ends and start the next job in its place, until every job is done. */
static int pool(struct child *c, int n, int workers, fj_job_fn job, void *ctx,
		struct err *e)
{
	struct pollfd *pf = calloc((size_t)workers, sizeof *pf);
	int *slot = calloc((size_t)workers, sizeof *slot);	/* job in each slot */
	int next = 0, running = 0, rc = 0;

	if (pf == NULL || slot == NULL) {
		free(pf);
		free(slot);
		return err_set(e, ERR_RUN, "out of memory");
	}
	for (; next < n && next < workers && rc == 0; next++, running++) {
		slot[running] = next;
		rc = start(&c[next], next, job, ctx, e);
	}
	while (running > 0 && rc == 0) {
		for (int i = 0; i < running; i++)
			pf[i] = (struct pollfd){ .fd = c[slot[i]].fd, .events = POLLIN };
		if (poll(pf, (nfds_t)running, -1) < 0) {
			if (errno != EINTR)
				rc = err_set(e, ERR_RUN, "poll: %s", strerror(errno));
			continue;
		}
		for (int i = 0; i < running && rc == 0; i++) {
			struct child *ch = &c[slot[i]];
			if (!(pf[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			int r = drain_once(ch, e);
			if (r != 0) {
				rc = r < 0 ? -1 : 0;
				continue;
			}
			close(ch->fd);
			ch->fd = -1;
			while (waitpid(ch->pid, NULL, 0) < 0 && errno == EINTR)
				;
			ch->pid = 0;
			if (next < n) {
				slot[i] = next;
				rc = start(&c[next], next, job, ctx, e);
				next++;
			} else {
				slot[i] = slot[--running];
				pf[i] = pf[running];
				i--;	/* look at the slot moved here */
			}
		}
	}
	free(pf);
	free(slot);
	return rc;
}

int fj_run(int n, int workers, fj_job_fn job, fj_take_fn take, void *ctx,
	   struct err *e)
{
	struct child *c = calloc((size_t)(n > 0 ? n : 1), sizeof *c);
	int rc;

	if (c == NULL)
		return err_set(e, ERR_RUN, "out of memory");
	for (int i = 0; i < n; i++)
		c[i].fd = -1;
	fflush(NULL);	/* a child must not write out what the parent buffered */
	rc = pool(c, n, workers < 1 ? 1 : workers, job, ctx, e);
	for (int i = 0; i < n; i++) {
		if (c[i].fd >= 0)
			close(c[i].fd);
		if (c[i].pid > 0) {
			kill(c[i].pid, SIGTERM);
			while (waitpid(c[i].pid, NULL, 0) < 0 && errno == EINTR)
				;
		}
	}
	for (int i = 0; rc == 0 && i < n; i++)
		rc = take(ctx, i, c[i].data, c[i].len, e);
	for (int i = 0; i < n; i++)
		free(c[i].data);
	free(c);
	return rc;
}
