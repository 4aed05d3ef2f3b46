/* model_test.c: a test definition table (CloudAI's TestDefinition,
 * REFERENCE.md §3) -> struct testdef, with cmd_args type-checked against
 * the workload's argument schema. The same code loads test files, inline
 * scenario tests and test files merged with a scenario's overrides. */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "gen/base/util.h"
#include "gen/workloads/workload.h"

#define TEST_KEYS                                                                        \
	"name", "description", "test_template_name", "cmd_args", "extra_cmd_args",       \
		"extra_env_vars", "extra_container_mounts", "git_repos", "nsys",         \
		"predictor", "training_report", "agent", "agent_steps", "agent_metrics", \
		"agent_reward_function", "agent_config", "dse_excluded_args", "env_params",     \
		"references", "peers"

static const char *const test_keys[] = {TEST_KEYS, NULL};
/* SlurmContainer's own top-level fields */
static const char *const container_keys[] = {TEST_KEYS, "extra_srun_args", "scripts", NULL};

static bool
is_scalar(const struct toml_value *v)
{
	return v->type == TOML_STRING || v->type == TOML_INTEGER || v->type == TOML_FLOAT ||
	       v->type == TOML_BOOL;
}

static bool
int_text(const char *s)
{
	if (*s == '+' || *s == '-')
		s++;
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static bool
float_text(const char *s)
{
	char *end;
	double d;

	if (!*s || isspace((unsigned char)*s))
		return false;
	d = strtod(s, &end);
	return !*end && isfinite(d);
}

/* nccl-tests sizes: digits with an optional K, M, G or T. */
static bool
size_text(const char *s)
{
	const char *p = s;

	while (isdigit((unsigned char)*p))
		p++;
	if (p == s)
		return false;
	if (*p && strchr("KMGTkmgt", *p))
		p++;
	return !*p;
}

static const char *const type_names[] = {
	[ARG_STRING] = "a string",
	[ARG_INT] = "an integer",
	[ARG_FLOAT] = "a number",
	[ARG_BOOL] = "a boolean",
	[ARG_SIZE] = "a size (an integer, or digits with K, M, G or T)",
	[ARG_LIST] = "a list",
	[ARG_ANY] = "a single value",
	[ARG_TABLE] = "a table",
};

/* One scalar against its schema entry. */
static bool
check_scalar(struct mctx *c, const char *key, const struct arg_schema *s,
             const struct toml_value *v)
{
	const char *str = v->type == TOML_STRING ? v->u.str.s : NULL;
	struct toml_value *text;
	struct buf b = {0};
	bool ok;
	size_t i, n;

	if (str && !m_check_str(c, key, v))
		return false;
	switch (s->type) {
	case ARG_STRING:
		ok = str || v->type == TOML_INTEGER || v->type == TOML_FLOAT;
		break;
	case ARG_INT:
		ok = v->type == TOML_INTEGER || (str && int_text(str));
		break;
	case ARG_FLOAT:
		ok = v->type == TOML_INTEGER || (v->type == TOML_FLOAT && isfinite(v->u.flt)) ||
		     (str && float_text(str));
		break;
	case ARG_BOOL:
		ok = v->type == TOML_BOOL ||
		     (str && (!strcmp(str, "true") || !strcmp(str, "false") ||
		              !strcmp(str, "True") || !strcmp(str, "False")));
		break;
	case ARG_SIZE:
		ok = (v->type == TOML_INTEGER && v->u.integer >= 0) || (str && size_text(str));
		break;
	default:
		ok = true; /* a type this file does not know yet: the builder checks */
	}
	if (!ok) {
		if (str)
			merr(c, v->pos, "'%s' must be %s, not \"%s\"", key, type_names[s->type],
			     m_shown(c, str));
		else
			merr(c, v->pos, "'%s' must be %s, not %s", key, type_names[s->type],
			     m_a_type(v));
		return false;
	}
	if (!s->choices)
		return true;
	text = m_stringify(c, v, false);
	for (n = 0; s->choices[n]; n++)
		if (text && strcmp(text->u.str.s, s->choices[n]) == 0)
			return true;
	buf_printf(&b, "'%s' must be one of", key);
	for (i = 0; i < n; i++)
		buf_printf(&b, "%s %s", i ? "," : "", s->choices[i]);
	if (text)
		m_did_you_mean(&b, text->u.str.s, s->choices, n);
	merr(c, v->pos, "%s", b.data);
	buf_free(&b);
	return false;
}

/* A list value is a sweep: one point per element. */
static bool
check_elems(struct mctx *c, const char *key, const struct arg_schema *s,
            const struct toml_value *v)
{
	const struct toml_value *e;
	bool ok = true;
	size_t i;

	if (v->u.array->len == 0) {
		merr(c, v->pos, "'%s' is an empty list (a sweep needs at least one value)", key);
		return false;
	}
	for (i = 0; i < v->u.array->len; i++) {
		e = v->u.array->items[i];
		if (!is_scalar(e)) {
			merr(c, e->pos, "'%s' must hold single values, not %s", key, m_a_type(e));
			ok = false;
		} else if (s && !check_scalar(c, key, s, e)) {
			ok = false;
		} else if (!s && e->type == TOML_STRING && !m_check_str(c, key, e)) {
			ok = false;
		}
	}
	return ok;
}

static const char *const *
schema_keys(struct mctx *c, const struct workload *wl)
{
	const char **k = arena_alloc(c->a, (wl->n_args + 1) * sizeof(*k));
	size_t i;

	for (i = 0; i < wl->n_args; i++)
		k[i] = wl->args[i].key;
	return k;
}

/* Whether key is, or is under, one of the workload's own top-level tables
 * (workload.tables), which cmd_args cannot hold. */
static bool
in_wl_table(const struct workload *wl, const char *key)
{
	size_t i, n;

	for (i = 0; wl && wl->tables && wl->tables[i]; i++) {
		n = strlen(wl->tables[i]);
		if (strncmp(key, wl->tables[i], n) == 0 && (key[n] == '.' || !key[n]))
			return true;
	}
	return false;
}

/* One flattened cmd_args entry; table: the workload's own top-level table
 * it came from (no sweeps there), NULL for cmd_args. */
static void
check_arg(struct mctx *c, struct testdef *td, const char *key, const struct toml_keyval *kv,
          const char *table)
{
	const struct arg_schema *s = NULL;
	const struct toml_value *v = kv->value;
	const char *near;
	struct buf b = {0};
	bool ok;

	if (td->wl && ((!table && in_wl_table(td->wl, key)) || !(s = workload_arg(td->wl, key)))) {
		s = NULL;
		if (!td->wl->extra_args_ok || table) {
			buf_printf(&b, "unknown key '%s'", m_shown(c, key));
			m_did_you_mean(&b, key, schema_keys(c, td->wl), td->wl->n_args);
			merr(c, kv->pos, "%s", b.data);
			buf_free(&b);
			return;
		}
		/* passed through as a flag, unless it is a near miss of a real one */
		near = m_suggest_close(key, schema_keys(c, td->wl), td->wl->n_args);
		if (near) {
			merr(c, kv->pos, "unknown key '%s' (did you mean '%s'? extra_cmd_args passes "
			                 "a flag through as written)",
			     m_shown(c, key), near);
			return;
		}
	}
	/* a free-form key ("T.*") that is a near miss of a declared one */
	if (s && s->key[strlen(s->key) - 1] == '*' &&
	    (near = m_suggest_close(key, schema_keys(c, td->wl), td->wl->n_args)) && !strchr(near, '*')) {
		merr(c, kv->pos, "unknown key '%s' (did you mean '%s'? other keys pass through as flags)",
		     m_shown(c, key), near);
		return;
	}
	if (s && s->type == ARG_TABLE)
		ok = (merr(c, v->pos, "'%s' must be a table, not %s", key, m_a_type(v)), false);
	else if (table && v->type == TOML_ARRAY && (!s || s->type != ARG_LIST))
		ok = (merr(c, v->pos, "'%s' takes one value: only cmd_args can be swept", key), false);
	else if (v->type == TOML_ARRAY && (!s || s->type != ARG_LIST))
		ok = check_elems(c, key, s, v);
	else if (s && s->type == ARG_LIST)
		ok = v->type == TOML_ARRAY ||
		     (merr(c, v->pos, "'%s' must be a list, not %s", key, m_a_type(v)), false);
	else if (!is_scalar(v))
		ok = (merr(c, v->pos, "'%s' must be a single value or a list, not %s", key,
		           m_a_type(v)),
		      false);
	else if (s)
		ok = check_scalar(c, key, s, v);
	else
		ok = v->type != TOML_STRING || m_check_str(c, key, v);
	if (ok)
		argset_add(c->a, &td->cmd_args, key, kv->pos, v);
}

/* Nested tables become dotted keys, in declaration order. An empty table
 * whose key the schema names as ARG_TABLE is kept as an empty value (its
 * presence counts: CloudAI's prefill = {} means disaggregated). */
static void
flatten(struct mctx *c, struct testdef *td, const struct toml_value *t, const char *prefix,
        int depth, const char *table)
{
	const struct arg_schema *s;
	const struct toml_keyval *kv;
	const char *key;
	size_t i;

	for (i = 0; i < t->u.table->len; i++) {
		kv = &t->u.table->items[i];
		if (strlen(kv->key) != kv->key_len || !*kv->key) {
			merr(c, kv->pos, "a cmd_args key must not be empty or contain NUL");
			continue;
		}
		key = kv->key;
		if (prefix) {
			char *k = arena_alloc(c->a, strlen(prefix) + kv->key_len + 2);
			strcpy(k, prefix);
			strcat(k, ".");
			strcat(k, kv->key);
			key = k;
		}
		if (kv->value->type == TOML_TABLE && kv->value->u.table->len == 0 && td->wl &&
		    (s = workload_arg(td->wl, key)) && s->type == ARG_TABLE && (table || !in_wl_table(td->wl, key)))
			argset_add(c->a, &td->cmd_args, key, kv->pos, m_string_value(c->a, "", kv->pos));
		else if (kv->value->type == TOML_TABLE && depth < 64)
			flatten(c, td, kv->value, key, depth + 1, table);
		else
			check_arg(c, td, key, kv, table);
	}
}

static void
load_cmd_args(struct mctx *c, struct testdef *td, const struct toml_value *root)
{
	const struct toml_value *t = m_table(c, root, "cmd_args");
	const struct toml_keyval *kv;
	int errors = c->errors;
	size_t i;

	if (t)
		flatten(c, td, t, NULL, 0, NULL);
	/* the workload's own top-level tables, kept under their names */
	for (i = 0; td->wl && td->wl->tables && td->wl->tables[i]; i++) {
		const char *name = td->wl->tables[i];
		if (!(kv = m_kv(root, name)))
			continue;
		if (kv->value->type == TOML_TABLE && kv->value->u.table->len == 0) {
			const struct arg_schema *s = workload_arg(td->wl, name);
			if (s && s->type == ARG_TABLE)
				argset_add(c->a, &td->cmd_args, name, kv->pos, m_string_value(c->a, "", kv->pos));
		} else if (kv->value->type == TOML_TABLE)
			flatten(c, td, kv->value, name, 1, name);
		else
			check_arg(c, td, name, kv, name);
	}
	if (!td->wl)
		return;
	if (td->wl->validate && c->errors == errors) {
		const struct toml_value *where = NULL;
		struct buf msg = {0};
		if (!td->wl->validate(&td->cmd_args, &msg, &where))
			merr(c, where ? where->pos : t ? t->pos : root->pos, "%s", buf_str(&msg));
		buf_free(&msg);
	}
	for (i = 0; i < td->wl->n_args; i++) {
		size_t j;
		if (!td->wl->args[i].required)
			continue;
		for (j = 0; j < td->cmd_args.len; j++)
			if (strcmp(td->cmd_args.items[j].key, td->wl->args[i].key) == 0)
				break;
		if (j == td->cmd_args.len)
			merr(c, t ? t->pos : root->pos, "missing required key '%s' in cmd_args",
			     td->wl->args[i].key);
	}
}

/* extra_cmd_args (strings) and extra_env_vars (strings, or lists of them
 * as sweeps); numbers are taken as their text. */
static void
load_strings(struct mctx *c, const struct toml_value *root, const char *what, bool env,
             struct argset *out)
{
	const struct toml_value *t = m_table(c, root, what), *v, *e;
	const struct toml_keyval *kv;
	struct toml_value *arr;
	size_t i, j;

	for (i = 0; t && i < t->u.table->len; i++) {
		kv = &t->u.table->items[i];
		if (env ? !m_check_env_name(c, kv->key, kv->key_len, kv->pos)
		        : strlen(kv->key) != kv->key_len) {
			if (!env)
				merr(c, kv->pos, "a key of '%s' must not contain NUL", what);
			continue;
		}
		v = kv->value;
		if (env && v->type == TOML_ARRAY) {
			if (v->u.array->len == 0) {
				merr(c, v->pos, "'%s' is an empty list (a sweep needs at least one "
				                "value)",
				     m_shown(c, kv->key));
				continue;
			}
			arr = arena_alloc(c->a, sizeof(*arr));
			*arr = *v;
			arr->u.array = arena_alloc(c->a, sizeof(*arr->u.array));
			arr->u.array->items = arena_alloc(c->a, v->u.array->len * sizeof(v));
			for (j = 0; j < v->u.array->len; j++) {
				e = v->u.array->items[j];
				if (!(arr->u.array->items[j] = m_stringify(c, e, false)) ||
				    !m_check_str(c, kv->key, arr->u.array->items[j])) {
					if (!arr->u.array->items[j])
						merr(c, e->pos, "'%s' must hold strings, not %s",
						     m_shown(c, kv->key), m_a_type(e));
					arr = NULL;
					break;
				}
			}
			if (arr) {
				arr->u.array->len = arr->u.array->cap = v->u.array->len;
				argset_add(c->a, out, kv->key, kv->pos, arr);
			}
			continue;
		}
		if (!(e = m_stringify(c, v, false))) {
			merr(c, v->pos, "'%s' must be a string%s, not %s", m_shown(c, kv->key),
			     env ? " or a list of strings" : "", m_a_type(v));
			continue;
		}
		if (m_check_str(c, kv->key, e))
			argset_add(c->a, out, kv->key, kv->pos, e);
	}
}

static void
load_git_repos(struct mctx *c, struct testdef *td, const struct toml_value *root)
{
	static const char *const keys[] = {
		"url", "commit", "init_submodules", "installed_path", "mount_as", NULL,
	};
	const struct toml_keyval *kv = m_kv(root, "git_repos");
	const struct toml_value *v, *e;
	struct git_repo *g;
	int errors;
	size_t i;

	if (!kv)
		return;
	v = kv->value;
	if (v->type != TOML_ARRAY) {
		merr(c, v->pos, "'git_repos' must be an array of tables, not %s", m_a_type(v));
		return;
	}
	td->git_repos = arena_alloc(c->a, (v->u.array->len + 1) * sizeof(*td->git_repos));
	for (i = 0; i < v->u.array->len; i++) {
		e = v->u.array->items[i];
		if (e->type != TOML_TABLE) {
			merr(c, e->pos, "'git_repos' must be an array of tables, not contain %s",
			     m_a_type(e));
			continue;
		}
		g = &td->git_repos[td->n_git_repos];
		errors = c->errors;
		m_check_keys(c, e, keys);
		m_str(c, e, "url", true, &g->url);
		m_str(c, e, "commit", true, &g->commit);
		m_bool(c, e, "init_submodules", &g->init_submodules);
		m_str(c, e, "installed_path", false, &g->installed_path);
		m_str(c, e, "mount_as", false, &g->mount_as);
		if (c->errors == errors)
			td->n_git_repos++;
	}
}

static void
load_nsys(struct mctx *c, struct testdef *td, const struct toml_value *root)
{
	static const char *const keys[] = {
		"enable", "nsys_binary", "task", "output", "sample", "trace", "force_overwrite",
		"capture_range", "capture_range_end", "cuda_graph_trace", "gpu_metrics_devices",
		"extra_args", NULL,
	};
	const struct toml_value *t = m_table(c, root, "nsys");
	struct nsys *n;
	bool b;

	if (!t)
		return;
	m_check_keys(c, t, keys);
	n = td->nsys = arena_alloc(c->a, sizeof(*n));
	n->enable = true;
	n->nsys_binary = "nsys";
	n->task = "profile";
	n->force_overwrite = -1;
	m_bool(c, t, "enable", &n->enable);
	m_str(c, t, "nsys_binary", false, &n->nsys_binary);
	m_str(c, t, "task", false, &n->task);
	m_str(c, t, "output", false, &n->output);
	m_str(c, t, "sample", false, &n->sample);
	m_str(c, t, "trace", false, &n->trace);
	if (m_kv(t, "force_overwrite") && m_bool(c, t, "force_overwrite", &b))
		n->force_overwrite = b;
	m_str(c, t, "capture_range", false, &n->capture_range);
	m_str(c, t, "capture_range_end", false, &n->capture_range_end);
	m_str(c, t, "cuda_graph_trace", false, &n->cuda_graph_trace);
	m_str(c, t, "gpu_metrics_devices", false, &n->gpu_metrics_devices);
	m_strlist(c, t, "extra_args", &n->extra_args);
}

/* DSE, agent and report options: kunai does not use them, but a CloudAI
 * file that sets them must still have the right types. */
static void
check_unused(struct mctx *c, const struct toml_value *root)
{
	static const char *const tr_keys[] = {
		"exclude_start_steps", "exclude_post_profiling_steps", NULL,
	};
	const struct toml_value *t;
	const struct toml_keyval *kv;
	struct strlist l = {0};
	const char *s;
	long n;
	size_t i;

	m_table(c, root, "predictor");
	m_table(c, root, "agent_config");
	if ((t = m_table(c, root, "training_report"))) {
		m_check_keys(c, t, tr_keys);
		m_int(c, t, "exclude_start_steps", false, 0, &n);
		m_int(c, t, "exclude_post_profiling_steps", false, 0, &n);
	}
	/* kunai's sweep is CloudAI's grid_search agent: every point, in order */
	s = NULL;
	if (m_str(c, root, "agent", false, &s) && s && strcmp(s, "grid_search") != 0)
		merr(c, m_kv(root, "agent")->value->pos,
		     "agent '%s' is not supported: kunai runs every sweep point, as CloudAI's "
		     "'grid_search' agent does, and implements no other agent",
		     m_shown(c, s));
	m_int(c, root, "agent_steps", false, 1, &n);
	m_strlist(c, root, "agent_metrics", &l);
	m_str(c, root, "agent_reward_function", false, &s);
	if ((t = m_table(c, root, "env_params")))
		for (i = 0; i < t->u.table->len; i++) {
			kv = &t->u.table->items[i];
			if (kv->value->type != TOML_TABLE)
				merr(c, kv->value->pos, "env_params '%s' must be a table, not %s",
				     m_shown(c, kv->key), m_a_type(kv->value));
		}
	if (m_kv(root, "scripts") && m_kv(root, "scripts")->value->type != TOML_ARRAY)
		merr(c, m_kv(root, "scripts")->value->pos, "'scripts' must be an array, not %s",
		     m_a_type(m_kv(root, "scripts")->value));
}

struct testdef *
m_load_testdef(struct mctx *c, const char *path, const struct toml_value *root)
{
	struct testdef *td = arena_alloc(c->a, sizeof(*td));
	const struct toml_keyval *kv;
	const char *const *names;
	int errors = c->errors;
	struct buf b = {0};
	size_t i, n;

	td->path = path;
	td->pos = root->pos;
	td->toml = root;
	m_str(c, root, "name", true, &td->name);
	if (td->name && (kv = m_kv(root, "name"))) {
		td->pos = kv->value->pos;
		m_check_name(c, "test name", td->name, kv->value->u.str.len, kv->value->pos);
	}
	m_str(c, root, "description", true, &td->description);
	m_str(c, root, "test_template_name", true, &td->template_name);
	if (td->template_name && !(td->wl = workload_find(td->template_name))) {
		names = workload_names();
		for (n = 0; names[n]; n++)
			;
		buf_printf(&b, "unknown test_template_name '%s'", m_shown(c, td->template_name));
		m_did_you_mean(&b, td->template_name, names, n);
		merr(c, m_kv(root, "test_template_name")->value->pos, "%s", b.data);
		buf_free(&b);
	}
	if (td->wl && td->wl->tables) {
		const char **keys;
		for (n = 0; td->wl->tables[n]; n++)
			;
		keys = arena_alloc(c->a, (LEN(test_keys) + n) * sizeof(*keys));
		memcpy(keys, test_keys, (LEN(test_keys) - 1) * sizeof(*keys));
		memcpy(keys + LEN(test_keys) - 1, td->wl->tables, (n + 1) * sizeof(*keys));
		m_check_keys(c, root, keys);
	} else
		m_check_keys(c, root,
		             td->template_name && !strcmp(td->template_name, "SlurmContainer")
		                     ? container_keys
		                     : test_keys);
	if (m_strlist(c, root, "dse_excluded_args", &td->dse_excluded_args))
		for (i = 0; i < td->dse_excluded_args.len; i++)
			if (strncmp(td->dse_excluded_args.items[i], "cmd_args.", 9) != 0)
				merr(c, td->dse_excluded_args.pos[i],
				     "dse_excluded_args entries must start with 'cmd_args.', not '%s'",
				     m_shown(c, td->dse_excluded_args.items[i]));
	load_cmd_args(c, td, root);
	load_strings(c, root, "extra_cmd_args", false, &td->extra_cmd_args);
	load_strings(c, root, "extra_env_vars", true, &td->extra_env_vars);
	m_strlist(c, root, "extra_container_mounts", &td->extra_container_mounts);
	m_strlist(c, root, "extra_srun_args", &td->extra_srun_args);
	load_git_repos(c, td, root);
	load_nsys(c, td, root);
	m_load_references(c, root);
	if (m_kv(root, "references"))
		td->references = m_kv(root, "references")->value;
	td->peers = m_load_peers(c, root);
	check_unused(c, root);
	return c->errors == errors ? td : NULL;
}

bool
m_load_test_file(struct mctx *c, struct mfile *f)
{
	if (f->def_state)
		return f->def_state > 0;
	f->def_state = -1;
	if (!f->root)
		return false;
	if (!m_kv(f->root, "test_template_name")) {
		merr(c, f->root->pos, "not a test definition (no 'test_template_name')");
		return false;
	}
	if (!(f->def = m_load_testdef(c, f->path, f->root)))
		return false;
	f->def_state = 1;
	return true;
}
