/* job.h: `kunai job`, the runner behind `ninja run` (job.c: job.json,
 * outcomes, attempts, locks; job_args.c: flags; job_standalone.c: local process groups;
 * job_slurm.c: sbatch, the batched poller, final states; job_k8s.c,
 * job_k8s_state.c: kubectl create/get/logs/delete; job_proc.c:
 * processes, clocks, signals, records). */
#ifndef KUNAI_JOB_H
#define KUNAI_JOB_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "gen/base/record.h"
#include "gen/base/util.h"

struct slurm_row;
struct cJSON;
struct slurm_watch;
struct runai;

enum job_sched {
	JOB_STANDALONE,
	JOB_SLURM,
	JOB_KUBERNETES,
	JOB_LSF,
	JOB_RUNAI,
};

struct job_after {
	const char *dir;
	long delay;
};

/* What one `kunai job` invocation knows; passed everywhere, never global. */
struct job {
	/* options */
	enum job_sched sched;
	bool start_only; /* `job start`: return once the job has started */
	const char *dir;
	const char *workload;
	long time_limit; /* seconds; 0: none */
	struct job_after *after;
	size_t n_after, cap_after;
	const char **stop_with;
	size_t n_stop, cap_stop;
	/* slurm: PARTITION:GROUP:N:MEMBERS specs, whose nodes are chosen when
	 * the job is submitted (job_nodes.c), and the node lists beside them */
	const char **node_groups;
	size_t n_node_groups, cap_node_groups;
	const char *also_nodes, *exclude_nodes;
	long delay;
	int retries;
	long retry_delay_s;  /* before the first retry; doubled for each next one */
	long poll_max_ms;    /* cap of the scheduler poll interval */
	long trust_record_s; /* slurm: an exit record unconfirmed this long is the end */
	const char *command; /* the options, as job.json records them */
	const char *single;  /* slurm: the allocation's batch script (--single-sbatch), or NULL */

	/* state */
	struct arena arena;
	struct job_record info; /* what DIR/job.json says (strings in arena) */
	bool have_info;
	double t0;           /* wall clock when this invocation began */
	sigset_t sigs;       /* blocked; taken with sigtimedwait */
	int signo;           /* SIGINT/SIGTERM/SIGHUP received, else 0 */
	bool stopping;       /* --stop-with condition met, job being ended */
	const char *stopped_by;
	double stop_checked; /* monotonic time of the last --stop-with check */
	long child;          /* standalone: our child's pid, 0 when not ours */
	struct slurm_watch *watch; /* slurm, kubernetes: this waiter's view of the poller */
	/* kubernetes (job_k8s.c), from kunai.json and k8s.json */
	const char *kubeconfig, *k8s_namespace, *k8s_build, *k8s_kind, *k8s_run, *k8s_install;
	long poll_min_ms; /* the poll interval's floor: the system's monitor_interval; 0: 2 s */
	/* runai (job_runai.c), from kunai.json and --system-config */
	const char *system_config;
	struct runai *runai;
};

/* `kunai job run|start`: returns the process exit status (0 passed, 1 not,
 * 2 usage). */
int cmd_job(int argc, char **argv);
/* `kunai phase phases/NAME.stamp`: runs the campaign phase NAME (rules/job/phase.c);
 * returns the exit status. */
int cmd_phase(int argc, char **argv);
/* `kunai installable install|uninstall`: one install edge of build.ninja
 * (rules/job/install.c); returns the exit status. */
int cmd_installable(int argc, char **argv);

/* How a wait ended. */
enum job_wait {
	JOB_WAIT_STARTED,     /* want_start and the job is running */
	JOB_WAIT_ENDED,       /* final state in j->info */
	JOB_WAIT_INTERRUPTED, /* j->signo set: the caller cancels */
	JOB_WAIT_STOP,        /* --stop-with met: the caller ends the job and waits on */
};

/* ---- job_outcome.c --------------------------------------------------------------- */

/* The outcome class of a scheduler state (Slurm's, or standalone's EXITED,
 * SIGNALED, TIMEOUT, CANCELLED, LOST) with its exit code; *terminal false
 * when the job has not ended (the returned class is then meaningless). */
