/* fleet/fleet.h: the fleet verdict (DESIGN 15): which nodes and GPUs to drain
 * and why, from references where a test has them and from peers where it
 * does not. A value is compared with the same metric of the same test
 * (same test definition, same arguments, same number of nodes, same GPU
 * model) on the campaign's other nodes, or its other GPUs for per-GPU
 * values: an outlier is worse than the median by more than the tolerance
 * and by more than mad_k median absolute deviations, in the direction the
 * metric calls worse. */
#ifndef KUNAI_FLEET_H
#define KUNAI_FLEET_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct buf;
struct metric;
struct plan;
struct summary;

/* Which way is better for a metric. */
enum fleet_dir { FLEET_DIR_NONE, FLEET_DIR_HIGHER, FLEET_DIR_LOWER };

/* The median of v[0..n) (n > 0); sorts v. */
double fleet_median(double *v, size_t n);
/* The median absolute deviation of v[0..n) from med; scratch holds n. */
double fleet_mad(const double *v, size_t n, double med, double *scratch);
/* The MAD of the logarithms of v[0..n) from log(med): the spread as
 * ratios, for values that are all > 0 (else false, *mad untouched). */
bool fleet_log_mad(const double *v, size_t n, double med, double *scratch, double *mad);
/* Is v an outlier against med and mad? With ratio, mad is of the values'
 * logarithms (fleet_log_mad) and v's distance from med is log(med / v).
 * *gap is how much worse than med v is, as a fraction of |med| (0.4: 40%;
 * negative: better). */
bool fleet_outlier(double v, double med, double mad, bool ratio, enum fleet_dir dir, double tolerance,
                   double mad_k, double *gap);
/* The direction of a metric by its unit and name ("GB/s": higher, "us":
 * lower, "count": none), unless the test's [peers] names it. */
enum fleet_dir fleet_direction(const char *name, const char *unit);

/* One metric of one test compared across nodes or GPUs. */
struct fleet_group {
	const char *test;      /* the test definition's name (else the test id) */
	size_t column;         /* its test's column in the nodes x tests view */
	const char *metric, *unit, *gpu_model;
	bool per_gpu;
	enum fleet_dir dir;
	double median, mad;
	bool ratio;               /* mad is of the logarithms (every value > 0) */
	size_t n_values, n_peers; /* values, and distinct nodes (or GPUs) */
	bool compared;            /* n_peers >= the test's min_peers */
	int min_peers;
};

/* A flagged value measured again, side by side with a peer node. */
enum fleet_again {
	FLEET_AGAIN_NONE,       /* measured once */
	FLEET_AGAIN_REPRODUCED, /* again worse than the peer by more than the tolerance */
	FLEET_AGAIN_CLEARED,    /* not again: the first measurement was noise */
	FLEET_AGAIN_FAILED,     /* the run failed again where the peer passed */
	FLEET_AGAIN_UNKNOWN,    /* the peer failed too, or no value came back */
};

/* One compared value. */
struct fleet_value {
	size_t run;             /* index in summary.runs */
	size_t group;           /* index in fleet.groups */
	const struct metric *m;
	const char *node;       /* where: the metric's node, else the run's nodes */
	double ratio;           /* its goodness against the median: 0.6 is 40% worse */
	double gap;             /* fraction worse than the median */
	bool flagged;
	/* measured again beside a peer (again.json): reproduced or not, and
	 * how far worse than the peer then; FLEET_AGAIN_NONE: measured once */
	enum fleet_again again;
	double again_gap;
	const char *again_peer;
};

enum fleet_state { FLEET_HEALTHY, FLEET_INCONCLUSIVE, FLEET_DRAIN };

struct fleet_node {
	const char *name;
	enum fleet_state state;
	const char **why; /* drain or inconclusive reasons, short */
	size_t n_why;
	double worst;     /* lowest ratio of its values (1 when none) */
};

struct fleet {
	struct fleet_group *groups;
	size_t n_groups;
	struct fleet_value *values; /* sorted by group, then node */
	size_t n_values;
	const char **columns; /* one label per test signature (nodes x tests) */
	size_t n_columns;
	struct fleet_node *nodes; /* drained first, then inconclusive, healthy; by name */
	size_t n_nodes, n_drain, n_inconclusive, n_healthy;
	const char **multi; /* multi-node runs that failed or fell short, tied to nodes */
	size_t n_multi;
	const char **notes; /* "not enough peers to compare" per group */
	size_t n_notes;
	bool *flagged_run;  /* per summary run: a peer outlier */
};

/* ROOT/RUN/again.json: a run its peers flagged, measured again beside a
 * run of the same test on a peer node (kunai run's confirmation round). */
struct fleet_again_record {
	const char *job_id;      /* the run's job then: a later job makes it stale */
	const char *node, *peer; /* where each ran again */
	const char *outcome, *peer_outcome;
	const struct metric *values, *peer_values; /* what each measured again */
	size_t n_values, n_peer_values;
};
/* Writes again.json into root/dir. Returns false after reporting. */
bool fleet_again_write(const char *root, const char *dir, const struct fleet_again_record *r);
/* Reads root/dir/again.json. Returns false when there is none (or it is
 * unreadable: then the run counts as measured once). */
bool fleet_again_load(struct arena *a, const char *root, const char *dir, struct fleet_again_record *r);

/* Compares every value of s with its peers under the settings of each
 * test in p, makes the passed runs holding an outlier suspect (with the
 * reason), and derives the verdict per node. f lives in a. */
void fleet_grade(struct arena *a, const struct plan *p, struct summary *s, struct fleet *f);
/* Did peers flag run i of the summary fleet_grade saw (whatever its
 * outcome: a perf-failed run may be an outlier too)? */
bool fleet_run_flagged(const struct fleet *f, size_t run);
/* Appends "Drain: NODE (why), ...; healthy: N nodes; inconclusive: ...". */
void fleet_verdict_line(const struct fleet *f, struct buf *out);
/* Appends the verdict as markdown (summary.md). */
void fleet_markdown(const struct fleet *f, struct buf *out);
/* Appends the JUnit testsuite "fleet verdict": one failing testcase per
 * drained node; nothing when none is drained. */
void fleet_junit(const struct fleet *f, struct buf *out);

#endif
