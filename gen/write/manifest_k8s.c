/* manifest_k8s.c: the Kubernetes object of a run on a kubernetes system,
 * written as JSON (cJSON, keys in a fixed order, so the same campaign gives
 * the same bytes): a batch/v1 Job for a single-pod run, a Kubeflow MPIJob
 * (kubeflow.org/v2beta1) for NcclTest as CloudAI runs it and for kunai's
 * MPI programs, a JobSet (jobset.x-k8s.io/v1alpha2) for any other multi-pod
 * run. Nothing here names
 * the build dir's absolute path: the runner adds the build dir's label when
 * it applies the object. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "script.h"
#include "gen/base/escape.h"
#include "gen/base/json.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"
#include "gen/workloads/workload.h"

/* The image of runs whose test names none (cmd_args.docker_image_url). */
#define K8S_DEFAULT_IMAGE "ubuntu:24.04"
/* kunai's own programs: the system's workloads_image, else the image that
 * `make image` tags (workloads/Containerfile), whose sshd listens on
 * K8S_SSH_PORT (port 22 is the node's own under host networking). */
#define K8S_KUNAI_IMAGE "kunai-workloads:" KUNAI_VERSION
#define K8S_SSH_PORT "222"

/* Appends s as a DNS-1123 label piece: lower case, [a-z0-9-], at most max
 * bytes of out in all. */
static void
dns_piece(struct buf *out, const char *s, size_t max)
{
	for (; *s && out->len < max; s++) {
		unsigned char ch = (unsigned char)*s;

		buf_putc(out, isalnum(ch) ? tolower(ch) : '-');
	}
}

/* The object's name: kunai-<run dir>, DNS-1123 and at most 52 bytes, so
 * that the controllers' generated pod names (name-<index>-<hash>) fit 63. */
static void
object_name(struct buf *out, const struct run *r)
{
	out->len = 0;
	buf_puts(out, "kunai-");
	dns_piece(out, r->dir, 52);
	while (out->len && out->data[out->len - 1] == '-')
		out->data[--out->len] = '\0';
	buf_str(out);
}

/* The run label's value: the run dir with '/' as '.', which a label value
 * may hold ([A-Za-z0-9._-], at most 63). */
static void
run_label(struct buf *out, const struct run *r)
{
	const char *s;

	out->len = 0;
	for (s = r->dir; *s && out->len < 63; s++) {
		unsigned char ch = (unsigned char)*s;

		buf_putc(out, isalnum(ch) || ch == '-' || ch == '_' || ch == '.' ? ch : '.');
	}
	while (out->len && !isalnum((unsigned char)out->data[out->len - 1]))
		out->data[--out->len] = '\0';
	buf_str(out);
}

static cJSON *
labels(const struct run *r)
{
	cJSON *l = cJSON_CreateObject();
	struct buf b = {0};

	cJSON_AddStringToObject(l, "app.kubernetes.io/managed-by", "kunai");
	run_label(&b, r);
	cJSON_AddStringToObject(l, "kunai.dev/run", b.data);
	buf_free(&b);
	return l;
}

static cJSON *
metadata(const struct run *r, const char *name)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "name", name);
	if (r->c->system->default_namespace)
		cJSON_AddStringToObject(m, "namespace", r->c->system->default_namespace);
	cJSON_AddItemToObject(m, "labels", labels(r));
	return m;
}

/* What a container runs: the test's command line, or for an MPIJob's
 * launcher mpirun across the workers, for its workers their sshd (CloudAI's
 * NcclTest on Kubernetes does the same). */
enum role { ROLE_TEST, ROLE_LAUNCHER, ROLE_WORKER };

