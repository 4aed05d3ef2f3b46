/* wl_jax.c: the JaxToolbox launcher (wl_jax.h). Values are CloudAI's
 * model_dump() of the test's cmd_args as Python prints them (True/False,
 * 4.0); the fdl and setup values are shell text in CloudAI's run.sh
 * ('[1, 8, 1]' with its quotes): kunai splits each into the words the
 * shell would make of it, without expansion, and quotes those words. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_jax.h"
#include "wl_train.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

static const char *const strict_tables[] = {"fdl.", "xla_flags.", "setup_flags.", "profile.", "perf.", NULL};

/* Keys whose value CloudAI pastes into run.sh as shell text. */
static bool
shell_key(const char *key)
{
	return strncmp(key, "fdl.", 4) == 0 || strcmp(key, "fdl_config") == 0 ||
	       strcmp(key, "setup_flags.docker_workspace_dir") == 0 || strcmp(key, "setup_flags.tfds_data_dir") == 0;
}

/* Python's int() of a string: blanks around, a sign, digits (single
 * underscores between them). */
static bool
py_int(const char *s, long long *v)
{
	struct buf d = {0};
	bool ok = true, digit = false;
	const char *p = s;
	char *end;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p == '+' || *p == '-')
		buf_putc(&d, *p++);
	for (; *p >= '0' && *p <= '9'; p++) {
		buf_putc(&d, *p);
		digit = true;
		if (p[1] == '_' && p[2] >= '0' && p[2] <= '9')
			p++;
	}
	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	ok = digit && !*p;
	if (ok) {
		*v = strtoll(buf_str(&d), &end, 10);
		ok = *end == '\0';
	}
	buf_free(&d);
	return ok;
}

static bool
pgle(const struct run *r, const struct jax_template *t)
{
	return !t->stages || workload_true(workload_value(r, "enable_pgle"));
}

/* The value of schema entry s as Python prints the validated field. */
static void
py_value(struct buf *b, const struct run *r, const struct arg_schema *s, bool lower_bool)
{
	const char *v = workload_value_of(r, s);
	char f[64];

	if (!v)
		return;
	if (s->type == ARG_BOOL) {
		bool t = workload_true(v);
		buf_puts(b, lower_bool ? (t ? "true" : "false") : (t ? "True" : "False"));
	} else if (s->type == ARG_FLOAT) {
		model_format_float(strtod(v, NULL), f, sizeof(f));
		buf_puts(b, f);
	} else
		buf_puts(b, v);
}

static bool
starts_ends(const char *v, const char *q)
{
	size_t n = strlen(v), m = strlen(q);

	return n >= m && strncmp(v, q, m) == 0 && strcmp(v + n - m, q) == 0;
}

/* JaxFdl's serializers: fprop_dtype and checkpoint_policy as \"VALUE\". */
static void
fdl_value(struct buf *b, const struct run *r, const struct arg_schema *s)
{
	const char *v = workload_value_of(r, s), *p;
	bool policy = strcmp(s->key, "fdl.checkpoint_policy") == 0;

	if (!policy && strcmp(s->key, "fdl.fprop_dtype") != 0) {
		py_value(b, r, s, false);
		return;
	}
	if (!v)
		return;
	if (starts_ends(v, "\\\"")) {
		buf_puts(b, v);
	} else if (policy && starts_ends(v, "\"")) {
		for (p = v; *p; p++) {
			if (*p == '"')
				buf_putc(b, '\\');
			buf_putc(b, *p);
		}
	} else
		buf_printf(b, "\\\"%s\\\"", v);
}

/* Appends prefix (a literal option such as "--fdl.MAX_STEPS=") and the
 * words the shell makes of text, quoted; text that does not split (an
 * unterminated quote, reported by jax_check) is taken as one word. */
