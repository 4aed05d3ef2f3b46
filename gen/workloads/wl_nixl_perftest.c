/* wl_nixl_perftest.c: NixlPerftest, NIXL's kvbench perftest as CloudAI's
 * strategy runs it: the inference workload's matrices generated first (one
 * task, into the run's matrices/), then an etcd server on the first node,
 * then the perftest on every node over those matrices, results.json in the
 * run dir, then etcd stopped. */
#include <stdbool.h>
#include <string.h>

#include "wl_nixl.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

static const char *const subtests[] = {"sequential-ct-perftest", NULL};

/* NixlPerftestCmdArgs, field for field */
static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"etcd_path", ARG_STRING, "etcd", NULL, false},
	{"wait_etcd_for", ARG_INT, "60", NULL, false},
	{"etcd_image_url", ARG_STRING, NULL, NULL, false},
	{"subtest", ARG_STRING, NULL, subtests, true},
	{"perftest_script", ARG_STRING, "/workspace/nixl/benchmark/kvbench/main.py", NULL, false},
	{"matgen_script", ARG_STRING, "/workspace/nixl/benchmark/kvbench/test/inference_workload_matgen.py", NULL,
	 false},
	{"python_executable", ARG_STRING, "python", NULL, false},
	{"num_user_requests", ARG_INT, NULL, NULL, true},
	{"batch_size", ARG_INT, NULL, NULL, true},
	{"num_prefill_nodes", ARG_INT, NULL, NULL, true},
	{"num_decode_nodes", ARG_INT, NULL, NULL, true},
	{"isl_mean", ARG_INT, NULL, NULL, false},
	{"isl_scale", ARG_INT, NULL, NULL, false},
	{"prefill_tp", ARG_INT, "1", NULL, false},
	{"prefill_pp", ARG_INT, "1", NULL, false},
	{"prefill_cp", ARG_INT, "1", NULL, false},
	{"decode_tp", ARG_INT, "1", NULL, false},
	{"decode_pp", ARG_INT, "1", NULL, false},
	{"decode_cp", ARG_INT, "1", NULL, false},
	{"model", ARG_STRING, NULL, NULL, false},
	{"hidden_size", ARG_INT, NULL, NULL, false},
	{"num_layers", ARG_INT, NULL, NULL, false},
	{"num_heads", ARG_INT, NULL, NULL, false},
	{"num_kv_heads", ARG_INT, NULL, NULL, false},
	{"dtype_size", ARG_INT, NULL, NULL, false},
	{"matgen_args.ppn", ARG_INT, NULL, NULL, false},
	{"matgen_args.*", ARG_ANY, NULL, NULL, false},
};

/* Appends " --<key with - for _>=<value>" quoted for the shell. */
static void
opt(struct buf *out, const char *key, const char *v)
{
	const char *p;

	buf_puts(out, " --");
	for (p = key; *p; p++)
		buf_putc(out, *p == '_' ? '-' : *p);
	buf_putc(out, '=');
	sh_quote_cont(out, v);
}

/* The matrix generator's command; dir is where the matrices go, as the
 * shell word it is in the script (already quoted). */
