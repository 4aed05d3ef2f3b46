/* wl_ai_dynamo.c: AIDynamo, NVIDIA Dynamo's disaggregated inference
 * serving (etcd, NATS, a frontend, prefill and decode workers) benchmarked
 * by genai-perf or aiperf in one Slurm allocation, as CloudAI's
 * AIDynamoCmdArgs and its Slurm strategy build it: one task per node runs
 * the wrapper ai_dynamo.sh, which takes every setting as "--SECTION-name
 * value"; aiperf's phases are a script the job writes for itself. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_serve.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

static const char *const backends[] = {"vllm", "sglang", "sglang_dsr1", NULL};
static const char *const workload_sets[] = {
	"genai_perf.sh", "aiperf.sh", "genai_perf.sh,aiperf.sh", "aiperf.sh,genai_perf.sh", NULL,
};

#define WORKER(W, CMD)                                                                   \
	{"dynamo." W ".cmd", ARG_STRING, CMD, NULL, false},                              \
	{"dynamo." W ".worker-initialized-regex", ARG_STRING, "VllmWorker.*has.been.initialized", NULL, false}, \
	{"dynamo." W ".worker_initialized_regex", ARG_STRING, NULL, NULL, false},        \
	{"dynamo." W ".multiple-workers-per-node", ARG_BOOL, "False", NULL, false},      \
	{"dynamo." W ".multiple_workers_per_node", ARG_BOOL, NULL, NULL, false},         \
	{"dynamo." W ".num-nodes", ARG_INT, "1", NULL, false},                           \
	{"dynamo." W ".num_nodes", ARG_INT, NULL, NULL, false},                          \
	{"dynamo." W ".nodes", ARG_STRING, NULL, NULL, false},                           \
	{"dynamo." W ".extra-args", ARG_STRING, NULL, NULL, false},                      \
	{"dynamo." W ".extra_args", ARG_STRING, NULL, NULL, false},                      \
	{"dynamo." W ".args.model", ARG_STRING, NULL, NULL, false},                      \
	{"dynamo." W ".args.model_path", ARG_STRING, NULL, NULL, false},                 \
	{"dynamo." W ".args.served_model_name", ARG_STRING, NULL, NULL, false},          \
	{"dynamo." W ".args.gpu-memory-utilization", ARG_FLOAT, NULL, NULL, false},      \
	{"dynamo." W ".args.gpu_memory_utilization", ARG_FLOAT, NULL, NULL, false},      \
	{"dynamo." W ".args.pipeline-parallel-size", ARG_INT, "1", NULL, false},         \
	{"dynamo." W ".args.pipeline_parallel_size", ARG_INT, NULL, NULL, false},        \
	{"dynamo." W ".args.tensor-parallel-size", ARG_INT, "1", NULL, false},           \
	{"dynamo." W ".args.tensor_parallel_size", ARG_INT, NULL, NULL, false},          \
	{"dynamo." W ".args.data-parallel-size", ARG_INT, NULL, NULL, false},            \
	{"dynamo." W ".args.data_parallel_size", ARG_INT, NULL, NULL, false},             \
	{"dynamo." W ".args.*", ARG_ANY, NULL, NULL, false}

/* A Workload (genai_perf, aiperf): its declared fields, its free-form args
 * and, as Pydantic allows, keys of its own. */
#define BENCH(B, CMD, REPORT)                                                            \
	{B ".name", ARG_STRING, B, NULL, false},                                        \
	{B ".cmd", ARG_STRING, CMD, NULL, false},                                        \
	{B ".report-name", ARG_STRING, REPORT, NULL, false},                             \
	{B ".report_name", ARG_STRING, NULL, NULL, false},                               \
	{B ".extra-args", ARG_STRING, NULL, NULL, false},                                \
	{B ".extra_args", ARG_STRING, NULL, NULL, false},                                \
	{B ".args.*", ARG_ANY, NULL, NULL, false}

