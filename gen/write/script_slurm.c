/* script_slurm.c: the sbatch script of one run, laid out as CloudAI lays out
 * its own (REFERENCE.md §11) so that a CloudAI user can diff the two line by
 * line. Unlike CloudAI's, the script embeds no absolute path: it is submitted
 * from its run directory and finds that, the build dir and the install dir
 * when it runs; and every value from TOML is quoted for the shell. */
#include <stdbool.h>
#include <string.h>

#include "script.h"
#include "gen/base/escape.h"
#include "gen/base/record.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"
#include "gen/workloads/workload.h"

/* Where a run's files are, relative to $RUN_DIR: the main run is there, a
 * hook in pre_test/<its test name> or post_test/<its test name> (CloudAI's
 * layout; expand_hook's dirs say the same). */
struct where {
	const char *sub; /* NULL, "pre_test" or "post_test" */
	const char *name;
};

/* One shell word made of literal text and references to the script's path
 * variables; written bare or '...' without variables, "..." with them. */
struct word {
	struct buf raw, dq;
	bool vars;
};

static const char *
text(const struct buf *b)
{
	return b->len ? b->data : "";
}

static void
w_lit(struct word *w, const char *s)
{
	buf_puts(&w->raw, s);
	sh_dquote_body(&w->dq, s);
}

/* The text that follows a variable never starts with a name character
 * here (always '/', ':' or ','), so no braces are needed. */
/* A live value, which the shell expands when the job starts (CloudAI
 * writes mounts bare into its srun line); $PWD is CloudAI's launch dir,
 * which the runner hands to the job. */
static void
w_params(struct word *w, const char *s)
{
	if (!sh_is_live(s)) {
		w_lit(w, s);
		return;
	}
	buf_puts(&w->raw, s);
	sh_live_body(&w->dq, s, SH_LAUNCH_VAR, "$BUILD_DIR");
	w->vars = true;
}

static void
w_var(struct word *w, const char *name)
{
	buf_putc(&w->dq, '$');
	buf_puts(&w->dq, name);
	w->vars = true;
}

/* Appends " <prefix><word>" and empties w for the next word. */
static void
w_emit(struct buf *out, const char *prefix, struct word *w)
{
	buf_putc(out, ' ');
	buf_puts(out, prefix);
	if (w->vars) {
		buf_putc(out, '"');
		buf_puts(out, text(&w->dq));
		buf_putc(out, '"');
	} else if (*prefix && prefix[strlen(prefix) - 1] == '=')
		sh_quote_cont(out, text(&w->raw));
	else
		sh_quote(out, text(&w->raw));
	w->raw.len = w->dq.len = 0;
	w->vars = false;
}

static void
w_free(struct word *w)
{
	buf_free(&w->raw);
	buf_free(&w->dq);
}

static void
w_dir(struct word *w, const struct where *d)
{
	w_var(w, "RUN_DIR");
	if (d->sub) {
		w_lit(w, "/");
		w_lit(w, d->sub);
		w_lit(w, "/");
		w_lit(w, d->name);
	}
}

static void
w_file(struct word *w, const struct where *d, const char *file)
{
	w_dir(w, d);
	w_lit(w, "/");
	w_lit(w, file);
}

static void
w_image(struct word *w, const struct system *sys, const char *url)
{
	struct buf name = {0};

	/* local files are used as they are, cached or not */
	if (!sys->cache_docker_images_locally || url[0] == '/' || url[0] == '.') {
		w_lit(w, url);
		return;
	}
	workload_image_cache_name(&name, url);
	w_var(w, "INSTALL_DIR");
	w_lit(w, "/");
	w_lit(w, name.data);
	buf_free(&name);
}

/* The system's hf_home_path (by default install_path/huggingface) as a
 * word: under install_path from $INSTALL_DIR, another relative one from the
 * build dir (CloudAI's launch dir), an absolute one as it is. */
