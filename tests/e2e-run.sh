#!/bin/sh
# End to end: the trainsim command on real scenarios, checked through the
# files and text it produces (HDF5 via h5dump, the layout in sim/report.h).
set -u
cd "$SRCDIR" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
i=0
ok() { i=$((i + 1)); if [ "$1" -eq 0 ]; then echo "ok $i - $2"; else echo "not ok $i - $2"; fi; }

keys="duration_s iterations tokens iteration_time_s tflops_per_gpu mfu goodput
gpu_hours energy_kwh it_energy_kwh carbon_kg embodied_carbon_kg cost_usd failures
preemptions checkpoints restarts lost_work_s peak_memory_gib"
nkeys=$(echo $keys | wc -w)
echo "1..$((nkeys * 2 + 18))"

"$TRAINSIM" -q --json -o "$tmp/a.h5" scenarios/175b.cfg >"$tmp/a.json" 2>"$tmp/err"
ok $? "175b.cfg runs"
[ -f "$tmp/a.h5" ]; ok $? "175b.cfg writes the output file"
for k in $keys; do
	h5dump -a "/summary/$k" "$tmp/a.h5" >/dev/null 2>&1; ok $? "/summary has $k"
	grep -q "\"$k\":" "$tmp/a.json"; ok $? "--json has $k"
done
for a in trainsim_version scenario seed; do
	h5dump -a "/$a" "$tmp/a.h5" >/dev/null 2>&1; ok $? "root attribute $a"
done
h5dump -d /timeseries/time_s -H "$tmp/a.h5" >/dev/null 2>&1; ok $? "/timeseries/time_s"
h5dump -d /events -H "$tmp/a.h5" >/dev/null 2>&1; ok $? "/events table"
h5dump -g /step -H "$tmp/a.h5" >/dev/null 2>&1; ok $? "/step group"
# Every series as long as time_s.
len() { h5dump -H -d "/timeseries/$1" "$2" | sed -n 's/.*DATASPACE.*( \([0-9]*\) ).*/\1/p' | head -1; }
n0=$(len time_s "$tmp/a.h5"); same=0
for s in tokens energy_kwh cost_usd carbon_kg; do [ "$(len $s "$tmp/a.h5")" = "$n0" ] || same=1; done
ok $same "time series of equal length ($n0 samples)"

"$TRAINSIM" -q -o "$tmp/b.h5" scenarios/175b.cfg
cmp -s "$tmp/a.h5" "$tmp/b.h5"; ok $? "same scenario and seed: byte-identical HDF5"
"$TRAINSIM" -q --seed 2 -o "$tmp/c.h5" scenarios/175b.cfg
! cmp -s "$tmp/a.h5" "$tmp/c.h5"; ok $? "another seed: another run"

"$TRAINSIM" -q --json -s run.tokens=1e9 -s failures.enabled=false scenarios/tiny.cfg -o "$tmp/t.h5" >"$tmp/t.json"
# 1e9 tokens / (256 x 2048 tokens per iteration) = 1907.3 -> 1908 iterations.
grep -q '"iterations": *1908[,}]' "$tmp/t.json"; ok $? "-s run.tokens=1e9 gives 1908 iterations"

(cd "$tmp" && "$TRAINSIM" -q "$SRCDIR/scenarios/tiny.cfg") && [ -f "$tmp/tiny.h5" ]
ok $? "default output: base name + .h5 in the current directory"

"$TRAINSIM" --check scenarios/175b.cfg >"$tmp/check" 2>&1 && grep -q "^parameters" "$tmp/check" &&
	grep -q "hidden = 12288" "$tmp/check"
ok $? "--check prints the resolved scenario and derived figures"
"$TRAINSIM" --check -s model.layers=48 -s parallel.pp=8 scenarios/175b.cfg | grep -q "layers = 48"
ok $? "--check shows overrides"
"$TRAINSIM" --help | grep -q "usage: trainsim"; ok $? "--help"
"$TRAINSIM" --version | grep -q "^trainsim [0-9]"; ok $? "--version"
"$TRAINSIM" --schema | grep -q "model.layers"; ok $? "--schema lists settings"
