# sweep-groups.gp -- per group (an override's value, or a preset label):
# every replica as a dot, the mean with its 95% interval, on axes that start
# at zero (a 2% gap looks like 2%).  Variables: dir (agg1.dat, pts1.dat,
# ...: "i label n mean ci" and "i value"), npanels, y1.. (axis titles with
# their unit), k1.. (the scale to that unit), gname, ttl.
if (npanels <= 3) { set multiplot layout 1,npanels title ttl } else { set multiplot layout 2,(npanels + 1) / 2 title ttl }
set grid ytics
set key off
set offsets 0.5, 0.5, 0, 0
set xtics rotate by 30 right font ",8"
set xlabel gname
set yrange [0:*]
set lmargin 10
set format y "%g"
do for [p=1:npanels] {
	k = value(sprintf("k%d", p))
	agg = sprintf("%s/agg%d.dat", dir, p)
	pts = sprintf("%s/pts%d.dat", dir, p)
	set title value(sprintf("y%d", p))
	plot pts using ($1 + 0.25 * (rand(0) - 0.5)):($2 * k) with points pt 7 ps 0.5 lc rgb "#7f7f7f", \
	     agg using 1:($4 * k):($5 * k):xtic(2) with yerrorbars pt 5 ps 1.5 lw 2 lc rgb "#d62728"
}
unset multiplot
