/* wl_moe.c: MoEBenchmark, the MoE expert-parallel benchmark of the DeepEP
 * image (benchmark.py) that compares EP/all-to-all backends, as CloudAI's
 * strategy runs it: a config.yaml made from cmd_args (written by the job
 * script itself here) mounted at config_file_path, the run dir at
 * results_dir, then one benchmark.py per backend in one srun, each with
 * its own variables; a hybrid backend needs an etcd server, started first
 * and stopped after. The matrices it leaves (nccl_matrix.txt,
 * ucc_matrix.txt) feed use_deepep_matrix of NcclTest and UCCTest. */
#include <stdbool.h>
#include <string.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"
#include "gen/toml/toml.h"

static const char *const modes[] = {"standard", "low_latency", NULL};
static const char *const data_types[] = {"bfloat16", "fp8", NULL};

/* MoEBenchmarkCmdArgs, field for field; from "tokens" on (but num_sms and
 * num_qps_per_rank, config_file_path and results_dir) they go to config.yaml */
static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"benchmark_root", ARG_STRING, "/workspace/DeepEP/benchmark", NULL, false},
	{"mode", ARG_STRING, "standard", modes, false},
	{"deepep_versions", ARG_LIST, "legacy,elastic", NULL, false},
	{"tokens", ARG_INT, "1024", NULL, false},
	{"num_experts", ARG_INT, "256", NULL, false},
	{"num_topk", ARG_INT, "8", NULL, false},
	{"hidden_size", ARG_INT, "7168", NULL, false},
	{"data_type", ARG_STRING, "bfloat16", data_types, false},
	{"allow_nvlink_for_low_latency", ARG_BOOL, "False", NULL, false},
	{"allow_mnnvl", ARG_BOOL, "False", NULL, false},
	{"round_scale", ARG_BOOL, "False", NULL, false},
	{"use_ue8m0", ARG_BOOL, "False", NULL, false},
	{"benchmark_combine", ARG_BOOL, "True", NULL, false},
	{"num_warmups", ARG_INT, "20", NULL, false},
	{"num_iterations", ARG_INT, "50", NULL, false},
	{"shuffle_columns", ARG_BOOL, "False", NULL, false},
	{"use_kineto_profiler", ARG_BOOL, "False", NULL, false},
	{"enable_tuning", ARG_BOOL, "False", NULL, false},
	{"num_sms", ARG_INT, "24", NULL, false},
	{"num_qps_per_rank", ARG_INT, "12", NULL, false},
	{"v2_num_sms", ARG_INT, "12", NULL, false},
	{"v2_num_qps", ARG_INT, "0", NULL, false},
	{"v2_prefer_overlap_with_compute", ARG_BOOL, "False", NULL, false},
	{"config_file_path", ARG_STRING, "/tmp/config.yaml", NULL, false},
	{"results_dir", ARG_STRING, "/workspace/DeepEP/results", NULL, false},
};

/* Each backend's own variables, set on its command only (they cannot share
 * one environment); hybrid, hybrid_ep and deepep_hybrid are one backend. */
static const char *const nixl_ep_env[] = {
	"NCCL_IB_GID_INDEX=auto", "NCCL_NET_PLUGIN=none", "NCCL_IB_QPS_PER_CONNECTION=4",
	"NCCL_IB_SPLIT_DATA_ON_QPS=0", "NCCL_IBEXT_DISABLE=0", "OMPI_MCA_btl=tcp,self",
	"EP_SUPPRESS_NCCL_CHECK=1", "NCCL_GIN_TYPE=3", NULL,
};
static const char *const nccl_ep_env[] = {
	"NCCL_IB_GID_INDEX=auto", "NCCL_NET_PLUGIN=none", "NCCL_IB_QPS_PER_CONNECTION=4",
	"NCCL_IB_SPLIT_DATA_ON_QPS=0", "NCCL_IBEXT_DISABLE=0", "OMPI_MCA_btl=tcp,self",
	"NCCL_GIN_TYPE=3", "EP_SKIP_DEEPEP_PREIMPORT=1",
	"LD_LIBRARY_PATH=/opt/nccl-ep-build/lib:" SH_BATCH_REF "LD_LIBRARY_PATH", NULL,
};
static const char *const hybrid_env[] = {
	"NCCL_IB_GID_INDEX=auto", "NUM_OF_TOKENS_PER_CHUNK_DISPATCH_API=64",
	"NUM_OF_TOKENS_PER_CHUNK_COMBINE_API=64", "NUM_OF_TOKENS_PER_CHUNK_PREPROCESSING_API=64",
	"CPATH=/usr/local/ucx-nixl/include:/usr/local/nixl/include:/usr/local/nixl/include/gpu/ucx:" SH_BATCH_REF "CPATH",
	"CPLUS_INCLUDE_PATH=/usr/local/ucx-nixl/include:/usr/local/nixl/include:/usr/local/nixl/include/gpu/ucx:" SH_BATCH_REF "CPATH",
	NULL,
};

