# overlay_size.gp: every run of a test against message size (bus bandwidth,
# an OSU or UCC measure), one curve per run; kunai plot --test adds the
# plot command (highlighted runs thick and red, references dashed).
set logscale x 2
set format x "%.0b%B"
set xlabel "message size (bytes)"
set ylabel ylabel
set samples 400
