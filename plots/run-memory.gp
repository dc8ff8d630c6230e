# run-memory.gp -- memory per GPU in GiB: the parts (weights, gradients,
# optimizer state, activations, reserve) stacked in one bar, against the
# GPU's HBM capacity as a line; or the peak alone for files without the
# parts.  Variables: datafile (label GiB bottom rows; may be empty), hasdata (0
# when it is), hbm (GiB; 0 unknown), gpu (its name), ttl.
set title ttl
set grid ytics
set key off
set style fill solid 0.85 border -1
set boxwidth 0.5
set ylabel "GiB per GPU"
set xrange [-0.8:0.8]
set xtics ("fullest pipeline stage" 0)
if (!hasdata) {
	set label 1 "this run file has no memory figures (peak_memory_gib is not set)" at graph 0.5, 0.5 center
	unset xtics
	set xrange [0:1]
	set yrange [0:1]
	plot -1 notitle
} else {
	stats datafile using 2 nooutput
	total = STATS_sum
	set yrange [0:(hbm > total ? hbm : total) * 1.12]
	if (hbm > 0) {
		set arrow 1 from graph 0, first hbm to graph 1, first hbm nohead lw 2 dt 2 lc rgb "#c0392b"
		set label 2 sprintf("%s HBM %.1f GiB", gpu, hbm) at graph 0.02, first hbm offset 0,0.7 tc rgb "#c0392b"
	}
	set label 3 sprintf("total %.1f GiB%s", total, hbm > 0 ? sprintf(" (%.0f%% of HBM)", 100 * total / hbm) : "") \
		at 0, first total offset 0,0.8 center
	# One box per part from its bottom (column 3, the parts below it);
	# its name and size beside it.
	plot datafile using (0):($3 + $2 / 2):(0.25):($2 / 2):(int($0) + 1) with boxxyerror lc variable notitle, \
	     datafile using (0.3):($3 + $2 / 2):(sprintf("%s %.1f GiB", strcol(1), $2)) with labels left font ",9" notitle
}
