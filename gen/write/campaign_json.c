/* campaign_json.c: kunai.json, the resolved campaign and its runs (cJSON),
 * for provenance and for the reports. It reads the model and the runs
 * only: values the model kept as written come as JSON from model_json.h. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "campaign_json.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"
#include "gen/model/model_json.h"

static void
add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
}

static cJSON *
kvlist_json(const struct kvlist *l)
{
	cJSON *o = cJSON_CreateObject();
	size_t i;

	for (i = 0; i < l->len; i++)
		cJSON_AddStringToObject(o, l->items[i].key, l->items[i].value);
	return o;
}

static cJSON *
strlist_json(const struct strlist *l)
{
	cJSON *a = cJSON_CreateArray();
	size_t i;

	for (i = 0; i < l->len; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->items[i]));
	return a;
}

static cJSON *
system_json(const struct system *s)
{
	static const char *const sched[] = {"standalone", "slurm", "kubernetes", "lsf", "runai"};
	cJSON *o = cJSON_CreateObject(), *parts;
	size_t i, j;

	add_str(o, "name", s->name);
	add_str(o, "scheduler", sched[s->scheduler]);
	add_str(o, "install_path", s->install_path);
	add_str(o, "output_path", s->output_path);
	cJSON_AddNumberToObject(o, "max_jobs", s->max_jobs);
	cJSON_AddNumberToObject(o, "monitor_interval", s->monitor_interval);
	cJSON_AddItemToObject(o, "global_env_vars", model_args_json(&s->global_env_vars));
	if (s->scheduler == SCHED_SLURM) {
		add_str(o, "default_partition", s->default_partition);
		add_str(o, "account", s->account);
		add_str(o, "distribution", s->distribution);
		add_str(o, "mpi", s->mpi);
		if (s->gpus_per_node)
			cJSON_AddNumberToObject(o, "gpus_per_node", s->gpus_per_node);
		if (s->ntasks_per_node)
			cJSON_AddNumberToObject(o, "ntasks_per_node", s->ntasks_per_node);
		cJSON_AddBoolToObject(o, "cache_docker_images_locally", s->cache_docker_images_locally);
		cJSON_AddBoolToObject(o, "container_mount_home", s->container_mount_home);
		add_str(o, "extra_srun_args", s->extra_srun_args);
		cJSON_AddItemToObject(o, "extra_sbatch_args", strlist_json(&s->extra_sbatch_args));
		parts = cJSON_AddArrayToObject(o, "partitions");
		for (i = 0; i < s->n_partitions; i++) {
			cJSON *p = cJSON_CreateObject(), *groups = cJSON_AddArrayToObject(p, "groups");
			add_str(p, "name", s->partitions[i].name);
			for (j = 0; j < s->partitions[i].n_groups; j++) {
				cJSON *g = cJSON_CreateObject();
				add_str(g, "name", s->partitions[i].groups[j].name);
				cJSON_AddItemToObject(g, "nodes", strlist_json(&s->partitions[i].groups[j].nodes));
				cJSON_AddItemToArray(groups, g);
			}
			cJSON_AddItemToArray(parts, p);
		}
	}
	if (s->scheduler == SCHED_KUBERNETES) {
		add_str(o, "kube_config_path", s->kube_config_path);
		add_str(o, "default_namespace", s->default_namespace);
	}
	if (s->scheduler == SCHED_LSF) {
		add_str(o, "account", s->account);
		add_str(o, "project_name", s->project_name);
		add_str(o, "default_queue", s->default_queue);
		add_str(o, "app", s->lsf_app);
		add_str(o, "os_version", s->os_version);
	}
	/* what kunai job needs to reach the API; the secret only by the name
	 * of its variable, never its value */
	if (s->scheduler == SCHED_RUNAI) {
		add_str(o, "base_url", s->base_url);
		add_str(o, "user_email", s->user_email);
		add_str(o, "app_id", s->app_id);
		add_str(o, "app_secret_env", s->app_secret_env);
		add_str(o, "project_id", s->project_id);
		add_str(o, "cluster_id", s->cluster_id);
	}
	return o;
}

