#!/bin/sh
# cluster-100k.sh -- the shared-cluster benchmark (issue 17): 100,000 jobs
# on a 100,000-GPU fleet over 90 simulated days (tests/bench/cluster-100k.cfg)
# within 60 s and 2 GB on the 2-core machine.  Prints the jobs, the events
# (they grow with jobs and disruptions, not with iterations), the wall time
# and the peak resident memory; exits 1 when a target is missed.
# `make bench-cluster`; never run by make check.  Set TRAINSIM and SRCDIR
# (make does), or run it from the source tree after building.
set -u
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TRAINSIM=${TRAINSIM:-$SRCDIR/trainsim}
out=$(mktemp -d) || exit 1
trap 'rm -rf "$out"' EXIT
t0=$(date +%s.%N)
if [ -x /usr/bin/time ]; then
	/usr/bin/time -f '%M' -o "$out/rss" "$TRAINSIM" cluster --json -o "$out/b.h5" \
		"$SRCDIR/tests/bench/cluster-100k.cfg" >"$out/sum.json" || exit 1
else
	"$TRAINSIM" cluster --json -o "$out/b.h5" "$SRCDIR/tests/bench/cluster-100k.cfg" \
		>"$out/sum.json" || exit 1
	echo 0 >"$out/rss"
fi
t1=$(date +%s.%N)
fig() { tr ',' '\n' <"$out/sum.json" | awk -F': ' -v k="\"$1\"" '$1 ~ k { print $2 + 0 }'; }
awk -v a="$t0" -v b="$t1" -v kb="$(tail -n 1 "$out/rss")" -v jobs="$(fig jobs)" \
	-v ev="$(fig events)" -v days="$(fig duration_s)" 'BEGIN {
	s = b - a; mb = kb / 1024
	printf "cluster-100k: %d jobs, %d events, %.1f simulated days: %.1f s, %.0f MB peak%s\n",
		jobs, ev, days / 86400, s, mb, kb ? "" : " (no /usr/bin/time: not measured)"
	if (jobs != 100000) { print "cluster-100k: expected 100,000 jobs"; exit 1 }
	if (s > 60 || mb > 2048) { print "cluster-100k: over the 60 s / 2 GB target"; exit 1 } }'
