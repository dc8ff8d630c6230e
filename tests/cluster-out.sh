#!/bin/sh
# What comes out of trainsim cluster besides /summary: the /teams table,
# trainsim collect over cluster runs, and the three pictures of
# plots/plot-cluster.  tests/cluster/small.cfg under EASY (start times by
# hand in tests/cluster-sched.sh: jobs 1-4 run 0-100, 100-150, 20-50,
# 150-350 on 2, 4, 2, 2 nodes of 2 USD/h; users 1, 2, 1, 3).
. "$SRCDIR/tests/tap.sh"
plan 7
"$TRAINSIM" cluster -q -o "$tmp/a.h5" tests/cluster/small.cfg
# user1: 2 x 100 s + 2 x 30 s = 260 node-s x 2 USD/h = 0.1444; user2:
# 4 x 50 = 200 node-s: 0.1111; user3: 2 x 200: 0.2222; the fleet: 4 nodes
# x 350 s = 1400 node-s: 0.7778, so idle 540 node-s: 0.3000.
got=$("$TRAINSIM" export --table teams "$tmp/a.h5" team reserved_usd cost_usd |
	awk 'NR > 1 { printf "%s%s:%.4f", s, $1, $2; s = "," }')
ok_eq "$got" "user1:0.1444,user2:0.1111,user3:0.2222,idle_capacity:0.3000" \
	"/teams: reserved cost per team and the idle line, by hand"
tot=$("$TRAINSIM" export --table teams "$tmp/a.h5" cost_usd | awk 'NR > 1 { s += $1 } END { printf "%.9f", s }')
ok_eq "$tot" "0.777777778" "/teams rows sum to the fleet total (1400 node-s x 2 USD/h)"

# collect: one row per run, the override that defines it as a column.
"$TRAINSIM" cluster -q -o "$tmp/b.h5" -s fleet.pools.res.nodes=5 tests/cluster/small.cfg
"$TRAINSIM" collect "$tmp/a.h5" "$tmp/b.h5" >"$tmp/t.tsv"; ok $? "trainsim collect reads cluster runs"
# With a fifth node EASY still starts job 2 at 100 (it needs 4 of the 5
# and job 1 holds 2 until then) and job 4 at 150 (2 nodes for 200 s would
# delay job 2's reservation: 1 spare node at 100), so the run ends at 350
# again and costs 5 x 350 s x 2 USD/h = 0.9722 USD.  Run a has no
# override: NA.
got=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ printf "%s%s:%s:%.4f", s, $c["fleet.pools.res.nodes"], $c["duration_s"], $c["cost_usd"]; s = "," }' "$tmp/t.tsv")
ok_eq "$got" "NA:350:0.7778,5:350:0.9722" "collect: the swept setting is a column; figures by hand"

# The pictures: rendered, each as PNG and SVG.
PLOT_W=640 PLOT_H=420 "$SRCDIR/plots/plot-cluster" -o "$tmp/p" "$tmp/a.h5" >/dev/null 2>"$tmp/err"
ok $? "plot-cluster exits 0"
n=0
for k in load wait cost fabric; do [ -s "$tmp/p/a-$k.png" ] && [ -s "$tmp/p/a-$k.svg" ] && n=$((n + 1)); done
ok_eq "$n" 4 "load, wait, cost and fabric pictures, PNG and SVG"
# The wait CDF names the one class (trace) and the cost bars the 3 users.
grep -q '>trace<' "$tmp/p/a-wait.svg" && grep -q '>user3<' "$tmp/p/a-cost.svg"
ok $? "the wait CDF names its class, the cost picture its teams"
