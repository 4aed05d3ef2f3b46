/* report.h: results of runs, shared by kunai grade, report, status and run:
 * outcome classes, what the runner recorded (job.json), graded reports
 * (report.json) and the campaign's run list as kunai.json holds it. */
#ifndef KUNAI_REPORT_H
#define KUNAI_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/base/record.h"

struct arena;
struct buf;
struct file_out;
struct fleet;

/* `kunai grade`, `kunai report`, `kunai status`: each returns the process
 * exit status: 0, 1 (bad input/I-O), 2 (usage). */
int cmd_grade(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_status(int argc, char **argv);

enum plan_dep_type {
	PLAN_AFTER_COMP,  /* start_post_comp */
	PLAN_AFTER_START, /* start_post_init */
	PLAN_STOP_WITH,   /* end_post_comp: no start condition */
};

struct plan_dep {
	enum plan_dep_type type;
	size_t test; /* index in plan.tests */
};

/* A reference (ReFrame's model): value, lower and upper tolerance as
 * fractions of it (-0.1: 10% below; -inf/inf: unbounded), unit; scope is
 * NULL for every system, else a system name or (a part of) a GPU model. */
struct plan_ref {
	const char *scope, *metric, *unit;
	double value, lower, upper;
	/* sized: only for values measured at a message size (x in bytes) in
	 * [min_size, max_size] (min_size/max_size set) */
	bool sized;
	double min_size, max_size;
};

/* [peers] of a test as it applies (DESIGN 15): the test's keys, else the
 * scenario's, else the defaults (fleet_json.c). */
struct plan_peers {
	bool enabled;
	double tolerance, mad_k;
	int min_peers;
	/* NULL-terminated; metrics NULL: every value with a direction */
	const char **metrics, **higher, **lower;
};

struct plan_test {
	const char *id;
	const char *workload; /* test_template_name; NULL if kunai.json lacks it */
	struct plan_dep *deps;
	size_t n_deps;
	size_t *runs; /* indices in plan.runs, in order */
	size_t n_runs;
	struct plan_ref *refs; /* [references] of the test definition */
	size_t n_refs;
	const char *name;        /* the test definition's name; NULL if kunai.json lacks it */
	struct plan_peers peers; /* how its values meet their peers */
};

struct plan_arg {
	const char *key, *value;
};

struct plan_run {
	const char *dir, *id;
	int iteration; /* from 0 */
	int step;      /* sweep point from 1; 0: no sweep */
	size_t test;   /* index in plan.tests */
	struct plan_arg *args; /* resolved cmd_args as given */
	size_t n_args;
};

/* The part of kunai.json that results are read against. */
struct plan {
	const char *scenario;
	const char *scheduler;
	const char *system; /* the system's name */
	struct plan_test *tests;
	size_t n_tests;
	struct plan_run *runs;
	size_t n_runs;
	const char **presets; /* the preset chain gen applied, in order */
	size_t n_presets;
};

/* How a value compares with its reference. */
enum metric_check { CHECK_NONE, CHECK_OK, CHECK_LOW, CHECK_HIGH };

/* One measured value and where it was measured. */
struct metric {
	const char *name;
	double value;
	const char *unit;      /* "GB/s", "TFLOP/s", "s", "B", "count", ... */
	const char *node;      /* NULL: unknown, or the whole run */
	int gpu;               /* GPU index on the node; -1: not one GPU */
	const char *gpu_model; /* "cpu" on the CPU path; NULL: unknown */
	double x;              /* the x of a series (x_name: "bytes", "epoch"); < 0: none */
	const char *x_name;
	enum metric_check check;
	const struct plan_ref *ref; /* when check != CHECK_NONE */
};

/* DIR/report.json: one graded run. */
struct run_report {
	const char *dir, *id;
	int iteration, step;
	enum outcome outcome;
	const char *reason; /* NULL when passed */
	bool has_exit_code;
	int exit_code;
	const char *job_id, *start_time, *end_time;
	/* the runner's record before grading: the scheduler's last state
	 * ("COMPLETED", "EXITED") and the outcome it gave ("passed"); NULL: none */
	const char *job_state, *job_outcome;
	double duration_s; /* < 0: unknown */
	const char *workload; /* test_template_name */
	/* the version of the grading that made it (grade_version); NULL: a
	 * report.json of a kunai that did not record one */
	const char *grader;
	const char *path;     /* "gpu", "cpu" or NULL (no GPU question) */
	const char *nodes;    /* where it ran, comma-separated; NULL unknown */
	bool ran_skipped;     /* the program ran and reported SKIPPED */
	const char *run_dir;  /* the run dir as graders open it (root/dir); not in report.json */
	struct metric *metrics;
	size_t n_metrics, cap_metrics;
};

/* report/summary.json. */
struct summary {
	const char *scenario, *system, *date;
	/* what "passed" means here, when it is less than it sounds: the CPU
	 * path was used, no performance reference was checked (summary_note);
	 * NULL: nothing to say */
	const char *note;
	size_t counts[OUTCOME_COUNT];
	struct run_report *runs;
	size_t n_runs;
	struct fleet *fleet;  /* the verdict (reports/fleet.h); NULL: none computed */
	const char *verdict;  /* its line, as summary.json holds it; NULL: none */
	size_t n_drain;       /* nodes to drain */
	const char *root;     /* the build dir, where the verdict finds again.json; NULL: none */
};

/* ---- json_report.c: the JSON side (cJSON) ---------------------------------- */

/* Reads kunai.json. Returns false after reporting "path: error". */
bool json_load_plan(struct arena *a, const char *path, struct plan *p);
/* Reads a report.json. Returns false when absent or invalid (why in why). */
bool json_load_report(struct arena *a, const char *path, struct run_report *r, struct buf *why);
/* json_load_report, or (series false) all of it but the values that are
 * one point of a series, whose text is then not even parsed. */
bool json_load_values(struct arena *a, const char *path, struct run_report *r, struct buf *why, bool series);
/* Appends r as report.json text. */
void json_write_report(const struct run_report *r, struct buf *out);
/* Appends s as summary.json text. */
void json_write_summary(const struct summary *s, struct file_out *o);
/* Reads summary.json back. Returns false after reporting. */
bool json_load_summary(struct arena *a, const char *path, struct summary *s);

/* ---- grade.c --------------------------------------------------------------- */

/* Grades run r of p from what root/<r.dir> holds: job.json and, when
 * check_output, stdout.txt against the workload's success markers and its
 * grader (metrics, thresholds). Never fails: whatever is missing or corrupt
 * becomes the outcome and its reason. */
void grade_run(struct arena *a, const char *root, const struct plan *p, const struct plan_run *r,
               bool check_output, struct run_report *out);
/* grade_run with the check, then writes the report to target (the run's
 * report.json). Returns false after reporting a write error. */
bool grade_write(struct arena *a, const char *root, const struct plan *p, const struct plan_run *r,
                 const char *target, struct run_report *out);
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

/* ---- grade_nccl.c: nccl-tests output ----------------------------------------- */

struct nccl_result {
	size_t rows;         /* result rows read */
	double max_busbw;    /* GB/s, over both halves of every row */
	double max_busbw_size; /* bytes of the row holding max_busbw */
	double avg_busbw;    /* the footer's, else the mean of every busbw read */
	bool footer_avg;     /* avg_busbw came from "# Avg bus bandwidth" */
	long wrong;          /* sum of the #wrong columns (N/A counts 0) */
	bool has_oob;
	long oob;            /* "# Out of bounds values : N" */
};

/* One result row: out-of-place [0] and in-place [1] halves. */
struct nccl_row {
	double size; /* bytes */
	double time_us[2], algbw[2], busbw[2];
	bool ok[2];
};

/* "# Rank N ... on HOST device D [bus] MODEL". */
struct nccl_rank {
	int rank, device;
	const char *host, *model;
};

struct nccl_detail {
	struct nccl_row *rows;
	size_t n_rows, cap_rows;
	struct nccl_rank *ranks;
	size_t n_ranks, cap_ranks;
};

/* Parses nccl-tests' text output. Returns false when it holds no result row
 * and no footer. */
bool nccl_parse(const char *text, size_t len, struct nccl_result *out);
/* nccl_parse, and (d not NULL) every row and rank line, in a. */
bool nccl_parse_detail(struct arena *a, const char *text, size_t len, struct nccl_result *out,
                       struct nccl_detail *d);

/* ---- grade/fio.c: fio output ------------------------------------------------- */

struct fio_op {
	const char *name; /* "read", "write" or "trim" (static) */
	double iops;
	double bw_mib;   /* MiB/s */
	double lat_usec; /* average ("lat", else "clat"); < 0: none */
	double p50_usec, p99_usec, p999_usec; /* completion latency percentiles; < 0: none */
};

/* Parses fio's text output into at most max per-operation summaries, in
 * the order printed. Returns how many it found. */
size_t fio_parse(const char *text, size_t len, struct fio_op *ops, size_t max);

/* ---- grade_train.c: training logs ------------------------------------------- */

enum train_log {
	TRAIN_NEMO_LAUNCHER, /* "train_step_timing in s: [t1, t2, ...]" */
	TRAIN_NEMO_RUN,      /* one "train_step_timing in s: t" per step */
	TRAIN_MBRIDGE,       /* "Step Time : t s ... GPU utilization: f TFLOP/s/GPU" */
	TRAIN_MEGATRON,      /* "elapsed time per iteration (ms): t ... (TFLOP/s/GPU): f" */
};

struct train_result {
	size_t steps;          /* step times read */
	double step_time;      /* seconds, over the steps CloudAI counts */
	double tflops_per_gpu; /* mean over the same steps */
	double loss;           /* the last one logged */
	bool has_step_time, has_tflops, has_loss;
};

/* Reads a training log. Returns false when it holds no step time and no loss. */
bool train_parse(enum train_log kind, const char *text, size_t len, struct train_result *out);

/* ---- report.c ---------------------------------------------------------------- */

/* Marks each not-run run whose start condition can no longer hold (its
 * previous iteration or a start_post_comp/start_post_init target did not
 * pass) as skipped, with the reason. reports[i] belongs to p->runs[i]. */
void report_mark_skipped(struct arena *a, const struct plan *p, struct run_report *reports);

/* Did every run pass (or run and skip, as health does without GPUs)? */
bool summary_all_ok(const struct summary *s);
/* Appends whether the runs measured GPUs or the CPU path. */
void summary_paths(const struct summary *s, struct buf *out);
/* Appends what a pass means in s when it is less than it sounds: "CPU
 * path: no GPU was used", "passed = ran and gave correct results; no
 * performance reference was checked" (or how many passed runs had none),
 * joined by "; "; nothing when every pass was on GPUs against a reference.
 * Reads the runs' values (references checked), so call it on the graded
 * reports, before their series are dropped. */
void summary_note(const struct summary *s, struct buf *out);

/* ---- report_junit.c ---------------------------------------------------------- */

/* Writes the JUnit XML of s through o (one testsuite per test id, in plan
 * order); the runs' stdout/stderr tails are read from root/<dir>/. */
void junit_write(const char *root, const struct plan *p, const struct summary *s, struct file_out *o);
/* Appends s escaped for XML text (attr false) or a "..." attribute value:
 * markup characters as entities, control characters other than tab and
 * newline dropped (those two as character references in attributes), and
 * bytes that are not UTF-8 as U+FFFD, so that any input gives valid XML. */
void xml_escape(struct buf *out, const char *s, size_t len, bool attr);
/* Appends the last n lines of the file at path (at most max bytes of them);
 * appends nothing when it cannot be read. */
void tail_lines(const char *path, size_t n, size_t max, struct buf *out);

#endif