static void
hf_home(struct word *w, const struct system *sys)
{
	const char *hf = sys->hf_home_path, *ip = sys->install_path;
	size_t n = ip ? strlen(ip) : 0;

	while (n > 1 && ip[n - 1] == '/')
		n--;
	if (!hf) {
		w_var(w, "INSTALL_DIR");
		w_lit(w, "/huggingface");
	} else if (n && strncmp(hf, ip, n) == 0 && hf[n] == '/') {
		w_var(w, "INSTALL_DIR");
		w_lit(w, hf + n);
	} else if (hf[0] == '/')
		w_lit(w, hf);
	else {
		w_var(w, "BUILD_DIR");
		w_lit(w, "/");
		w_lit(w, hf);
	}
}

static void
w_mounts(struct word *w, const struct run *r, const struct where *d)
{
	const struct testdef *def = r->def;
	const char *topo = workload_env_value(r, "NCCL_TOPO_FILE");
	struct buf t = {0};
	size_t i;

	w_dir(w, d);
	w_lit(w, ":/cloudai_run_results,");
	w_var(w, "INSTALL_DIR");
	w_lit(w, ":/cloudai_install,");
	w_dir(w, d);
	for (i = 0; i < def->extra_container_mounts.len; i++) {
		w_lit(w, ",");
		w_params(w, def->extra_container_mounts.items[i]);
	}
	for (i = 0; i < def->n_git_repos; i++) {
		const struct git_repo *g = &def->git_repos[i];
		t.len = 0;
		workload_repo_dir(&t, g->url, g->commit);
		w_lit(w, ",");
		if (g->installed_path && g->installed_path[0] == '/')
			w_lit(w, g->installed_path);
		else if (g->installed_path) {
			w_var(w, "BUILD_DIR");
			w_lit(w, "/");
			w_lit(w, g->installed_path);
		} else {
			w_var(w, "INSTALL_DIR");
			w_lit(w, "/");
			w_lit(w, text(&t));
		}
		w_lit(w, ":");
		if (g->mount_as)
			w_lit(w, g->mount_as);
		else {
			w_lit(w, "/git/");
			w_lit(w, text(&t));
		}
	}
	for (i = 0; r->def->wl->install_mounts && r->def->wl->install_mounts[i]; i++) {
		const char *m = r->def->wl->install_mounts[i];
		w_lit(w, ",");
		if (strncmp(m, "@hf_home:", 9) == 0) {
			hf_home(w, r->c->system);
			w_lit(w, m + 8);
			continue;
		}
		w_var(w, "INSTALL_DIR");
		if (*m != ':')
			w_lit(w, "/");
		w_lit(w, m);
	}
	for (i = 0; r->def->wl->arg_mounts && r->def->wl->arg_mounts[i]; i++) {
		const char *v = workload_value(r, r->def->wl->arg_mounts[i]);
		if (!v || !*v)
			continue;
		w_lit(w, ",");
		w_lit(w, v);
		w_lit(w, ":");
		w_lit(w, v);
	}
	if (r->def->wl->run_mounts) {
		struct wl_mount m[8];
		size_t n = r->def->wl->run_mounts(r, m, LEN(m));
		for (i = 0; i < n; i++) {
			w_lit(w, ",");
			w_dir(w, d);
			if (*m[i].src) {
				w_lit(w, "/");
				w_lit(w, m[i].src);
			}
			w_lit(w, ":");
			w_lit(w, m[i].dst);
		}
	}
	/* use_deepep_matrix: the matrix the MoE benchmark wrote, and its whole
	 * output read-only, as CloudAI mounts them */
	if (r->matrix_dir) {
		const struct workload *wl = r->def->wl;
		const char *dst = wl->deepep_matrix_arg ? workload_value(r, wl->deepep_matrix_arg) : NULL;
		w_lit(w, ",");
		w_var(w, "BUILD_DIR");
		w_lit(w, "/");
		w_lit(w, r->matrix_dir);
		w_lit(w, "/");
		w_lit(w, wl->deepep_matrix);
		w_lit(w, ":");
		w_lit(w, dst ? dst : wl->deepep_matrix_dest);
		w_lit(w, ",");
		w_var(w, "BUILD_DIR");
		w_lit(w, "/");
		w_lit(w, r->matrix_dir);
		w_lit(w, ":/cloudai_moe_benchmark_prev:ro");
	}
	/* NCCL reads its topology file inside the container at the same path */
	if (topo && topo[0] == '/') {
		w_lit(w, ",");
		w_lit(w, topo);
		w_lit(w, ":");
		w_lit(w, topo);
	}
	if (r->def->wl->run_dir_mount) {
		w_lit(w, ",");
		w_dir(w, d);
		w_lit(w, ":");
		w_lit(w, r->def->wl->run_dir_mount(r));
	}
	buf_free(&t);
}