enum outcome job_state_outcome(const char *state, int exit_code, bool *terminal);
/* Returns whether outcome o may be retried (infrastructure, not the test). */
bool job_outcome_retryable(enum outcome o);
/* Sets j->info.outcome and reason for the ended job in j->info (the
 * workload's success check included) and returns the class. */
enum outcome job_classify(struct job *j);

/* ---- job_cause.c ------------------------------------------------------------- */

/* The cause of a run that ended in outcome o, from the known failure
 * signatures in its stderr.txt and stdout.txt, with the line that showed
 * it ("srun has no --container-image: pyxis is not installed ...
 * [stderr.txt: ...]"); NULL when none is known (or o already says it). */
const char *job_cause_output(struct job *j, enum outcome o);
/* "configuration error: ..." naming the TOML field when sbatch's error text
 * err refuses a setting (partition, gres, account, QoS, limits); NULL when
 * it is no configuration error. */
const char *job_cause_submit(struct job *j, const char *err);

/* ---- job.c ------------------------------------------------------------------- */

/* Writes j->info to DIR/job.json (atomically). Returns false after reporting. */
bool job_save(struct job *j);
/* Returns j->dir/name in b (reset first). */
const char *job_path(struct job *j, struct buf *b, const char *name);
/* The run's script in its dir, as gen names it for the scheduler. */
const char *job_script_name(const struct job *j);

/* ---- job_args.c ---------------------------------------------------------- */

/* Fills j's options from the defaults, the environment, DIR's #KUNAI lines
 * and argv, in that order. Returns 0, or 2 after reporting a usage error. */
int job_parse(struct job *j, int argc, char **argv);

/* ---- job_deps.c -------------------------------------------------------------- */

/* Waits for --after-start and --delay before a new submission. Returns false
 * when a signal came first. */
bool job_pre_waits(struct job *j);
/* Returns whether the run's --stop-with condition holds now (checked at most
 * once a second); sets j->stopped_by. */
bool job_stop_due(struct job *j);

/* ---- job_proc.c ------------------------------------------------------------ */

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

/* ---- job_plain.c ------------------------------------------------------------ */
/* A standalone run.sh that needs no bash: what it execs and exports. */
struct job_plain {
	const char *env_vars; /* env_vars.sh's text, NULL when unreadable */
	struct buf words;     /* the command's words, each with its NUL */
	size_t nword;
	struct buf exports;   /* NAME=VALUE of its exports in order, each with its NUL */
	size_t nexport;
	bool redirect;        /* exec >stdout.txt 2>stderr.txt */
	unsigned commands;    /* lines run before the exec */
	unsigned assigns;     /* the path variables it assigns (a bit each) */
};
/* Whether script (run.sh's text) is one bash is not needed for, given
 * env_vars (env_vars.sh's text, or NULL): fills p (job_plain_free frees
 * it) and returns true; else false, with nothing to free. */
bool job_plain_parse(const char *script, const char *env_vars, struct job_plain *p);
void job_plain_free(struct job_plain *p);
/* The environment p's command gets from bash started with env in this
 * dir, NULL-terminated in a; NULL when env holds what only bash treats
 * right (the script is then bash's). */
char **job_plain_env(struct arena *a, const struct job_plain *p, char *const *env);
/* The file bash's exec would run for cmd with envp's PATH; NULL where
 * bash should say what happens (not found, not executable, no PATH). */
const char *job_plain_path(struct arena *a, char *const *envp, const char *cmd);
/* ---- job_standalone.c ------------------------------------------------------ */

/* Starts DIR/run.sh as its own session. Returns false (info filled with an
 * infra outcome) when it cannot. */
bool sa_submit(struct job *j);
/* Waits for the start (want_start) or the end of the job in j->info, ours or
 * a reattached one; enforces the time limit. */
enum job_wait sa_wait(struct job *j, bool want_start);
/* Ends the job's process group (TERM, then KILL after the grace), then
 * waits for it; info gets state (CANCELLED for a signal). */
void sa_cancel(struct job *j);

/* ---- job_supervise.c ------------------------------------------------------ */

/* In the child kunai job forked for a standalone run: becomes the job's
 * session, runs DIR/run.sh, enforces j->time_limit (TERM, KILL grace_s
 * later), ends every process the job left, writes kunai.start and
 * kunai.exit; exits with the script's status (128+signal when killed). */
