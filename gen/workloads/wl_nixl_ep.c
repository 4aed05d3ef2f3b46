/* wl_nixl_ep.c: NixlEP, NIXL's elastic expert-parallel benchmark
 * (elastic.py) as CloudAI's strategy runs it. The plan (JSON phases of
 * ranks; a negative rank leaves) is written to nixl-ep-plan.json; the ranks
 * each phase adds are packed onto the nodes, num_processes_per_node at most
 * per node, and launched when the phase before has ended ("-> end phase
 * N" in the first node's log), one srun per node and phase, by a launcher
 * script (nixl-ep-launch.sh). kunai's batch script writes both files when
 * the job starts (CloudAI writes them when it generates) and passes the
 * launcher the variables its srun lines use. Graded from the node logs
 * (grade/comm.c). */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

/* NixlEPCmdArgs, field for field; the rest are elastic.py's flags */
static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"elastic_script", ARG_STRING, "/workspace/nixl/examples/device/ep/tests/elastic/elastic.py", NULL, false},
	{"python_executable", ARG_STRING, "python3", NULL, false},
	{"plan", ARG_STRING, NULL, NULL, true},
	{"num_processes_per_node", ARG_INT, NULL, NULL, true},
	{"service_startup_timeout_seconds", ARG_INT, "60", NULL, false},
	{"store_port", ARG_INT, "9999", NULL, false},
};

/* bounds that keep the placement quick (it compares ranks pairwise) */
enum { EP_MAX_NODES = 4096, EP_MAX_RANKS = 16384 };

/* The plan's phases, ranks as given. */
struct ep_plan {
	long *rank;    /* all phases' ranks, one after the other */
	size_t *start; /* phase i: rank[start[i] .. start[i + 1]) */
	size_t n;      /* phases */
};

/* One srun: n workers on node (from 0). */
struct ep_launch {
	int node, n;
	bool tcp, append;
};

struct ep_stage {
	size_t phase;
	struct ep_launch *l;
	size_t n;
};

static void
plan_free(struct ep_plan *p)
{
	free(p->rank);
	free(p->start);
	memset(p, 0, sizeof(*p));
}

/* Whether s is one JSON value, as json.loads reads it. */
static bool
json_valid(const char *s)
{
	cJSON *v = cJSON_ParseWithOpts(s, NULL, 1);

	cJSON_Delete(v);
	return v != NULL;
}

static const char *
ws(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	return s;
}

/* Parses plan text s as CloudAI's validator does (json.loads, then a
 * non-empty list of non-empty lists of integers); on failure returns false
 * with CloudAI's message in why. */
static bool
plan_parse(const char *s, struct ep_plan *p, struct buf *why)
{
	size_t cap = 0, ncap = 0, nr = 0;
	const char *q;
	char *end;

	memset(p, 0, sizeof(*p));
	q = ws(s);
	if (!*q) {
		buf_puts(why, "plan must not be empty.");
		return false;
	}
	/* JSON's own grammar first: cJSON's word on validity */
	if (!json_valid(s)) {
		buf_puts(why, "plan must be valid JSON");
		return false;
	}
	if (*q != '[' || *ws(q + 1) == ']') {
		buf_puts(why, "plan must decode to a non-empty list of phases.");
		return false;
	}
	q = ws(q + 1);
	for (;;) {
		if (*q != '[' || *ws(q + 1) == ']') {
			buf_puts(why, "Each plan phase must be a non-empty list of ranks.");
			goto fail;
		}
		p->start = xreserve(p->start, p->n + 2, &ncap, sizeof(*p->start));
		p->start[p->n++] = nr;
		q = ws(q + 1);
		for (;;) {
			long v;
			if (*q != '-' && (*q < '0' || *q > '9')) {
				buf_puts(why, "Each plan rank must be an integer.");
				goto fail;
			}
			v = strtol(q, &end, 10);
			if (*end == '.' || *end == 'e' || *end == 'E') {
				buf_puts(why, "Each plan rank must be an integer.");
				goto fail;
			}
			if (v > 1000000000L || v < -1000000000L) {
				buf_puts(why, "a plan rank must lie within -1e9..1e9 (kunai's bound)");
				goto fail;
			}
			if (nr == EP_MAX_RANKS) {
				buf_printf(why, "a plan holds at most %d ranks in all (kunai's bound)", EP_MAX_RANKS);
				goto fail;
			}
			p->rank = xreserve(p->rank, nr + 1, &cap, sizeof(*p->rank));
			p->rank[nr++] = v;
			q = ws(end);
			if (*q == ']')
				break;
			q = ws(q + 1); /* ',' */
		}
		q = ws(q + 1);
		if (*q == ']')
			break;
		q = ws(q + 1); /* ',' */
	}
	p->start[p->n] = nr;
	return true;
fail:
	plan_free(p);
	return false;
}