/* AIDynamoCmdArgs flattened; each field with a dashed alias also takes
 * its underscored name (listed without a default: the dashed entry has it). */
static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"startup_cmd", ARG_STRING, NULL, NULL, false},
	{"startup_cmd_docker_image", ARG_STRING, NULL, NULL, false},
	{"storage_cache_dir", ARG_STRING, "/tmp", NULL, false},
	{"workloads", ARG_STRING, "genai_perf.sh", workload_sets, false},
	{"hicache.*", ARG_ANY, NULL, NULL, false},
	{"lmcache.*", ARG_ANY, NULL, NULL, false},
	{"lmcache_controller.cmd", ARG_STRING, NULL, NULL, false},
	{"dynamo.model", ARG_STRING, "Qwen/Qwen3-0.6B", NULL, false},
	{"dynamo.backend", ARG_STRING, "vllm", backends, false},
	{"dynamo.endpoint", ARG_STRING, "v1/chat/completions", NULL, false},
	{"dynamo.connector", ARG_STRING, NULL, NULL, false},
	{"dynamo.workspace-path", ARG_STRING, "/workspace", NULL, false},
	{"dynamo.workspace_path", ARG_STRING, NULL, NULL, false},
	{"dynamo.ingress-cmd", ARG_STRING, "python -m dynamo.frontend --router-mode kv", NULL, false},
	{"dynamo.ingress_cmd", ARG_STRING, NULL, NULL, false},
	{"dynamo.node-setup-cmd", ARG_STRING, "/usr/local/ucx/bin/ucx_info -d |grep Transport | sort -u;", NULL, false},
	{"dynamo.node_setup_cmd", ARG_STRING, NULL, NULL, false},
	{"dynamo.port", ARG_INT, "8000", NULL, false},
	{"dynamo.etcd-cmd", ARG_STRING, "etcd --log-level info --data-dir /tmp/etcd", NULL, false},
	{"dynamo.etcd_cmd", ARG_STRING, NULL, NULL, false},
	{"dynamo.etcd-port", ARG_INT, "2379", NULL, false},
	{"dynamo.etcd_port", ARG_INT, NULL, NULL, false},
	{"dynamo.nats-cmd", ARG_STRING, "nats-server -js", NULL, false},
	{"dynamo.nats_cmd", ARG_STRING, NULL, NULL, false},
	{"dynamo.nats-port", ARG_INT, "4222", NULL, false},
	{"dynamo.nats_port", ARG_INT, NULL, NULL, false},
	{"dynamo.dcgm_exporter.enabled", ARG_BOOL, "False", NULL, false},
	{"dynamo.dcgm_exporter.docker-image-url", ARG_STRING,
	 "nvcr.io/nvidia/k8s/dcgm-exporter:4.5.2-4.8.1-distroless", NULL, false},
	{"dynamo.dcgm_exporter.docker_image_url", ARG_STRING, NULL, NULL, false},
	{"dynamo.dcgm_exporter.image-url", ARG_STRING, NULL, NULL, false},
	{"dynamo.dcgm_exporter.image_url", ARG_STRING, NULL, NULL, false},
	{"dynamo.dcgm_exporter.port", ARG_INT, "9401", NULL, false},
	WORKER("decode_worker", "python3 -m dynamo.vllm"),
	WORKER("prefill_worker", "python3 -m dynamo.vllm --is-prefill-worker"),
	BENCH("genai_perf", "genai-perf profile", NULL),
	{"genai_perf.*", ARG_ANY, NULL, NULL, false},
	BENCH("aiperf", "aiperf profile", "aiperf_report.csv"),
	{"aiperf.setup-cmd", ARG_STRING, NULL, NULL, false},
	{"aiperf.setup_cmd", ARG_STRING, NULL, NULL, false},
	{"aiperf.artifact-dir-name", ARG_STRING, "aiperf_artifacts", NULL, false},
	{"aiperf.artifact_dir_name", ARG_STRING, NULL, NULL, false},
	{"aiperf.health-check-between-phases", ARG_BOOL, "True", NULL, false},
	{"aiperf.health_check_between_phases", ARG_BOOL, NULL, NULL, false},
	{"aiperf.continue-on-phase-failure", ARG_BOOL, "False", NULL, false},
	{"aiperf.continue_on_phase_failure", ARG_BOOL, NULL, NULL, false},
	{"aiperf.between-phase-cmd", ARG_STRING, "true", NULL, false},
	{"aiperf.between_phase_cmd", ARG_STRING, NULL, NULL, false},
	{"aiperf.*", ARG_ANY, NULL, NULL, false},
	{"aiperf_phases", ARG_LIST, NULL, NULL, false},
	{"aiperf_accuracy.name", ARG_STRING, "aiperf_accuracy", NULL, false},
	{"aiperf_accuracy.entrypoint", ARG_STRING, "aiperf profile", NULL, false},
	{"aiperf_accuracy.cli", ARG_STRING, NULL, NULL, false},
	{"aiperf_accuracy.setup-cmd", ARG_STRING, NULL, NULL, false},
	{"aiperf_accuracy.setup_cmd", ARG_STRING, NULL, NULL, false},
	{"aiperf_accuracy.artifact-dir-name", ARG_STRING, "aiperf_accuracy_artifacts", NULL, false},
	{"aiperf_accuracy.artifact_dir_name", ARG_STRING, NULL, NULL, false},
};

