/* wl_deepep.c: DeepEP, the official DeepEP test scripts (v1 legacy
 * test_internode/test_intranode/test_low_latency, v2 elastic test_ep) under
 * torchrun, one task per node, as CloudAI's DeepEP strategy runs them: the
 * rendezvous is on the first node's address, and each subtest takes its own
 * subset of cmd_args as --flags (a true boolean the bare flag). */
#include <stdbool.h>
#include <string.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

static const char *const subtests[] = {"test_internode", "test_intranode", "test_low_latency", "test_ep", NULL};

/* DeepEPCmdArgs, field for field */
static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"subtest_name", ARG_STRING, "test_internode", subtests, false},
	{"deep_ep_root", ARG_STRING, "/workspace/DeepEP", NULL, false},
	{"legacy_tests_root", ARG_STRING, NULL, NULL, false},
	{"elastic_tests_root", ARG_STRING, NULL, NULL, false},
	{"python_executable", ARG_STRING, "python", NULL, false},
	{"num_processes", ARG_INT, "8", NULL, false},
	{"num_tokens", ARG_INT, "4096", NULL, false},
	{"hidden", ARG_INT, "7168", NULL, false},
	{"num_topk", ARG_INT, "8", NULL, false},
	{"num_experts", ARG_INT, "256", NULL, false},
	{"num_topk_groups", ARG_INT, NULL, NULL, false},
	{"allow_mnnvl", ARG_BOOL, "False", NULL, false},
	{"test_ll_compatibility", ARG_BOOL, "False", NULL, false},
	{"pressure_test_mode", ARG_INT, "0", NULL, false},
	{"pressure_test", ARG_BOOL, "False", NULL, false},
	{"shrink_test", ARG_BOOL, "False", NULL, false},
	{"disable_nvlink", ARG_BOOL, "False", NULL, false},
	{"use_logfmt", ARG_BOOL, "False", NULL, false},
	{"num_sms", ARG_INT, "0", NULL, false},
	{"num_qps", ARG_INT, "0", NULL, false},
	{"num_allocated_qps", ARG_INT, "0", NULL, false},
	{"num_gpu_timeout_secs", ARG_INT, "100", NULL, false},
	{"num_cpu_timeout_secs", ARG_INT, "100", NULL, false},
	{"sl_idx", ARG_INT, "0", NULL, false},
	{"do_cpu_sync", ARG_INT, "1", NULL, false},
	{"allow_hybrid_mode", ARG_INT, "1", NULL, false},
	{"allow_multiple_reduction", ARG_INT, "1", NULL, false},
	{"prefer_overlap_with_compute", ARG_INT, "0", NULL, false},
	{"deterministic", ARG_BOOL, "False", NULL, false},
	{"seed", ARG_INT, "0", NULL, false},
	{"skip_check", ARG_BOOL, "False", NULL, false},
	{"skip_perf_test", ARG_BOOL, "False", NULL, false},
	{"do_pressure_test", ARG_BOOL, "False", NULL, false},
	{"reuse_elastic_buffer", ARG_BOOL, "False", NULL, false},
	{"test_first_only", ARG_BOOL, "False", NULL, false},
	{"unbalanced_ratio", ARG_FLOAT, "1.0", NULL, false},
	{"precise_unbalanced_ratio", ARG_BOOL, "False", NULL, false},
	{"masked_ratio", ARG_FLOAT, "0.0", NULL, false},
	{"dump_profile_traces", ARG_STRING, "", NULL, false},
	{"ignore_local_traffic", ARG_BOOL, "False", NULL, false},
};

/* The flags each subtest's script takes, in its order. */
static const char *const internode[] = {
	"num_processes", "num_tokens", "hidden", "num_topk_groups", "num_topk", "pressure_test_mode",
	"num_experts", "test_ll_compatibility", NULL,
};
static const char *const intranode[] = {
	"num_processes", "num_tokens", "hidden", "num_topk", "num_experts", "allow_mnnvl", NULL,
};
static const char *const low_latency[] = {
	"num_processes", "num_tokens", "hidden", "num_topk", "num_experts", "allow_mnnvl",
	"disable_nvlink", "use_logfmt", "pressure_test", "shrink_test", NULL,
};
static const char *const test_ep[] = {
	"num_processes", "num_sms", "num_qps", "num_allocated_qps", "num_gpu_timeout_secs",
	"num_cpu_timeout_secs", "sl_idx", "num_tokens", "hidden", "num_topk", "num_experts",
	"do_cpu_sync", "allow_hybrid_mode", "allow_multiple_reduction", "prefer_overlap_with_compute",
	"deterministic", "seed", "skip_check", "skip_perf_test", "do_pressure_test",
	"reuse_elastic_buffer", "test_first_only", "unbalanced_ratio", "precise_unbalanced_ratio",
	"masked_ratio", "dump_profile_traces", "ignore_local_traffic", NULL,
};

