/* job_runai.c: a run as a RunAI training workload, through RunAI's REST
 * API as CloudAI's client uses it (src/cloudai/systems/runai/): a token
 * from the app id and secret (POST /api/v1/token), the run's runai.json
 * POSTed to /api/v1/workloads/trainings, the build dir's workloads listed
 * once per poll for all its waiters (GET /api/v1/workloads, job_poll.c),
 * at the end its events (GET /api/v1/workloads/ID/events) and logs (the
 * cluster's API, as CloudAI reads them: project and cluster domain, then
 * its WebSocket log stream) stored in the run dir, and the workload
 * deleted (DELETE /api/v1/workloads/trainings/ID); Ctrl-C deletes it too.
 * 401 re-authenticates once, 429 waits its Retry-After, 5xx and no answer
 * back off; the secret and the token are never printed or written.
 *
 *   RunAI phase                                    state      class
 *   Creating Initializing Pending Resuming         PENDING    (going)
 *   Running Updating Degraded Stopping Deleting
 *   Terminating Unknown                            RUNNING    (going)
 *   Completed                                      COMPLETED  passed (then the workload check)
 *   Failed                                         FAILED     failed
 *   Stopped                                        CANCELLED  cancelled (stopped outside kunai)
 *   gone from the listing twice                    LOST       infra
 */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_proc.h"
#include "job_poll.h"
#include "job_sched.h"
#include "job_runai.h"
#include "gen/base/json.h"
#include "gen/base/util.h"
#include "gen/toml/toml.h"



void
runai_wipe(char **s)
{
	if (*s) {
		memset(*s, 0, strlen(*s));
		free(*s);
		*s = NULL;
	}
}

/* app_secret of the system file (as TOML), or NULL with why set. */
static char *
secret_from_file(struct job *j, const char *path)
{
	struct arena a = {0};
	struct toml_error err;
	struct toml_value *root, *v;
	struct buf text = {0};
	char *s = NULL;

	if (!path || !job_slurp(path, &text)) {
		j->info.reason = path ? arena_printf(&j->arena, "cannot read the system file %s", path)
		                      : "no --system-config to read app_secret from (regenerate the build dir)";
		return NULL;
	}
	root = toml_parse(&a, path, text.data, text.len, &err);
	v = root ? toml_get(root->u.table, "app_secret") : NULL;
	if (v && v->type == TOML_STRING && *v->u.str.s) {
		s = xstrdup(v->u.str.s);
	} else {
		j->info.reason = arena_printf(&j->arena, "configuration error: %s has no app_secret: write it there, or "
		                              "name an environment variable that holds it (app_secret = \"$VAR\")", path);
		j->runai->config_error = true;
	}
	memset(text.data, 0, text.len);
	buf_free(&text);
	arena_free(&a);
	return s;
}

/* The system's API address, ids and secret (kunai.json, the environment,
 * the system file); false with j->info's reason set. */
bool
runai_config(struct job *j)
{
	struct runai *r;
	const cJSON *sys, *mi;
	struct buf why = {0};
	const char *env, *v;
	cJSON *doc;
	bool absent;
	size_t n;

	if (j->runai)
		return j->runai->secret != NULL;
	r = j->runai = arena_alloc(&j->arena, sizeof(*r));
	memset(r, 0, sizeof(*r));
	if (!http_available()) {
		struct http_resp h = {0};
		http_do("GET", "", NULL, NULL, 1, &h);
		j->info.reason = arena_strdup(&j->arena, h.error);
		return false;
	}
	if (!(doc = json_load("kunai.json", &why, &absent))) {
		j->info.reason = arena_printf(&j->arena, "kunai.json: %s (run kunai job from the build dir)", buf_str(&why));
		buf_free(&why);
		return false;
	}
	buf_free(&why);
	sys = json_item(doc, "system");
	r->base = json_get_str(&j->arena, sys, "base_url");
	r->app_id = json_get_str(&j->arena, sys, "app_id");
	r->project = json_get_str(&j->arena, sys, "project_id");
	r->cluster = json_get_str(&j->arena, sys, "cluster_id");
	env = json_get_str(&j->arena, sys, "app_secret_env");
	mi = cJSON_GetObjectItemCaseSensitive(sys, "monitor_interval");
	if (cJSON_IsNumber(mi) && mi->valuedouble >= 1 && mi->valuedouble <= 3600)
		j->poll_min_ms = (long)(mi->valuedouble * 1000);
	cJSON_Delete(doc);
	if (!r->base || !r->app_id || !r->project || !r->cluster) {
		j->info.reason = "kunai.json names no RunAI system (regenerate the build dir)";
		return false;
	}
	n = strlen(r->base);
	while (n && r->base[n - 1] == '/')
		n--;
	r->base = arena_strndup(&j->arena, r->base, n);
	if (env) {
		if (!(v = getenv(env)) || !*v) {
			j->info.reason = arena_printf(&j->arena,
			                              "configuration error: app_secret is \"$%s\", which is not set in the "
			                              "environment: export it for ninja, or write the secret in the system TOML",
			                              env);
			r->config_error = true;
			return false;
		}
		r->secret = xstrdup(v);
	} else {
		r->secret = secret_from_file(j, j->system_config);
	}
	return r->secret != NULL;
}

