/*
 * outpath.h -- may an output file go there?  Checked before any work, so a
 * bad -o fails at once and never replaces what it must not.
 *
 *   const char *in[] = { "run.cfg", "trace.csv" };
 *   if (outp_check("run.h5", in, 2, &e) < 0)   // "-o run.h5: ..." (ERR_USAGE)
 *           return -1;
 *
 * The target must be a non-empty path that does not end in '/', is a
 * regular file or does not exist yet (never a directory, device node,
 * FIFO or symbolic link: rename() would replace the node itself), is none
 * of the inputs (same st_dev and st_ino, so another spelling of the path
 * or a hard link is caught), and lies in a directory we may write to
 * (h5out.h writes a temporary file beside it and renames it into place).
 *
 * A passing check also removes stale temporary files of this target: our
 * pattern ".NAME.tmp.XXXXXX" in its directory, regular, ours (same uid),
 * last written before this process started -- what a kill -9 left.
 */
#ifndef SIM_OUTPATH_H
#define SIM_OUTPATH_H

#include <stddef.h>

#include "sim/err.h"

int outp_check(const char *target, const char *const *inputs, size_t n_inputs,
	       struct err *e);
/* The same with the scenario's files as inputs (sc_input_files(): the
 * file, its @includes, every trace it names). */
struct scenario;
int outp_check_scenario(const char *target, const struct scenario *sc, struct err *e);

#endif
