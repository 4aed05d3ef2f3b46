/* job_sched.h: the schedulers as the runner (job.c) calls them, one
 * section each: submit, wait, find a job a dead driver left, cancel.
 * Each backend uses job_proc.h, job_steps.h and job_poll.h below it. */
#ifndef KUNAI_JOB_SCHED_H
#define KUNAI_JOB_SCHED_H

#include <stdbool.h>

#include "job_state.h"

/* ---- job_standalone.c, job_supervise.c ------------------------------------ */

/* Starts DIR/run.sh as its own session. Returns false (info filled with an
 * infra outcome) when it cannot. */
bool sa_submit(struct job *j);
/* Waits for the start (want_start) or the end of the job in j->info, ours or
 * a reattached one; enforces the time limit. */
enum job_wait sa_wait(struct job *j, bool want_start);
/* Ends the job's process group (TERM, then KILL after the grace), then
 * waits for it; info gets state (CANCELLED for a signal). */
void sa_cancel(struct job *j);
/* In the child kunai job forked for a standalone run: becomes the job's
 * session, runs DIR/run.sh, enforces j->time_limit (TERM, KILL grace_s
 * later), ends every process the job left, writes kunai.start and
 * kunai.exit; exits with the script's status (128+signal when killed). */
void job_supervise(struct job *j, long grace_s) __attribute__((noreturn));

/* ---- job_slurm.c, job_slurm_parse.c, job_single.c, job_nodes.c ------------ */

/* sbatch --parsable from DIR; retries transient errors. Returns false with
 * an infra outcome in info when it fails; *retryable says whether another
 * attempt could succeed (limits, not a bad script). */
bool slurm_submit(struct job *j, bool *retryable);
enum job_wait slurm_wait(struct job *j, bool want_start);
/* A driver killed between sbatch and job.json left a job behind: looks
 * for the live job of this run (its name and --comment) and, when there is
 * one, puts its id and state in j->info. Returns whether it found one. */
bool slurm_find_submitted(struct job *j);
/* scancel the job (retrying transient errors). */
void slurm_cancel(struct job *j);
/* job_single.c (--single-sbatch): queues the run for the scenario's one
 * allocation, submitting the allocation when none is alive; false after
 * reporting. */
bool single_submit(struct job *j, bool *retryable);
/* Waits for the run's own start or exit record, watching the allocation. */
enum job_wait single_wait(struct job *j, bool want_start);
/* Runs argv (argv[0] from PATH) in dir, retrying the errors transient()
 * calls transient up to tries times with growing pauses; a signal ends the
 * retries unless cleanup. Returns its exit status (-1 when it cannot run). */
int job_cmd_retry(struct job *j, char *const argv[], const char *dir, int tries, bool cleanup, struct buf *out,
                  struct buf *err, bool (*transient)(const char *err));
/* Runs a Slurm command (argv[0] from PATH) in dir, retrying transient errors
 * up to tries times with growing pauses; a signal ends the retries unless
 * cleanup. Returns its exit status (-1 when it cannot run). */
int slurm_cmd(struct job *j, char *const argv[], const char *dir, int tries, bool cleanup, struct buf *out,
              struct buf *err);
/* Removes this waiter's registration under .kunai/waiting; frees its state. */
void slurm_release(struct job *j);
/* slurm: for the job's node groups, the nodes to submit to (idle first,
 * from sinfo): appends "a,b,c" to nodelist and sets *count; false with
 * j->info.reason set when a group has too few usable nodes. */
bool slurm_choose_nodes(struct job *j, struct buf *nodelist, int *count);

/* ---- job_k8s.c ------------------------------------------------------------ */

/* kubectl create of the run's k8s.json (labelled, renamed: k8s.applied.json);
 * as slurm_submit. */
bool k8s_submit(struct job *j, bool *retryable);
enum job_wait k8s_wait(struct job *j, bool want_start);
/* The live object of this run and attempt (by label), after a driver died
 * between kubectl create and job.json. */
bool k8s_find_submitted(struct job *j);
/* Collects the pods' logs and deletes the object; info gets CANCELLED. */
void k8s_cancel(struct job *j);

/* ---- job_lsf.c ------------------------------------------------------------ */

/* bsub < bsub_script.sh from DIR (-Jd names the run dir); as slurm_submit.
 * The wait is slurm_wait's. */
bool lsf_submit(struct job *j, bool *retryable);
/* The live job of this run (its -J name and -Jd description) after a
 * driver died between bsub and job.json. */
bool lsf_find_submitted(struct job *j);
void lsf_cancel(struct job *j);
/* bjobs of this one job: 1 with its row in r, 0 not known or not asked. */
int lsf_ask(struct job *j, struct slurm_row *r);

/* ---- job_runai.c, job_runai_wait.c ---------------------------------------- */

/* POST of the run's runai.json as a training (named for the run and attempt:
 * runai.applied.json); as slurm_submit. */
bool runai_submit(struct job *j, bool *retryable);
enum job_wait runai_wait(struct job *j, bool want_start);
/* The live training of this run and attempt (by name), after a driver died
 * between the POST and job.json. */
bool runai_find_submitted(struct job *j);
/* Stores the logs, deletes the training; info gets CANCELLED. */
void runai_cancel(struct job *j);
/* Wipes and frees the secret and the token. */
void runai_release(struct job *j);

/* ---- the backends' parsers, exposed for tests/unit/job_test.c ------------- */

/* One line of `scontrol -o show job`. */
bool slurm_parse_scontrol(const char *line, struct slurm_row *r);
/* Whether rec, a kunai.exit record, is the clean end of job job_id: the
 * script's EXIT trap wrote it (it names the job), its status is 0 and the
 * job's cgroup saw no OOM kill. Such a record is the job's result with no
 * query (DESIGN 9); any other waits for the scheduler's word. */
bool slurm_record_clean(const char *rec, const char *job_id);
/* Whether sbatch stderr is a submit limit (retry later as a new attempt). */
bool slurm_limit_error(const char *err);
/* One line of `bjobs -noheader -o "jobid stat exit_code exec_host
 * exit_reason delimiter='|'"`, its stat as the Slurm state of the same
 * meaning (the table in job_lsf.c). */
bool lsf_parse_bjobs(const char *line, struct slurm_row *r);
/* Whether LSF's stderr says mbatchd was briefly out of reach. */
bool lsf_transient(const char *err);

#endif
