#!/bin/sh
# `trainsim collective`: the nccl-tests table on a scenario's cluster.
# Expected busbw: DGX A100 all-reduce on NVLink3/NVSwitch measures about
# 230 GB/s (NVIDIA/nccl-tests#149, github.com/NVIDIA/nccl-tests/issues/149);
# 5%.  The closing lines follow nccl-tests' src/common.cu: "# Avg bus
# bandwidth    : %g", the mean busbw over the sizes, then "#".
cd "$SRCDIR" || exit 1
. tests/tap.sh

"$TRAINSIM" collective scenarios/1b.cfg -b 8 -e 1G -f 2 >"$tmp/t"
ok $? "collective runs on the 1b node"
rows=$(grep -c -v '^#' "$tmp/t")
ok_eq "$rows" 28 "8 B to 1 GiB by 2: 28 rows (2^3 .. 2^30)"
busbw=$(grep -v '^#' "$tmp/t" | tail -1 | awk '{ print $8 }')
ok_near "$busbw" 230 0.05 "1 GiB all-reduce busbw $busbw GB/s within 5% of 230"
"$TRAINSIM" collective --op nope scenarios/1b.cfg >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "unknown operation" "$tmp/e"; ok $? "unknown --op: exit 2"
"$TRAINSIM" collective -b 0 scenarios/1b.cfg >/dev/null 2>"$tmp/e"
[ $? -eq 2 ]; ok $? "zero size: exit 2"
"$TRAINSIM" collective --ranks 99 scenarios/1b.cfg >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "8 GPUs" "$tmp/e"; ok $? "more ranks than GPUs: exit 2"

# The footer: what auto chose, then nccl-tests' average.
ok_eq "$(tail -3 "$tmp/t" | head -1)" "# auto chose ring for every size" \
	"one node: auto chose ring for every size (tree and hier need two nodes)"
avg=$(sed -n 's/^# Avg bus bandwidth    : //p' "$tmp/t")
mean=$(grep -v '^#' "$tmp/t" | awk '{ s += $8; n++ } END { print s / n }')
awk -v a="$avg" -v m="$mean" 'BEGIN { exit !(a - m < 0.005 && m - a < 0.005) }'
ok $? "Avg bus bandwidth $avg is the mean of the 28 busbw values ($mean, each rounded to 0.005)"
ok_eq "$(tail -1 "$tmp/t")" "#" "the table closes with a lone # as nccl-tests'"

# Two nodes (tiny.cfg, 2 x 8 A100): auto takes the fastest, size by size.
"$TRAINSIM" collective scenarios/tiny.cfg -b 8 -e 1G >"$tmp/a"
line=$(grep '^# auto chose ' "$tmp/a")
case $line in "# auto chose "*" for 8 B"*"to 1 GiB") r=0 ;; *) r=1 ;; esac
ok $r "two nodes: the auto line covers 8 B to 1 GiB ($line)"
t_auto() { grep -v '^#' "$tmp/a" | awk -v b="$1" '$1 == b { print $6 }'; }
t_algo() { "$TRAINSIM" collective scenarios/tiny.cfg --algo "$1" -b "$2" -e "$2" | grep -v '^#' | awk '{ print $6 }'; }
first=$(echo "$line" | sed 's/^# auto chose \([a-z]*\) for 8 B.*/\1/')
ok_eq "$(t_auto 8)" "$(t_algo "$first" 8)" "8 B: auto's time is $first's"
best=1
for a in ring tree hier; do
	awk -v x="$(t_algo $a 8)" -v y="$(t_auto 8)" 'BEGIN { exit !(x + 0 >= y + 0) }' || best=0
done
[ $best -eq 1 ]; ok $? "8 B: no algorithm is faster than auto's pick"
last=$(echo "$line" | sed 's/.*, \([a-z]*\) for [^,]* to 1 GiB$/\1/; s/^# auto chose \([a-z]*\) for 8 B to 1 GiB$/\1/')
ok_eq "$(t_auto 1073741824)" "$(t_algo "$last" 1073741824)" "1 GiB: auto's time is $last's"

