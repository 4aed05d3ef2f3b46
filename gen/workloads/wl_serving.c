/* wl_serving.c: the batch script CloudAI's LLM serving workloads write
 * (llm_serving.py: aggregated on one node or several, disaggregated prefill
 * and decode with a router), in CloudAI's line order so the two can be
 * compared line by line; vLLM and SGLang fill in their commands
 * (wl_vllm.c, wl_sglang.c). Unlike CloudAI's, every value from TOML is
 * quoted for the shell, paths are under $RUN_DIR, the lines run in a
 * subshell (kunai's own EXIT trap stays), and the last line is CloudAI's
 * success check, so the run's status says whether the benchmark ran. */
#include <string.h>

#include "wl_serving.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

void
serving_role_prefix(const struct serving *s, const char *expr, int nodes, int tasks, struct buf *out)
{
	buf_printf(out, "%s --overlap --nodelist=\"%s\" --nodes=%d --ntasks=%d --ntasks-per-node=1", s->prefix, expr,
	           nodes, tasks);
}

void
serving_step_discovery(const struct serving *s, const char *role, const char *var, int count, struct buf *out)
{
	buf_printf(out,
	           "%s=\n"
	           "for _ in {1..10}; do\n"
	           "    %s=$(squeue --noheader --steps --job \"$SLURM_JOB_ID\" --format=\"%%i %%j\" 2>/dev/null "
	           "| awk '$2 == \"cloudai-%s-%s\" { print $1 }')\n"
	           "    CLOUDAI_STEP_COUNT=$(printf '%%s\\n' \"${%s}\" | wc -w | tr -d ' ')\n"
	           "    if [ \"$CLOUDAI_STEP_COUNT\" -ge %d ]; then break; fi\n"
	           "    sleep 1\n"
	           "done\n"
	           "echo \"Slurm step IDs for %s: ${%s:-unknown}\"\n",
	           var, var, s->ops->slug, role, var, count, role, var);
}

static void
signal_block(struct buf *out, const char *ind, const char *pid, const char *step, const char *sig)
{
	buf_printf(out,
	           "%s    if [ -n \"${%s:-}\" ]; then\n"
	           "%s        for step_id in ${%s}; do\n"
	           "%s            scancel --signal=%s \"$step_id\" 2>/dev/null || true\n"
	           "%s        done\n"
	           "%s    elif [ -n \"${%s:-}\" ]; then\n"
	           "%s        kill -%s \"${%s}\" 2>/dev/null || true\n"
	           "%s    fi\n",
	           ind, step, ind, step, ind, sig, ind, ind, pid, ind, strcmp(sig, "KILL") ? "TERM" : "KILL", pid,
	           ind);
}

/* CloudAI's generate_cleanup_function; its guard variable is named after
 * the test id and iteration as CloudAI's is after the run's name. */
