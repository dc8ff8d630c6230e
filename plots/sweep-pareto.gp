# sweep-pareto.gp -- cost against carbon, duration as colour, every
# configuration named; those that no other beats on cost, carbon and time
# ringed, the cost-carbon front drawn.  An axis starts at zero unless its
# points lie within 30% of each other (then a zero-based axis would hide
# their differences): it spans them and its label says so.  Variables: datafile (cost carbon_t days pareto3
# pareto2 name replicas), frontfile, paretofile, kc (cost scale), cunit
# (its unit), ttl.
set title ttl
set grid
set key top right opaque box
stats datafile using ($1 * kc) nooutput name "C"
stats datafile using 2 nooutput name "K"
near(lo, hi) = lo > 0 && hi - lo < 0.3 * hi
if (near(C_min, C_max)) { xmark = "; axis not from zero" } else { xmark = ""; set xrange [0:*] }
if (near(K_min, K_max)) { ymark = "; axis not from zero" } else { ymark = ""; set yrange [0:*] }
# Room for the labels, but none below a zero-based axis.
if (xmark ne "") { set offsets graph 0.08, graph 0.08, graph 0.1, graph (ymark eq "" ? 0 : 0.08) } else { set offsets 0, graph 0.08, graph 0.1, graph (ymark eq "" ? 0 : 0.08) }
set xlabel sprintf("cost (%s%s)", cunit, xmark)
set ylabel sprintf("carbon, operational + embodied (tCO2e%s)", ymark)
set cblabel "duration (days)"
set format x "%g"
set palette defined (0 "#2166ac", 1 "#67a9cf", 2 "#fddbc7", 3 "#b2182b")
plot datafile using ($1 * kc):2:3 with points pt 7 ps 1.4 palette title "configuration", \
     frontfile using ($1 * kc):2 with steps lw 2 lc rgb "#333333" title "cost-carbon front", \
     paretofile using ($1 * kc):2 with points pt 6 ps 2.4 lw 2 lc rgb "#000000" title "Pareto-optimal (cost, carbon, time)", \
     datafile using ($1 * kc):2:6 with labels offset 0,1.3 font ",8" notitle