static cJSON *
testdef_json(const struct testdef *d)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "name", d->name);
	add_str(o, "description", d->description);
	add_str(o, "test_template_name", d->template_name);
	cJSON_AddItemToObject(o, "cmd_args", model_args_json(&d->cmd_args));
	cJSON_AddItemToObject(o, "extra_cmd_args", model_args_json(&d->extra_cmd_args));
	cJSON_AddItemToObject(o, "extra_env_vars", model_args_json(&d->extra_env_vars));
	cJSON_AddItemToObject(o, "extra_container_mounts", strlist_json(&d->extra_container_mounts));
	/* read by the reports only: changing one re-grades, never re-runs */
	if (d->references)
		cJSON_AddItemToObject(o, "references", model_value_json(d->references));
	if (d->peers)
		cJSON_AddItemToObject(o, "peers", model_value_json(d->peers));
	return o;
}

/* The scenario without its cases (scenario_cases writes them). */
static cJSON *
scenario_json(const struct scenario *sc)
{
	cJSON *o = cJSON_CreateObject();
	size_t i;

	add_str(o, "name", sc->name);
	add_str(o, "path", sc->path);
	cJSON_AddBoolToObject(o, "job_status_check", sc->job_status_check);
	if (sc->pre_test)
		add_str(o, "pre_test", sc->pre_test->name);
	if (sc->post_test)
		add_str(o, "post_test", sc->post_test->name);
	for (i = 0; i < 2; i++) {
		const struct phase *ph = i ? sc->cleanup : sc->prepare;
		cJSON *t;
		if (!ph)
			continue;
		t = cJSON_AddObjectToObject(o, i ? "cleanup" : "prepare");
		cJSON_AddItemToObject(t, "commands", strlist_json(&ph->commands));
		cJSON_AddNumberToObject(t, "time_limit_seconds", (double)ph->time_limit);
	}
	/* read by the reports only, as references are */
	if (sc->peers)
		cJSON_AddItemToObject(o, "peers", model_value_json(sc->peers));
	return o;
}

static cJSON *
case_json(const struct test_case *tc)
{
	static const char *const deps[] = {"start_post_comp", "start_post_init", "end_post_comp"};
	cJSON *t = cJSON_CreateObject(), *dl;
	size_t j;

	add_str(t, "id", tc->id);
	cJSON_AddNumberToObject(t, "iterations", tc->iterations);
	if (tc->num_nodes)
		cJSON_AddItemToObject(t, "num_nodes", model_value_json(tc->num_nodes));
	cJSON_AddItemToObject(t, "nodes", strlist_json(&tc->nodes));
	cJSON_AddItemToObject(t, "exclude_nodes", strlist_json(&tc->exclude_nodes));
	if (tc->time_limit >= 0)
		cJSON_AddNumberToObject(t, "time_limit_seconds", (double)tc->time_limit);
	add_str(t, "extra_srun_args", tc->extra_srun_args);
	dl = cJSON_AddArrayToObject(t, "dependencies");
	for (j = 0; j < tc->n_deps; j++) {
		cJSON *d = cJSON_CreateObject();
		add_str(d, "type", deps[tc->deps[j].type]);
		add_str(d, "id", tc->deps[j].id);
		cJSON_AddNumberToObject(d, "delay", (double)tc->deps[j].delay);
		cJSON_AddItemToArray(dl, d);
	}
	cJSON_AddItemToObject(t, "test", testdef_json(tc->def));
	return t;
}

/* Appends `,\n\t"KEY":\t` and the scenario with its cases, each case on a
 * line of its own, printed as it is made: the tree of 100,000 cases, each
 * with its test, was most of what gen held. */
/* Appends o, then frees it, as one line of an array (last: no comma after
 * it). Returns false when cJSON cannot print it (out of memory). */
static bool
put_element(cJSON *o, bool last, struct buf *out)
{
	char *text = cJSON_PrintUnformatted(o);

	cJSON_Delete(o);
	if (!text)
		return false;
	buf_puts(out, "\t\t");
	buf_puts(out, text);
	buf_puts(out, last ? "\n\t" : ",\n");
	cJSON_free(text);
	return true;
}

