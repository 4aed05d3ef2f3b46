/* model_system.c: a system TOML (CloudAI's System models, REFERENCE.md §2)
 * -> struct system. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "model_priv.h"
#include "gen/base/util.h"

#define BASE_KEYS                                                                        \
	"name", "scheduler", "install_path", "output_path", "hf_home_path",              \
		"global_env_vars", "monitor_interval", "max_jobs"

/* gpus_per_node: the GPUs this machine must have (kunai's programs fail
 * with fewer); absent, they use what they find */
static const char *const standalone_keys[] = {BASE_KEYS, "gpus_per_node", NULL};

static const char *const slurm_keys[] = {
	BASE_KEYS,
	"default_partition",
	"partitions",
	"account",
	"distribution",
	"mpi",
	"gpus_per_node",
	"ntasks_per_node",
	"cache_docker_images_locally",
	"extra_srun_args",
	"extra_sbatch_args",
	"extra_transient_status_errors",
	"status_retry_pause_seconds",
	"container_mount_home",
	"data_repository",
	"reports",
	"supports_gpu_directives_cache",
	NULL,
};

static const char *const kubernetes_keys[] = {
	BASE_KEYS, "kube_config_path", "default_namespace", "use_host_network", "gpus_per_node",
	"node_selector", "tolerations", "workloads_image", NULL,
};

static const char *const lsf_keys[] = {
	BASE_KEYS, "queues", "account", "project_name", "default_queue", "app", "os_version",
	NULL,
};

/* gpus_per_node, workloads_image: kunai's (CloudAI asks for 8 GPUs) */
static const char *const runai_keys[] = {
	BASE_KEYS, "base_url", "user_email", "app_id", "app_secret", "project_id",
	"cluster_id", "nodes", "gpus_per_node", "workloads_image", NULL,
};

static const char *const schedulers[] = {
	"slurm", "standalone", "kubernetes", "lsf", "runai", NULL,
};

/* global_env_vars values: strings; other scalars as Python prints them;
 * a table's "default" (CloudAI's DSE form). */
static void
load_env(struct mctx *c, struct system *s, const struct toml_value *t)
{
	const struct toml_keyval *kv;
	const struct toml_value *v, *sv;
	size_t i;

	for (i = 0; i < t->u.table->len; i++) {
		kv = &t->u.table->items[i];
		v = kv->value;
		if (v->type == TOML_TABLE) {
			struct toml_keyval *d = m_kv(v, "default");
			if (!d) {
				merr(c, v->pos, "'%s' must be a string, or a table with a 'default'",
				     m_shown(c, kv->key));
				continue;
			}
			v = d->value;
		}
		sv = m_stringify(c, v, true);
		if (!sv) {
			merr(c, v->pos, "'%s' must be a string, not %s", m_shown(c, kv->key),
			     m_a_type(v));
			continue;
		}
		if (!m_check_env_name(c, kv->key, kv->key_len, kv->pos) ||
		    !m_check_str(c, kv->key, sv))
			continue;
		argset_add(c->a, &s->global_env_vars, kv->key, kv->pos, sv);
	}
}

static void
check_nodes(struct mctx *c, const struct strlist *l)
{
	struct strlist tmp = {0};
	size_t i;

	for (i = 0; i < l->len; i++) {
		tmp.len = 0;
		if (!model_expand_hostlist(c->a, l->items[i], &tmp))
			merr(c, l->pos[i], "invalid node list '%s'", m_shown(c, l->items[i]));
	}
}

/* A value that goes on an #SBATCH line, which sbatch reads itself: a
 * newline would end the line, and a blank (unless blanks_ok) would split
 * the option. */
static void
directive_line(struct mctx *c, const char *key, const char *s, size_t n, struct toml_pos pos, bool blanks_ok,
               const char *line)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s[i] == '\n' || s[i] == '\r' || (!blanks_ok && (s[i] == ' ' || s[i] == '\t'))) {
			merr(c, pos, "%s must not contain %s (it goes on an %s line)", key,
			     blanks_ok ? "line breaks" : "blanks or line breaks", line);
			return;
		}
}

