#!/bin/sh
# Accounting end to end: scenarios/finops-h100.cfg (reserved + spot pools,
# hourly grid and spot traces, storage tiers, a cost budget) through the
# trainsim command, checked in the HDF5 file and the JSON summary.
cd "$SRCDIR" || exit 1
. tests/tap.sh
. tests/outputs.sh
plan 18

"$TRAINSIM" -q --json -o "$tmp/f.h5" scenarios/finops-h100.cfg >"$tmp/f.json" 2>"$tmp/err"
ok $? "finops-h100.cfg runs"
get() { json "$2" "$1"; }
f=$tmp/f.json
# Per million tokens: the totals over tokens / 1e6.
ok_near "$(get usd_per_mtok "$f")" "$(calc "$(get cost_usd "$f") / $(get tokens "$f") * 1e6")" 1e-12 \
	"usd_per_mtok = cost_usd / (tokens / 1e6)"
ok_near "$(get kwh_per_mtok "$f")" "$(calc "$(get energy_kwh "$f") / $(get tokens "$f") * 1e6")" 1e-12 \
	"kwh_per_mtok = energy_kwh / (tokens / 1e6)"
ok_near "$(get gco2e_per_mtok "$f")" "$(calc "$(get carbon_kg "$f") * 1000 / $(get tokens "$f") * 1e6")" 1e-12 \
	"gco2e_per_mtok = carbon_kg x 1000 / (tokens / 1e6)"
# No renewable certificates or PPAs in the scenario: market = location-based.
[ -n "$(get carbon_market_kg "$f")" ] && [ "$(get carbon_market_kg "$f")" = "$(get carbon_location_kg "$f")" ]
ok $? "carbon_market_kg = carbon_location_kg without market instruments"
# Two storage tiers priced: a cost above 0 that adds up with the rest.
awk -v s="$(get cost_storage_usd "$f")" 'BEGIN { exit !(s > 0) }' &&
	near "$(get cost_usd "$f")" "$(calc "$(get cost_compute_usd "$f") + $(get cost_storage_usd "$f") + $(get cost_electricity_usd "$f") + $(get cost_capex_usd "$f") + $(get cost_opex_usd "$f")")" 1e-12
ok $? "cost_storage_usd > 0 and cost = compute + storage + electricity + capex + opex"
# Every series as long as time_s, the DCGM ones per pool among them.
n0=$(series_len "$tmp/f.h5" time_s); same=0
for s in cost_usd energy_kwh carbon_kg tokens 'DCGM_FI_DEV_POWER_USAGE{pool=base}' \
	'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{pool=burst}' 'DCGM_FI_DEV_GPU_UTIL{pool=base}' \
	'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE{pool=burst}'; do
	[ "$(series_len "$tmp/f.h5" "$s")" = "$n0" ] || same=1
done
ok $same "cumulative and DCGM series aligned on time_s ($n0 samples)"
# Cumulative series never decrease.
mono=0
for s in cost_usd energy_kwh carbon_kg 'DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{pool=base}'; do
	series "$tmp/f.h5" "$s" | awk 'NR > 1 && $1 < prev { bad = 1 } { prev = $1 } END { exit bad }' || mono=1
done
ok $mono "cost, energy, carbon and DCGM energy never decrease"
# The budget ($200k) is crossed at 50% by the projection: one event.
h5dump -d /events "$tmp/f.h5" | grep -q '"budget_cost"'; ok $? "/events has a budget_cost alert"
[ "$(get budget_alerts "$tmp/f.json")" = 1 ]; ok $? "one alert (the 50% threshold)"
# Region preset: France's 56 g/kWh and PUE 1.2 replace the trace and default
# (p5's catalog price holds in us_virginia only: the regions list is
# cleared to take it as is).
"$TRAINSIM" -q --json -o "$tmp/fr.h5" -s 'carbon.grid_trace=""' -s 'region="fr"' \
	-s 'instances.p5_48xlarge.regions=""' \
	scenarios/finops-h100.cfg >"$tmp/fr.json"
ok $? "region fr runs"
ok_near "$(calc "$(get carbon_kg "$tmp/fr.json") / $(get energy_kwh "$tmp/fr.json")")" 0.056 1e-9 \
	"carbon / energy = 56 g/kWh in region fr"
ok_near "$(calc "$(get energy_kwh "$tmp/fr.json") / $(get it_energy_kwh "$tmp/fr.json")")" 1.2 1e-9 \
	"facility / IT energy = PUE 1.2 in region fr"
# The presets completed for issue 14 give all three figures (owned, so the
# price is read): grid, PUE and price as regions.cfg cites them (mlco2/impact
# eGRID rows, Uptime 2023's 1.58, EIA 2023 industrial, Hydro-Quebec LG).
for r in "us_washington 297.6 0.0635" "us_texas 460.4 0.0660" \
	"us_california 240.6 0.1864" "ca_quebec 20.0 0.0403"; do
	set -- $r
	"$TRAINSIM" -q --json -o "$tmp/$1.h5" -s "region=\"$1\"" -s 'carbon.grid_trace=""' \
		-s 'cost.mode="owned"' -s 'cost.electricity_trace=""' \
		scenarios/finops-h100.cfg >"$tmp/$1.json" &&
		near "$(calc "$(get carbon_kg "$tmp/$1.json") / $(get energy_kwh "$tmp/$1.json")")" \
			"$(calc "$2 / 1000")" 1e-9 &&
		near "$(calc "$(get energy_kwh "$tmp/$1.json") / $(get it_energy_kwh "$tmp/$1.json")")" \
			1.58 1e-9 &&
		near "$(calc "$(get cost_electricity_usd "$tmp/$1.json") / $(get energy_kwh "$tmp/$1.json")")" \
			"$3" 1e-9
	ok $? "region $1: $2 g/kWh, PUE 1.58, \$$3/kWh from the preset alone"
done
# Owned mode: no instance billing, electricity and amortisation instead.
"$TRAINSIM" -q --json -o "$tmp/o.h5" -s 'cost.mode="owned"' -s cost.owned.server_usd=250000 \
	scenarios/finops-h100.cfg >"$tmp/o.json"
[ "$(get cost_compute_usd "$tmp/o.json")" = 0 ] && [ "$(get cost_capex_usd "$tmp/o.json")" != 0 ]
ok $? "owned mode: capex and electricity, no instance-hours"