void job_supervise(struct job *j, long grace_s) __attribute__((noreturn));

/* ---- job_slurm.c ----------------------------------------------------------- */

/* sbatch --parsable from DIR; retries transient errors. Returns false with
 * an infra outcome in info when it fails; *retryable says whether another
 * attempt could succeed (limits, not a bad script). */
/* job_single.c (--single-sbatch): queues the run for the scenario's one
 * allocation, submitting the allocation when none is alive; false after
 * reporting. */
bool single_submit(struct job *j, bool *retryable);
/* Waits for the run's own start or exit record, watching the allocation. */
enum job_wait single_wait(struct job *j, bool want_start);
bool slurm_submit(struct job *j, bool *retryable);
enum job_wait slurm_wait(struct job *j, bool want_start);
/* A driver killed between sbatch and job.json left a job behind: looks
 * for the live job of this run (its name and --comment) and, when there is
 * one, puts its id and state in j->info. Returns whether it found one. */
bool slurm_find_submitted(struct job *j);
/* scancel the job (retrying transient errors). */
void slurm_cancel(struct job *j);
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

/* ---- job_k8s.c, job_k8s_state.c ------------------------------------------------ */

/* kubectl create of the run's k8s.json (labelled, renamed: k8s.applied.json);
 * as slurm_submit. */
bool k8s_submit(struct job *j, bool *retryable);
enum job_wait k8s_wait(struct job *j, bool want_start);
/* The live object of this run and attempt (by label), after a driver died
 * between kubectl create and job.json. */
bool k8s_find_submitted(struct job *j);
/* Collects the pods' logs and deletes the object; info gets CANCELLED. */
void k8s_cancel(struct job *j);
/* The poller's query (job_poll.c): rows for ids into rows; false when the
 * API server could not be asked. */
bool k8s_query(struct job *j, char *const *ids, size_t n, struct buf *rows);
/* Rows for ids from `kubectl get ... -o json` output; false when it is not
 * such a list. */
bool k8s_rows(const char *json, char *const *ids, size_t n, struct buf *rows);
/* "jobs.batch" for "Job" or an id "job:NAME"; NULL for another kind. */
const char *k8s_resource(const char *kind_or_id);
/* "job" for "Job": the prefix of the kind's job ids. */
const char *k8s_id_prefix(const char *kind);
/* Whether kubectl's stderr says the API server was briefly out of reach. */
bool k8s_transient(const char *err);
/* kubectl [--kubeconfig K] [--namespace NS] --request-timeout=30s ARGS...,
 * retrying transient errors up to tries times; its exit status. */
int k8s_kubectl(struct job *j, const char *const *args, int tries, bool cleanup, struct buf *out, struct buf *err);
/* "kubectl WHAT: " and the first line of err, in the arena. */
const char *k8s_first_line(struct job *j, const char *what, struct buf *err, int rc);
/* The labels selector of this run's attempt's pods, into sel. */
void k8s_run_selector(struct job *j, struct buf *sel);
/* AIDynamo (job_k8s_dgd.c): the DynamoGraphDeployment's pods are Ready:
 * runs the benchmark in its frontend pod, copies its results into the run
 * dir; sets j->info's state (COMPLETED, FAILED, LAUNCH_FAILED) and reason.
 * False when a signal came (j->signo). */
bool dgd_benchmark(struct job *j);
/* A DynamoGraphDeployment as kunai creates it: kunai's labels on it and on
 * each service (the operator puts them on the pods), its name after the
 * run dir; returns the name (in the arena). */
const char *dgd_prepare(struct job *j, struct cJSON *doc);

/* ---- job_lsf.c ---------------------------------------------------------------- */

/* bsub < bsub_script.sh from DIR (-Jd names the run dir); as slurm_submit.
 * The wait is slurm_wait's. */
bool lsf_submit(struct job *j, bool *retryable);
/* The live job of this run (its -J name and -Jd description) after a
 * driver died between bsub and job.json. */
bool lsf_find_submitted(struct job *j);
void lsf_cancel(struct job *j);
/* The poller's query: one bjobs for ids; false when LSF could not be asked. */
bool lsf_query(struct job *j, char *const *ids, size_t n, struct buf *rows);
/* bjobs of this one job: 1 with its row in r, 0 not known or not asked. */
int lsf_ask(struct job *j, struct slurm_row *r);
/* One line of `bjobs -noheader -o "jobid stat exit_code exec_host
 * exit_reason delimiter='|'"`, its stat as the Slurm state of the same
 * meaning (the table in job_lsf.c). */
