/*
 * cmd.h -- subcommands of trainsim (`trainsim NAME ARGS...`).
 *
 * Each takes the arguments after `trainsim` (argv[0] is its own name),
 * prints its result, and returns 0, or -1 with e filled (ERR_USAGE for bad
 * arguments or input, so main exits 2).  main() dispatches through the
 * table in trainsim.c.
 */
#ifndef CLI_CMD_H
#define CLI_CMD_H

#include <stddef.h>

#include "sim/err.h"

/* trainsim collective: an nccl-tests-style table (cli/cmd_collective.c). */
int cmd_collective(int argc, char **argv, struct err *e);
/* cli/collect.c: one row per run file (TSV, optionally an HDF5 table). */
int cmd_collect(int argc, char **argv, struct err *e);
/* cli/export.c: a run file's series, events, summary, step as text columns. */
int cmd_export(int argc, char **argv, struct err *e);
/* cli/plan.c: search layouts and policies for the best run under a deadline. */
int cmd_plan(int argc, char **argv, struct err *e);
/* cli/list.c: catalog entries (GPUs, links, ...) with key figures and sources. */
int cmd_list(int argc, char **argv, struct err *e);

/* cli/cluster.c: many jobs on one shared fleet (models/cluster.h). */
int cmd_cluster(int argc, char **argv, struct err *e);
/* The -s overrides as given, one KEY=VALUE a line, as the root attribute
 * "overrides" (what defines a run within a sweep: trainsim collect reads
 * it back). */
struct report;
int cli_write_overrides(struct report *rep, const char *const *ov, size_t n,
			struct err *e);

#endif
