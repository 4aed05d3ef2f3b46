/* job_steps.h: what the runner does around every scheduler's submit and
 * wait: its options (job_args.c), the waits before a submission and
 * --stop-with (job_deps.c), the outcome class of an end (job_outcome.c)
 * and its known cause (job_cause.c). */
#ifndef KUNAI_JOB_STEPS_H
#define KUNAI_JOB_STEPS_H

#include <stdbool.h>

#include "job_state.h"

/* The outcome class of a scheduler state (Slurm's, or standalone's EXITED,
 * SIGNALED, TIMEOUT, CANCELLED, LOST) with its exit code; *terminal false
 * when the job has not ended (the returned class is then meaningless). */
enum outcome job_state_outcome(const char *state, int exit_code, bool *terminal);
/* Returns whether outcome o may be retried (infrastructure, not the test). */
bool job_outcome_retryable(enum outcome o);
/* Sets j->info.outcome and reason for the ended job in j->info (the
 * workload's success check included) and returns the class. */
enum outcome job_classify(struct job *j);
/* The cause of a run that ended in outcome o, from the known failure
 * signatures in its stderr.txt and stdout.txt, with the line that showed
 * it ("srun has no --container-image: pyxis is not installed ...
 * [stderr.txt: ...]"); NULL when none is known (or o already says it). */
const char *job_cause_output(struct job *j, enum outcome o);
/* "configuration error: ..." naming the TOML field when sbatch's error text
 * err refuses a setting (partition, gres, account, QoS, limits); NULL when
 * it is no configuration error. */
const char *job_cause_submit(struct job *j, const char *err);
/* The same for bsub's refusals (queue, project, slots, run limit, hosts). */
const char *job_cause_bsub(struct job *j, const char *err);
/* The same for kubectl's (the kubeconfig, RBAC, the namespace). */
const char *job_cause_kubectl(struct job *j, const char *err);
/* Fills j's options from the defaults, the environment, DIR's #KUNAI lines
 * and argv, in that order. Returns 0, or 2 after reporting a usage error. */
int job_parse(struct job *j, int argc, char **argv);
/* Waits for --after-start and --delay before a new submission. Returns false
 * when a signal came first. */
bool job_pre_waits(struct job *j);
/* Returns whether the run's --stop-with condition holds now (checked at most
 * once a second); sets j->stopped_by. */
bool job_stop_due(struct job *j);
/* The check at the top of a scheduler's wait loop: a signal came
 * (JOB_WAIT_INTERRUPTED: the caller cancels) or --stop-with holds
 * (JOB_WAIT_STOP: the caller ends the job). Returns whether the wait ends
 * now, with *result set. */
bool job_wait_over(struct job *j, enum job_wait *result);

#endif