static int
nodes_of(const struct run *r)
{
	return r->nodes.len ? (int)r->nodes.len : r->num_nodes;
}

static bool
in_phase(const struct ep_plan *p, size_t i, long v)
{
	size_t k;

	for (k = p->start[i]; k < p->start[i + 1]; k++)
		if (p->rank[k] == v)
			return true;
	return false;
}

/* The ranks phase i adds: its non-negative ranks (once each) that phase
 * i - 1 lacks. */
static long
added(const struct ep_plan *p, size_t i)
{
	size_t k, j;
	long n = 0;

	for (k = p->start[i]; k < p->start[i + 1]; k++) {
		long v = p->rank[k];
		bool dup = false;
		for (j = p->start[i]; j < k; j++)
			dup |= p->rank[j] == v;
		if (v >= 0 && !dup && !(i > 0 && in_phase(p, i - 1, v)))
			n++;
	}
	return n;
}

static bool
removes(const struct ep_plan *p)
{
	size_t k;

	for (k = 0; k < p->start[p->n]; k++)
		if (p->rank[k] < 0)
			return true;
	return false;
}

/* CloudAI's placement: each phase's new workers fill the nodes in order,
 * num_processes_per_node per node over the whole plan. Stages without
 * launches are left out. False with why when they do not fit. */
static bool
stages_of(const struct run *r, const struct ep_plan *p, struct ep_stage **out, size_t *n_out, struct buf *why)
{
	int nodes = nodes_of(r), i;
	long per = strtol(workload_value(r, "num_processes_per_node"), NULL, 10), total = 0, *cap;
	struct ep_stage *st;
	size_t ph, n = 0;

	*out = NULL;
	*n_out = 0;
	for (ph = 0; ph < p->n; ph++)
		total += added(p, ph);
	if (nodes < 1 || nodes > EP_MAX_NODES) {
		buf_printf(why, "NIXL EP runs on 1 to %d nodes, not %d", EP_MAX_NODES, nodes);
		return false;
	}
	if (nodes == 1 && per != total) {
		buf_printf(why, "For single-node NIXL EP runs, num_processes_per_node must match the plan-derived "
		                "total launched workers (%ld), got %ld.", total, per);
		return false;
	}
	if (nodes > 1 && per < total && total > per * nodes) {
		buf_printf(why, "For multi-node NIXL EP runs, num_processes_per_node defines the maximum number of "
		                "workers each node can launch across all plan phases. The plan requires %ld total "
		                "workers, but %d nodes with capacity %ld only provide %ld.", total, nodes, per, per * nodes);
		return false;
	}
	cap = xmalloc((size_t)nodes * sizeof(*cap));
	for (i = 0; i < nodes; i++)
		cap[i] = per;
	st = xcalloc(p->n, sizeof(*st));
	for (ph = 0; ph < p->n; ph++) {
		long left = added(p, ph);
		if (!left)
			continue;
		st[n].phase = ph;
		st[n].l = xcalloc((size_t)nodes, sizeof(*st[n].l));
		for (i = 0; i < nodes && left; i++) {
			long k = cap[i] < left ? cap[i] : left;
			if (!k)
				continue;
			cap[i] -= k;
			left -= k;
			st[n].l[st[n].n++] = (struct ep_launch){i, (int)k, ph > 0 || i != 0, ph > 0};
		}
		n++;
	}
	free(cap);
	*out = st;
	*n_out = n;
	if (!n)
		buf_puts(why, "NIXL EP plan does not launch any non-negative ranks.");
	return n > 0;
}

static void
stages_free(struct ep_stage *st, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(st[i].l);
	free(st);
}

static int
cmp_kv(const void *a, const void *b)
{
	return strcmp((*(const struct kv *const *)a)->key, (*(const struct kv *const *)b)->key);
}

/* elastic.py's command line for launch l (NULL: the first node's, all of
 * num_processes_per_node); $RUN_DIR_Q and $master_ip stay live, the rest is
 * one text for the double quotes of bash -c "...". */
