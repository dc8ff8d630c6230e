# cluster-load.gp -- a shared cluster against time: utilisation; GPUs held
# and running with the queue on its own axis; nodes per pool.  Variables:
# datafile (time_s utilisation held_gpus running_gpus queue_length, then
# one column per pool), npools, pool1.. (their names), ttl.
stats datafile using ($1 / 86400) nooutput
set xrange [STATS_min:STATS_max]
set multiplot title ttl
set lmargin at screen 0.10
set rmargin at screen 0.90
set grid
set format x ""
set tmargin at screen 0.93
set bmargin at screen 0.70
set key off
set ylabel "GPU utilisation"
set yrange [0:1.05]
plot datafile using ($1 / 86400):2 with lines lw 1.5 lc rgb "#1f77b4"
set autoscale y
set tmargin at screen 0.68
set bmargin at screen 0.40
set key top left horizontal
set ylabel "GPUs"
set y2label "jobs waiting"
set y2tics
set format y "%.1s%c"
plot datafile using ($1 / 86400):3 with lines lw 1.5 lc rgb "#7f7f7f" title "held", \
     datafile using ($1 / 86400):4 with lines lw 1.5 lc rgb "#2ca02c" title "running", \
     datafile using ($1 / 86400):5 axes x1y2 with lines lw 1 lc rgb "#d62728" title "waiting (right)"
unset y2tics
unset y2label
set tmargin at screen 0.38
set bmargin at screen 0.08
set format x "%g"
set format y "%g"
set xlabel "time (days)"
set ylabel "nodes held"
plot for [p=1:npools] datafile using ($1 / 86400):(column(5 + p)) with lines lw 1.5 \
     title value(sprintf("pool%d", p))
unset multiplot