static void
check_directive(struct mctx *c, const char *key, const char *s, size_t n, struct toml_pos pos,
                bool blanks_ok)
{
	directive_line(c, key, s, n, pos, blanks_ok, "#SBATCH");
}

static const char *const group_keys[] = {"name", "nodes", NULL};

/* One group or partition table: name from its "name" key or, in the
 * [partitions.<name>] form, from its table key (they must agree). */
static const char *
entry_name(struct mctx *c, const struct toml_value *t, const struct toml_keyval *kv)
{
	const char *name = NULL;

	if (!m_str(c, t, "name", !kv, &name))
		return NULL;
	if (kv && name && strcmp(name, kv->key) != 0) {
		merr(c, m_kv(t, "name")->value->pos, "name '%s' differs from its table's key '%s'",
		     m_shown(c, name), m_shown(c, kv->key));
		return NULL;
	}
	return name ? name : kv->key;
}

static void
load_group(struct mctx *c, struct slurm_partition *p, const struct toml_value *t,
           const struct toml_keyval *kv)
{
	struct slurm_group *g;
	const char *name;
	size_t i;

	if (t->type != TOML_TABLE) {
		merr(c, t->pos, "a group must be a table, not %s", m_a_type(t));
		return;
	}
	m_check_keys(c, t, group_keys);
	if (!(name = entry_name(c, t, kv)))
		return;
	for (i = 0; i < p->n_groups; i++)
		if (strcmp(p->groups[i].name, name) == 0) {
			merr(c, kv ? kv->pos : t->pos, "duplicate group '%s' (first at line %d)",
			     m_shown(c, name), p->groups[i].pos.line);
			return;
		}
	p->groups = arena_reserve(c->a, p->groups, p->n_groups, p->n_groups + 1, &p->cap_groups, sizeof(*g));
	g = &p->groups[p->n_groups++];
	g->name = name;
	g->pos = kv ? kv->pos : t->pos;
	if (m_strlist(c, t, "nodes", &g->nodes))
		check_nodes(c, &g->nodes);
}

static const char *const partition_keys[] = {"name", "groups", "nodes", NULL};

static void
load_partition(struct mctx *c, struct system *s, const struct toml_value *t,
               const struct toml_keyval *kv)
{
	struct slurm_partition *p;
	const struct toml_value *gv;
	const char *name;
	size_t i;

	if (t->type != TOML_TABLE) {
		merr(c, t->pos, "a partition must be a table, not %s", m_a_type(t));
		return;
	}
	m_check_keys(c, t, partition_keys);
	if (!(name = entry_name(c, t, kv)))
		return;
	for (i = 0; i < s->n_partitions; i++)
		if (strcmp(s->partitions[i].name, name) == 0) {
			merr(c, kv ? kv->pos : t->pos, "duplicate partition '%s' (first at line %d)",
			     m_shown(c, name), s->partitions[i].pos.line);
			return;
		}
	s->partitions = arena_reserve(c->a, s->partitions, s->n_partitions, s->n_partitions + 1,
	                              &s->cap_partitions, sizeof(*p));
	p = &s->partitions[s->n_partitions++];
	p->name = name;
	p->pos = kv ? kv->pos : t->pos;
	if (s->scheduler == SCHED_SLURM || s->scheduler == SCHED_LSF)
		directive_line(c, s->scheduler == SCHED_LSF ? "a queue name" : "a partition name", name, strlen(name),
		               m_kv(t, "name") ? m_kv(t, "name")->value->pos : kv->pos, false,
		               s->scheduler == SCHED_LSF ? "#BSUB" : "#SBATCH");
	if (m_strlist(c, t, "nodes", &p->nodes))
		check_nodes(c, &p->nodes);
	if (!m_kv(t, "groups"))
		return;
	gv = m_kv(t, "groups")->value;
	/* [[partitions.groups]] or the older [partitions.<p>.groups.<g>] */
	if (gv->type == TOML_ARRAY)
		for (i = 0; i < gv->u.array->len; i++)
			load_group(c, p, gv->u.array->items[i], NULL);
	else if (gv->type == TOML_TABLE)
		for (i = 0; i < gv->u.table->len; i++)
			load_group(c, p, gv->u.table->items[i].value, &gv->u.table->items[i]);
	else
		merr(c, gv->pos, "'groups' must be an array of tables, not %s", m_a_type(gv));
}

