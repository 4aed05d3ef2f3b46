/* job_slurm_parse.c: what Slurm's commands print, read: sacct's and
 * squeue's "|"-separated lines and scontrol's one-liners into a slurm_row,
 * and the words of an error that passes by itself (slurm_transient) or
 * that a full queue gives (slurm_limit_error). No I/O: job_slurm.c and
 * the poller (job_poll.c) call these on what the commands wrote. */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "job_proc.h"
#include "job_poll.h"
#include "job_sched.h"

void
row_field(char *dst, size_t n, const char *s, size_t len)
{
	if (len >= n)
		len = n - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

const char *
row_split(const char *line, const char **f, size_t *len, size_t n)
{
	const char *p = line;
	size_t i;

	for (i = 0; i < n; i++) {
		f[i] = p;
		len[i] = strcspn(p, "|\n");
		p += len[i];
		if (i + 1 < n && *p++ != '|')
			return NULL;
	}
	return p;
}

/* "A:B" -> exit code A, signal B */
static void
parse_exit(const char *s, struct slurm_row *r)
{
	char *end;

	r->exit_code = r->signal = -1;
	if (!s || !isdigit((unsigned char)*s))
		return;
	r->exit_code = (int)strtol(s, &end, 10);
	if (*end == ':')
		r->signal = (int)strtol(end + 1, NULL, 10);
}

static double
parse_time(const char *s)
{
	double t;

	return job_slurm_time(s, &t) ? t : 0;
}

bool
slurm_parse_sacct(const char *line, struct slurm_row *r)
{
	const char *f[7], *p;
	size_t len[7];
	char tmp[64];

	memset(r, 0, sizeof(*r));
	if (!(p = row_split(line, f, len, 7)))
		return false;
	if (!len[0] || !len[1])
		return false;
	row_field(r->id, sizeof(r->id), f[0], len[0]);
	/* "CANCELLED by 0" */
	row_field(r->state, sizeof(r->state), f[1], strcspn(f[1], " |"));
	row_field(tmp, sizeof(tmp), f[2], len[2]);
	parse_exit(tmp, r);
	row_field(tmp, sizeof(tmp), f[3], len[3]);
	r->submit = parse_time(tmp);
	row_field(tmp, sizeof(tmp), f[4], len[4]);
	r->start = parse_time(tmp);
	row_field(tmp, sizeof(tmp), f[5], len[5]);
	r->end = parse_time(tmp);
	if (len[6] && strncmp(f[6], "None", 4) != 0)
		row_field(r->nodes, sizeof(r->nodes), f[6], len[6]);
	if (*p == '|')
		row_field(r->reason, sizeof(r->reason), p + 1, strcspn(p + 1, "\n"));
	return true;
}

/* The value of " key=" in a scontrol one-liner, up to the next blank. */
static bool
kv(const char *line, const char *key, char *out, size_t n)
{
	size_t k = strlen(key);
	const char *p;

	for (p = line; (p = strstr(p, key)); p += k)
		if ((p == line || p[-1] == ' ') && p[k] == '=') {
			p += k + 1;
			row_field(out, n, p, strcspn(p, " \n"));
			return true;
		}
	return false;
}

bool
slurm_parse_scontrol(const char *line, struct slurm_row *r)
{
	char tmp[64];

	memset(r, 0, sizeof(*r));
	if (strncmp(line, "JobId=", 6) != 0 || !kv(line, "JobId", r->id, sizeof(r->id)) ||
	    !kv(line, "JobState", r->state, sizeof(r->state)))
		return false;
	parse_exit(kv(line, "ExitCode", tmp, sizeof(tmp)) ? tmp : NULL, r);
	if (kv(line, "SubmitTime", tmp, sizeof(tmp)))
		r->submit = parse_time(tmp);
	if (kv(line, "StartTime", tmp, sizeof(tmp)))
		r->start = parse_time(tmp);
	if (kv(line, "EndTime", tmp, sizeof(tmp)))
		r->end = parse_time(tmp);
	if (kv(line, "NodeList", r->nodes, sizeof(r->nodes)) && strcmp(r->nodes, "(null)") == 0)
		r->nodes[0] = '\0';
	return true;
}

bool
slurm_parse_squeue(const char *line, struct slurm_row *r)
{
	int st;

	if (!slurm_parse_sacct(line, r))
		return false;
	/* squeue's exit_code is the wait status: 768 is exit code 3 */
	if (r->exit_code >= 0 && r->signal < 0) {
		st = r->exit_code;
		r->exit_code = (st >> 8) & 0xff;
		r->signal = st & 0x7f;
	}
	return true;
}

static bool
has_any(const char *s, const char *const *words)
{
	size_t i;

	for (i = 0; s && words[i]; i++)
		if (strstr(s, words[i]))
			return true;
	return false;
}

bool
slurm_transient(const char *err)
{
	static const char *const w[] = {
		"Socket timed out", "slurm_load_jobs error", "Connection refused", "Unable to contact slurm controller",
		"Resource temporarily unavailable", "Zero Bytes were transmitted", "Unexpected message received",
		"Transport endpoint is not connected", "Slurm temporarily unable", "temporarily unavailable",
		"Communication connection failure", "Connection timed out", "slurmdbd: Connection", NULL,
	};
	return has_any(err, w);
}

bool
slurm_limit_error(const char *err)
{
	static const char *const w[] = {
		"QOSMaxSubmitJobPerUserLimit", "AssocMaxSubmitJobLimit", "MaxSubmitJobs", "QOSMaxSubmitJob",
		"Job violates accounting/QOS policy", "AssocGrpSubmitJobsLimit", "QOSGrpSubmitJobsLimit",
		"Slurm job queue full", "Job submit limit", NULL,
	};
	return has_any(err, w);
}
