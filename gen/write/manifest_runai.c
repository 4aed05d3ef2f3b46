/* manifest_runai.c: the request kunai job sends to a RunAI control plane
 * for a run (POST /api/v1/workloads/trainings, the training workload
 * CloudAI submits): name, projectId, clusterId and a spec with the command,
 * its image, GPUs, environment and pod count, written as JSON (cJSON, keys
 * in a fixed order) so that the same campaign gives the same bytes. No
 * credential is in it: the runner authenticates when it sends it. */
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
#define RUNAI_DEFAULT_IMAGE "ubuntu:24.04"
#define RUNAI_KUNAI_IMAGE "kunai-workloads:" KUNAI_VERSION
/* A name RunAI takes (DNS-1123 label) with room for the runner's attempt
 * suffix ("-a" and up to 3 digits) under 40. */
#define RUNAI_NAME_MAX 35

/* kunai-<run dir> in lower case, [a-z0-9-]; a longer one is cut and ends
 * in a hash of the whole dir, so that two runs never share a name. */
static void
workload_name(struct buf *out, const struct run *r)
{
	char hex[17];
	const char *s;

	buf_puts(out, "kunai-");
	for (s = r->dir; *s; s++)
		buf_putc(out, isalnum((unsigned char)*s) ? (char)tolower((unsigned char)*s) : '-');
	if (out->len > RUNAI_NAME_MAX) {
		util_hash_hex(r->dir, strlen(r->dir), hex);
		out->len = RUNAI_NAME_MAX - 9;
		buf_printf(out, "-%.8s", hex);
	}
	while (out->len && out->data[out->len - 1] == '-')
		out->len--;
	buf_str(out);
}

bool
manifest_runai(const struct run *r, struct buf *out)
{
	const struct system *s = r->c->system;
	const char *image = workload_value(r, "docker_image_url");
	bool kunai = r->def->wl->program != NULL;
	cJSON *o = cJSON_CreateObject(), *spec, *env, *e, *compute;
	struct buf b = {0}, cmd = {0};
	size_t i, n;
	char *hash;
	int pods = r->nodes.len ? (int)r->nodes.len : r->num_nodes > 0 ? r->num_nodes : 1;

	workload_name(&b, r);
	cJSON_AddStringToObject(o, "name", b.data);
	cJSON_AddFalseToObject(o, "useGivenNameAsPrefix");
	cJSON_AddStringToObject(o, "projectId", s->project_id);
	cJSON_AddStringToObject(o, "clusterId", s->cluster_id);
	spec = cJSON_AddObjectToObject(o, "spec");
	/* CloudAI: command is the program, args the rest of its words; a
	 * command line that needs a shell runs under bash -c */
	script_test_command(&cmd, r);
	n = strcspn(cmd.data, " ");
	b.len = 0;
	if (sh_plain_command(cmd.data)) {
		buf_push(&b, cmd.data, n);
		cJSON_AddStringToObject(spec, "command", buf_str(&b));
		cJSON_AddStringToObject(spec, "args", cmd.data[n] ? cmd.data + n + 1 : "");
	} else {
		cJSON_AddStringToObject(spec, "command", "/bin/bash");
		buf_puts(&b, "-c ");
		sh_quote(&b, cmd.data);
		cJSON_AddStringToObject(spec, "args", b.data);
	}
	if ((!image || !*image) && kunai)
		image = s->workloads_image;
	if (!image || !*image)
		image = kunai ? RUNAI_KUNAI_IMAGE : RUNAI_DEFAULT_IMAGE;
	/* CloudAI's images may be in enroot's form, registry#path */
	b.len = 0;
	buf_puts(&b, image);
	if ((hash = strchr(buf_str(&b), '#')))
		*hash = '/';
	cJSON_AddStringToObject(spec, "image", b.data);
	compute = cJSON_AddObjectToObject(spec, "compute");
	cJSON_AddNumberToObject(compute, "gpuDevicesRequest", s->gpus_per_node);
	if (r->env.len) {
		env = cJSON_AddArrayToObject(spec, "environmentVariables");
		for (i = 0; i < r->env.len; i++) {
			e = cJSON_CreateObject();
			cJSON_AddStringToObject(e, "name", r->env.items[i].key);
			cJSON_AddStringToObject(e, "value", r->env.items[i].value);
			cJSON_AddItemToArray(env, e);
		}
	}
	cJSON_AddNumberToObject(spec, "parallelism", pods);
	cJSON_AddNumberToObject(spec, "completions", pods);
	buf_free(&b);
	buf_free(&cmd);
	json_print(o, out);
	return true;
}
