#!/bin/sh
# `make validate` as a test (tests/bench/validate-b):
# 1. Megatron-LM Table 1 (Narayanan et al. SC'21, 10 rows, the calibration
#    data): the step model's TFLOP/s per GPU within the targets,
#    mean |error| <= 5%, every row within 10%.
# 2. The validation harness runs every runnable row of
#    scenarios/validation/independent.tsv (counted here from the file
#    itself), and lists the pending ones.  Their errors are reported in the
#    table, not asserted: nothing was fitted to them.
set -u
echo "1..3"
dir="$SRCDIR/scenarios/validation"
out=$("$BUILDDIR/tests/bench/validate-b" "$dir" 2>&1)
status=$?
echo "$out" | sed 's/^/# /'

t1=$(echo "$out" | awk '/^table1: mean/ { print ($3 <= 5.0 && $5 <= 10.0) ? "ok" : "bad" }')
if [ "$t1" = ok ]; then
	echo "ok 1 - Megatron Table 1: mean <= 5%, max <= 10%"
else
	echo "not ok 1 - Megatron Table 1: mean <= 5%, max <= 10%"
fi

# Rows of the TSV (comments and the header skipped) by status.
runnable=$(awk -F'\t' '/^#/ { next }
	!hd { for (i = 1; i <= NF; i++) if ($i == "status") c = i; hd = 1; next }
	$c == "runnable" { n++ } END { print n + 0 }' "$dir/independent.tsv")
pending=$(awk -F'\t' '/^#/ { next }
	!hd { for (i = 1; i <= NF; i++) if ($i == "status") c = i; hd = 1; next }
	$c != "runnable" { n++ } END { print n + 0 }' "$dir/independent.tsv")
want="validation: ran $runnable of $runnable runnable rows, $pending pending"
if [ "$runnable" -ge 4 ] && echo "$out" | grep -qx "$want"; then
	echo "ok 2 - every runnable validation row runs ($runnable rows, $pending pending)"
else
	echo "not ok 2 - every runnable validation row runs: want '$want'"
fi

if [ $status -eq 0 ]; then
	echo "ok 3 - validate-b exits 0"
else
	echo "not ok 3 - validate-b exits 0 (status $status)"
fi
