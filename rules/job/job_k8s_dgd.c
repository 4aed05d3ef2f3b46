/* job_k8s_dgd.c: AIDynamo on a kubernetes system, as CloudAI's Kubernetes
 * system runs it: the run's DynamoGraphDeployment is created (job_k8s.c,
 * with kunai's labels on it and on each service, which the Dynamo operator
 * puts on the pods), and once every pod of it is Ready (job_k8s_state.c)
 * the benchmark of k8s.bench.json (gen) runs in the frontend pod:
 *
 *   kubectl cp INSTALL/genai_perf.sh POD:/tmp/kunai-genai_perf.sh
 *   kubectl exec POD -- mkdir -p /tmp/kunai-genai-perf
 *   kubectl exec POD -- /bin/bash /tmp/kunai-genai_perf.sh ARGS  > genai_perf.log
 *   kubectl cp POD:/tmp/kunai-genai-perf genai-perf      (all it wrote)
 *   kubectl cp POD:/tmp/kunai-genai-perf/REPORT REPORT   (what the grader reads)
 *
 * The benchmark's exit status decides: 0 and the report copied is
 * COMPLETED (and success-marker.txt, as CloudAI writes it), else FAILED
 * with its exit code; no frontend pod, no wrapper or no k8s.bench.json is
 * LAUNCH_FAILED (infra). It may run KUNAI_K8S_BENCH_WAIT s (default 3600);
 * a signal ends it at once. The caller then collects logs and deletes. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* nftw */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "job_proc.h"
#include "job_k8s.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

enum {
	BENCH_WAIT_S = 3600, /* KUNAI_K8S_BENCH_WAIT */
	MAX_BENCH_ARGS = 120,
	TRIES = 5,
};

const char *
dgd_prepare(struct job *j, cJSON *doc)
{
	cJSON *md = cJSON_GetObjectItemCaseSensitive(doc, "metadata"), *svc, *l;
	struct buf run = {0}, name = {0};
	const char *s;

	/* the run label as gen gives it to Jobs: the run dir, '/' as '.' */
	for (s = j->dir; *s && run.len < 63; s++)
		buf_putc(&run, isalnum((unsigned char)*s) || *s == '-' || *s == '_' || *s == '.' ? *s : '.');
	while (run.len && !isalnum((unsigned char)run.data[run.len - 1]))
		run.data[--run.len] = '\0';
	buf_puts(&name, "kunai-");
	for (s = j->dir; *s && name.len < 43; s++)
		buf_putc(&name, isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : '-');
	while (name.data[name.len - 1] == '-')
		name.data[--name.len] = '\0';
	cJSON_DeleteItemFromObjectCaseSensitive(md, "labels");
	cJSON_AddItemToObject(md, "labels", l = cJSON_CreateObject());
	cJSON_AddStringToObject(l, "app.kubernetes.io/managed-by", "kunai");
	cJSON_AddStringToObject(l, "kunai.dev/run", buf_str(&run));
	cJSON_ArrayForEach(svc, json_item(json_item(doc, "spec"), "services"))
	{
		if (!cJSON_IsObject(svc))
			continue;
		cJSON_DeleteItemFromObjectCaseSensitive(svc, "labels");
		cJSON_AddItemToObject(svc, "labels", cJSON_Duplicate(l, true));
	}
	s = arena_strdup(&j->arena, buf_str(&name));
	buf_free(&run);
	buf_free(&name);
	return s;
}

/* The frontend pod of this run's attempt: labelled as the Dynamo operator
 * labels it (nvidia.com/dynamo-component-type, or -component before 0.7). */
static const char *
frontend_pod(struct job *j)
{
	const char *args[] = {"get", "pods", "-l", NULL, "-o", "json", NULL}, *found = NULL;
	struct buf out = {0}, err = {0}, sel = {0};
	const cJSON *it;
	cJSON *doc = NULL;

	k8s_run_selector(j, &sel);
	args[3] = sel.data;
	if (k8s_kubectl(j, args, TRIES, false, &out, &err) == 0 && (doc = cJSON_Parse(out.data)))
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(doc, "items"))
		{
			const cJSON *md = json_item(it, "metadata"), *l = json_item(md, "labels");
			const char *t = json_get_str(&j->arena, l, "nvidia.com/dynamo-component-type");

			if (!t)
				t = json_get_str(&j->arena, l, "nvidia.com/dynamo-component");
			if (!found && t && strcasecmp(t, "frontend") == 0)
				found = json_get_str(&j->arena, md, "name");
		}
	cJSON_Delete(doc);
	buf_free(&out);
	buf_free(&err);
	buf_free(&sel);
	return found;
}

static long
bench_wait(void)
{
	return (long)env_number("KUNAI_K8S_BENCH_WAIT", 1, 86400 * 7, BENCH_WAIT_S);
}

