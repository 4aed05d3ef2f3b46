/* record.h: what the runner and the reports share: the outcome vocabulary
 * (DESIGN 12), DIR/job.json, the runner's record of one run, and
 * phases/NAME.json, a campaign phase's. */
#ifndef KUNAI_RECORD_H
#define KUNAI_RECORD_H

#include <stdbool.h>
#include <stddef.h>

struct arena;
struct buf;

/* DESIGN 12, plus the states of a run that has no outcome (yet). The order
 * is the order of counts in summary.json and of the summary lines. */
enum outcome {
	OUTCOME_PASSED,
	OUTCOME_FAILED,
	OUTCOME_PERF_FAILED,
	OUTCOME_SUSPECT, /* passed, but a value is far from its peers' (DESIGN 15) */
	OUTCOME_TIMEOUT,
	OUTCOME_CANCELLED,
	OUTCOME_NODE_FAIL,
	OUTCOME_INFRA,
	OUTCOME_SKIPPED,
	OUTCOME_RUNNING, /* job.json without an outcome: submitted, not finished */
	OUTCOME_NOT_RUN, /* no job.json */
	OUTCOME_COUNT
};

/* Returns the name ("perf-failed"); never NULL. */
const char *outcome_name(enum outcome o);
/* Returns false when s names no outcome. */
bool outcome_parse(const char *s, enum outcome *o);
/* failed, perf-failed, suspect, timeout, cancelled, node-fail, infra: the run ended
 * without passing (what makes the runs after it skipped). */
bool outcome_is_failure(enum outcome o);

/* DIR/job.json as the runner writes it and everyone reads it back; absent
 * strings are NULL. A record without an outcome is a job that has not ended
 * (or whose end nobody has seen yet). */
struct job_record {
	const char *dir, *scheduler, *workload, *job_id, *state, *reason;
	const char *submit_time, *start_time, *end_time, *nodes, *host;
	const char *command; /* the options it ran with (DIR included), to adopt a passed run */
	/* util_hash_hex of the job script this attempt started (recorded before
	 * it is submitted): a result, a stamp or a reattachment is only ever
	 * for that script (DESIGN 14) */
	const char *script_hash;
	const char *outcome; /* outcome_name() of the class; NULL: not ended */
	bool has_exit_code, has_signal;
	int exit_code, signal;
	int attempt;
	/* standalone: /proc start time of job_id (clock ticks since boot), so
	 * that a reused pid is not mistaken for the job; 0: unknown */
	long long pid_start;
	/* false: `job start` saw the job end and nobody has turned the result
	 * into a stamp yet; the next `job run` takes it as it is */
	bool collected;
};

/* Appends j as job.json text. Returns false after reporting. */
bool record_job_write(const struct job_record *j, struct buf *out);
/* Reads a job.json (strings in a). Returns 1 when read, 0 when absent, -1
 * when unreadable, not a record or naming an unknown outcome (why says so;
 * nothing is reported). */
int record_job_read(struct arena *a, const char *path, struct job_record *j, struct buf *why);
/* The outcome class of a record that has one; false when it has none. */
bool record_outcome(const struct job_record *j, enum outcome *o);

/* phases/NAME.json: how the campaign's prepare or cleanup phase ended. */
struct phase_record {
	const char *name;    /* prepare, cleanup */
	const char *outcome; /* passed, failed, timeout, interrupted */
	const char *reason;  /* NULL when passed */
	const char *start_time, *end_time;
	bool has_exit_code;
	int exit_code;
};

/* Appends r as phases/NAME.json text. */
void json_write_phase(const struct phase_record *r, struct buf *out);

/* The lines of a job script that write the job's own records, which the
 * runner watches instead of asking the scheduler: at its start
 * RUN_DIR/kunai.start (start=EPOCH, host=, job=), on any exit
 * RUN_DIR/kunai.exit (the status), each atomically (mktemp + mv -T).
 * id_var: the variable with the scheduler's job id (SLURM_JOB_ID,
 * LSB_JOBID). With nodes_var (SLURM_JOB_NODELIST) the exit record also
 * says job=, nodes= and, where the job has a cgroup v2 of its own, its
 * oom_kill= count: enough for a clean exit to be the job's end without a
 * query (see job_slurm.c); without it, the record is the status alone,
 * as Slurm's scripts had it before and LSF's still have. */
void record_script_lines(struct buf *out, const char *id_var, const char *nodes_var);
/* Slurm's id_var and nodes_var: its sbatch scripts' record lines, and
 * whoever reads a script of an earlier kunai back (record_script_swap). */
#define RECORD_SLURM_ID "SLURM_JOB_ID"
#define RECORD_SLURM_NODES "SLURM_JOB_NODELIST"
/* Appends to out text (len bytes) with its record lines of the form
 * without nodes_var replaced by those with it (to_new), or back; false
 * (out untouched) when text does not hold the form to replace exactly
 * once. A script that differs from another only so runs the same job. */
bool record_script_swap(const char *text, size_t len, const char *id_var, const char *nodes_var, bool to_new,
                        struct buf *out);
/* Reads phases/NAME.json. Returns false when absent or invalid. */
bool json_load_phase(struct arena *a, const char *path, struct phase_record *r);

#endif