/* Appends " " and the words of s (an argument string from TOML), if any. */
static void
words(struct buf *out, const char *s)
{
	buf_putc(out, ' ');
	if (!sh_words(out, s))
		out->len--;
}

/* srun with CloudAI's prefix for run r: --export=ALL --mpi -N, the container
 * flags, then the system's, the case's and the test's extra srun args. A
 * hook's srun names its own output files first, as CloudAI's does. */
static void
srun_prefix(struct buf *out, const struct run *r, const struct where *d, bool with_nodes, bool container,
            const char *image)
{
	const struct system *sys = r->c->system;
	const struct workload *wl = r->def->wl;
	int ntasks = wl->ntasks ? wl->ntasks(r) : 0;
	struct word w = {0};
	size_t i;

	buf_puts(out, "srun");
	if (d->sub) {
		w_file(&w, d, "stdout.txt");
		w_emit(out, "--output=", &w);
		w_file(&w, d, "stderr.txt");
		w_emit(out, "--error=", &w);
	}
	buf_puts(out, " --export=ALL");
	if (!wl->uses_mpi || wl->uses_mpi(r)) {
		w_lit(&w, wl->mpi ? wl->mpi : sys->mpi ? sys->mpi : "pmix");
		w_emit(out, "--mpi=", &w);
	}
	if (ntasks > 0)
		buf_printf(out, " --ntasks=%d", ntasks);
	if (r->nodes.len == 0 && with_nodes)
		buf_printf(out, " -N%d", r->num_nodes);
	if (container && workload_in_container(r)) {
		const char *url = image ? image : workload_value(r, "docker_image_url");
		w_image(&w, sys, url ? url : "");
		w_emit(out, "--container-image=", &w);
		w_mounts(&w, r, d);
		w_emit(out, "--container-mounts=", &w);
		if (!sys->container_mount_home)
			buf_puts(out, " --no-container-mount-home");
	}
	if (sys->extra_srun_args)
		words(out, sys->extra_srun_args);
	if (r->tc->extra_srun_args)
		words(out, r->tc->extra_srun_args);
	for (i = 0; i < r->def->extra_srun_args.len; i++)
		words(out, r->def->extra_srun_args.items[i]);
	w_free(&w);
}

void
script_test_command(struct buf *out, const struct run *r)
{
	const struct nsys *n = r->def->nsys;
	size_t i;

	if (n && n->enable) {
		static const char *const opt[] = {"-s ", "-o ", "-t "};
		const char *vals[] = {n->sample, n->output, n->trace};
		const char *eq[][2] = {
			{"--capture-range=", n->capture_range},
			{"--capture-range-end=", n->capture_range_end},
			{"--cuda-graph-trace=", n->cuda_graph_trace},
			{"--gpu-metrics-devices=", n->gpu_metrics_devices},
		};
		sh_quote(out, n->nsys_binary ? n->nsys_binary : "nsys");
		buf_putc(out, ' ');
		sh_quote(out, n->task ? n->task : "profile");
		for (i = 0; i < LEN(vals); i++)
			if (vals[i] && *vals[i]) {
				buf_putc(out, ' ');
				buf_puts(out, opt[i]);
				sh_quote(out, vals[i]);
			}
		if (n->force_overwrite >= 0)
			buf_printf(out, " --force-overwrite=%s", n->force_overwrite ? "true" : "false");
		for (i = 0; i < LEN(eq); i++)
			if (eq[i][1] && *eq[i][1]) {
				buf_putc(out, ' ');
				buf_puts(out, eq[i][0]);
				sh_quote_cont(out, eq[i][1]);
			}
		for (i = 0; i < n->extra_args.len; i++)
			words(out, n->extra_args.items[i]);
		buf_putc(out, ' ');
	}
	r->def->wl->command(r, out);
}

