# overlay_gemm.gp: the GEMM rate of every GPU of every run of a test as
# bars (x, "node GPU n", value, highlighted); kunai plot --test adds the
# plot command (highlighted bars red, references dashed).
set xlabel "node and GPU"
set ylabel ylabel
set xtics rotate by -45
set yrange [0:*]
set style fill solid 0.8 border -1
set boxwidth 0.8
set offsets 0.5, 0.5, 0, 0
# one value: a point in the middle (kunai plot draws it with its value), not
# an empty range
stats $data using 1 nooutput
if (STATS_max == STATS_min) { set xrange [STATS_min - 1 : STATS_max + 1]; set offsets 0, 0, graph 0.1, 0 }
