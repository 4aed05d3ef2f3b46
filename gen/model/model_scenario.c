/* model_scenario.c: a scenario TOML (CloudAI's TestScenarioModel,
 * REFERENCE.md §4) -> struct scenario: test cases merged with their test
 * definitions, node specs, time limits, dependencies (with cycle
 * detection) and pre/post hooks. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_priv.h"
#include "gen/base/util.h"
#include "gen/workloads/workload.h"

static const char *const scenario_keys[] = {
	"name", "job_status_check", "pre_test", "post_test", "sol_path", "reports", "Tests",
	/* kunai's own: campaign presets and phases (CloudAI rejects them) */
	"presets", "prepare", "cleanup", "peers", NULL,
};

#define CASE_KEYS                                                                         \
	"id", "test_name", "num_nodes", "nodes", "exclude_nodes", "time_limit",           \
		"iterations", "weight", "sol", "ideal_perf", "extra_srun_args", "dependencies"
#define OVERRIDE_KEYS                                                                     \
	"name", "description", "test_template_name", "cmd_args", "dse_excluded_args",     \
		"extra_env_vars", "extra_container_mounts", "git_repos", "nsys", "agent", \
		"agent_steps", "agent_metrics", "agent_reward_function", "agent_config", "peers"

static const char *const case_keys[] = {CASE_KEYS, OVERRIDE_KEYS, NULL};
static const char *const override_keys[] = {OVERRIDE_KEYS, NULL};
/* test definition fields a scenario may not override (CloudAI forbids them) */
static const char *const fixed_keys[] = {"extra_cmd_args", "env_params", "predictor", NULL};

/* Does a [[Tests]] table set any key of the test definition? */
static bool
overrides_any(const struct toml_value *t)
{
	size_t i, k;

	for (i = 0; i < t->u.table->len; i++)
		for (k = 0; override_keys[k]; k++)
			if (t->u.table->items[i].key_len == strlen(override_keys[k]) &&
			    memcmp(t->u.table->items[i].key, override_keys[k], t->u.table->items[i].key_len) == 0)
				return true;
	return false;
}

static const char *const dep_types[] = {"start_post_comp", "start_post_init", "end_post_comp",
                                        NULL};

static void
check_case_keys(struct mctx *c, const struct toml_value *t)
{
	const struct toml_keyval *kv;
	struct buf b = {0};
	size_t i, j;

	for (i = 0; i < t->u.table->len; i++) {
		kv = &t->u.table->items[i];
		for (j = 0; case_keys[j]; j++)
			if (strcmp(kv->key, case_keys[j]) == 0)
				break;
		if (case_keys[j] && strlen(kv->key) == kv->key_len)
			continue;
		for (j = 0; fixed_keys[j]; j++)
			if (strcmp(kv->key, fixed_keys[j]) == 0) {
				merr(c, kv->pos, "'%s' cannot be set in a scenario, only in the test "
				                 "definition",
				     kv->key);
				break;
			}
		if (fixed_keys[j])
			continue;
		b.len = 0;
		buf_printf(&b, "unknown key '%s'", m_shown(c, kv->key));
		m_did_you_mean(&b, kv->key, case_keys, LEN(case_keys) - 1);
		merr(c, kv->pos, "%s", b.data);
	}
	buf_free(&b);
}

/* A count: an integer, or a string of digits (CloudAI coerces "2"). */
static struct toml_value *
count_value(struct mctx *c, const char *key, const struct toml_value *v)
{
	struct toml_value *r;
	const char *s;
	long n = 0;

	if (v->type == TOML_STRING) {
		for (s = v->u.str.s; isdigit((unsigned char)*s) && n < 1000000; s++)
			n = n * 10 + (*s - '0');
		if (s == v->u.str.s || *s || n < 1) {
			merr(c, v->pos, "'%s' must be a positive integer, not \"%s\"", key,
			     m_shown(c, v->u.str.s));
			return NULL;
		}
		r = arena_alloc(c->a, sizeof(*r));
		r->type = TOML_INTEGER;
		r->pos = v->pos;
		r->u.integer = n;
		return r;
	}
	if (v->type != TOML_INTEGER) {
		merr(c, v->pos, "'%s' must be an integer, not %s", key, m_a_type(v));
		return NULL;
	}
	if (v->u.integer < 1 || v->u.integer > 1000000) {
		merr(c, v->pos, "'%s' must be a positive integer, not %lld", key,
		     (long long)v->u.integer);
		return NULL;
	}
	return (struct toml_value *)v;
}