/* The dynamo repository CloudAI pins, its wrapper and benchmark scripts
 * (kunai's own, installed beside it), the model from Hugging Face. */
static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
	{INST_GIT, "https://github.com/ai-dynamo/dynamo.git", "f7e468c7e8ff0d1426db987564e60572167e8464", NULL, NULL},
	{INST_FILE, "workloads/serve/ai_dynamo.sh", NULL, "ai_dynamo.sh", NULL},
	{INST_FILE, "workloads/serve/genai_perf.sh", NULL, "genai_perf.sh", NULL},
	{INST_FILE, "workloads/serve/aiperf.sh", NULL, "aiperf.sh", NULL},
	{INST_FILE, "workloads/serve/accuracy.sh", NULL, "accuracy.sh", NULL},
	{INST_IMAGE, "cmd_args.dynamo.dcgm_exporter.docker-image-url", NULL, NULL, NULL},
	{INST_IMAGE, "cmd_args.startup_cmd_docker_image", NULL, NULL, NULL},
};

static const char *const arg_mounts[] = {"storage_cache_dir", NULL};

static int
count(const char *v)
{
	int n = v ? atoi(v) : 0;

	return n > 0 ? n : 0;
}

/* Prefill plus decode workers' nodes, as CloudAI allocates when the case
 * asks for no count of its own. */
static int
num_nodes(const struct run *r)
{
	int n = count(serve_get(r, "dynamo.prefill_worker", "num-nodes")) +
	        count(serve_get(r, "dynamo.decode_worker", "num-nodes"));

	return n > 0 ? n : 1;
}

static const char *
dcgm_image(const struct run *r)
{
	const char *v = serve_get(r, "dynamo.dcgm_exporter", "image-url");

	if (!v || (!workload_value(r, "dynamo.dcgm_exporter.image-url") &&
	           !workload_value(r, "dynamo.dcgm_exporter.image_url")))
		v = serve_get(r, "dynamo.dcgm_exporter", "docker-image-url");
	return v;
}

static bool
uses_aiperf_script(const struct run *r)
{
	const char *w = workload_value(r, "workloads");

	return w && strstr(w, "aiperf.sh");
}

/* " --nodelist=a,b" of the run's explicit nodes, if any. */
static void
nodelist(const struct run *r, struct buf *out)
{
	size_t i;

	if (!r->nodes.len)
		return;
	buf_puts(out, " --nodelist=");
	for (i = 0; i < r->nodes.len; i++) {
		if (i)
			buf_putc(out, ',');
		sh_quote_cont(out, r->nodes.items[i]);
	}
}