static void
cleanup_fn(const struct serving *s, struct buf *out)
{
	const char *pids[9] = {0}, *steps[9] = {0};
	struct buf guard = {0};
	size_t i;
	const char *p;
	bool sep = true;

	s->ops->cleanup_vars(s, pids, steps);
	buf_puts(&guard, "CLOUDAI_");
	for (p = s->r->tc->id;; p++) {
		bool w = *p && ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		                *p == '_');
		if (!*p)
			break;
		if (w) {
			buf_putc(&guard, *p >= 'a' && *p <= 'z' ? (char)(*p - 32) : *p);
			sep = false;
		} else if (!sep) {
			buf_putc(&guard, '_');
			sep = true;
		}
	}
	buf_printf(&guard, "%s%d_CLEANUP_DONE", sep ? "" : "_", s->r->iteration);
	buf_printf(out,
	           "cleanup() {\n"
	           "    if [ \"${%s:-0}\" = \"1\" ]; then\n"
	           "        return 0\n"
	           "    fi\n"
	           "    %s=1\n"
	           "    cleanup_status=0\n",
	           guard.data, guard.data);
	if (s->ops->cleanup_prelude)
		s->ops->cleanup_prelude(s, out);
	buf_puts(out, "    echo \"Cleaning up PIDs:");
	for (i = 0; pids[i]; i++)
		buf_printf(out, " %s=$%s", pids[i], pids[i]);
	buf_puts(out, "\"\n    echo \"Cleaning up Slurm step IDs:");
	for (i = 0; steps[i]; i++)
		buf_printf(out, " %s=$%s", steps[i], steps[i]);
	buf_puts(out, "\"\n\n");
	for (i = 0; pids[i]; i++)
		signal_block(out, "", pids[i], steps[i], "TERM");
	buf_putc(out, '\n');
	for (i = 0; pids[i]; i++) {
		buf_printf(out,
		           "    if [ -n \"${%s:-}\" ]; then\n"
		           "        i=0\n"
		           "        while kill -0 \"${%s}\" 2>/dev/null; do\n"
		           "            if [ \"$i\" -ge 60 ]; then\n"
		           "                echo \"PID ${%s} did not exit in time\"\n"
		           "                cleanup_status=1\n",
		           pids[i], pids[i], pids[i]);
		signal_block(out, "            ", pids[i], steps[i], "KILL");
		buf_puts(out, "                break\n"
		              "            fi\n"
		              "            sleep 1\n"
		              "            i=$((i+1))\n"
		              "        done\n"
		              "    fi\n");
	}
	buf_puts(out, "    return \"$cleanup_status\"\n}\ntrap cleanup EXIT\n\n");
	buf_free(&guard);
}

static void
health_fn(const struct serving *s, struct buf *out)
{
	buf_printf(out,
	           "wait_for_health() {\n"
	           "    local endpoint=\"$1\"\n"
	           "    local timeout=%s\n"
	           "    local interval=5\n"
	           "    local end_time=$(($(date +%%s) + timeout))\n"
	           "\n"
	           "    while [ \"$(date +%%s)\" -lt \"$end_time\" ]; do\n"
	           "        if curl -sf \"$endpoint\" > /dev/null 2>&1; then\n"
	           "            echo \"Health check passed: $endpoint\"\n"
	           "            return 0\n"
	           "        fi\n"
	           "        sleep \"$interval\"\n"
	           "    done\n"
	           "\n"
	           "    echo \"Timeout waiting for: $endpoint\"\n"
	           "    return 1\n"
	           "}\n\n",
	           workload_value(s->r, "serve_wait_seconds"));
}

/* wait_for_health "http://HOST:PORT PATH" || exit 1, PATH from TOML. */
static void
wait_line(struct buf *out, const char *host, long port, const char *path)
{
	buf_printf(out, "wait_for_health \"http://%s:%ld", host, port);
	sh_dquote_body(out, path);
	buf_puts(out, "\" || exit 1\n");
}

static const char *
serve_health(const struct serving *s, enum serving_role role)
{
	const char *h = serving_arg(s, "serve_healthcheck");

	if (h && *h)
		return h;
	return role == ROLE_SERVE ? serving_arg(s, "healthcheck") : "/health";
}

/* The serve command of role with its environment ("env K=\"V\" ..."). */
static void
serve_cmd(const struct serving *s, enum serving_role role, struct buf *out)
{
	if (role != ROLE_SERVE) {
		buf_printf(out, "env CUDA_VISIBLE_DEVICES=\"%s\"",
		           buf_str((struct buf *)(role == ROLE_PREFILL ? &s->prefill_gpus : &s->decode_gpus)));
		if (s->ops->role_env)
			s->ops->role_env(s, role, out);
		buf_putc(out, ' ');
	} else if (s->ops->serve_env_gpus)
		buf_printf(out, "env CUDA_VISIBLE_DEVICES=\"%s\" ", buf_str((struct buf *)&s->gpus));
	s->ops->serve(s, role, out);
}

/* A role on one node (CloudAI's render_serve_launch). */
static void
launch_one(const struct serving *s, enum serving_role role, const char *node_var, const char *cmd,
           struct buf *out)
{
	const char *rn = serving_role_name(role);
	struct buf expr = {0}, var = {0};
	size_t i;

