/* job_state.h: the data every file of `kunai job` shares: what one
 * invocation knows (struct job), how a wait ended, and a scheduler's row
 * for one job (struct slurm_row). Types only; the code that uses them is in
 * the headers above it (job_proc.h, job_steps.h, job_poll.h, job_sched.h). */
#ifndef KUNAI_JOB_STATE_H
#define KUNAI_JOB_STATE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "gen/base/record.h"
#include "gen/base/util.h"

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

/* How a wait ended. */
enum job_wait {
	JOB_WAIT_STARTED,     /* want_start and the job is running */
	JOB_WAIT_ENDED,       /* final state in j->info */
	JOB_WAIT_INTERRUPTED, /* j->signo set: the caller cancels */
	JOB_WAIT_STOP,        /* --stop-with met: the caller ends the job and waits on */
};

/* One job as a scheduler query reports it (sacct, squeue, scontrol,
 * bjobs, kubectl, RunAI): a line of poll.state. */
struct slurm_row {
	char id[96];
	char state[32];
	int exit_code, signal; /* -1: unknown */
	double submit, start, end; /* 0: unknown */
	char nodes[256];
	char reason[200]; /* an optional 8th field: why (kubernetes) */
};

#endif