/* num_nodes: a count, or a list of counts (a sweep); default 1. */
static struct toml_value *
load_num_nodes(struct mctx *c, const struct toml_value *t)
{
	const struct toml_keyval *kv = m_kv(t, "num_nodes");
	struct toml_value *r, *e;
	size_t i, n;

	if (!kv) {
		r = arena_alloc(c->a, sizeof(*r));
		r->type = TOML_INTEGER;
		r->pos = t->pos;
		r->u.integer = 1;
		return r;
	}
	if (kv->value->type != TOML_ARRAY)
		return count_value(c, "num_nodes", kv->value);
	n = kv->value->u.array->len;
	if (!n) {
		merr(c, kv->value->pos, "'num_nodes' is an empty list (a sweep needs at least one "
		                        "value)");
		return NULL;
	}
	r = arena_alloc(c->a, sizeof(*r));
	*r = *kv->value;
	r->u.array = arena_alloc(c->a, sizeof(*r->u.array));
	r->u.array->items = arena_alloc(c->a, n * sizeof(e));
	r->u.array->len = r->u.array->cap = n;
	for (i = 0; i < n; i++) {
		if (!(e = count_value(c, "num_nodes", kv->value->u.array->items[i])))
			r = NULL;
		else if (r)
			r->u.array->items[i] = e;
	}
	return r;
}

static const struct slurm_partition *
find_partition(const struct system *s, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < s->n_partitions; i++)
		if (strlen(s->partitions[i].name) == len &&
		    memcmp(s->partitions[i].name, name, len) == 0)
			return &s->partitions[i];
	return NULL;
}

/* PARTITION:GROUP:N or PARTITION:GROUP:max_avail */
static void
check_group_spec(struct mctx *c, const char *spec, struct toml_pos pos)
{
	const char *p1 = strchr(spec, ':'), *p2 = p1 ? strchr(p1 + 1, ':') : NULL, *n;
	const struct slurm_partition *p;
	const char **names;
	struct buf b = {0};
	char *word;
	size_t i;

	if (!p2 || strchr(p2 + 1, ':') || p1 == spec || p2 == p1 + 1 || !p2[1]) {
		merr(c, pos, "invalid node spec '%s' (PARTITION:GROUP:N or "
		             "PARTITION:GROUP:max_avail)",
		     m_shown(c, spec));
		return;
	}
	n = p2 + 1;
	if (strcmp(n, "max_avail") != 0) {
		for (i = 0; isdigit((unsigned char)n[i]); i++)
			;
		if (n[i] || i > 6 || atol(n) < 1) {
			merr(c, pos, "node count '%s' in '%s' must be a positive integer or max_avail",
			     m_shown(c, n), m_shown(c, spec));
			return;
		}
	}
	if (!c->sys)
		return;
	if (c->sys->scheduler != SCHED_SLURM) {
		merr(c, pos, "node spec '%s' names a Slurm partition, but system '%s' is not Slurm",
		     m_shown(c, spec), c->sys->name);
		return;
	}
	if (!(p = find_partition(c->sys, spec, (size_t)(p1 - spec)))) {
		word = arena_strndup(c->a, spec, (size_t)(p1 - spec));
		names = arena_alloc(c->a, (c->sys->n_partitions + 1) * sizeof(*names));
		for (i = 0; i < c->sys->n_partitions; i++)
			names[i] = c->sys->partitions[i].name;
		buf_printf(&b, "unknown partition '%s' in node spec '%s'", m_shown(c, word),
		           m_shown(c, spec));
		m_did_you_mean(&b, word, names, c->sys->n_partitions);
		merr(c, pos, "%s", b.data);
		buf_free(&b);
		return;
	}
	word = arena_strndup(c->a, p1 + 1, (size_t)(p2 - p1 - 1));
	for (i = 0; i < p->n_groups; i++)
		if (strcmp(p->groups[i].name, word) == 0)
			return;
	names = arena_alloc(c->a, (p->n_groups + 1) * sizeof(*names));
	for (i = 0; i < p->n_groups; i++)
		names[i] = p->groups[i].name;
	buf_printf(&b, "unknown group '%s' in partition '%s'", m_shown(c, word), p->name);
	m_did_you_mean(&b, word, names, p->n_groups);
	merr(c, pos, "%s", b.data);
	buf_free(&b);
}

