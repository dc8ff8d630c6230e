#!/bin/sh
# Evaluation pauses (models/evaluation.h) on BLOOM-176B's run, checked
# against what BigScience measured and against hand arithmetic.
#
# BigScience's chronicles (bigscience-workshop/bigscience, train/
# tr11-176B-ml/chronicles.md, 2022-03-18): "A single eval iteration is
# about 12 min (1 iteration eval on each of 29 datasets) - we perform it
# once every 1k iteration".  Nothing in trainsim was set from it.
cd "$SRCDIR" || exit 1
. tests/tap.sh
. tests/outputs.sh
plan 6

# run NAME OVERRIDES...: 8,388,608,000 tokens, 2,000 iterations of 2048 x
# 2048 (two evaluations when on), into NAME.json and NAME.h5.
run() {
	name=$1
	shift
	"$TRAINSIM" -q --json -s failures.enabled=false -s training.checkpoint.enabled=false \
		-s run.tokens=8388608000 -s 'cost.mode="owned"' "$@" \
		-o "$tmp/$name.h5" scenarios/validation/bloom-176b-384.cfg >"$tmp/$name.json"
}
run off
ok $? "BLOOM without evaluation runs"
run on -s training.eval_interval_iters=1000 -s training.eval_iters=29
ok $? "BLOOM evaluating 29 batches every 1,000 iterations runs"

ev=$(json "$tmp/on.json" time_eval_s)
d_on=$(json "$tmp/on.json" duration_s)
d_off=$(json "$tmp/off.json" duration_s)
ok_near "$(calc "$d_on - $d_off")" "$ev" 1e-9 \
	"the run lengthens by time_eval_s exactly (no failures, no checkpoints)"
ok_near "$(json "$tmp/on.json" time_training_s)" "$(json "$tmp/off.json" time_training_s)" 1e-12 \
	"training time itself unchanged"
# One evaluation, two in the run: within 10% of the measured "about 12 min".
ok_near "$(calc "$ev / 2")" 720 0.10 "one evaluation $(calc "$ev / 120") min; BLOOM measured about 12"
# By hand: a batch is the iteration's critical path per microbatch
# (compute + exposed TP + exposed PP, /step) over 128 microbatches a
# replica, through 128 + 12 - 1 pipeline slots, times the forward's share
# of the executed FLOPs: with full recomputation 1/4 for the layers (the
# forward is one of forward, its recomputation and a twice-as-long
# backward), a little more for the logits, which are not recomputed.
st() { h5attr "$tmp/on.h5" "/step/$1"; }
path=$(calc "($(st compute_s) + $(st tp_exposed_s) + $(st pp_exposed_s)) / 128 * 139")
f=$(calc "$ev / 2 / 29 / $path")
awk -v f="$f" 'BEGIN { exit !(f > 0.25 && f < 0.26) }'
ok $? "forward share of an evaluation batch $f: between 1/4 and 0.26 (by hand)"