static void
load_slurm(struct mctx *c, struct system *s, const struct toml_value *root)
{
	const struct toml_keyval *kv;
	const struct toml_value *v, *dr;
	static const char *const dr_keys[] = {"endpoint", "verify_certs", NULL};
	const char *str;
	long n;
	size_t i;
	bool b;

	if (m_str(c, root, "default_partition", true, &s->default_partition) &&
	    s->default_partition)
		check_directive(c, "'default_partition'", s->default_partition,
		                strlen(s->default_partition),
		                m_kv(root, "default_partition")->value->pos, false);
	if (!(kv = m_kv(root, "partitions"))) {
		merr(c, root->pos, "missing required key 'partitions'");
	} else if (kv->value->type == TOML_ARRAY) {
		for (i = 0; i < kv->value->u.array->len; i++)
			load_partition(c, s, kv->value->u.array->items[i], NULL);
	} else if (kv->value->type == TOML_TABLE) {
		v = kv->value;
		for (i = 0; i < v->u.table->len; i++)
			load_partition(c, s, v->u.table->items[i].value, &v->u.table->items[i]);
	} else {
		merr(c, kv->value->pos, "'partitions' must be an array of tables, not %s",
		     m_a_type(kv->value));
	}
	if (m_str(c, root, "account", false, &s->account) && s->account)
		check_directive(c, "'account'", s->account, strlen(s->account),
		                m_kv(root, "account")->value->pos, false);
	if (m_str(c, root, "distribution", false, &s->distribution) && s->distribution)
		check_directive(c, "'distribution'", s->distribution, strlen(s->distribution),
		                m_kv(root, "distribution")->value->pos, false);
	s->mpi = "pmix";
	m_str(c, root, "mpi", false, &s->mpi);
	if (m_int(c, root, "gpus_per_node", false, 0, &n) && m_kv(root, "gpus_per_node"))
		s->gpus_per_node = (int)n;
	if (m_int(c, root, "ntasks_per_node", false, 1, &n) && m_kv(root, "ntasks_per_node"))
		s->ntasks_per_node = (int)n;
	/* the old user guide wrote "True" */
	if ((kv = m_kv(root, "cache_docker_images_locally"))) {
		v = kv->value;
		if (v->type == TOML_BOOL)
			s->cache_docker_images_locally = v->u.boolean;
		else if (v->type == TOML_STRING &&
		         (strcmp(v->u.str.s, "True") == 0 || strcmp(v->u.str.s, "true") == 0))
			s->cache_docker_images_locally = true;
		else if (!(v->type == TOML_STRING && (strcmp(v->u.str.s, "False") == 0 ||
		                                      strcmp(v->u.str.s, "false") == 0)))
			merr(c, v->pos, "'cache_docker_images_locally' must be a boolean, not %s",
			     m_a_type(v));
	}
	m_str(c, root, "extra_srun_args", false, &s->extra_srun_args);
	if (m_strlist(c, root, "extra_sbatch_args", &s->extra_sbatch_args))
		for (i = 0; i < s->extra_sbatch_args.len; i++)
			check_directive(c, "an 'extra_sbatch_args' entry", s->extra_sbatch_args.items[i],
			                strlen(s->extra_sbatch_args.items[i]),
			                s->extra_sbatch_args.pos[i], true);
	if (m_strlist(c, root, "extra_transient_status_errors", &s->extra_transient_status_errors))
		for (i = 0; i < s->extra_transient_status_errors.len; i++) {
			str = s->extra_transient_status_errors.items[i];
			if (strspn(str, " \t\r\n") == strlen(str))
				merr(c, s->extra_transient_status_errors.pos[i],
				     "'extra_transient_status_errors' must not contain blank strings");
		}
	s->status_retry_pause_seconds = 10;
	if (m_int(c, root, "status_retry_pause_seconds", false, 0, &n) &&
	    m_kv(root, "status_retry_pause_seconds"))
		s->status_retry_pause_seconds = (int)n;
	m_bool(c, root, "container_mount_home", &s->container_mount_home);
	if ((dr = m_table(c, root, "data_repository"))) {
		m_check_keys(c, dr, dr_keys);
		m_str(c, dr, "endpoint", true, &str);
		m_bool(c, dr, "verify_certs", &b);
	}
	m_check_reports(c, root);
	s->supports_gpu_directives = -1;
	if (m_kv(root, "supports_gpu_directives_cache") &&
	    m_bool(c, root, "supports_gpu_directives_cache", &b))
		s->supports_gpu_directives = b;
}

