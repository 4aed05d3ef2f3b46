/* job_k8s_state.c: what `kubectl get pods,<kinds> -l kunai.dev/build=H -o
 * json` says about each run's object, as one poll.state row per job
 * (job_poll.c's format): the object's own conditions (Job: Complete/Failed,
 * JobSet: Completed/Failed, MPIJob: Succeeded/Failed) and what its pods say
 * (OOMKilled, a lost node, an image that does not pull, no node to run on).
 *
 *   what the cluster says                      state          class
 *   object Complete/Completed/Succeeded        COMPLETED      passed (then the check)
 *   a container terminated OOMKilled           OUT_OF_MEMORY  infra
 *   a pod NodeLost, or DisruptionTarget=True   NODE_FAIL      node-fail
 *   a pod Evicted                              PREEMPTED      infra
 *   object Failed, reason DeadlineExceeded     TIMEOUT        timeout
 *   object Failed otherwise                    FAILED         failed (exit code of a pod)
 *   InvalidImageName, CreateContainer*Error    LAUNCH_FAILED  infra
 *   ImagePullBackOff, ErrImagePull             PENDING (+why) infra after KUNAI_K8S_PULL_WAIT
 *   PodScheduled=False (Unschedulable)         PENDING (+why) infra after KUNAI_K8S_PENDING_WAIT
 *   a pod Running                              RUNNING
 *
 * A DynamoGraphDeployment (AIDynamo) never completes by itself: it is
 * RUNNING once every pod of it is Ready (the runner then runs the
 * benchmark in its frontend pod, job_k8s_dgd.c), PENDING with "N of M pods
 * ready" and the first waiting reason (CrashLoopBackOff) until then, and
 * LAUNCH_FAILED when the operator marks it Failed.
 */
#define _POSIX_C_SOURCE 200809L
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job_proc.h"
#include "job_poll.h"
#include "job_k8s.h"
#include "gen/base/util.h"

/* The resource kubectl knows each kind by, and the id prefix kunai gives it. */
static const struct {
	const char *kind, *resource, *prefix;
} kinds[] = {
	{"Job", "jobs.batch", "job"},
	{"JobSet", "jobsets.jobset.x-k8s.io", "jobset"},
	{"MPIJob", "mpijobs.kubeflow.org", "mpijob"},
	{"DynamoGraphDeployment", "dynamographdeployments.nvidia.com", "dgd"},
};

const char *
k8s_resource(const char *kind_or_id)
{
	size_t i, n;

	for (i = 0; i < LEN(kinds); i++) {
		n = strlen(kinds[i].prefix);
		if (strcmp(kind_or_id, kinds[i].kind) == 0 ||
		    (strncmp(kind_or_id, kinds[i].prefix, n) == 0 && kind_or_id[n] == ':'))
			return kinds[i].resource;
	}
	return NULL;
}

const char *
k8s_id_prefix(const char *kind)
{
	size_t i;

	for (i = 0; i < LEN(kinds); i++)
		if (strcmp(kind, kinds[i].kind) == 0)
			return kinds[i].prefix;
	return NULL;
}

static const char *
str_at(const cJSON *o, const char *a, const char *b, const char *c)
{
	const cJSON *v = o;

	if (a)
		v = cJSON_GetObjectItemCaseSensitive(v, a);
	if (b)
		v = cJSON_GetObjectItemCaseSensitive(v, b);
	if (c)
		v = cJSON_GetObjectItemCaseSensitive(v, c);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double
iso(const char *s)
{
	double t;

	return s && job_iso_parse(s, &t) ? t : 0;
}

/* The condition of type t with status "True", or NULL. */
static const cJSON *
condition(const cJSON *obj, const char *t)
{
	const cJSON *c, *cs = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "status"),
	                                                          "conditions");

	cJSON_ArrayForEach(c, cs)
	{
		const char *type = str_at(c, "type", NULL, NULL), *st = str_at(c, "status", NULL, NULL);
		if (type && st && strcmp(type, t) == 0 && strcmp(st, "True") == 0)
			return c;
	}
	return NULL;
}

/* What one pod says, as the worst thing found so far. */
enum pod_issue { PI_NONE, PI_UNSCHED, PI_PULL, PI_LAUNCH, PI_EVICTED, PI_NODE, PI_OOM };

struct pods_view {
	enum pod_issue issue;
	char why[200];
	bool running;
	int pods, ready;
	char waiting[160]; /* the first waiting reason past ContainerCreating */
	int exit_code; /* first nonzero exit code of a terminated container; -1 none */
	double start, end;
	struct buf nodes;
};

static void
set_issue(struct pods_view *v, enum pod_issue k, const char *fmt, const char *a, const char *b, const char *c)
{
	if (k <= v->issue)
		return;
	v->issue = k;
	snprintf(v->why, sizeof(v->why), fmt, a ? a : "", b ? b : "", c ? c : "");
}