/* --nodes, --ntasks: one task per node, each with its own output files. */
static void
srun_args(const struct run *r, struct buf *out)
{
	int n = r->nodes.len ? (int)r->nodes.len : r->num_nodes;

	buf_printf(out, " --nodes=%d", n);
	nodelist(r, out);
	buf_printf(out, " --ntasks=%d --ntasks-per-node=1", n);
	buf_puts(out, " --output=\"$RUN_DIR/node-%n-stdout.txt\" --error=\"$RUN_DIR/node-%n-stderr.txt\"");
}

static void
worker(const struct run *r, const char *w, const char *flag, struct buf *out)
{
	static const char *const fields[] = {
		"cmd", "worker-initialized-regex", "multiple-workers-per-node", "num-nodes", "extra-args", NULL,
	};
	static const char *const declared[] = {
		"cmd", "worker-initialized-regex", "multiple-workers-per-node", "num-nodes", "extra-args",
		"nodes", "args", NULL,
	};
	static const char *const wargs[] = {
		"model", "model-path", "served-model-name", "gpu-memory-utilization",
		"pipeline-parallel-size", "tensor-parallel-size", "data-parallel-size", NULL,
	};
	const char *model = workload_value(r, "dynamo.model"), *backend = workload_value(r, "dynamo.backend");
	const char *own[3];
	struct buf table = {0}, pre = {0}, args_t = {0};
	const char *v;
	size_t i;

	buf_printf(&table, "dynamo.%s", w);
	buf_printf(&pre, "--%s-", flag);
	serve_fields(r, buf_str(&table), buf_str(&pre), fields, out);
	serve_extras(r, buf_str(&table), buf_str(&pre), declared, out);
	/* the served model: CloudAI sets it in every worker's args */
	buf_printf(&args_t, "%s.args", buf_str(&table));
	pre.len = 0;
	buf_printf(&pre, "--%s-args-", flag);
	for (i = 0; i < 3; i++)
		own[i] = serve_get(r, buf_str(&args_t), wargs[i]);
	if (strcmp(backend, "vllm") == 0)
		own[0] = model;
	else
		own[1] = own[2] = model;
	for (i = 0; i < 3; i++)
		if (own[i]) {
			buf_printf(out, " %s%s ", buf_str(&pre), wargs[i]);
			sh_quote(out, own[i]);
		}
	serve_fields(r, buf_str(&args_t), buf_str(&pre), wargs + 3, out);
	serve_extras(r, buf_str(&args_t), buf_str(&pre), wargs, out);
	if ((v = serve_get(r, buf_str(&table), "nodes"))) {
		buf_printf(out, " --%s-node-list ", flag);
		sh_quote(out, v);
	}
	buf_free(&table);
	buf_free(&pre);
	buf_free(&args_t);
}

