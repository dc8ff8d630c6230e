#!/bin/sh
# output-digests.sh -- one line per scenario in scenarios/: a digest of what
# the run writes (the --json summary and the /summary, /timeseries, /events
# and /step groups of its HDF5 file, a cluster run's /jobs and /teams too;
# not the root attributes, which hold the scenario's text and the version),
# plus `make validate`'s table.  Run it
# before and after a refactoring and diff the two: any change that is not a
# named bug fix is a regression.
#
#   TRAINSIM=./trainsim sh tests/bench/output-digests.sh > before.txt
set -u
: "${TRAINSIM:=./trainsim}"
: "${SRCDIR:=.}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

digest() {
	sha256sum | cut -c1-16
}

for cfg in "$SRCDIR"/scenarios/*.cfg; do
	name=$(basename "$cfg")
	# A shared-cluster scenario (a fleet group) runs `trainsim cluster`.
	cmd=
	grep -q '^fleet *=' "$cfg" && cmd=cluster
	# shellcheck disable=SC2086 # cmd is empty or one word
	if ! "$TRAINSIM" $cmd -q --json -o "$tmp/run.h5" "$cfg" >"$tmp/json" 2>"$tmp/err"; then
		echo "$name FAILED: $(head -c 200 "$tmp/err")"
		continue
	fi
	j=$(digest <"$tmp/json")
	groups="/summary /timeseries /events /step"
	[ -z "$cmd" ] || groups="$groups /jobs /teams"
	h=$(for g in $groups; do
		h5dump -g "$g" "$tmp/run.h5" 2>/dev/null | tail -n +2
	done | digest)
	echo "$name json=$j h5=$h"
done
if [ -x ./tests/bench/validate-b ]; then
	./tests/bench/validate-b "$SRCDIR/scenarios/validation" | sed 's/^/validate: /'
fi
