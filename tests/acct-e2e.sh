#!/bin/sh
# Accounting end to end: scenarios/finops-h100.cfg (reserved + spot pools,
# hourly grid and spot traces, storage tiers, a cost budget) through the
# trainsim command, checked in the HDF5 file and the JSON summary.
set -u
cd "$SRCDIR" || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
i=0
ok() { i=$((i + 1)); if [ "$1" -eq 0 ]; then echo "ok $i - $2"; else echo "not ok $i - $2"; fi; }
echo "1..14"

"$TRAINSIM" -q --json -o "$tmp/f.h5" scenarios/finops-h100.cfg >"$tmp/f.json" 2>"$tmp/err"
ok $? "finops-h100.cfg runs"
get() { sed -n "s/.*\"$1\": *\([^,}]*\).*/\1/p" "$2"; }
for k in usd_per_mtok kwh_per_mtok gco2e_per_mtok carbon_market_kg cost_storage_usd; do
	[ -n "$(get $k "$tmp/f.json")" ]; ok $? "summary has $k"
done
# Every series as long as time_s, the DCGM ones per pool among them.
len() { h5dump -H -d "/timeseries/$1" "$2" | sed -n 's/.*DATASPACE.*( \([0-9]*\) ).*/\1/p' | head -1; }
n0=$(len time_s "$tmp/f.h5"); same=0
for s in cost_usd energy_kwh carbon_kg tokens 'DCGM_FI_DEV_POWER_USAGE{pool=base}' \
	'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{pool=burst}' 'DCGM_FI_DEV_GPU_UTIL{pool=base}' \
	'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{pool=burst}'; do
	[ "$(len "$s" "$tmp/f.h5")" = "$n0" ] || same=1
done
ok $same "cumulative and DCGM series aligned on time_s ($n0 samples)"
# Cumulative series never decrease.
values() { h5dump -y -w 0 -d "/timeseries/$1" "$2" | sed -n '/DATA {/,/}/p' | tr -d ' ' | tr ',' '\n' | grep -E '^[-0-9.e+]+$'; }
mono=0
for s in cost_usd energy_kwh carbon_kg 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{pool=base}'; do
	values "$s" "$tmp/f.h5" | awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { exit bad }' || mono=1
done
ok $mono "cost, energy, carbon and DCGM energy never decrease"
# The budget ($200k) is crossed at 50% by the projection: one event.
h5dump -d /events "$tmp/f.h5" | grep -q '"budget_cost"'; ok $? "/events has a budget_cost alert"
[ "$(get budget_alerts "$tmp/f.json")" = 1 ]; ok $? "one alert (the 50% threshold)"
# Region preset: France's 56 g/kWh and PUE 1.2 replace the trace and default.
"$TRAINSIM" -q --json -o "$tmp/fr.h5" -s 'carbon.grid_trace=""' -s 'region="fr"' \
	scenarios/finops-h100.cfg >"$tmp/fr.json"
ok $? "region fr runs"
awk -v c="$(get carbon_kg "$tmp/fr.json")" -v e="$(get energy_kwh "$tmp/fr.json")" \
	'BEGIN { r = c / e; exit !(r > 0.056 * (1 - 1e-9) && r < 0.056 * (1 + 1e-9)) }'
ok $? "carbon / energy = 56 g/kWh in region fr"
awk -v f="$(get energy_kwh "$tmp/fr.json")" -v it="$(get it_energy_kwh "$tmp/fr.json")" \
	'BEGIN { r = f / it; exit !(r > 1.2 * (1 - 1e-9) && r < 1.2 * (1 + 1e-9)) }'
ok $? "facility / IT energy = PUE 1.2 in region fr"
# Owned mode: no instance billing, electricity and amortisation instead.
"$TRAINSIM" -q --json -o "$tmp/o.h5" -s 'cost.mode="owned"' -s cost.owned.server_usd=250000 \
	scenarios/finops-h100.cfg >"$tmp/o.json"
[ "$(get cost_compute_usd "$tmp/o.json")" = 0 ] && [ "$(get cost_capex_usd "$tmp/o.json")" != 0 ]
ok $? "owned mode: capex and electricity, no instance-hours"
