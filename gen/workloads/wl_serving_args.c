/* wl_serving_args.c: what a serving run's arguments mean, as CloudAI's
 * llm_serving.py reads them: aggregated or disaggregated (a prefill table,
 * even empty), the nodes and GPUs of each role, its CloudAI refusals, the
 * serve flags of a role's table, the client's extra flags and custom_bash.
 * wl_serving.c writes the script from them. */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "wl_serving.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

const char *
serving_arg(const struct serving *s, const char *key)
{
	return workload_value(s->r, key);
}

bool
serving_has(const struct run *r, const char *name)
{
	size_t i, n = strlen(name);

	for (i = 0; i < r->args.len; i++) {
		const char *k = r->args.items[i].key;
		if (strncmp(k, name, n) == 0 && (!k[n] || k[n] == '.'))
			return true;
	}
	return false;
}

const char *
serving_role_name(enum serving_role role)
{
	return role == ROLE_PREFILL ? "prefill" : role == ROLE_DECODE ? "decode" : "serve";
}

int
serving_role_nodes(const struct serving *s, enum serving_role role)
{
	return role == ROLE_PREFILL ? s->prefill_nodes : role == ROLE_DECODE ? s->decode_nodes : s->nodes;
}

/* Appends the GPU ids of text "0, 1,2" as CloudAI prints int lists: "0,1,2". */
static int
gpu_list(struct buf *out, const char *text)
{
	const char *p = text;
	char *end;
	int n = 0;

	while (p && *p) {
		long v = strtol(p, &end, 10);
		if (end == p)
			break;
		buf_printf(out, "%s%ld", n++ ? "," : "", v);
		p = strchr(end, ',');
		if (p)
			p++;
	}
	return n;
}

/* CloudAI's all_gpu_ids, calculate_prefill_gpu_ids, calculate_decode_gpu_ids. */
static void
gpu_ids(struct serving *s)
{
	const struct run *r = s->r;
	const char *cuda = workload_env_value(r, "CUDA_VISIBLE_DEVICES");
	const char *pg = workload_own_value(r, "prefill.gpu_ids"), *dg = workload_own_value(r, "decode.gpu_ids");
	struct buf *b = &s->gpus;
	int i, n, half;

	if (s->disagg && pg && *pg && dg && *dg) {
		n = gpu_list(b, pg);
		buf_putc(b, ',');
		n += gpu_list(b, dg);
	} else if (!s->disagg && cuda && *cuda)
		n = gpu_list(b, cuda);
	else if (!s->disagg && dg && *dg)
		n = gpu_list(b, dg);
	else if (cuda && *cuda)
		n = gpu_list(b, cuda);
	else {
		int g = r->c->system->gpus_per_node > 0 ? r->c->system->gpus_per_node : 1;
		for (n = 0; n < g; n++)
			buf_printf(b, "%s%d", n ? "," : "", n);
	}
	s->n_gpus = n;
	if (!s->disagg) {
		buf_puts(&s->decode_gpus, buf_str(b));
		return;
	}
	half = n / 2;
	if (pg && *pg)
		gpu_list(&s->prefill_gpus, pg);
	else {
		const char *p = buf_str(b);
		bool all = s->nodes > 1 || workload_own_value(r, "prefill.num_nodes");
		for (i = 0; *p && (all || i < half); i++) {
			size_t k = strcspn(p, ",");
			if (i)
				buf_putc(&s->prefill_gpus, ',');
			buf_push(&s->prefill_gpus, p, k);
			p += k + (p[k] == ',');
		}
	}
	if (dg && *dg)
		gpu_list(&s->decode_gpus, dg);
	else {
		const char *p = buf_str(b);
		bool all = s->nodes > 1 || workload_own_value(r, "decode.num_nodes");
		int j = 0;
		for (i = 0; *p; i++) {
			size_t k = strcspn(p, ",");
			if (all || i >= half) {
				if (j++)
					buf_putc(&s->decode_gpus, ',');
				buf_push(&s->decode_gpus, p, k);
			}
			p += k + (p[k] == ',');
		}
	}
}

