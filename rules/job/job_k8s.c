/* job_k8s.c: a run on a kubernetes system: the run dir's k8s.json (gen),
 * given the build dir's labels and a name of its own, created with `kubectl
 * create`, watched through the build dir's shared poller (job_poll.c: one
 * `kubectl get pods,<kinds> -l kunai.dev/build=H -o json` for every waiter,
 * read by job_k8s_state.c), its pods' logs collected into the run dir, and
 * deleted when it ends or is interrupted (KUNAI_K8S_KEEP keeps it).
 *
 * Every kubectl call names the system's kube_config_path (relative to the
 * build dir) and default_namespace, from the build dir's kunai.json. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job_proc.h"
#include "job_steps.h"
#include "job_poll.h"
#include "job_k8s.h"
#include "job_sched.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

enum {
	CMD_TRIES = 5,          /* KUNAI_K8S_TRIES: transient kubectl errors, 1+2+4+8 s of retries */
	TIME_GRACE_S = 120,     /* past the time limit before kunai ends the object itself */
	PULL_WAIT_S = 300,      /* KUNAI_K8S_PULL_WAIT: an image that does not pull */
	PENDING_WAIT_S = 3600,  /* KUNAI_K8S_PENDING_WAIT: no node to run on */
	READY_WAIT_S = 1800,    /* KUNAI_K8S_READY_WAIT: a DynamoGraphDeployment's pods not Ready */
	UNREACHABLE_S = 600,    /* KUNAI_K8S_UNREACHABLE: no answer from the API server */
	MAX_ARGS = 24,
};


/* ---- configuration --------------------------------------------------------------- */

/* The system's kubeconfig and namespace (kunai.json), the build dir's label
 * value (a hash of its absolute path); false with j->info's reason set. */
static bool
k8s_config(struct job *j)
{
	const cJSON *sys, *mi;
	struct buf why = {0};
	char abs[PATH_MAX];
	const char *kc, *p;
	unsigned long h = 2166136261UL;
	cJSON *doc;
	bool absent;

	if (j->k8s_build)
		return true;
	doc = json_load("kunai.json", &why, &absent);
	if (!doc) {
		j->info.reason = arena_printf(&j->arena, "kunai.json: %s (run kunai job from the build dir)",
		                              buf_str(&why));
		buf_free(&why);
		return false;
	}
	buf_free(&why);
	sys = json_item(doc, "system");
	kc = json_get_str(&j->arena, sys, "kube_config_path");
	j->k8s_install = json_get_str(&j->arena, sys, "install_path");
	mi = cJSON_GetObjectItemCaseSensitive(sys, "monitor_interval");
	if (cJSON_IsNumber(mi) && mi->valuedouble >= 1 && mi->valuedouble <= 3600)
		j->poll_min_ms = (long)(mi->valuedouble * 1000);
	j->k8s_namespace = json_get_str(&j->arena, sys, "default_namespace");
	if (j->k8s_namespace && !*j->k8s_namespace)
		j->k8s_namespace = NULL;
	cJSON_Delete(doc);
	if (kc && kc[0] == '~' && kc[1] == '/' && getenv("HOME"))
		kc = arena_printf(&j->arena, "%s/%s", getenv("HOME"), kc + 2);
	j->kubeconfig = kc && *kc ? kc : NULL;
	for (p = realpath(".", abs) ? abs : "."; *p; p++)
		h = ((h ^ (unsigned char)*p) * 16777619UL) & 0xffffffffUL;
	j->k8s_build = arena_printf(&j->arena, "%08lx", h);
	return true;
}

/* Whether kubectl can be run, and the kubeconfig read; else the reason,
 * also in *cause when it is the configuration's (an unreadable kubeconfig). */
