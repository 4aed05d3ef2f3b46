/* workload.c: the registry of workloads. Each gen/workloads/wl_*.c defines
 * one entry (wl_kunai.c a table of kunai's own); adding a workload is one
 * line here. The table is sorted by name so that
 * workload_names() lists them in a stable order for "did you mean". */
#include <stddef.h>
#include <string.h>

#include "wl_kunai.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

extern const struct workload wl_ai_dynamo;
extern const struct workload wl_aiconfig;
extern const struct workload wl_bash_cmd;
extern const struct workload wl_chakra_replay;
extern const struct workload wl_ddlb;
extern const struct workload wl_dynamo_mocker;
extern const struct workload wl_fio;
extern const struct workload wl_megatron_bridge;
extern const struct workload wl_megatron_run;
extern const struct workload wl_nccl;
extern const struct workload wl_nemo_launcher;
extern const struct workload wl_nemo_run;
extern const struct workload wl_osu;
extern const struct workload wl_sleep;
extern const struct workload wl_slurm_container;
extern const struct workload wl_ucc;

static const struct workload *const workloads[] = {
	&wl_ai_dynamo,
	&wl_aiconfig,
	&wl_bash_cmd,
	&wl_chakra_replay,
	&wl_ddlb,
	&wl_dynamo_mocker,
	&wl_fio,
	&wl_kunai[WL_KUNAI_ALLREDUCE],
	&wl_kunai[WL_KUNAI_BISECTION],
	&wl_kunai[WL_KUNAI_DDP],
	&wl_kunai[WL_KUNAI_GEMM],
	&wl_kunai[WL_KUNAI_HEALTH],
	&wl_kunai[WL_KUNAI_TRAIN],
	&wl_megatron_bridge,
	&wl_megatron_run,
	&wl_nccl,
	&wl_nemo_launcher,
	&wl_nemo_run,
	&wl_osu,
	&wl_sleep,
	&wl_slurm_container,
	&wl_ucc,
};

/* Kept in the same order as workloads[]; a static table keeps
 * workload_names() free of allocation and global mutable state. */
static const char *const workload_name_list[] = {
	"AIDynamo",
	"Aiconfigurator",
	"BashCmd",
	"ChakraReplay",
	"DDLBTest",
	"DynamoMocker",
	"Fio",
	"KunaiAllReduce",
	"KunaiBisection",
	"KunaiDdpSmoke",
	"KunaiGemm",
	"KunaiHealth",
	"KunaiTrainSmoke",
	"MegatronBridge",
	"MegatronRun",
	"NcclTest",
	"NeMoLauncher",
	"NeMoRun",
	"OSUBench",
	"Sleep",
	"SlurmContainer",
	"UCCTest",
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

const char *
workload_value(const struct run *r, const char *key)
{
	const struct arg_schema *s;
	size_t i;

	for (i = 0; i < r->args.len; i++)
		if (strcmp(r->args.items[i].key, key) == 0)
			return r->args.items[i].value;
	s = workload_arg(r->def->wl, key);
	return s ? s->def : NULL;
}

const char *
workload_value_of(const struct run *r, const struct arg_schema *s)
{
	size_t i;

	for (i = 0; i < r->args.len; i++)
		if (strcmp(r->args.items[i].key, s->key) == 0)
			return r->args.items[i].value;
	return s->def;
}

bool
workload_true(const char *v)
{
	return v && (strcmp(v, "True") == 0 || strcmp(v, "true") == 0);
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