/* "RunAI: HTTP N: message" from an error answer (its "message" when JSON). */
const char *
runai_error(struct job *j, const char *what, const struct http_resp *h)
{
	cJSON *doc = h->status ? cJSON_Parse(buf_str((struct buf *)&h->body)) : NULL;
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(doc, "message");
	const char *s;

	if (!h->status)
		s = arena_printf(&j->arena, "RunAI %s: %s", what, h->error);
	else if (cJSON_IsString(m))
		s = arena_printf(&j->arena, "RunAI %s: HTTP %ld: %.200s", what, h->status, m->valuestring);
	else
		s = arena_printf(&j->arena, "RunAI %s: HTTP %ld", what, h->status);
	cJSON_Delete(doc);
	return s;
}

/* POST /api/v1/token with the app id and secret (CloudAI's body). */
bool
runai_auth(struct job *j, struct http_resp *h)
{
	struct runai *r = j->runai;
	cJSON *b = cJSON_CreateObject(), *doc;
	const cJSON *t;
	struct buf url = {0};
	char *body;
	bool ok;

	cJSON_AddStringToObject(b, "grantType", "app_token");
	cJSON_AddStringToObject(b, "AppId", r->app_id);
	cJSON_AddStringToObject(b, "AppSecret", r->secret);
	body = cJSON_PrintUnformatted(b);
	cJSON_Delete(b);
	if (!body)
		fatal("out of memory");
	buf_printf(&url, "%s/api/v1/token", r->base);
	ok = http_do("POST", url.data, NULL, body, TIMEOUT_S, h);
	memset(body, 0, strlen(body));
	cJSON_free(body);
	buf_free(&url);
	if (!ok || h->status != 200)
		return false;
	doc = cJSON_Parse(buf_str(&h->body));
	t = cJSON_GetObjectItemCaseSensitive(doc, "accessToken");
	runai_wipe(&r->token);
	if (cJSON_IsString(t) && *t->valuestring)
		r->token = xstrdup(t->valuestring);
	if (doc && cJSON_IsString(t))
		memset(t->valuestring, 0, strlen(t->valuestring));
	memset(h->body.data, 0, h->body.len);
	cJSON_Delete(doc);
	if (!r->token)
		snprintf(h->error, sizeof(h->error), "no accessToken in the answer");
	return r->token != NULL;
}

/* Whether a request that got h may succeed when sent again, and after how
 * long (*ms): 429 after its Retry-After, 5xx and no answer after 1, 2, 4 s
 * ... (*backoff: how many of those so far). */
static bool
again(const struct http_resp *h, int *backoff, long *ms)
{
	if (h->status == 429) {
		*ms = (h->retry_after >= 0 ? (h->retry_after < RETRY_AFTER_MAX ? h->retry_after : RETRY_AFTER_MAX) : 5) * 1000;
		return true;
	}
	*ms = 1000L << (*backoff < 6 ? *backoff : 6);
	++*backoff;
	return (h->status == 0 && !h->permanent) || h->status >= 500;
}

