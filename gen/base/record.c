/* record.c: the outcome vocabulary and DIR/job.json, the runner's record of
 * one run, read back by the runner itself (reattach, dependencies) and by
 * the reports. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hostlist.h"
#include "json.h"
#include "record.h"
#include "util.h"

static const char *const outcome_names[OUTCOME_COUNT] = {
	"passed", "failed", "perf-failed", "suspect", "timeout", "cancelled",
	"node-fail", "infra", "skipped", "running", "not-run",
};

const char *
outcome_name(enum outcome o)
{
	return (unsigned)o < OUTCOME_COUNT ? outcome_names[o] : "infra";
}

bool
outcome_parse(const char *s, enum outcome *o)
{
	size_t i;

	for (i = 0; s && i < OUTCOME_COUNT; i++)
		if (strcmp(s, outcome_names[i]) == 0) {
			*o = (enum outcome)i;
			return true;
		}
	return false;
}

bool
outcome_is_failure(enum outcome o)
{
	return o != OUTCOME_PASSED && o != OUTCOME_SKIPPED && o != OUTCOME_RUNNING &&
	       o != OUTCOME_NOT_RUN;
}

bool
record_outcome(const struct job_record *j, enum outcome *o)
{
	return j->outcome && outcome_parse(j->outcome, o);
}

static bool
put_str(cJSON *o, const char *k, const char *v)
{
	return v ? cJSON_AddStringToObject(o, k, v) != NULL : cJSON_AddNullToObject(o, k) != NULL;
}

static bool
put_int(cJSON *o, const char *k, bool has, double v)
{
	return has ? cJSON_AddNumberToObject(o, k, v) != NULL : cJSON_AddNullToObject(o, k) != NULL;
}

bool
record_job_write(const struct job_record *j, struct buf *out)
{
	cJSON *o = cJSON_CreateObject();
	char *text;
	bool ok;

	ok = o && put_str(o, "dir", j->dir) && put_str(o, "scheduler", j->scheduler) &&
	     put_str(o, "workload", j->workload) && put_str(o, "job_id", j->job_id) &&
	     put_str(o, "state", j->state) && put_int(o, "exit_code", j->has_exit_code, j->exit_code) &&
	     put_int(o, "signal", j->has_signal, j->signal) && put_str(o, "outcome", j->outcome) &&
	     put_str(o, "reason", j->reason) && put_str(o, "submit_time", j->submit_time) &&
	     put_str(o, "start_time", j->start_time) && put_str(o, "end_time", j->end_time) &&
	     put_str(o, "nodes", j->nodes) && put_int(o, "attempt", true, j->attempt) &&
	     put_str(o, "host", j->host) && put_str(o, "command", j->command) &&
	     put_str(o, "script_hash", j->script_hash) &&
	     put_int(o, "pid_start", j->pid_start > 0, (double)j->pid_start) &&
	     cJSON_AddBoolToObject(o, "collected", j->collected) != NULL;
	text = ok ? cJSON_Print(o) : NULL;
	cJSON_Delete(o);
	if (!text) {
		warn("out of memory while writing job.json");
		return false;
	}
	buf_puts(out, text);
	buf_putc(out, '\n');
	cJSON_free(text);
	return true;
}

int
record_job_read(struct arena *a, const char *path, struct job_record *j, struct buf *why)
{
	const cJSON *v;
	cJSON *o;
	bool absent;
	enum outcome oc;

	memset(j, 0, sizeof(*j));
	j->collected = true;
	o = json_load(path, why, &absent);
	if (!o)
		return absent ? 0 : -1;
	j->dir = json_get_str(a, o, "dir");
	j->scheduler = json_get_str(a, o, "scheduler");
	j->workload = json_get_str(a, o, "workload");
	j->job_id = json_get_str(a, o, "job_id");
	j->state = json_get_str(a, o, "state");
	j->outcome = json_get_str(a, o, "outcome");
	j->reason = json_get_str(a, o, "reason");
	j->submit_time = json_get_str(a, o, "submit_time");
	j->start_time = json_get_str(a, o, "start_time");
	j->end_time = json_get_str(a, o, "end_time");
	/* an older kunai wrote Slurm's compressed list ("n[1,4]") */
	j->nodes = hostlist_join(a, json_get_list(a, o, "nodes"));
	j->host = json_get_str(a, o, "host");
	j->command = json_get_str(a, o, "command");
	j->script_hash = json_get_str(a, o, "script_hash");
	j->has_exit_code = json_get_int(o, "exit_code", &j->exit_code);
	j->has_signal = json_get_int(o, "signal", &j->signal);
	if (!json_get_int(o, "attempt", &j->attempt) || j->attempt < 0)
		j->attempt = 0;
	v = json_item(o, "pid_start");
	if (cJSON_IsNumber(v) && v->valuedouble > 0 && v->valuedouble < 9e18)
		j->pid_start = (long long)v->valuedouble;
	j->collected = !cJSON_IsFalse(json_item(o, "collected"));
	cJSON_Delete(o);
	if (j->outcome && !*j->outcome)
		j->outcome = NULL;
	if (j->outcome && !outcome_parse(j->outcome, &oc)) {
		buf_printf(why, "unknown outcome '%s'", j->outcome);
		return -1;
	}
	return 1;
}

