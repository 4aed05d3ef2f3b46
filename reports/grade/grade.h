/* grade/grade.h: grading a run (run.c, `kunai grade`) and what the
 * graders share. A grader reads one run's output (its stdout, and the
 * files it wrote in its run dir) and adds its metrics (each with unit and
 * location) to the report, and demotes a passed run whose output shows a
 * failure. One grader per workload family, one entry in graders.c's table;
 * run.c picks it by the workload entry's grader name. */
#ifndef KUNAI_GRADE_H
#define KUNAI_GRADE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reports/results/results.h"

struct arena;
struct stat;

/* `kunai grade`: the process exit status: 0, 1 (bad input/I-O), 2 (usage). */
int cmd_grade(int argc, char **argv);

/* ---- run.c ---- */

/* Grades run r of p from what root/<r.dir> holds: job.json and, when
 * check_output, stdout.txt against the workload's success markers and its
 * grader (metrics, thresholds). Never fails: whatever is missing or corrupt
 * becomes the outcome and its reason. */
void grade_run(struct arena *a, const char *root, const struct plan *p, const struct plan_run *r,
               bool check_output, struct run_report *out);
/* grade_run with the check, then writes the report to target (the run's
 * report.json under root); *st (if not NULL) gets the stat of the file
 * written, st_size -1 if none. Returns false after reporting a write
 * error. */
bool grade_write(struct arena *a, const char *root, const struct plan *p, const struct plan_run *r,
                 const char *target, struct run_report *out, struct stat *st);
/* Parses an ISO 8601 UTC time ("2024-05-01T12:00:00Z", fractions and
 * +hh:mm offsets allowed) into seconds since the epoch. Returns false when s
 * is not one. */
bool time_parse_iso8601(const char *s, double *epoch);
/* The version of the grading of a run of workload (NULL: none known, as
 * for a run that never ran): 16 hex digits in a, a hash of the grading code
 * every run shares, of the source of the workload's grader and of its
 * success markers, so that it changes exactly when a new kunai would grade
 * that workload's runs differently. Never fails. */
const char *grade_version(struct arena *a, const char *workload);
/* A hash of every workload's grade_version and of kunai's version: what a
 * report made by this kunai depends on. Never fails. */
unsigned long long grade_identity(void);
/* Returns the plan run whose dir is dir, or NULL. */
const struct plan_run *plan_find_run(const struct plan *p, const char *dir);

/* ---- the graders ---- */

/* Every grader: r is the run (its cmd_args), dir its run dir (where it
 * wrote its files), text[0..len) its stdout ("" when it has none). */
typedef void grader_fn(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
                       struct run_report *out);

/* graders.c: the grader named name (workload.grader), or NULL. */
grader_fn *grader_find(const char *name);
/* graders.c: the CRC of the source of the grader named name (sources.sh),
 * or 0 when there is none. */
uint32_t grader_source(const char *name);
/* graders.c: the CRC of the grading code every grader shares. */
uint32_t grade_source_common(void);

/* Appends a value measured on the whole run (no GPU, no size; node: the
 * run's only node, if it had one) and returns it for its location. A value
 * that is not finite is not added: the run fails with that reason, and
 * NULL is returned. */
struct metric *metric_add(struct arena *a, struct run_report *out, const char *name, const char *unit,
                          double v);
/* Sets the outcome and reason of a run that has passed so far. */
void grade_demote(struct run_report *out, enum outcome o, const char *reason);
/* The value of cmd_args key of the run, or NULL. */
const char *grade_arg(const struct plan_run *r, const char *key);
/* Calls fn for each line of text (without "\n", "\r" or an srun --label
 * "N: " prefix, whose task number goes to *task, -1 when none). */
void grade_lines(const char *text, size_t len,
                 void (*fn)(void *ctx, const char *line, size_t n, int task), void *ctx);

/* The mean of v[0..n) (0 when n is 0). */
double grade_mean(const double *v, size_t n);
/* Sorts v[0..n) (n > 0) ascending and returns its median. */
double grade_median(double *v, size_t n);

/* refs.c: grades every value of out that has a reference in test t (on
 * system sys); a miss makes the run perf-failed with the numbers. */
void refs_apply(struct arena *a, const struct plan_test *t, const char *sys, struct run_report *out);

#endif
