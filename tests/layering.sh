#!/bin/sh
# layering.sh -- the layers include only those below them:
#   sim/         nothing of topologies/, models/, cli/ (the engine)
#   topologies/  nothing of models/, cli/ (the network)
#   models/      nothing of cli/ (training, the run, accounting, the planner)
#   cli/         anything (the commands)
# The scan is grep over every .c and .h of a layer for an include of a
# forbidden folder, as `#include "DIR/` (the project's include style, from
# the top of the tree), spaces allowed after `#` and before the quote, and
# with any `../` before DIR.  Tests 1-2 run the scan on a planted tree, so
# it is known to find a violation (and not to flag a clean include); tests
# 3-5 check that each layer has files to scan, so renaming a folder cannot
# make the test pass on nothing.
set -u
. "$SRCDIR/tests/tap.sh"

# violations ROOT LAYER FORBIDDEN...: the offending lines, FILE:LINE:TEXT.
violations() {
	root=$1 layer=$2
	shift 2
	alt=$(echo "$@" | tr ' ' '|')
	find "$root/$layer" -name '*.[ch]' -exec grep -nE \
		"^[[:space:]]*#[[:space:]]*include[[:space:]]*\"(\\.\\./)*($alt)/" {} + |
		sed "s|^$root/||"
}

# check LAYER FORBIDDEN...: ok when none, else the lines as diagnostics.
check() {
	layer=$1
	shift
	v=$(violations . "$layer" "$@")
	[ -z "$v" ]
	ok $? "$layer/ includes nothing of $*"
	[ -n "$v" ] && echo "$v" | sed 's/^/# /'
	return 0
}

echo "1..8"

mkdir -p "$tmp/sim" "$tmp/models"
printf '#include "sim/err.h"\n#include <stdio.h>\n' >"$tmp/sim/ok.c"
printf '/* x */\n# include "../models/run.h"\n' >"$tmp/sim/bad.h"
[ "$(violations "$tmp" sim models topologies cli)" = 'sim/bad.h:2:# include "../models/run.h"' ]
ok $? "the scan finds a planted include of models/ (and only it)"
[ -z "$(violations "$tmp" models cli)" ]
ok $? "the scan passes a layer without forbidden includes"

for layer in sim topologies models; do
	[ "$(find "$layer" -name '*.c' | wc -l)" -ge 5 ]
	ok $? "$layer/ has C files to scan"
done

check sim topologies models cli
check topologies models cli
check models cli
