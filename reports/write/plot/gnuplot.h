/* write/plot/gnuplot.h: the seam to gnuplot (gnuplot.c) that plot.c and overlay.c
 * draw through. */
#ifndef KUNAI_GNUPLOT_H
#define KUNAI_GNUPLOT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

/* Appends s as a gnuplot '...' string. */
void plot_quote(struct buf *out, const char *s);
/* Whether gnuplot is in PATH. */
bool plot_have_gnuplot(void);
/* Appends an SVG showing msg. */
void plot_placeholder(struct buf *svg, const char *msg);
/* Runs gnuplot on script. Returns false after reporting. */
bool plot_gnuplot(const char *script, size_t len);
/* Appends reports/write/plot/NAME.gp from the data dir. Returns false after reporting. */
bool plot_script(const char *name, struct buf *out);
/* Renders script (whose output is tmp) into out, replacing it only when
 * the bytes differ; empty (or no gnuplot): a placeholder with the reason.
 * Returns false after reporting. */
bool plot_render(const char *out, const char *tmp, struct buf *script, bool empty, const char *empty_msg);

#endif