static void
bench(const struct run *r, const struct ep_launch *l, struct buf *out)
{
	struct buf b = {0}, rest = {0};
	const struct kv **extra = xcalloc(r->args.len + 1, sizeof(*extra));
	size_t i, n = 0;
	char *dash;

	sh_quote(&b, workload_value(r, "python_executable"));
	buf_putc(&b, ' ');
	sh_quote(&b, workload_value(r, "elastic_script"));
	buf_puts(&b, " --plan ");
	sh_dquote_body(out, buf_str(&b));
	buf_puts(out, "$RUN_DIR_Q/nixl-ep-plan.json");
	buf_printf(out, " --num-processes %s", l ? "" : workload_value(r, "num_processes_per_node"));
	if (l)
		buf_printf(out, "%d", l->n);
	if (l && l->tcp)
		buf_puts(out, " --tcp-server $master_ip");
	/* the other cmd_args, sorted by key: --key-with-dashes value; a true
	 * boolean is the bare flag, a false one is left out */
	for (i = 0; i < r->args.len; i++)
		if (!workload_arg(r->def->wl, r->args.items[i].key))
			extra[n++] = &r->args.items[i];
	qsort(extra, n, sizeof(*extra), cmp_kv);
	for (i = 0; i < n; i++) {
		bool flag = workload_is_bool(r, extra[i]->key);
		if (flag && !workload_true(extra[i]->value))
			continue;
		buf_puts(&rest, " --");
		dash = xstrdup(extra[i]->key);
		for (char *c = dash; *c; c++)
			if (*c == '_')
				*c = '-';
		sh_quote_cont(&rest, dash);
		free(dash);
		if (!flag) {
			buf_putc(&rest, ' ');
			sh_quote(&rest, extra[i]->value);
		}
	}
	workload_extra_args(r, ' ', &rest);
	sh_dquote_body(out, buf_str(&rest));
	buf_free(&b);
	buf_free(&rest);
	free(extra);
}

static void
command(const struct run *r, struct buf *out)
{
	bench(r, NULL, out);
}

/* json.dumps(plan, indent=2) and a newline. */
static void
plan_json(const struct ep_plan *p, struct buf *out)
{
	size_t i, k;

	buf_puts(out, "[\n");
	for (i = 0; i < p->n; i++) {
		buf_puts(out, "  [\n");
		for (k = p->start[i]; k < p->start[i + 1]; k++)
			buf_printf(out, "    %ld%s\n", p->rank[k], k + 1 < p->start[i + 1] ? "," : "");
		buf_printf(out, "  ]%s\n", i + 1 < p->n ? "," : "");
	}
	buf_puts(out, "]\n");
}

static void
launch(const struct run *r, const struct wl_srun *s, const struct ep_launch *l, struct buf *out)
{
	s->prefix(out, r, false, NULL);
	buf_printf(out, " --overlap --nodelist=\"${nodes_array[%d]}\" --ntasks-per-node=1 --ntasks=1 -N1%s"
	                " --output=\"$RUN_DIR/nixl-ep-node-%d.log\" --error=\"$RUN_DIR/nixl-ep-node-%d.log\""
	                " bash -c \"source $RUN_DIR_Q/env_vars.sh; ",
	           l->node, l->append ? " --open-mode=append" : "", l->node, l->node);
	bench(r, l, out);
	buf_putc(out, '"');
}

static void
finish(struct buf *out)
{
	buf_puts(out, "if [ \"$rc\" -eq 0 ]; then\n"
	              "    echo \"All NIXL EP launches completed successfully\"\n"
	              "fi\n\n"
	              "exit $rc\n");
}

