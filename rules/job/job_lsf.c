/* job_lsf.c: a run as an LSF batch job: `bsub < bsub_script.sh` from the
 * run dir (bsub reads the #BSUB lines only from a script on its stdin; the
 * script derives its paths from $LS_SUBCWD), bkill, and what `bjobs` says
 * about the build dir's jobs, in the poller's rows (job_poll.c), so that
 * the wait is Slurm's (job_slurm.c: the job's own records first, the
 * scheduler now and then, one bjobs for all the waiters).
 *
 *   LSF stat                 state          class
 *   PEND PROV WAIT           PENDING        (going)
 *   RUN UNKWN                RUNNING        (going; UNKWN: its host is out of reach for now)
 *   PSUSP USUSP SSUSP        SUSPENDED      (going)
 *   DONE                     COMPLETED      passed (then the workload check)
 *   EXIT TERM_RUNLIMIT       TIMEOUT        timeout
 *   EXIT TERM_OWNER/ADMIN    CANCELLED      cancelled (bkill)
 *   EXIT TERM_MEMLIMIT       OUT_OF_MEMORY  infra
 *   EXIT otherwise           FAILED         failed (its exit code)
 *   ZOMBI                    NODE_FAIL      node-fail (killed while its host was unreachable)
 */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_proc.h"
#include "job_steps.h"
#include "job_poll.h"
#include "job_sched.h"
#include "gen/base/util.h"

enum {
	LSF_TRIES = 4,           /* transient errors: 1+2+4 s of retries */
	IDS_PER_BJOBS = 2000,    /* job ids of up to 10 digits: ~22 KiB of arguments */
};

bool
lsf_transient(const char *err)
{
	static const char *const w[] = {
		"LSF is down", "try later", "batch system daemon not responding", "Failed in an LSF library call",
		"Communication time out", "Connection refused", "temporarily unavailable", NULL,
	};
	size_t i;

	for (i = 0; err && w[i]; i++)
		if (strstr(err, w[i]))
			return true;
	return false;
}

/* A command of LSF's (bsub, bjobs, bkill) retried on transient errors. */
static int
lsf_cmd(struct job *j, char *const argv[], const char *dir, int tries, bool cleanup, struct buf *out,
        struct buf *err)
{
	return job_cmd_retry(j, argv, dir, tries, cleanup, out, err, lsf_transient);
}

/* exec_host "4*hostA:hostB" as "hostA,hostB". */
static void
hosts(char *dst, size_t n, const char *s, size_t len)
{
	size_t i = 0, k = 0, w;

	while (i < len && k + 1 < n) {
		w = strcspn(s + i, ":|\n");
		if (w > len - i)
			w = len - i;
		const char *h = s + i, *star = memchr(h, '*', w);
		size_t hl = star ? w - (size_t)(star + 1 - h) : w;
		if (star)
			h = star + 1;
		if (hl && strncmp(h, "-", hl) != 0 && k + hl + 2 < n) {
			if (k)
				dst[k++] = ',';
			memcpy(dst + k, h, hl);
			k += hl;
		}
		i += w + 1;
	}
	dst[k] = '\0';
}