static bool
is_hybrid(const char *v, size_t n)
{
	return (n == 13 && strncmp(v, "deepep_hybrid", n) == 0) || (n == 6 && strncmp(v, "hybrid", n) == 0) ||
	       (n == 9 && strncmp(v, "hybrid_ep", n) == 0);
}

static bool
uses_hybrid(const struct run *r)
{
	const char *v = workload_value(r, "deepep_versions");
	size_t n;

	for (; *v; v += n + (v[n] == ',')) {
		n = strcspn(v, ",");
		if (is_hybrid(v, n))
			return true;
	}
	return false;
}

static void
command(const struct run *r, struct buf *out)
{
	const char *v = workload_value(r, "deepep_versions");
	const char *const *env;
	struct buf script = {0}, ver = {0};
	size_t n, i;
	bool first = true;

	buf_printf(&script, "%s/benchmark.py", workload_value(r, "benchmark_root"));
	if (!*v)
		v = "legacy";
	for (; *v; v += n + (v[n] == ',')) {
		n = strcspn(v, ",");
		ver.len = 0;
		buf_push(&ver, v, n);
		if (!first)
			buf_puts(out, " && ");
		first = false;
		env = n == 7 && strncmp(v, "nixl_ep", n) == 0   ? nixl_ep_env
		      : n == 7 && strncmp(v, "nccl_ep", n) == 0 ? nccl_ep_env
		      : is_hybrid(v, n)                         ? hybrid_env
		                                                : NULL;
		/* $LD_LIBRARY_PATH and $CPATH: the host's, expanded by the batch
		 * shell, as in CloudAI's bash -c "..." */
		for (i = 0; env && env[i]; i++) {
			buf_puts(out, env[i]);
			buf_putc(out, ' ');
		}
		buf_puts(out, "python ");
		sh_quote(out, buf_str(&script));
		buf_putc(out, ' ');
		sh_quote(out, workload_value(r, "config_file_path"));
		buf_putc(out, ' ');
		sh_quote(out, buf_str(&ver));
	}
	buf_free(&script);
	buf_free(&ver);
	workload_extra_args(r, ' ', out);
}

/* The TOML type of an argument beyond the schema, for config.yaml. */
static enum toml_type
given_type(const struct run *r, const char *key)
{
	const struct argset *as = &r->def->cmd_args;
	size_t i;

	for (i = 0; i < as->len; i++)
		if (strcmp(as->items[i].key, key) == 0)
			return as->items[i].val->type;
	return TOML_STRING;
}

static void
yaml_line(struct buf *out, const char *key, enum arg_type t, enum toml_type given, const char *v)
{
	const char *p;

	buf_printf(out, "%s: ", key);
	if (t == ARG_BOOL || (t == ARG_ANY && given == TOML_BOOL)) {
		buf_puts(out, workload_true(v) ? "true" : "false");
	} else if (t == ARG_STRING || (t == ARG_ANY && given == TOML_STRING)) {
		buf_putc(out, '"');
		for (p = v; *p; p++) {
			if (*p == '"' || *p == '\\')
				buf_printf(out, "\\%c", *p);
			else if (*p == '\n')
				buf_puts(out, "\\n");
			else
				buf_putc(out, *p);
		}
		buf_putc(out, '"');
	} else {
		buf_puts(out, v);
	}
	buf_putc(out, '\n');
}

/* config.yaml, which benchmark.py reads: the benchmark's settings in
 * CloudAI's order, written by the job into its run dir */
static void
prologue(const struct run *r, struct buf *out)
{
	static const char *const not_in_yaml[] = {
		"docker_image_url", "benchmark_root", "mode", "deepep_versions",
		"num_sms", "num_qps_per_rank", "config_file_path", "results_dir",
	};
	size_t i, j;

	buf_puts(out, "\n# MoEBenchmark: benchmark.py's configuration, mounted at config_file_path\n"
	              "cat >\"$RUN_DIR/config.yaml\" <<'KUNAI_MOE_CONFIG'\n"
	              "# MoE Benchmark configuration (written by kunai)\n");
	yaml_line(out, "benchmark_type", ARG_STRING, TOML_STRING, workload_value(r, "mode"));
	for (i = 0; i < LEN(args); i++) {
		for (j = 0; j < LEN(not_in_yaml); j++)
			if (strcmp(args[i].key, not_in_yaml[j]) == 0)
				break;
		if (j == LEN(not_in_yaml))
			yaml_line(out, args[i].key, args[i].type, TOML_STRING, workload_value_of(r, &args[i]));
	}
	for (i = 0; i < r->args.len; i++)
		if (!workload_arg(r->def->wl, r->args.items[i].key) && sh_is_name(r->args.items[i].key))
			yaml_line(out, r->args.items[i].key, ARG_ANY, given_type(r, r->args.items[i].key),
			          r->args.items[i].value);
	buf_puts(out, "KUNAI_MOE_CONFIG\n");
}

