/* job_proc.h: job_proc.c, what the runner needs from the operating
 * system (clocks, signals, /proc, helper commands, record files) and the
 * run dir's paths and job.json. The bottom of rules/job: it calls nothing
 * of the files above it. */
#ifndef KUNAI_JOB_PROC_H
#define KUNAI_JOB_PROC_H

#include <stdbool.h>

#include "job_state.h"

/* Writes j->info to DIR/job.json (atomically). Returns false after reporting. */
bool job_save(struct job *j);
/* A refused submission's whole answer, in the run dir's file name (sbatch.txt,
 * bsub.txt, kubectl.txt, runai.txt; archived with job.json): "# " head (the
 * command line or request and its status), then what it said, then out
 * (a command's stdout) under a line of its own. NULL or empty parts are
 * left out. Written atomically, never through a link. */
void job_keep_answer(struct job *j, const char *name, const char *head, const struct buf *said, const struct buf *out);
/* argv as one line, words joined by spaces, in a. */
const char *job_argv_line(struct arena *a, char *const argv[]);
/* Returns j->dir/name in b (reset first). */
const char *job_path(struct job *j, struct buf *b, const char *name);
/* The run's script in its dir, as gen names it for the scheduler. */
const char *job_script_name(const struct job *j);
/* Whether path exists. */
bool job_exists(const char *path);
/* A non-negative whole number (of seconds) from the environment variable
 * name; def when it is unset, empty or not one. */
long job_env_seconds(const char *name, long def);
/* Wall clock and monotonic clock in seconds. */
double job_now(void);
double job_mono(void);
/* "2024-05-01T12:00:00Z" for epoch t, allocated in a. */
const char *job_iso(struct arena *a, double t);
/* Parses job_iso's format back; false when s is not one. */
bool job_iso_parse(const char *s, double *epoch);
/* Parses Slurm's local "YYYY-MM-DDTHH:MM:SS"; false for Unknown/None. */
bool job_slurm_time(const char *s, double *epoch);
/* Sleeps up to ms, returning early with the signal taken from j->sigs
 * (SIGCHLD included); INT/TERM/HUP also set j->signo. Returns 0 on timeout. */
int job_sleep(struct job *j, long ms);
/* Blocks the signals kunai job waits for; returns false after reporting. */
bool job_signals_init(struct job *j);
/* Unblocks them again in a child before exec. */
void job_signals_child(const struct job *j);
/* Start time of pid from /proc (clock ticks since boot), -1 when gone; *zombie
 * says whether it has exited and waits to be reaped. */
long long job_proc_start(long pid, bool *zombie);
/* Runs argv (argv[0] searched in PATH) in dir (NULL: here) in its own
 * process group, with stdin from /dev/null; captures stdout and stderr.
 * Returns the exit status (128+signal when killed), -1 after reporting when
 * it cannot run. */
int job_capture(struct job *j, char *const argv[], const char *dir, struct buf *out, struct buf *err);
/* job_capture for a long command: killed after limit_s, or at once when a
 * signal comes (j->signo set; returns -1 then). */
int job_capture_long(struct job *j, char *const argv[], struct buf *out, struct buf *err, long limit_s);
/* Reads the file at path into b (reset first), quietly; false when it
 * cannot be read or is empty. */
bool job_slurp(const char *path, struct buf *b);
/* Reads a small record file (kunai.start, kunai.exit) into b; false when it
 * does not exist (or is empty). */
bool job_read_record(struct job *j, const char *name, struct buf *b);
/* The value of "key=" in a kunai.start record, or NULL; points into rec. */
const char *job_record_field(const char *rec, const char *key, size_t *len);
/* Whether the process pid (with /proc start time st) is this driver's
 * ninja or `kunai run`: returns the driver pid (0 when there is none). */
long job_driver(long long *start);

#endif
