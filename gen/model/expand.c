/* expand.c: scenario -> runs. A run is one test case at one sweep point in
 * one iteration; sweep dimensions are lists in cmd_args, extra_env_vars and
 * num_nodes (CloudAI's DSE action space), combined as a Cartesian product. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "model.h"
#include "gen/base/util.h"
#include "gen/toml/toml.h"
#include "gen/workloads/workload.h"

/* One sweep dimension: a key and its list of values. */
struct dim {
	const char *key;  /* "cmd_args.<key>", "extra_env_vars.<NAME>" or "NUM_NODES" */
	const char *name; /* the key inside its set */
	int set;          /* DIM_ARGS, DIM_ENV, DIM_NODES */
	const struct toml_array *values;
};

enum { DIM_ARGS, DIM_ENV, DIM_NODES };

/* Formats a scalar the way CloudAI (Python's str()) puts it on a command line. */
static const char *
scalar_text(struct arena *a, const struct toml_value *v)
{
	char tmp[64];

	switch (v->type) {
	case TOML_STRING:
		/* the tree's own text (it lives as long as the runs): 100,000
		 * runs need no copies of the same image URL */
		if (strlen(v->u.str.s) == v->u.str.len)
			return v->u.str.s;
		return arena_strndup(a, v->u.str.s, v->u.str.len);
	case TOML_INTEGER:
		snprintf(tmp, sizeof(tmp), "%" PRId64, v->u.integer);
		break;
	case TOML_FLOAT:
		if (isnan(v->u.flt))
			snprintf(tmp, sizeof(tmp), "nan");
		else if (isinf(v->u.flt))
			snprintf(tmp, sizeof(tmp), v->u.flt < 0 ? "-inf" : "inf");
		else {
			/* shortest text that reads back as the same double, as Python prints it */
			util_float_repr(tmp, sizeof(tmp), v->u.flt);
		}
		break;
	case TOML_BOOL:
		return v->u.boolean ? "True" : "False";
	case TOML_DATETIME:
	case TOML_DATETIME_LOCAL:
	case TOML_DATE_LOCAL:
	case TOML_TIME_LOCAL:
		toml_format_datetime(v, tmp, sizeof(tmp));
		break;
	case TOML_ARRAY:
	case TOML_TABLE:
		/* a list kept as a value (dse_excluded_args, ARG_LIST): comma-joined */
		if (v->type == TOML_ARRAY) {
			struct buf b = {0};
			const char *s;
			size_t i;
			for (i = 0; i < v->u.array->len; i++) {
				if (i)
					buf_putc(&b, ',');
				buf_puts(&b, scalar_text(a, v->u.array->items[i]));
			}
			s = arena_strdup(a, buf_str(&b));
			buf_free(&b);
			return s;
		}
		return "";
	}
	return arena_strdup(a, tmp);
}

/* Is the cmd_args key kept as a list value rather than swept? */
static bool
excluded(const struct testdef *d, const char *key)
{
	const struct arg_schema *s = d->wl ? workload_arg(d->wl, key) : NULL;
	size_t i, n;

	if (s && s->type == ARG_LIST)
		return true;
	for (i = 0; i < d->dse_excluded_args.len; i++) {
		const char *x = d->dse_excluded_args.items[i];
		if (strncmp(x, "cmd_args.", 9) != 0)
			continue;
		x += 9;
		n = strlen(x);
		/* prefix match on whole key components */
		if (strncmp(key, x, n) == 0 && (key[n] == '\0' || key[n] == '.'))
			return true;
	}
	return false;
}

static void
kv_push(struct arena *a, struct kvlist *l, size_t *cap, const char *k, const char *v)
{
	l->items = arena_reserve(a, l->items, l->len, l->len + 1, cap, sizeof(*l->items));
	l->items[l->len].key = k;
	l->items[l->len].value = v;
	l->len++;
}

