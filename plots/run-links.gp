# run-links.gp -- traffic on each tier of links (NVLink, leaf, spine, ...)
# per iteration and its mean rate over the iteration, or utilization when
# the run file has it.  Variables: datafile ("# tier value" header, then
# label value rows; may be empty), hasdata (0 when it is), kind ("bytes" or "util"), iter_s, ttl.
set title ttl
set grid ytics
set key off
set style fill solid 0.8 border -1
set boxwidth 0.6
set yrange [0:*]
set offsets 0.5, 0.5, graph 0.1, 0
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
		set ylabel "bytes per iteration"
		set format y "%.1s %cB"
		plot datafile using 0:2:xtic(1) with boxes lc rgb "#2ca02c", \
		     datafile using 0:2:(iter_s > 0 ? sprintf("%.3g GB/s", $2 / iter_s / 1e9) : "") \
			with labels offset 0,1 notitle
	}
}