static void
prologue_lines(const struct run *r, struct buf *out)
{
	size_t i;

	buf_puts(out, "#!/bin/bash\n"
	              "# kunai: written by the batch script, which passes RUN_DIR, RUN_DIR_Q,\n"
	              "# BUILD_DIR and INSTALL_DIR\n\n");
	if (r->nodes.len) {
		buf_puts(out, "nodes_array=(");
		for (i = 0; i < r->nodes.len; i++) {
			buf_putc(out, ' ');
			sh_quote(out, r->nodes.items[i]);
		}
		buf_puts(out, " )\n");
	} else {
		buf_printf(out, "nodes=( $( scontrol show hostnames $SLURM_JOB_NODELIST ) )\n"
		                "nodes_array=(\"${nodes[@]:0:%d}\")\n", r->num_nodes);
	}
	buf_puts(out, "master_node=${nodes_array[0]}\n"
	              "export SLURM_JOB_MASTER_NODE=\"${SLURM_JOB_MASTER_NODE:-$master_node}\"\n"
	              "srun --nodes=1 --ntasks=1 -N1 --nodelist=\"$master_node\" --output=\"$RUN_DIR/nixl-ep-master-ip.txt\""
	              " --error=\"$RUN_DIR/stderr.txt\" hostname --ip-address\n"
	              "master_ip=$(awk '{print $1}' \"$RUN_DIR/nixl-ep-master-ip.txt\")\n\n"
	              "echo \"Nodes: $SLURM_JOB_NODELIST\"\n"
	              "echo \"Num Nodes: ${#nodes_array[@]}\"\n"
	              "echo \"Master Node: $master_node\"\n"
	              "echo \"Master IP: $master_ip\"\n\n"
	              "cleanup_nixl_ep() {\n"
	              "    local pids\n"
	              "    pids=\"$(jobs -pr)\"\n"
	              "    if [ -z \"$pids\" ]; then\n"
	              "        return 0\n"
	              "    fi\n"
	              "    echo \"Cleaning up NIXL EP background launches...\"\n"
	              "    kill -TERM $pids >/dev/null 2>&1 || true\n"
	              "    sleep 2\n"
	              "    pids=\"$(jobs -pr)\"\n"
	              "    if [ -n \"$pids\" ]; then\n"
	              "        kill -KILL $pids >/dev/null 2>&1 || true\n"
	              "    fi\n"
	              "    wait >/dev/null 2>&1 || true\n"
	              "}\n\n"
	              "on_nixl_ep_signal() {\n"
	              "    local rc=\"$1\"\n"
	              "    cleanup_nixl_ep\n"
	              "    exit \"$rc\"\n"
	              "}\n\n"
	              "trap cleanup_nixl_ep EXIT\n"
	              "trap 'on_nixl_ep_signal 130' INT\n"
	              "trap 'on_nixl_ep_signal 143' TERM\n\n");
}

static void
wait_services(const struct run *r, struct buf *out)
{
	buf_printf(out, "wait_for_master_services() {\n"
	                "    local timeout=%ld\n"
	                "    local interval=1\n"
	                "    local end_time=$(($(date +%%s) + timeout))\n\n"
	                "    while [ \"$(date +%%s)\" -lt \"$end_time\" ]; do\n"
	                "        if timeout 1 bash -c \": > /dev/tcp/$master_ip/%ld\" >/dev/null 2>&1; then\n"
	                "            echo \"NIXL EP master services are ready on $master_ip\"\n"
	                "            return 0\n"
	                "        fi\n"
	                "        sleep \"$interval\"\n"
	                "    done\n\n"
	                "    echo \"Timed out waiting for NIXL EP master services on $master_ip\"\n"
	                "    return 1\n"
	                "}\n\n",
	           strtol(workload_value(r, "service_startup_timeout_seconds"), NULL, 10),
	           strtol(workload_value(r, "store_port"), NULL, 10));
}

static void
wait_phase(const struct run *r, const struct ep_plan *p, struct buf *out)
{
	long t = r->time_limit > 0 ? r->time_limit : 600;

	t /= (long)p->n;
	buf_printf(out, "wait_for_phase_completion() {\n"
	                "    local phase=\"$1\"\n"
	                "    local log_file=\"$2\"\n"
	                "    local primary_pid=\"$3\"\n"
	                "    local timeout=%ld\n"
	                "    local interval=1\n"
	                "    local end_time=$(($(date +%%s) + timeout))\n\n"
	                "    while [ \"$(date +%%s)\" -lt \"$end_time\" ]; do\n"
	                "        if [ -f \"$log_file\" ] && grep -Fq -- \"-> end phase $phase\" \"$log_file\"; then\n"
	                "            echo \"Detected completion of phase $phase in $log_file\"\n"
	                "            return 0\n"
	                "        fi\n"
	                "        if [ -f \"$log_file\" ] && grep -Fq -- \"no plan phases were found for rank\" \"$log_file\"; then\n"
	                "            echo \"Detected an early NIXL EP failure while waiting for phase $phase\"\n"
	                "            return 1\n"
	                "        fi\n"
	                "        if ! kill -0 \"$primary_pid\" >/dev/null 2>&1; then\n"
	                "            echo \"Primary NIXL EP launch exited before phase $phase completed\"\n"
	                "            return 1\n"
	                "        fi\n"
	                "        sleep \"$interval\"\n"
	                "    done\n\n"
	                "    echo \"Timed out waiting for phase $phase to complete\"\n"
	                "    return 1\n"
	                "}\n\n",
	           t > 1 ? t : 1);
}

