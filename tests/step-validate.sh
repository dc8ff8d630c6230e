#!/bin/sh
# `make validate` as a test (tests/bench/validate-b):
# 1. Megatron-LM Table 1 (Narayanan et al. SC'21, 10 rows, the calibration
#    data): the step model's TFLOP/s per GPU within the issue's targets,
#    mean |error| <= 5%, every row within 10%.
# 2. The validation harness runs every runnable row of
#    scenarios/validation/independent.tsv (counted here from the file
#    itself, at least the issue's four), and lists the pending ones.  Their
#    errors are reported in the table, not asserted: nothing was fitted to
#    them.
# 3. It exits 0 (every row it was asked to run ran).
# 4. Every validation row's |error| lies inside the band its own run
#    reports (gpus.*.validated_band for the GPU and stack, else the two
#    bands combined): the promise a band makes to a user.
# 5. Each CALIBRATION row's prediction -- a fitted result -- within 0.5% of
#    its pinned value in tests/fitted.tsv, so that a change of the kernel or
#    network model shows here and a refit updates that one table (`make
#    pin`); rows not pinned yet are skipped.
# 6. The README's validation rows ("ID ... PUBLISHED s PREDICTED s +E%")
#    say what make validate says: the prediction to the digits written,
#    the error to its tenth.  A model change that moves a row fails here
#    until the README is updated.
# 7. SCALING's least-squares fit through published times, by hand: the
#    eight MegaScale rows (Jiang et al., arXiv:2402.15627, Table 2: m =
#    192, 96, 64, 48 at batch 768 and 128, 64, 48, 32 at 6,144; 40.0,
#    21.2, 15.2, 11.9, 29.02, 14.78, 12.24, 8.57 s) give a = 0.1984375 s
#    and b = 2.445 s exactly.
# 8. Its last column is b's shortfall per pipeline position: 1000 x (b_pub
#    - b_pred) / (8 stages x 6 chunks) from the printed b's, to their
#    rounding (0.005 s each: 0.21 ms, and 0.05 ms its own).
# 9. A published A/B of one mechanism, Megatron-Core's EP overlap, on one
#    model, layout and release: Megatron-Bridge's EP-overlap skill (PR
#    #5094, 2026-07-25), Qwen3-30B-A3B on 16 H100 with HybridEP, 24.7138 s
#    off and 20.9920 s on, a saving of 3.7218 s.  The step model's saving
#    (the difference of the two rows' predictions, from the breakdown's
#    iteration column) within 40% of it, whatever either row's own error.
#    25% until 2026-12-07, when Qwen3's QK-norm was priced: its host time
#    lengthens the passes without the overlap (closer to the skill's
#    Nsight idle, 1.9 s; trainsim 1.3 s, 0.6 before) and hides under the
#    overlap's slower GPU work with it, so the saving went 4.56 -> 5.07 s.
#    The overlap is an upper bound (step_layer.c): the same capture has
#    36.55% of the communication concurrent with compute, trainsim all
#    of it.
# 10. LAYER: every runnable row of scenarios/validation/moe-layer.tsv (one
#    MoE layer timed alone, Megatron-LM's moe_perf baselines on H100) runs.
# 11. Its BF16 passes within 15% each (forward and backward of the layer:
#    the GPU's kernels, the all-to-alls and the host, none of it set from
#    these rows): a promise the model makes about one layer, which fails
#    when the experts' activation, the permutes, the dispatch or the GEMMs
#    move; the block-scaled FP8 ones are reported (13.6% mean, 2026-12-06;
#    9.0% once the FP8 experts' padding copies were priced, 2026-12-07).
# 12. LAYER, what FP8 costs with one dispatcher more than with another:
#    (all-to-all FP8 - all-to-all BF16) - (HybridEP FP8 - HybridEP BF16),
#    forward and backward, on each proxy, within 20% of the same
#    difference of the published times (moe-layer.tsv: DeepSeek 0.738 and
#    0.751 ms, Mixtral 0.103 and 0.103).  Not fitted: TEGroupedMLP's
#    padding copies (compute.c moe_pad_copies), which HybridEP's dispatch
#    makes needless, give 0.663 and 0.105; without them the difference
#    is about 0 and this fails.
# 13. MEMORY: every runnable row of scenarios/validation/memory.tsv (PyTorch's
#    measured allocations in Megatron-LM's CI, 7B at TP 1 PP 4 and TP 4 PP
#    1 on three GPUs) runs.
# 14. Its peaks within 10% of the measured max_memory_allocated (-0.8% to
#    -2.9% on 2026-12-07; -3.0% to -4.8% before the bf16 logits beside
#    the loss's fp32 copy were counted, memory.c logit_bytes): memory.h's
#    Korthikanti activations, schedule and states on a real run, none of
#    it set from these rows.
# 15. And the peak trainsim holds a job to, the framework reserve included,
#    at least the measured one on every row: the reserve covers what the
#    model leaves out, so a layout it admits is one that ran.
set -u
. "$SRCDIR/tests/tap.sh"
pinned=$(grep -c '^validate\.' tests/fitted.tsv)
plan $((18 + pinned))
dir=scenarios/validation
out=$("$BUILDDIR/tests/bench/validate-b" "$dir" 2>&1)
status=$?
echo "$out" | sed 's/^/# /'