static cJSON *
container(const struct run *r, const char *name, int gpus, enum role role)
{
	const char *image = workload_value(r, "docker_image_url");
	bool kunai = r->def->wl->program != NULL;
	cJSON *c = cJSON_CreateObject(), *cmd, *env, *res, *lim, *mounts, *m;
	struct buf b = {0};
	size_t i;
	char *hash;

	cJSON_AddStringToObject(c, "name", name);
	/* CloudAI's images may be in enroot's form, registry#path */
	if ((!image || !*image) && kunai)
		image = r->c->system->workloads_image;
	if (!image || !*image)
		image = kunai ? K8S_KUNAI_IMAGE : K8S_DEFAULT_IMAGE;
	buf_puts(&b, image);
	if ((hash = strchr(buf_str(&b), '#')))
		*hash = '/';
	cJSON_AddStringToObject(c, "image", b.data);
	b.len = 0;
	cmd = cJSON_AddArrayToObject(c, "command");
	cJSON_AddItemToArray(cmd, cJSON_CreateString("/bin/bash"));
	cJSON_AddItemToArray(cmd, cJSON_CreateString("-c"));
	if (role == ROLE_WORKER) {
		buf_puts(&b, kunai ? "/usr/sbin/sshd -De -p " K8S_SSH_PORT : "/usr/sbin/sshd -De");
	} else if (role == ROLE_LAUNCHER) {
		int slots = r->c->system->gpus_per_node > 0 ? r->c->system->gpus_per_node : 1;

		buf_printf(&b, "mpirun --allow-run-as-root -np %d -bind-to none",
		           slots * (r->num_nodes > 0 ? r->num_nodes : 1));
		if (kunai) { /* the workers' sshd; ConnectionAttempts as the MPI operator sets it */
			buf_puts(&b, " -mca plm_rsh_args ");
			sh_quote(&b, "-p " K8S_SSH_PORT " -o ConnectionAttempts=10");
		}
		for (i = 0; i < r->env.len; i++)
			buf_printf(&b, " -x %s", r->env.items[i].key);
		buf_putc(&b, ' ');
		script_test_command(&b, r);
	} else {
		script_test_command(&b, r);
	}
	cJSON_AddItemToArray(cmd, cJSON_CreateString(buf_str(&b)));
	buf_free(&b);
	if (r->env.len) {
		env = cJSON_AddArrayToObject(c, "env");
		for (i = 0; i < r->env.len; i++) {
			cJSON *e = cJSON_CreateObject();

			cJSON_AddStringToObject(e, "name", r->env.items[i].key);
			cJSON_AddStringToObject(e, "value", r->env.items[i].value);
			cJSON_AddItemToArray(env, e);
		}
	}
	if (gpus > 0) {
		res = cJSON_AddObjectToObject(c, "resources");
		lim = cJSON_AddObjectToObject(res, "limits");
		cJSON_AddNumberToObject(lim, "nvidia.com/gpu", gpus);
	}
	mounts = cJSON_AddArrayToObject(c, "volumeMounts");
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "name", "dshm");
	cJSON_AddStringToObject(m, "mountPath", "/dev/shm");
	cJSON_AddItemToArray(mounts, m);
	return c;
}

/* Where the pods may run: the system's node_selector and tolerations, and
 * the test's explicit nodes as a required node affinity on the hostname. */
