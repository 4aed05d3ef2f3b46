/* job_runai.c: a run as a RunAI training workload (not yet: submission
 * fails with a reason until the REST client lands). */
#define _POSIX_C_SOURCE 200809L
#include "job.h"
#include "gen/base/util.h"

bool
runai_submit(struct job *j, bool *retryable)
{
	*retryable = false;
	j->info.state = "SUBMIT_FAILED";
	j->info.end_time = job_iso(&j->arena, job_now());
	j->info.reason = "kunai cannot submit to RunAI yet";
	warn("%s: %s", j->dir, j->info.reason);
	return false;
}

enum job_wait
runai_wait(struct job *j, bool want_start)
{
	(void)want_start;
	j->info.state = "LOST";
	return JOB_WAIT_ENDED;
}

bool
runai_find_submitted(struct job *j)
{
	(void)j;
	return false;
}

void
runai_cancel(struct job *j)
{
	(void)j;
}

bool
runai_query(struct job *j, char *const *ids, size_t n, struct buf *rows)
{
	(void)j, (void)ids, (void)n, (void)rows;
	return false;
}