/* The sweep dimensions of a case, in CloudAI's order: cmd_args, env, nodes. */
static size_t
collect_dims(struct arena *a, const struct test_case *tc, struct dim **out)
{
	const struct testdef *d = tc->def;
	size_t i, n = 0, cap = d->cmd_args.len + d->extra_env_vars.len + 1;
	struct dim *dims = arena_alloc(a, cap * sizeof(*dims));

	for (i = 0; i < d->cmd_args.len; i++) {
		const struct arg *g = &d->cmd_args.items[i];
		if (g->val->type != TOML_ARRAY || excluded(d, g->key))
			continue;
		dims[n].name = g->key;
		dims[n].set = DIM_ARGS;
		dims[n].values = g->val->u.array;
		n++;
	}
	for (i = 0; i < d->extra_env_vars.len; i++) {
		const struct arg *g = &d->extra_env_vars.items[i];
		if (g->val->type != TOML_ARRAY)
			continue;
		dims[n].name = g->key;
		dims[n].set = DIM_ENV;
		dims[n].values = g->val->u.array;
		n++;
	}
	if (tc->num_nodes && tc->num_nodes->type == TOML_ARRAY) {
		dims[n].name = "NUM_NODES";
		dims[n].set = DIM_NODES;
		dims[n].values = tc->num_nodes->u.array;
		n++;
	}
	for (i = 0; i < n; i++) {
		struct buf k = {0};
		buf_printf(&k, "%s%s", dims[i].set == DIM_ARGS ? "cmd_args." :
		                       dims[i].set == DIM_ENV ? "extra_env_vars." : "", dims[i].name);
		dims[i].key = arena_strdup(a, k.data);
		buf_free(&k);
	}
	*out = dims;
	return n;
}

static int
int_value(const struct toml_value *v)
{
	if (v->type == TOML_INTEGER)
		return (int)v->u.integer;
	if (v->type == TOML_STRING)
		return atoi(v->u.str.s); /* model checked it is digits */
	return 1;
}

/* Orders pointers to kv entries by key. */
static int
cmp_kv_key(const void *x, const void *y)
{
	return strcmp((*(struct kv *const *)x)->key, (*(struct kv *const *)y)->key);
}