static void
matgen(const struct run *r, const char *dir, struct buf *out)
{
	static const char *const first[] = {"num_user_requests", "batch_size", "num_prefill_nodes",
	                                    "num_decode_nodes"};
	static const char *const split[] = {"prefill_tp", "prefill_pp", "prefill_cp",
	                                    "decode_tp",  "decode_pp",  "decode_cp"};
	static const char *const custom[] = {"hidden_size", "num_layers", "num_heads", "num_kv_heads", "dtype_size"};
	static const char *const isl[] = {"isl_mean", "isl_scale"};
	const char *v;
	size_t i;
	bool ppn = false;

	sh_quote(out, workload_value(r, "python_executable"));
	buf_putc(out, ' ');
	sh_quote(out, workload_value(r, "matgen_script"));
	buf_puts(out, " generate");
	for (i = 0; i < LEN(first); i++)
		opt(out, first[i], workload_value(r, first[i]));
	buf_printf(out, " --results-dir=%s", dir);
	for (i = 0; i < LEN(split); i++)
		opt(out, split[i], workload_value(r, split[i]));
	if ((v = workload_value(r, "model")) && *v)
		opt(out, "model", v);
	else
		for (i = 0; i < LEN(custom); i++)
			if ((v = workload_value(r, custom[i])))
				opt(out, custom[i], v);
	for (i = 0; i < LEN(isl); i++)
		if ((v = workload_value(r, isl[i])))
			opt(out, isl[i], v);
	/* matgen_args: ppn (else the system's tasks per node), then the rest */
	for (i = 0; i < r->args.len; i++)
		if (strncmp(r->args.items[i].key, "matgen_args.", 12) == 0) {
			opt(out, r->args.items[i].key + 12, r->args.items[i].value);
			ppn |= strcmp(r->args.items[i].key, "matgen_args.ppn") == 0;
		}
	if (!ppn && r->c->system->ntasks_per_node > 0)
		buf_printf(out, " --ppn=%d", r->c->system->ntasks_per_node);
}

/* The perftest over the matrices in dir, results into dir's parent. */
static void
perftest(const struct run *r, const char *dir, struct buf *out)
{
	sh_quote(out, workload_value(r, "python_executable"));
	buf_putc(out, ' ');
	sh_quote(out, workload_value(r, "perftest_script"));
	buf_putc(out, ' ');
	sh_quote(out, workload_value(r, "subtest"));
	buf_printf(out, " %s/matrices/metadata.yaml --json-output-path=%s/results.json", dir, dir);
	workload_extra_args(r, ' ', out);
}

/* elsewhere than Slurm's script: the run dir as the container sees it */
static void
command(const struct run *r, struct buf *out)
{
	perftest(r, "/cloudai_run_results", out);
}

/* bash -c "<text>": text (with $RUN_DIR_Q for the run dir, which the
 * batch shell expands) escaped for the double quotes */
static void
bash_c(struct buf *out, const char *text)
{
	const char *p = text, *q;

	buf_puts(out, "bash -c \"");
	while ((q = strstr(p, "$RUN_DIR_Q"))) {
		struct buf part = {0};
		buf_push(&part, p, (size_t)(q - p));
		sh_dquote_body(out, buf_str(&part));
		buf_free(&part);
		buf_puts(out, "$RUN_DIR_Q");
		p = q + 10;
	}
	sh_dquote_body(out, p);
	buf_putc(out, '"');
}

static void
body(const struct run *r, const struct wl_srun *s, struct buf *out)
{
	struct buf cmd = {0};

	s->prefix(out, r, false, NULL);
	buf_puts(out, " --ntasks-per-node=1 --ntasks=1 -N1 ");
	matgen(r, "$RUN_DIR_Q/matrices", &cmd);
	bash_c(out, buf_str(&cmd));
	buf_putc(out, '\n');
	nixl_etcd_start(r, s, out);
	s->prefix(out, r, true, NULL);
	buf_puts(out, " --overlap ");
	cmd.len = 0;
	buf_puts(&cmd, "source $RUN_DIR_Q/env_vars.sh; ");
	perftest(r, "$RUN_DIR_Q", &cmd);
	bash_c(out, buf_str(&cmd));
	buf_free(&cmd);
	nixl_etcd_stop(out);
}

static void
prologue(const struct run *r, struct buf *out)
{
	nixl_prologue(r, out);
	buf_puts(out, "mkdir -p \"$RUN_DIR/matrices\"\n");
}

const struct workload wl_nixl_perftest = {
	.name = "NixlPerftest",
	.args = args,
	.n_args = LEN(args),
	.command = command,
	.grader = "nixl_perftest",
	.script_sruns = body,
	.script_prologue = prologue,
	NIXL_WORKLOAD,
};