/* A label key ([prefix/]name) or value as Kubernetes takes them: name parts
 * of [A-Za-z0-9._-], starting and ending alphanumeric, at most 63 bytes; a
 * prefix of at most 253. Returns NULL or what is wrong. */
static const char *
k8s_label_problem(const char *s, size_t len, bool key)
{
	const char *slash = key ? memchr(s, '/', len) : NULL, *name = slash ? slash + 1 : s;
	size_t n = len - (size_t)(name - s), i;

	if (slash && (slash == s || slash - s > 253))
		return "its prefix must be 1 to 253 characters";
	if ((key && n == 0) || n > 63)
		return key ? "its name must be 1 to 63 characters" : "it must be at most 63 characters";
	for (i = 0; i < n; i++)
		if (!(isalnum((unsigned char)name[i]) || ((name[i] == '-' || name[i] == '_' || name[i] == '.') &&
		                                          i > 0 && i + 1 < n)))
			return "it must be letters, digits, '-', '_' and '.', starting and ending with a letter or digit";
	return NULL;
}

/* [node_selector]: label = "value", each a located error when Kubernetes
 * would refuse it. */
static void
load_node_selector(struct mctx *c, struct system *s, const struct toml_value *t)
{
	const struct toml_keyval *kv;
	const char *why;
	size_t i;

	for (i = 0; i < t->u.table->len; i++) {
		kv = &t->u.table->items[i];
		if (kv->value->type != TOML_STRING) {
			merr(c, kv->value->pos, "node_selector '%s' must be a string, not %s", m_shown(c, kv->key),
			     m_a_type(kv->value));
			continue;
		}
		if ((why = k8s_label_problem(kv->key, kv->key_len, true)))
			merr(c, kv->pos, "node_selector: '%s' is not a label key: %s", m_shown(c, kv->key), why);
		else if ((why = k8s_label_problem(kv->value->u.str.s, kv->value->u.str.len, false)))
			merr(c, kv->value->pos, "node_selector '%s': '%s' is not a label value: %s", kv->key,
			     m_shown(c, kv->value->u.str.s), why);
		else
			argset_add(c->a, &s->node_selector, kv->key, kv->pos, kv->value);
	}
}

/* [[tolerations]]: key, operator (Equal, Exists), value, effect
 * (NoSchedule, PreferNoSchedule, NoExecute), toleration_seconds. */
