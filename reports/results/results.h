/* results/results.h: what a campaign's results are, the types every room
 * of reports/ shares: the plan (kunai.json's tests and runs, with their
 * references and peers), a measured value (metric), one graded run
 * (report.json) and the summary (summary.json). Data only: the code that
 * reads, grades, judges and writes them lives in the rooms above. */
#ifndef KUNAI_RESULTS_H
#define KUNAI_RESULTS_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/base/record.h"

struct fleet;

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
 * scenario's, else the defaults (results/plan.c). */
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
	/* read from a results dir of CloudAI's (no kunai.json, no job.json):
	 * runs are graded from their output, exit code and nodes unknown */
	bool cloudai;
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
	struct fleet *fleet;  /* the verdict (fleet/fleet.h); NULL: none computed */
	const char *verdict;  /* its line, as summary.json holds it; NULL: none */
	size_t n_drain;       /* nodes to drain */
	const char *root;     /* the build dir, where the verdict finds again.json; NULL: none */
};

#endif
