/* json_job.c: DIR/job.json, the runner's record of one run (cJSON). Kept
 * apart from json.c so the runner links without the model. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "job.h"
#include "util.h"

static bool
put_str(cJSON *o, const char *k, const char *v)
{
	return v ? cJSON_AddStringToObject(o, k, v) != NULL : cJSON_AddNullToObject(o, k) != NULL;
}

static bool
put_int(cJSON *o, const char *k, bool has, double v)
{
	return has ? cJSON_AddNumberToObject(o, k, v) != NULL : cJSON_AddNullToObject(o, k) != NULL;
}

bool
json_job_write(const struct job_info *j, struct buf *out)
{
	cJSON *o = cJSON_CreateObject();
	char *text;
	bool ok;

	ok = o && put_str(o, "dir", j->dir) && put_str(o, "scheduler", j->scheduler) &&
	     put_str(o, "workload", j->workload) && put_str(o, "job_id", j->job_id) &&
	     put_str(o, "state", j->state) && put_int(o, "exit_code", j->has_exit_code, j->exit_code) &&
	     put_int(o, "signal", j->has_signal, j->signal) && put_str(o, "outcome", j->outcome) &&
	     put_str(o, "reason", j->reason) && put_str(o, "submit_time", j->submit_time) &&
	     put_str(o, "start_time", j->start_time) && put_str(o, "end_time", j->end_time) &&
	     put_str(o, "nodes", j->nodes) && put_int(o, "attempt", true, j->attempt) &&
	     put_str(o, "host", j->host) && put_str(o, "command", j->command) && put_int(o, "pid_start", j->pid_start > 0, (double)j->pid_start) &&
	     cJSON_AddBoolToObject(o, "collected", j->collected) != NULL;
	text = ok ? cJSON_Print(o) : NULL;
	cJSON_Delete(o);
	if (!text) {
		warn("out of memory while writing job.json");
		return false;
	}
	buf_puts(out, text);
	buf_putc(out, '\n');
	cJSON_free(text);
	return true;
}

static const char *
get_str(struct arena *a, const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) && v->valuestring ? arena_strdup(a, v->valuestring) : NULL;
}

static bool
get_num(const cJSON *o, const char *k, double *d)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return false;
	*d = v->valuedouble;
	return true;
}

int
json_job_read(struct arena *a, const char *path, struct job_info *j, struct buf *why)
{
	struct buf text = {0};
	const cJSON *c;
	cJSON *o;
	double d;
	int e;

	memset(j, 0, sizeof(*j));
	j->collected = true;
	e = errno;
	if (access(path, F_OK) != 0 && errno == ENOENT) {
		errno = e;
		return 0;
	}
	if (!read_file(path, &text)) {
		buf_printf(why, "cannot read %s", path);
		return -1;
	}
	o = cJSON_ParseWithLength(text.data, text.len);
	buf_free(&text);
	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		buf_printf(why, "%s: not a job record", path);
		return -1;
	}
	j->dir = get_str(a, o, "dir");
	j->scheduler = get_str(a, o, "scheduler");
	j->workload = get_str(a, o, "workload");
	j->job_id = get_str(a, o, "job_id");
	j->state = get_str(a, o, "state");
	j->outcome = get_str(a, o, "outcome");
	j->reason = get_str(a, o, "reason");
	j->submit_time = get_str(a, o, "submit_time");
	j->start_time = get_str(a, o, "start_time");
	j->end_time = get_str(a, o, "end_time");
	j->nodes = get_str(a, o, "nodes");
	j->host = get_str(a, o, "host");
	j->command = get_str(a, o, "command");
	if ((j->has_exit_code = get_num(o, "exit_code", &d)))
		j->exit_code = (int)d;
	if ((j->has_signal = get_num(o, "signal", &d)))
		j->signal = (int)d;
	if (get_num(o, "attempt", &d) && d >= 0 && d < 1e6)
		j->attempt = (int)d;
	if (get_num(o, "pid_start", &d) && d > 0)
		j->pid_start = (long long)d;
	c = cJSON_GetObjectItemCaseSensitive(o, "collected");
	j->collected = !cJSON_IsFalse(c);
	cJSON_Delete(o);
	return 1;
}