echo "$out" | awk '/^table1: mean/ { found = 1; bad = !($3 <= 5.0 && $5 <= 10.0) }
	END { exit !found || bad }'
ok $? "Megatron Table 1: mean <= 5%, max <= 10%"

# Rows of the TSV by status (comments skipped; the first line is the header).
count() {
	awk -F'\t' -v want="$1" '/^#/ { next }
		!hd { for (i = 1; i <= NF; i++) if ($i == "status") c = i; hd = 1; next }
		(want == "runnable") == ($c == "runnable") { n++ } END { print n + 0 }' \
		"$dir/independent.tsv"
}
runnable=$(count runnable)
pending=$(count pending)
want="validation: ran $runnable of $runnable runnable rows, $pending pending"
[ "$runnable" -ge 4 ] && echo "$out" | grep -qx "$want"
ok $? "every runnable validation row runs ($runnable rows, $pending pending)"

ok $status "validate-b exits 0"

echo "$out" | grep -qx "bands: 0 of [0-9]* validation rows outside the band their run reports"
ok $? "every validation row inside the band its run reports"

# CALIBRATION rows as "ID PREDICTED": the prediction stands two fields
# before the signed error ("+4.0%").
echo "$out" | awk '/^CALIBRATION/ { on = 1; next } on && /^$/ { exit }
	on && $1 != "row" && $1 !~ /^ / { for (k = 3; k <= NF; k++)
		if ($k ~ /^[-+][0-9.]+%$/) { print $1, $(k - 2); break } }' >"$tmp/calib"
for name in $(sed -n 's/^validate\.\([^	]*\)	.*/\1/p' tests/fitted.tsv); do
	ok_pinned "validate.$name" "$(awk -v id="$name" '$1 == id { print $2 }' "$tmp/calib")"
done

# VALIDATION rows as "ID PREDICTED ERROR", then the README's lines that
# start with one of those IDs and end "PREDICTED s ERROR"
echo "$out" | awk '/^VALIDATION:/ { on = 1; next } on && /^$/ { exit }
	on && $1 != "row" && $1 !~ /^ / { for (k = 3; k <= NF; k++)
		if ($k ~ /^[-+][0-9.]+%$/) { print $1, $(k - 2), $k; break } }' >"$tmp/valid"
awk 'NR == FNR { pred[$1] = $2; err[$1] = $3; next }
	($1 in pred) && $(NF - 1) == "s" && $NF ~ /^[-+][0-9.]+%$/ {
		n++
		d = index($(NF - 2), ".") ? length($(NF - 2)) - index($(NF - 2), ".") : 0
		if (sprintf("%.*f", d, pred[$1]) != $(NF - 2) || err[$1] != $NF) {
			printf "README line %d: %s %s %s, make validate %s %s\n",
			       FNR, $1, $(NF - 2), $NF, pred[$1], err[$1]
			bad++
		}
	}
	END { printf "README rows checked: %d\n", n; exit bad > 0 || n < 50 }' \
	"$tmp/valid" "$SRCDIR/README" >"$tmp/readme"
status=$?
sed 's/^/# /' "$tmp/readme"
ok $status "the README's validation rows agree with make validate"

# SOURCES: every validation row counted once, under its source and GPU;
# the line below the table is the mean of the sources' own mean errors
# (the sources' means are printed to 0.01, so their mean agrees to 0.01)
echo "$out" | awk '/^SOURCES/ { on = 1; next } on && /^date/ { next }
	on && /^sources:/ { want = $2 + 0
		if (match($0, /\|error\| [0-9.]+%/))
			printed = substr($0, RSTART + 8, RLENGTH - 9) + 0
		exit }
	on { n += $3; k++; m += $4 + 0 }
	END { d = m / k - printed; exit !(n == rows && k == want && d <= 0.011 &&
	      -d <= 0.011) }' rows="$(echo "$out" |
	sed -n 's/^validation: ran \([0-9]*\) of.*/\1/p')"
ok $? "SOURCES: each validation row counted once; the mean of its sources' means as printed"

