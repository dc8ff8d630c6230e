/*
 * path.h -- where the files a scenario names are: @include'd catalogs and
 * traces, looked for the way a shell looks for a command.
 *
 * A relative name is looked for, in order, in
 *   1. the directory of the file that names it (the including file for an
 *      @include, the scenario for a trace),
 *   2. the scenario's own directory, when that is another one,
 *   3. each directory of $TRAINSIM_PATH (colon-separated, empty entries
 *      skipped),
 *   4. the installed scenarios, TRAINSIM_DATADIR/scenarios (make install
 *      puts the catalogs, regions, traces and presets there).
 * The first place where the name exists wins (a directory too: the caller
 * then says it is one, rather than quietly taking a later match).  An
 * absolute name is taken as it is.  A miss lists the places in words, for
 * messages such as
 *   x.cfg:2: @include "catalog/gpus.cfg": not found in ./,
 *   $TRAINSIM_PATH (not set), /usr/local/share/trainsim/scenarios
 */
#ifndef SIM_PATH_H
#define SIM_PATH_H

#include <stddef.h>

/* The installed scenarios' directory (TRAINSIM_DATADIR "/scenarios"). */
const char *path_datadir(void);

/* Find rel as above; dir_from and dir_scen may be NULL (the current
 * directory).  Found: 0, out = the path to open ("DIR/rel", or rel itself
 * for the current directory).  Not found, or out too small: -1, tried =
 * the places looked in, in words. */
int path_find(const char *dir_from, const char *dir_scen, const char *rel,
	      char *out, size_t cap, char *tried, size_t tried_cap);

/* The directory part of file ("." when it has none), into out. */
void path_dir(const char *file, char *out, size_t cap);

#endif