static size_t
run_mounts(const struct run *r, struct wl_mount *out, size_t max)
{
	if (max < 2)
		return 0;
	out[0].src = "config.yaml";
	out[0].dst = workload_value(r, "config_file_path");
	out[1].src = "";
	out[1].dst = workload_value(r, "results_dir");
	return 2;
}

/* torch.distributed meets on the first node; the hybrid backend's NIXL
 * finds its peers through etcd there */
static size_t
env(struct arena *a, const struct run *r, struct wl_env *out, size_t max)
{
	size_t n = 0;

	if (max < 3)
		return 0;
	out[n++] = (struct wl_env){"MASTER_ADDR", "$SLURM_JOB_MASTER_NODE", false};
	out[n++] = (struct wl_env){"MASTER_PORT", "29500", false};
	if (uses_hybrid(r))
		out[n++] = (struct wl_env){"NIXL_ETCD_ENDPOINTS", "$SLURM_JOB_MASTER_NODE:2379", false};
	return n;
}

/* The test's srun; with a hybrid backend between an etcd server's start
 * (waited for until healthy) and its stop. A run whose matrices others
 * read leaves the newest of each at the top of its dir, where they look. */
static void
body(const struct run *r, const struct wl_srun *s, struct buf *out)
{
	bool hybrid = uses_hybrid(r);

	if (hybrid) {
		s->prefix(out, r, false, NULL);
		buf_puts(out, " --output=\"$RUN_DIR/etcd.log\" --overlap --ntasks-per-node=1 --ntasks=1"
		              " --nodelist=$SLURM_JOB_MASTER_NODE -N1 etcd --listen-client-urls=http://0.0.0.0:2379"
		              " --advertise-client-urls=http://$SLURM_JOB_MASTER_NODE:2379"
		              " --listen-peer-urls=http://0.0.0.0:2380"
		              " --initial-advertise-peer-urls=http://$SLURM_JOB_MASTER_NODE:2380"
		              " --initial-cluster=\"default=http://$SLURM_JOB_MASTER_NODE:2380\""
		              " --initial-cluster-state=new &\n"
		              "etcd_pid=$!\n"
		              "timeout 60 bash -c \"until curl -s $NIXL_ETCD_ENDPOINTS/health >/dev/null 2>&1; do sleep 1; done\" || {\n"
		              "    echo \"kunai: etcd ($NIXL_ETCD_ENDPOINTS) not healthy within 60 seconds\" >&2\n"
		              "    kill -TERM $etcd_pid\n"
		              "    exit 1\n"
		              "}\n");
	}
	s->prefix(out, r, true, NULL);
	buf_putc(out, ' ');
	s->bash_c(out, r);
	if (!hybrid && !r->matrix_out)
		return;
	buf_puts(out, "\nKUNAI_TEST_RC=$?\n");
	if (hybrid)
		buf_puts(out, "kill -TERM $etcd_pid\n"
		              "timeout 60 bash -c \"while kill -0 $etcd_pid 2>/dev/null; do sleep 1; done\" ||\n"
		              "    echo \"kunai: etcd (pid $etcd_pid) still running after 60 seconds\" >&2\n");
	if (r->matrix_out)
		buf_puts(out, "for f in nccl_matrix.txt ucc_matrix.txt; do\n"
		              "    [ -f \"$RUN_DIR/$f\" ] && continue\n"
		              "    m=$(find \"$RUN_DIR\" -mindepth 2 -name \"$f\" -type f -exec ls -t {} + 2>/dev/null | head -n 1)\n"
		              "    [ -n \"$m\" ] && cp \"$m\" \"$RUN_DIR/$f\"\n"
		              "done\n");
	buf_puts(out, "(exit $KUNAI_TEST_RC)");
}

/* CloudAI: grep -E "global_bw|RDMA BW \(GB/s\)|NVLink BW ...|Bus BW ...|Global BW ..." */
static const char *const any_of[] = {
	"global_bw", "RDMA BW (GB/s)", "NVLink BW (GB/s)", "Bus BW (GB/s)", "Global BW (GB/s)", NULL,
};

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
};

const struct workload wl_moe = {
	.name = "MoEBenchmark",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.container = true,
	.command = command,
	.any_of = any_of,
	.grader = "moe_benchmark",
	.installables = installables,
	.n_installables = LEN(installables),
	.script_sruns = body,
	.script_prologue = prologue,
	.run_mounts = run_mounts,
	.env = env,
	.writes_deepep_matrix = true,
};
