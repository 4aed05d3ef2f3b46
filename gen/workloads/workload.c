/* workload.c: the registry of workloads. Each gen/workloads/wl_*.c defines
 * one entry (wl_kunai.c a table of kunai's own); adding a workload is one
 * line here. The table is sorted by name so that
 * workload_names() lists them in a stable order for "did you mean". */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/run.h"

extern const struct workload wl_ai_dynamo;
extern const struct workload wl_aiconfig;
extern const struct workload wl_bash_cmd;
extern const struct workload wl_chakra_replay;
extern const struct workload wl_ddlb;
extern const struct workload wl_deepep;
extern const struct workload wl_dynamo_mocker;
extern const struct workload wl_fio;
extern const struct workload wl_jax_gpt;
extern const struct workload wl_jax_grok;
extern const struct workload wl_jax_nemotron;
/* kunai's own programs, one table (wl_kunai.c), in the order listed below */
extern const struct workload wl_kunai[6];
extern const struct workload wl_megatron_bridge;
extern const struct workload wl_megatron_run;
extern const struct workload wl_moe;
extern const struct workload wl_nccl;
extern const struct workload wl_nemo_launcher;
extern const struct workload wl_nemo_run;
extern const struct workload wl_nixl_bench;
extern const struct workload wl_nixl_ep;
extern const struct workload wl_nixl_kvbench;
extern const struct workload wl_nixl_perftest;
extern const struct workload wl_osu;
extern const struct workload wl_sglang;
extern const struct workload wl_sleep;
extern const struct workload wl_slurm_container;
extern const struct workload wl_triton_inference;
extern const struct workload wl_ucc;
extern const struct workload wl_vllm;

static const struct workload *const workloads[] = {
	&wl_ai_dynamo,
	&wl_aiconfig,
	&wl_bash_cmd,
	&wl_chakra_replay,
	&wl_ddlb,
	&wl_deepep,
	&wl_dynamo_mocker,
	&wl_fio,
	&wl_jax_gpt,
	&wl_jax_grok,
	&wl_jax_nemotron,
	&wl_kunai[0], /* KunaiAllReduce */
	&wl_kunai[1], /* KunaiBisection */
	&wl_kunai[2], /* KunaiDdpSmoke */
	&wl_kunai[3], /* KunaiGemm */
	&wl_kunai[4], /* KunaiHealth */
	&wl_kunai[5], /* KunaiTrainSmoke */
	&wl_megatron_bridge,
	&wl_megatron_run,
	&wl_moe,
	&wl_nixl_bench,
	&wl_nixl_kvbench,
	&wl_nccl,
	&wl_nemo_launcher,
	&wl_nemo_run,
	&wl_nixl_ep,
	&wl_nixl_perftest,
	&wl_osu,
	&wl_sleep,
	&wl_slurm_container,
	&wl_triton_inference,
	&wl_ucc,
	&wl_sglang,
	&wl_vllm,
};

/* Kept in the same order as workloads[]; a static table keeps
 * workload_names() free of allocation and global mutable state. */
static const char *const workload_name_list[] = {
	"AIDynamo",
	"Aiconfigurator",
	"BashCmd",
	"ChakraReplay",
	"DDLBTest",
	"DeepEP",
	"DynamoMocker",
	"Fio",
	"JaxToolboxGPT",
	"JaxToolboxGrok",
	"JaxToolboxNemotron",
	"KunaiAllReduce",
	"KunaiBisection",
	"KunaiDdpSmoke",
	"KunaiGemm",
	"KunaiHealth",
	"KunaiTrainSmoke",
	"MegatronBridge",
	"MegatronRun",
	"MoEBenchmark",
	"NIXLBench",
	"NIXLKVBench",
	"NcclTest",
	"NeMoLauncher",
	"NeMoRun",
	"NixlEP",
	"NixlPerftest",
	"OSUBench",
	"Sleep",
	"SlurmContainer",
	"TritonInference",
	"UCCTest",
	"sglang",
	"vllm",
	NULL,
};

const struct workload *
workload_find(const char *name)
{
	size_t i;

	if (!name)
		return NULL;
	for (i = 0; i < LEN(workloads); i++) {
		if (strcmp(workloads[i]->name, name) == 0)
			return workloads[i];
	}
	return NULL;
}

