# overlay_loss.gp: every run of a training test, loss per epoch, one curve
# per run; kunai plot --test adds the plot command.
set xlabel "epoch"
set ylabel ylabel
set yrange [0:*]
# epochs are whole numbers: a tick per epoch up to 20 (never 1.5), and one
# epoch is a point in the middle, not an empty range
stats $data using 1 nooutput
if (STATS_max - STATS_min <= 20) { set xtics 1 } else { set format x "%.0f" }
if (STATS_max == STATS_min) { set xrange [STATS_min - 1 : STATS_max + 1] }
