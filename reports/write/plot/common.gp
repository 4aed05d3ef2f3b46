# common.gp: what every kunai plot shares; kunai plot sends it first, with
# `outfile` and `plottitle` set and the data in $data. Text is noenhanced:
# test names and GPU models are printed as they are.
set terminal svg size 800,450 dynamic noenhanced font "sans,11" background rgb "white"
set output outfile
set title plottitle noenhanced
set key outside right top noenhanced
set grid
set datafile missing "NaN"