static void
add_node(struct pods_view *v, const char *node)
{
	const char *p;
	size_t n = strlen(node);

	for (p = buf_str(&v->nodes); (p = strstr(p, node)); p += n)
		if ((p == v->nodes.data || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return;
	buf_printf(&v->nodes, "%s%s", v->nodes.len ? "," : "", node);
}

static void
view_pod(struct pods_view *v, const cJSON *pod)
{
	const cJSON *st = cJSON_GetObjectItemCaseSensitive(pod, "status"), *cs, *c, *cond;
	const char *name = str_at(pod, "metadata", "name", NULL), *node = str_at(pod, "spec", "nodeName", NULL);
	const char *phase = str_at(st, "phase", NULL, NULL), *reason = str_at(st, "reason", NULL, NULL);
	double t;

	if (node && *node)
		add_node(v, node);
	if ((t = iso(str_at(st, "startTime", NULL, NULL))) > 0 && (v->start == 0 || t < v->start))
		v->start = t;
	if (phase && strcmp(phase, "Running") == 0)
		v->running = true;
	v->pods++;
	if (phase && strcmp(phase, "Running") == 0 && condition(pod, "Ready"))
		v->ready++;
	if (reason && strcmp(reason, "NodeLost") == 0)
		set_issue(v, PI_NODE, "node lost: pod %s on %s (%s)", name, node, reason);
	else if (reason && strcmp(reason, "Evicted") == 0)
		set_issue(v, PI_EVICTED, "Evicted: pod %s: %s%s", name, str_at(st, "message", NULL, NULL), NULL);
	if ((cond = condition(pod, "DisruptionTarget")))
		set_issue(v, PI_NODE, "node lost: pod %s on %s (%s)", name, node, str_at(cond, "reason", NULL, NULL));
	cJSON_ArrayForEach(cond, cJSON_GetObjectItemCaseSensitive(st, "conditions"))
	{
		const char *type = str_at(cond, "type", NULL, NULL), *s = str_at(cond, "status", NULL, NULL);
		if (type && s && strcmp(type, "PodScheduled") == 0 && strcmp(s, "False") == 0)
			set_issue(v, PI_UNSCHED, "%s: %s (pod %s)", str_at(cond, "reason", NULL, NULL),
			          str_at(cond, "message", NULL, NULL), name);
	}
	cs = cJSON_GetObjectItemCaseSensitive(st, "containerStatuses");
	cJSON_ArrayForEach(c, cs)
	{
		const cJSON *state = cJSON_GetObjectItemCaseSensitive(c, "state");
		const cJSON *term = cJSON_GetObjectItemCaseSensitive(state, "terminated");
		const char *wr = str_at(state, "waiting", "reason", NULL), *tr = str_at(term, "reason", NULL, NULL);
		const cJSON *ec = cJSON_GetObjectItemCaseSensitive(term, "exitCode");

		if (wr && !v->waiting[0] && strcmp(wr, "ContainerCreating") != 0 && strcmp(wr, "PodInitializing") != 0)
			snprintf(v->waiting, sizeof(v->waiting), "; pod %s: %s", name ? name : "?", wr);
		if (wr && (strcmp(wr, "ImagePullBackOff") == 0 || strcmp(wr, "ErrImagePull") == 0))
			set_issue(v, PI_PULL, "%s: %s (pod %s)", wr, str_at(state, "waiting", "message", NULL), name);
		else if (wr && (strcmp(wr, "InvalidImageName") == 0 || strcmp(wr, "ErrImageNeverPull") == 0 ||
		                strncmp(wr, "CreateContainer", 15) == 0))
			set_issue(v, PI_LAUNCH, "%s: %s (pod %s)", wr, str_at(state, "waiting", "message", NULL), name);
		if (!term)
			continue;
		if (tr && strcmp(tr, "OOMKilled") == 0)
			set_issue(v, PI_OOM, "OOMKilled: pod %s on %s%s", name, node, NULL);
		if (cJSON_IsNumber(ec) && ec->valueint != 0 && v->exit_code < 0)
			v->exit_code = ec->valueint;
		if ((t = iso(str_at(term, "finishedAt", NULL, NULL))) > v->end)
			v->end = t;
	}
}

/* Whether the pod belongs to obj: the same run and attempt labels. */
static bool
pod_of(const cJSON *pod, const cJSON *obj)
{
	static const char *const keys[] = {"kunai.dev/run", "kunai.dev/attempt"};
	const cJSON *pl = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(pod, "metadata"), "labels");
	const cJSON *ol = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(obj, "metadata"), "labels");
	size_t i;

	for (i = 0; i < LEN(keys); i++) {
		const char *a = str_at(pl, keys[i], NULL, NULL), *b = str_at(ol, keys[i], NULL, NULL);
		if (!a || !b || strcmp(a, b) != 0)
			return false;
	}
	return true;
}

