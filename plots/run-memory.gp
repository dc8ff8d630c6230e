# run-memory.gp -- memory per GPU in GiB: the step model's figures (peak,
# weights, gradients, optimizer, activations) or per-GPU values.
# Variables: datafile (label GiB rows; may be empty), hasdata (0 when it is), ttl.
set title ttl
set grid ytics
set key off
set style fill solid 0.8 border -1
set boxwidth 0.6
set yrange [0:*]
set offsets 0.5, 0.5, graph 0.1, 0
set ylabel "GiB per GPU"
if (!hasdata) {
	set label 1 "this run file has no memory figures (peak_memory_gib is not set)" at graph 0.5, 0.5 center
	unset xtics
	set xrange [0:1]
	set yrange [0:1]
	plot -1 notitle
} else {
	plot datafile using 0:2:xtic(1) with boxes lc rgb "#9467bd", \
	     datafile using 0:2:(sprintf("%.1f", $2)) with labels offset 0,1
}