static bool
k8s_usable(struct job *j, const char **cause)
{
	const char *path = getenv("PATH"), *p, *e;
	struct buf b = {0};
	bool found = false;

	for (p = path ? path : "/usr/bin:/bin"; !found; p = e + 1) {
		e = p + strcspn(p, ":");
		b.len = 0;
		buf_printf(&b, "%.*s/kubectl", (int)(e - p), e == p ? "." : p);
		found = access(b.data, X_OK) == 0;
		if (!*e)
			break;
	}
	buf_free(&b);
	if (!found) {
		j->info.reason = "kubectl is not on PATH (install it, or put it on PATH for ninja)";
		return false;
	}
	if (j->kubeconfig && access(j->kubeconfig, R_OK) != 0) {
		j->info.reason = *cause =
		    arena_printf(&j->arena,
		                 "configuration error: kube_config_path %s: %s: set the system TOML's kube_config_path to a "
		                 "kubeconfig kubectl can read",
		                 j->kubeconfig, strerror(errno));
		return false;
	}
	return true;
}

/* ---- kubectl ----------------------------------------------------------------------- */

bool
k8s_transient(const char *err)
{
	static const char *const w[] = {
		"was refused", "connection refused", "Unable to connect to the server", "i/o timeout", "TLS handshake timeout",
		"connection reset by peer", "ServiceUnavailable", "the server is currently unable",
		"etcdserver: request timed out", "TooManyRequests", "Too many requests", "no route to host",
		"the server was unable to return a response", "http2: client connection lost", NULL,
	};
	size_t i;

	for (i = 0; err && w[i]; i++)
		if (strstr(err, w[i]))
			return true;
	return false;
}

/* kubectl's command line for args: the system's kubeconfig and namespace,
 * a bounded request time. */
static void
kubectl_argv(const struct job *j, const char *const *args, char **argv)
{
	int n = 0;

	argv[n++] = "kubectl";
	if (j->kubeconfig) {
		argv[n++] = "--kubeconfig";
		argv[n++] = (char *)j->kubeconfig;
	}
	if (j->k8s_namespace) {
		argv[n++] = "--namespace";
		argv[n++] = (char *)j->k8s_namespace;
	}
	argv[n++] = "--request-timeout=30s";
	for (; *args && n < MAX_ARGS - 1; args++)
		argv[n++] = (char *)*args;
	argv[n] = NULL;
}

/* A signal ends the retries unless cleanup. */
int
k8s_kubectl(struct job *j, const char *const *args, int tries, bool cleanup, struct buf *out, struct buf *err)
{
	char *argv[MAX_ARGS];
	long pause = 1000;
	int rc = -1, k;

	if (tries > 1)
		tries = (int)job_env_seconds("KUNAI_K8S_TRIES", tries);
	if (tries < 1)
		tries = 1;
	kubectl_argv(j, args, argv);
	for (k = 0; k < tries; k++) {
		if (out)
			out->len = 0;
		err->len = 0;
		rc = job_capture(j, argv, NULL, out, err);
		if (rc == 0 || !k8s_transient(buf_str(err)) || k + 1 == tries)
			break;
		warn("kubectl: %.*s; again in %ld s", (int)strcspn(buf_str(err), "\n"), buf_str(err), pause / 1000);
		if (job_sleep(j, pause) && j->signo && !cleanup)
			break;
		pause *= 2;
	}
	return rc;
}

/* The first line of kubectl's complaint, in the arena. */
const char *
k8s_first_line(struct job *j, const char *what, struct buf *err, int rc)
{
	const char *e = buf_str(err);

	return arena_printf(&j->arena, "kubectl %s: %.*s", what, (int)strcspn(e, "\n"),
	                    *e ? e : rc == 0 ? "no answer" : "failed");
}

/* ---- the object ------------------------------------------------------------------- */