# NVLink 5, whose efficiency is carried over from NVLink 3 (links.cfg),
# against a measurement it was not set from: Azure's ND GB200 v6 (one
# 4-GPU GB200 tray), NCCL all-reduce with the ring algorithm, 8 GiB:
# busbw 679.61 GB/s (Azure/AI-benchmarking-guide, Azure_Results/
# ND_GB200_v6_results.md, commit 2a370be6); 3%.
"$TRAINSIM" collective scenarios/validation/mbridge-gb200-llama3-8b-8-fp8cs.cfg \
	--algo ring --ranks 4 -b 8G -e 8G >"$tmp/gb"
busbw=$(grep -v '^#' "$tmp/gb" | tail -1 | awk '{ print $8 }')
ok_near "$busbw" 679.61 0.03 "4 GB200 NVLink 5 ring all-reduce, 8 GiB: busbw $busbw GB/s within 3% of Azure's 679.61"

# NCCL's NVLS all-reduce (NVLink SHARP) on one 8-GPU H100 node: by hand,
# the base 8.4 us and two NVLink steps of 3.4 us, then 8 GiB at 0.608 x
# 450 GB/s a GPU (links.nvlink4.nvls_efficiency): 15.2 us + 31,396.6 us =
# 31,411.8 us, busbw 478.6 GB/s.  The efficiency is set from Azure's
# ND H100 v5 measurement, 478.87 GB/s (Azure/AI-benchmarking-guide,
# ND_H100_v5_results.md): a pin, not a validation; the same guide's H200
# node (479.98, NCCL 2.20.5) has the same NVSwitch.
"$TRAINSIM" collective scenarios/validation/nemo-llama3-8b-8.cfg -b 8G -e 8G >"$tmp/nv"
t=$(grep -v '^#' "$tmp/nv" | tail -1 | awk '{ print $6 }')
ok_near "$t" 31411.8 0.001 "8 H100 NVLS all-reduce of 8 GiB: $t us, by hand 31,411.8"
ok_eq "$(grep '^# auto chose' "$tmp/nv")" "# auto chose nvls for every size" \
	"an H100 node: auto chose nvls"
"$TRAINSIM" collective scenarios/1b.cfg --algo nvls -b 1G -e 1G >"$tmp/na"
grep -q '^# --algo nvls ran as ring for every size' "$tmp/na"
ok $? "--algo nvls on A100 NVLink 3 (no NVLink SHARP): ran as ring, and why"

# --algo where it cannot apply says so.
"$TRAINSIM" collective scenarios/tiny.cfg --op all_gather --algo tree -b 1M -e 1M >"$tmp/g"
grep -q '^# all_gather has one algorithm (ring): --algo tree does not apply$' "$tmp/g"
ok $? "--algo tree on all_gather: one algorithm (ring), --algo does not apply"
"$TRAINSIM" collective scenarios/tiny.cfg --op all_gather -b 1M -e 1M >"$tmp/g2"
ok_eq "$(grep -v '^#' "$tmp/g")" "$(grep -v '^#' "$tmp/g2")" "and its rows are the ring's"
"$TRAINSIM" collective scenarios/1b.cfg --algo tree -b 1G -e 1G >"$tmp/o"
grep -q '^# --algo tree ran as ring for every size (tree and hier need' "$tmp/o"
ok $? "--algo tree on one node: ran as ring, and why"
# Jean Zay's A100 nodes, where BLOOM trained: a 4e9-byte fp32 all-reduce
# over 32 GPUs on 4 nodes took 1.519-1.531 s, mostly 1.529 (bigscience-
# workshop/bigscience experiments/bandwidth/all_reduce_bench-a100-n4.txt,
# 2022-01-28; links.cfg opa_100 takes its per-NIC rate from it and the
# scenario its two ring channels): within 3%.
"$TRAINSIM" collective scenarios/validation/bloom-176b-384.cfg --ranks 32 \
	-b 4000000000 -e 4000000000 >"$tmp/jz"
us=$(grep -v '^#' "$tmp/jz" | awk '{ print $6 }')
ok_near "$(calc "$us / 1e6")" 1.529 0.03 "Jean Zay 4e9-byte all-reduce on 32 GPUs: $(calc "$us / 1e6") s, measured 1.529"

plan "$tap_n"