static void
load_tolerations(struct mctx *c, struct system *s, const struct toml_value *v)
{
	static const char *const keys[] = {"key", "operator", "value", "effect", "toleration_seconds", NULL};
	static const char *const ops[] = {"Equal", "Exists"};
	static const char *const effects[] = {"NoSchedule", "PreferNoSchedule", "NoExecute"};
	const struct toml_value *t;
	struct k8s_toleration *o;
	size_t i, k;
	bool found;

	if (v->type != TOML_ARRAY) {
		merr(c, v->pos, "'tolerations' must be an array of tables ([[tolerations]]), not %s", m_a_type(v));
		return;
	}
	s->tolerations = arena_alloc(c->a, (v->u.array->len ? v->u.array->len : 1) * sizeof(*s->tolerations));
	for (i = 0; i < v->u.array->len; i++) {
		t = v->u.array->items[i];
		if (t->type != TOML_TABLE) {
			merr(c, t->pos, "a toleration must be a table, not %s", m_a_type(t));
			continue;
		}
		m_check_keys(c, t, keys);
		o = &s->tolerations[s->n_tolerations++];
		memset(o, 0, sizeof(*o));
		o->seconds = -1;
		m_str(c, t, "key", false, &o->key);
		m_str(c, t, "operator", false, &o->operator);
		m_str(c, t, "value", false, &o->value);
		m_str(c, t, "effect", false, &o->effect);
		m_int(c, t, "toleration_seconds", false, 0, &o->seconds);
		for (k = 0, found = !o->operator; !found && k < LEN(ops); k++)
			found = strcmp(o->operator, ops[k]) == 0;
		if (!found)
			merr(c, m_kv(t, "operator")->value->pos, "toleration operator '%s' is not Equal or Exists",
			     m_shown(c, o->operator));
		for (k = 0, found = !o->effect; !found && k < LEN(effects); k++)
			found = strcmp(o->effect, effects[k]) == 0;
		if (!found)
			merr(c, m_kv(t, "effect")->value->pos,
			     "toleration effect '%s' is not NoSchedule, PreferNoSchedule or NoExecute",
			     m_shown(c, o->effect));
		if (o->operator && strcmp(o->operator, "Exists") == 0 && o->value && *o->value)
			merr(c, m_kv(t, "value")->value->pos, "a toleration with operator Exists takes no value");
		if (!o->key && (!o->operator || strcmp(o->operator, "Exists") != 0))
			merr(c, t->pos, "a toleration without a key must have operator = \"Exists\"");
		if (o->seconds >= 0 && (!o->effect || strcmp(o->effect, "NoExecute") != 0))
			merr(c, m_kv(t, "toleration_seconds")->value->pos,
			     "toleration_seconds needs effect = \"NoExecute\"");
	}
}

static void
load_kubernetes(struct mctx *c, struct system *s, const struct toml_value *root)
{
	const struct toml_keyval *kv;

	long n;
	bool b;

	m_str(c, root, "kube_config_path", true, &s->kube_config_path);
	m_str(c, root, "default_namespace", true, &s->default_namespace);
	m_str(c, root, "workloads_image", false, &s->workloads_image);
	s->use_host_network = -1;
	if (m_kv(root, "use_host_network") && m_bool(c, root, "use_host_network", &b))
		s->use_host_network = b;
	s->gpus_per_node = 1;
	if (m_int(c, root, "gpus_per_node", false, 0, &n) && m_kv(root, "gpus_per_node"))
		s->gpus_per_node = (int)n;
	if ((kv = m_kv(root, "node_selector"))) {
		if (kv->value->type == TOML_TABLE)
			load_node_selector(c, s, kv->value);
		else
			merr(c, kv->value->pos, "'node_selector' must be a table, not %s", m_a_type(kv->value));
	}
	if ((kv = m_kv(root, "tolerations")))
		load_tolerations(c, s, kv->value);
}

/* LSF (CloudAI's LSFSystem): queues as Slurm's partitions; the rest go
 * on #BSUB lines, where bsub reads them itself. */
static void
load_lsf(struct mctx *c, struct system *s, const struct toml_value *root)
{
	static const char *const keys[] = {"account", "project_name", "default_queue", "app", "os_version"};
	const char **dst[] = {&s->account, &s->project_name, &s->default_queue, &s->lsf_app, &s->os_version};
	const struct toml_value *q;
	size_t i;

	for (i = 0; i < LEN(keys); i++)
		if (m_str(c, root, keys[i], false, dst[i]) && *dst[i])
			directive_line(c, arena_printf(c->a, "'%s'", keys[i]), *dst[i], strlen(*dst[i]),
			               m_kv(root, keys[i])->value->pos, false, "#BSUB");
	if (m_kv(root, "queues")) {
		q = m_kv(root, "queues")->value;
		if (q->type != TOML_ARRAY)
			merr(c, q->pos, "'queues' must be an array of tables, not %s", m_a_type(q));
		else
			for (i = 0; i < q->u.array->len; i++)
				load_partition(c, s, q->u.array->items[i], NULL);
	}
	if (s->default_queue && s->n_partitions) {
		for (i = 0; i < s->n_partitions; i++)
			if (strcmp(s->partitions[i].name, s->default_queue) == 0)
				break;
		if (i == s->n_partitions)
			merr(c, m_kv(root, "default_queue")->value->pos, "default_queue '%s' is not one of the 'queues'",
			     m_shown(c, s->default_queue));
	}
}