/* Adds the build dir's and the attempt's labels to every kunai label set. */
static void
add_labels(struct job *j, cJSON *o)
{
	cJSON *c, *l;
	char n[16];

	if (!cJSON_IsObject(o) && !cJSON_IsArray(o))
		return;
	l = cJSON_GetObjectItemCaseSensitive(o, "labels");
	if (cJSON_IsObject(l) && cJSON_GetObjectItemCaseSensitive(l, "app.kubernetes.io/managed-by")) {
		snprintf(n, sizeof(n), "%d", j->info.attempt);
		cJSON_DeleteItemFromObjectCaseSensitive(l, "kunai.dev/build");
		cJSON_DeleteItemFromObjectCaseSensitive(l, "kunai.dev/attempt");
		cJSON_AddStringToObject(l, "kunai.dev/build", j->k8s_build);
		cJSON_AddStringToObject(l, "kunai.dev/attempt", n);
	}
	cJSON_ArrayForEach(c, o)
	if (c != l)
		add_labels(j, c);
}

/* The manifest as created: k8s.json with the labels and the name
 * <gen's name, cut to 43>-<build hash>, written to k8s.applied.json.
 * Sets j->k8s_kind and j->k8s_run (the run label). */
static bool
applied_manifest(struct job *j)
{
	struct buf p = {0}, why = {0}, out = {0};
	cJSON *doc, *md;
	const char *name, *kind;
	bool ok = false, absent;

	doc = json_load(job_path(j, &p, "k8s.json"), &why, &absent);
	if (!doc) {
		j->info.reason = arena_printf(&j->arena, "%s: %s (run kunai gen)", p.data, buf_str(&why));
		goto out;
	}
	md = cJSON_GetObjectItemCaseSensitive(doc, "metadata");
	kind = json_get_str(&j->arena, doc, "kind");
	name = json_get_str(&j->arena, md, "name");
	if (kind && strcmp(kind, "DynamoGraphDeployment") == 0 && name)
		name = dgd_prepare(j, doc);
	j->k8s_run = json_get_str(&j->arena, json_item(md, "labels"), "kunai.dev/run");
	if (!kind || !k8s_resource(kind) || !name || !j->k8s_run) {
		j->info.reason = arena_printf(&j->arena, "%s: not a kunai Job, JobSet, MPIJob or DynamoGraphDeployment",
		                              p.data);
		cJSON_Delete(doc);
		goto out;
	}
	j->k8s_kind = kind;
	name = arena_printf(&j->arena, "%.43s-%s", name, j->k8s_build);
	cJSON_ReplaceItemInObjectCaseSensitive(md, "name", cJSON_CreateString(name));
	add_labels(j, doc);
	json_print(doc, &out);
	ok = write_file_atomic(job_path(j, &p, "k8s.applied.json"), out.data, out.len);
	if (!ok)
		j->info.reason = "cannot write k8s.applied.json";
	j->info.job_id = arena_printf(&j->arena, "%s:%s", k8s_id_prefix(kind), name);
out:
	buf_free(&p);
	buf_free(&why);
	buf_free(&out);
	return ok;
}

/* The object's name from its id "job:NAME". */
static const char *
id_name(struct job *j)
{
	const char *c = j->info.job_id ? strchr(j->info.job_id, ':') : NULL;

	return c ? c + 1 : "";
}

/* kubectl delete; false with the reason in *why when it could not. */
static bool
delete_object(struct job *j, int tries, const char **why)
{
	const char *args[] = {"delete", k8s_resource(j->info.job_id), id_name(j), "--ignore-not-found",
	                      "--wait=false", NULL};
	struct buf err = {0};
	int rc;

	if (!args[1])
		return true;
	rc = k8s_kubectl(j, args, tries, true, NULL, &err);
	if (rc != 0) {
		*why = k8s_first_line(j, "delete", &err, rc);
		warn("%s: %s; %s is left behind", j->dir, *why, j->info.job_id);
	}
	buf_free(&err);
	return rc == 0;
}