bool lsf_parse_bjobs(const char *line, struct slurm_row *r);
/* Whether LSF's stderr says mbatchd was briefly out of reach. */
bool lsf_transient(const char *err);

/* ---- job_runai.c --------------------------------------------------------------- */

/* POST of the run's runai.json as a training (named for the run and attempt:
 * runai.applied.json); as slurm_submit. */
bool runai_submit(struct job *j, bool *retryable);
enum job_wait runai_wait(struct job *j, bool want_start);
/* The live training of this run and attempt (by name), after a driver died
 * between the POST and job.json. */
bool runai_find_submitted(struct job *j);
/* Stores the logs, deletes the training; info gets CANCELLED. */
void runai_cancel(struct job *j);
/* The poller's query: one workload listing for ids; false when the API
 * could not be asked. */
bool runai_query(struct job *j, char *const *ids, size_t n, struct buf *rows);
/* Wipes and frees the secret and the token. */
void runai_release(struct job *j);

/* ---- job_poll.c ---------------------------------------------------------- */

/* Registers j's job with the build dir's poller; false after reporting. */
bool poll_register(struct job *j);
void poll_unregister(struct job *j);
/* Marks j's registration: its job wrote its exit record (an urgent waiter,
 * batched with the others); on failure it stays as it was. */
void poll_mark_exited(struct job *j);
/* Whether an urgent waiter asks the scheduler now (the last query at least
 * URGENT_MS ago), waiting jobs of which exited wrote their exit record,
 * left of them already before the last query: all have one and some are
 * new, or the new ones are a twentieth of the campaign's peak (at most
 * half of those waiting). Records the last query found not ended (jobs in
 * their epilog) wait for the latest time instead. */
bool poll_batch_ready(size_t peak, size_t waiting, size_t exited, size_t left);
/* j's job in the last poll: 1 found (r filled; *when the poll's time), 0 the
 * scheduler did not know it, -1 not asked about, -2 no poll yet. */
int poll_lookup(struct job *j, struct slurm_row *r, double *when);
/* Runs the build dir's query when it is due (urgent: soon after the last)
 * and no other waiter is running it. */
void poll_maybe(struct job *j, bool urgent);
/* poll_unregister, and frees what j->watch holds. */
void poll_release(struct job *j);

/* slurm: for the job's node groups, the nodes to submit to (idle first,
 * from sinfo): appends "a,b,c" to nodelist and sets *count; false with
 * j->info.reason set when a group has too few usable nodes. */
bool slurm_choose_nodes(struct job *j, struct buf *nodelist, int *count);

/* Parsers (job_slurm.c), exposed for tests/unit/job_test.c. */
struct slurm_row {
	char id[96];
	char state[32];
	int exit_code, signal; /* -1: unknown */
	double submit, start, end; /* 0: unknown */
	char nodes[256];
	char reason[200]; /* an optional 8th field: why (kubernetes) */
};
/* Appends r to out as a line of poll.state (sacct's -P layout, reason last). */
void poll_row_line(struct buf *out, const struct slurm_row *r);
/* One line of `sacct -X -n -P -o JobID,State,ExitCode,Submit,Start,End,NodeList`. */
bool slurm_parse_sacct(const char *line, struct slurm_row *r);
/* One line of `scontrol -o show job`. */
bool slurm_parse_scontrol(const char *line, struct slurm_row *r);
/* One line of `squeue -h -t all -O` with SQUEUE_FIELDS (exit_code is a wait status). */
#define SQUEUE_FIELDS "JobID:|,State:|,exit_code:|,SubmitTime:|,StartTime:|,EndTime:|,NodeList:"
bool slurm_parse_squeue(const char *line, struct slurm_row *r);
/* Whether sbatch/squeue/sacct stderr says the controller was briefly out
 * of reach (worth retrying the same command). */
bool slurm_transient(const char *err);
/* Whether sbatch stderr is a submit limit (retry later as a new attempt). */
bool slurm_limit_error(const char *err);

#endif