static void
background(const struct run *r, const struct wl_srun *s, const struct ep_launch *l, size_t n, struct buf *out)
{
	size_t i;

	for (i = 0; i < n; i++) {
		launch(r, s, &l[i], out);
		buf_puts(out, " &\nactive_srun_count=$((active_srun_count + 1))\n");
	}
}

/* The launcher, as CloudAI's _launcher_body lays it out. */
static void
launcher(const struct run *r, const struct wl_srun *s, const struct ep_plan *p, const struct ep_stage *st,
         size_t n, struct buf *out)
{
	bool followers = false, rm = removes(p);
	size_t i, k;

	prologue_lines(r, out);
	if (n == 1 && st[0].n == 1) {
		buf_puts(out, "echo \"Starting NIXL EP on the master node...\"\n");
		launch(r, s, &st[0].l[0], out);
		buf_puts(out, "\nrc=$?\n");
		finish(out);
		return;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < st[i].n; k++)
			followers |= st[i].l[k].node != 0;
	if (followers)
		wait_services(r, out);
	if (n > 1)
		wait_phase(r, p, out);
	buf_puts(out, "active_srun_count=0\n\n"
	              "echo \"Starting initial NIXL EP stage on the master node...\"\n");
	launch(r, s, &st[0].l[0], out);
	buf_puts(out, " &\nprimary_pid=$!\nactive_srun_count=$((active_srun_count + 1))\n");
	if (followers)
		buf_puts(out, "\necho \"Waiting for NIXL EP master services...\"\n"
		              "wait_for_master_services || exit 1\n");
	if (st[0].n > 1) {
		buf_printf(out, "\necho \"Starting the rest of initial phase %zu...\"\n", st[0].phase);
		background(r, s, st[0].l + 1, st[0].n - 1, out);
	}
	for (i = 1; i < n; i++) {
		buf_printf(out, "\necho \"Waiting for phase %zu before starting phase %zu...\"\n"
		                "wait_for_phase_completion \"%zu\" \"$RUN_DIR/nixl-ep-node-0.log\" \"$primary_pid\" || exit 1\n\n"
		                "echo \"Starting launches for phase %zu...\"\n",
		           st[i].phase - 1, st[i].phase, st[i].phase - 1, st[i].phase);
		background(r, s, st[i].l, st[i].n, out);
	}
	buf_printf(out, "\nallow_planned_removal_143=%d\n"
	                "ignored_planned_removal_143=0\n"
	                "rc=0\n"
	                "while [ \"$active_srun_count\" -gt 0 ]; do\n"
	                "    wait -n\n"
	                "    wait_rc=$?\n"
	                "    active_srun_count=$((active_srun_count - 1))\n"
	                "    if [ \"$allow_planned_removal_143\" -eq 1 ] && [ \"$wait_rc\" -eq 143 ]; then\n"
	                "        echo \"Ignoring provisional NIXL EP planned-rank-removal exit 143\"\n"
	                "        ignored_planned_removal_143=1\n"
	                "    elif [ \"$wait_rc\" -ne 0 ] && [ \"$rc\" -eq 0 ]; then\n"
	                "        rc=$wait_rc\n"
	                "    fi\n"
	                "done\n\n",
	           rm ? 1 : 0);
	if (rm)
		buf_printf(out, "if [ \"$ignored_planned_removal_143\" -eq 1 ] && [ \"$rc\" -eq 0 ]; then\n"
		                "    wait_for_phase_completion \"%zu\" \"$RUN_DIR/nixl-ep-node-0.log\" \"$primary_pid\" || rc=143\n"
		                "fi\n\n",
		           p->n - 1);
	finish(out);
}

