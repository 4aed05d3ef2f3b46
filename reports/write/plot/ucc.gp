# ucc.gp: ucc_perftest time per message size.
set logscale x 2
set format x "%.0b%B"
set xlabel "message size (bytes)"
set ylabel ylabel
plot $data using 1:2 with linespoints pt 7 title word(names, 1)
