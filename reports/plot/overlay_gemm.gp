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