/* "$NAME" or "${NAME}": the environment variable's name, else NULL. */
static const char *
secret_env(struct arena *a, const char *v)
{
	size_t n, k;
	bool brace;

	if (v[0] != '$')
		return NULL;
	brace = v[1] == '{';
	v += brace ? 2 : 1;
	n = strlen(v);
	if (brace && (n < 2 || v[n - 1] != '}'))
		return NULL;
	n -= brace;
	if (!n || isdigit((unsigned char)v[0]))
		return NULL;
	for (k = 0; k < n; k++)
		if (!isalnum((unsigned char)v[k]) && v[k] != '_')
			return NULL;
	return arena_strndup(a, v, n);
}

/* RunAI (CloudAI's RunAISystem): the REST API's address and credentials.
 * The secret is checked, never kept in the model that writers see. */
static void
load_runai(struct mctx *c, struct system *s, const struct toml_value *root)
{
	static const char *const req[] = {"user_email", "app_id", "project_id", "cluster_id"};
	const char **dst[] = {&s->user_email, &s->app_id, &s->project_id, &s->cluster_id};
	const struct toml_value *v;
	const char *secret = NULL, *host;
	size_t i;
	long n;

	if (m_str(c, root, "base_url", true, &s->base_url) && s->base_url) {
		v = m_kv(root, "base_url")->value;
		host = strncmp(s->base_url, "https://", 8) == 0  ? s->base_url + 8
		       : strncmp(s->base_url, "http://", 7) == 0 ? s->base_url + 7
		                                                 : NULL;
		if (!host)
			merr(c, v->pos, "base_url '%s' must begin with https:// (or http://)", m_shown(c, s->base_url));
		else if (!*host || *host == '/')
			merr(c, v->pos, "base_url '%s' names no host", m_shown(c, s->base_url));
		else if (strpbrk(s->base_url, " \t\r\n?#"))
			merr(c, v->pos, "base_url must not contain blanks, line breaks, '?' or '#'");
	}
	for (i = 0; i < LEN(req); i++)
		if (m_str(c, root, req[i], true, dst[i]) && *dst[i] && (!**dst[i] || strpbrk(*dst[i], "\r\n")))
			merr(c, m_kv(root, req[i])->value->pos, "'%s' must be a non-empty line", req[i]);
	/* its value is never shown, even in an error */
	if (m_str(c, root, "app_secret", true, &secret) && secret) {
		s->app_secret_env = secret_env(c->a, secret);
		if (!*secret)
			merr(c, m_kv(root, "app_secret")->value->pos, "'app_secret' is empty");
		else if (secret[0] == '$' && !s->app_secret_env)
			merr(c, m_kv(root, "app_secret")->value->pos,
			     "'app_secret' starting with '$' must be \"$NAME\" or \"${NAME}\" (an environment variable)");
	}
	/* CloudAI fills nodes in from the API; kunai reads nothing of them */
	if ((v = m_kv(root, "nodes") ? m_kv(root, "nodes")->value : NULL)) {
		if (v->type != TOML_ARRAY)
			merr(c, v->pos, "'nodes' must be an array, not %s", m_a_type(v));
		else
			for (i = 0; i < v->u.array->len; i++)
				if (v->u.array->items[i]->type != TOML_TABLE && v->u.array->items[i]->type != TOML_STRING)
					merr(c, v->u.array->items[i]->pos, "a node must be a table or a string, not %s",
					     m_a_type(v->u.array->items[i]));
	}
	/* CloudAI asks for 8 GPUs per pod */
	s->gpus_per_node = 8;
	if (m_int(c, root, "gpus_per_node", false, 0, &n) && m_kv(root, "gpus_per_node"))
		s->gpus_per_node = (int)n;
	m_str(c, root, "workloads_image", false, &s->workloads_image);
}