bool
lsf_parse_bjobs(const char *line, struct slurm_row *r)
{
	static const struct {
		const char *stat, *state;
	} map[] = {
		{"PEND", "PENDING"}, {"PROV", "PENDING"}, {"WAIT", "PENDING"}, {"RUN", "RUNNING"},
		{"UNKWN", "RUNNING"}, {"PSUSP", "SUSPENDED"}, {"USUSP", "SUSPENDED"}, {"SSUSP", "SUSPENDED"},
		{"DONE", "COMPLETED"}, {"EXIT", "FAILED"}, {"ZOMBI", "NODE_FAIL"},
	};
	const char *f[5];
	size_t len[5], i;
	char stat[16], tmp[32], *end;
	long v;

	memset(r, 0, sizeof(*r));
	r->exit_code = r->signal = -1;
	if (!row_split(line, f, len, 5))
		return false;
	if (!len[0] || len[0] != strspn(f[0], "0123456789[]") || !len[1])
		return false;
	row_field(r->id, sizeof(r->id), f[0], len[0]);
	row_field(stat, sizeof(stat), f[1], len[1]);
	for (i = 0; i < LEN(map) && strcmp(map[i].stat, stat) != 0; i++)
		;
	if (i == LEN(map))
		return false;
	row_field(r->state, sizeof(r->state), map[i].state, strlen(map[i].state));
	/* "-" until it exits (and for DONE: 0) */
	row_field(tmp, sizeof(tmp), f[2], len[2]);
	v = strtol(tmp, &end, 10);
	if (end != tmp && !*end && v >= 0)
		r->exit_code = (int)(v > 255 ? 255 : v);
	else if (strcmp(r->state, "COMPLETED") == 0)
		r->exit_code = 0;
	if (r->exit_code >= 0)
		r->signal = 0;
	hosts(r->nodes, sizeof(r->nodes), f[3], len[3]);
	if (len[4] && strncmp(f[4], "-", len[4]) != 0)
		row_field(r->reason, sizeof(r->reason), f[4], len[4]);
	if (strcmp(r->state, "FAILED") == 0) {
		if (strstr(r->reason, "TERM_RUNLIMIT") || strstr(r->reason, "run time limit"))
			row_field(r->state, sizeof(r->state), "TIMEOUT", 7);
		else if (strstr(r->reason, "TERM_OWNER") || strstr(r->reason, "TERM_ADMIN") ||
		         strstr(r->reason, "killed by owner"))
			row_field(r->state, sizeof(r->state), "CANCELLED", 9);
		else if (strstr(r->reason, "TERM_MEMLIMIT") || strstr(r->reason, "memory limit"))
			row_field(r->state, sizeof(r->state), "OUT_OF_MEMORY", 13);
	}
	return true;
}

#define LSF_FIELDS "jobid stat exit_code exec_host exit_reason delimiter='|'"

/* bjobs of ids (all, ended ones too while mbatchd remembers them): rows
 * of the jobs it knows into rows; the rest are marked "<id>|-" only when
 * it answered. */
bool
lsf_query(struct job *j, char *const *ids, size_t n, struct buf *rows)
{
	struct buf out = {0}, err = {0};
	bool *found = xcalloc(n ? n : 1, sizeof(*found)), ok = true;
	struct slurm_row r;
	const char *p;
	size_t i, k, m;
	int rc;

	for (i = 0; ok && i < n; i += m) {
		char **argv;

		m = n - i < IDS_PER_BJOBS ? n - i : IDS_PER_BJOBS;
		argv = xcalloc(m + 6, sizeof(*argv));
		argv[0] = "bjobs";
		argv[1] = "-noheader";
		argv[2] = "-a";
		argv[3] = "-o";
		argv[4] = LSF_FIELDS;
		for (k = 0; k < m; k++)
			argv[5 + k] = ids[i + k];
		rc = lsf_cmd(j, argv, NULL, 1, false, &out, &err);
		free(argv);
		/* "Job <N> is not found" for each unknown one, status 255 when none is known */
		if (rc != 0 && !strstr(buf_str(&err), "is not found")) {
			warn("bjobs: %.*s", (int)strcspn(buf_str(&err), "\n"), err.len ? buf_str(&err) : "failed");
			ok = false;
			break;
		}
		for (p = buf_str(&out); *p; p += strcspn(p, "\n"), p += *p == '\n') {
			if (!lsf_parse_bjobs(p, &r))
				continue;
			for (k = 0; k < n; k++)
				if (!found[k] && strcmp(ids[k], r.id) == 0) {
					found[k] = true;
					poll_row_line(rows, &r);
				}
		}
	}
	for (i = 0; ok && i < n; i++)
		if (!found[i])
			buf_printf(rows, "%s|-\n", ids[i]);
	free(found);
	buf_free(&out);
	buf_free(&err);
	return ok;
}

int
lsf_ask(struct job *j, struct slurm_row *r)
{
	char *argv[] = {"bjobs", "-noheader", "-a", "-o", LSF_FIELDS, (char *)j->info.job_id, NULL};
	struct buf out = {0}, err = {0};
	int found = 0;

	if (lsf_cmd(j, argv, NULL, 1, false, &out, &err) == 0 && lsf_parse_bjobs(buf_str(&out), r) &&
	    strcmp(r->id, j->info.job_id) == 0)
		found = 1;
	buf_free(&out);
	buf_free(&err);
	return found;
}

/* The description every job of run dir j->dir carries (-Jd): what tells
 * its job apart from another build dir's job of the same name. */
static const char *
run_description(struct job *j)
{
	char abs[PATH_MAX];

	return arena_printf(&j->arena, "kunai:%s", realpath(j->dir, abs) ? abs : j->dir);
}

