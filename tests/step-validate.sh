#!/bin/sh
# Megatron-LM Table 1 (Narayanan et al. SC'21, 10 rows): the step model's
# TFLOP/s per GPU within the targets (mean |error| <= 5%, every row
# within 10%).  The table itself is what `make validate` prints.
set -u
echo "1..1"
out=$("$BUILDDIR/tests/bench/step-table1-b" "$SRCDIR/scenarios/validation" 2>&1)
status=$?
echo "$out" | sed 's/^/# /'
if [ $status -eq 0 ]; then
	echo "ok 1 - Megatron Table 1: mean <= 5%, max <= 10%"
else
	echo "not ok 1 - Megatron Table 1: mean <= 5%, max <= 10%"
fi
