# run-timeline.gp -- a run against time: one panel per series, in human
# units (c1.. the data column, k1.. the scale, l1.. the axis label,
# gpus1.. 1 for the active-GPUs panel, which also draws the data-parallel
# replicas of column dpcol on the right axis), failures and preemptions
# as thin lines through the active-GPUs panel (marks: a file of gnuplot
# arrows),
# then a strip of events.  Variables: datafile (time_s then the series),
# evfile (days row kind), ev1..ev4 (labels of rows 1-4), npanels, dpcol,
# ttl.  Every y axis starts at zero.
stats datafile using ($1 / 86400) nooutput
set xrange [STATS_min:STATS_max]
set multiplot title ttl
top = 0.93; bottom = 0.08; strip = 0.12
h = (top - bottom - strip) / npanels
gap = 0.012
set lmargin at screen 0.14
set rmargin at screen 0.90
set grid
set key off
set format x ""
set ytics scale 0.5
set yrange [0:*]
# About three labelled ticks a panel: a 1, 2 or 5 step.
nice(x) = (x <= 0 ? 1 : (m = 10**floor(log10(x)), f = x / m, (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * m))
array colour[6] = ["#1f77b4", "#1f77b4", "#d62728", "#2ca02c", "#7f7f7f", "#9467bd"]
do for [p=1:npanels] {
	c = value(sprintf("c%d", p)); k = value(sprintf("k%d", p))
	set tmargin at screen top - (p - 1) * h
	set bmargin at screen top - p * h + gap
	set ylabel value(sprintf("l%d", p)) font ",9"
	set format y "%g"
	stats datafile using (column(c) * k) nooutput
	set ytics 0, nice(STATS_max / 3) scale 0.5
	if (value(sprintf("gpus%d", p))) {
		load marks
		if (dpcol > 0) {
			stats datafile using dpcol nooutput
			set y2range [0:STATS_max * 1.25]
			set y2tics 0, (STATS_max > 4 ? ceil(STATS_max / 4) : 1) scale 0.5 tc rgb "#ff7f0e"
			set y2label "DP replicas" tc rgb "#ff7f0e"
		}
		set yrange [0:*]
		if (dpcol > 0) {
			plot datafile using ($1 / 86400):(column(c) * k) with steps lw 2 lc rgb "#1f77b4" notitle, \
			     datafile using ($1 / 86400):(column(dpcol)) axes x1y2 with steps lw 1 dt 2 lc rgb "#ff7f0e" notitle
		} else {
			plot datafile using ($1 / 86400):(column(c) * k) with steps lw 2 lc rgb "#1f77b4" notitle
		}
		unset y2tics; unset y2label; unset arrow
	} else {
		plot datafile using ($1 / 86400):(column(c) * k) with lines lw 2 lc rgb colour[p <= 6 ? p : 6]
	}
}
unset arrow
set tmargin at screen bottom + strip - gap
set bmargin at screen bottom
set format x "%g"
set xlabel "time (days)"
set yrange [0.5:4.5]
set ytics (ev1 1, ev2 2, ev3 3, ev4 4) font ",8"
set ylabel ""
plot evfile using 1:($2 == 1 ? $2 : 1/0) with points pt 2 ps 1.2 lw 2 lc rgb "#d62728", \
     evfile using 1:($2 == 2 ? $2 : 1/0) with points pt 8 ps 1.2 lc rgb "#9467bd", \
     evfile using 1:($2 == 3 ? $2 : 1/0) with points pt 9 ps 0.6 lc rgb "#2ca02c", \
     evfile using 1:($2 == 4 ? $2 : 1/0) with points pt 5 ps 1.2 lc rgb "#ff7f0e", \
     -10 notitle
unset multiplot
