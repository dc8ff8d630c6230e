# run-links.gp -- traffic on each tier of links (NVLink, leaf, spine, ...)
# per iteration and its mean rate over the iteration, on a log scale (NVLink
# carries orders of magnitude more than the fabric tiers, which a linear
# scale flattens to nothing); tiers without traffic are left out and named
# under the picture.  Utilization, when the run file has it, is drawn on
# its own 0..1 scale.  Variables: datafile ("# tier value" header, then
# label value rows; may be empty), hasdata (0 when it is), kind ("bytes"
# or "util"), unused (tiers left out, "" none), iter_s, ttl.
set title ttl
set grid ytics
set key off
set style fill solid 0.8 border -1
set boxwidth 0.6
set offsets 0.5, 0.5, 0, 0
set bmargin 5
if (strlen(unused) > 0) { set label 9 "tiers without traffic, left out: " . unused at screen 0.02, screen 0.03 font ",9" }
if (!hasdata) {
	set label 1 "this run file has no per-tier traffic (/step tier_bytes)" at graph 0.5, 0.5 center
	unset xtics
	set xrange [0:1]
	set yrange [0:1]
	plot -1 notitle
} else {
	if (kind eq "util") {
		set ylabel "utilization"
		set yrange [0:1]
		plot datafile using 0:2:xtic(1) with boxes lc rgb "#2ca02c"
	} else {
		stats datafile using 2 nooutput
		set logscale y
		# Whole decades, from one below the least tier: every bar shows.
		set yrange [10**floor(log10(STATS_min) - 1):10**ceil(log10(STATS_max) + 0.5)]
		set ylabel "bytes per iteration (log scale)"
		set format y "%.0s %cB"
		plot datafile using 0:2:xtic(1) with boxes lc rgb "#2ca02c", \
		     datafile using 0:2:(gprintf("%.1s %cB", $2) . (iter_s > 0 ? gprintf(", %.1s %cB/s", $2 / iter_s) : "")) \
			with labels offset 0,1 font ",9" notitle
	}
}
