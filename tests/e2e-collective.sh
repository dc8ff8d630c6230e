#!/bin/sh
# `trainsim collective`: the nccl-tests table on a scenario's cluster.
# Expected busbw: DGX A100 all-reduce on NVLink3/NVSwitch measures about
# 230 GB/s (NVIDIA/nccl-tests#149, in shared/reference/formulas.md); 5%.
cd "$SRCDIR" || exit 1
. tests/tap.sh
plan 6

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
