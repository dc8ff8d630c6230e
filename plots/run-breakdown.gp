# run-breakdown.gp -- where one iteration's time goes: one bar per part
# (compute, exposed TP / PP / DP communication, bubble, ...), with its share
# of the iteration.  Variables: datafile (part seconds; may be empty), hasdata (0 when it is),
# iter_s (the iteration time, 0 if unknown), ttl.
set title ttl
set grid ytics
set key top right
set ylabel "seconds per iteration"
set style fill solid 0.8 border -1
set boxwidth 0.6
set yrange [0:*]
set offsets 0.5, 0.5, graph 0.1, 0
if (!hasdata) {
	set label 1 "this run file has no iteration breakdown (/step seconds)" at graph 0.5, 0.5 center
	unset xtics
	set xrange [0:1]
	set yrange [0:1]
	plot -1 notitle
} else {
	if (iter_s > 0) { set arrow 1 from graph 0, first iter_s to graph 1, first iter_s nohead lw 2 dt 2 lc rgb "#c0392b"; set yrange [0:iter_s * 1.15] }
	plot datafile using 0:2:xtic(1) with boxes lc rgb "#1f77b4" notitle, \
	     datafile using 0:2:(iter_s > 0 ? sprintf(100 * $2 / iter_s < 1 ? "%.3g s (%.1f%%)" : "%.3g s (%.0f%%)", $2, 100 * $2 / iter_s) : sprintf("%.3g s", $2)) \
		with labels offset 0,1 notitle, \
	     keyentry with lines lw 2 dt 2 lc rgb "#c0392b" title sprintf("iteration %.4g s", iter_s)
}