static void
load_nodes(struct mctx *c, const struct toml_value *t, const char *key, struct strlist *out)
{
	struct strlist tmp = {0};
	size_t i;

	if (!m_strlist(c, t, key, out))
		return;
	for (i = 0; i < out->len; i++) {
		if (strchr(out->items[i], ':') && strcmp(key, "nodes") == 0) {
			check_group_spec(c, out->items[i], out->pos[i]);
			continue;
		}
		tmp.len = 0;
		if (!model_expand_hostlist(c->a, out->items[i], &tmp))
			merr(c, out->pos[i], "invalid node list '%s'", m_shown(c, out->items[i]));
	}
}

static void
load_time_limit(struct mctx *c, struct test_case *tc, const struct toml_value *t)
{
	const struct toml_keyval *kv = m_kv(t, "time_limit");
	const char *s = NULL;
	bool slurm_only;

	tc->time_limit = -1;
	if (!kv || !m_str(c, t, "time_limit", false, &s))
		return;
	tc->time_limit = model_parse_time(s, &slurm_only);
	if (tc->time_limit < 0)
		merr(c, kv->value->pos, "invalid time_limit '%s' (H:M:S, H:M, D-H:M:S, or a number "
		                        "with s, m, h, d or w)",
		     m_shown(c, s));
	else if (slurm_only && tc->time_limit > 0)
		fprintf(stderr, "%s:%d:%d: warning: time_limit '%s' is Slurm's form, which CloudAI "
		                "refuses; kunai reads it as Slurm does (%ld s)\n",
		        kv->value->pos.path, kv->value->pos.line, kv->value->pos.col, m_shown(c, s),
		        tc->time_limit);
	else if (tc->time_limit == 0)
		merr(c, kv->value->pos, "time_limit must be at least one second");
}

static void
load_deps(struct mctx *c, struct test_case *tc, const struct toml_value *t)
{
	static const char *const keys[] = {"type", "id", "delay", NULL};
	const struct toml_keyval *kv = m_kv(t, "dependencies");
	const struct toml_value *v, *e;
	const char *type;
	struct buf b = {0};
	struct dep *d;
	int errors;
	size_t i, k;

	if (!kv)
		return;
	v = kv->value;
	if (v->type != TOML_ARRAY) {
		merr(c, v->pos, "'dependencies' must be an array of tables, not %s", m_a_type(v));
		return;
	}
	tc->deps = arena_alloc(c->a, (v->u.array->len + 1) * sizeof(*tc->deps));
	for (i = 0; i < v->u.array->len; i++) {
		e = v->u.array->items[i];
		if (e->type != TOML_TABLE) {
			merr(c, e->pos, "'dependencies' must be an array of tables, not contain %s",
			     m_a_type(e));
			continue;
		}
		errors = c->errors;
		m_check_keys(c, e, keys);
		d = &tc->deps[tc->n_deps];
		d->pos = e->pos;
		type = NULL;
		m_str(c, e, "type", true, &type);
		m_str(c, e, "id", true, &d->id);
		m_int(c, e, "delay", false, 0, &d->delay);
		if (c->errors != errors)
			continue;
		for (k = 0; dep_types[k]; k++)
			if (strcmp(type, dep_types[k]) == 0)
				break;
		if (!dep_types[k]) {
			b.len = 0;
			buf_printf(&b, "unknown dependency type '%s' (start_post_comp, "
			               "start_post_init or end_post_comp)",
			           m_shown(c, type));
			m_did_you_mean(&b, type, dep_types, 3);
			merr(c, m_kv(e, "type")->value->pos, "%s", b.data);
			continue;
		}
		d->type = k == 0   ? DEP_START_POST_COMP
		          : k == 1 ? DEP_START_POST_INIT
		                   : DEP_END_POST_COMP;
		d->pos = m_kv(e, "id")->value->pos;
		tc->n_deps++;
	}
	buf_free(&b);
}

