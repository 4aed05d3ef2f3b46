/* wl_nixl_bench.c: NIXLBench, NIXL's nixlbench as CloudAI's strategy runs
 * it: an etcd server on the first node, then nixlbench once per node (UCX
 * across two or more nodes; twice on the first node for UCX on one node,
 * once there otherwise), each but the last in the background, 15 seconds
 * apart; every cmd_args beyond the launcher's own is a --key=value of
 * nixlbench. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "wl_nixl.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

/* NIXLBenchCmdArgs in pydantic's field order (NIXLExtendedCmdArgs' fields
 * first); docker_image_url up to etcd_image_url are the launcher's own */
static const struct arg_schema args[] = {
	{"filepath", ARG_STRING, NULL, NULL, false},
	{"total_buffer_size", ARG_STRING, NULL, NULL, false},
	{"device_list", ARG_STRING, NULL, NULL, false},
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"etcd_path", ARG_STRING, "etcd", NULL, false},
	{"wait_etcd_for", ARG_INT, "60", NULL, false},
	{"etcd_image_url", ARG_STRING, NULL, NULL, false},
	{"path_to_benchmark", ARG_STRING, NULL, NULL, true},
	{"etcd_endpoints", ARG_STRING, "http://$NIXL_ETCD_ENDPOINTS", NULL, false},
};

static const char *const own[] = {"docker_image_url", "path_to_benchmark", "etcd_path", "wait_etcd_for",
                                  "etcd_image_url", NULL};

/* A value with parameter references ($NIXL_ETCD_ENDPOINTS) is expanded by
 * the shell in the container, which has the job's variables. */
static void
value(struct buf *out, const char *v)
{
	const char *p;

	if (sh_has_params(v)) {
		for (p = v; *p && (strchr("_+-./=,:@%${}", *p) || (*p >= 'a' && *p <= 'z') ||
		                   (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'));
		     p++)
			;
		if (!*p) {
			buf_puts(out, v);
			return;
		}
		buf_putc(out, '"');
		sh_dquote_params(out, v, NULL);
		buf_putc(out, '"');
		return;
	}
	sh_quote_cont(out, v);
}

static void
command(const struct run *r, struct buf *out)
{
	const char *v;
	size_t i;

	sh_quote(out, workload_value(r, "path_to_benchmark"));
	for (i = 0; i < LEN(args); i++) {
		if (nixl_own(args[i].key, own) || !(v = workload_value_of(r, &args[i])))
			continue;
		if (strcmp(args[i].key, "etcd_endpoints") == 0)
			buf_puts(out, " --etcd-endpoints=");
		else
			buf_printf(out, " --%s=", args[i].key);
		if (strcmp(args[i].key, "total_buffer_size") != 0 || !nixl_bytes(out, v))
			value(out, v);
	}
	for (i = 0; i < r->args.len; i++) {
		if (workload_arg(r->def->wl, r->args.items[i].key))
			continue;
		buf_puts(out, " --");
		sh_quote_cont(out, r->args.items[i].key);
		buf_putc(out, '=');
		value(out, r->args.items[i].value);
	}
	workload_extra_args(r, '=', out);
}

const struct workload wl_nixl_bench = {
	.name = "NIXLBench",
	.args = args,
	.n_args = LEN(args),
	.command = command,
	.all_of = nixl_table,
	.grader = "nixl",
	.script_sruns = nixl_backend_body,
	.script_prologue = nixl_prologue,
	.bare_probes = true,
	NIXL_WORKLOAD,
};