static void
command(const struct run *r, struct buf *out)
{
	static const char *const dyn[] = {
		"model", "backend", "endpoint", "connector", "workspace-path", "ingress-cmd",
		"node-setup-cmd", "port", "etcd-cmd", "etcd-port", "nats-cmd", "nats-port", NULL,
	};
	static const char *const dyn_declared[] = {
		"model", "backend", "endpoint", "connector", "workspace-path", "ingress-cmd",
		"node-setup-cmd", "port", "etcd-cmd", "etcd-port", "nats-cmd", "nats-port",
		"prefill_worker", "decode_worker", "dcgm_exporter", NULL,
	};
	static const char *const name_cmd[] = {"name", "cmd", NULL};
	static const char *const extra[] = {"extra-args", NULL};
	static const char *const aiperf_own[] = {
		"extra-args", "setup-cmd", "artifact-dir-name", "health-check-between-phases",
		"continue-on-phase-failure", "between-phase-cmd", NULL,
	};
	static const char *const declared[] = {
		"name", "cmd", "script", "report-name", "repo", "args", "extra-args", "setup-cmd",
		"artifact-dir-name", "health-check-between-phases", "continue-on-phase-failure",
		"between-phase-cmd", NULL,
	};
	static const char *const acc[] = {"name", "entrypoint", "cli", NULL};
	static const char *const acc2[] = {"setup-cmd", "artifact-dir-name", NULL};
	const char *v;

	buf_puts(out, "bash /cloudai_install/ai_dynamo.sh --user \"$USER\" --install-dir /cloudai_install"
	              " --results-dir /cloudai_run_results"
	              " --dynamo-repo /cloudai_install/dynamo__f7e468c7e8ff0d1426db987564e60572167e8464"
	              " --hf-home /cloudai_install/huggingface --workloads ");
	sh_quote(out, workload_value(r, "workloads"));
	buf_puts(out, " --failure-marker /cloudai_run_results/failure-marker.txt"
	              " --success-marker /cloudai_run_results/success-marker.txt");
	if ((v = workload_value(r, "storage_cache_dir")) && *v) {
		buf_puts(out, " --storage-cache-dir ");
		sh_quote(out, v);
	}
	if ((v = workload_value(r, "lmcache_controller.cmd"))) {
		buf_puts(out, " --lmcache-controller-cmd ");
		sh_quote(out, v);
	}
	serve_fields(r, "dynamo", "--dynamo-", dyn, out);
	serve_extras(r, "dynamo", "--dynamo-", dyn_declared, out);
	if (workload_true(workload_value(r, "dynamo.dcgm_exporter.enabled"))) {
		buf_puts(out, " --dynamo-dcgm-exporter-enabled True --dynamo-dcgm-exporter-port ");
		sh_quote(out, workload_value(r, "dynamo.dcgm_exporter.port"));
	}
	worker(r, "prefill_worker", "prefill", out);
	worker(r, "decode_worker", "decode", out);

	/* genai_perf (its script, a CloudAI File, as its path; its report
	 * named after it), then its extra keys and its args */
	serve_fields(r, "genai_perf", "--genai_perf-", name_cmd, out);
	buf_puts(out, " --genai_perf-script /cloudai_install/genai_perf.sh --genai_perf-report-name ");
	if ((v = serve_get(r, "genai_perf", "report-name")))
		sh_quote(out, v);
	else {
		struct buf b = {0};
		buf_printf(&b, "%s_report.csv", workload_value(r, "genai_perf.name"));
		sh_quote(out, buf_str(&b));
		buf_free(&b);
	}
	serve_fields(r, "genai_perf", "--genai_perf-", extra, out);
	serve_extras(r, "genai_perf", "--genai_perf-", declared, out);
	serve_extras(r, "genai_perf.args", "--genai_perf-args-", NULL, out);
	if (uses_aiperf_script(r)) {
		buf_puts(out, " --aiperf-name ");
		sh_quote(out, workload_value(r, "aiperf.name"));
		buf_puts(out, " --aiperf-script /cloudai_run_results/aiperf.sh");
	} else {
		serve_fields(r, "aiperf", "--aiperf-", name_cmd, out);
		buf_puts(out, " --aiperf-script /cloudai_install/aiperf.sh --aiperf-report-name ");
		sh_quote(out, serve_get(r, "aiperf", "report-name"));
		serve_fields(r, "aiperf", "--aiperf-", aiperf_own, out);
		serve_extras(r, "aiperf", "--aiperf-", declared, out);
		serve_extras(r, "aiperf.args", "--aiperf-args-", NULL, out);
	}
	if (workload_has_prefix(r, "aiperf_accuracy.")) {
		serve_fields(r, "aiperf_accuracy", "--aiperf_accuracy-", acc, out);
		buf_puts(out, " --aiperf_accuracy-script /cloudai_install/accuracy.sh");
		serve_fields(r, "aiperf_accuracy", "--aiperf_accuracy-", acc2, out);
	}
}

/* The DCGM exporter on every node (an overlapping step, stopped when the
 * run ends) and the startup command, before the main step; the aiperf
 * script the wrapper runs. */