/* The test definition of a case: a named one with the case's overrides
 * merged in, or an inline one. NULL after reporting (or when the named
 * definition itself failed, which was reported with it). */
static struct testdef *
load_case_def(struct mctx *c, const char *path, const struct toml_value *t,
              const struct pool *tests)
{
	const struct toml_keyval *kv = m_kv(t, "test_name");
	const char *name = NULL, **names;
	struct toml_value *empty;
	struct mfile *f;
	struct buf b = {0};

	if (kv) {
		if (!m_str(c, t, "test_name", false, &name))
			return NULL;
		if (m_kv(t, "test_template_name")) {
			merr(c, m_kv(t, "test_template_name")->pos,
			     "'test_template_name' is only allowed in an inline test (without "
			     "test_name)");
			return NULL;
		}
		if (!(f = pool_find(tests, name))) {
			if (tests->n_broken)
				return NULL; /* it may be in a file that failed to parse */
			names = pool_names(c, tests);
			buf_printf(&b, "unknown test_name '%s'", m_shown(c, name));
			m_did_you_mean(&b, name, names, tests->len);
			if (!tests->len)
				buf_puts(&b, " (no test definitions were loaded: see --tests-dir)");
			merr(c, kv->value->pos, "%s", b.data);
			buf_free(&b);
			return NULL;
		}
		if (f->def_state < 0) {
			m_use_deferred(c, f);
			return NULL;
		}
		/* a case that overrides nothing shares its test's definition: 100,000
		 * cases of one test need not hold 100,000 copies of it */
		if (f->def_state == 1 && f->def && !overrides_any(t))
			return f->def;
		return m_load_testdef(c, f->path, m_merge(c->a, f->root, t, override_keys));
	}
	if (!m_kv(t, "test_template_name") && !m_kv(t, "name") && !m_kv(t, "description")) {
		merr(c, t->pos, "missing required key 'test_name' (or an inline test: "
		                "test_template_name, name and description)");
		return NULL;
	}
	empty = m_new_table(c->a, t->pos);
	return m_load_testdef(c, path, m_merge(c->a, empty, t, override_keys));
}

static void
check_scheduler(struct mctx *c, const struct test_case *tc, const struct toml_value *t)
{
	static const char *const sched_names[] = {"standalone", "slurm", "kubernetes", "lsf", "runai"};
	const struct toml_keyval *kv;

	if (!c->sys || !tc->def || !tc->def->wl)
		return;
	if (tc->def->wl->schedulers & (1u << c->sys->scheduler))
		return;
	kv = m_kv(t, "test_name") ? m_kv(t, "test_name") : m_kv(t, "test_template_name");
	merr(c, kv ? kv->value->pos : t->pos, "workload %s (test '%s') cannot run on a %s system",
	     tc->def->wl->name, tc->def->name, sched_names[c->sys->scheduler]);
}

static bool
load_case(struct mctx *c, struct scenario *sc, struct test_case *tc, const struct toml_value *t,
          const struct pool *tests)
{
	const struct toml_keyval *kv;
	int errors = c->errors;
	long n;

	tc->pos = t->pos;
	check_case_keys(c, t);
	if (m_str(c, t, "id", true, &tc->id) && tc->id) {
		kv = m_kv(t, "id");
		m_check_name(c, "id", tc->id, kv->value->u.str.len, kv->value->pos);
		tc->pos = kv->value->pos;
	}
	tc->def = load_case_def(c, sc->path, t, tests);
	check_scheduler(c, tc, t);
	tc->iterations = 1;
	if (m_int(c, t, "iterations", false, 1, &n) && m_kv(t, "iterations"))
		tc->iterations = (int)n;
	tc->num_nodes = load_num_nodes(c, t);
	tc->num_nodes_set = m_kv(t, "num_nodes") != NULL;
	load_nodes(c, t, "nodes", &tc->nodes);
	load_nodes(c, t, "exclude_nodes", &tc->exclude_nodes);
	load_time_limit(c, tc, t);
	tc->ideal_perf = 1.0;
	m_num(c, t, "weight", &tc->weight);
	m_num(c, t, "ideal_perf", &tc->ideal_perf);
	if (m_kv(t, "sol") && m_num(c, t, "sol", &tc->sol))
		tc->has_sol = true;
	m_str(c, t, "extra_srun_args", false, &tc->extra_srun_args);
	load_deps(c, tc, t);
	return c->errors == errors && tc->def;
}

