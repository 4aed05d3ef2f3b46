# gemm.gp: GEMM throughput of every GPU (or the CPU) of every node, one
# block per precision: x, "node GPU n", value. A slow GPU is the dip.
set xlabel "node and GPU"
set ylabel ylabel
set xtics rotate by -45
set yrange [0:*]
set offsets 0.5, 0.5, 0, 0
plot for [i=0:nblocks-1] $data index i using 1:3:xtic(2) with linespoints pt 7 title word(names, i+1)
