# busbw.gp: bus bandwidth against message size (nccl-tests format):
# columns bytes, busbw (out of place), busbw (in place).
set logscale x 2
set format x "%.0b%B"
set xlabel "message size (bytes)"
set ylabel "bus bandwidth (GB/s)"
plot $data using 1:2 with linespoints pt 7 title "out of place", \
     $data using 1:3 with linespoints pt 5 title "in place"
