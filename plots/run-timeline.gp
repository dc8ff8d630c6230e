# run-timeline.gp -- a run against time: one panel per series (s1..,
# npanels: tokens, power, cost, carbon as the file has them), then a strip
# of events.  Variables: datafile (time_s then the series), evfile (days
# row kind), ev1..ev4 (labels of rows 1-4), ttl.
stats datafile using ($1 / 86400) nooutput
set xrange [STATS_min:STATS_max]
set multiplot title ttl
top = 0.93; bottom = 0.08; strip = 0.12
h = (top - bottom - strip) / npanels
gap = 0.012
set lmargin at screen 0.13
set rmargin at screen 0.95
set grid
set key off
set format x ""
set format y "%.1s%c"
set ytics scale 0.5
do for [p=1:npanels] {
	s = value(sprintf("s%d", p))
	set tmargin at screen top - (p - 1) * h
	set bmargin at screen top - p * h + gap
	set ylabel s
	plot datafile using ($1 / 86400):(column(p + 1)) with lines lw 2 lc p
}
set tmargin at screen bottom + strip - gap
set bmargin at screen bottom
set format x "%g"
set xlabel "time (days)"
set ylabel "events"
set yrange [0.5:4.5]
set ytics (ev1 1, ev2 2, ev3 3, ev4 4) font ",8"
set ylabel ""
set lmargin at screen 0.13
plot evfile using 1:($2 == 1 ? $2 : 1/0) with points pt 2 ps 1.2 lw 2 lc rgb "#d62728", \
     evfile using 1:($2 == 2 ? $2 : 1/0) with points pt 8 ps 1.2 lc rgb "#9467bd", \
     evfile using 1:($2 == 3 ? $2 : 1/0) with points pt 9 ps 0.6 lc rgb "#2ca02c", \
     evfile using 1:($2 == 4 ? $2 : 1/0) with points pt 5 ps 1.2 lc rgb "#ff7f0e", \
     -10 notitle
unset multiplot