struct system *
m_load_system(struct mctx *c, const char *path, const struct toml_value *root, bool runnable)
{
	struct system *s = arena_alloc(c->a, sizeof(*s));
	const struct toml_keyval *kv;
	const char *sched = NULL, *hf;
	struct buf b = {0};
	int errors = c->errors;
	long n;
	size_t k;

	s->path = path;
	if (!m_str(c, root, "scheduler", true, &sched) || !sched)
		return NULL;
	for (k = 0; schedulers[k]; k++)
		if (strcmp(sched, schedulers[k]) == 0)
			break;
	kv = m_kv(root, "scheduler");
	if (!schedulers[k]) {
		buf_printf(&b, "unknown scheduler '%s' (one of slurm, standalone, kubernetes, lsf, "
		               "runai)",
		           m_shown(c, sched));
		m_did_you_mean(&b, sched, schedulers, LEN(schedulers) - 1);
		merr(c, kv->value->pos, "%s", b.data);
		buf_free(&b);
		return NULL;
	}
	m_check_keys(c, root, k == 0   ? slurm_keys
	                      : k == 1 ? standalone_keys
	                      : k == 2 ? kubernetes_keys
	                      : k == 3 ? lsf_keys
	                               : runai_keys);
	s->scheduler = k == 0 ? SCHED_SLURM : k == 2 ? SCHED_KUBERNETES : k == 3 ? SCHED_LSF : k == 4 ? SCHED_RUNAI
	                                                                                      : SCHED_STANDALONE;
	/* CloudAI posts results there; kunai keeps them in the build dir */
	if (runnable && k == 0 && (kv = m_kv(root, "data_repository")))
		m_warn(kv->value->pos, "kunai does not send results to a data_repository; it is "
		                       "ignored");
	m_str(c, root, "name", true, &s->name);
	m_str(c, root, "install_path", true, &s->install_path);
	if (m_str(c, root, "output_path", true, &s->output_path) && s->output_path &&
	    strpbrk(s->output_path, "\n\r"))
		merr(c, m_kv(root, "output_path")->value->pos,
		     "output_path must not contain line breaks (the build dir's path goes into local.ninja, "
		     "where ninja cannot express them)");
	if (m_str(c, root, "hf_home_path", false, &s->hf_home_path) && !s->hf_home_path &&
	    s->install_path) {
		hf = s->install_path;
		s->hf_home_path = path_join(c->a, hf, "huggingface");
	}
	if ((kv = m_kv(root, "global_env_vars"))) {
		if (kv->value->type == TOML_TABLE)
			load_env(c, s, kv->value);
		else
			merr(c, kv->value->pos, "'global_env_vars' must be a table, not %s",
			     m_a_type(kv->value));
	}
	s->monitor_interval = k == 0 || k >= 3 ? 60 : 1;
	if (m_int(c, root, "monitor_interval", false, 0, &n) && m_kv(root, "monitor_interval"))
		s->monitor_interval = (int)n;
	/* a cluster takes many at once; standalone jobs share one machine, as
	 * many as it can run (0 here: model_load decides, from the workloads) */
	s->max_jobs = k == 0 || k == 3 ? 64 : k >= 2 ? 32 : 0;
	if (m_int(c, root, "max_jobs", false, 1, &n) && m_kv(root, "max_jobs"))
		s->max_jobs = (int)n;
	if (k == 0)
		load_slurm(c, s, root);
	else if (k == 2)
		load_kubernetes(c, s, root);
	else if (k == 1 && m_int(c, root, "gpus_per_node", false, 0, &n) && m_kv(root, "gpus_per_node"))
		s->gpus_per_node = (int)n;
	else if (k == 3)
		load_lsf(c, s, root);
	else if (k == 4)
		load_runai(c, s, root);
	return c->errors == errors ? s : NULL;
}
