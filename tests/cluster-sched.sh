#!/bin/sh
# trainsim cluster on a 4-trace SWF (tests/cluster/fifo.swf, four 1-GPU
# nodes).  Start times by hand:
#   FIFO: job 1 (2 nodes, 100 s) at 0; job 2 (4 nodes) waits for job 1: 100,
#         ends 150; jobs 3 and 4 (2 nodes each) behind it: 150, 150.
#   EASY: job 2's reservation is at 100 with 0 spare nodes; job 3 (submit
#         20, 30 s) ends by 100 on the 2 free nodes: backfilled at 20; job 4
#         (200 s) would delay job 2: 150.
# Costs: 4 nodes x 2 USD/h held until the last sample (400 s): 0.8889 USD,
# equal to the teams' sum plus the idle reserved line.
# Energy: 860 GPU-seconds of jobs (2x100 + 4x50 + 2x30 + 2x200) on H100 at
# 84 + 0.8 x 616 = 576.8 W with their 1-GPU node's share of the DGX H100
# host busy (2,556 / 8 = 319.5 W), the other 1600 - 860 node-seconds idle
# (84 W + 1,012 / 8 = 126.5 W), through 0.95 supplies, x PUE 1.2:
# (860 x 896.3 + 740 x 210.5) / 0.95 x 1.2 / 3.6e6 = 0.325119 kWh.
cd "$SRCDIR" || exit 1
. tests/tap.sh
check() { ok_eq "$3" "$2" "$1"; }
starts() {
	h5dump -d /jobs/start_s "$1" | sed -n '/DATA {/{n;p;q}' | sed 's/.*): //; s/ //g'
}
plan 6
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
check "teams + idle = fleet total" "0.888888889 0.888888889" "$sum"
kwh=$(echo "$json" | sed 's/.*"energy_kwh": \([0-9.e+-]*\).*/\1/' | awk '{ printf "%.6f", $1 }')
check "energy: GPUs and DGX H100 hosts, busy and idle, / PSU x PUE" "0.325119" "$kwh"
printf '1 0 -1 100 -1 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1\n' > "$tmp/short.swf"
"$TRAINSIM" cluster -q -o "$tmp/bad.h5" -s "workload.trace=\"$tmp/short.swf\"" \
	"tests/cluster/small.cfg" 2> "$tmp/err"
rc=$?
check "a short SWF row: exit 2, FILE:LINE, no file" "2 1 no" \
	"$rc $(grep -c "short.swf:1: 17 fields" "$tmp/err") $([ -e "$tmp/bad.h5" ] && echo yes || echo no)"
# A workload trace found nowhere names itself and where it was looked for
# (sim/path.h: the scenario's directory, $TRAINSIM_PATH, the installed data).
"$TRAINSIM" cluster -q -o "$tmp/none.h5" -s workload.trace=nope.swf \
	tests/cluster/small.cfg 2>"$tmp/err"
rc=$?
check "a missing trace: exit 2, the places looked in, no file" "2 1 no" \
	"$rc $(grep -c '^-s workload.trace=nope.swf: workload.trace: "nope.swf": not found in tests/cluster/, \$TRAINSIM_PATH' "$tmp/err") $([ -e "$tmp/none.h5" ] && echo yes || echo no)"