static void
body(const struct run *r, const struct wl_srun *s, struct buf *out)
{
	struct ep_plan p;
	struct ep_stage *st;
	struct buf why = {0}, text = {0};
	size_t n;

	/* check() has refused a plan that fails here */
	if (!plan_parse(workload_value(r, "plan"), &p, &why) || !stages_of(r, &p, &st, &n, &why)) {
		buf_puts(out, "false");
		plan_free(&p);
		buf_free(&why);
		return;
	}
	buf_puts(out, "# kunai: the plan and the launcher, written when the job starts\n"
	              "cat >\"$RUN_DIR/nixl-ep-plan.json\" ");
	plan_json(&p, &text);
	sh_heredoc(out, "KUNAI_NIXL_EP_PLAN", buf_str(&text));
	text.len = 0;
	launcher(r, s, &p, st, n, &text);
	buf_puts(out, "cat >\"$RUN_DIR/nixl-ep-launch.sh\" ");
	sh_heredoc(out, "KUNAI_NIXL_EP_LAUNCH", buf_str(&text));
	buf_puts(out, "chmod 755 \"$RUN_DIR/nixl-ep-launch.sh\"\n"
	              "RUN_DIR=$RUN_DIR RUN_DIR_Q=$RUN_DIR_Q BUILD_DIR=$BUILD_DIR INSTALL_DIR=$INSTALL_DIR"
	              " bash \"$RUN_DIR/nixl-ep-launch.sh\"");
	stages_free(st, n);
	plan_free(&p);
	buf_free(&text);
	buf_free(&why);
}

/* CloudAI's success check: a log for each node that had a launch, each
 * with a bandwidth summary. */
static void
script_post(const struct run *r, struct buf *out)
{
	struct ep_plan p;
	struct ep_stage *st;
	struct buf why = {0};
	bool has[EP_MAX_NODES] = {false};
	size_t n, i, k;
	int node;

	if (!plan_parse(workload_value(r, "plan"), &p, &why) || !stages_of(r, &p, &st, &n, &why)) {
		plan_free(&p);
		buf_free(&why);
		return;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < st[i].n; k++)
			has[st[i].l[k].node] = true;
	buf_puts(out, "# kunai: CloudAI's success check, a bandwidth summary in each node's log\n"
	              "for f in");
	for (node = 0; node < EP_MAX_NODES; node++)
		if (has[node])
			buf_printf(out, " nixl-ep-node-%d.log", node);
	buf_puts(out, "; do\n"
	              "    grep -Eq '\\[rank [0-9]+\\] Dispatch( \\+ combine)? bandwidth: ' \"$RUN_DIR/$f\" 2>/dev/null ||\n"
	              "        { echo \"kunai: no NIXL EP bandwidth summary in $f\"; KUNAI_RC=1; }\n"
	              "done\n");
	stages_free(st, n);
	plan_free(&p);
	buf_free(&why);
}

static bool
positive(const struct run *r, const char *key, long lo, long hi, struct wl_diags *d)
{
	long v = strtol(workload_value(r, key), NULL, 10);

	if (v >= lo && v <= hi)
		return true;
	if (hi == LONG_MAX)
		workload_error(d, r, key, false, workload_is_list(r, key), "'%s' must be at least %ld", key, lo);
	else
		workload_error(d, r, key, false, workload_is_list(r, key), "'%s' must lie within %ld..%ld", key, lo, hi);
	return false;
}

/* The model's validators, then the placement CloudAI's strategy refuses. */
static void
check(const struct run *r, struct wl_diags *d)
{
	struct ep_plan p;
	struct ep_stage *st;
	struct buf why = {0};
	size_t n;
	bool ok = true;

	ok &= positive(r, "num_processes_per_node", 1, LONG_MAX, d);
	ok &= positive(r, "service_startup_timeout_seconds", 1, LONG_MAX, d);
	ok &= positive(r, "store_port", 1, 65535, d);
	if (!plan_parse(workload_value(r, "plan"), &p, &why)) {
		workload_error(d, r, "plan", false, workload_is_list(r, "plan"), "%s", buf_str(&why));
		buf_free(&why);
		return;
	}
	if (ok) {
		ok = stages_of(r, &p, &st, &n, &why);
		stages_free(st, n);
		workload_refuse(d, r, ok, &why);
	} else {
		buf_free(&why);
	}
	plan_free(&p);
}

static const struct installable installables[] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
};

const struct workload wl_nixl_ep = {
	.name = "NixlEP",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.container = true,
	.command = command,
	.grader = "nixl_ep",
	.installables = installables,
	.n_installables = LEN(installables),
	.script_sruns = body,
	.script_post = script_post,
	.check = check,
};
