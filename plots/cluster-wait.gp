# cluster-wait.gp -- the wait-time CDF of each job class.  Variables:
# datafile (one block per class: wait_h fraction, blocks split by two blank
# lines, in the order of classes), classes (their names), xmax (hours),
# ttl.
set title ttl
set grid
set key bottom right
set xlabel "wait (hours, log scale; waits under 3.6 s drawn at 0.001)"
set ylabel "fraction of the class's jobs"
set logscale x
set xrange [0.001:xmax]
set yrange [0:1.02]
plot for [i=1:words(classes)] datafile index (i - 1) using ($1 < 0.001 ? 0.001 : $1):2 \
     with steps lw 2 title word(classes, i)