static void
placement(const struct run *r, cJSON *spec)
{
	const struct system *s = r->c->system;
	cJSON *ns, *tols, *t, *aff, *na, *req, *terms, *term, *exprs, *e, *vals;
	size_t i;

	if (s->node_selector.len) {
		ns = cJSON_AddObjectToObject(spec, "nodeSelector");
		for (i = 0; i < s->node_selector.len; i++)
			cJSON_AddStringToObject(ns, s->node_selector.items[i].key,
			                        s->node_selector.items[i].val->u.str.s);
	}
	if (r->nodes.len) {
		aff = cJSON_AddObjectToObject(spec, "affinity");
		na = cJSON_AddObjectToObject(aff, "nodeAffinity");
		req = cJSON_AddObjectToObject(na, "requiredDuringSchedulingIgnoredDuringExecution");
		terms = cJSON_AddArrayToObject(req, "nodeSelectorTerms");
		term = cJSON_CreateObject();
		exprs = cJSON_AddArrayToObject(term, "matchExpressions");
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "key", "kubernetes.io/hostname");
		cJSON_AddStringToObject(e, "operator", "In");
		vals = cJSON_AddArrayToObject(e, "values");
		for (i = 0; i < r->nodes.len; i++)
			cJSON_AddItemToArray(vals, cJSON_CreateString(r->nodes.items[i]));
		cJSON_AddItemToArray(exprs, e);
		cJSON_AddItemToArray(terms, term);
	}
	if (s->n_tolerations) {
		tols = cJSON_AddArrayToObject(spec, "tolerations");
		for (i = 0; i < s->n_tolerations; i++) {
			const struct k8s_toleration *o = &s->tolerations[i];

			t = cJSON_CreateObject();
			if (o->key)
				cJSON_AddStringToObject(t, "key", o->key);
			if (o->operator)
				cJSON_AddStringToObject(t, "operator", o->operator);
			if (o->value)
				cJSON_AddStringToObject(t, "value", o->value);
			if (o->effect)
				cJSON_AddStringToObject(t, "effect", o->effect);
			if (o->seconds >= 0)
				cJSON_AddNumberToObject(t, "tolerationSeconds", (double)o->seconds);
			cJSON_AddItemToArray(tols, t);
		}
	}
}

/* The pod template: its labels, then a spec with one container, the shared
 * memory volume, host networking when the system asks for it, placement. */
static cJSON *
pod_template(const struct run *r, const char *cname, enum role role)
{
	const struct system *s = r->c->system;
	cJSON *t = cJSON_CreateObject(), *m, *spec, *cs, *vols, *v, *ed;

	m = cJSON_AddObjectToObject(t, "metadata");
	cJSON_AddItemToObject(m, "labels", labels(r));
	spec = cJSON_AddObjectToObject(t, "spec");
	cJSON_AddStringToObject(spec, "restartPolicy", "Never");
	if (s->use_host_network == 1) {
		cJSON_AddTrueToObject(spec, "hostNetwork");
		cJSON_AddStringToObject(spec, "dnsPolicy", "ClusterFirstWithHostNet");
	}
	placement(r, spec);
	cs = cJSON_AddArrayToObject(spec, "containers");
	cJSON_AddItemToArray(cs, container(r, cname, role == ROLE_LAUNCHER ? 0 : s->gpus_per_node, role));
	vols = cJSON_AddArrayToObject(spec, "volumes");
	v = cJSON_CreateObject();
	cJSON_AddStringToObject(v, "name", "dshm");
	ed = cJSON_AddObjectToObject(v, "emptyDir");
	cJSON_AddStringToObject(ed, "medium", "Memory");
	cJSON_AddItemToArray(vols, v);
	return t;
}

/* batch/v1 Job spec for n pods (parallelism = completions = n). */
static cJSON *
job_spec(const struct run *r, int n)
{
	cJSON *spec = cJSON_CreateObject();

	cJSON_AddNumberToObject(spec, "backoffLimit", 0);
	if (r->time_limit > 0)
		cJSON_AddNumberToObject(spec, "activeDeadlineSeconds", (double)r->time_limit);
	if (n > 1) {
		cJSON_AddNumberToObject(spec, "parallelism", n);
		cJSON_AddNumberToObject(spec, "completions", n);
		cJSON_AddStringToObject(spec, "completionMode", "Indexed");
	}
	cJSON_AddItemToObject(spec, "template", pod_template(r, "test", ROLE_TEST));
	return spec;
}

