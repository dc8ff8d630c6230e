#!/bin/sh
# The spare pool sized to the cluster (models/failure.h), the time waited
# for spares in /summary and on stderr, and why a run did not complete.
set -u
. "$SRCDIR/tests/tap.sh"
echo "1..10"
num() { sed -n "s/.*\"$1\": *\([-0-9.e+]*\).*/\1/p" "$2"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }

# Llama 3 405B's layout on 16,384 H100 (2,048 nodes) with every failure
# setting at its default: RSC-1's 6.50 node failures per 1000 node-days,
# a 1-day repair.  Nodes in repair at once: Poisson(2048 x 6.5 / 1000 =
# 13.312); its 99.9% quantile is 26 (P(N <= 25) = 0.99866, P(N <= 26) =
# 0.99936, summing the Poisson terms by hand).
sed '/^failures = {/,/^};/d' scenarios/llama3-405b.cfg >"$tmp/l405.cfg"
cp -r scenarios/catalog scenarios/models "$tmp/"
"$TRAINSIM" -q --json -o "$tmp/a.h5" "$tmp/l405.cfg" >"$tmp/a.json" 2>"$tmp/a.err"
ok $? "16,384 GPUs, default failure settings: runs"
[ "$(num spares "$tmp/a.json")" = 26 ]; ok $? "default spares: 26 for 2,048 nodes (Poisson 99.9%)"
grep -q '"completed": 1' "$tmp/a.json" && ge "$(num goodput "$tmp/a.json")" 0.85
ok $? "... completes with goodput >= 0.85 ($(num goodput "$tmp/a.json"))"
[ ! -s "$tmp/a.err" ]; ok $? "... and says nothing on stderr"

# The old fixed pool: 8 spares for 13.3 failures a day with 1-day repairs.
# The pool drains in under a day and the job waits for most of its run.
"$TRAINSIM" -q --json -s failures.spares=8 -o "$tmp/b.h5" "$tmp/l405.cfg" \
	>"$tmp/b.json" 2>"$tmp/b.err"
ge "$(num spare_wait_fraction "$tmp/b.json")" 0.5
ok $? "8 spares: spare_wait_fraction > 0.5 ($(num spare_wait_fraction "$tmp/b.json"))"
grep -q "warning: waited for spare nodes" "$tmp/b.err"; ok $? "... warned on stderr"

"$TRAINSIM" -q -s failures.spares=8 -s run.max_days=30 -o "$tmp/c.h5" "$tmp/l405.cfg" \
	2>"$tmp/c.err"
h5dump -a /end_reason "$tmp/c.h5" | grep -q "run.max_days (30 days) reached.*waited for spare"
ok $? "not completed: end_reason names run.max_days and the wait for spares"
grep -q "warning: did not complete" "$tmp/c.err"; ok $? "... and stderr says so"
"$TRAINSIM" -s failures.spares=8 -s run.max_days=30 -o "$tmp/c.h5" "$tmp/l405.cfg" 2>/dev/null |
	tail -1 | grep -q "^the run did not complete: run.max_days (30 days)"
ok $? "... and so does the human summary's last line"

# tiny.cfg: 2 nodes, Poisson(0.013): P(N = 0) = 0.98708 < 0.999, so 1 spare.
"$TRAINSIM" -q --json -o "$tmp/t.h5" scenarios/tiny.cfg >"$tmp/t.json"
[ "$(num spares "$tmp/t.json")" = 1 ]; ok $? "tiny.cfg (2 nodes): 1 spare"
