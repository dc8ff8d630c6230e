#!/bin/sh
# Jobs sharing the fabric (models/cfabric.h), by hand.
#
# tests/cluster/fabric.cfg: nine 1-GPU nodes, leaves of 3 under 4-port
# switches split 3:1, so each leaf reaches the one spine by a single
# uplink.  FIFO, first fit, all submitted at 0: x (2 nodes) takes nodes 0-1,
# a (2 nodes) 2 and 3, y (1 node) 4, b (2 nodes) 5 and 6.  a's ring
# (2 -> 3 -> 2) crosses leaf 0's and leaf 1's uplinks, b's (5 -> 6 -> 5)
# leaf 1's and leaf 2's: on leaf 1's uplink (3 -> 2 and 5 -> 6) and on its
# link down from the spine (2 -> 3 and 6 -> 5) the two rings each get half
# of the capacity (max-min), every other link they cross they have alone.
# So each ring runs at half its rate alone: s = 2, and with comm_fraction
# 0.25 each job runs at 1 + 0.25 x (2 - 1) = 1.25 times its pace: its
# 1000 s of work end at 1250 s.
#
# Topology-aware placement puts x on leaf 0 (nodes 0-1), a on leaf 1
# (3-4), y in leaf 0's last node (2), b on leaf 2 (6-7): both rings stay
# inside their leaves, share no link, and run alone: slowdown exactly 1,
# ends at 1000 s.  So does first fit with fabric.sharing = false.
#
# b arriving at 500 s instead: a runs alone until then (500 s of work),
# then both at 1.25: a's last 500 s of work take 625 s, ending at 1125;
# b does 500 s of work by then, and its last 500 alone: it ends at 1625.
# Each was slowed for 625 of its 1125 wall seconds running while shared:
# fabric_slowdown = 1125 / 1000 = 1.125 for both.
cd "$SRCDIR" || exit 1
. tests/tap.sh
plan 15
col() { "$TRAINSIM" export --table jobs "$1" | awk -v c="$2" '
	NR == 1 { for (i = 2; i <= NF; i++) if ($i == c) k = i - 1; next }
	{ printf "%s%s", s, $k; s = "," }'; }
fig() { "$TRAINSIM" export --summary "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
F=tests/cluster/fabric.cfg

"$TRAINSIM" cluster -q -o "$tmp/ff.h5" "$F"
ok_eq "$(col "$tmp/ff.h5" end_s)" "10000,1250,10000,1250" \
	"first fit, rings sharing leaf 1's uplink: ends 1000 x 1.25 (max-min share 1/2)"
ok_eq "$(col "$tmp/ff.h5" fabric_slowdown)" "1,1.25,1,1.25" \
	"first fit: fabric_slowdown 1 + 0.25 x (2 - 1) for the sharing jobs, 1 for the others"
ok_eq "$(fig "$tmp/ff.h5" mean_fabric_slowdown) $(fig "$tmp/ff.h5" jobs_fabric_slowed)" \
	"1.125 2" "summary: mean (1 + 1.25 + 1 + 1.25) / 4, two jobs slowed"

"$TRAINSIM" cluster -q -o "$tmp/topo.h5" -s 'fleet.placement="topology"' "$F"
ok_eq "$(col "$tmp/topo.h5" leaves) $(col "$tmp/topo.h5" end_s)" "1,1,1,1 10000,1000,10000,1000" \
	"topology-aware: each job in one leaf, no shared link, ends at its work"
ok_eq "$(col "$tmp/topo.h5" fabric_slowdown)" "1,1,1,1" \
	"disjoint leaves: slowdown exactly 1"

"$TRAINSIM" cluster -q -o "$tmp/off.h5" -s fabric.sharing=false "$F"
ok_eq "$(col "$tmp/off.h5" end_s)" "10000,1000,10000,1000" \
	"fabric.sharing = false: every job at its own pace"
"$TRAINSIM" cluster -q -o "$tmp/c0.h5" -s jobs.a.comm_fraction=0 "$F"
ok_eq "$(col "$tmp/c0.h5" end_s)" "10000,1000,10000,1000" \
	"a job that does not communicate adds no flow: b alone on the uplink"

"$TRAINSIM" cluster -q -o "$tmp/late.h5" -s jobs.b.submit_s=500 "$F"
ok_eq "$(col "$tmp/late.h5" end_s) $(col "$tmp/late.h5" fabric_slowdown)" \
	"10000,1125,10000,1625 1,1.125,1,1.125" \
	"b at 500 s: a 500 alone + 625 shared; b 625 shared + 500 alone"

# Training jobs (tests/cluster/fabric-train.cfg): the same placement on
# 8-GPU nodes with one NIC each; a and b are fabric-run.cfg, whose DP
# groups span its two nodes, so their comm_fraction c comes from its step
# model (> 0).  First fit: s = 2 as above, so fabric_slowdown = 1 + c and
# the job ends (1 + c) times later than when placed by topology (alone).
T=tests/cluster/fabric-train.cfg
"$TRAINSIM" cluster -q -o "$tmp/tff.h5" "$T"
"$TRAINSIM" cluster -q -o "$tmp/ttop.h5" -s 'fleet.placement="topology"' "$T"
c=$(col "$tmp/tff.h5" comm_fraction | cut -d, -f2)
f=$(col "$tmp/tff.h5" fabric_slowdown | cut -d, -f2)
awk -v c="$c" 'BEGIN { exit !(c > 0 && c < 1) }'
ok $? "training job: comm_fraction from its step model, 0 < $c < 1"
awk -v c="$c" -v f="$f" 'BEGIN { s = (f - 1) / c + 1; exit !(s > 2 - 1e-9 && s < 2 + 1e-9) }'
ok $? "training jobs on one uplink: stretch (fabric_slowdown - 1) / c + 1 = 2 ($f, c $c)"
e1=$(col "$tmp/tff.h5" end_s | cut -d, -f2)
e0=$(col "$tmp/ttop.h5" end_s | cut -d, -f2)
ok_near "$e1" "$(awk -v e="$e0" -v c="$c" 'BEGIN { printf "%.9f", e * (1 + c) }')" 1e-9 \
	"training job shared: ends (1 + c) x its end alone ($e0 s)"
ok_eq "$(col "$tmp/ttop.h5" fabric_slowdown)" "1,1,1,1" \
	"training jobs in their own leaves: slowdown exactly 1"

# The picture (plots/plot-cluster): the fabric slowdown's CDF over the jobs
# that shared it -- a and b, class "inline", both at 1.25.
PLOT_W=640 PLOT_H=420 plots/plot-cluster -o "$tmp/p" "$tmp/ff.h5" >/dev/null 2>"$tmp/perr"
grep -q '>inline<' "$tmp/p/ff-fabric.svg" && ! grep -q 'no job shared' "$tmp/p/ff-fabric.svg"
ok $? "plot-cluster: ff-fabric.svg draws the class whose jobs shared the fabric"

# The other ways to say comm_fraction.  A traced job takes
# workload.trace_comm_fraction (tests/cluster/small.cfg, 4 SWF jobs).
"$TRAINSIM" cluster -q -o "$tmp/tr.h5" -s workload.trace_comm_fraction=0.5 tests/cluster/small.cfg
ok_eq "$(col "$tmp/tr.h5" comm_fraction)" "0.5,0.5,0.5,0.5" "traced jobs: workload.trace_comm_fraction"
# A class's: scenarios/cluster-4096.cfg's pretraining and fine-tuning
# classes communicate (its other classes do not); with both at 0 no job
# touches the fabric and the mean slowdown is exactly 1, else above it.
S=scenarios/cluster-4096.cfg
"$TRAINSIM" cluster -q -o "$tmp/c1.h5" "$S"
"$TRAINSIM" cluster -q -o "$tmp/c2.h5" -s classes.pretrain.comm_fraction=0 \
	-s classes.finetune.comm_fraction=0 "$S"
m1=$(fig "$tmp/c1.h5" mean_fabric_slowdown)
m2=$(fig "$tmp/c2.h5" mean_fabric_slowdown)
awk -v a="$m1" -v b="$m2" 'BEGIN { exit !(a > 1 && b == 1) }'
ok $? "classes.*.comm_fraction: cluster-4096 mean slowdown $m1 > 1, exactly 1 with none"