static void
shell_words(struct buf *out, const char *prefix, const char *text)
{
	struct arena a = {0};
	char **w;
	int n = sh_split(&a, text, &w), i;

	buf_puts(out, prefix);
	if (n < 0)
		sh_quote_cont(out, text);
	for (i = 0; i < n; i++) {
		if (i)
			buf_putc(out, ' ');
		if (i == 0)
			sh_quote_cont(out, w[i]);
		else
			sh_quote(out, w[i]);
	}
	arena_free(&a);
}

static int
cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* XLA_FLAGS of a stage ("profile" or "perf"): the combine thresholds and
 * the xla_ keys of the stage's table, "--name=value" sorted. */
static void
xla_flags(struct buf *out, const struct run *r, const struct jax_template *t, const char *stage)
{
	const struct workload *wl = r->def->wl;
	const char **f = xmalloc((wl->n_args + 4) * sizeof(*f));
	struct buf all = {0}, v = {0};
	size_t n = 0, i, pre = strlen(stage);
	size_t *at = xmalloc((wl->n_args + 4) * sizeof(*at));

	f[n++] = "--xla_gpu_all_reduce_combine_threshold_bytes=$COMBINE_THRESHOLD";
	f[n++] = "--xla_gpu_all_gather_combine_threshold_bytes=$COMBINE_THRESHOLD";
	f[n++] = "--xla_gpu_reduce_scatter_combine_threshold_bytes=$PER_GPU_COMBINE_THRESHOLD";
	/* texts go to one buffer first (it moves as it grows), pointed to after */
	for (i = 0; t->stages && i < wl->n_args; i++) {
		const struct arg_schema *s = &wl->args[i];
		const char *name, *p;
		if (strncmp(s->key, stage, pre) != 0 || s->key[pre] != '.')
			continue;
		name = s->key + pre + 1;
		if (strncmp(name, "xla_", 4) != 0)
			continue;
		v.len = 0;
		/* without PGLE, CloudAI empties the profile path ('""' in its quotes) */
		if (!pgle(r, t) && strcmp(name, "xla_gpu_pgle_profile_file_or_directory_path") == 0)
			buf_puts(&v, "");
		else
			py_value(&v, r, s, true);
		at[n] = all.len;
		buf_puts(&all, "--");
		for (p = name; *p; p++)
			buf_putc(&all, *p >= 'A' && *p <= 'Z' ? *p - 'A' + 'a' : *p);
		buf_printf(&all, "=%s", buf_str(&v));
		buf_putc(&all, '\0');
		f[n++] = NULL;
	}
	for (i = 3; i < n; i++)
		f[i] = all.data + at[i];
	qsort(f, n, sizeof(*f), cmp_str);
	for (i = 0; i < n; i++) {
		if (i)
			buf_putc(out, ' ');
		buf_puts(out, f[i]);
	}
	free(f);
	free(at);
	buf_free(&all);
	buf_free(&v);
}

const char *
jax_workspace(const struct run *r)
{
	const char *w = workload_value(r, "setup_flags.docker_workspace_dir");

	return w ? w : "/opt/paxml/workspace/";
}

