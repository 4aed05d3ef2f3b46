# gemm.gp: GEMM throughput of every GPU (or the CPU) of every node, one
# block per precision: x, "node GPU n", value. A slow GPU is the dip.
set xlabel "node and GPU"
set ylabel ylabel
set xtics rotate by -45
set yrange [0:*]
set offsets 0.5, 0.5, 0, 0
# one GPU (or the CPU path): a point per precision in the middle that says
# its value, not an empty range
stats $data using 1 nooutput
if (STATS_max == STATS_min) { set xrange [STATS_min - 1 : STATS_max + 1]; set offsets 0, 0, graph 0.1, 0 }
plot for [i=0:nblocks-1] $data index i using 1:3:xtic(2) with linespoints pt 7 title word(names, i+1), \
     $data using 1:3:(STATS_records == nblocks ? sprintf("%.4g", $3) : "") with labels offset 0,1 notitle
