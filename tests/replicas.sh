#!/bin/sh
# --replicas N: seeds S..S+N-1 run in forked workers; /summary and --json
# gain KEY_mean and KEY_ci95.  Checked against N separate runs: the mean by
# hand, the interval as t(0.975, N-1) s / sqrt(N) with t(0.975, 3) =
# 3.182446305284263 (Student's t table).
cd "$SRCDIR" || exit 1
. tests/tap.sh
. tests/outputs.sh
plan 7

set -- -q --json -s failures.per_node_per_1000_days=20000 -s failures.spares=1000
"$TRAINSIM" "$@" --seed 5 --replicas 4 -o "$tmp/r.h5" scenarios/tiny.cfg >"$tmp/r.json"
ok $? "--replicas 4 runs"
for s in 5 6 7 8; do
	"$TRAINSIM" "$@" --seed $s -o "$tmp/s$s.h5" scenarios/tiny.cfg >"$tmp/s$s.json"
done
[ "$(json "$tmp/r.json" duration_s)" = "$(json "$tmp/s5.json" duration_s)" ]
ok $? "the file's run is the first seed's"
m=$(json "$tmp/r.json" duration_s_mean); c=$(json "$tmp/r.json" duration_s_ci95)
[ -n "$m" ] && [ -n "$c" ] && [ "$(h5attr "$tmp/r.h5" /summary/duration_s_mean)" = "$m" ] &&
	[ "$(h5attr "$tmp/r.h5" /summary/duration_s_ci95)" = "$c" ]
ok $? "/summary duration_s_mean and duration_s_ci95 = --json's ($m, $c)"
[ "$(json "$tmp/r.json" replicas)" = 4 ]; ok $? "replicas = 4"
for k in duration_s failures; do
	vals=$(for s in 5 6 7 8; do json "$tmp/s$s.json" $k; done | tr '\n' ' ')
	awk -v v="$vals" -v m="$(json "$tmp/r.json" ${k}_mean)" -v c="$(json "$tmp/r.json" ${k}_ci95)" '
		BEGIN { n = split(v, x, " "); for (j = 1; j <= n; j++) s += x[j]; mean = s / n
			for (j = 1; j <= n; j++) q += (x[j] - mean) ^ 2
			ci = 3.182446305284263 * sqrt(q / (n - 1)) / sqrt(n)
			printf "# %s: mean %.10g (want %.10g), ci95 %.10g (want %.10g)\n", "'$k'", m, mean, c, ci
			exit !(m - mean <= 1e-12 * mean && mean - m <= 1e-12 * mean &&
			       c - ci <= 1e-9 * ci && ci - c <= 1e-9 * ci && ci > 0) }'
	ok $? "$k: mean and 95% interval of the four separate runs"
done
"$TRAINSIM" -q --replicas 0 scenarios/tiny.cfg -o "$tmp/bad.h5" 2>"$tmp/err"
[ $? -eq 2 ] && grep -q -- "--replicas 0: expected" "$tmp/err" && [ ! -f "$tmp/bad.h5" ]
ok $? "--replicas 0: usage error, exit 2, no file"