static bool
has_table(const struct workload *wl, const char *prefix)
{
	size_t i;

	for (i = 0; i < wl->n_args; i++)
		if (strncmp(wl->args[i].key, prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

/* Whether a finding about key (a sweep key: "cmd_args.K",
 * "extra_env_vars.K", "NUM_NODES") is reported for run r: at the first
 * sweep point, and at every point when key is swept. */
static bool
report_here(const struct run *r, const char *key)
{
	size_t i;

	if (r->step <= 1)
		return true;
	for (i = 0; i < r->sweep.len; i++)
		if (strcmp(r->sweep.items[i].key, key) == 0)
			return true;
	return false;
}

const struct installable jax_installables[1] = {
	{INST_IMAGE, "cmd_args.docker_image_url", NULL, NULL, NULL},
};

void
jax_check(const struct run *r, struct wl_diags *d)
{
	const struct workload *wl = r->def->wl;
	const struct jax_template *t = wl->family;
	const char *c = workload_env_value(r, "COMBINE_THRESHOLD");
	const char *gpn = workload_value(r, "setup_flags.gpus_per_node");
	long long nodes = (long long)(r->nodes.len ? r->nodes.len : (size_t)r->num_nodes), cv, g;
	size_t i, j;

	/* the test's keys in their order, so the errors are in line order */
	for (i = 0; i < r->args.len; i++) {
		const char *k = r->args.items[i].key, *v = r->args.items[i].value;
		struct arena a = {0};
		struct buf sk = {0};
		char **w;
		buf_printf(&sk, "cmd_args.%s", k);
		if (r->step <= 1) {
			for (j = 0; !workload_arg(wl, k) && strict_tables[j]; j++)
				if (strncmp(k, strict_tables[j], strlen(strict_tables[j])) == 0 &&
				    has_table(wl, strict_tables[j])) {
					workload_error(d, r, k, false, false,
					               "unknown key '%s' (CloudAI's %.*s table takes no keys of its own)", k,
					               (int)strlen(strict_tables[j]) - 1, strict_tables[j]);
				}
			for (j = 0; t->single && t->single[j]; j++)
				if (strcmp(t->single[j], k) == 0 && workload_is_list(r, k)) {
					workload_error(d, r, k, false, false, "'%s' takes one value, not a list (CloudAI's schema)", k);
				}
		}
		if (shell_key(k) && report_here(r, buf_str(&sk)) &&
		    (strchr(v, '\n') || strchr(v, '\r') || sh_split(&a, v, &w) < 0)) {
			workload_error(d, r, k, false, false, "'%s' is shell text in run.sh and must be one line without an "
			                            "unterminated quote: %s", k, v);
		}
		buf_free(&sk);
		arena_free(&a);
	}
	if (report_here(r, "NUM_NODES") && gpn && train_int(gpn, &g) && g * nodes == 0) {
		workload_error(d, r, "setup_flags.gpus_per_node", false, false,
		               "setup_flags.gpus_per_node x nodes is 0: CloudAI divides COMBINE_THRESHOLD by it");
	}
	if (!report_here(r, "extra_env_vars.COMBINE_THRESHOLD"))
		return;
	if (!c) {
		workload_error(d, r, "", true, false, "JaxToolbox needs COMBINE_THRESHOLD (bytes, an integer) in "
		                            "extra_env_vars or the system's global_env_vars");
	} else if (!py_int(c, &cv)) {
		workload_error(d, r, "COMBINE_THRESHOLD", true, false, "COMBINE_THRESHOLD must be an integer, not '%s'", c);
	}
}

size_t
jax_env(struct arena *a, const struct run *r, struct wl_env *out, size_t max)
{
	const struct jax_template *t = r->def->wl->family;
	const char *c = workload_env_value(r, "COMBINE_THRESHOLD");
	long long cv, g, nodes = (long long)(r->nodes.len ? r->nodes.len : (size_t)r->num_nodes);
	struct buf b = {0};
	size_t n = 0;

	if (max < 2)
		return 0;
	/* CloudAI: int(COMBINE_THRESHOLD / (setup_flags.gpus_per_node * nodes)) */
	if (c && py_int(c, &cv) && train_int(workload_value(r, "setup_flags.gpus_per_node"), &g) && g * nodes != 0) {
		buf_printf(&b, "%lld", (long long)((double)cv / (double)(g * nodes)));
		out[n++] = (struct wl_env){"PER_GPU_COMBINE_THRESHOLD", arena_strdup(a, buf_str(&b)), false};
	}
	b.len = 0;
	xla_flags(&b, r, t, "perf");
	out[n++] = (struct wl_env){"XLA_FLAGS", arena_strdup(a, buf_str(&b)), false};
	buf_free(&b);
	return n;
}

#define SEP " \\\n    "

/* The paxml command of a stage, each part on a line of its own. */
static void
python_command(struct buf *out, const struct run *r, const char *stage)
{
	const struct workload *wl = r->def->wl;
	const struct arg_schema **fdl = xmalloc((wl->n_args + 1) * sizeof(*fdl));
	struct buf v = {0}, o = {0};
	size_t n = 0, i;
	const char *p;

	buf_puts(out, "python3 -u -m paxml.main" SEP "--num_hosts=$SLURM_NTASKS" SEP
	              "--server_addr=$SLURM_JOB_MASTER_NODE:12345" SEP "--host_idx=$SLURM_PROCID" SEP);
	shell_words(out, "--job_log_dir=", jax_workspace(r));
	buf_puts(out, SEP);
	p = workload_value(r, "setup_flags.tfds_data_dir");
	shell_words(out, "--tfds_data_dir=", p ? p : "");
	buf_puts(out, SEP "--enable_checkpoint_saving=");
	buf_puts(out, workload_true(workload_value(r, "setup_flags.enable_checkpoint_saving")) ? "True" : "False");
	buf_puts(out, SEP "--multiprocess_gpu" SEP "--alsologtostderr" SEP);
	p = workload_value(r, "fdl_config");
	buf_printf(&v, "\"%s\"", p ? p : "None");
	shell_words(out, "--fdl_config=", buf_str(&v));
	for (i = 0; i < wl->n_args; i++)
		if (strncmp(wl->args[i].key, "fdl.", 4) == 0)
			fdl[n++] = &wl->args[i];
	/* sorted by name, as CloudAI sorts them */
	for (i = 1; i < n; i++) {
		const struct arg_schema *s = fdl[i];
		size_t j = i;
		for (; j > 0 && strcmp(fdl[j - 1]->key, s->key) > 0; j--)
			fdl[j] = fdl[j - 1];
		fdl[j] = s;
	}
	for (i = 0; i < n; i++) {
		v.len = o.len = 0;
		fdl_value(&v, r, fdl[i]);
		buf_puts(&o, "--fdl.");
		for (p = fdl[i]->key + 4; *p; p++)
			buf_putc(&o, *p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p);
		buf_putc(&o, '=');
		buf_puts(out, SEP);
		shell_words(out, buf_str(&o), buf_str(&v));
	}
	if (r->def->extra_cmd_args.len) {
		o.len = 0;
		workload_extra_args(r, '=', &o);
		buf_puts(out, SEP);
		buf_puts(out, buf_str(&o) + 1);
	}
	if (strcmp(stage, "profile") == 0)
		buf_puts(out, " >> /opt/paxml/workspace/profile_stderr_${SLURM_PROCID}.txt 2>&1");
	free(fdl);
	buf_free(&v);
	buf_free(&o);
}

/* One stage of run.sh: its environment (XLA_FLAGS its own), paxml under
 * nsys on the first task, the PGLE converter there after it. */
static void
stage_text(struct buf *out, const struct run *r, const struct jax_template *t, const char *stage)
{
	struct buf py = {0}, x = {0};
	bool first = true;
	size_t i;

	buf_puts(out, strcmp(stage, "profile") == 0 ? "#!/bin/bash\n\n" : "\n\n");
	for (i = 0; i < r->env.len; i++) {
		const char *k = r->env.items[i].key, *v = r->env.items[i].value;
		if (!sh_is_name(k))
			continue; /* reported by the script writer */
		if (!first)
			buf_putc(out, '\n');
		first = false;
		buf_printf(out, "export %s=", k);
		if (strcmp(k, "XLA_FLAGS") == 0) {
			xla_flags(&x, r, t, stage);
			v = buf_str(&x);
		}
		if (strcmp(k, "XLA_FLAGS") == 0) {
			buf_putc(out, '"');
			sh_dquote_params(out, v, NULL);
			buf_putc(out, '"');
		} else if (sh_is_live(v)) {
			/* an environment value: expanded as in the batch script */
			buf_putc(out, '"');
			sh_live_body(out, v, NULL, NULL);
			buf_putc(out, '"');
		} else
			sh_quote(out, v);
	}
	python_command(&py, r, stage);
	buf_printf(out, "\n\nif [ \"$SLURM_NODEID\" -eq 0 ] && [ \"$SLURM_PROCID\" -eq 0 ]; then\n"
	                "    nsys profile" SEP "-s none" SEP "-o /opt/paxml/workspace/nsys_profile_%s" SEP
	                "--force-overwrite true" SEP "--capture-range=cudaProfilerApi" SEP
	                "--capture-range-end=stop" SEP "--cuda-graph-trace=node" SEP "%s\nelse\n    %s\nfi\n",
	           stage, buf_str(&py), buf_str(&py));
	buf_printf(out, "\nif [ \"$SLURM_NODEID\" -eq 0 ] && [ \"$SLURM_PROCID\" -eq 0 ]; then\n"
	                "    python /opt/jax/jax/tools/pgo_nsys_converter.py" SEP
	                "--profile_path /opt/paxml/workspace/nsys_profile_%s.nsys-rep" SEP "--post_process" SEP
	                "--pgle_output_path /opt/paxml/workspace/pgle_output_%s.pbtxt > /dev/null 2>&1\nfi",
	           stage, stage);
	buf_free(&py);
	buf_free(&x);
}

/* Whether text has a line that is exactly word. */
static bool
has_line(const char *text, const char *word)
{
	size_t n = strlen(word);
	const char *p = text;

	for (; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, word, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

void
jax_body(const struct run *r, const char *image, const char *mounts, struct buf *out)
{
	const struct jax_template *t = r->def->wl->family;
	const char *extra = r->c->system->extra_srun_args, *u = workload_env_value(r, "UNIFIED_STDOUT_STDERR");
	const char *suffix = u && strcmp(u, "1") == 0 ? "-%j.txt" : "-%j-%n-%t.txt";
	struct buf rs = {0}, end = {0};

	if (pgle(r, t)) {
		stage_text(&rs, r, t, "profile");
		buf_putc(&rs, '\n');
	}
	stage_text(&rs, r, t, "perf");
	buf_puts(&end, "KUNAI_RUN_SH");
	while (has_line(buf_str(&rs), buf_str(&end)))
		buf_putc(&end, '_');
	/* kunai: the batch script writes CloudAI's run.sh into the run dir,
	 * which the container sees at the workspace dir */
	buf_printf(out, "cat >\"$RUN_DIR/run.sh\" <<'%s'\n%s\n%s\nchmod +x \"$RUN_DIR/run.sh\"\n", buf_str(&end),
	           buf_str(&rs), buf_str(&end));
	if (workload_true(workload_value(r, "load_container")))
		buf_printf(out, "echo \"Loading container with srun command\"\n"
		                "    srun --mpi=none %s --container-name=cont true\n",
		           image);
	buf_puts(out, "    echo \"Running srun command\"\n    srun \\\n    --mpi=none \\\n");
	if (extra && *extra) {
		buf_puts(out, "    ");
		if (sh_words(out, extra) > 0)
			buf_puts(out, " \\\n");
		else
			out->len -= 4;
	}
	buf_printf(out, "    --export=ALL \\\n    -o \"$RUN_DIR/output%s\" \\\n    -e \"$RUN_DIR/error%s\" \\\n"
	                "    --container-name=cont \\\n    %s \\\n    /opt/paxml/workspace/run.sh\n",
	           suffix, suffix, mounts);
	/* kunai: the logs of both stages go to stdout, for the grader */
	buf_puts(out, "KUNAI_JAX_RC=$?\n"
	              "for f in \"$RUN_DIR\"/profile_stderr_*.txt \"$RUN_DIR\"/error-*.txt; do\n"
	              "    [ -f \"$f\" ] || continue; printf '==> %s <==\\n' \"${f##*/}\"; cat \"$f\"; echo\n"
	              "done\n"
	              "(exit $KUNAI_JAX_RC)");
	buf_free(&rs);
	buf_free(&end);
}

void
jax_command(const struct run *r, struct buf *out)
{
	(void)r;
	/* run.sh is written by the batch script (jax_body) */
	buf_puts(out, "/opt/paxml/workspace/run.sh");
}
