# sweep-groups.gp -- per group (an override's value, or a preset label):
# every replica as a dot, the mean with its 95% interval.  Variables: dir
# (agg1.dat, pts1.dat, ...: "i label n mean ci" and "i value"), npanels,
# y1.. (figure names), gname, ttl.
if (npanels <= 3) { set multiplot layout 1,npanels title ttl } else { set multiplot layout 2,(npanels + 1) / 2 title ttl }
set grid ytics
set key off
set offsets 0.5, 0.5, 0, 0
set xtics rotate by 45 right
set xlabel gname
do for [p=1:npanels] {
	fig = value(sprintf("y%d", p))
	agg = sprintf("%s/agg%d.dat", dir, p)
	pts = sprintf("%s/pts%d.dat", dir, p)
	stats pts using 2 nooutput
	# Engineering prefixes for big numbers, plain digits for small ones.
	if (abs(STATS_max) >= 1e4) { set format y "%.3s%c" } else { set format y "%g" }
	set title fig
	plot pts using ($1 + 0.25 * (rand(0) - 0.5)):2 with points pt 7 ps 0.5 lc rgb "#7f7f7f", \
	     agg using 1:4:5:xtic(2) with yerrorbars pt 5 ps 1.5 lw 2 lc rgb "#d62728"
}
unset multiplot