/* One call of the API (url: base + path, or absolute when path starts with
 * a scheme), authenticated, retried as the header says; false when no
 * answer came at last (h says why); an error status is the caller's. A
 * signal ends the retries unless cleanup. */
bool
runai_api(struct job *j, const char *method, const char *path, const char *body, bool cleanup, int tries,
    struct http_resp *h)
{
	struct runai *r = j->runai;
	struct buf url = {0};
	bool reauth = false, ok = false;
	long ms;
	int k, backoff = 0;

	if (strstr(path, "://"))
		buf_puts(&url, path);
	else
		buf_printf(&url, "%s%s", r->base, path);
	for (k = 0; k < tries; k++) {
		if (!r->token && !runai_auth(j, h)) {
			if (h->status && h->status != 429 && h->status < 500)
				break; /* refused: the id or secret is wrong */
		} else {
			ok = http_do(method, url.data, r->token, body, TIMEOUT_S, h);
			if (ok && h->status == 401 && !reauth) {
				/* expired: one new token */
				runai_wipe(&r->token);
				reauth = true;
				k--;
				continue;
			}
		}
		if (k + 1 == tries || !again(h, &backoff, &ms))
			break;
		if (h->status == 429)
			warn("%s: RunAI asks to slow down (HTTP 429); again in %ld s", j->dir, ms / 1000);
		if (job_sleep(j, ms) && j->signo && !cleanup)
			break;
	}
	buf_free(&url);
	return ok && h->status != 0;
}

/* ---- submit ------------------------------------------------------------------------ */

/* runai.json with the attempt in its name: runai.applied.json. */
static char *
applied_request(struct job *j)
{
	struct buf p = {0}, why = {0}, out = {0};
	cJSON *doc, *name;
	char *text = NULL;
	bool absent;

	if (!(doc = json_load(job_path(j, &p, "runai.json"), &why, &absent))) {
		j->info.reason = arena_printf(&j->arena, "%s: %s", p.data, buf_str(&why));
		goto out;
	}
	name = cJSON_GetObjectItemCaseSensitive(doc, "name");
	if (!cJSON_IsString(name)) {
		j->info.reason = "runai.json has no name";
		cJSON_Delete(doc);
		goto out;
	}
	j->runai->name = arena_printf(&j->arena, "%s-a%d", name->valuestring, j->info.attempt);
	cJSON_SetValuestring(name, j->runai->name);
	json_print(doc, &out);
	if (!write_file_atomic(job_path(j, &p, "runai.applied.json"), out.data, out.len)) {
		j->info.reason = "cannot write runai.applied.json";
		goto out;
	}
	text = xstrdup(out.data);
out:
	buf_free(&p);
	buf_free(&why);
	buf_free(&out);
	return text;
}

/* The id of the workload of this project named name, or NULL. */
static const char *
find_by_name(struct job *j, const char *name)
{
	struct http_resp h = {0};
	struct buf path = {0};
	const cJSON *w;
	const char *id = NULL;
	cJSON *doc;

	buf_printf(&path, "/api/v1/workloads?filterBy=name%%3D%%3D%s&filterBy=projectId%%3D%%3D%s&limit=10", name,
	           j->runai->project);
	if (runai_api(j, "GET", path.data, NULL, false, TRIES, &h) && h.status == 200 && (doc = cJSON_Parse(h.body.data))) {
		cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(doc, "workloads"))
		{
			const char *n = json_get_str(&j->arena, w, "name");
			if (!id && n && strcmp(n, name) == 0)
				id = json_get_str(&j->arena, w, "id");
		}
		cJSON_Delete(doc);
	}
	buf_free(&path);
	http_resp_free(&h);
	return id;
}

bool
runai_delete(struct job *j, const char *id, bool cleanup, const char **why)
{
	struct http_resp h = {0};
	struct buf path = {0};
	bool ok;

	buf_printf(&path, TRAININGS "/%s", id);
	ok = runai_api(j, "DELETE", path.data, NULL, cleanup, TRIES, &h) &&
	     (h.status == 200 || h.status == 202 || h.status == 204 || h.status == 404);
	if (!ok) {
		*why = runai_error(j, "delete", &h);
		warn("%s: %s; workload %s is left behind", j->dir, *why, id);
	}
	buf_free(&path);
	http_resp_free(&h);
	return ok;
}

