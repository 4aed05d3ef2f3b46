# loss.gp: training loss per epoch.
set xlabel "epoch"
set ylabel "mean loss"
set yrange [0:*]
plot $data using 1:2 with linespoints pt 7 title "loss"