/* bash -c "source <dir>/env_vars.sh; <command>": $RUN_DIR_Q is the run dir
 * quoted for the inner shell (printf %q), the rest is escaped for the
 * double quotes, so the inner shell sees exactly the command that was built,
 * but for the references the workload leaves to the batch shell. */
static void
bash_c(struct buf *out, const struct run *r, const struct where *d)
{
	struct buf inner = {0};

	if (d->sub) {
		buf_printf(&inner, "/%s/", d->sub);
		sh_quote(&inner, d->name);
	}
	buf_puts(&inner, "/env_vars.sh; ");
	script_test_command(&inner, r);
	buf_puts(out, "bash -c \"source $RUN_DIR_Q");
	sh_dquote_batch(out, text(&inner));
	buf_putc(out, '"');
	buf_free(&inner);
}

static void
main_prefix(struct buf *out, const struct run *r, bool with_nodes, const char *image)
{
	static const struct where here = {NULL, NULL};

	srun_prefix(out, r, &here, with_nodes, true, image);
}

static void
main_bash_c(struct buf *out, const struct run *r)
{
	static const struct where here = {NULL, NULL};

	bash_c(out, r, &here);
}

/* The full command line of run r (main or hook), without a newline;
 * prefix, if not NULL, is r's srun prefix for d, made already. */
static void
run_line(struct buf *out, const struct run *r, const struct where *d, const struct buf *prefix)
{
	struct word w = {0};

	static const struct wl_srun pieces = {main_prefix, main_bash_c};

	if (r->def->wl->script_body) {
		r->def->wl->script_body(r, out);
		return;
	}
	if (r->def->wl->script_sruns) {
		r->def->wl->script_sruns(r, &pieces, out);
		return;
	}
	if (r->def->wl->container_body) {
		struct buf image = {0}, mounts = {0};
		const char *url = workload_value(r, "docker_image_url");
		w_image(&w, r->c->system, url ? url : "");
		w_emit(&image, "--container-image=", &w);
		w_mounts(&w, r, d);
		w_emit(&mounts, "--container-mounts=", &w);
		/* w_emit starts with a blank */
		r->def->wl->container_body(r, text(&image) + 1, text(&mounts) + 1, out);
		buf_free(&image);
		buf_free(&mounts);
		w_free(&w);
		return;
	}
	if (r->def->wl->script_body_srun) {
		struct buf full = {0}, bare = {0};
		srun_prefix(&full, r, d, true, true, NULL);
		srun_prefix(&bare, r, d, false, true, NULL);
		r->def->wl->script_body_srun(r, buf_str(&full), buf_str(&bare), out);
		buf_free(&full);
		buf_free(&bare);
		return;
	}
	/* BashCmd: CloudAI's srun prefix is empty, the command runs right here */
	if (!r->def->wl->in_batch) {
		if (prefix)
			buf_push(out, prefix->data, prefix->len);
		else
			srun_prefix(out, r, d, true, true, NULL);
		if (r->def->wl->srun_args)
			r->def->wl->srun_args(r, out);
		buf_putc(out, ' ');
	}
	bash_c(out, r, d);
	/* a hook's output goes to its own files, as srun --output sends it */
	if (r->def->wl->in_batch && d->sub) {
		w_file(&w, d, "stdout.txt");
		w_emit(out, ">", &w);
		w_file(&w, d, "stderr.txt");
		w_emit(out, "2>", &w);
		w_free(&w);
	}
}

/* The files the user supplies in the install dir (INST_USER_FILE): the job
 * stops before its test when one is absent, with a message located at the
 * test's definition. */