bool
k8s_submit(struct job *j, bool *retryable)
{
	struct buf out = {0}, err = {0}, path = {0};
	const char *args[] = {"create", "-f", NULL, "-o", "name", NULL}, *why = NULL, *cause = NULL;
	char *argv[MAX_ARGS];
	int rc = -1, k;

	*retryable = false;
	if (!k8s_config(j) || !applied_manifest(j) || !k8s_usable(j, &cause))
		goto failed;
	args[2] = job_path(j, &path, "k8s.applied.json");
	for (k = 0; k < 2; k++) {
		rc = k8s_kubectl(j, args, CMD_TRIES, false, &out, &err);
		/* a kept (KUNAI_K8S_KEEP) or undeletable object of an earlier
		 * attempt: job.json knows of no live one, so it goes */
		if (rc == 0 || k || !strstr(buf_str(&err), "AlreadyExists"))
			break;
		warn("%s: %s exists from an earlier attempt; deleting it", j->dir, j->info.job_id);
		if (!delete_object(j, CMD_TRIES, &why))
			break;
		job_sleep(j, 1000);
	}
	if (rc == 0) {
		j->info.state = "PENDING";
		buf_free(&out);
		buf_free(&err);
		buf_free(&path);
		return true;
	}
	/* kubectl's whole answer (an admission webhook's may be long) */
	kubectl_argv(j, args, argv);
	job_keep_answer(j, "kubectl.txt",
	                arena_printf(&j->arena, "%s (in the build dir): exit status %d", job_argv_line(&j->arena, argv), rc),
	                &err, &out);
	j->info.reason = why ? why : k8s_first_line(j, "create", &err, rc);
	/* a setting the cluster refuses names its field, as sbatch's: failed,
	 * never retried (DESIGN 18) */
	if (!why && (cause = job_cause_kubectl(j, buf_str(&err))))
		j->info.reason = cause;
	*retryable = !cause && k8s_transient(buf_str(&err));
failed:
	j->info.job_id = NULL;
	j->info.state = cause ? "CONFIG_ERROR" : "SUBMIT_FAILED";
	if (cause)
		j->info.outcome = outcome_name(OUTCOME_FAILED);
	j->info.end_time = job_iso(&j->arena, job_now());
	warn("%s: %s", j->dir, j->info.reason);
	buf_free(&out);
	buf_free(&err);
	buf_free(&path);
	return false;
}

bool
k8s_find_submitted(struct job *j)
{
	struct buf out = {0}, err = {0}, sel = {0};
	const char *args[] = {"get", NULL, "-l", NULL, "-o", "json", NULL};
	const char *cause = NULL;
	const cJSON *it;
	cJSON *doc = NULL;
	bool found = false;
	char n[16];

	if (!k8s_config(j) || !applied_manifest(j) || !k8s_usable(j, &cause))
		return false;
	snprintf(n, sizeof(n), "%d", j->info.attempt);
	buf_printf(&sel, "kunai.dev/build=%s,kunai.dev/run=%s,kunai.dev/attempt=%s", j->k8s_build, j->k8s_run, n);
	args[1] = k8s_resource(j->k8s_kind);
	args[3] = sel.data;
	if (k8s_kubectl(j, args, CMD_TRIES, false, &out, &err) == 0 && (doc = cJSON_Parse(out.data)))
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "items")) found = true;
	cJSON_Delete(doc);
	if (found)
		j->info.state = "PENDING";
	else
		j->info.job_id = NULL;
	buf_free(&out);
	buf_free(&err);
	buf_free(&sel);
	return found;
}

bool
k8s_query(struct job *j, char *const *ids, size_t n, struct buf *rows)
{
	struct buf out = {0}, err = {0}, res = {0}, sel = {0};
	const char *args[] = {"get", NULL, "-l", NULL, "-o", "json", NULL}, *r;
	size_t i;
	bool ok;
	int rc;

	if (!k8s_config(j))
		return false;
	buf_puts(&res, "pods");
	for (i = 0; i < n; i++)
		if ((r = k8s_resource(ids[i])) && !strstr(res.data, r))
			buf_printf(&res, ",%s", r);
	buf_printf(&sel, "kunai.dev/build=%s", j->k8s_build);
	args[1] = res.data;
	args[3] = sel.data;
	rc = k8s_kubectl(j, args, 1, false, &out, &err);
	ok = rc == 0 && k8s_rows(buf_str(&out), ids, n, rows);
	if (!ok)
		warn("kubectl get: %.*s", (int)strcspn(buf_str(&err), "\n"), rc ? buf_str(&err) : "output is not JSON");
	buf_free(&out);
	buf_free(&err);
	buf_free(&res);
	buf_free(&sel);
	return ok;
}

