/* job_outcome.c: what a job's end means: the class of every scheduler
 * state (DESIGN 12), the workload's success check on stdout.txt, and the
 * reason recorded with the outcome. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job_proc.h"
#include "job_steps.h"
#include "gen/base/util.h"
#include "gen/workloads/workload.h"

/* Every state a job can be reported in, and its class. Slurm's base states
 * and the flags squeue/scontrol/sacct print as states; then standalone's.
 *
 *   state            terminal  class
 *   COMPLETED        yes       passed (then the workload check decides)
 *   FAILED           yes       failed
 *   SPECIAL_EXIT     yes       failed (exit code matched a special exit)
 *   TIMEOUT          yes       timeout
 *   DEADLINE         yes       timeout (reached its --deadline)
 *   CANCELLED        yes       cancelled
 *   NODE_FAIL        yes       node-fail
 *   BOOT_FAIL        yes       infra
 *   OUT_OF_MEMORY    yes       infra
 *   PREEMPTED        yes       infra
 *   REVOKED          yes       infra (a federation sibling took it)
 *   RECONFIG_FAIL    yes       infra
 *   LAUNCH_FAILED    yes       infra
 *   PENDING RUNNING SUSPENDED COMPLETING CONFIGURING REQUEUED REQUEUE_FED
 *   REQUEUE_HOLD RESIZING RESV_DEL_HOLD SIGNALING STAGE_OUT STOPPED
 *   POWER_UP_NODE UPDATE_DB SUBMITTED     no (still going)
 *   EXITED           yes       passed if exit code 0, else failed (standalone)
 *   SIGNALED         yes       failed (standalone: killed by a signal not ours)
 *   LOST             yes       infra (gone without a record)
 *   SUBMIT_FAILED    yes       infra (the scheduler refused it)
 *   CONFIG_ERROR     yes       failed (the scheduler refused a setting of the configuration)
 *   IMAGE_PULL_FAILED yes      infra (kubernetes: the image did not pull in time)
 *   UNSCHEDULABLE    yes       infra (kubernetes: no node for its pods in time)
 *   NOT_READY        yes       infra (kubernetes: a DynamoGraphDeployment's pods not Ready in time)
 *   anything else    yes       infra (a state this table does not know)
 */
static const struct {
	const char *state;
	bool terminal;
	enum outcome outcome;
} states[] = {
	{"COMPLETED", true, OUTCOME_PASSED},
	{"FAILED", true, OUTCOME_FAILED},
	{"SPECIAL_EXIT", true, OUTCOME_FAILED},
	{"TIMEOUT", true, OUTCOME_TIMEOUT},
	{"DEADLINE", true, OUTCOME_TIMEOUT},
	{"CANCELLED", true, OUTCOME_CANCELLED},
	{"NODE_FAIL", true, OUTCOME_NODE_FAIL},
	{"BOOT_FAIL", true, OUTCOME_INFRA},
	{"OUT_OF_MEMORY", true, OUTCOME_INFRA},
	{"PREEMPTED", true, OUTCOME_INFRA},
	{"REVOKED", true, OUTCOME_INFRA},
	{"RECONFIG_FAIL", true, OUTCOME_INFRA},
	{"LAUNCH_FAILED", true, OUTCOME_INFRA},
	{"PENDING", false, OUTCOME_RUNNING},
	{"RUNNING", false, OUTCOME_RUNNING},
	{"SUSPENDED", false, OUTCOME_RUNNING},
	{"COMPLETING", false, OUTCOME_RUNNING},
	{"CONFIGURING", false, OUTCOME_RUNNING},
	{"REQUEUED", false, OUTCOME_RUNNING},
	{"REQUEUE_FED", false, OUTCOME_RUNNING},
	{"REQUEUE_HOLD", false, OUTCOME_RUNNING},
	{"RESIZING", false, OUTCOME_RUNNING},
	{"RESV_DEL_HOLD", false, OUTCOME_RUNNING},
	{"SIGNALING", false, OUTCOME_RUNNING},
	{"STAGE_OUT", false, OUTCOME_RUNNING},
	{"STOPPED", false, OUTCOME_RUNNING},
	{"POWER_UP_NODE", false, OUTCOME_RUNNING},
	{"UPDATE_DB", false, OUTCOME_RUNNING},
	{"SUBMITTED", false, OUTCOME_RUNNING},
	{"EXITED", true, OUTCOME_PASSED},
	{"SIGNALED", true, OUTCOME_FAILED},
	{"LOST", true, OUTCOME_INFRA},
	{"SUBMIT_FAILED", true, OUTCOME_INFRA},
	{"CONFIG_ERROR", true, OUTCOME_FAILED},
	{"IMAGE_PULL_FAILED", true, OUTCOME_INFRA},
	{"UNSCHEDULABLE", true, OUTCOME_INFRA},
	{"NOT_READY", true, OUTCOME_INFRA},
};

enum outcome
job_state_outcome(const char *state, int exit_code, bool *terminal)
{
	size_t i;

	*terminal = true;
	for (i = 0; state && i < LEN(states); i++)
		if (strcmp(states[i].state, state) == 0) {
			*terminal = states[i].terminal;
			if (states[i].outcome == OUTCOME_PASSED && exit_code != 0)
				return OUTCOME_FAILED;
			return states[i].outcome;
		}
	return OUTCOME_INFRA;
}