/* ---- phases/NAME.json ---------------------------------------------------------- */

void
json_write_phase(const struct phase_record *r, struct buf *out)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "phase", r->name);
	cJSON_AddStringToObject(o, "outcome", r->outcome);
	if (r->reason)
		cJSON_AddStringToObject(o, "reason", r->reason);
	if (r->has_exit_code)
		cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
	cJSON_AddStringToObject(o, "start_time", r->start_time);
	cJSON_AddStringToObject(o, "end_time", r->end_time);
	json_print(o, out);
}

bool
json_load_phase(struct arena *a, const char *path, struct phase_record *r)
{
	struct buf why = {0};
	bool absent;
	cJSON *root = json_load(path, &why, &absent);

	buf_free(&why);
	memset(r, 0, sizeof(*r));
	if (!root)
		return false;
	r->name = json_get_str(a, root, "phase");
	r->outcome = json_get_str(a, root, "outcome");
	r->reason = json_get_str(a, root, "reason");
	r->start_time = json_get_str(a, root, "start_time");
	r->end_time = json_get_str(a, root, "end_time");
	r->has_exit_code = json_get_int(root, "exit_code", &r->exit_code);
	cJSON_Delete(root);
	return r->outcome != NULL;
}

/* ---- the job's own records ---------------------------------------------------- */

/* The exit record's lines beyond its status, written by a shell function so
 * that the trap stays one call: the job, its nodes and its cgroup's OOM
 * kills, read with builtins only (the workload may have changed PATH). */
static const char clean_exit_fn[] =
	"kunai_exit() {\n"
	"\tlocal t c k v\n"
	"\tt=$(mktemp \"$RUN_DIR/kunai.exit.XXXXXX\") || return\n"
	"\twhile IFS= read -r k; do case $k in 0::*) c=${k#0::} ;; esac; "
	"done 2>/dev/null </proc/self/cgroup\n"
	"\t{\n"
	"\t\techo \"$1\"\n"
	"\t\techo \"job=${%s-}\"\n"
	"\t\techo \"nodes=${%s-}\"\n"
	"\t\tcase $c in */job_[0-9]*/*)\n"
	"\t\t\twhile read -r k v; do [ \"$k\" != oom_kill ] || echo \"oom_kill=$v\"; done \\\n"
	"\t\t\t\t2>/dev/null <\"/sys/fs/cgroup${c%%%%/step_*}/memory.events\" ;;\n"
	"\t\tesac\n"
	"\t} >\"$t\" && mv -fT \"$t\" \"$RUN_DIR/kunai.exit\"\n"
	"}\n"
	"trap 'kunai_exit $?' EXIT\n";

void
record_script_lines(struct buf *out, const char *id_var, const char *nodes_var)
{
	/* a trapped TERM still ends the script (after its foreground child, which
	 * got the same signal), but through the EXIT trap, so the record says
	 * 143. Each record is written to a temporary of a unique name that
	 * mktemp makes (O_EXCL: never through a link planted at a fixed name)
	 * and renamed over the record itself (mv -T: a link there is replaced,
	 * never followed into the dir it names) */
	buf_puts(out, "# kunai: the job's own start and exit records, which the runner watches\n"
	              "trap 'exit 129' HUP; trap 'exit 130' INT; trap 'exit 143' TERM\n");
	if (nodes_var)
		buf_printf(out, clean_exit_fn, id_var, nodes_var);
	else
		buf_puts(out, "trap 'kunai_rc=$?; kunai_t=$(mktemp \"$RUN_DIR/kunai.exit.XXXXXX\") && echo $kunai_rc "
		              ">\"$kunai_t\" && mv -fT \"$kunai_t\" \"$RUN_DIR/kunai.exit\"' EXIT\n");
	buf_puts(out, "kunai_t=$(mktemp \"$RUN_DIR/kunai.start.XXXXXX\") && "
	              "printf 'start=%(%s)T\\nhost=%s\\njob=%s\\n' -1 \"$HOSTNAME\" ");
	buf_printf(out, "\"${%s:-$$}\" ", id_var);
	buf_puts(out, ">\"$kunai_t\" && mv -fT \"$kunai_t\" \"$RUN_DIR/kunai.start\"\n");
}

bool
record_script_swap(const char *text, size_t len, const char *id_var, const char *nodes_var, bool to_new,
                   struct buf *out)
{
	struct buf a = {0}, b = {0};
	const struct buf *from, *to;
	const char *at = NULL, *p;
	bool ok = false;

	record_script_lines(&a, id_var, NULL);
	record_script_lines(&b, id_var, nodes_var);
	from = to_new ? &a : &b;
	to = to_new ? &b : &a;
	for (p = text; p + from->len <= text + len; p++) {
		p = memchr(p, from->data[0], (size_t)(text + len - p));
		if (!p || p + from->len > text + len)
			break;
		if (memcmp(p, from->data, from->len) == 0) {
			if (at)
				goto done; /* twice: not the one block kunai wrote */
			at = p;
		}
	}
	if (!at)
		goto done;
	buf_push(out, text, (size_t)(at - text));
	buf_push(out, to->data, to->len);
	buf_push(out, at + from->len, len - (size_t)(at - text) - from->len);
	ok = true;
done:
	buf_free(&a);
	buf_free(&b);
	return ok;
}
