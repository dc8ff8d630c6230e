#!/bin/sh
# `trainsim collective`: the nccl-tests table on a scenario's cluster.
# Expected busbw: DGX A100 all-reduce on NVLink3/NVSwitch measures about
# 230 GB/s (NVIDIA/nccl-tests#149, in shared/reference/formulas.md); 5%.
set -u
cd "$SRCDIR" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
i=0
ok() { i=$((i + 1)); if [ "$1" -eq 0 ]; then echo "ok $i - $2"; else echo "not ok $i - $2"; fi; }
echo "1..6"

"$TRAINSIM" collective scenarios/1b.cfg -b 8 -e 1G -f 2 >"$tmp/t"
ok $? "collective runs on the 1b node"
rows=$(grep -c -v '^#' "$tmp/t")
[ "$rows" -eq 28 ]; ok $? "8 B to 1 GiB by 2: 28 rows (got $rows)"
busbw=$(grep -v '^#' "$tmp/t" | tail -1 | awk '{ print $8 }')
awk -v b="$busbw" 'BEGIN { exit !(b > 230 * 0.95 && b < 230 * 1.05) }'
ok $? "1 GiB all-reduce busbw $busbw GB/s within 5% of 230"
"$TRAINSIM" collective --op nope scenarios/1b.cfg >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "unknown operation" "$tmp/e"; ok $? "unknown --op: exit 2"
"$TRAINSIM" collective -b 0 scenarios/1b.cfg >/dev/null 2>"$tmp/e"
[ $? -eq 2 ]; ok $? "zero size: exit 2"
"$TRAINSIM" collective --ranks 99 scenarios/1b.cfg >/dev/null 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "8 GPUs" "$tmp/e"; ok $? "more ranks than GPUs: exit 2"
