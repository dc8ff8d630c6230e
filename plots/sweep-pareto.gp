# sweep-pareto.gp -- cost against carbon, duration as colour; the
# configurations that no other beats on cost, carbon and time ringed and
# named, the cost-carbon front drawn.  Variables: datafile (cost carbon_t
# days pareto3 pareto2 name replicas), frontfile, paretofile, ttl.
set title ttl
set grid
set key bottom right opaque box
set xlabel "cost (USD)"
set ylabel "carbon, operational + embodied (tCO2e)"
set cblabel "duration (days)"
set format x "%.3s%c"
set offsets graph 0.05, graph 0.05, graph 0.08, graph 0.05
set palette defined (0 "#2166ac", 1 "#67a9cf", 2 "#fddbc7", 3 "#b2182b")
plot datafile using 1:2:3 with points pt 7 ps 1.4 palette title "configuration", \
     frontfile using 1:2 with steps lw 2 lc rgb "#333333" title "cost-carbon front", \
     paretofile using 1:2 with points pt 6 ps 2.4 lw 2 lc rgb "#000000" title "Pareto-optimal (cost, carbon, time)", \
     paretofile using 1:2:6 with labels offset 0,1.3 font ",9" notitle
