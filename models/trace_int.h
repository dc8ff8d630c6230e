/*
 * trace_int.h -- what trace.c shares with the readers of each trace format
 * (trace_csv.c, trace_aws.c); not for other modules.
 */
#ifndef MODELS_TRACE_INT_H
#define MODELS_TRACE_INT_H

#include "models/trace.h"

/* An empty trace named after its file. */
int trace_begin(struct trace *t, const char *path, struct err *e);
/* Append (ts, v); *cap is the room of t's arrays, grown as needed. */
int trace_push(struct trace *t, size_t *cap, int64_t ts, double v, struct err *e);
const char *trace_qty_name(enum trace_qty q);
/* A value's text: a finite number in range for q (>= 0; PUE >= 1); `where`
 * starts the message ("FILE:LINE" or "FILE: JSON path"). */
int trace_value(const char *where, enum trace_qty q, const char *text, double *out,
		struct err *e);

#endif