static void
user_files(struct buf *out, const struct run *r)
{
	const struct workload *wl = r->def->wl;
	struct buf msg = {0};
	const char *base;
	size_t i;

	for (i = 0; i < wl->n_installables; i++) {
		const struct installable *in = &wl->installables[i];
		if (in->kind != INST_USER_FILE)
			continue;
		msg.len = 0;
		/* the file's name alone: the script embeds no path of the machine that made it */
		base = strrchr(r->def->path, '/');
		buf_printf(&msg, "%s:%d:%d: error: %s needs %s in the install dir (%s)", base ? base + 1 : r->def->path,
		           r->def->pos.line,
		           r->def->pos.col, wl->name, in->path, in->hint ? in->hint : "kunai does not ship it");
		buf_printf(out, "# kunai: %s is not kunai's; the user puts it in the install dir\n", in->path);
		buf_puts(out, "[ -f \"$INSTALL_DIR\"/");
		sh_quote(out, in->path);
		buf_puts(out, " ] || { echo ");
		sh_quote(out, buf_str(&msg));
		buf_puts(out, " >&2; exit 1; }\n\n");
	}
	buf_free(&msg);
}

/* The metadata and mapping sruns (CloudAI's prefix, outside any hook:
 * prefix). */
static void
probes(struct buf *out, const struct run *r, const struct buf *prefix)
{
	static const struct where here = {NULL, NULL};
	struct word w = {0};

	buf_push(out, prefix->data, prefix->len);
	w_file(&w, &here, "mapping-stdout.txt");
	w_emit(out, "--output=", &w);
	w_file(&w, &here, "mapping-stderr.txt");
	w_emit(out, "--error=", &w);
	buf_puts(out, " bash -c \"echo \\$(date): \\$(hostname):node \\${SLURM_NODEID}:rank \\${SLURM_PROCID}.\"\n\n");

	buf_push(out, prefix->data, prefix->len);
	buf_printf(out, " --ntasks=%zu --ntasks-per-node=1", r->nodes.len ? r->nodes.len : (size_t)r->num_nodes);
	w_file(&w, &here, "metadata/node-%N.toml");
	w_emit(out, "--output=", &w);
	w_file(&w, &here, "metadata/nodes.err");
	w_emit(out, "--error=", &w);
	/* inside a container the install dir is mounted at /cloudai_install */
	if (workload_in_container(r) && !r->def->wl->bare_probes)
		buf_puts(out, " bash /cloudai_install/slurm-metadata.sh\n\n");
	else
		buf_puts(out, " bash \"$INSTALL_DIR/slurm-metadata.sh\"\n\n");
	w_free(&w);
}

