# cluster-cost.gp -- cost per team, stacked by pricing class; the capacity
# held but unused is its own bar.  Variables: datafile ("team reserved_usd
# on_demand_usd spot_usd" after a "#" header), ttl.
set title ttl
set grid ytics
set key top left
set ylabel "USD"
set format y "%.1s%c"
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set xtics rotate by 20 right
plot datafile using 2:xtic(1) title "reserved" lc rgb "#1f77b4", \
     '' using 3 title "on-demand" lc rgb "#ff7f0e", \
     '' using 4 title "spot" lc rgb "#2ca02c"