/* What a refused submission says of the configuration (DESIGN 18): the
 * cause naming the system TOML's field, with the answer; NULL when it is
 * not the configuration's (no answer, 409, 429, 5xx). token: the answer is
 * the submission's, not the token request's. */
static const char *
config_cause(struct job *j, const struct http_resp *h, bool token)
{
	const struct runai *r = j->runai;
	const char *said = runai_error(j, token ? "submit" : "token", h), *cause;

	if (h->status == 404)
		cause = arena_printf(&j->arena, "base_url %s has no RunAI API at %s: check the system TOML's base_url",
		                     r->base, token ? TRAININGS : "/api/v1/token");
	else if (!token && (h->status == 400 || h->status == 401 || h->status == 403))
		cause = "RunAI refused the application's credentials: check the system TOML's app_id and app_secret";
	else if (token && h->status == 403)
		cause = arena_printf(&j->arena,
		                     "RunAI forbids application '%s' to submit to project '%s': check the system TOML's "
		                     "project_id, and the application's role in that project",
		                     r->app_id, r->project);
	else if (token && (h->status == 400 || h->status == 422))
		cause = "RunAI refused the request: check the system TOML's project_id and cluster_id, and the test's "
		        "settings (the request is runai.applied.json)";
	else
		return NULL;
	return arena_printf(&j->arena, "configuration error: %s [%s]", cause, said);
}

bool
runai_submit(struct job *j, bool *retryable)
{
	struct http_resp h = {0};
	const char *id, *why = NULL, *url, *cause = NULL;
	char *body = NULL;
	cJSON *doc;
	int k;

	*retryable = false;
	if (!runai_config(j) || !(body = applied_request(j)))
		goto failed;
	for (k = 0; k < 2; k++) {
		runai_api(j, "POST", TRAININGS, body, false, TRIES, &h);
		/* one of an earlier attempt that job.json does not know */
		if (h.status != 409 || k || !(id = find_by_name(j, j->runai->name)))
			break;
		warn("%s: workload %s exists from an earlier attempt; deleting it", j->dir, j->runai->name);
		if (!runai_delete(j, id, false, &why))
			break;
		job_sleep(j, 1000);
	}
	if (h.status >= 200 && h.status < 300 && (doc = cJSON_Parse(h.body.data))) {
		j->info.job_id = json_get_str(&j->arena, doc, "workloadId");
		cJSON_Delete(doc);
		if (j->info.job_id) {
			j->info.state = "PENDING";
			free(body);
			http_resp_free(&h);
			return true;
		}
	}
	/* the answer's whole body (a validation error may list every field);
	 * the token request's when no token came */
	url = j->runai->token ? TRAININGS : "/api/v1/token";
	job_keep_answer(j, "runai.txt",
	                h.status ? arena_printf(&j->arena, "POST %s%s: HTTP %ld", j->runai->base, url, h.status)
	                         : arena_printf(&j->arena, "POST %s%s: no answer: %s", j->runai->base, url, h.error),
	                &h.body, NULL);
	j->info.reason = why ? why : runai_error(j, "submit", &h);
	/* the configuration's fault: failed, never retried */
	if (!why && (cause = config_cause(j, &h, j->runai->token != NULL)))
		j->info.reason = cause;
	*retryable = !cause && ((h.status == 0 && !h.permanent) || h.status == 429 || h.status >= 500);
failed:
	if (!cause && j->runai && j->runai->config_error)
		cause = j->info.reason;
	j->info.job_id = NULL;
	j->info.state = cause ? "CONFIG_ERROR" : "SUBMIT_FAILED";
	if (cause)
		j->info.outcome = outcome_name(OUTCOME_FAILED);
	j->info.end_time = job_iso(&j->arena, job_now());
	warn("%s: %s", j->dir, j->info.reason);
	free(body);
	http_resp_free(&h);
	return false;
}