static struct scenario *
load_hook(struct mctx *c, const struct toml_value *root, const char *key)
{
	const struct toml_keyval *kv = m_kv(root, key);
	struct hookdir *hd;
	struct mfile *f = NULL, *g;
	const char *name = NULL, **names, *hn;
	struct buf b = {0};
	size_t i, n = 0;

	if (!kv || !m_str(c, root, key, false, &name))
		return NULL;
	if (!c->hook_dir || !(hd = hookdir_get(c, c->hook_dir))) {
		if (c->hook_dir)
			merr(c, kv->value->pos, "%s '%s': hook directory '%s' is not a directory", key,
			     m_shown(c, name), c->hook_dir);
		else
			merr(c, kv->value->pos, "%s '%s' needs a hook directory (--hook-dir, or "
			                        "'hook' beside the scenario's directory)",
			     key, m_shown(c, name));
		return NULL;
	}
	names = arena_alloc(c->a, (hd->n_files + 1) * sizeof(*names));
	for (i = 0; i < hd->n_files; i++) {
		g = hd->files[i];
		hn = NULL;
		if (!g->root || m_kv(g->root, "Tests") == NULL || !m_kv(g->root, "name") ||
		    m_kv(g->root, "name")->value->type != TOML_STRING)
			continue;
		hn = m_kv(g->root, "name")->value->u.str.s;
		names[n++] = hn;
		if (!f && strcmp(hn, name) == 0)
			f = g;
	}
	if (!f) {
		buf_printf(&b, "unknown hook '%s'", m_shown(c, name));
		m_did_you_mean(&b, name, names, n);
		if (n)
			buf_printf(&b, "; hooks in %s:", c->hook_dir);
		else
			buf_printf(&b, "; %s has no hook scenarios", c->hook_dir);
		for (i = 0; i < n; i++)
			buf_printf(&b, "%s %s", i ? "," : "", m_shown(c, names[i]));
		merr(c, kv->value->pos, "%s", b.data);
		buf_free(&b);
		return NULL;
	}
	return m_load_scenario(c, f, &hd->tests, true);
}

/* [prepare] / [cleanup]: commands = ["..."], time_limit = "HH:MM:SS"
 * (default 10 minutes). NULL when absent or reported. */
static struct phase *
load_phase(struct mctx *c, const struct toml_value *root, const char *key)
{
	static const char *const keys[] = {"commands", "time_limit", NULL};
	const struct toml_value *t = m_table(c, root, key);
	const struct toml_keyval *kv;
	struct phase *ph;
	const char *s = NULL;
	size_t i;

	if (!t)
		return NULL;
	ph = arena_alloc(c->a, sizeof(*ph));
	ph->pos = m_kv(root, key)->pos;
	ph->time_limit = 600;
	m_check_keys(c, t, keys);
	if (!m_strlist(c, t, "commands", &ph->commands))
		return NULL;
	if (!m_kv(t, "commands") || !ph->commands.len) {
		merr(c, ph->pos, "[%s] needs commands = [\"...\", ...]", key);
		return NULL;
	}
	for (i = 0; i < ph->commands.len; i++)
		if (!ph->commands.items[i][0]) {
			merr(c, ph->commands.pos[i], "an empty command");
			return NULL;
		}
	if ((kv = m_kv(t, "time_limit")) && m_str(c, t, "time_limit", false, &s) && s) {
		bool slurm_only;
		ph->time_limit = model_parse_time(s, &slurm_only);
		if (ph->time_limit <= 0) {
			merr(c, kv->value->pos, "invalid time_limit '%s' (H:M:S, H:M, D-H:M:S, or a number "
			                        "with s, m, h, d or w; at least one second)",
			     m_shown(c, s));
			return NULL;
		}
	}
	return ph;
}