	buf_printf(&expr, "${%s}", node_var);
	serving_role_prefix(s, expr.data, 1, 1, out);
	buf_printf(out, " --job-name=cloudai-%s-%s \\\n    --output=\"$RUN_DIR/%s-%s.log\" \\\n    ", s->ops->slug, rn,
	           s->ops->slug, rn);
	serving_custom(s, cmd, out);
	buf_puts(&var, rn);
	for (i = 0; i < var.len; i++)
		var.data[i] = (char)(var.data[i] - 32);
	buf_printf(out, " &\n%s_PID=$!\n", var.data);
	buf_puts(&var, "_STEP_IDS");
	serving_step_discovery(s, rn, var.data, 1, out);
	buf_free(&expr);
	buf_free(&var);
}

static void
launch(const struct serving *s, enum serving_role role, struct buf *out)
{
	struct buf cmd = {0};

	serve_cmd(s, role, &cmd);
	if (serving_role_nodes(s, role) > 1)
		s->ops->launch_multi(s, role, cmd.data, out);
	else
		launch_one(s, role, role == ROLE_PREFILL ? "PREFILL_NODE" : role == ROLE_DECODE ? "DECODE_NODE" : "SERVE_NODE",
		           cmd.data, out);
	buf_free(&cmd);
}

/* The entrypoint and cli of semantic_eval_cmd_args, each word quoted, the
 * placeholders {model} {host} {port} {url} {output_path} {result_dir}
 * replaced ({output_path} is $RUN_DIR, live). */
static void
semantic_words(const struct serving *s, const char *text, struct buf *out)
{
	struct arena a = {0};
	char **w;
	int n, i;
	struct buf host = {0}, word = {0};
	const char *bh = serving_arg(s, "bench_host");

	if (s->ops->semantic_http && !(bh && *bh && (!strncmp(bh, "http://", 7) || !strncmp(bh, "https://", 8))))
		buf_puts(&host, "http://");
	if (bh && *bh)
		sh_dquote_body(&host, bh);
	else
		buf_puts(&host, s->disagg ? "${PREFILL_NODE}" : "${NODE}");
	n = sh_split(&a, text, &w);
	for (i = 0; i < n; i++) {
		const char *p = w[i];
		bool vars = false;
		word.len = 0;
		while (*p) {
			static const char *const ph[] = {"{model}", "{host}", "{port}", "{url}", "{output_path}",
			                                 "{result_dir}"};
			size_t k, m = 0;
			for (k = 0; k < LEN(ph); k++)
				if (!strncmp(p, ph[k], strlen(ph[k])))
					break;
			if (k == LEN(ph)) {
				char c[2] = {*p++, 0};
				sh_dquote_body(&word, c);
				continue;
			}
			m = strlen(ph[k]);
			vars = true;
			if (k == 0)
				sh_dquote_body(&word, serving_arg(s, "model"));
			else if (k == 1 || k == 3) {
				buf_puts(&word, buf_str(&host));
				if (k == 3)
					buf_printf(&word, ":%ld", s->port);
			} else if (k == 2)
				buf_printf(&word, "%ld", s->port);
			else {
				buf_puts(&word, "$RUN_DIR");
			}
			p += m;
		}
		buf_putc(out, ' ');
		if (vars)
			buf_printf(out, "\"%s\"", buf_str(&word));
		else
			sh_quote(out, w[i]); /* no placeholder: the word as it is */
	}
	if (n < 0)
		buf_puts(out, " false"); /* an unterminated quote: the check fails visibly */
	buf_free(&host);
	buf_free(&word);
	arena_free(&a);
}

