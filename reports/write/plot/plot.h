/* plot.h: gnuplot plots of the reports (reports/write/plot/KIND.gp). */
#ifndef KUNAI_PLOT_H
#define KUNAI_PLOT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

/* `kunai plot KIND DIR/report.json OUT.svg`: exit status 0, 1 or 2. */
int cmd_plot(int argc, char **argv);
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

/* ---- overlay.c: one plot per test, every run on it ---- */

struct plan_test;
struct run_report;

/* `kunai plot KIND --test ID OUT.svg` (in the build dir): exit status 0 or 1. */
int plot_test_cmd(const char *kind, const char *id, const char *out);
/* Which of runs[0..n) an overlay highlights (hot[i]): those the grading
 * called out. */
void overlay_highlights(const struct run_report *runs, size_t n, bool *hot);
/* Draws every run of test t (runs[0..n), highlighted where hot[i]) into
 * out as plot_render does, with t's references as dashed lines. Returns
 * false after reporting. */
bool plot_overlay(const char *kind, const struct plan_test *t, const struct run_report *runs, size_t n,
                  const bool *hot, const char *out);

#endif
