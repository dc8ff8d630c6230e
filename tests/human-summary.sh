#!/bin/sh
# The summary for people (cli/human.c): figures grouped under time,
# throughput, disruptions, energy, cost, carbon and run, in that order, each
# with the unit the run gives it; with --replicas, mean ± 95% interval first
# and the first seed's values only with -v.  The numbers are --json's, as
# human.c rounds them (>= 1000: one decimal; else 4 significant digits).
cd "$SRCDIR" || exit 1
. tests/tap.sh
. tests/outputs.sh
plan 7

"$TRAINSIM" -o "$tmp/a.h5" scenarios/tiny.cfg >"$tmp/h" &&
	"$TRAINSIM" -q --json -o "$tmp/b.h5" scenarios/tiny.cfg >"$tmp/j"
ok $? "tiny.cfg runs, human and --json"
[ "$(grep '^[a-z]' "$tmp/h" | tr '\n' ' ')" = \
	"time throughput disruptions energy cost carbon run " ]
ok $? "groups in order: $(grep '^[a-z]' "$tmp/h" | tr '\n' ' ')"
d=$(awk -v v="$(json "$tmp/j" duration_s)" 'BEGIN { printf "%.1f", v }')
c=$(awk -v v="$(json "$tmp/j" cost_usd)" 'BEGIN { printf "%.4g", v }')
sed -n '/^time$/,/^$/p' "$tmp/h" | grep -qE "^  duration_s +$d s( |\$)" &&
	sed -n '/^cost$/,/^$/p' "$tmp/h" | grep -qE "^  cost_usd +$c USD( |\$)"
ok $? "duration_s $d s under time, cost_usd $c USD under cost"

set -- -s failures.per_node_per_1000_days=20000 -s failures.spares=1000 --seed 5 --replicas 4
"$TRAINSIM" "$@" -o "$tmp/r.h5" scenarios/tiny.cfg >"$tmp/r" &&
	"$TRAINSIM" "$@" -v -o "$tmp/r.h5" scenarios/tiny.cfg >"$tmp/rv" &&
	"$TRAINSIM" "$@" -q --json -o "$tmp/r.h5" scenarios/tiny.cfg >"$tmp/rj"
ok $? "--replicas 4, plain, -v and --json"
head -1 "$tmp/r" | grep -qx 'mean ± 95% confidence interval over 4 seeds'
ok $? "first line says what the numbers are"
m=$(awk -v v="$(json "$tmp/rj" duration_s_mean)" 'BEGIN { printf "%.1f", v }')
ci=$(awk -v v="$(json "$tmp/rj" duration_s_ci95)" 'BEGIN { printf "%.1f", v }')
grep -qE "^  duration_s +$m ± $ci +s" "$tmp/r" && ! grep -q '_mean\|_ci95\|\[ *[0-9]' "$tmp/r"
ok $? "duration_s $m ± $ci s; no _mean/_ci95 rows, no seed values"
s=$(awk -v v="$(json "$tmp/rj" duration_s)" 'BEGIN { printf "%.1f", v }')
grep -qE "^  duration_s +$m ± $ci +\[ *$s\] s" "$tmp/rv"
ok $? "-v adds the first seed's own duration_s [$s]"
