/* job_runai_wait.c: waiting for a RunAI workload (the build dir's shared
 * listing, job_poll.c), and its end: events and logs stored as CloudAI
 * stores them, then the workload deleted; Ctrl-C deletes it too. The
 * API calls are job_runai.c's. */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_proc.h"
#include "job_steps.h"
#include "job_poll.h"
#include "job_sched.h"
#include "job_runai.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

/* The item of list (an array, or an object's member key) whose field f is v. */
static const cJSON *
find_item(const cJSON *doc, const char *key, const char *f, const char *v)
{
	const cJSON *list = key ? cJSON_GetObjectItemCaseSensitive(doc, key) : doc, *it;

	cJSON_ArrayForEach(it, list)
	{
		const cJSON *x = cJSON_GetObjectItemCaseSensitive(it, f);
		if (cJSON_IsString(x) && v && strcmp(x->valuestring, v) == 0)
			return it;
	}
	return NULL;
}

/* GET path as JSON (NULL on any failure; why set). */
static cJSON *
get_json(struct job *j, const char *path, const char *what, const char **why)
{
	struct http_resp h = {0};
	cJSON *doc = NULL;

	if (runai_api(j, "GET", path, NULL, true, 3, &h) && h.status == 200)
		doc = cJSON_Parse(h.body.data);
	if (!doc)
		*why = runai_error(j, what, &h);
	http_resp_free(&h);
	return doc;
}

/* events.txt (one JSON event a line) and stdout.txt (the logs, as CloudAI
 * stores them); what fails is said in the reason's place only when nothing
 * else is wrong. */
static void
store_logs(struct job *j)
{
	struct runai *r = j->runai;
	struct buf p = {0}, path = {0}, logs = {0}, ev = {0};
	cJSON *tr = NULL, *projects = NULL, *clusters = NULL, *events;
	const cJSON *it, *pr, *cl;
	const char *why = NULL, *name, *cluster, *domain, *pname;
	struct http_resp h = {0};

	buf_printf(&path, "/api/v1/workloads/%s/events?offset=0&limit=100&sortOrder=asc", j->info.job_id);
	if ((events = get_json(j, path.data, "events", &why))) {
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(events, "events"))
		{
			char *s = cJSON_PrintUnformatted(it);
			if (s)
				buf_printf(&ev, "%s\n", s);
			cJSON_free(s);
		}
		write_file_atomic(job_path(j, &p, "events.txt"), ev.data ? ev.data : "", ev.len);
		cJSON_Delete(events);
	}
	path.len = 0;
	buf_printf(&path, TRAININGS "/%s", j->info.job_id);
	if (!(tr = get_json(j, path.data, "training", &why)) ||
	    !(projects = get_json(j, "/api/v1/org-unit/projects", "projects", &why)) ||
	    !(clusters = get_json(j, "/api/v1/clusters", "clusters", &why)))
		goto out;
	name = json_get_str(&j->arena, tr, "name");
	cluster = json_get_str(&j->arena, tr, "clusterId");
	pr = find_item(projects, "projects", "id", r->project);
	cl = find_item(clusters, NULL, "uuid", cluster);
	pname = pr ? json_get_str(&j->arena, pr, "name") : NULL;
	domain = cl ? json_get_str(&j->arena, cl, "domain") : NULL;
	if (!name || !pname || !domain || !*domain) {
		why = !pname ? arena_printf(&j->arena, "RunAI logs: project %s not found", r->project)
		      : !domain ? arena_printf(&j->arena, "RunAI logs: cluster %s has no domain", cluster ? cluster : "")
		              : "RunAI logs: the training has no name";
		goto out;
	}
	path.len = 0;
	buf_printf(&path, "%s/cluster-api/status", domain);
	if (!runai_api(j, "GET", path.data, NULL, true, 3, &h) || !strstr(buf_str(&h.body), "OK")) {
		why = "RunAI logs: the cluster API is not available";
		goto out;
	}
	path.len = 0;
	buf_printf(&path, "%s%s/cluster-api/api/v1/%s/workloads/training/runai/%s/logs",
	           strncmp(domain, "https://", 8) == 0 ? "wss://" : "ws://", strstr(domain, "://") ? strstr(domain, "://") + 3 : domain,
	           pname, name);
	if (!http_ws_read(path.data, r->token, TIMEOUT_S * 5, &logs, &h) && h.status == 401) {
		/* the token expired: one new one */
		logs.len = 0;
		runai_wipe(&r->token);
		if (runai_auth(j, &h))
			http_ws_read(path.data, r->token, TIMEOUT_S * 5, &logs, &h);
	}
	if (h.status != 101) {
		why = arena_printf(&j->arena, "RunAI logs: %s", h.error);
		goto out;
	}
	if (!write_file_atomic(job_path(j, &p, "stdout.txt"), logs.data ? logs.data : "", logs.len))
		why = "cannot write stdout.txt";