static void
semantic_block(const struct serving *s, const char *prefix, struct buf *out)
{
	struct buf cmd = {0};
	const char *v;

	if (!serving_has(s->r, "semantic_eval_cmd_args"))
		return;
	semantic_words(s, workload_value(s->r, "semantic_eval_cmd_args.entrypoint"), &cmd);
	v = workload_value(s->r, "semantic_eval_cmd_args.cli");
	if (v && *v)
		semantic_words(s, v, &cmd);
	buf_printf(out, "\n\necho \"Running semantic validation...\"\n%s \\\n    --output=\"$RUN_DIR/%s-semantic-eval.log\" \\\n    ",
	           prefix, s->ops->slug);
	serving_custom(s, cmd.data + 1, out);
	buf_putc(out, '\n');
	buf_free(&cmd);
}

static void
bench_block(const struct serving *s, const char *prefix, struct buf *out)
{
	struct buf cmd = {0};

	s->ops->bench(s, &cmd);
	buf_printf(out, "echo \"Running benchmark...\"\n%s \\\n    --output=\"$RUN_DIR/%s-bench.log\" \\\n    ", prefix,
	           s->ops->slug);
	serving_custom(s, cmd.data, out);
	buf_putc(out, '\n');
	semantic_block(s, prefix, out);
	buf_free(&cmd);
}

static void
aggregated(const struct serving *s, struct buf *out)
{
	struct buf pre = {0};

	if (s->nodes > 1) {
		buf_printf(out,
		           "NODES=( $(scontrol show hostname $SLURM_JOB_NODELIST) )\n"
		           "SERVE_NODES=( \"${NODES[@]:0:%d}\" )\n"
		           "if [ \"${#SERVE_NODES[@]}\" -ne %d ]; then\n"
		           "    echo \"Expected %d allocated nodes for %s, got: ${NODES[*]}\"\n"
		           "    exit 1\n"
		           "fi\n"
		           "export SERVE_NODE=${SERVE_NODES[0]}\n"
		           "export NODE=$SERVE_NODE\n"
		           "SERVE_NODELIST=$(IFS=,; echo \"${SERVE_NODES[*]}\")\n"
		           "echo \"Node roles: serve=${SERVE_NODES[*]}\"\n\n",
		           s->nodes, s->nodes, s->nodes, s->ops->name);
		buf_printf(out, "echo \"Starting %s instances...\"\n", s->ops->name);
		launch(s, ROLE_SERVE, out);
		serving_role_prefix(s, "${SERVE_NODE}", 1, 1, &pre);
		buf_printf(out, "\n\necho \"Waiting for %s on $NODE to be ready...\"\n", s->ops->name);
	} else {
		struct buf cmd = {0};
		buf_printf(&pre, "%s --overlap --ntasks-per-node=1 --ntasks=1", s->prefix_n);
		buf_printf(out, "echo \"Starting %s instances...\"\n%s --job-name=cloudai-%s-serve \\\n"
		                "    --output=\"$RUN_DIR/%s-serve.log\" \\\n    ",
		           s->ops->name, pre.data, s->ops->slug, s->ops->slug);
		serve_cmd(s, ROLE_SERVE, &cmd);
		serving_custom(s, cmd.data, out);
		buf_puts(out, " &\nSERVE_PID=$!\n");
		serving_step_discovery(s, "serve", "SERVE_STEP_IDS", 1, out);
		buf_printf(out, "\n\nNODE=$(scontrol show hostname $SLURM_JOB_NODELIST | head -n 1)\n"
		                "echo \"Waiting for %s on $NODE to be ready...\"\n",
		           s->ops->name);
		buf_free(&cmd);
	}
	wait_line(out, "${NODE}", s->port, serve_health(s, ROLE_SERVE));
	buf_putc(out, '\n');
	bench_block(s, pre.data, out);
	buf_free(&pre);
}

