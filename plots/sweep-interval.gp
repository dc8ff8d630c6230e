# sweep-interval.gp -- cost and duration against a swept interval, with
# Daly's optimum.  The optimum is a shallow minimum, so the y axes span the
# points, not zero, and their labels say so.  Variables: datafile (x n
# cost ci days ci), xname, daly (0: none), best (x of the least mean
# cost), kc and cunit (cost scale and its unit), ttl.
set multiplot layout 2,1 title ttl
set logscale x
set autoscale xfix
set offsets graph 0.03, graph 0.03, 0, 0
set grid
set key top left opaque box
set format y "%g"
set lmargin 12
if (daly > 0) set arrow 1 from daly, graph 0 to daly, graph 1 nohead lw 2 dt 2 lc rgb "#c0392b"
set ylabel sprintf("cost (%s; axis not from zero)", cunit)
plot datafile using 1:($3 * kc):($4 * kc) with yerrorlines lw 2 pt 7 lc rgb "#1f77b4" title "mean cost, 95% CI", \
     keyentry with lines lw 2 dt 2 lc rgb "#c0392b" title (daly > 0 ? sprintf("Daly's optimum %.0f s", daly) : ""), \
     datafile using ($1 == best ? $1 : 1/0):($3 * kc) with points pt 6 ps 3 lw 2 lc rgb "#2ca02c" title sprintf("simulated minimum %.0f s", best)
set ylabel "duration (days; axis not from zero)"
set xlabel xname . " (s)"
set format y "%g"
plot datafile using 1:5:6 with yerrorlines lw 2 pt 7 lc rgb "#ff7f0e" title "mean duration, 95% CI", \
     keyentry with lines lw 2 dt 2 lc rgb "#c0392b" title (daly > 0 ? sprintf("Daly's optimum %.0f s", daly) : "")
unset multiplot