static void
script_pre(const struct run *r, const char *srun_prefix, struct buf *out)
{
	int n = r->nodes.len ? (int)r->nodes.len : r->num_nodes;
	const char *v;
	size_t i;

	/* the caches' configs, where the workers' variables point */
	serve_conf_file(r, "hicache", false, "hicache-config.toml", out);
	serve_conf_file(r, "lmcache", true, "lmcache-config.yaml", out);
	if (workload_has_prefix(r, "lmcache."))
		buf_puts(out, "cp \"$RUN_DIR\"/lmcache-config.yaml \"$RUN_DIR\"/lmcache-config.original.yaml\n");
	if (uses_aiperf_script(r))
		serve_aiperf_script(r, workload_value(r, "dynamo.model"), workload_value(r, "dynamo.endpoint"),
		                    "\"$RUN_DIR\"", out);
	if ((v = workload_value(r, "startup_cmd")) && *v) {
		const char *img = workload_value(r, "startup_cmd_docker_image");
		struct buf c = {0};
		buf_printf(&c, "mkdir -p %s; export CLOUDAI_RUNTIME_FILE=\"%s/${SLURMD_NODENAME:-$(hostname)}.json\"; %s",
		           img ? "/cloudai_run_results/runtime" : "\"$RUN_DIR\"/runtime",
		           img ? "/cloudai_run_results/runtime" : "$RUN_DIR/runtime", v);
		/* without a container the step's shell finds the run dir in its environment */
		if (!img)
			buf_puts(out, "RUN_DIR=\"$RUN_DIR\" ");
		serve_aux_prefix(r, srun_prefix, img, out);
		buf_printf(out, " --nodes=%d", n);
		nodelist(r, out);
		buf_printf(out, " --ntasks=%d --ntasks-per-node=1"
		                " --output=\"$RUN_DIR/startup-node-%%n-stdout.txt\""
		                " --error=\"$RUN_DIR/startup-node-%%n-stderr.txt\" bash -lc ",
		           n);
		sh_quote(out, buf_str(&c));
		buf_puts(out, " || exit 1\n");
		buf_free(&c);
	}
	if (!workload_true(workload_value(r, "dynamo.dcgm_exporter.enabled")))
		return;
	v = workload_value(r, "dynamo.dcgm_exporter.port");
	buf_puts(out, "# Start DCGM exporter on each node.\necho \"Starting DCGM exporter...\"\n");
	serve_aux_prefix(r, srun_prefix, dcgm_image(r), out);
	buf_printf(out, " --overlap --job-name=cloudai-dcgm-exporter -N%d", n);
	nodelist(r, out);
	buf_printf(out, " --ntasks=%d --ntasks-per-node=1 --output=\"$RUN_DIR/dcgm-node-%%n-stdout.txt\""
	                " --error=\"$RUN_DIR/dcgm-node-%%n-stderr.txt\" bash -lc 'DCGM_EXPORTER_LISTEN=:%s dcgm-exporter' &\n",
	           n, v);
	buf_puts(out, "DCGM_EXPORTER_SRUN_PID=$!\n"
	              "echo \"DCGM exporter srun PID: ${DCGM_EXPORTER_SRUN_PID}\"\n"
	              "DCGM_EXPORTER_STEP_ID=\n"
	              "for _ in {1..10}; do\n"
	              "    DCGM_EXPORTER_STEP_ID=$(squeue --noheader --steps --job \"$SLURM_JOB_ID\" --format=\"%i %j\" | "
	              "awk '$2 == \"cloudai-dcgm-exporter\" { print $1; exit }')\n"
	              "    if [[ -n \"${DCGM_EXPORTER_STEP_ID}\" ]]; then break; fi\n"
	              "    sleep 1\n"
	              "done\n"
	              "echo \"DCGM exporter step ID: ${DCGM_EXPORTER_STEP_ID:-unknown}\"\n"
	              "function stop_dcgm_exporter()\n{\n"
	              "    if [[ -n \"${DCGM_EXPORTER_STEP_ID:-}\" ]]; then\n"
	              "        scancel --signal=TERM \"${DCGM_EXPORTER_STEP_ID}\" 2>/dev/null || true\n"
	              "    fi\n"
	              "    if [[ -n \"${DCGM_EXPORTER_SRUN_PID:-}\" ]]; then\n"
	              "        wait \"${DCGM_EXPORTER_SRUN_PID}\" 2>/dev/null || true\n"
	              "    fi\n}\n"
	              "sleep 5\n"
	              "echo \"Checking DCGM exporter metrics endpoints...\"\n"
	              "DCGM_EXPORTER_STARTUP_TIMEOUT=${DCGM_EXPORTER_STARTUP_TIMEOUT:-60}\n");
	if (r->nodes.len) {
		buf_puts(out, "dcgm_nodes=(");
		for (i = 0; i < r->nodes.len; i++) {
			if (i)
				buf_putc(out, ' ');
			sh_quote(out, r->nodes.items[i]);
		}
		buf_puts(out, ")\n");
	} else
		buf_puts(out, "mapfile -t dcgm_nodes < <(scontrol show hostnames \"$SLURM_JOB_NODELIST\")\n");
	buf_printf(out, ": > \"$RUN_DIR/dcgm_endpoints.txt\"\n"
	                "dcgm_failed=0\n"
	                "for node in \"${dcgm_nodes[@]}\"; do\n"
	                "    dcgm_url=\"http://${node}:%s/metrics\"\n"
	                "    echo \"  ${dcgm_url}\" >> \"$RUN_DIR/dcgm_endpoints.txt\"\n"
	                "    deadline=$((SECONDS + DCGM_EXPORTER_STARTUP_TIMEOUT))\n"
	                "    until curl -fsS --max-time 2 \"${dcgm_url}\" >/dev/null; do\n"
	                "        if (( SECONDS >= deadline )); then\n"
	                "            echo \"FATAL: DCGM exporter metrics endpoint is unreachable: ${dcgm_url}\" >&2\n"
	                "            dcgm_failed=1\n"
	                "            break\n"
	                "        fi\n"
	                "        sleep 2\n"
	                "    done\n"
	                "    if (( dcgm_failed != 0 )); then break; fi\n"
	                "    echo \"DCGM exporter reachable: ${dcgm_url}\"\n"
	                "done\n"
	                "if (( dcgm_failed != 0 )); then\n"
	                "    stop_dcgm_exporter\n"
	                "    exit 1\n"
	                "fi\n\n",
	           v);
}