const struct arg_schema *
workload_arg(const struct workload *wl, const char *key)
{
	size_t i;

	if (!wl || !key)
		return NULL;
	for (i = 0; i < wl->n_args; i++) {
		if (strcmp(wl->args[i].key, key) == 0)
			return &wl->args[i];
	}
	/* "T.*": any key of the table T */
	for (i = 0; i < wl->n_args; i++) {
		const char *k = wl->args[i].key;
		size_t n = strlen(k);
		if (n > 2 && k[n - 1] == '*' && k[n - 2] == '.' && strncmp(k, key, n - 1) == 0 && key[n - 1])
			return &wl->args[i];
	}
	return NULL;
}

bool
workload_in_container(const struct run *r)
{
	const struct workload *wl = r->def->wl;

	return wl->container || (wl->container_if_image && workload_value(r, "docker_image_url"));
}

const char *const *
workload_names(void)
{
	return workload_name_list;
}

static const char *
kv_get(const struct kvlist *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->len; i++)
		if (strcmp(l->items[i].key, key) == 0)
			return l->items[i].value;
	return NULL;
}

const char *
workload_own_value(const struct run *r, const char *key)
{
	return kv_get(&r->args, key);
}

const char *
workload_env_value(const struct run *r, const char *key)
{
	return kv_get(&r->env, key);
}

bool
workload_has_prefix(const struct run *r, const char *prefix)
{
	size_t i, n = strlen(prefix);

	for (i = 0; i < r->args.len; i++)
		if (strncmp(r->args.items[i].key, prefix, n) == 0)
			return true;
	return false;
}

const char *
workload_value(const struct run *r, const char *key)
{
	const struct arg_schema *s;
	const char *v = workload_own_value(r, key);

	if (v)
		return v;
	s = workload_arg(r->def->wl, key);
	return s ? s->def : NULL;
}

const char *
workload_value_of(const struct run *r, const struct arg_schema *s)
{
	const char *v = workload_own_value(r, s->key);

	return v ? v : s->def;
}

bool
workload_true(const char *v)
{
	return v && (strcmp(v, "True") == 0 || strcmp(v, "true") == 0);
}

static const struct arg *
find_arg(const struct argset *as, const char *key)
{
	size_t i;

	for (i = 0; key && i < as->len; i++)
		if (strcmp(as->items[i].key, key) == 0)
			return &as->items[i];
	return NULL;
}

struct wl_diag {
	struct toml_pos pos;
	char *text;
	struct buf points; /* "2, 3" */
	size_t seq;
};

void
workload_error(struct wl_diags *d, const struct run *r, const char *key, bool env, bool point,
               const char *fmt, ...)
{
	const struct arg *g = find_arg(env ? &r->def->extra_env_vars : &r->def->cmd_args, key);
	struct toml_pos p = g ? g->pos : r->tc->pos;
	struct buf t = {0};
	struct wl_diag *e;
	va_list ap;
	size_t i;

	va_start(ap, fmt);
	buf_vprintf(&t, fmt, ap);
	va_end(ap);
	buf_printf(&t, " (test '%s')", r->tc->id);
	for (i = 0; i < d->len; i++)
		if (d->items[i].pos.line == p.line && d->items[i].pos.col == p.col &&
		    strcmp(d->items[i].pos.path, p.path) == 0 && strcmp(d->items[i].text, buf_str(&t)) == 0)
			break;
	if (i == d->len) {
		d->items = xreserve(d->items, d->len + 1, &d->cap, sizeof(*d->items));
		e = &d->items[d->len++];
		memset(e, 0, sizeof(*e));
		e->pos = p;
		e->text = xmalloc(t.len + 1);
		memcpy(e->text, buf_str(&t), t.len + 1);
		e->seq = i;
	}
	e = &d->items[i];
	if (point && r->step > 0)
		buf_printf(&e->points, "%s%d", e->points.len ? ", " : "", r->step);
	buf_free(&t);
}

static int
diag_cmp(const void *x, const void *y)
{
	const struct wl_diag *a = x, *b = y;
	int c = strcmp(a->pos.path, b->pos.path);

	if (c)
		return c;
	if (a->pos.line != b->pos.line)
		return a->pos.line < b->pos.line ? -1 : 1;
	if (a->pos.col != b->pos.col)
		return a->pos.col < b->pos.col ? -1 : 1;
	return (a->seq > b->seq) - (a->seq < b->seq);
}

