/* manifest_k8s_dynamo.c: AIDynamo's Kubernetes object, the Dynamo
 * operator's DynamoGraphDeployment (nvidia.com/v1alpha1) as CloudAI's
 * Kubernetes strategy writes it: a frontend, a decode and a prefill service
 * in the system's namespace, each worker with the system's GPUs, its
 * command split on blanks and its args (--model, its role flag, the
 * worker's args as --dashed-names, its extra-args as one word), multinode
 * when the worker has more than one node. Host networking: kunai does not
 * ask the cluster for CNI networks as CloudAI does. Keys in CloudAI's
 * order, so the same campaign gives the same bytes. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script.h"
#include "gen/base/escape.h"
#include "gen/base/json.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"
#include "gen/workloads/workload.h"

/* table.name in k, '-' and '_' swapped in name as variant says (0: as
 * given, 1: dashes to underscores, 2: underscores to dashes). */
static const char *
variant(struct buf *k, const char *table, const char *name, int how)
{
	size_t i, at;

	k->len = 0;
	buf_printf(k, "%s.", table);
	at = k->len;
	buf_puts(k, name);
	for (i = at; i < k->len; i++)
		if (how == 1 && k->data[i] == '-')
			k->data[i] = '_';
		else if (how == 2 && k->data[i] == '_')
			k->data[i] = '-';
	return buf_str(k);
}

/* The run's value of table.name, written with dashes or underscores (the
 * field's name and its alias), else the schema default of either. */
static const char *
value(const struct run *r, const char *table, const char *name)
{
	struct buf k = {0};
	const char *v = NULL;
	int how;

	for (how = 0; how < 3 && !v; how++)
		v = workload_own_value(r, variant(&k, table, name, how));
	for (how = 0; how < 3 && !v; how++)
		v = workload_value(r, variant(&k, table, name, how));
	buf_free(&k);
	return v;
}

static cJSON *
words(const char *s)
{
	cJSON *a = cJSON_CreateArray();
	size_t n;
	char *w;

	for (;;) {
		s += strspn(s, " \t\n");
		if (!*s)
			return a;
		n = strcspn(s, " \t\n");
		w = xmalloc(n + 1);
		memcpy(w, s, n);
		w[n] = '\0';
		cJSON_AddItemToArray(a, cJSON_CreateString(w));
		free(w);
		s += n;
	}
}

static void
arg(cJSON *a, const char *s)
{
	cJSON_AddItemToArray(a, cJSON_CreateString(s));
}

/* --model MODEL ROLE_FLAG, then the worker's args as CloudAI's
 * model_dump gives them (field names, dashed), then extra-args. */
static cJSON *
worker_args(const struct run *r, const char *w, const char *flag)
{
	static const char *const fields[] = {
		"model", "model_path", "served_model_name", "gpu_memory_utilization",
		"pipeline_parallel_size", "tensor_parallel_size", "data_parallel_size", NULL,
	};
	const char *model = workload_value(r, "dynamo.model"), *backend = workload_value(r, "dynamo.backend");
	struct buf t = {0}, f = {0};
	cJSON *a = cJSON_CreateArray();
	const char *v;
	size_t i, j, n;

	arg(a, "--model");
	arg(a, model);
	arg(a, flag);
	buf_printf(&t, "dynamo.%s.args", w);
	for (i = 0; fields[i]; i++) {
		if (i == 0 && strcmp(backend, "vllm") == 0)
			v = model;
		else if ((i == 1 || i == 2) && strcmp(backend, "vllm") != 0)
			v = model;
		else
			v = value(r, buf_str(&t), fields[i]);
		if (!v)
			continue;
		f.len = 0;
		buf_printf(&f, "--%s", fields[i]);
		for (j = 2; j < f.len; j++)
			if (f.data[j] == '_')
				f.data[j] = '-';
		arg(a, buf_str(&f));
		arg(a, v);
	}
	/* the args' own keys, after the declared ones */
	n = t.len;
	for (i = 0; i < r->args.len; i++) {
		const char *k = r->args.items[i].key, *name;
		if (strncmp(k, buf_str(&t), n) != 0 || k[n] != '.' || strchr(k + n + 1, '.'))
			continue;
		name = k + n + 1;
		f.len = 0;
		buf_puts(&f, name);
		for (j = 0; j < f.len; j++)
			if (f.data[j] == '-')
				f.data[j] = '_';
		for (j = 0; fields[j] && strcmp(fields[j], buf_str(&f)) != 0; j++)
			;
		if (fields[j])
			continue;
		f.len = 0;
		buf_printf(&f, "--%s", name);
		for (j = 2; j < f.len; j++)
			if (f.data[j] == '_')
				f.data[j] = '-';
		arg(a, buf_str(&f));
		arg(a, r->args.items[i].value);
	}
	t.len = 0;
	buf_printf(&t, "dynamo.%s", w);
	if ((v = value(r, buf_str(&t), "extra-args")) && *v)
		arg(a, v);
	buf_free(&t);
	buf_free(&f);
	return a;
}