# The MegaScale family's SCALING line: "FIRST .. LAST n m-range a_pub b_pub
# a_pred b_pred db/(pv)"
scal=$(echo "$out" | awk '/^SCALING/ { on = 1; next } on && /^$/ { exit }
	on && $1 == "megascale-175b-256" { print $4, $6, $7, $9, $10 }')
echo "# megascale SCALING: n a_pub b_pub b_pred db/(pv) = $scal"
echo "$scal" | awk '{ exit !($1 == 8 && $2 == "0.1984" && $3 == "2.44") }'
ok $? "SCALING's published fit for MegaScale's 175B: a 0.1984 s, b 2.44 s (by hand)"
echo "$scal" | awk '{ d = 1000 * ($3 - $4) / 48; exit !(NF == 5 && $5 - d <= 0.26 && d - $5 <= 0.26) }'
ok $? "SCALING's db/(pv) is (b_pub - b_pred) / (p v) for MegaScale's PP 8 x V 6"

# the breakdown's "ID ITER ..." lines of the A/B pair
ab=$(echo "$out" | awk '/^VALIDATION breakdown/ { on = 1; next } on && /^$/ { exit }
	on && $1 == "mbridge-h100-qwen3-30b-16-bf16-hybridep-ab-off" { off = $2 }
	on && $1 == "mbridge-h100-qwen3-30b-16-bf16-hybridep-ab-on" { on_s = $2 }
	END { if (off != "" && on_s != "") print off - on_s }')
echo "# EP overlap A/B: published saving 3.7218 s, predicted ${ab:-none} s"
echo "${ab:-x}" | awk '{ exit !($1 + 0 == $1 && $1 >= 0.60 * 3.7218 && $1 <= 1.40 * 3.7218) }'
ok $? "EP overlap's saving within 40% of a published A/B (3.72 s, Qwen3-30B on 16 H100)"

# Runnable rows of a table whose last column is the status.
table_rows() {
	awk -F'\t' '/^#/ { next } !hd { hd = 1; next } $NF == "runnable" { n++ }
		END { print n + 0 }' "$dir/$1"
}
# The summary line "NAME: N rows, ... mean M max X, ...": X (field 8) <= LIMIT.
summary_max_within() {
	echo "$out" | awk -v name="$1:" -v lim="$2" '$1 == name { found = 1
		bad = !($7 == "max" && $8 + 0 <= lim) } END { exit !found || bad }'
}

lrows=$(table_rows moe-layer.tsv)
echo "$out" | grep -q "^layer: $lrows rows, "
ok $? "every runnable LAYER row runs ($lrows rows)"
# "layer: N rows, bf16 mean M max X, fp8 mean F max Y"
summary_max_within layer 15.0
ok $? "LAYER: every BF16 pass of one MoE layer within 15% of Megatron-LM's moe_perf"

# 12: the dispatcher dependence of FP8's cost, published against predicted
for model in mixtral deepseek; do
	for pass in fwd bwd; do
		pub=$(awk -F'\t' -v m="$model" -v p="$pass" '/^#/ { next }
			{ v[$1] = (p == "fwd") ? $7 : $8 }
			END { a = m "_a2a_tp1ep8_"; h = m "_hybridep_tp1ep8_"
			      print (v[a "fp8"] - v[a "bf16"]) - (v[h "fp8"] - v[h "bf16"]) }' \
			"$dir/moe-layer.tsv")
		pred=$(echo "$out" | awk -v m="$model" -v p="$pass" '
			$1 ~ /_tp1ep8_(bf16|fp8)$/ && NF >= 9 { v[$1] = (p == "fwd") ? $5 : $8 }
			END { a = m "_a2a_tp1ep8_"; h = m "_hybridep_tp1ep8_"
			      if ((a "fp8") in v && (h "bf16") in v)
			      	print (v[a "fp8"] - v[a "bf16"]) - (v[h "fp8"] - v[h "bf16"]) }')
		echo "# LAYER $model $pass: FP8's extra cost with all-to-all over HybridEP: published $pub ms, predicted ${pred:-none} ms"
		echo "$pub ${pred:-x}" | awk '{ exit !($2 + 0 == $2 && $2 >= 0.8 * $1 && $2 <= 1.2 * $1) }'
		ok $? "LAYER $model $pass: FP8's cost with all-to-all over HybridEP within 20% of moe_perf's"
	done
done

mrows=$(table_rows memory.tsv)
echo "$out" | grep -q "^memory: $mrows rows, "
ok $? "every runnable MEMORY row runs ($mrows rows)"
# "memory: N rows, peak mean M max X, covered C"
summary_max_within memory 10.0
ok $? "MEMORY: every peak within 10% of PyTorch's measured max_memory_allocated"
echo "$out" | awk -v n="$mrows" '/^memory: / { found = 1; bad = !($9 == "covered" && $10 == n) }
	END { exit !found || bad }'
ok $? "MEMORY: the peak with the reserve covers the measured one on all $mrows rows"
