#!/bin/sh
# Checkpoint intervals priced right (models/checkpoint.h): an async
# checkpoint costs its snapshot plus the drain's interference, never less
# than its drain apart; the interval sweep has its optimum inside the range.
set -u
. "$SRCDIR/tests/tap.sh"
echo "1..5"
num() { sed -n "s/.*\"$1\": *\([-0-9.e+]*\).*/\1/p" "$2"; }
near() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t * b) }'; }

# 175b.cfg async: checkpoint 174,615,822,336 params x 14 B = 2.44462e12 B.
# Snapshot: / 1024 GPUs / 25 GB/s = 0.095493 s.  Drain: / 100 GB/s =
# 24.4462 s, each of 128 nodes sending 0.78125 GB/s through 8 HDR NICs at
# 25 GB/s x 0.97 = 194 GB/s: 0.0040271 of its bandwidth, so the drain costs
# 0.0040271 x 24.4462 = 0.098446 s of training.  Stall 0.193939 s.
"$TRAINSIM" -q --json -s training.checkpoint.mode=async -o "$tmp/a.h5" \
	scenarios/175b.cfg >"$tmp/a.json"
near "$(num checkpoint_stall_s "$tmp/a.json")" 0.193939 1e-5
ok $? "async stall = snapshot + drain share x write = 0.193939 s (by hand)"
# Daly (eq. 37) with delta 0.193939 s, M = 86400 x 1000 / (128 x 6.5) =
# 103,846.15 s: sqrt(2 d M) = 200.69; x (1 + sqrt(d/2M)/3 + d/18M) - d = 200.57 s.
near "$(num daly_interval_s "$tmp/a.json")" 200.57 1e-4
ok $? "Daly's interval on the priced cost: 200.57 s (by hand)"
# The drain is a floor: with a 1000x slower store the drain takes 24,446 s
# and no interval can be shorter.
"$TRAINSIM" -q --json -s training.checkpoint.mode=async -s training.checkpoint.policy=daly \
	-s training.checkpoint.write_bw_gbyte_s=0.1 -s run.max_days=1 -o "$tmp/b.h5" \
	scenarios/175b.cfg >"$tmp/b.json" 2>/dev/null
near "$(num daly_interval_s "$tmp/b.json")" 24446.2 1e-4
ok $? "async Daly never under the drain time (24,446 s at 0.1 GB/s)"

# The sweep, small: 600, 2400 and 10800 s, two seeds each; mean duration
# least at 2400 s (Daly's optimum for the 24.4 s sync write is 2237 s).
(cd "$tmp" && sh "$SRCDIR/scenarios/sweeps/checkpoint-interval.sh" --small --no-plot -j 2 \
	>/dev/null 2>&1); ok $? "checkpoint-interval.sh --small runs"
awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) { if ($i == "training.checkpoint.interval_s") x = i;
		if ($i == "duration_s") d = i }; next }
	{ s[$x] += $d; n[$x]++ }
	END { exit !(s[2400] / n[2400] < s[600] / n[600] && s[2400] / n[2400] < s[10800] / n[10800]) }' \
	"$tmp/results/checkpoint-interval/results.tsv"
ok $? "... its optimum is interior (2400 s beats 600 s and 10800 s)"