bool
runai_find_submitted(struct job *j)
{
	struct buf p = {0}, why = {0};
	const cJSON *name;
	cJSON *doc;
	bool absent;

	if (!runai_config(j))
		return false;
	/* the name the last attempt applied */
	doc = json_load(job_path(j, &p, "runai.applied.json"), &why, &absent);
	name = cJSON_GetObjectItemCaseSensitive(doc, "name");
	if (cJSON_IsString(name))
		j->info.job_id = find_by_name(j, name->valuestring);
	cJSON_Delete(doc);
	buf_free(&p);
	buf_free(&why);
	if (j->info.job_id)
		j->info.state = "PENDING";
	return j->info.job_id != NULL;
}

/* ---- the listing ------------------------------------------------------------------- */

static const char *
state_of(const char *phase)
{
	static const struct {
		const char *phase, *state;
	} map[] = {
		{"Creating", "PENDING"},   {"Initializing", "PENDING"}, {"Pending", "PENDING"},
		{"Resuming", "PENDING"},   {"Completed", "COMPLETED"},  {"Failed", "FAILED"},
		{"Stopped", "CANCELLED"},
	};
	size_t i;

	for (i = 0; phase && i < LEN(map); i++)
		if (strcmp(map[i].phase, phase) == 0)
			return map[i].state;
	return "RUNNING";
}

bool
runai_query(struct job *j, char *const *ids, size_t n, struct buf *rows)
{
	bool *found = xcalloc(n ? n : 1, sizeof(*found)), ok = true, more = true;
	struct http_resp h = {0};
	struct buf path = {0};
	const cJSON *w, *next;
	struct slurm_row r;
	long offset = 0;
	size_t i, page;
	cJSON *doc;

	if (!runai_config(j)) {
		free(found);
		return false;
	}
	/* the project's workloads, a page of PAGE at a time */
	for (page = 0; more && page < PAGES_MAX; page++) {
		path.len = 0;
		buf_printf(&path, "/api/v1/workloads?filterBy=projectId%%3D%%3D%s&limit=%d&offset=%ld", j->runai->project,
		           PAGE, offset);
		if (!runai_api(j, "GET", path.data, NULL, false, 1, &h) || h.status != 200 ||
		    !(doc = cJSON_Parse(h.body.data))) {
			warn("%s", runai_error(j, "list workloads", &h));
			ok = false;
			break;
		}
		more = false;
		cJSON_ArrayForEach(w, cJSON_GetObjectItemCaseSensitive(doc, "workloads"))
		{
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(w, "id"),
			            *ph = cJSON_GetObjectItemCaseSensitive(w, "phase"),
			            *msg = cJSON_GetObjectItemCaseSensitive(w, "phaseMessage");
			if (!cJSON_IsString(id))
				continue;
			for (i = 0; i < n; i++)
				if (!found[i] && strcmp(ids[i], id->valuestring) == 0) {
					found[i] = true;
					memset(&r, 0, sizeof(r));
					snprintf(r.id, sizeof(r.id), "%s", id->valuestring);
					snprintf(r.state, sizeof(r.state), "%s",
					         state_of(cJSON_IsString(ph) ? ph->valuestring : NULL));
					r.exit_code = strcmp(r.state, "COMPLETED") == 0 ? 0 : -1;
					r.signal = r.exit_code;
					if (cJSON_IsString(msg))
						snprintf(r.reason, sizeof(r.reason), "%s", msg->valuestring);
					poll_row_line(rows, &r);
				}
		}
		next = cJSON_GetObjectItemCaseSensitive(doc, "next");
		if (cJSON_IsNumber(next) && next->valuedouble > offset) {
			offset = (long)next->valuedouble;
			more = true;
		}
		cJSON_Delete(doc);
	}
	for (i = 0; ok && i < n; i++)
		if (!found[i])
			buf_printf(rows, "%s|-\n", ids[i]);
	free(found);
	buf_free(&path);
	http_resp_free(&h);
	return ok;
}

void
runai_release(struct job *j)
{
	if (j->runai) {
		runai_wipe(&j->runai->secret);
		runai_wipe(&j->runai->token);
	}
}