/* The job name on the script's #BSUB -J line, or NULL. */
static const char *
script_job_name(struct job *j)
{
	struct buf p = {0}, text = {0};
	const char *s, *name = NULL;

	if (job_slurp(job_path(j, &p, "bsub_script.sh"), &text) && (s = strstr(text.data, "\n#BSUB -J "))) {
		s += strlen("\n#BSUB -J ");
		name = arena_strndup(&j->arena, s, strcspn(s, "\n"));
	}
	buf_free(&p);
	buf_free(&text);
	return name;
}

bool
lsf_find_submitted(struct job *j)
{
	const char *name = script_job_name(j), *desc = run_description(j), *l;
	char *argv[] = {"bjobs", "-noheader", "-J", (char *)name, "-o", "jobid stat job_description delimiter='|'",
	                NULL};
	struct buf out = {0}, err = {0};
	size_t n = strlen(desc), id;
	bool found = false;

	if (!name || lsf_cmd(j, argv, NULL, LSF_TRIES, false, &out, &err) != 0) {
		buf_free(&out);
		buf_free(&err);
		return false;
	}
	/* "ID|STAT|DESCRIPTION" per unfinished job of that name */
	for (l = buf_str(&out); *l && !found; l += strcspn(l, "\n"), l += *l == '\n') {
		const char *bar = strchr(l, '|'), *bar2 = bar ? strchr(bar + 1, '|') : NULL;
		id = strspn(l, "0123456789");
		if (!bar || !bar2 || (size_t)(bar - l) != id || id == 0 || strncmp(bar2 + 1, desc, n) != 0 ||
		    (bar2[1 + n] != '\n' && bar2[1 + n]))
			continue;
		j->info.job_id = arena_strndup(&j->arena, l, id);
		j->info.state = "PENDING";
		found = true;
	}
	buf_free(&out);
	buf_free(&err);
	return found;
}

bool
lsf_submit(struct job *j, bool *retryable)
{
	/* bsub parses #BSUB lines only in a script on its stdin */
	char *argv[] = {"/bin/sh", "-c", "exec bsub -Jd \"$1\" <bsub_script.sh", "sh", NULL, NULL};
	struct buf out = {0}, err = {0};
	const char *p, *first, *cause;
	size_t n;
	int rc;

	*retryable = false;
	argv[4] = (char *)run_description(j);
	rc = lsf_cmd(j, argv, j->dir, LSF_TRIES, false, &out, &err);
	/* "Job <123> is submitted to queue <normal>." */
	if (rc == 0 && (p = strstr(buf_str(&out), "Job <")) && (n = strspn(p + 5, "0123456789")) > 0 &&
	    strncmp(p + 5 + n, "> is submitted", 14) == 0) {
		j->info.job_id = arena_strndup(&j->arena, p + 5, n);
		j->info.state = "PENDING";
		buf_free(&out);
		buf_free(&err);
		return true;
	}
	j->info.state = "SUBMIT_FAILED";
	j->info.end_time = job_iso(&j->arena, job_now());
	/* bsub's whole answer; the reason, its first line that says something */
	job_keep_answer(j, "bsub.txt",
	                arena_printf(&j->arena, "bsub -Jd '%s' <bsub_script.sh (in %s): exit status %d", argv[4], j->dir, rc),
	                &err, &out);
	first = buf_str(&err) + strspn(buf_str(&err), " \t\r\n");
	j->info.reason = arena_printf(&j->arena, "bsub: %.*s", (int)strcspn(first, "\n"),
	                              *first ? first : rc == 0 ? "no job id in its output" : "failed");
	/* a setting LSF refuses names its field, as sbatch's: failed, never
	 * retried (DESIGN 18) */
	if ((cause = job_cause_bsub(j, buf_str(&err)))) {
		j->info.state = "CONFIG_ERROR";
		j->info.outcome = outcome_name(OUTCOME_FAILED);
		j->info.reason = cause;
	}
	warn("%s: %s", j->dir, j->info.reason);
	*retryable = !cause && lsf_transient(buf_str(&err));
	buf_free(&out);
	buf_free(&err);
	return false;
}

void
lsf_cancel(struct job *j)
{
	char *argv[] = {"bkill", (char *)j->info.job_id, NULL};
	struct buf err = {0};

	if (!j->info.job_id)
		return;
	if (lsf_cmd(j, argv, NULL, LSF_TRIES, true, NULL, &err) != 0)
		warn("bkill %s: %.*s", j->info.job_id, (int)strcspn(buf_str(&err), "\n"), buf_str(&err));
	buf_free(&err);
}
