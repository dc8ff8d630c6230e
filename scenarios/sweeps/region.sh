#!/bin/sh
# region.sh -- where?  GPT-3 175B (scenarios/175b.cfg) under the grid carbon
# intensity (gCO2e/kWh) and PUE of each region, from regions/regions.cfg
# (sources in doc/sources.md section 5): USA average
# 369.5 (codecarbon, 2023), N. Virginia 367.8, Oregon 297.6, Iowa (GCP
# us-central1) 566.3 at PUE 1.11 (Council Bluffs), Quebec (AWS
# ca-central-1) 20, France 56, Sweden 40.7, Germany 381, India 713.4; PUE
# 1.10 where no site figure is given.  Prices are kept (one price list).
# Works on main with constant intensities; region presets with hourly traces
# (scenarios/regions/) can replace these once accounting reads traces.
. "$(dirname "$0")/lib.sh"
sweep_init region "$@"
sweep_scenario scenarios/175b.cfg
r() { echo "$1:carbon.grid_g_per_kwh=$2,power.pue=$3"; }
if [ "$SWEEP_SMALL" = 1 ]; then
	sweep_axis - "$(r usa 369.5 1.10)" "$(r quebec 20 1.10)" "$(r iowa 566.3 1.11)"
	sweep_axis run.seed 1
else
	sweep_axis - "$(r usa 369.5 1.10)" "$(r virginia 367.8 1.10)" "$(r oregon 297.6 1.10)" \
		"$(r iowa 566.3 1.11)" "$(r quebec 20 1.10)" "$(r france 56 1.10)" \
		"$(r sweden 40.7 1.10)" "$(r germany 381 1.10)" "$(r india 713.4 1.10)"
	sweep_axis run.seed $(seq 1 10)
fi
sweep_plot() {
	plot_groups @1 carbon_kg,energy_kwh,cost_usd "GPT-3 175B: region"
}
sweep_go