/* CloudAI's success check: no failure marker, a success marker, each
 * benchmark's report and, with aiperf_accuracy, its results. */
static void
script_post(const struct run *r, struct buf *out)
{
	const char *w = workload_value(r, "workloads"), *v;
	struct buf b = {0};

	if (workload_true(workload_value(r, "dynamo.dcgm_exporter.enabled")))
		buf_puts(out, "# Stop DCGM exporter when test finishes\nstop_dcgm_exporter\n");
	buf_puts(out, "# kunai: CloudAI's success check on the files the run wrote\n"
	              "if [ -f \"$RUN_DIR/failure-marker.txt\" ]; then\n"
	              "    echo \"kunai: failure marker found:\"; cat \"$RUN_DIR/failure-marker.txt\"; KUNAI_RC=1\n"
	              "elif [ ! -f \"$RUN_DIR/success-marker.txt\" ]; then\n"
	              "    echo \"kunai: success marker file not found\"; KUNAI_RC=1\n"
	              "fi\n");
	if (strstr(w, "genai_perf.sh")) {
		if (!(v = serve_get(r, "genai_perf", "report-name"))) {
			buf_printf(&b, "%s_report.csv", workload_value(r, "genai_perf.name"));
			v = buf_str(&b);
		}
		buf_puts(out, "[ -f \"$RUN_DIR\"/");
		sh_quote_cont(out, v);
		buf_puts(out, " ] || { echo \"kunai: genai_perf report not found\"; KUNAI_RC=1; }\n");
	}
	if (strstr(w, "aiperf.sh")) {
		buf_puts(out, "[ -f \"$RUN_DIR\"/");
		sh_quote_cont(out, serve_get(r, "aiperf", "report-name"));
		buf_puts(out, " ] || { echo \"kunai: aiperf report not found\"; KUNAI_RC=1; }\n");
	}
	if (workload_has_prefix(r, "aiperf_accuracy."))
		buf_puts(out, "[ -s \"$RUN_DIR/accuracy_results.csv\" ] || "
		              "[ -s \"$RUN_DIR/aiperf_accuracy_artifacts/accuracy_results.csv\" ] || "
		              "[ -s \"$RUN_DIR/aiperf_artifacts/accuracy_results.csv\" ] || "
		              "{ echo \"kunai: aiperf accuracy results not found\"; KUNAI_RC=1; }\n");
	buf_free(&b);
}