struct scenario *
m_load_scenario(struct mctx *c, struct mfile *f, const struct pool *tests, bool hook)
{
	const struct toml_value *root = f->root, *tv;
	const struct toml_keyval *kv, *ikv;
	const char *sol_path;
	struct scenario *sc;
	struct id_index ix;
	int errors = c->errors;
	size_t i, j;
	bool ok = true;

	if (f->sc_state)
		return f->sc_state == 1 ? f->sc : NULL;
	f->sc_state = -1;
	if (!root)
		return NULL;
	f->sc_state = 2;
	sc = arena_alloc(c->a, sizeof(*sc));
	sc->path = f->path;
	m_check_keys(c, root, scenario_keys);
	if (m_str(c, root, "name", true, &sc->name) && sc->name)
		m_check_name(c, "scenario name", sc->name, m_kv(root, "name")->value->u.str.len,
		             m_kv(root, "name")->value->pos);
	sc->job_status_check = true;
	m_bool(c, root, "job_status_check", &sc->job_status_check);
	m_str(c, root, "sol_path", false, &sol_path);
	m_check_reports(c, root);
	sc->peers = m_load_peers(c, root);
	if (hook && (kv = m_kv(root, "presets") ? m_kv(root, "presets") : m_kv(root, "prepare") ? m_kv(root, "prepare") : m_kv(root, "cleanup")))
		merr(c, kv->pos, "a hook cannot have '%s' (only the campaign's scenario)", kv->key);
	else if (!hook) {
		m_check_presets(c, root);
		sc->prepare = load_phase(c, root, "prepare");
		sc->cleanup = load_phase(c, root, "cleanup");
	}
	if (hook && (m_kv(root, "pre_test") || m_kv(root, "post_test"))) {
		kv = m_kv(root, "pre_test") ? m_kv(root, "pre_test") : m_kv(root, "post_test");
		merr(c, kv->pos, "a hook cannot have hooks of its own");
	} else {
		sc->pre_test = load_hook(c, root, "pre_test");
		sc->post_test = load_hook(c, root, "post_test");
		if ((m_kv(root, "pre_test") && !sc->pre_test) ||
		    (m_kv(root, "post_test") && !sc->post_test))
			ok = false;
	}
	if (!(kv = m_kv(root, "Tests"))) {
		merr(c, root->pos, "missing required key 'Tests'");
	} else if (kv->value->type != TOML_ARRAY) {
		merr(c, kv->value->pos, "'Tests' must be an array of tables, not %s",
		     m_a_type(kv->value));
	} else if (kv->value->u.array->len == 0) {
		merr(c, kv->value->pos, "'Tests' must have at least one test");
	} else {
		sc->cases = arena_alloc(c->a, kv->value->u.array->len * sizeof(*sc->cases));
		id_index_init(c->a, &ix, kv->value->u.array->len);
		for (i = 0; i < kv->value->u.array->len; i++) {
			tv = kv->value->u.array->items[i];
			if (tv->type != TOML_TABLE) {
				merr(c, tv->pos, "'Tests' must be an array of tables, not contain %s",
				     m_a_type(tv));
				continue;
			}
			if (!load_case(c, sc, &sc->cases[sc->n_cases], tv, tests))
				ok = false;
			ikv = m_kv(tv, "id");
			/* a case's id is also a ninja target (a hook's is not) */
			if (!hook && sc->cases[sc->n_cases].id &&
			    model_reserved_id(sc->cases[sc->n_cases].id))
				merr(c, ikv->value->pos,
				     "test id '%s' is reserved: a target or file of kunai's build dir has that name",
				     sc->cases[sc->n_cases].id);
			if (sc->cases[sc->n_cases].id &&
			    (j = id_find(&ix, sc, sc->cases[sc->n_cases].id, true, sc->n_cases)) != SIZE_MAX)
				merr(c, ikv->value->pos, "duplicate id '%s' (first at line %d)",
				     m_shown(c, sc->cases[j].id), sc->cases[j].pos.line);
			sc->n_cases++;
		}
		resolve_deps(c, sc, &ix);
	}
	if (!ok || c->errors != errors) {
		f->sc_state = -1;
		return NULL;
	}
	f->sc_state = 1;
	f->sc = sc;
	return sc;
}