out:
	if (why) {
		warn("%s: %s", j->dir, why);
		if (!j->info.reason)
			j->info.reason = why;
	}
	cJSON_Delete(tr);
	cJSON_Delete(projects);
	cJSON_Delete(clusters);
	http_resp_free(&h);
	buf_free(&p);
	buf_free(&path);
	buf_free(&logs);
	buf_free(&ev);
}

static void
finish(struct job *j, bool cleanup)
{
	const char *why = NULL;

	store_logs(j);
	if (!runai_delete(j, j->info.job_id, cleanup, &why) && !j->info.reason)
		j->info.reason = why;
}

static void
give_up(struct job *j, const char *state, const char *reason)
{
	j->info.state = state;
	j->info.reason = reason;
	j->info.end_time = job_iso(&j->arena, job_now());
	finish(j, false);
}

enum job_wait
runai_wait(struct job *j, bool want_start)
{
	long unreachable = job_env_seconds("KUNAI_RUNAI_UNREACHABLE", UNREACHABLE_S);
	double now, when = 0, last_when = 0, answered = job_now(), submit, started = 0;
	struct slurm_row r;
	enum job_wait result;
	bool terminal;
	long tick = 100;
	int missing = 0, f;

	if (!runai_config(j)) {
		j->info.state = "LOST";
		return JOB_WAIT_ENDED;
	}
	if (j->info.start_time)
		job_iso_parse(j->info.start_time, &started);
	submit = poll_begin(j, "workload ");
	for (;;) {
		if (job_wait_over(j, &result))
			break;
		now = job_now();
		f = poll_lookup(j, &r, &when);
		if (f >= 0 && when != last_when) {
			last_when = when;
			answered = now;
			missing = f == 0 ? missing + 1 : 0;
		}
		if (f == 1) {
			if (!started && strcmp(r.state, "PENDING") != 0) {
				started = now;
				j->info.start_time = job_iso(&j->arena, now);
			}
			job_state_outcome(r.state, 0, &terminal);
			if (terminal) {
				j->info.state = arena_strdup(&j->arena, r.state);
				j->info.has_exit_code = r.exit_code >= 0;
				j->info.exit_code = r.exit_code;
				if (r.reason[0])
					j->info.reason = arena_strdup(&j->arena, r.reason);
				j->info.end_time = job_iso(&j->arena, now);
				finish(j, false);
				result = JOB_WAIT_ENDED;
				break;
			}
			if (want_start && strcmp(r.state, "RUNNING") == 0) {
				j->info.state = "RUNNING";
				result = JOB_WAIT_STARTED;
				break;
			}
		} else if (f == 0 && missing >= 2) {
			j->info.state = "LOST";
			j->info.reason = "the workload is gone (deleted outside kunai?)";
			j->info.end_time = job_iso(&j->arena, now);
			result = JOB_WAIT_ENDED;
			break;
		}
		if (j->time_limit > 0 && now - submit > (double)(j->time_limit + TIME_GRACE_S)) {
			give_up(j, "TIMEOUT", arena_printf(&j->arena, "still running %d s past its time limit of %ld s; deleted",
			                                   TIME_GRACE_S, j->time_limit));
			result = JOB_WAIT_ENDED;
			break;
		}
		if (now - answered >= (double)unreachable) {
			j->info.state = "LOST";
			j->info.reason = arena_printf(&j->arena, "no answer from RunAI for %.0f s; workload %s may still exist",
			                              now - answered, j->info.job_id);
			j->info.end_time = job_iso(&j->arena, now);
			result = JOB_WAIT_ENDED;
			break;
		}
		poll_maybe(j, 0);
		job_sleep(j, tick);
		tick = tick < 1000 ? tick * 2 : 1000;
	}
	if (result == JOB_WAIT_ENDED)
		poll_unregister(j);
	return result;
}

void
runai_cancel(struct job *j)
{
	if (!j->info.job_id || !runai_config(j))
		return;
	finish(j, true);
	j->info.state = "CANCELLED";
	j->info.end_time = job_iso(&j->arena, job_now());
}

