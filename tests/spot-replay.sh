#!/bin/sh
# Spot capacity trace replay, end to end (issue 5's acceptance tests):
# - every drop in the trace is one simulated preemption, at the trace's time
#   (tick i at i x gap_seconds, the trace replayed again from its start when
#   it ends), counted here with awk straight from the JSON;
# - elastic and wait policies on the same trace give different durations
#   and costs, with waiting (wait) against slower training at fewer replicas
#   (elastic) to explain them;
# - without preemptions both policies equal the undisturbed run exactly.
cd "$SRCDIR" || exit 1
. tests/tap.sh
. tests/outputs.sh
plan 10

trace=scenarios/traces/skypilot-16node-us-east-2b.json
# tiny.cfg on 16 nodes, all spot, replaying the 16-node trace one for one.
common="-s cluster.gpus=128 -s run.tokens=2e12 -s failures.enabled=false
 -s pools.spot.class=\"spot\" -s pools.spot.nodes=16
 -s pools.spot.capacity_trace=\"traces/skypilot-16node-us-east-2b.json\""

for policy in elastic wait; do
	# shellcheck disable=SC2086
	"$TRAINSIM" -q --json $common -s spot.policy=\"$policy\" -o "$tmp/$policy.h5" \
		scenarios/tiny.cfg >"$tmp/$policy.json"
	ok $? "$policy: runs"
	dur=$(json "$tmp/$policy.json" duration_s)
	# Drops of the trace before the end of the run, with their times.
	awk -v dur="$dur" '
		{ text = text $0 }
		END {
			match(text, /"gap_seconds": *[0-9.]+/); gap = substr(text, RSTART, RLENGTH)
			sub(/.*: */, "", gap)
			match(text, /"data": *\[[^]]*\]/); d = substr(text, RSTART, RLENGTH)
			sub(/.*\[/, "", d); sub(/\].*/, "", d)
			n = split(d, v, /, */); len = n * gap
			for (base = 0; base < dur; base += len)
				for (j = 2; j <= n; j++) {
					t = base + (j - 1) * gap
					if (t < dur && v[j] + 0 < v[j - 1] + 0) printf "%.17g\n", t
				}
			# the wrap from the last tick back to the first is a change too
			for (base = len; base < dur; base += len)
				if (v[1] + 0 < v[n] + 0) printf "%.17g\n", base
		}' "$trace" | sort -g >"$tmp/drops"
	events "$tmp/$policy.h5" | awk '$2 == "preemption" { print $1 }' | sort -g >"$tmp/preempt"
	want=$(wc -l <"$tmp/drops")
	got=$(json "$tmp/$policy.json" preemptions)
	[ "$want" -gt 5 ] && [ "$got" = "$want" ]
	ok $? "$policy: preemptions ($got) = drops in the trace before the end ($want)"
	cmp -s "$tmp/drops" "$tmp/preempt"
	ok $? "$policy: each preemption at its drop's time"
done

# Both runs, explained by their time in each state (which adds up to the
# duration): wait waits for the pool to be full again; elastic restarts at
# every resize and trains slower on fewer replicas (same global batch).
for p in elastic wait; do
	f="$tmp/$p.json"
	echo "# $p: $(json "$f" duration_s) s, \$$(json "$f" cost_usd), waiting $(json "$f" time_waiting_s) s," \
		"restarting $(json "$f" time_restarting_s) s, training $(json "$f" time_training_s) s," \
		"redo $(json "$f" time_redo_s) s, resizes $(json "$f" resizes)"
done
v() { json "$tmp/$1.json" "$2"; }
awk -v a="$(v elastic duration_s)" -v b="$(v wait duration_s)" -v c="$(v elastic cost_usd)" \
	-v d="$(v wait cost_usd)" 'BEGIN { exit !(a != b && c != d) }'
ok $? "elastic and wait: different durations and costs"
awk -v we="$(v elastic time_waiting_s)" -v ww="$(v wait time_waiting_s)" \
	-v te="$(v elastic time_training_s)" -v tw="$(v wait time_training_s)" \
	-v re="$(v elastic time_restarting_s)" -v rw="$(v wait time_restarting_s)" \
	'BEGIN { exit !(we < ww && te > tw && re > rw) }'
ok $? "explained: wait waits longer; elastic restarts more and trains slower"
sum=0
for p in elastic wait; do
	awk -v d="$(v $p duration_s)" -v a="$(v $p time_training_s)" -v b="$(v $p time_redo_s)" \
		-v c="$(v $p time_checkpoint_s)" -v e="$(v $p time_detecting_s)" \
		-v f="$(v $p time_waiting_s)" -v g="$(v $p time_restarting_s)" -v h="$(v $p time_gc_s)" \
		'BEGIN { s = a + b + c + e + f + g + h; exit !(s - d < 1e-9 * d && d - s < 1e-9 * d) }' ||
		sum=1
done
ok $sum "each duration is the sum of its time in each state"

# No preemptions: a spot pool without a trace or rate.
quiet="-s cluster.gpus=128 -s failures.enabled=false -s pools.spot.class=\"spot\" -s pools.spot.nodes=16"
# shellcheck disable=SC2086
a=$("$TRAINSIM" -q --json $quiet -s spot.policy=\"elastic\" -o "$tmp/q1.h5" scenarios/tiny.cfg)
# shellcheck disable=SC2086
b=$("$TRAINSIM" -q --json $quiet -s spot.policy=\"wait\" -o "$tmp/q2.h5" scenarios/tiny.cfg)
c=$("$TRAINSIM" -q --json -s cluster.gpus=128 -s failures.enabled=false -o "$tmp/q3.h5" scenarios/tiny.cfg)
echo "$a" >"$tmp/a"; echo "$b" >"$tmp/b"; echo "$c" >"$tmp/c"
[ "$(json "$tmp/a" duration_s)" = "$(json "$tmp/c" duration_s)" ] &&
	[ "$(json "$tmp/b" duration_s)" = "$(json "$tmp/c" duration_s)" ] &&
	[ "$(json "$tmp/a" cost_usd)" = "$(json "$tmp/c" cost_usd)" ]
ok $? "no preemptions: elastic = wait = undisturbed run, exactly ($(json "$tmp/c" duration_s) s)"