static cJSON *
service(const struct run *r, const char *w, const char *sub, const char *flag)
{
	const struct system *sys = r->c->system;
	cJSON *o = cJSON_CreateObject(), *res, *lim, *pod, *c, *mn;
	char gpus[16];
	struct buf t = {0};
	const char *v;

	cJSON_AddStringToObject(o, "dynamoNamespace", sys->default_namespace ? sys->default_namespace : "default");
	cJSON_AddStringToObject(o, "componentType", w ? "worker" : "frontend");
	cJSON_AddNumberToObject(o, "replicas", 1);
	if (w) {
		snprintf(gpus, sizeof(gpus), "%d", sys->gpus_per_node > 0 ? sys->gpus_per_node : 1);
		cJSON_AddItemToObject(o, "resources", res = cJSON_CreateObject());
		cJSON_AddItemToObject(res, "limits", lim = cJSON_CreateObject());
		cJSON_AddStringToObject(lim, "gpu", gpus);
	}
	cJSON_AddItemToObject(o, "extraPodSpec", pod = cJSON_CreateObject());
	cJSON_AddItemToObject(pod, "mainContainer", c = cJSON_CreateObject());
	cJSON_AddStringToObject(c, "image", workload_value(r, "docker_image_url"));
	cJSON_AddBoolToObject(pod, "hostNetwork", 1);
	if (!w)
		return o;
	cJSON_AddStringToObject(c, "workingDir", value(r, "dynamo", "workspace-path"));
	buf_printf(&t, "dynamo.%s", w);
	cJSON_AddItemToObject(c, "command", words(value(r, buf_str(&t), "cmd")));
	cJSON_AddItemToObject(c, "args", worker_args(r, w, flag));
	cJSON_AddStringToObject(o, "subComponentType", sub);
	if ((v = value(r, buf_str(&t), "num-nodes")) && atoi(v) > 1) {
		cJSON_AddItemToObject(o, "multinode", mn = cJSON_CreateObject());
		cJSON_AddNumberToObject(mn, "nodeCount", atoi(v));
	}
	buf_free(&t);
	return o;
}

cJSON *
manifest_k8s_dynamo(const struct run *r)
{
	const char *ns = r->c->system->default_namespace;
	cJSON *o = cJSON_CreateObject(), *md, *spec, *svc;

	cJSON_AddStringToObject(o, "apiVersion", "nvidia.com/v1alpha1");
	cJSON_AddStringToObject(o, "kind", "DynamoGraphDeployment");
	cJSON_AddItemToObject(o, "metadata", md = cJSON_CreateObject());
	cJSON_AddStringToObject(md, "name", ns ? ns : "default");
	cJSON_AddItemToObject(o, "spec", spec = cJSON_CreateObject());
	cJSON_AddItemToObject(spec, "services", svc = cJSON_CreateObject());
	cJSON_AddItemToObject(svc, "frontend", service(r, NULL, NULL, NULL));
	cJSON_AddItemToObject(svc, "decode", service(r, "decode_worker", "decode-worker", "--is-decode-worker"));
	cJSON_AddItemToObject(svc, "prefill", service(r, "prefill_worker", "prefill", "--is-prefill-worker"));
	return o;
}

/* What the runner does once the DynamoGraphDeployment's pods are Ready, as
 * CloudAI's Kubernetes system does it: copies the genai-perf wrapper from
 * install_path into the frontend pod and runs it there (`kubectl exec`),
 * the arguments CloudAI gives it; the results directory in the pod and the
 * report the grader reads (rules/job/job_k8s_dgd.c reads this). */
void
manifest_k8s_dynamo_bench(const struct run *r, struct buf *out)
{
	const struct system *sys = r->c->system;
	cJSON *o = cJSON_CreateObject(), *a;
	const char *v, *pre = "genai_perf.args.";
	struct buf b = {0};
	char gpus[16];
	size_t i;

	cJSON_AddStringToObject(o, "script", "genai_perf.sh");
	cJSON_AddStringToObject(o, "pod_script", "/tmp/kunai-genai_perf.sh");
	cJSON_AddStringToObject(o, "pod_results", "/tmp/kunai-genai-perf");
	if (!(v = value(r, "genai_perf", "report-name"))) {
		buf_printf(&b, "%s_report.csv", workload_value(r, "genai_perf.name"));
		v = buf_str(&b);
	}
	cJSON_AddStringToObject(o, "report", v);
	cJSON_AddItemToObject(o, "args", a = cJSON_CreateArray());
	arg(a, "--result-dir");
	arg(a, "/tmp/kunai-genai-perf");
	snprintf(gpus, sizeof(gpus), "%d", sys->gpus_per_node > 0 ? sys->gpus_per_node : 1);
	arg(a, "--gpus-per-node");
	arg(a, gpus);
	arg(a, "--model");
	arg(a, workload_value(r, "dynamo.model"));
	arg(a, "--url");
	arg(a, "http://localhost");
	arg(a, "--port");
	arg(a, value(r, "dynamo", "port"));
	arg(a, "--endpoint");
	arg(a, value(r, "dynamo", "endpoint"));
	arg(a, "--cmd");
	arg(a, value(r, "genai_perf", "cmd"));
	arg(a, "--report-name");
	arg(a, v);
	if ((v = value(r, "genai_perf", "extra-args")) && *v) {
		arg(a, "--extra-args");
		arg(a, v);
	}
	arg(a, "--");
	for (i = 0; i < r->args.len; i++)
		if (strncmp(r->args.items[i].key, pre, strlen(pre)) == 0 && !strchr(r->args.items[i].key + strlen(pre), '.')) {
			b.len = 0;
			buf_printf(&b, "--%s", r->args.items[i].key + strlen(pre));
			arg(a, buf_str(&b));
			arg(a, r->args.items[i].value);
		}
	json_print(o, out);
	buf_free(&b);
}
