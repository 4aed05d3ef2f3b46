/* wl_nixl_kvbench.c: NIXLKVBench, NIXL's kvbench (main.py profile) as
 * CloudAI's strategy runs it: on the NIXL launcher (etcd on the first node,
 * the benchmark per node as NIXLBench places it), every cmd_args beyond
 * the launcher's own as "--key value" (model_cfg as --model_config), then
 * --etcd_endpoints. Graded from nixlbench's table, as CloudAI checks it. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "wl_nixl.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

static const char *const commands[] = {"profile", NULL};

/* NIXLKVBenchCmdArgs in pydantic's field order (NIXLExtendedCmdArgs' first) */
static const struct arg_schema args[] = {
	{"filepath", ARG_STRING, NULL, NULL, false},
	{"total_buffer_size", ARG_STRING, NULL, NULL, false},
	{"device_list", ARG_STRING, NULL, NULL, false},
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"etcd_path", ARG_STRING, "etcd", NULL, false},
	{"wait_etcd_for", ARG_INT, "60", NULL, false},
	{"etcd_image_url", ARG_STRING, NULL, NULL, false},
	{"command", ARG_STRING, "profile", commands, false},
	{"kvbench_script", ARG_STRING, "/workspace/nixl/benchmark/kvbench/main.py", NULL, false},
	{"python_executable", ARG_STRING, "python", NULL, false},
	{"model_cfg", ARG_STRING, NULL, NULL, false},
	{"backend", ARG_STRING, NULL, NULL, false},
};

static const char *const own[] = {"docker_image_url", "etcd_path", "wait_etcd_for", "etcd_image_url",
                                  "command", "kvbench_script", "python_executable", NULL};

static void
option(struct buf *out, const char *key, const char *v)
{
	buf_puts(out, " --");
	sh_quote_cont(out, strcmp(key, "model_cfg") == 0 ? "model_config" : key);
	buf_putc(out, ' ');
	if (strcmp(key, "total_buffer_size") == 0 && nixl_bytes(out, v))
		return;
	sh_quote(out, v);
}

static void
command(const struct run *r, struct buf *out)
{
	const char *v;
	size_t i;

	sh_quote(out, workload_value(r, "python_executable"));
	buf_putc(out, ' ');
	sh_quote(out, workload_value(r, "kvbench_script"));
	buf_putc(out, ' ');
	sh_quote(out, workload_value(r, "command"));
	for (i = 0; i < LEN(args); i++)
		if (!nixl_own(args[i].key, own) && (v = workload_value_of(r, &args[i])))
			option(out, args[i].key, v);
	for (i = 0; i < r->args.len; i++)
		if (!workload_arg(r->def->wl, r->args.items[i].key))
			option(out, r->args.items[i].key, r->args.items[i].value);
	/* expanded in the container, which has the job's NIXL_ETCD_ENDPOINTS */
	buf_puts(out, " --etcd_endpoints http://$NIXL_ETCD_ENDPOINTS");
	workload_extra_args(r, ' ', out);
}

const struct workload wl_nixl_kvbench = {
	.name = "NIXLKVBench",
	.args = args,
	.n_args = LEN(args),
	.command = command,
	.all_of = nixl_table,
	.grader = "nixl",
	.script_sruns = nixl_backend_body,
	.script_prologue = nixl_prologue,
	NIXL_WORKLOAD,
};