static cJSON *
mpijob(const struct run *r, const char *name)
{
	cJSON *o = cJSON_CreateObject(), *spec, *rp, *rs, *ro, *run;

	cJSON_AddStringToObject(o, "apiVersion", "kubeflow.org/v2beta1");
	cJSON_AddStringToObject(o, "kind", "MPIJob");
	cJSON_AddItemToObject(o, "metadata", metadata(r, name));
	spec = cJSON_AddObjectToObject(o, "spec");
	cJSON_AddNumberToObject(spec, "slotsPerWorker", r->c->system->gpus_per_node > 0 ? r->c->system->gpus_per_node : 1);
	run = cJSON_AddObjectToObject(spec, "runPolicy");
	cJSON_AddStringToObject(run, "cleanPodPolicy", "Running");
	cJSON_AddNumberToObject(run, "backoffLimit", 0);
	if (r->time_limit > 0)
		cJSON_AddNumberToObject(run, "activeDeadlineSeconds", (double)r->time_limit);
	cJSON_AddStringToObject(spec, "mpiImplementation", "OpenMPI");
	rs = cJSON_AddObjectToObject(spec, "mpiReplicaSpecs");
	rp = cJSON_AddObjectToObject(rs, "Launcher");
	cJSON_AddNumberToObject(rp, "replicas", 1);
	cJSON_AddStringToObject(rp, "restartPolicy", "Never");
	cJSON_AddItemToObject(rp, "template", pod_template(r, "launcher", ROLE_LAUNCHER));
	ro = cJSON_AddObjectToObject(rs, "Worker");
	cJSON_AddNumberToObject(ro, "replicas", r->num_nodes > 0 ? r->num_nodes : 1);
	cJSON_AddStringToObject(ro, "restartPolicy", "Never");
	cJSON_AddItemToObject(ro, "template", pod_template(r, "worker", ROLE_WORKER));
	return o;
}

static cJSON *
jobset(const struct run *r, const char *name)
{
	cJSON *o = cJSON_CreateObject(), *spec, *fp, *rjs, *rj, *tmpl, *net;

	cJSON_AddStringToObject(o, "apiVersion", "jobset.x-k8s.io/v1alpha2");
	cJSON_AddStringToObject(o, "kind", "JobSet");
	cJSON_AddItemToObject(o, "metadata", metadata(r, name));
	spec = cJSON_AddObjectToObject(o, "spec");
	net = cJSON_AddObjectToObject(spec, "network");
	cJSON_AddTrueToObject(net, "enableDNSHostnames");
	fp = cJSON_AddObjectToObject(spec, "failurePolicy");
	cJSON_AddNumberToObject(fp, "maxRestarts", 0);
	rjs = cJSON_AddArrayToObject(spec, "replicatedJobs");
	rj = cJSON_CreateObject();
	cJSON_AddStringToObject(rj, "name", "node");
	cJSON_AddNumberToObject(rj, "replicas", 1);
	tmpl = cJSON_AddObjectToObject(rj, "template");
	cJSON_AddItemToObject(tmpl, "spec", job_spec(r, r->num_nodes));
	cJSON_AddItemToArray(rjs, rj);
	return o;
}

static cJSON *
job(const struct run *r, const char *name)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "apiVersion", "batch/v1");
	cJSON_AddStringToObject(o, "kind", "Job");
	cJSON_AddItemToObject(o, "metadata", metadata(r, name));
	cJSON_AddItemToObject(o, "spec", job_spec(r, 1));
	return o;
}

const char *
manifest_k8s_kind(const struct run *r)
{
	const struct workload *wl = r->def->wl;

	/* NcclTest as CloudAI runs it; kunai's MPI programs the same way: the
	 * launcher's mpirun starts a rank per GPU across the workers */
	if (strcmp(wl->name, "NcclTest") == 0 || (wl->program && wl->uses_mpi && wl->uses_mpi(r)))
		return "MPIJob";
	if (strcmp(r->def->wl->name, "AIDynamo") == 0)
		return "DynamoGraphDeployment";
	return r->num_nodes > 1 ? "JobSet" : "Job";
}

bool
manifest_k8s(const struct run *r, struct buf *out)
{
	const char *kind = manifest_k8s_kind(r);
	struct buf name = {0};
	cJSON *o;

	object_name(&name, r);
	if (strcmp(kind, "MPIJob") == 0)
		o = mpijob(r, name.data);
	else if (strcmp(kind, "DynamoGraphDeployment") == 0)
		o = manifest_k8s_dynamo(r);
	else if (strcmp(kind, "JobSet") == 0)
		o = jobset(r, name.data);
	else
		o = job(r, name.data);
	buf_free(&name);
	json_print(o, out);
	return true;
}
