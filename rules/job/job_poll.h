/* job_poll.h: job_poll.c, the build dir's one poller that every waiting
 * `kunai job` shares, and each scheduler's query and parsers that it calls
 * (defined in job_slurm.c, job_slurm_parse.c, job_k8s.c, job_lsf.c,
 * job_runai.c). */
#ifndef KUNAI_JOB_POLL_H
#define KUNAI_JOB_POLL_H

#include <stdbool.h>
#include <stddef.h>

#include "job_state.h"

/* Registers j's job with the build dir's poller; false after reporting. */
bool poll_register(struct job *j);
void poll_unregister(struct job *j);
/* The start of a wait on the poller (k8s, RunAI): j registered (a warning
 * naming "WHAT<job id>" where it cannot be); returns j's submit time, now
 * where its record has none. */
double poll_begin(struct job *j, const char *what);
/* How long after the last query a waiter whose job wrote its exit record
 * has the next one run, after MISSES queries since its record that did not
 * end its wait: 500 ms (the first two: a job still in its epilog), then
 * doubling up to 16 s (a requeued job, an unreachable scheduler). */
long poll_urgent_ms(int misses);
/* j's job in the last poll: 1 found (r filled; *when the poll's time), 0 the
 * scheduler did not know it, -1 not asked about, -2 no poll yet. */
int poll_lookup(struct job *j, struct slurm_row *r, double *when);
/* Runs the build dir's query when it is due, or when URGENT_MS (> 0: a job
 * with an exit record, poll_urgent_ms) have passed since the last one, and
 * no other waiter is running it. */
void poll_maybe(struct job *j, long urgent_ms);
/* poll_unregister, and frees what j->watch holds. */
void poll_release(struct job *j);

/* ---- the queries, one per scheduler ---------------------------------------- */

/* The poller's query (job_poll.c): rows for ids into rows; false when the
 * API server could not be asked. */
bool k8s_query(struct job *j, char *const *ids, size_t n, struct buf *rows);
/* The poller's query: one bjobs for ids; false when LSF could not be asked. */
bool lsf_query(struct job *j, char *const *ids, size_t n, struct buf *rows);
/* The poller's query: one workload listing for ids; false when the API
 * could not be asked. */
bool runai_query(struct job *j, char *const *ids, size_t n, struct buf *rows);
/* Appends r to out as a line of poll.state (sacct's -P layout, reason last). */
void poll_row_line(struct buf *out, const struct slurm_row *r);
/* Copies len bytes of s into a row's field dst of size n, cut to fit and
 * NUL-ended (every scheduler's parser fills a slurm_row with it). */
void row_field(char *dst, size_t n, const char *s, size_t len);
/* Splits line into its n fields separated by '|' (f[i], len[i]: each up to
 * '|', a newline or the end). Returns where the last one ends, NULL when
 * the line has fewer fields. */
const char *row_split(const char *line, const char **f, size_t *len, size_t n);
/* One line of `sacct -X -n -P -o JobID,State,ExitCode,Submit,Start,End,NodeList`. */
bool slurm_parse_sacct(const char *line, struct slurm_row *r);
/* One line of `squeue -h -t all -O` with SQUEUE_FIELDS (exit_code is a wait status). */
#define SQUEUE_FIELDS "JobID:|,State:|,exit_code:|,SubmitTime:|,StartTime:|,EndTime:|,NodeList:"
bool slurm_parse_squeue(const char *line, struct slurm_row *r);
/* Whether sbatch/squeue/sacct stderr says the controller was briefly out
 * of reach (worth retrying the same command). */
bool slurm_transient(const char *err);

#endif
