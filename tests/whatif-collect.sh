#!/bin/sh
# trainsim collect and export: the table of runs and the text columns that
# sweeps and plots read, checked against what the same runs print with --json.
. "$SRCDIR/tests/tap.sh"
. "$SRCDIR/tests/outputs.sh"
cd "$tmp" || exit 1
plan 16
sc="$SRCDIR/scenarios/tiny.cfg"

"$TRAINSIM" -q --json -o a.h5 "$sc" >a.json; ok $? "run a"
"$TRAINSIM" -q --json -s training.checkpoint.interval_s=300 --seed 3 -o b.h5 "$sc" >b.json
ok $? "run b with -s and --seed"
"$TRAINSIM" collect -o t.h5 a.h5 b.h5 >t.tsv; ok $? "collect exits 0"
[ "$(wc -l <t.tsv)" -eq 3 ]; ok $? "one header line and one row per run"
col() { awk -F'\t' -v k="$1" -v r="$2" 'NR==1{for(c=1;c<=NF;c++) if($c==k) n=c} NR==r+1{print $n}' t.tsv; }
[ "$(col training.checkpoint.interval_s 2)" = 300 ]; ok $? "override column holds the -s value"
[ "$(col training.checkpoint.interval_s 1)" = NA ]; ok $? "a run without that override reads NA"
[ "$(col run.seed 2)" = 3 ] && [ "$(col seed 2)" = 3 ] && [ "$(col seed 1)" = 1 ]
ok $? "seed column (root attribute) and the --seed override"
# Every --json figure is in the table with the same digits (both %.17g).
bad=0
for k in $(sed 's/[{}" ]//g; s/,/\n/g' b.json | cut -d: -f1); do
	v=$(json b.json "$k"); [ "$v" = null ] && v=nan
	[ "$(col "$k" 2)" = "$v" ] || { bad=1; echo "# $k: table $(col "$k" 2) json $v"; }
done
ok $bad "every summary figure of run b equals its --json value"
ok_eq "$(dataset t.h5 /results/cost_usd | tr '\n' ' ')" "$(json a.json cost_usd) $(json b.json cost_usd) " \
	"HDF5 table's /results/cost_usd = each run's --json cost_usd, in order"
h5dump -A -d /results/cost_usd t.h5 | grep -q '"USD"'; ok $? "HDF5 column keeps its unit"
h5dump -d /results/training.checkpoint.interval_s t.h5 | grep -q '"NA", "300"'
ok $? "HDF5 string column of overrides"
"$TRAINSIM" export a.h5 tokens cost_usd >s.txt; ok $? "export series"
# The last sample is the run's end: cost equals the summary's cost_usd.
last=$(tail -1 s.txt | awk '{print $3}')
[ "$last" = "$(col cost_usd 1)" ]; ok $? "last cost_usd sample = summary cost_usd ($last)"
"$TRAINSIM" export --events a.h5 checkpoint_end | awk 'NR>1' | wc -l | grep -qx "$(col checkpoints 1)"
ok $? "one checkpoint_end event per checkpoint"
"$TRAINSIM" export a.h5 no_such_series 2>err.txt; [ $? -eq 2 ] && grep -q 'there are: time_s tokens' err.txt
ok $? "unknown series: exit 2, names the series there are"
printf 'not hdf5\n' >bad.h5
"$TRAINSIM" collect a.h5 bad.h5 >/dev/null 2>err.txt; [ $? -eq 2 ] && grep -q 'bad.h5' err.txt
ok $? "a file that is not HDF5: exit 2, named"
