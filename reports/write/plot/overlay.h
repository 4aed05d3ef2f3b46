/* write/plot/overlay.h: one plot per test, every run on it (overlay.c). */
#ifndef KUNAI_OVERLAY_H
#define KUNAI_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>

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