size_t
workload_diags_flush(struct wl_diags *d)
{
	size_t i, n = d->len;

	if (!n)
		return 0;
	qsort(d->items, d->len, sizeof(*d->items), diag_cmp);
	for (i = 0; i < d->len; i++) {
		struct wl_diag *e = &d->items[i];
		fprintf(stderr, "%s:%d:%d: error: ", e->pos.path, e->pos.line, e->pos.col);
		if (e->points.len)
			fprintf(stderr, "sweep point%s %s: ", strchr(buf_str(&e->points), ',') ? "s" : "",
			        buf_str(&e->points));
		fprintf(stderr, "%s\n", e->text);
		free(e->text);
		buf_free(&e->points);
	}
	free(d->items);
	memset(d, 0, sizeof(*d));
	return n;
}

bool
workload_is_list(const struct run *r, const char *key)
{
	const struct arg *g = find_arg(&r->def->cmd_args, key);

	return g && g->val->type == TOML_ARRAY;
}

bool
workload_is_bool(const struct run *r, const char *key)
{
	const struct argset *as = &r->def->cmd_args;
	size_t i;

	for (i = 0; i < as->len; i++) {
		const struct toml_value *v = as->items[i].val;
		if (strcmp(as->items[i].key, key) != 0)
			continue;
		if (v->type == TOML_ARRAY && v->u.array->len > 0)
			v = v->u.array->items[0];
		return v->type == TOML_BOOL;
	}
	return false;
}

/* The text of a scalar extra_cmd_args value (the model allows strings; other
 * scalars are printed as Python would). */
static void
scalar(struct buf *b, const struct toml_value *v)
{
	switch (v->type) {
	case TOML_STRING:
		buf_push(b, v->u.str.s, v->u.str.len);
		break;
	case TOML_INTEGER:
		buf_printf(b, "%lld", (long long)v->u.integer);
		break;
	case TOML_FLOAT:
		buf_printf(b, "%.17g", v->u.flt);
		break;
	case TOML_BOOL:
		buf_puts(b, v->u.boolean ? "True" : "False");
		break;
	default:
		break;
	}
}

void
workload_extra_args(const struct run *r, char sep, struct buf *out)
{
	const struct argset *as = &r->def->extra_cmd_args;
	struct buf v = {0};
	size_t i;

	for (i = 0; i < as->len; i++) {
		v.len = 0;
		scalar(&v, as->items[i].val);
		buf_putc(out, ' ');
		sh_quote(out, as->items[i].key);
		if (v.len) {
			buf_putc(out, sep);
			sh_quote(out, buf_str(&v));
		}
	}
	buf_free(&v);
}

/* CloudAI's file name for a cached image: nvcr.io/nvidia/pytorch:24.02-py3
 * -> nvcr.io_nvidia__pytorch__24.02-py3.sqsh, '#' -> '_'. */
void
workload_image_cache_name(struct buf *b, const char *url)
{
	const char *s = strstr(url, "://"), *colon, *slash, *end;
	size_t start = b->len, i;

	s = s ? s + 3 : url;
	colon = strrchr(s, ':');
	end = colon ? colon : s + strlen(s);
	for (slash = end; slash > s && slash[-1] != '/'; slash--)
		;
	if (slash > s)
		buf_push(b, s, (size_t)(slash - 1 - s));
	buf_puts(b, "__");
	buf_push(b, slash, (size_t)(end - slash));
	buf_printf(b, "__%s.sqsh", colon ? colon + 1 : "notag");
	for (i = start; i < b->len; i++)
		if (b->data[i] == '/' || b->data[i] == '#')
			b->data[i] = '_';
}

/* CloudAI's directory for a repository under the install dir:
 * https://github.com/NVIDIA/NeMo-Framework-Launcher.git at c0ffee ->
 * NeMo-Framework-Launcher__c0ffee. */
void
workload_repo_dir(struct buf *b, const char *url, const char *commit)
{
	const char *s = strrchr(url, '/'), *e;

	s = s ? s + 1 : url;
	e = s + strlen(s);
	if (e - s > 4 && strcmp(e - 4, ".git") == 0)
		e -= 4;
	buf_push(b, s, (size_t)(e - s));
	buf_printf(b, "__%s", commit ? commit : "");
}

void
workload_refuse(struct wl_diags *d, const struct run *r, bool ok, struct buf *why)
{
	if (!ok)
		workload_error(d, r, NULL, false, false, "%s", buf_str(why));
	buf_free(why);
}
