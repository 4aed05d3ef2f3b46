# overlay_loss.gp: every run of a training test, loss per epoch, one curve
# per run; kunai plot --test adds the plot command.
set xlabel "epoch"
set ylabel ylabel
set yrange [0:*]