/* Fills args, env, sweep and num_nodes of r for the sweep point pick[]. */
static void
resolve_point(struct arena *a, const struct campaign *c, const struct test_case *tc,
              const struct dim *dims, size_t ndims, const size_t *pick, struct run *r)
{
	const struct testdef *d = tc->def;
	size_t i, j, acap = d->cmd_args.len, ecap = c->system->global_env_vars.len + d->extra_env_vars.len,
	             scap = 0, n_global;
	struct kv **by_key = NULL, *by_key_one = NULL;

	/* the env list at its size: the globals' pointers stay valid */
	if (ecap)
		r->env.items = arena_alloc(a, ecap * sizeof(*r->env.items));
	/* the arguments' list at its size (grown one by one, it has room for 8) */
	if (acap)
		r->args.items = arena_alloc(a, acap * sizeof(*r->args.items));
	for (i = 0; i < d->cmd_args.len; i++) {
		const struct arg *g = &d->cmd_args.items[i];
		const struct toml_value *v = g->val;
		for (j = 0; j < ndims; j++)
			if (dims[j].set == DIM_ARGS && strcmp(dims[j].name, g->key) == 0)
				v = dims[j].values->items[pick[j]];
		kv_push(a, &r->args, &acap, g->key, scalar_text(a, v));
	}
	/* system globals first, then the test's own variables replace or extend
	 * them. Each table's keys are unique (TOML), so a test's variable is
	 * looked up among the globals only, through their keys sorted once:
	 * linear-logarithmic, where a scan per variable was quadratic */
	n_global = c->system->global_env_vars.len;
	for (i = 0; i < n_global; i++) {
		const struct arg *g = &c->system->global_env_vars.items[i];
		kv_push(a, &r->env, &ecap, g->key, scalar_text(a, g->val));
	}
	if (n_global > 16 && d->extra_env_vars.len) {
		by_key = arena_alloc(a, n_global * sizeof(*by_key));
		for (i = 0; i < n_global; i++)
			by_key[i] = &r->env.items[i];
		qsort(by_key, n_global, sizeof(*by_key), cmp_kv_key);
	}
	for (i = 0; i < d->extra_env_vars.len; i++) {
		const struct arg *g = &d->extra_env_vars.items[i];
		const struct toml_value *v = g->val;
		struct kv key = {g->key, NULL}, *kp = &key, **hit;
		const char *text;
		for (j = 0; j < ndims; j++)
			if (dims[j].set == DIM_ENV && strcmp(dims[j].name, g->key) == 0)
				v = dims[j].values->items[pick[j]];
		text = scalar_text(a, v);
		hit = by_key ? bsearch(&kp, by_key, n_global, sizeof(*by_key), cmp_kv_key) : NULL;
		for (j = 0; !by_key && j < n_global && !hit; j++)
			if (strcmp(r->env.items[j].key, g->key) == 0)
				hit = &by_key_one, by_key_one = &r->env.items[j];
		if (hit)
			(*hit)->value = text;
		else
			kv_push(a, &r->env, &ecap, g->key, text);
	}
	r->num_nodes = tc->num_nodes && tc->num_nodes->type != TOML_ARRAY ? int_value(tc->num_nodes) : 1;
	if (!tc->num_nodes_set && !tc->nodes.len && d->wl && d->wl->num_nodes)
		r->num_nodes = d->wl->num_nodes(r);
	for (j = 0; j < ndims; j++) {
		const struct toml_value *v = dims[j].values->items[pick[j]];
		if (dims[j].set == DIM_NODES)
			r->num_nodes = int_value(v);
		kv_push(a, &r->sweep, &scap, dims[j].key, scalar_text(a, v));
	}
}

/* The variables the workload adds (after the system's and the test's),
 * once the run's nodes are known. */
static void
workload_env(struct arena *a, struct run *r)
{
	const struct testdef *d = r->def;
	size_t ecap = r->env.len, i, j;
	struct wl_env e[16];
	size_t n;

	if (!d->wl || !d->wl->env)
		return;
	n = d->wl->env(a, r, e, LEN(e));
	for (i = 0; i < n; i++) {
		for (j = 0; j < r->env.len; j++)
			if (strcmp(r->env.items[j].key, e[i].key) == 0)
				break;
		if (j == r->env.len)
			kv_push(a, &r->env, &ecap, e[i].key, e[i].value);
		else if (!e[i].if_unset)
			r->env.items[j].value = e[i].value;
	}
}

static int
cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static const struct slurm_group *
find_group(const struct system *s, const char *part, size_t plen, const char *group, size_t glen)
{
	size_t i, j;

	for (i = 0; i < s->n_partitions; i++) {
		const struct slurm_partition *p = &s->partitions[i];
		if (strlen(p->name) != plen || strncmp(p->name, part, plen) != 0)
			continue;
		for (j = 0; j < p->n_groups; j++)
			if (strlen(p->groups[j].name) == glen && strncmp(p->groups[j].name, group, glen) == 0)
				return &p->groups[j];
	}
	return NULL;
}

/* Resolves the case's node specs as CloudAI does: host lists expanded, the
 * excluded nodes removed, the rest sorted without duplicates. A
 * PARTITION:GROUP:N spec cannot be resolved before submission (it depends
 * on node states), so it sets the partition and node count instead. */
