/* err.c -- see err.h. */
#include <stdio.h>
#include <string.h>

#include "sim/err.h"

int err_vset(struct err *e, int status, const char *fmt, va_list ap)
{
	if (e == NULL || e->status != ERR_OK)
		return -1;
	e->status = status;
	vsnprintf(e->msg, sizeof e->msg, fmt, ap);
	return -1;
}

int err_set(struct err *e, int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_vset(e, status, fmt, ap);
	va_end(ap);
	return -1;
}

void err_prefix(struct err *e, const char *fmt, ...)
{
	char head[512], old[sizeof e->msg];
	va_list ap;

	if (e == NULL || e->status == ERR_OK)
		return;
	va_start(ap, fmt);
	vsnprintf(head, sizeof head, fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof old);
	/* Keep as much of both as fits; the tail of a long message may go. */
	size_t n = strlen(head);
	if (n > sizeof e->msg - 3)
		n = sizeof e->msg - 3;
	memcpy(e->msg, head, n);
	memcpy(e->msg + n, ": ", 2);
	size_t room = sizeof e->msg - n - 3;
	size_t m = strnlen(old, room);
	memcpy(e->msg + n + 2, old, m);
	e->msg[n + 2 + m] = '\0';
}
