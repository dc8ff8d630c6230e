#!/bin/sh
# trainsim cluster on a 4-trace SWF (tests/cluster/fifo.swf, four 1-GPU
# nodes).  Start times by hand:
#   FIFO: job 1 (2 nodes, 100 s) at 0; job 2 (4 nodes) waits for job 1: 100,
#         ends 150; jobs 3 and 4 (2 nodes each) behind it: 150, 150.
#   EASY: job 2's reservation is at 100 with 0 spare nodes; job 3 (submit
#         20, 30 s) ends by 100 on the 2 free nodes: backfilled at 20; job 4
#         (200 s) would delay job 2: 150.
# Costs: 4 nodes x 2 USD/h held until the last job ends (job 4: 150 + 200
# = 350 s, the run's end): 0.7778 USD, equal to the teams' sum plus the
# idle reserved line.
# Energy: 860 GPU-seconds of jobs (2x100 + 4x50 + 2x30 + 2x200) on H100 at
# 84 + 0.8 x 616 = 576.8 W with their 1-GPU node's share of the DGX H100
# host busy (2,556 / 8 = 319.5 W), the other 1400 - 860 node-seconds idle
# (84 W + 1,012 / 8 = 126.5 W), through 0.95 supplies, x PUE 1.2:
# (860 x 896.3 + 540 x 210.5) / 0.95 x 1.2 / 3.6e6 = 0.310347 kWh.
cd "$SRCDIR" || exit 1
. tests/tap.sh
check() { ok_eq "$3" "$2" "$1"; }
starts() {
	h5dump -d /jobs/start_s "$1" | sed -n '/DATA {/{n;p;q}' | sed 's/.*): //; s/ //g'
}
plan 15
col() { "$TRAINSIM" export --table jobs "$1" "$2" | awk 'NR > 1 { printf "%s%s", s, $1; s = "," }'; }
fig() { "$TRAINSIM" export --summary "$1" | awk -v k="$2" '$1 == k { print $2 }'; }
"$TRAINSIM" cluster -q -o "$tmp/fifo.h5" -s 'sched.policy="fifo"' "tests/cluster/small.cfg"
check "FIFO start times" "0,100,150,150" "$(starts "$tmp/fifo.h5")"
"$TRAINSIM" cluster -q -o "$tmp/easy.h5" -s 'sched.policy="easy"' "tests/cluster/small.cfg"
check "EASY start times" "0,100,20,150" "$(starts "$tmp/easy.h5")"
json=$("$TRAINSIM" cluster -q --json -o "$tmp/j.h5" "tests/cluster/small.cfg")
sum=$(echo "$json" | awk '{
	gsub(/[{}"]/, ""); n = split($0, kv, ", ");
	for (i = 1; i <= n; i++) { split(kv[i], p, ": ");
		if (p[1] ~ /^cost_usd_team_/ || p[1] == "idle_reserved_usd" || p[1] == "idle_elastic_usd") s += p[2];
		if (p[1] == "cost_usd") t = p[2]; }
	printf "%.9f %.9f", s, t }')
check "teams + idle = fleet total" "0.777777778 0.777777778" "$sum"
kwh=$(echo "$json" | sed 's/.*"energy_kwh": \([0-9.e+-]*\).*/\1/' | awk '{ printf "%.6f", $1 }')
check "energy: GPUs and DGX H100 hosts, busy and idle, / PSU x PUE" "0.310347" "$kwh"
printf '1 0 -1 100 -1 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1\n' > "$tmp/short.swf"
"$TRAINSIM" cluster -q -o "$tmp/bad.h5" -s "workload.trace=\"$tmp/short.swf\"" \
	"tests/cluster/small.cfg" 2> "$tmp/err"
rc=$?
check "a short SWF row: exit 2, FILE:LINE, no file" "2 1 no" \
	"$rc $(grep -c "short.swf:1: 17 fields" "$tmp/err") $([ -e "$tmp/bad.h5" ] && echo yes || echo no)"

# Priority with preemption (tests/cluster/priority.cfg, four 1-GPU nodes):
# "low" (4 nodes, 100 s) starts at 0; "high" (priority 5, 2 nodes, 50 s)
# arrives at 30 and preempts it; low checkpoints for 10 s (keeping its 30 s
# of work) and frees its nodes at 40; high runs 40-90; low, back in the
# queue, needs all 4 nodes: it restarts at 90 with 70 s to go and ends at
# 160, the run's end.
"$TRAINSIM" cluster -q -o "$tmp/prio.h5" tests/cluster/priority.cfg
check "priority: starts (first start), ends, preemptions" "0,40 160,90 1,0" \
	"$(col "$tmp/prio.h5" start_s) $(col "$tmp/prio.h5" end_s) $(col "$tmp/prio.h5" preemptions)"
check "priority: duration_s is the last job's end" "160" "$(fig "$tmp/prio.h5" duration_s)"

# Placement (tests/cluster/place.cfg, 3 leaves of 2 nodes): a 1-node job,
# then two 2-node jobs.  Topology-aware: the first takes leaf 0 (all tie:
# the first), each 2-node job a whole free leaf (1, then 2): 1,1,1 leaves.
# First fit: the lowest free nodes -- node 0; nodes 1-2 (leaves 0 and 1);
# nodes 3-4 (leaves 1 and 2): 1,2,2 leaves.
"$TRAINSIM" cluster -q -o "$tmp/topo.h5" tests/cluster/place.cfg
"$TRAINSIM" cluster -q -o "$tmp/ff.h5" -s 'fleet.placement="first_fit"' tests/cluster/place.cfg
check "placement: leaves per job, topology-aware vs first fit" "1,1,1 1,2,2" \
	"$(col "$tmp/topo.h5" leaves) $(col "$tmp/ff.h5" leaves)"

# A job that can never start (tests/cluster/stranded.cfg): nothing runs,
# the autoscaler holds (1 waiting, not > 20), so after two whole windows
# of quiescent 15 s ticks (12 a window; the 25th tick, at 375 s) it ends
# "stranded" and the run stops there instead of ticking to max_days.
"$TRAINSIM" cluster -q -o "$tmp/str.h5" tests/cluster/stranded.cfg
check "stranded: state, jobs_stranded, duration_s" "stranded 1 375" \
	"$(col "$tmp/str.h5" state) $(fig "$tmp/str.h5" jobs_stranded) $(fig "$tmp/str.h5" duration_s)"
ev=$(fig "$tmp/str.h5" events)
[ "$ev" -lt 40 ]; ok $? "stranded: $ev events (25 ticks and a few more), not millions"

# The CSV reader (tests/cluster/trace.csv, 8-GPU nodes, room for all):
# j3 (0 GPUs) and j4 (never ran) are skipped; times relative to the first
# submit (2023-03-01 00:00:00); run time = end - start: j1 0 + 3600 s;
# j2 submit 00:10 = 600, 30 min = 1800 s, 16 GPUs = 2 nodes; j5 submit
# 00:40 = 2400, 2 h.  Ids that are names: the row's order among jobs.
"$TRAINSIM" cluster -q -o "$tmp/csv.h5" tests/cluster/csv.cfg
check "CSV: ids, submits, ends, nodes" "1,2,3 0,600,2400 3600,2400,9600 1,2,1" \
	"$(col "$tmp/csv.h5" id) $(col "$tmp/csv.h5" submit_s) $(col "$tmp/csv.h5" end_s) $(col "$tmp/csv.h5" nodes)"
check "CSV: users are teams, projects kept" "alice,bob,bob llm,eval,eval" \
	"$(col "$tmp/csv.h5" team) $(col "$tmp/csv.h5" project)"

# A training job (tests/cluster/training.cfg: scenarios/tiny.cfg alone on
# its 2 nodes, nothing failing) runs as long as the run model says the run
# takes: its iterations (3815 x 0.66 s = 2516 s) plus the stalls of the
# checkpoints written on the way (every 600 s of training, none after the
# last: ceil(2516 / 600) - 1 = 4).
"$TRAINSIM" cluster -q -o "$tmp/tr.h5" tests/cluster/training.cfg
want=$("$TRAINSIM" --json -q -o "$tmp/tiny.h5" scenarios/tiny.cfg | tr ',' '\n' |
	awk -F': ' '$1 ~ /"duration_s"/ { print $2 }')
ok_near "$(col "$tmp/tr.h5" end_s)" "$want" 1e-12 "training job: run time = the run model's duration with its 4 checkpoint stalls"

# Spot reclaims (tests/cluster/spot.cfg: two spot nodes never replaced, a
# 10-hour job checkpointing hourly).  The job starts on node 0; the first
# reclaim (t1) takes node 0, losing all t1 of its work (under the hour:
# no checkpoint yet); it restarts at once on node 1, which the second
# reclaim (t2) takes, losing t2 - t1 more.  No node is left and none will
# come: the job ends "stranded" at t2, the run's end.  So, by hand from
# the two event times: lost work = GPU-hours x 3600 = t2, 2 preemptions,
# and the pool billed node 0 until t1 and node 1 until t2 at 1 USD/h.
"$TRAINSIM" cluster -q -o "$tmp/sp.h5" tests/cluster/spot.cfg
t=$("$TRAINSIM" export --events "$tmp/sp.h5" spot_reclaim | awk 'NR > 1 { printf "%s ", $1 }')
set -- $t
want=$(awk -v a="$1" -v b="$2" 'BEGIN { printf "2 %.6f %.6f stranded %.6f %.6f", b, b, b, (a + b) / 3600 }')
got=$(awk -v p="$(col "$tmp/sp.h5" preemptions)" -v l="$(col "$tmp/sp.h5" lost_work_s)" \
	-v g="$(col "$tmp/sp.h5" gpu_hours)" -v s="$(col "$tmp/sp.h5" state)" \
	-v d="$(fig "$tmp/sp.h5" duration_s)" -v c="$(fig "$tmp/sp.h5" cost_usd)" \
	'BEGIN { printf "%d %.6f %.6f %s %.6f %.6f", p, l, g * 3600, s, d, c }')
check "spot: preemptions, lost work, GPU-s, state, duration, cost from the reclaim times" "$want" "$got"

# Leaves from the fabric (fleet.nodes_per_leaf = 0; tests/cluster/csv.cfg,
# 4 nodes of 8 GPUs): the default HDR switch has 40 ports, 20 down at 1:1,
# and a rail-optimised unit holds 20 nodes; NDR's 64 ports give 32 down,
# 4 nodes of 8 NICs a leaf without rails; at 3:1 the leaf keeps 48 down:
# 6 nodes; with 4 NICs a node, 8.
leaves() { "$TRAINSIM" cluster --check "$@" tests/cluster/csv.cfg | sed 's/.* leaves of \([0-9]*\) nodes.*/\1/'; }
ndr='network.scale_out_link="ib_ndr"'
got="$(leaves) $(leaves -s "$ndr" -s network.fat_tree.rail_optimized=false)"
got="$got $(leaves -s "$ndr" -s network.fat_tree.rail_optimized=false -s 'network.fat_tree.oversubscription=[3.0,1.0]')"
got="$got $(leaves -s "$ndr" -s network.fat_tree.rail_optimized=false -s network.nics_per_node=4)"
check "nodes per leaf from the fat tree: HDR rails, NDR, NDR 3:1, NDR 4 NICs" "20 4 6 8" "$got"