void
k8s_run_selector(struct job *j, struct buf *sel)
{
	buf_printf(sel, "kunai.dev/build=%s,kunai.dev/run=%s,kunai.dev/attempt=%d", j->k8s_build,
	           j->k8s_run ? j->k8s_run : "", j->info.attempt);
}

/* ---- logs ------------------------------------------------------------------------- */

struct pod {
	const char *name, *node, *phase;
	int index;
};

static int
cmp_pod(const void *a, const void *b)
{
	const struct pod *x = a, *y = b;

	if (x->index != y->index)
		return x->index < y->index ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void
append_file(struct job *j, const char *name, const char *data, size_t len, bool truncate)
{
	struct buf p = {0};
	struct stat st;
	/* never through a link planted there, nor into a FIFO or device */
	int fd = open(job_path(j, &p, name),
	              O_WRONLY | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | (truncate ? O_TRUNC : O_APPEND), 0666);

	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		close(fd);
		fd = -1;
		errno = EINVAL;
	}
	if (fd < 0 || (len && !file_write_all(fd, data, len)))
		warn("write %s:", p.data);
	if (fd >= 0)
		close(fd);
	buf_free(&p);
}

/* Every pod's log into pods/POD.log, all of them (by completion index,
 * then name: an MPIJob's launcher first) into stdout.txt, and pods.txt:
 * "POD NODE PHASE" per pod, for node attribution. */
static void
collect_logs(struct job *j, int tries)
{
	const char *args[] = {"get", "pods", "-l", NULL, "-o", "json", NULL};
	const char *largs[] = {"logs", NULL, "--all-containers=true", NULL};
	struct buf out = {0}, err = {0}, sel = {0}, p = {0}, list = {0};
	struct pod pods[256];
	const cJSON *it;
	cJSON *doc = NULL;
	size_t n = 0, i;

	if (!j->info.job_id || !k8s_config(j))
		return;
	k8s_run_selector(j, &sel);
	args[3] = sel.data;
	if (!j->k8s_run || k8s_kubectl(j, args, tries, true, &out, &err) != 0 || !(doc = cJSON_Parse(out.data))) {
		warn("%s: pods of %s: %s", j->dir, j->info.job_id, err.len ? buf_str(&err) : "not found");
		goto out;
	}
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "items"))
	{
		const cJSON *md = cJSON_GetObjectItemCaseSensitive(it, "metadata");
		const char *ix = json_get_str(&j->arena, json_item(md, "labels"), "batch.kubernetes.io/job-completion-index");

		if (n == LEN(pods) || !json_get_str(&j->arena, md, "name"))
			continue;
		pods[n].name = json_get_str(&j->arena, md, "name");
		pods[n].node = json_get_str(&j->arena, json_item(it, "spec"), "nodeName");
		pods[n].phase = json_get_str(&j->arena, json_item(it, "status"), "phase");
		pods[n].index = ix ? atoi(ix) : -1;
		n++;
	}
	qsort(pods, n, sizeof(*pods), cmp_pod);
	mkdir(job_path(j, &p, "pods"), 0777);
	append_file(j, "stdout.txt", "", 0, true);
	for (i = 0; i < n; i++) {
		largs[1] = pods[i].name;
		buf_printf(&list, "%s %s %s\n", pods[i].name, pods[i].node ? pods[i].node : "-",
		           pods[i].phase ? pods[i].phase : "-");
		if (k8s_kubectl(j, largs, tries, true, &out, &err) != 0) {
			buf_printf(&err, "\n");
			append_file(j, "stderr.txt", err.data, strcspn(err.data, "\n") + 1, false);
			continue;
		}
		p.len = 0;
		buf_printf(&p, "pods/%s.log", pods[i].name);
		append_file(j, p.data, out.data, out.len, true);
		append_file(j, "stdout.txt", out.data, out.len, false);
	}
	append_file(j, "pods.txt", list.data ? list.data : "", list.len, true);
