/* json.c: the only file that includes cJSON.h. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "expand.h"
#include "json.h"
#include "model.h"
#include "toml.h"
#include "util.h"

static cJSON *tagged(const struct toml_value *v);

/* cJSON strings end at NUL but TOML strings and keys may hold U+0000. Parsed
 * TOML is valid UTF-8, so byte 0xFF never occurs in it: NUL travels through
 * cJSON as 0xFF and becomes \u0000 after printing. */
enum { NUL_STANDIN = 0xFF };

static char *
nul_escape(const char *s, size_t len)
{
	char *copy = xmalloc(len + 1);
	size_t i;

	for (i = 0; i < len; i++)
		copy[i] = s[i] ? s[i] : (char)NUL_STANDIN;
	copy[len] = '\0';
	return copy;
}

static cJSON *
tagged_scalar(const char *type, const char *text, size_t len)
{
	cJSON *o = cJSON_CreateObject();
	char *copy;

	if (!o)
		return NULL;
	copy = nul_escape(text, len);
	if (!cJSON_AddStringToObject(o, "type", type) || !cJSON_AddStringToObject(o, "value", copy)) {
		cJSON_Delete(o);
		o = NULL;
	}
	free(copy);
	return o;
}

static void
format_float(double d, char *out, size_t n)
{
	if (isnan(d))
		snprintf(out, n, "nan");
	else if (isinf(d))
		snprintf(out, n, d < 0 ? "-inf" : "inf");
	else
		snprintf(out, n, "%.17g", d);
}

static cJSON *
tagged_table(const struct toml_table *t)
{
	cJSON *o = cJSON_CreateObject();
	size_t i;

	for (i = 0; o && i < t->len; i++) {
		const struct toml_keyval *kv = &t->items[i];
		char *key = nul_escape(kv->key, kv->key_len);
		cJSON *child = tagged(kv->value);

		if (!child) {
			cJSON_Delete(o);
			o = NULL;
		} else {
			cJSON_AddItemToObject(o, key, child);
		}
		free(key);
	}
	return o;
}

static cJSON *
tagged(const struct toml_value *v)
{
	char tmp[64];
	cJSON *a;
	size_t i;

	switch (v->type) {
	case TOML_TABLE:
		return tagged_table(v->u.table);
	case TOML_ARRAY:
		a = cJSON_CreateArray();
		for (i = 0; a && i < v->u.array->len; i++) {
			cJSON *child = tagged(v->u.array->items[i]);
			if (!child) {
				cJSON_Delete(a);
				return NULL;
			}
			cJSON_AddItemToArray(a, child);
		}
		return a;
	case TOML_STRING:
		return tagged_scalar("string", v->u.str.s, v->u.str.len);
	case TOML_INTEGER:
		snprintf(tmp, sizeof(tmp), "%" PRId64, v->u.integer);
		return tagged_scalar("integer", tmp, strlen(tmp));
	case TOML_FLOAT:
		format_float(v->u.flt, tmp, sizeof(tmp));
		return tagged_scalar("float", tmp, strlen(tmp));
	case TOML_BOOL:
		return tagged_scalar("bool", v->u.boolean ? "true" : "false", v->u.boolean ? 4 : 5);
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		toml_format_datetime(v, tmp, sizeof(tmp));
		return tagged_scalar(v->type == TOML_DATETIME ? "datetime"
		                     : v->type == TOML_DATETIME_LOCAL ? "datetime-local"
		                     : v->type == TOML_DATE_LOCAL ? "date-local" : "time-local",
		                     tmp, strlen(tmp));
	}
	return NULL;
}

/* A TOML value as plain JSON (date-times as strings). */
static cJSON *
value_json(const struct toml_value *v)
{
	char tmp[64];
	cJSON *o;
	size_t i;

	switch (v->type) {
	case TOML_TABLE:
		o = cJSON_CreateObject();
		for (i = 0; i < v->u.table->len; i++)
			cJSON_AddItemToObject(o, v->u.table->items[i].key, value_json(v->u.table->items[i].value));
		return o;
	case TOML_ARRAY:
		o = cJSON_CreateArray();
		for (i = 0; i < v->u.array->len; i++)
			cJSON_AddItemToArray(o, value_json(v->u.array->items[i]));
		return o;
	case TOML_STRING:
		return cJSON_CreateString(v->u.str.s);
	case TOML_INTEGER:
		/* beyond 2^53 a JSON number would lose digits */
		if (v->u.integer > 9007199254740992LL || v->u.integer < -9007199254740992LL) {
			snprintf(tmp, sizeof(tmp), "%" PRId64, v->u.integer);
			return cJSON_CreateString(tmp);
		}
		return cJSON_CreateNumber((double)v->u.integer);
	case TOML_FLOAT:
		if (isnan(v->u.flt) || isinf(v->u.flt)) {
			format_float(v->u.flt, tmp, sizeof(tmp));
			return cJSON_CreateString(tmp);
		}
		return cJSON_CreateNumber(v->u.flt);
	case TOML_BOOL:
		return cJSON_CreateBool(v->u.boolean);
	default:
		toml_format_datetime(v, tmp, sizeof(tmp));
		return cJSON_CreateString(tmp);
	}
}