/* CloudAI's disaggregated_role_node_counts; false with why set. */
static bool
role_counts(struct serving *s, struct buf *why)
{
	const char *p = workload_own_value(s->r, "prefill.num_nodes");
	const char *d = workload_own_value(s->r, "decode.num_nodes");
	const char *name = s->r->def->wl->name;

	s->prefill_nodes = s->decode_nodes = 0;
	if (!s->disagg)
		return true;
	if (!p && !d) {
		if (s->nodes == 1 || s->nodes == 2) {
			s->prefill_nodes = s->decode_nodes = 1;
			return true;
		}
		buf_printf(why, "disaggregated %s over more than 2 nodes requires both prefill.num_nodes "
		                "and decode.num_nodes",
		           name);
		return false;
	}
	if (!p || !d) {
		buf_puts(why, "both prefill.num_nodes and decode.num_nodes must be set or both must be omitted");
		return false;
	}
	s->prefill_nodes = atoi(p);
	s->decode_nodes = atoi(d);
	if (s->prefill_nodes <= 0 || s->decode_nodes <= 0) {
		buf_puts(why, "prefill.num_nodes and decode.num_nodes must be positive integers");
		return false;
	}
	if (s->prefill_nodes + s->decode_nodes != s->nodes) {
		buf_printf(why, "prefill.num_nodes + decode.num_nodes must equal allocated nodes (%d), got %d",
		           s->nodes, s->prefill_nodes + s->decode_nodes);
		return false;
	}
	return true;
}

bool
serving_init(struct serving *s, const struct serving_ops *ops, const struct run *r, struct buf *why)
{
	const char *pg, *dg;

	memset(s, 0, sizeof(*s));
	s->r = r;
	s->ops = ops;
	s->disagg = serving_has(r, "prefill");
	s->nodes = r->nodes.len ? (int)r->nodes.len : r->num_nodes;
	s->port = strtol(workload_value(r, "port"), NULL, 10);
	if (s->disagg && s->port > 65335) {
		buf_puts(why, "disaggregated mode requires port <= 65335 because prefill/decode add 100/200");
		return false;
	}
	pg = workload_own_value(r, "prefill.gpu_ids");
	dg = workload_own_value(r, "decode.gpu_ids");
	if (s->disagg && (pg && *pg) != (dg && *dg)) {
		buf_puts(why, "both prefill and decode gpu_ids must be set or both must be None");
		return false;
	}
	if (!role_counts(s, why))
		return false;
	if (ops && !ops->launch_multi && (s->disagg ? s->prefill_nodes > 1 || s->decode_nodes > 1 : s->nodes > 1)) {
		buf_printf(why, "%s runs each role on one node", ops->name);
		return false;
	}
	gpu_ids(s);
	return true;
}

void
serving_free(struct serving *s)
{
	buf_free(&s->gpus);
	buf_free(&s->prefill_gpus);
	buf_free(&s->decode_gpus);
}

static bool
serving_ok(const struct run *r, struct buf *why)
{
	static const char pre[] = "custom_bash.";
	const char *p = workload_value(r, "port");
	long port = strtol(p, NULL, 10);
	struct serving s;
	bool ok;
	size_t i;

	if (port < 1 || port > 65535) {
		buf_printf(why, "cmd_args.port must be in 1..65535, not %s", p);
		return false;
	}
	/* CloudAI compiles the patterns when it loads the test */
	for (i = 0; i < r->args.len; i++) {
		const char *key = r->args.items[i].key;
		regex_t re;
		if (strncmp(key, pre, sizeof(pre) - 1) != 0)
			continue;
		if (regcomp(&re, key + sizeof(pre) - 1, REG_EXTENDED | REG_NOSUB) != 0) {
			buf_printf(why, "custom_bash pattern '%s' is not a valid (extended) regular expression",
			           key + sizeof(pre) - 1);
			return false;
		}
		regfree(&re);
	}
	ok = serving_init(&s, NULL, r, why);

	serving_free(&s);
	return ok;
}

void
serving_check(const struct run *r, struct wl_diags *d)
{
	struct buf why = {0};

	workload_refuse(d, r, serving_ok(r, &why), &why);
}

bool
serving_semantic(const struct serving *s)
{
	return workload_has_prefix(s->r, "semantic_eval_cmd_args");
}