out:
	cJSON_Delete(doc);
	buf_free(&out);
	buf_free(&err);
	buf_free(&sel);
	buf_free(&p);
	buf_free(&list);
}

/* ---- wait and cancel --------------------------------------------------------------- */

static void
fill(struct job *j, const struct slurm_row *r)
{
	struct job_record *in = &j->info;

	in->state = arena_strdup(&j->arena, r->state);
	in->has_exit_code = r->exit_code >= 0;
	in->exit_code = r->exit_code;
	if (r->submit > 0)
		in->submit_time = job_iso(&j->arena, r->submit);
	if (r->start > 0)
		in->start_time = job_iso(&j->arena, r->start);
	if (r->end > 0)
		in->end_time = job_iso(&j->arena, r->end);
	if (r->nodes[0])
		in->nodes = arena_strdup(&j->arena, r->nodes);
	if (r->reason[0])
		in->reason = arena_strdup(&j->arena, r->reason);
}

/* kunai gives up on the object: state and reason, logs, deleted. */
static void
give_up(struct job *j, const char *state, const char *reason)
{
	const char *why = NULL;

	j->info.state = state;
	j->info.reason = reason;
	j->info.end_time = job_iso(&j->arena, job_now());
	collect_logs(j, 1);
	if (!delete_object(j, CMD_TRIES, &why))
		j->info.reason = arena_printf(&j->arena, "%s; not deleted: %s", reason, why);
}

/* The end as the cluster reported it: logs, then the object goes unless kept. */
static void
finish(struct job *j)
{
	static const char *const keeps[] = {"all", "failed", "none", NULL};
	const char *keep = env_word("KUNAI_K8S_KEEP", keeps, "none"), *why = NULL;
	bool passed = strcmp(j->info.state, "COMPLETED") == 0;

	collect_logs(j, CMD_TRIES);
	if (strcmp(keep, "all") == 0 || (strcmp(keep, "failed") == 0 && !passed))
		warn("%s: kept %s (KUNAI_K8S_KEEP=%s)", j->dir, j->info.job_id, keep);
	else
		delete_object(j, CMD_TRIES, &why);
}

