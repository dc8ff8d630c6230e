/*
 * jsonfile.h -- a JSON file parsed by jansson (a maintained library;
 * Debian libjansson-dev), strictly, with FILE:LINE:COLUMN errors.
 *
 *   json_t *doc = jsonfile_load("trace.json", &e);
 *   if (doc == NULL) ... e.msg: "trace.json:2:23: bad JSON: invalid token near 'x'"
 *   ... json_object_get(doc, "data") ...
 *   json_decref(doc);
 *
 * Strict: a duplicate key, a NUL byte (in the file or as \u0000), an
 * integer beyond 64 bits, a number beyond a double and any text after the
 * top-level object or array are errors.  Parsed values carry no position,
 * so a reader names a value it refuses by its path in the document:
 * "FILE: data[3]: what is wrong".
 */
#ifndef SIM_JSONFILE_H
#define SIM_JSONFILE_H

#include <jansson.h>

#include "sim/err.h"

/* The document (an object or an array; the caller json_decref()s it), or
 * NULL with e filled (ERR_USAGE for the file's faults). */
json_t *jsonfile_load(const char *path, struct err *e);

#endif
