#!/bin/sh
# standalone.sh -- the repository stands alone: no code, catalog, script,
# test or document cites a file outside it (the notes the project was
# started from: shared/reference/*.md, shared/traces/, DESIGN.md).  Sources
# are cited as the original paper, table, URL and date, in the catalog
# entry itself or in doc/sources.md.  Test 1 runs the scan on a planted
# file, so the pattern is known to find a citation.
set -u
. "$SRCDIR/tests/tap.sh"

pattern='shared/(reference|traces)|DESIGN\.md|(formulas|reliability|hardware-cost-carbon)\.md'
scan() { grep -rnE "$pattern" "$@" 2>/dev/null; }

mkdir -p "$tmp/models" && printf '/* 6.5 (shared/reference/reliability.md 4.2) */\n' >"$tmp/models/x.h"
scan "$tmp/models" >/dev/null; ok $? "the scan finds a planted citation of shared/reference"
hits=$(scan sim topologies models cli scenarios plots doc README tests | grep -v '^tests/standalone\.sh:')
[ -z "$hits" ]; ok $? "no file cites a path outside the repository"
[ -z "$hits" ] || diag "$hits"
[ -s doc/sources.md ]; ok $? "doc/sources.md holds the original sources"
plan "$tap_n"