bool
json_tagged_toml(const struct toml_value *root, struct buf *out)
{
	cJSON *doc = tagged(root);
	char *text, *p;

	if (!doc) {
		warn("out of memory while building JSON");
		return false;
	}
	text = cJSON_Print(doc);
	cJSON_Delete(doc);
	if (!text) {
		warn("out of memory while printing JSON");
		return false;
	}
	for (p = text; *p; p++) {
		if ((unsigned char)*p == NUL_STANDIN)
			buf_puts(out, "\\u0000");
		else
			buf_putc(out, *p);
	}
	buf_putc(out, '\n');
	cJSON_free(text);
	return true;
}

/* ---- kunai.json: the resolved campaign, for provenance ------------------- */

static void
add_str(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
}

static cJSON *
argset_json(const struct argset *s)
{
	cJSON *o = cJSON_CreateObject();
	size_t i;

	for (i = 0; i < s->len; i++)
		cJSON_AddItemToObject(o, s->items[i].key, value_json(s->items[i].val));
	return o;
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
	static const char *const sched[] = {"standalone", "slurm", "kubernetes"};
	cJSON *o = cJSON_CreateObject(), *parts;
	size_t i, j;

	add_str(o, "name", s->name);
	add_str(o, "scheduler", sched[s->scheduler]);
	add_str(o, "install_path", s->install_path);
	add_str(o, "output_path", s->output_path);
	cJSON_AddNumberToObject(o, "max_jobs", s->max_jobs);
	cJSON_AddNumberToObject(o, "monitor_interval", s->monitor_interval);
	cJSON_AddItemToObject(o, "global_env_vars", argset_json(&s->global_env_vars));
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
	return o;
}

static cJSON *
testdef_json(const struct testdef *d)
{
	cJSON *o = cJSON_CreateObject();

	add_str(o, "name", d->name);
	add_str(o, "description", d->description);
	add_str(o, "test_template_name", d->template_name);
	cJSON_AddItemToObject(o, "cmd_args", argset_json(&d->cmd_args));
	cJSON_AddItemToObject(o, "extra_cmd_args", argset_json(&d->extra_cmd_args));
	cJSON_AddItemToObject(o, "extra_env_vars", argset_json(&d->extra_env_vars));
	cJSON_AddItemToObject(o, "extra_container_mounts", strlist_json(&d->extra_container_mounts));
	return o;
}

static cJSON *
scenario_json(const struct scenario *sc)
{
	static const char *const deps[] = {"start_post_comp", "start_post_init", "end_post_comp"};
	cJSON *o = cJSON_CreateObject(), *cases = NULL;
	size_t i, j;

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
	cases = cJSON_AddArrayToObject(o, "Tests");
	for (i = 0; i < sc->n_cases; i++) {
		const struct test_case *tc = &sc->cases[i];
		cJSON *t = cJSON_CreateObject(), *dl = NULL;
		add_str(t, "id", tc->id);
		cJSON_AddNumberToObject(t, "iterations", tc->iterations);
		if (tc->num_nodes)
			cJSON_AddItemToObject(t, "num_nodes", value_json(tc->num_nodes));
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
		cJSON_AddItemToArray(cases, t);
	}
	return o;
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
	cJSON_AddItemToObject(o, "scenario", scenario_json(c->scenario));
	if (c->scenario->pre_test)
		cJSON_AddItemToObject(o, "pre_test", scenario_json(c->scenario->pre_test));
	if (c->scenario->post_test)
		cJSON_AddItemToObject(o, "post_test", scenario_json(c->scenario->post_test));
	/* every run on one line of its own, printed as it is made: the tree of
	 * 100,000 runs would cost more memory than everything else gen holds */
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (!text || !(end = strrchr(text, '}'))) {
		warn("out of memory while printing kunai.json");
		cJSON_free(text);
		return false;
	}
	buf_push(out, text, (size_t)(end - text));
	cJSON_free(text);
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
		text = cJSON_PrintUnformatted(j);
		cJSON_Delete(j);
		if (!text) {
			warn("out of memory while printing kunai.json");
			return false;
		}
		buf_puts(out, "\t\t");
		buf_puts(out, text);
		buf_puts(out, i + 1 < rl->len ? ",\n" : "\n\t");
		cJSON_free(text);
	}
	buf_puts(out, "]\n}\n");
	return true;
}
