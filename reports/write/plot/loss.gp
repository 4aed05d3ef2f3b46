# loss.gp: training loss per epoch.
set xlabel "epoch"
set ylabel "mean loss"
set yrange [0:*]
# epochs are whole numbers: a tick per epoch up to 20 (never 1.5), and one
# epoch is a point in the middle, not an empty range
stats $data using 1 nooutput
if (STATS_max - STATS_min <= 20) { set xtics 1 } else { set format x "%.0f" }
if (STATS_max == STATS_min) { set xrange [STATS_min - 1 : STATS_max + 1]; set offsets 0, 0, graph 0.1, 0 }
# a single point says its value
plot $data using 1:2 with linespoints pt 7 title "loss", \
     $data using 1:2:(STATS_records == 1 ? sprintf("%.4g", $2) : "") with labels offset 0,1 notitle
