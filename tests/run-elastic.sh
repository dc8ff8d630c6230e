#!/bin/sh
# An elastic job is checked at every data-parallel size it can reach
# (models/run_model.c check_elastic): --check refuses a layout that a
# smaller size cannot run, and passes what every size can.
set -u
. "$SRCDIR/tests/tap.sh"
echo "1..3"
# 175b-spot.cfg: 64 on-demand + 64 spot nodes, replicas of tp 8 x pp 16 =
# 16 nodes: dp 4 (on-demand alone) to 8.  Keeping the global batch of 1536
# with interleaving: dp 4 gives 384 microbatches per pipeline (24 x 16),
# dp 5 gives ceil(1536 / 5) = 308 = 19 x 16 + 4: refused at dp = 5.
il='-s parallel.schedule="interleaved" -s parallel.virtual_stages=2'
"$TRAINSIM" --check $il scenarios/175b-spot.cfg >/dev/null 2>"$tmp/err"
[ $? -eq 2 ] && grep -q "308 microbatches .*dp = 5 of 8" "$tmp/err"
ok $? "interleaved, elastic, batch kept: --check exits 2 naming dp = 5"
# Shrinking the batch with dp keeps 192 microbatches per pipeline (12 x 16).
"$TRAINSIM" --check $il -s 'spot.batch="shrink"' scenarios/175b-spot.cfg >/dev/null
ok $? "... with spot.batch = shrink every size passes"
# Waiting for capacity never shrinks the job: nothing else to check.
"$TRAINSIM" --check $il -s 'spot.policy="wait"' scenarios/175b-spot.cfg >/dev/null
ok $? "... with spot.policy = wait it passes"
