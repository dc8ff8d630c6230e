# cluster-fabric.gp -- the fabric slowdown's CDF for each job class, over
# the jobs that put a ring on the fabric (comm_fraction > 0, two nodes or
# more, started).  Variables: datafile (one block per class: slowdown
# fraction, blocks split by two blank lines, in the order of classes),
# classes (their names; empty: no job shared the fabric), xmax, ttl.
set title ttl
set grid
set key bottom right
set xlabel "fabric slowdown (wall time running / work done; 1: never slowed)"
set ylabel "fraction of the class's communicating jobs"
set yrange [0:1.02]
if (words(classes) == 0) {
	set label "no job shared the fabric" at graph 0.5, 0.5 center
	set xrange [1:2]
	plot NaN notitle
} else {
	set xrange [1:xmax]
	plot for [i=1:words(classes)] datafile index (i - 1) using 1:2 \
	     with steps lw 2 title word(classes, i)
}