enum job_wait
k8s_wait(struct job *j, bool want_start)
{
	long pull_wait = job_env_seconds("KUNAI_K8S_PULL_WAIT", PULL_WAIT_S);
	long pending_wait = job_env_seconds("KUNAI_K8S_PENDING_WAIT", PENDING_WAIT_S);
	long unreachable = job_env_seconds("KUNAI_K8S_UNREACHABLE", UNREACHABLE_S);
	long ready_wait = job_env_seconds("KUNAI_K8S_READY_WAIT", READY_WAIT_S);
	bool dgd;
	double begun = job_now(), now, when = 0, last_when = 0, answered = job_now(), pull_since = 0, unsched_since = 0, submit;
	struct buf err = {0};
	struct slurm_row r;
	bool terminal;
	long tick = 100;
	int missing = 0, f;
	enum job_wait result;

	if (!k8s_config(j)) {
		give_up(j, "LOST", j->info.reason);
		return JOB_WAIT_ENDED;
	}
	if (!j->k8s_run)
		applied_manifest(j); /* reattached: the run label, for the logs */
	dgd = j->info.job_id && strncmp(j->info.job_id, "dgd:", 4) == 0;
	submit = poll_begin(j, "");
	for (;;) {
		if (job_wait_over(j, &result))
			break;
		now = job_now();
		f = poll_lookup(j, &r, &when);
		if (f >= 0 && when != last_when) {
			last_when = when;
			answered = now;
		}
		if (f == 1) {
			job_state_outcome(r.state, 0, &terminal);
			if (terminal) {
				fill(j, &r);
				finish(j);
				result = JOB_WAIT_ENDED;
				break;
			}
			if (want_start && strcmp(r.state, "RUNNING") == 0) {
				fill(j, &r);
				result = JOB_WAIT_STARTED;
				break;
			}
			/* job.json says running once the pods do: kunai run's
			 * progress line and kunai status read it */
			if (strcmp(r.state, "RUNNING") == 0 && (!j->info.state || strcmp(j->info.state, "RUNNING") != 0)) {
				j->info.state = "RUNNING";
				job_save(j);
			}
			if (dgd && strcmp(r.state, "RUNNING") == 0) {
				fill(j, &r);
				if (!dgd_benchmark(j))
					continue; /* a signal: the loop's top ends it */
				j->info.end_time = job_iso(&j->arena, job_now());
				finish(j);
				result = JOB_WAIT_ENDED;
				break;
			}
			if (dgd && now - begun >= (double)ready_wait) {
				give_up(j, "NOT_READY", arena_printf(&j->arena, "the DynamoGraphDeployment's pods are not Ready "
				                                     "after %ld s: %s", ready_wait, r.reason));
				result = JOB_WAIT_ENDED;
				break;
			}
			pull_since = strncmp(r.reason, "ImagePull", 9) && strncmp(r.reason, "ErrImagePull", 12) ? 0
			             : pull_since ? pull_since : now;
			unsched_since = strncmp(r.reason, "Unschedulable", 13) ? 0 : unsched_since ? unsched_since : now;
			if (pull_since && now - pull_since >= (double)pull_wait) {
				give_up(j, "IMAGE_PULL_FAILED",
				        arena_printf(&j->arena, "%s; given up after %ld s", r.reason, pull_wait));
				result = JOB_WAIT_ENDED;
				break;
			}
			if (unsched_since && now - unsched_since >= (double)pending_wait) {
				give_up(j, "UNSCHEDULABLE",
				        arena_printf(&j->arena, "%s; given up after %ld s", r.reason, pending_wait));
				result = JOB_WAIT_ENDED;
				break;
			}
		} else if (f == 0 && when != 0 && ++missing >= 2) {
			give_up(j, "LOST", "the object is gone (deleted outside kunai?)");
			result = JOB_WAIT_ENDED;
			break;
		}
		if (j->time_limit > 0 && now - submit > (double)(j->time_limit + TIME_GRACE_S)) {
			give_up(j, "TIMEOUT", arena_printf(&j->arena, "still running %d s past its time limit of %ld s",
			                                   TIME_GRACE_S, j->time_limit));
			result = JOB_WAIT_ENDED;
			break;
		}
		if (now - answered >= (double)unreachable) {
			const char *args[] = {"get", k8s_resource(j->info.job_id), id_name(j), NULL};
			int rc = k8s_kubectl(j, args, 1, false, NULL, &err);
			give_up(j, "LOST",
			        arena_printf(&j->arena, "no answer from the API server for %.0f s (%s); %s may still exist "
			                     "until its activeDeadlineSeconds",
			                     now - answered, k8s_first_line(j, "get", &err, rc), j->info.job_id));
			result = JOB_WAIT_ENDED;
			break;
		}
		poll_maybe(j, 0);
		job_sleep(j, tick);
		tick = tick < 1000 ? tick * 2 : 1000;
	}
	if (result == JOB_WAIT_ENDED)
		poll_unregister(j);
	buf_free(&err);
	return result;
}

void
k8s_cancel(struct job *j)
{
	const char *why = NULL;

	if (!j->info.job_id || !k8s_config(j))
		return;
	if (!j->k8s_run)
		applied_manifest(j);
	collect_logs(j, 1);
	if (!delete_object(j, CMD_TRIES, &why))
		j->info.reason = why;
	j->info.state = "CANCELLED";
	j->info.end_time = job_iso(&j->arena, job_now());
}