bool
job_outcome_retryable(enum outcome o)
{
	return o == OUTCOME_NODE_FAIL || o == OUTCOME_INFRA;
}

static const char *afmt(struct job *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Formats into the job's arena. */
static const char *
afmt(struct job *j, const char *fmt, ...)
{
	struct buf b = {0};
	const char *r;
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	r = arena_strdup(&j->arena, buf_str(&b));
	buf_free(&b);
	return r;
}

/* Whether stdout.txt holds every all_of pattern and none of none_of; read
 * in blocks, so a large log costs no more memory than a small one. */
static bool
workload_check(struct job *j, const char **why)
{
	const struct workload *wl = workload_find(j->workload);
	size_t np = 0, n_all, n_none, maxlen = 1, i, keep = 0;
	bool found[32] = {false}, ok = true;
	const char *pat[32];
	struct buf p = {0};
	char *block;
	ssize_t n;
	int fd;

	*why = NULL;
	for (i = 0; wl && wl->all_of && wl->all_of[i] && np < LEN(pat); i++)
		pat[np++] = wl->all_of[i];
	n_all = np;
	for (i = 0; wl && wl->none_of && wl->none_of[i] && np < LEN(pat); i++)
		pat[np++] = wl->none_of[i];
	n_none = np;
	for (i = 0; wl && wl->any_of && wl->any_of[i] && np < LEN(pat); i++)
		pat[np++] = wl->any_of[i];
	if (!np)
		return true;
	for (i = 0; i < np; i++)
		if (strlen(pat[i]) > maxlen)
			maxlen = strlen(pat[i]);
	/* a file: a FIFO or device planted there is neither waited on nor read
	 * without end, a link not followed */
	fd = file_open_regular(AT_FDCWD, job_path(j, &p, "stdout.txt"), O_NOFOLLOW);
	buf_free(&p);
	if (fd < 0) {
		*why = "workload check: no stdout.txt";
		return false;
	}
	block = xmalloc(65536 + maxlen);
	/* the last maxlen-1 bytes of a block are kept for a match across blocks */
	while ((n = read(fd, block + keep, 65536)) > 0) {
		size_t len = keep + (size_t)n;
		for (i = 0; i < np; i++) {
			const char *s = block, *end = block + len;
			size_t pl = strlen(pat[i]);
			while (!found[i] && (size_t)(end - s) >= pl) {
				const char *hit = memchr(s, pat[i][0], (size_t)(end - s) - pl + 1);
				if (!hit)
					break;
				if (memcmp(hit, pat[i], pl) == 0)
					found[i] = true;
				s = hit + 1;
			}
		}
		keep = len < maxlen - 1 ? len : maxlen - 1;
		memmove(block, block + len - keep, keep);
	}
	close(fd);
	free(block);
	for (i = 0; ok && i < n_none; i++)
		if (found[i] == (i >= n_all)) {
			*why = afmt(j, "workload check: '%s' %s stdout.txt", pat[i], found[i] ? "in" : "not in");
			ok = false;
		}
	/* any_of: one of them is enough */
	for (i = n_none; ok && i < np && !found[i]; i++)
		if (i + 1 == np) {
			*why = afmt(j, "workload check: none of '%s'... in stdout.txt", pat[n_none]);
			ok = false;
		}
	return ok;
}

enum outcome
job_classify(struct job *j)
{
	struct job_record *in = &j->info;
	bool terminal;
	enum outcome o = job_state_outcome(in->state, in->has_exit_code ? in->exit_code : 0, &terminal);
	const char *why = NULL, *prior = in->reason, *cause;

	in->reason = NULL;
	if (j->stopping && j->stopped_by && !j->signo && !job_outcome_retryable(o)) {
		o = OUTCOME_PASSED;
		in->reason = afmt(j, "stopped: %s completed", j->stopped_by);
	} else if (o == OUTCOME_PASSED) {
		if (!workload_check(j, &why)) {
			o = OUTCOME_FAILED;
			in->reason = why;
		}
	} else if (o == OUTCOME_FAILED) {
		if (in->has_signal && in->signal)
			in->reason = afmt(j, "%s: killed by signal %d", in->state, in->signal);
		else if (in->has_exit_code)
			in->reason = afmt(j, "%s: exit code %d", in->state, in->exit_code);
		else
			in->reason = in->state;
	} else if (o == OUTCOME_TIMEOUT && j->time_limit && j->sched == JOB_STANDALONE) {
		in->reason = afmt(j, "time limit of %ld s", j->time_limit);
	} else if (o == OUTCOME_CANCELLED && j->signo) {
		in->reason = afmt(j, "interrupted (signal %d)", j->signo);
	} else if (o == OUTCOME_CANCELLED) {
		in->reason = "CANCELLED: scancel, or the scheduler ended it";
	} else if (o == OUTCOME_TIMEOUT) {
		in->reason = afmt(j, "%s: the job ran out of time", in->state ? in->state : "TIMEOUT");
	} else {
		/* infra: what the backend found (LOST says why), else the state */
		in->reason = prior ? prior : in->state ? in->state : "unknown state";
	}
	/* the cause before the exit code: what a person acts on (DESIGN 18) */
	if (o != OUTCOME_PASSED && o != OUTCOME_CANCELLED && (cause = job_cause_output(j, o)))
		in->reason = in->reason ? afmt(j, "%s; %s", cause, in->reason) : cause;
	in->outcome = outcome_name(o);
	return o;
}

