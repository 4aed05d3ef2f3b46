/* write/plot/plot.h: `kunai plot` (plot.c): one run's values drawn by gnuplot
 * (reports/write/plot/KIND.gp), or with --test every run of a test
 * (overlay.h); gnuplot itself is behind gnuplot.h. */
#ifndef KUNAI_PLOT_H
#define KUNAI_PLOT_H

/* `kunai plot KIND DIR/report.json OUT.svg`: exit status 0, 1 or 2. */
int cmd_plot(int argc, char **argv);

#endif