static long
nodes(const struct run *r)
{
	return r->nodes.len ? (long)r->nodes.len : r->num_nodes;
}

/* <tests root>/<subtest>.py: tests/legacy for v1, tests/elastic for v2,
 * unless the test names its own folder */
static void
script_path(const struct run *r, struct buf *out)
{
	const char *sub = workload_value(r, "subtest_name");
	bool legacy = strcmp(sub, "test_ep") != 0;
	const char *root = workload_value(r, legacy ? "legacy_tests_root" : "elastic_tests_root");
	struct buf p = {0};

	if (root && *root)
		buf_puts(&p, root);
	else
		buf_printf(&p, "%s/tests/%s", workload_value(r, "deep_ep_root"), legacy ? "legacy" : "elastic");
	while (p.len > 1 && p.data[p.len - 1] == '/')
		p.data[--p.len] = '\0';
	buf_printf(&p, "/%s.py", sub);
	sh_quote(out, buf_str(&p));
	buf_free(&p);
}

static void
command(const struct run *r, struct buf *out)
{
	const char *sub = workload_value(r, "subtest_name");
	const char *const *flags = strcmp(sub, "test_intranode") == 0     ? intranode
	                           : strcmp(sub, "test_low_latency") == 0 ? low_latency
	                           : strcmp(sub, "test_ep") == 0          ? test_ep
	                                                                  : internode;
	const char *p, *v;
	size_t i;

	/* ${...} is left for the shell inside the container */
	buf_printf(out, "torchrun --nnodes=%ld --nproc_per_node=1 --rdzv_id=${SLURM_JOB_ID:-0} "
	                "--rdzv_backend=c10d --rdzv_endpoint=${MASTER_ADDR}:${MASTER_PORT} ",
	           nodes(r));
	script_path(r, out);
	for (i = 0; flags[i]; i++) {
		v = workload_value(r, flags[i]);
		if (!v || !*v)
			continue;
		/* a true boolean is the bare flag, a false one nothing */
		if (workload_arg(r->def->wl, flags[i])->type == ARG_BOOL && !workload_true(v))
			continue;
		buf_puts(out, " --");
		for (p = flags[i]; *p; p++)
			buf_putc(out, *p == '_' ? '-' : *p);
		if (workload_arg(r->def->wl, flags[i])->type == ARG_BOOL)
			continue;
		buf_putc(out, ' ');
		sh_quote(out, v);
	}
	workload_extra_args(r, ' ', out);
}

/* torchrun's rendezvous: the first node's address, found from the batch
 * host before the test starts */
static void
prologue(const struct run *r, struct buf *out)
{
	(void)r;
	buf_puts(out, "\n# DeepEP: torchrun meets on the first node's address\n"
	              "head_node=$(scontrol show hostnames \"$SLURM_JOB_NODELIST\" | head -n 1)\n"
	              "head_node_ip=$(srun --nodes=1 --ntasks=1 -w \"$head_node\" hostname --ip-address)\n"
	              "echo \"Nodes: $SLURM_JOB_NODELIST; head node $head_node ($head_node_ip)\"\n"
	              "export MASTER_ADDR=$head_node_ip\n"
	              "export MASTER_PORT=29500\n\n");
}

/* one torchrun per node, each starting the node's processes itself */
static void
body(const struct run *r, const struct wl_srun *s, struct buf *out)
{
	long n = nodes(r);

	s->prefix(out, r, false, NULL);
	buf_printf(out, " --nodes=%ld --ntasks=%ld --ntasks-per-node=1 ", n, n);
	s->bash_c(out, r);
}

/* CloudAI: grep -E "\[testing\]|dispatch|combine|passed|tuning|Best" */
static const char *const any_of[] = {"[testing]", "dispatch", "combine", "passed", "tuning", "Best", NULL};

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
};

const struct workload wl_deepep = {
	.name = "DeepEP",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = false,
	.schedulers = WL_SLURM,
	.container = true,
	.command = command,
	.any_of = any_of,
	.grader = "deepep",
	.installables = installables,
	.n_installables = LEN(installables),
	.script_sruns = body,
	.script_prologue = prologue,
	.writes_deepep_matrix = true,
};