/* LMCache's and HiCache's config files, as the job's workers read them. */
static size_t
env(struct arena *a, const struct run *r, struct wl_env *out, size_t max)
{
	size_t n = 0;

	if (workload_has_prefix(r, "hicache.") && n < max)
		out[n++] = (struct wl_env){"HICACHE_CONFIG_FILE", "/cloudai_run_results/hicache-config.toml", false};
	if (workload_has_prefix(r, "lmcache.") && n < max)
		out[n++] = (struct wl_env){"LMCACHE_CONFIG_FILE", "/cloudai_run_results/lmcache-config.yaml", false};
	return n;
}

static bool
validate(const struct argset *args, struct buf *msg, const struct toml_value **where)
{
	static const char *const conns[] = {"kvbm", "lmcache", "nixl", "none"};
	const struct toml_value *v = serve_arg(args, "dynamo.connector");
	size_t i, j, n;

	if (!serve_check_phases(args, msg, where))
		return false;
	/* the connector: words (a string or a list of them) of CloudAI's four */
	for (i = 0; v && i < (v->type == TOML_ARRAY ? v->u.array->len : 1); i++) {
		const struct toml_value *e = v->type == TOML_ARRAY ? v->u.array->items[i] : v;
		const char *s = e->type == TOML_STRING ? e->u.str.s : "";
		while (*s) {
			n = strcspn(s, " ");
			for (j = 0; j < LEN(conns) && (strlen(conns[j]) != n || strncmp(s, conns[j], n)); j++)
				;
			if (j == LEN(conns) && n) {
				*where = e;
				buf_printf(msg, "invalid connector '%.*s' (kvbm, lmcache, nixl or none)", (int)n, s);
				return false;
			}
			s += n + (s[n] == ' ');
		}
	}
	if (serve_has(args, "lmcache_controller.") && !serve_arg(args, "lmcache_controller.cmd")) {
		buf_puts(msg, "[cmd_args.lmcache_controller] needs 'cmd'");
		return false;
	}
	if (serve_has(args, "aiperf_accuracy.") && !serve_arg(args, "aiperf_accuracy.cli")) {
		buf_puts(msg, "[cmd_args.aiperf_accuracy] needs 'cli'");
		return false;
	}
	return true;
}

/* the system's hf_home_path, where CloudAI's serving workloads read it */
static const char *const install_mounts[] = {"@hf_home:/cloudai_install/huggingface", NULL};

const struct workload wl_ai_dynamo = {
	.validate = validate,
	.name = "AIDynamo",
	.args = args,
	.n_args = LEN(args),
	.schedulers = WL_SLURM | WL_KUBERNETES,
	.container = true,
	.command = command,
	.srun_args = srun_args,
	.grader = "serve",
	.installables = installables,
	.n_installables = LEN(installables),
	.env = env,
	.install_mounts = install_mounts,
	.arg_mounts = arg_mounts,
	.num_nodes = num_nodes,
	.script_pre = script_pre,
	.script_post = script_post,
};