static void
disaggregated(const struct serving *s, struct buf *out)
{
	struct buf pre = {0}, cmd = {0};
	int p = s->prefill_nodes, d = s->decode_nodes;

	buf_printf(out,
	           "NODES=( $(scontrol show hostname $SLURM_JOB_NODELIST) )\n"
	           "PREFILL_NODES=( \"${NODES[@]:0:%d}\" )\n"
	           "DECODE_NODES=( \"${NODES[@]:%d:%d}\" )\n"
	           "if [ \"${#PREFILL_NODES[@]}\" -ne %d ] || [ \"${#DECODE_NODES[@]}\" -ne %d ]; then\n"
	           "    echo \"Expected %d prefill and %d decode nodes for disaggregated %s, got: ${NODES[*]}\"\n"
	           "    exit 1\n"
	           "fi\n"
	           "export PREFILL_NODE=${PREFILL_NODES[0]}\n"
	           "export DECODE_NODE=${DECODE_NODES[0]}\n"
	           "PREFILL_NODELIST=$(IFS=,; echo \"${PREFILL_NODES[*]}\")\n"
	           "DECODE_NODELIST=$(IFS=,; echo \"${DECODE_NODES[*]}\")\n"
	           "if [ -z \"$PREFILL_NODE\" ] || [ -z \"$DECODE_NODE\" ]; then\n"
	           "    echo \"Failed to resolve allocated nodes for disaggregated %s\"\n"
	           "    exit 1\n"
	           "fi\n"
	           "echo \"Node roles: prefill=${PREFILL_NODES[*]} decode=${DECODE_NODES[*]}\"\n\n",
	           p, s->nodes == 1 && p == 1 && d == 1 ? 0 : p, d, p, d, p, d, s->ops->name, s->ops->name);
	buf_printf(out, "echo \"Starting %s instances...\"\n", s->ops->name);
	launch(s, ROLE_PREFILL, out);
	buf_puts(out, "\n\n");
	launch(s, ROLE_DECODE, out);
	buf_printf(out, "\n\necho \"Waiting for %s on $PREFILL_NODE and $DECODE_NODE to be ready...\"\n", s->ops->name);
	wait_line(out, "${PREFILL_NODE}", s->port + 100, serve_health(s, ROLE_PREFILL));
	wait_line(out, "${DECODE_NODE}", s->port + 200, serve_health(s, ROLE_DECODE));
	serving_role_prefix(s, "${PREFILL_NODE}", 1, 1, &pre);
	buf_printf(out, "\necho \"Starting router...\"\n%s --job-name=cloudai-%s-helper \\\n"
	                "    --output=\"$RUN_DIR/%s-router.log\" \\\n    ",
	           pre.data, s->ops->slug, s->ops->slug);
	s->ops->helper(s, &cmd);
	serving_custom(s, cmd.data, out);
	buf_puts(out, " &\nHELPER_PID=$!\n");
	serving_step_discovery(s, "helper", "HELPER_STEP_IDS", 1, out);
	buf_printf(out, "\n\necho \"Waiting for %s on $PREFILL_NODE server to be ready...\"\n", s->ops->name);
	wait_line(out, "${PREFILL_NODE}", s->port, s->ops->helper_health(s));
	buf_putc(out, '\n');
	bench_block(s, pre.data, out);
	buf_free(&pre);
	buf_free(&cmd);
}

const char *const serving_mounts[2] = {"@hf_home:/root/.cache/huggingface", NULL};

void
serving_body(const struct run *r, const char *prefix_n, const char *prefix, struct buf *out)
{
	const struct serving_ops *ops = r->def->wl->family;
	struct serving s;
	struct buf why = {0};

	if (!serving_init(&s, ops, r, &why)) {
		/* gen refused it already (serving_check); never reached */
		buf_puts(out, "false");
		serving_free(&s);
		buf_free(&why);
		return;
	}
	s.prefix_n = prefix_n;
	s.prefix = prefix;
	buf_puts(out, "# kunai: CloudAI's lines run in a subshell, so that its EXIT trap (the\n"
	              "# servers' cleanup) leaves kunai's own; the last line is the success check.\n(\n"
	              "trap 'exit 143' TERM\n");
	cleanup_fn(&s, out);
	health_fn(&s, out);
	if (ops->preamble)
		ops->preamble(&s, out);
	if (s.disagg)
		disaggregated(&s, out);
	else
		aggregated(&s, out);
	buf_puts(out, "\ncleanup\n)\n");
	ops->check(&s, out);
	serving_free(&s);
	buf_free(&why);
}