void
serving_bench_host(const struct serving *s, struct buf *out)
{
	const char *h = serving_arg(s, "bench_host");

	if (h && *h)
		sh_quote(out, h);
	else
		buf_puts(out, s->disagg ? "${PREFILL_NODE}" : "${NODE}");
}

/* A key of role's table ("decode.tensor_parallel_size") that is one flag:
 * not nested deeper, not internal. */
static const char *
flag_key(const char *key, const char *role, const char *const *skip)
{
	static const char *const internal[] = {"gpu_ids", "num_nodes", NULL};
	size_t n = strlen(role), i;
	const char *k;

	if (strncmp(key, role, n) != 0 || key[n] != '.')
		return NULL;
	k = key + n + 1;
	if (strchr(k, '.'))
		return NULL;
	for (i = 0; internal[i]; i++)
		if (strcmp(k, internal[i]) == 0)
			return NULL;
	for (i = 0; skip && skip[i]; i++)
		if (strcmp(k, skip[i]) == 0)
			return NULL;
	return k;
}

/* Appends " --a-b" for key a_b. */
static void
dashed(struct buf *out, const char *pre, const char *k)
{
	size_t start;

	buf_putc(out, ' ');
	buf_puts(out, pre);
	start = out->len;
	sh_quote(out, k);
	for (; start < out->len; start++)
		if (out->data[start] == '_')
			out->data[start] = '-';
}

void
serving_serve_args(const struct serving *s, enum serving_role role, bool bools_as_no,
                   const char *const *skip, struct buf *out)
{
	const char *rn = role == ROLE_PREFILL ? "prefill" : "decode", *k;
	size_t i;

	for (i = 0; i < s->r->args.len; i++) {
		const char *key = s->r->args.items[i].key, *v = s->r->args.items[i].value;
		if (!(k = flag_key(key, rn, skip)))
			continue;
		if (bools_as_no && workload_is_bool(s->r, key)) {
			dashed(out, workload_true(v) ? "--" : "--no-", k);
			continue;
		}
		dashed(out, "--", k);
		if (*v) {
			buf_putc(out, ' ');
			sh_quote(out, v);
		}
	}
}

void
serving_bench_extras(const struct serving *s, const char *const *known, struct buf *out)
{
	static const char pre[] = "bench_cmd_args.";
	size_t i, j;

	for (i = 0; i < s->r->args.len; i++) {
		const char *key = s->r->args.items[i].key;
		if (strncmp(key, pre, sizeof(pre) - 1) != 0)
			continue;
		for (j = 0; known[j] && strcmp(known[j], key + sizeof(pre) - 1) != 0; j++)
			;
		if (known[j])
			continue;
		dashed(out, "--", key + sizeof(pre) - 1);
		buf_putc(out, ' ');
		sh_quote(out, s->r->args.items[i].value);
	}
}

/* custom_bash: a string for every command, or patterns (POSIX EREs here,
 * Python's re in CloudAI) to the text for the commands they match. */
const char *
serving_custom_text(const struct serving *s, const char *cmd)
{
	static const char pre[] = "custom_bash.";
	const char *v = workload_own_value(s->r, "custom_bash");
	size_t i;

	if (v)
		return *v ? v : NULL;
	for (i = 0; i < s->r->args.len; i++) {
		const char *key = s->r->args.items[i].key;
		regex_t re;
		bool hit;
		if (strncmp(key, pre, sizeof(pre) - 1) != 0)
			continue;
		if (regcomp(&re, key + sizeof(pre) - 1, REG_EXTENDED | REG_NOSUB) != 0)
			continue;
		hit = regexec(&re, cmd, 0, NULL, 0) == 0;
		regfree(&re);
		if (hit)
			return *s->r->args.items[i].value ? s->r->args.items[i].value : NULL;
	}
	return NULL;
}

void
serving_custom(const struct serving *s, const char *cmd, struct buf *out)
{
	const char *c = serving_custom_text(s, cmd);
	struct buf t = {0};

	if (!c) {
		buf_puts(out, cmd);
		return;
	}
	buf_printf(&t, "%s; exec %s", c, cmd);
	buf_puts(out, "bash -c ");
	sh_quote(out, t.data);
	buf_free(&t);
}