static bool
scenario_write(const char *key, const struct scenario *sc, struct buf *out)
{
	cJSON *o = scenario_json(sc);
	char *text = cJSON_PrintUnformatted(o);
	size_t i;

	cJSON_Delete(o);
	if (!text)
		return false;
	buf_printf(out, ",\n\t\"%s\":\t", key);
	/* the object without its closing brace, then its cases */
	buf_push(out, text, strlen(text) - 1);
	cJSON_free(text);
	buf_puts(out, sc->n_cases ? ",\"Tests\":[\n" : ",\"Tests\":[");
	for (i = 0; i < sc->n_cases; i++)
		if (!put_element(case_json(&sc->cases[i]), i + 1 == sc->n_cases, out))
			return false;
	buf_puts(out, "]}");
	return true;
}

/* An integer member, printed as one (cJSON prints every number through
 * %1.15g and reads it back: a third of kunai.json's time for 100,000 runs). */
static void
add_int(cJSON *o, const char *key, long v)
{
	char text[24];

	snprintf(text, sizeof(text), "%ld", v);
	cJSON_AddRawToObject(o, key, text);
}

bool
json_campaign(const struct campaign *c, const struct runlist *rl, struct buf *out)
{
	cJSON *o = cJSON_CreateObject(), *sets;
	char *text, *end;
	size_t i;

	cJSON_AddStringToObject(o, "generator", "kunai");
	cJSON_AddItemToObject(o, "inputs", strlist_json(&c->inputs));
	if (c->n_presets) {
		sets = cJSON_AddArrayToObject(o, "presets");
		for (i = 0; i < c->n_presets; i++)
			cJSON_AddItemToArray(sets, cJSON_CreateString(c->presets[i]));
	}
	sets = cJSON_AddArrayToObject(o, "overrides");
	for (i = 0; i < c->n_overrides; i++) {
		cJSON *s = cJSON_CreateObject();
		add_str(s, "key", c->overrides[i].key);
		add_str(s, "value", c->overrides[i].value);
		if (c->overrides[i].preset)
			add_str(s, "preset", c->overrides[i].preset);
		cJSON_AddItemToArray(sets, s);
	}
	cJSON_AddItemToObject(o, "system", system_json(c->system));
	/* every case and every run on one line of its own, printed as it is
	 * made: the tree of 100,000 runs would cost more memory than
	 * everything else gen holds */
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (!text || !(end = strrchr(text, '}'))) {
		warn("out of memory while printing kunai.json");
		cJSON_free(text);
		return false;
	}
	/* up to the closing brace and the line break before it */
	while (end > text && (end[-1] == '\n' || end[-1] == '\t'))
		end--;
	buf_push(out, text, (size_t)(end - text));
	cJSON_free(text);
	if (!scenario_write("scenario", c->scenario, out) ||
	    (c->scenario->pre_test && !scenario_write("pre_test", c->scenario->pre_test, out)) ||
	    (c->scenario->post_test && !scenario_write("post_test", c->scenario->post_test, out))) {
		warn("out of memory while printing kunai.json");
		return false;
	}
	buf_puts(out, rl->len ? ",\n\t\"runs\":\t[\n" : ",\n\t\"runs\":\t[");
	for (i = 0; i < rl->len; i++) {
		const struct run *r = &rl->items[i];
		cJSON *j = cJSON_CreateObject();
		add_str(j, "dir", r->dir);
		add_str(j, "id", r->tc->id);
		add_int(j, "iteration", r->iteration);
		if (r->step)
			add_int(j, "step", r->step);
		add_int(j, "num_nodes", r->num_nodes);
		if (r->time_limit >= 0)
			add_int(j, "time_limit_seconds", r->time_limit);
		if (r->sweep.len)
			cJSON_AddItemToObject(j, "sweep", kvlist_json(&r->sweep));
		cJSON_AddItemToObject(j, "cmd_args", kvlist_json(&r->args));
		cJSON_AddItemToObject(j, "env", kvlist_json(&r->env));
		if (!put_element(j, i + 1 == rl->len, out)) {
			warn("out of memory while printing kunai.json");
			return false;
		}
	}
	buf_puts(out, "]\n}\n");
	return true;
}
