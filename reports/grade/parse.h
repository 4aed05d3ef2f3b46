/* grade/parse.h: the parsers of programs' output that graders share with
 * the tests: nccl-tests' text (nccl_parse.c), fio's (fio.c) and the
 * training frameworks' logs (train.c). */
#ifndef KUNAI_PARSE_H
#define KUNAI_PARSE_H

#include <stdbool.h>
#include <stddef.h>

struct arena;

/* ---- nccl_parse.c: nccl-tests output ---- */

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

/* ---- fio.c: fio output ---- */

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

/* ---- train.c: training logs ---- */

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

#endif