static void
resolve_nodes(struct arena *a, const struct campaign *c, const struct test_case *tc, struct run *r)
{
	struct strlist all = {0}, excl = {0};
	size_t i, j, n = 0;
	int counted = 0;

	for (i = 0; i < tc->nodes.len; i++) {
		const char *spec = tc->nodes.items[i], *c1 = strchr(spec, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (c1 && c2) {
			const struct slurm_group *g = find_group(c->system, spec, (size_t)(c1 - spec), c1 + 1,
			                                         (size_t)(c2 - c1 - 1));
			struct strlist members = {0};
			r->partition = arena_strndup(a, spec, (size_t)(c1 - spec));
			if (strcmp(c2 + 1, "max_avail") == 0) {
				for (j = 0; g && j < g->nodes.len; j++)
					model_expand_hostlist(a, g->nodes.items[j], &members);
				counted += (int)members.len;
			} else {
				counted += atoi(c2 + 1);
			}
			continue;
		}
		model_expand_hostlist(a, spec, &all);
	}
	if (counted)
		r->num_nodes = counted;
	if (!all.len)
		return;
	for (i = 0; i < tc->exclude_nodes.len; i++)
		model_expand_hostlist(a, tc->exclude_nodes.items[i], &excl);
	qsort(all.items, all.len, sizeof(*all.items), cmp_str);
	if (excl.len) /* qsort of NULL is undefined, even of 0 items */
		qsort(excl.items, excl.len, sizeof(*excl.items), cmp_str);
	for (i = 0; i < all.len; i++) {
		if (n && strcmp(all.items[n - 1], all.items[i]) == 0)
			continue;
		if (excl.len && bsearch(&all.items[i], excl.items, excl.len, sizeof(*excl.items), cmp_str))
			continue;
		all.items[n++] = all.items[i];
	}
	all.len = n;
	r->nodes = all;
	if (n)
		r->num_nodes = (int)n;
}

static long
hook_time(const struct scenario *hook)
{
	long t = 0;
	size_t i;

	if (!hook)
		return 0;
	for (i = 0; i < hook->n_cases; i++)
		if (hook->cases[i].time_limit > 0)
			t += hook->cases[i].time_limit;
	return t;
}

/* Appends the runs of one case (all iterations and sweep points) to out. */
static bool
expand_case(struct arena *a, const struct campaign *c, const struct scenario *sc,
            const struct test_case *tc, struct run **items, size_t *len, size_t *cap,
            size_t max_runs, bool *checks_ok)
{
	struct dim *dims;
	size_t ndims = collect_dims(a, tc, &dims), npoints = 1, p, i;
	size_t *pick = arena_alloc(a, (ndims + 1) * sizeof(*pick));
	struct wl_diags diags = {0};
	int it;

	for (i = 0; i < ndims; i++) {
		if (dims[i].values->len == 0) {
			error_at(tc->pos.path, tc->pos.line, tc->pos.col,
			         "sweep dimension %s of test '%s' is an empty list", dims[i].key, tc->id);
			return false;
		}
		if (npoints > 1000000 / dims[i].values->len) {
			error_at(tc->pos.path, tc->pos.line, tc->pos.col,
			         "test '%s' sweeps more than 1000000 points", tc->id);
			return false;
		}
		npoints *= dims[i].values->len;
	}
	/* refused before a byte is allocated for it: iterations = 2147483647
	 * would run the machine out of memory, a million runs write millions
	 * of files */
	if ((size_t)tc->iterations > (max_runs - *len) / npoints) {
		error_at(tc->pos.path, tc->pos.line, tc->pos.col,
		         "test '%s' makes the campaign more than %zu runs (%zu sweep points x %d "
		         "iterations, after %zu runs before it); the limit is $KUNAI_MAX_RUNS",
		         tc->id, max_runs, npoints, tc->iterations, *len);
		return false;
	}
	for (it = 0; it < tc->iterations; it++) {
		for (p = 0; p < npoints; p++) {
			struct run *r;
			struct buf dir = {0};
			size_t rest = p;

			/* last dimension varies fastest, as itertools.product */
			for (i = ndims; i-- > 0;) {
				pick[i] = rest % dims[i].values->len;
				rest /= dims[i].values->len;
			}
			*items = arena_reserve(a, *items, *len, *len + 1, cap, sizeof(**items));
			r = &(*items)[*len];
			memset(r, 0, sizeof(*r));
			r->c = c;
			r->tc = tc;
			r->def = tc->def;
			r->iteration = it;
			r->step = ndims ? (int)p + 1 : 0;
			r->index = *len;
			if (ndims)
				buf_printf(&dir, "%s/%d/%d", tc->id, it, r->step);
			else
				buf_printf(&dir, "%s/%d", tc->id, it);
			r->dir = arena_strdup(a, dir.data);
			buf_free(&dir);
			resolve_point(a, c, tc, dims, ndims, pick, r);
			resolve_nodes(a, c, tc, r);
			workload_env(a, r);
			r->time_limit = tc->time_limit;
			if (r->time_limit >= 0 && sc == c->scenario)
				r->time_limit += hook_time(sc->pre_test) + hook_time(sc->post_test);
			(*len)++;
			/* every sweep point of the scenario's own cases is checked
			 * (a hook's runs are expanded again for every run it wraps);
			 * later iterations repeat the first */
			if (it == 0 && sc == c->scenario && r->def->wl && r->def->wl->check)
				r->def->wl->check(r, &diags);
		}
	}
	if (workload_diags_flush(&diags))
		*checks_ok = false;
	return true;
}

/* The case whose first run writes the DeepEP matrix that case ci reads:
 * CloudAI follows start_post_comp (a case's last one, as its dict of
 * dependencies keeps it) to the first MoEBenchmark or DeepEP. Returns
 * sc->n_cases when there is none. */
static size_t
matrix_root(const struct scenario *sc, size_t ci)
{
	size_t cur = ci, steps, j, next;

	for (steps = 0; steps < sc->n_cases; steps++) {
		next = sc->n_cases;
		for (j = 0; j < sc->cases[cur].n_deps; j++)
			if (sc->cases[cur].deps[j].type == DEP_START_POST_COMP)
				next = sc->cases[cur].deps[j].target;
		if (next == sc->n_cases)
			break;
		cur = next;
		if (sc->cases[cur].def->wl && sc->cases[cur].def->wl->writes_deepep_matrix)
			return cur;
	}
	return sc->n_cases;
}

/* Where use_deepep_matrix is set in run r's test (the case's override, or
 * its test file), for the error. */
static const struct arg *
matrix_arg(const struct run *r)
{
	const struct argset *as = &r->def->cmd_args;
	size_t i;

	for (i = as->len; i-- > 0;)
		if (strcmp(as->items[i].key, "use_deepep_matrix") == 0)
			return &as->items[i];
	return NULL;
}

/* Resolves use_deepep_matrix of every run to the run that writes the
 * matrix; a run that needs one and has none is an error (UCCTest with its
 * own gen spec does without, as CloudAI's does). */
static bool
link_matrices(const struct scenario *sc, struct runlist *rl, const size_t *first)
{
	bool ok = true;
	size_t i, root;

	for (i = 0; i < rl->len; i++) {
		struct run *r = &rl->items[i];
		const struct workload *wl = r->def->wl;
		const struct arg *g;

		if (!wl || !wl->deepep_matrix || !workload_true(workload_value(r, "use_deepep_matrix")))
			continue;
		root = matrix_root(sc, (size_t)(r->tc - sc->cases));
		if (root < sc->n_cases) {
			r->matrix_dir = rl->items[first[root]].dir;
			rl->items[first[root]].matrix_out = true;
			continue;
		}
		if (workload_value(r, "gen"))
			continue;
		g = matrix_arg(r);
		error_at(g ? g->val->pos.path : r->tc->pos.path, g ? g->val->pos.line : r->tc->pos.line,
		         g ? g->val->pos.col : r->tc->pos.col,
		         "use_deepep_matrix = true needs a MoEBenchmark or DeepEP test before '%s' in its "
		         "start_post_comp chain (its output holds the %s it reads)",
		         r->tc->id, wl->deepep_matrix);
		ok = false;
		break; /* once is enough */
	}
	return ok;
}

/* Links every run to what must finish before it: the previous iteration of
 * its own case (CloudAI runs iterations in order) and, for start_post_comp,
 * the case it depends on. Both are named as groups (the writer names the
 * group once, by a phony node), so this is linear in the runs: a case's
 * dependency list is one array that all its runs share. */
static bool
link_runs(struct arena *a, const struct scenario *sc, struct runlist *rl)
{
	size_t *first = arena_alloc(a, (sc->n_cases + 1) * sizeof(*first));
	size_t *count = arena_alloc(a, (sc->n_cases + 1) * sizeof(*count));
	struct run_dep **deps = arena_alloc(a, (sc->n_cases + 1) * sizeof(*deps));
	size_t i, j;

	for (i = 0; i < rl->len; i++) {
		size_t ci = (size_t)(rl->items[i].tc - sc->cases);
		if (count[ci]++ == 0)
			first[ci] = i;
	}
	for (i = 0; i < sc->n_cases; i++) {
		const struct test_case *tc = &sc->cases[i];

		deps[i] = arena_alloc(a, (tc->n_deps + 1) * sizeof(**deps));
		for (j = 0; j < tc->n_deps; j++) {
			const struct dep *d = &tc->deps[j];
			deps[i][j].type = d->type;
			deps[i][j].case_index = d->target;
			deps[i][j].first_dir = rl->items[first[d->target]].dir;
			deps[i][j].delay = d->delay;
		}
	}
	for (i = 0; i < rl->len; i++) {
		struct run *r = &rl->items[i];
		const struct test_case *tc = r->tc;
		size_t ci = (size_t)(tc - sc->cases);
		size_t per_iter = count[ci] / (size_t)(tc->iterations > 0 ? tc->iterations : 1);

		r->per_iter = per_iter;
		if (r->iteration > 0)
			r->prev = first[ci] + (size_t)(r->iteration - 1) * per_iter;
		r->deps = deps[ci];
		r->n_deps = tc->n_deps;
	}
	return link_matrices(sc, rl, first);
}

size_t
expand_max_runs(void)
{
	return (size_t)env_number("KUNAI_MAX_RUNS", 1, 1LL << 40,
	                          EXPAND_MAX_RUNS);
}

bool
expand_campaign(struct arena *a, const struct campaign *c, struct runlist *out)
{
	const struct scenario *sc = c->scenario;
	struct run *items = NULL;
	size_t len = 0, cap = 0, i;

	size_t max = expand_max_runs();
	bool checks_ok = true;

	for (i = 0; i < sc->n_cases; i++)
		if (!expand_case(a, c, sc, &sc->cases[i], &items, &len, &cap, max, &checks_ok))
			return false;
	/* the workloads' checks report every case before gen stops */
	if (!checks_ok)
		return false;
	out->items = items;
	out->len = len;
	return link_runs(a, sc, out);
}

bool
expand_hook(struct arena *a, const struct campaign *c, const struct scenario *hook, bool pre,
            const struct run *r, struct runlist *out)
{
	struct run *items = NULL;
	size_t len = 0, cap = 0, i;
	bool checks_ok = true; /* not checked: see expand_case */

	for (i = 0; i < hook->n_cases; i++) {
		if (!expand_case(a, c, hook, &hook->cases[i], &items, &len, &cap, expand_max_runs(), &checks_ok))
			return false;
	}
	for (i = 0; i < len; i++) {
		struct buf dir = {0};
		/* hooks live inside the run they wrap: <run>/pre_test/<hook test name> */
		buf_printf(&dir, "%s/%s/%s", r->dir, pre ? "pre_test" : "post_test",
		           items[i].def->name);
		items[i].dir = arena_strdup(a, dir.data);
		items[i].hook_of = hook;
		buf_free(&dir);
	}
	out->items = items;
	out->len = len;
	return true;
}
