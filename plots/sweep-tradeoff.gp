# sweep-tradeoff.gp -- one figure against another, one point per value of
# a swept setting, joined in the setting's order and named by its value.
# Variables: datafile ("x y label runs"), xname, yname, ttl.
set title ttl
set grid
set key off
set xlabel xname
set ylabel yname
set format x "%.3s%c"
plot datafile using 1:2 with linespoints pt 7 ps 1.2 lw 2 lc rgb "#1f77b4", \
     datafile using 1:2:3 with labels offset 1.2,0.8 left