bool
script_slurm(struct arena *a, const struct run *r, const struct hooks *h, struct buf *out)
{
	const struct runlist *pre = h ? h->pre : NULL, *post = h ? h->post : NULL;
	size_t npre = pre ? pre->len : 0, npost = post ? post->len : 0, i;
	const char *indent = npre ? "    " : "", *vboost = workload_env_value(r, "ENABLE_VBOOST");
	static const struct where here = {NULL, NULL};
	struct word w = {0};
	struct buf file = {0}, prefix = {0};
	bool ok = true;

	(void)a;
	buf_puts(out, "#!/bin/bash\n# generated by kunai\n");
	script_directives(out, r);
	ok &= script_sbatch_directives(out, r);

	buf_puts(out, "\n# kunai: the script is submitted from its run directory and embeds no\n"
	              "# absolute path; RUN_DIR_Q is RUN_DIR quoted for the shells of bash -c.\n");
	buf_puts(out, "RUN_DIR=${SLURM_SUBMIT_DIR:-$PWD}\n");
	script_paths(out, r);
	buf_puts(out, "RUN_DIR_Q=$(printf %q \"$RUN_DIR\")\n");
	record_script_lines(out, RECORD_SLURM_ID, RECORD_SLURM_NODES);
	/* the sruns below write in metadata/ by name: a link there is refused */
	buf_puts(out, "[ ! -L \"$RUN_DIR/metadata\" ] || { echo \"kunai: $RUN_DIR/metadata is a symbolic link; kunai "
	              "does not write through links (remove it)\" >&2; exit 1; }\n");
	buf_puts(out, "mkdir -p \"$RUN_DIR/metadata\"");
	for (i = 0; i < npre + npost; i++) {
		const struct run *hr = i < npre ? &pre->items[i] : &post->items[i - npre];
		struct where d = {i < npre ? "pre_test" : "post_test", hr->def->name};
		w_dir(&w, &d);
		w_emit(out, "", &w);
	}
	buf_putc(out, '\n');
	if (r->nodes.len) {
		int t = r->c->system->ntasks_per_node > 0 ? r->c->system->ntasks_per_node : 1, k;
		/* CloudAI's hostfile: each node once per task */
		buf_puts(out, "printf '%s\\n'");
		for (i = 0; i < r->nodes.len; i++)
			for (k = 0; k < t; k++) {
				buf_putc(out, ' ');
				sh_quote(out, r->nodes.items[i]);
			}
		buf_puts(out, " >\"$RUN_DIR/hostfile.txt\"\nexport SLURM_HOSTFILE=\"$RUN_DIR/hostfile.txt\"\n");
	}

	buf_puts(out, "\nexport SLURM_JOB_MASTER_NODE=$(scontrol show hostname $SLURM_JOB_NODELIST | head -n 1)\n");
	if (r->def->wl->script_prologue)
		r->def->wl->script_prologue(r, out);
	ok &= script_env_ok(r, h);
	script_env_exports(out, r);
	/* the same srun prefix starts the probes and the test's own srun */
	srun_prefix(&prefix, r, &here, true, !r->def->wl->bare_probes, NULL);
	if (vboost && strcmp(vboost, "1") == 0) {
		/* CloudAI's, for any workload: one task per node raises the voltage boost */
		buf_printf(out, "srun --ntasks=%zu", r->nodes.len ? r->nodes.len : (size_t)r->num_nodes);
		w_file(&w, &here, "vboost.out");
		w_emit(out, "--output=", &w);
		w_file(&w, &here, "vboost.err");
		w_emit(out, "--error=", &w);
		buf_puts(out, " bash -c \"sudo nvidia-smi boost-slider --vboost 1\"\n\n");
	}
	if (r->def->wl->launcher) /* the job an earlier attempt's launcher submitted is not this one's */
		buf_puts(out, "rm -f \"$RUN_DIR/kunai.subjob\"\n");
	else
		probes(out, r, &prefix);
	user_files(out, r);

	if (npre) {
		for (i = 0; i < npre; i++) {
			struct where d = {"pre_test", pre->items[i].def->name};
			run_line(out, &pre->items[i], &d, NULL);
			buf_printf(out, "\nSUCCESS_%zu=$( ", i);
			w_file(&w, &d, "stdout.txt");
			w_emit(&file, "", &w); /* " <word>": the check takes the word */
			script_check(out, &pre->items[i], text(&file) + 1);
			file.len = 0;
			buf_puts(out, " )\n");
		}
		buf_puts(out, "PRE_TEST_SUCCESS=$(");
		for (i = 0; i < npre; i++)
			buf_printf(out, " [ $SUCCESS_%zu -eq 1 ] &&", i);
		buf_puts(out, " echo 1 || echo 0 )\nKUNAI_RC=1\nif [ $PRE_TEST_SUCCESS -eq 1 ]; then\n");
	}
	if (r->def->wl->script_pre)
		r->def->wl->script_pre(r, text(&prefix), out);
	buf_puts(out, indent);
	run_line(out, r, &here, &prefix);
	buf_printf(out, "\n%sKUNAI_RC=$?\n", indent);
	if (r->def->wl->script_post)
		r->def->wl->script_post(r, out);
	for (i = 0; i < npost; i++) {
		struct where d = {"post_test", post->items[i].def->name};
		buf_puts(out, indent);
		run_line(out, &post->items[i], &d, NULL);
		buf_putc(out, '\n');
	}
	if (npre)
		buf_puts(out, "fi\n");
	buf_puts(out, "exit $KUNAI_RC\n");
	w_free(&w);
	buf_free(&file);
	buf_free(&prefix);
	return ok;
}

bool
script_slurm_same_job(const char *rel, const char *old, size_t oldlen, const char *data, size_t len)
{
	const char *base = strrchr(rel, '/');
	struct buf b = {0};
	bool same;

	if (!base || strcmp(base + 1, "cloudai_sbatch_script.sh") != 0)
		return false;
	same = record_script_swap(old, oldlen, RECORD_SLURM_ID, RECORD_SLURM_NODES, true, &b) &&
	       b.len == len && memcmp(b.data, data, len) == 0;
	buf_free(&b);
	return same;
}
