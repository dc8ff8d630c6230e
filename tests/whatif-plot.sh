#!/bin/sh
# plots/plot and plots/plot-sweep: every picture comes out as a non-empty PNG
# and SVG, from a small real run and from a fixture that carries every panel's
# data (tests/whatif-fixture); the SVGs carry the names and numbers drawn.
. "$SRCDIR/tests/tap.sh"
cd "$tmp" || exit 1
export TRAINSIM
# A PNG, and not a blank or error page: a 1000x680 picture with axes, text
# and data compresses to well over 10 kB (an empty pngcairo page is ~3 kB).
png() {
	[ -s "$1" ] && [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '211PNG' ] &&
		[ "$(wc -c <"$1")" -gt 10000 ]
}
svg() { [ -s "$1" ] && grep -q '<svg' "$1" && grep -q '</svg>' "$1"; }
kinds="timeline breakdown links memory"
plan 34

"$TRAINSIM" -q -o tiny.h5 "$SRCDIR/scenarios/tiny.cfg"; ok $? "tiny run"
"$SRCDIR/plots/plot" -o p tiny.h5 >/dev/null; ok $? "plots/plot on the tiny run exits 0"
for k in $kinds; do
	png "p/tiny-$k.png" && svg "p/tiny-$k.svg"; ok $? "tiny run: $k PNG and SVG"
done
"$BUILDDIR/tests/whatif-fixture" fx.h5; ok $? "fixture written"
"$SRCDIR/plots/plot" -o p fx.h5 >/dev/null; ok $? "plots/plot on the fixture exits 0"
for k in $kinds; do
	png "p/fx-$k.png" && svg "p/fx-$k.svg"; ok $? "fixture: $k PNG and SVG"
done
# Breakdown: tp_exposed 1 s of a 10 s iteration is 10%.
grep -q 'tp_exposed' p/fx-breakdown.svg && grep -q '1 s (10%)' p/fx-breakdown.svg
ok $? "breakdown names tp_exposed and its share (1 s of 10 s = 10%)"
# Links: spine 1.5e10 bytes per 10 s iteration = 1.5 GB/s.
grep -q 'spine' p/fx-links.svg && grep -q '1.5 GB/s' p/fx-links.svg
ok $? "links names the spine tier and its rate (1.5e10 B / 10 s = 1.5 GB/s)"
grep -q '61.5' p/fx-memory.svg; ok $? "memory shows the peak (61.5 GiB)"
grep -q 'budget alerts (1)' p/fx-timeline.svg && grep -q 'failures (1)' p/fx-timeline.svg
ok $? "timeline counts the failure and the budget alert"
# The tiny run: its model (tiny.cfg's model.name) and GPU in the titles;
# memory parts stacked under the HBM line; links on a log scale without
# the tiers it does not use; the active-GPUs panel with the DP replicas.
for k in $kinds; do grep -q 'GPT 125M on 16 ' "p/tiny-$k.svg" || break; done
ok $? "every run plot's title names the model and GPUs (GPT 125M on 16 ...)"
grep -q 'optimizer' p/tiny-memory.svg && grep -q 'activations' p/tiny-memory.svg &&
	grep -q 'HBM' p/tiny-memory.svg
ok $? "memory: parts (optimizer, activations) and the HBM line"
# 175b.cfg (a fat tree without PCIe or dragonfly traffic) leaves tiers idle.
"$TRAINSIM" -q -o b.h5 "$SRCDIR/scenarios/175b.cfg" && "$SRCDIR/plots/plot" -o p b.h5 >/dev/null &&
	grep -q 'log scale' p/b-links.svg && grep -q 'left out: pcie' p/b-links.svg &&
	! grep -q '<text>pcie</text>' p/b-links.svg
ok $? "links: log scale; idle tiers (pcie, ...) left out and named, not drawn"
grep -q 'DP replicas' p/tiny-timeline.svg && grep -q 'active GPUs' p/tiny-timeline.svg &&
	grep -q 'cost (\$' p/tiny-timeline.svg
ok $? "timeline: active GPUs with DP replicas, cost in dollars"

# plot-sweep on a table of small runs.
for s in 1 2 3; do for iv in 300 600; do
	"$TRAINSIM" -q --seed $s -s training.checkpoint.interval_s=$iv -o "r$s-$iv.h5" \
		"$SRCDIR/scenarios/tiny.cfg" || echo "# run failed"
done; done
"$TRAINSIM" collect r*.h5 >t.tsv; ok $? "collect the small sweep"
"$TRAINSIM" -q -s cost.gpu_hour_usd=3 -o p1.h5 "$SRCDIR/scenarios/tiny.cfg" &&
	"$TRAINSIM" -q -s cost.gpu_hour_usd=3 -s training.checkpoint.interval_s=300 -o p2.h5 \
		"$SRCDIR/scenarios/tiny.cfg" && "$TRAINSIM" collect p1.h5 p2.h5 >t2.tsv
"$SRCDIR/plots/plot-sweep" -o s --kind interval --x training.checkpoint.interval_s --daly 450 t.tsv >/dev/null
ok $? "plot-sweep --kind interval"
png s/sweep-interval.png && svg s/sweep-interval.svg; ok $? "interval PNG and SVG"
grep -q "Daly's optimum 450 s" s/sweep-interval.svg; ok $? "Daly's optimum in the key"
"$SRCDIR/plots/plot-sweep" -o s --kind groups --group training.checkpoint.interval_s t.tsv >/dev/null
ok $? "plot-sweep --kind groups"
png s/sweep-groups.png && svg s/sweep-groups.svg; ok $? "groups PNG and SVG"
"$SRCDIR/plots/plot-sweep" -o s --kind pareto t.tsv >/dev/null; ok $? "plot-sweep --kind pareto"
png s/sweep-pareto.png && svg s/sweep-pareto.svg; ok $? "Pareto PNG and SVG"
# Two configurations (means over 3 replicas each) in the title.
grep -q '2 distinct configurations' s/sweep-pareto.svg; ok $? "Pareto counts configurations, not replicas"
# Every point named: the two configurations by their interval override.
grep -q '<text>r1-300</text>' s/sweep-pareto.svg && grep -q '<text>r1-600</text>' s/sweep-pareto.svg
ok $? "Pareto: both configurations labelled (r1-300, r1-600), not only the optimal"
grep -q 'cost (\$' s/sweep-groups.svg && grep -q 'carbon (tCO2e)' s/sweep-groups.svg
ok $? "groups: cost in dollars, carbon in tCO2e"
grep -q 'axis not from zero' s/sweep-interval.svg
ok $? "interval: its truncated axes are marked"
# A price override alike in every run goes in the title.
"$SRCDIR/plots/plot-sweep" -o s2 --kind pareto t2.tsv >/dev/null &&
	grep -q 'cost.gpu_hour_usd=3' s2/sweep-pareto.svg
ok $? "a price common to all runs is named in the title"
"$SRCDIR/plots/plot-sweep" -o s --kind pareto nonexistent.tsv 2>/dev/null; [ $? -eq 2 ]
ok $? "a missing table: exit 2"