/* Fills r for obj and its pods among items. */
static void
object_row(const cJSON *obj, const cJSON *items, struct slurm_row *r)
{
	const cJSON *it, *ok, *failed;
	const char *freason, *kind = str_at(obj, "kind", NULL, NULL);
	bool dgd = kind && strcmp(kind, "DynamoGraphDeployment") == 0;
	struct pods_view v;

	memset(&v, 0, sizeof(v));
	v.exit_code = -1;
	cJSON_ArrayForEach(it, items)
	{
		const char *kind = str_at(it, "kind", NULL, NULL);
		if (kind && strcmp(kind, "Pod") == 0 && pod_of(it, obj))
			view_pod(&v, it);
	}
	r->submit = iso(str_at(obj, "metadata", "creationTimestamp", NULL));
	r->start = v.start;
	r->exit_code = r->signal = -1;
	snprintf(r->nodes, sizeof(r->nodes), "%s", buf_str(&v.nodes));
	buf_free(&v.nodes);
	ok = condition(obj, "Complete");
	if (!ok)
		ok = condition(obj, "Completed");
	if (!ok)
		ok = condition(obj, "Succeeded");
	failed = condition(obj, "Failed");
	freason = failed ? str_at(failed, "reason", NULL, NULL) : NULL;
	if (ok || failed) {
		r->end = iso(str_at(ok ? ok : failed, "lastTransitionTime", NULL, NULL));
		if (r->end == 0)
			r->end = v.end;
	}
	if (ok) {
		snprintf(r->state, sizeof(r->state), "COMPLETED");
		r->exit_code = 0;
	} else if (v.issue == PI_OOM || v.issue == PI_NODE || (v.issue == PI_EVICTED && (failed || dgd))) {
		snprintf(r->state, sizeof(r->state), "%s",
		         v.issue == PI_OOM ? "OUT_OF_MEMORY" : v.issue == PI_NODE ? "NODE_FAIL" : "PREEMPTED");
		snprintf(r->reason, sizeof(r->reason), "%s", v.why);
		if (r->end == 0)
			r->end = job_now();
	} else if (failed && dgd) {
		snprintf(r->state, sizeof(r->state), "LAUNCH_FAILED");
		snprintf(r->reason, sizeof(r->reason), "DynamoGraphDeployment Failed: %.60s %.100s",
		         freason ? freason : "", str_at(failed, "message", NULL, NULL) ? str_at(failed, "message", NULL, NULL) : "");
		r->end = job_now();
	} else if (failed) {
		snprintf(r->state, sizeof(r->state), "%s",
		         freason && strcmp(freason, "DeadlineExceeded") == 0 ? "TIMEOUT" : "FAILED");
		r->exit_code = v.exit_code >= 0 ? v.exit_code : 1;
		snprintf(r->reason, sizeof(r->reason), "%s: %s", freason ? freason : "Failed",
		         str_at(failed, "message", NULL, NULL) ? str_at(failed, "message", NULL, NULL) : "");
	} else if (v.issue == PI_LAUNCH) {
		snprintf(r->state, sizeof(r->state), "LAUNCH_FAILED");
		snprintf(r->reason, sizeof(r->reason), "%s", v.why);
		r->end = job_now();
	} else if (dgd && (v.issue == PI_PULL || v.issue == PI_UNSCHED)) {
		snprintf(r->state, sizeof(r->state), "PENDING");
		snprintf(r->reason, sizeof(r->reason), "%s", v.why);
	} else if (dgd) {
		snprintf(r->state, sizeof(r->state), "%s", v.pods > 0 && v.ready == v.pods ? "RUNNING" : "PENDING");
		if (v.ready < v.pods || v.pods == 0)
			snprintf(r->reason, sizeof(r->reason), "%d of %d pods ready%s", v.ready, v.pods, v.waiting);
	} else if (v.running) {
		snprintf(r->state, sizeof(r->state), "RUNNING");
	} else {
		snprintf(r->state, sizeof(r->state), "PENDING");
		if (v.issue == PI_PULL || v.issue == PI_UNSCHED)
			snprintf(r->reason, sizeof(r->reason), "%s", v.why);
	}
	/* the row's layout has '|' and '\n' as separators */
	for (char *p = r->reason; *p; p++)
		if (*p == '|' || *p == '\n')
			*p = ' ';
}

bool
k8s_rows(const char *json, char *const *ids, size_t n, struct buf *rows)
{
	cJSON *doc = cJSON_Parse(json);
	const cJSON *items = cJSON_GetObjectItemCaseSensitive(doc, "items"), *it, *obj;
	struct slurm_row r;
	size_t i;

	if (!cJSON_IsArray(items)) {
		cJSON_Delete(doc);
		return false;
	}
	for (i = 0; i < n; i++) {
		const char *colon = strchr(ids[i], ':');
		obj = NULL;
		cJSON_ArrayForEach(it, items)
		{
			const char *kind = str_at(it, "kind", NULL, NULL), *name = str_at(it, "metadata", "name", NULL);
			const char *p = kind ? k8s_id_prefix(kind) : NULL;
			if (colon && p && name && strlen(p) == (size_t)(colon - ids[i]) &&
			    strncmp(ids[i], p, strlen(p)) == 0 && strcmp(name, colon + 1) == 0)
				obj = it;
		}
		if (!obj) {
			buf_printf(rows, "%s|-\n", ids[i]);
			continue;
		}
		memset(&r, 0, sizeof(r));
		snprintf(r.id, sizeof(r.id), "%s", ids[i]);
		object_row(obj, items, &r);
		poll_row_line(rows, &r);
	}
	cJSON_Delete(doc);
	return true;
}