static void
fail(struct job *j, const char *state, int code, const char *reason)
{
	j->info.state = state;
	j->info.has_exit_code = code >= 0;
	j->info.exit_code = code;
	j->info.reason = reason;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

/* kubectl ARGS; false (the state set to infra with the reason) when it fails. */
static bool
step(struct job *j, const char *const *args, const char *what)
{
	struct buf err = {0};
	int rc = k8s_kubectl(j, args, TRIES, false, NULL, &err);

	if (rc != 0 && !j->signo)
		fail(j, "LAUNCH_FAILED", -1, k8s_first_line(j, what, &err, rc));
	buf_free(&err);
	return rc == 0;
}

bool
dgd_benchmark(struct job *j)
{
	struct buf p = {0}, why = {0}, out = {0}, err = {0}, local = {0}, remote = {0}, log = {0};
	const char *pod, *script, *pscript, *presults, *report, *cmd[MAX_BENCH_ARGS];
	const cJSON *a;
	cJSON *bench;
	bool absent;
	int n = 0, rc;

	j->info.reason = NULL;
	bench = json_load(job_path(j, &p, "k8s.bench.json"), &why, &absent);
	script = json_get_str(&j->arena, bench, "script");
	pscript = json_get_str(&j->arena, bench, "pod_script");
	presults = json_get_str(&j->arena, bench, "pod_results");
	report = json_get_str(&j->arena, bench, "report");
	if (!script || !pscript || !presults || !report || strchr(report, '/')) {
		fail(j, "LAUNCH_FAILED", -1, arena_printf(&j->arena, "%s: %s (run kunai gen)", p.data,
		                                          bench ? "not kunai's benchmark" : buf_str(&why)));
		goto out;
	}
	if (!(pod = frontend_pod(j))) {
		fail(j, "LAUNCH_FAILED", -1, "no frontend pod (label nvidia.com/dynamo-component-type=frontend)");
		goto out;
	}
	/* the wrapper, from install_path (relative to the build dir) */
	buf_printf(&local, "%s/%s", j->k8s_install && *j->k8s_install ? j->k8s_install : ".", script);
	buf_printf(&remote, "%s:%s", pod, pscript);
	if (access(local.data, R_OK) != 0) {
		fail(j, "LAUNCH_FAILED", -1, arena_printf(&j->arena, "%s: %s (run ninja install)", local.data,
		                                          strerror(errno)));
		goto out;
	}
	{
		const char *cp[] = {"cp", local.data, remote.data, NULL};
		const char *mk[] = {"exec", pod, "--", "mkdir", "-p", presults, NULL};
		if (!step(j, cp, "cp") || !step(j, mk, "exec"))
			goto out;
	}
	/* kubectl [--kubeconfig K] [--namespace NS] exec POD -- /bin/bash SCRIPT ARGS */
	cmd[n++] = "kubectl";
	if (j->kubeconfig) {
		cmd[n++] = "--kubeconfig";
		cmd[n++] = j->kubeconfig;
	}
	if (j->k8s_namespace) {
		cmd[n++] = "--namespace";
		cmd[n++] = j->k8s_namespace;
	}
	cmd[n++] = "exec";
	cmd[n++] = pod;
	cmd[n++] = "--";
	cmd[n++] = "/bin/bash";
	cmd[n++] = pscript;
	cJSON_ArrayForEach(a, json_item(bench, "args"))
	if (cJSON_IsString(a) && n < MAX_BENCH_ARGS - 1)
		cmd[n++] = arena_strdup(&j->arena, a->valuestring);
	cmd[n] = NULL;
	warn("%s: benchmark in pod %s (genai_perf.log)", j->dir, pod);
	rc = job_capture_long(j, (char *const *)cmd, &out, &err, bench_wait());
	buf_push(&log, out.data ? out.data : "", out.len);
	if (err.len) {
		buf_puts(&log, "\nSTDERR:\n");
		buf_push(&log, err.data, err.len);
	}
	write_file_atomic(job_path(j, &p, "genai_perf.log"), log.data ? log.data : "", log.len);
	if (j->signo)
		goto out;
	if (rc != 0) {
		fail(j, "FAILED", rc < 0 ? 1 : rc, arena_printf(&j->arena, "benchmark in pod %s: exit status %d "
		                                                 "(genai_perf.log)", pod, rc));
		goto out;
	}
	/* what it wrote, then the report beside the run's other files */
	job_path(j, &local, "genai-perf");
	nftw(local.data, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	remote.len = 0;
	buf_printf(&remote, "%s:%s", pod, presults);
	{
		const char *cp[] = {"cp", remote.data, local.data, NULL};
		if (!step(j, cp, "cp"))
			warn("%s: %s", j->dir, j->info.reason);
	}
	remote.len = 0;
	buf_printf(&remote, "%s:%s/%s", pod, presults, report);
	job_path(j, &local, report);
	{
		const char *cp[] = {"cp", remote.data, local.data, NULL};
		if (!step(j, cp, "cp") || access(local.data, R_OK) != 0) {
			fail(j, "FAILED", 1, arena_printf(&j->arena, "benchmark in pod %s: no %s (%s)", pod, report,
			                                  j->info.reason ? j->info.reason : "not copied"));
			goto out;
		}
	}
	write_file_atomic(job_path(j, &p, "success-marker.txt"), "", 0);
	fail(j, "COMPLETED", 0, NULL);
out:
	if (!j->signo && j->info.reason)
		warn("%s: %s", j->dir, j->info.reason);
	cJSON_Delete(bench);
	buf_free(&p);
	buf_free(&why);
	buf_free(&out);
	buf_free(&err);
	buf_free(&local);
	buf_free(&remote);
	buf_free(&log);
	return !j->signo;
}
