/* wl.h: what every kunai workload program shares: the result convention
 * (a human log with a [TAG] prefix, one JSON line, and a last line
 * `[RESULT] SUCCESS` / `[RESULT] FAILURE: why` / `[RESULT] SKIPPED: why`
 * with exit status 0 / 1 / 0), its flags as one table (wl_parse: --help,
 * the usage errors), a clock, a seeded RNG, and nccl-tests' row format for
 * the collective benchmarks. */
#ifndef KUNAI_WL_H
#define KUNAI_WL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

/* Exit status of a usage error (bad flag or value). */
#define WL_EXIT_USAGE 2

struct wl {
	const char *name; /* "gemm": the JSON's "workload" */
	const char *tag;  /* "[GEMM]": the prefix of log lines */
	bool quiet;       /* MPI ranks other than 0 print nothing but errors */
	cJSON *json;      /* the result object (workload, result, reason, ...) */
	cJSON *failures;  /* array of failure reasons, in order */
	char *skipped;    /* reason, when the run was skipped */
};

/* Starts a result; never fails (dies on OOM). */
void wl_init(struct wl *w, const char *name, const char *tag);
/* Prints "[TAG] message" on stdout (nothing when quiet). */
void wl_log(struct wl *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records a failure reason and logs it; the run ends as FAILURE. */
void wl_fail(struct wl *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Records why the run is skipped (kept only if nothing failed). */
void wl_skip(struct wl *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Returns whether a failure has been recorded. */
bool wl_failed(const struct wl *w);
/* Prints the JSON line and the [RESULT] line (unless quiet), frees the
 * result, and returns the exit status: 0 success or skipped, 1 failure. */
int wl_finish(struct wl *w);
/* Frees the result without printing it (after --help). */
void wl_free(struct wl *w);
/* A usage error: "NAME: message" and the hint on stderr, the FAILURE line
 * on stdout; returns WL_EXIT_USAGE. */
int wl_usage_error(struct wl *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A program's flags, one table for wl_parse. */
enum wl_kind {
	WL_SET,    /* a switch: *(bool *)dst = true */
	WL_LONG,   /* *(long *)dst, an integer in [lo, hi] */
	WL_DOUBLE, /* *(double *)dst, a number in [lo, hi] */
	WL_SIZE,   /* *(size_t *)dst, a byte count (wl_parse_size) of at least lo */
	WL_STRING, /* *(const char **)dst, the value itself; lo 1: not empty */
	WL_CALL,   /* call(value, dst) says whether the value is good */
};
struct wl_flag {
	const char *s, *l; /* "-n" (or NULL) and "--iters" */
	enum wl_kind kind;
	void *dst;
	double lo, hi;
	/* A bad value is "NAME 'V': BAD" (NULL: the kind's "expected an integer
	 * from LO to HI", "expected a number from LO to HI", "expected a byte
	 * count like 8, 1K, 32M"), a missing one "NAME needs a value"; with
	 * need, either is "NAME NEED". NAME is the name as typed, -n or --iters. */
	const char *bad, *need;
	bool (*call)(const char *v, void *dst);
};
/* Parses argv[1..argc) against flags[0..n): returns 0 when every argument
 * is one of them, -1 after --help or -h (usage printed on stdout unless
 * quiet), and WL_EXIT_USAGE after a usage error (wl_usage_error: unknown
 * option, missing or bad value). After -1 or WL_EXIT_USAGE w is freed. */
int wl_parse(struct wl *w, int argc, char **argv, const struct wl_flag *flags, size_t n, const char *usage);

/* Flags: returns whether argv[*i] is --name, as "--name V" or "--name=V";
 * *val gets V (advancing *i past a separate one), or NULL when it is
 * missing. */
bool wl_opt(char **argv, int argc, int *i, const char *name, const char **val);
/* Whole-string conversions; false when s is not a number in [min, max]. */
bool wl_parse_long(const char *s, long min, long max, long *out);
bool wl_parse_double(const char *s, double min, double max, double *out);
/* A byte count with an optional K, M or G suffix (powers of 1024). */
bool wl_parse_size(const char *s, size_t *out);

/* Seconds on a monotonic clock. */
double wl_now(void);
/* The median of v[0..n) (sorts v); 0 when n is 0. */
double wl_median(double *v, size_t n);

/* splitmix64: a seeded, portable generator, so every platform draws the
 * same data set from the same seed. */
uint64_t wl_rng_next(uint64_t *state);
/* Uniform in [0, 1). */
double wl_rng_uniform(uint64_t *state);
/* Standard normal (Box-Muller). */
double wl_rng_normal(uint64_t *state);

/* nccl-tests' text format (../shared/WORKLOADS.md 1.1), so one parser reads
 * the real all_reduce_perf and kunai's own collectives. */
struct wl_half {
	double time_us, algbw, busbw;
	long wrong; /* < 0 prints N/A (no check) */
};
/* The "# size count type ..." header for halves (1: one timing, 2:
 * out-of-place then in-place). */
void wl_coll_header(int halves);
/* One result row. */
void wl_coll_row(size_t bytes, size_t count, const char *type, const char *redop, int root,
                 const struct wl_half *h, int halves);
/* "# Out of bounds values : N OK|FAILED" and "# Avg bus bandwidth : X". */
void wl_coll_footer(long wrong_tests, double avg_busbw);

#endif
