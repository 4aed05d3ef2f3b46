/* gen.c: `kunai gen` and `kunai dry-run`: load the campaign, expand it, and
 * write the build dir. Everything is validated (hooks expanded once) before
 * the first write, so that bad input leaves the previous build dir as it
 * was; after that only I/O can fail. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "campaign_json.h"
#include "sink.h"
#include "gen.h"
#include "gen_opts.h"
#include "gen/base/escape.h"
#include "gen/base/journal.h"
#include "gen/base/lock.h"
#include "install.h"
#include "manifest.h"
#include "ninja.h"
#include "script.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"


/* An absolute version of path (which need not exist). */
static const char *
absolute(struct arena *a, const char *cwd, const char *path)
{
	return path[0] == '/' ? path : path_join(a, cwd, path);
}


/* Adds the directories whose listing the campaign depends on (a test file
 * added to or removed from --tests-dir changes the campaign) to the inputs
 * of the regenerate edge. */
static void
add_dir_inputs(struct arena *a, struct campaign *c, const struct gen_opts *o)
{
	const char *dirs[3];
	size_t n = 0, i;
	struct stat st;

	if (o->m.tests_dir)
		dirs[n++] = o->m.tests_dir;
	if (o->m.hook_dir) {
		dirs[n++] = o->m.hook_dir;
		dirs[n++] = path_join(a, o->m.hook_dir, "test");
	}
	for (i = 0; i < n; i++) {
		if (stat(dirs[i], &st) != 0 || !S_ISDIR(st.st_mode))
			continue;
		strlist_add(a, &c->inputs, dirs[i], (struct toml_pos){0});
	}
}

/* Renders every run's script and env files into out as it goes, and records
 * each run's hook env files for build.ninja. Bad input is rejected before
 * this point (the model validates everything the writers rely on, and
 * hooks_ok() expands the hooks once), so a failure here is an I/O error or
 * a kunai bug, never a half-written build dir after a config mistake. */
static bool
render(struct arena *a, const struct campaign *c, struct runlist *rl, size_t from, size_t to, struct sink *out)
{
	const struct scenario *sc = c->scenario;
	const char *script = ninja_script_name(c->system->scheduler);
	struct buf b = {0}, p = {0}, env = {0}, doc = {0};
	char hex[17];
	size_t i, j;
	bool ok = true;

	for (i = from; ok && out->ok && i < to; i++) {
		struct run *r = &rl->items[i];
		struct runlist pre = {0}, post = {0};
		struct hooks h = {&pre, &post};

		if (sc->pre_test && !expand_hook(a, c, sc->pre_test, true, r, &pre))
			ok = false;
		if (sc->post_test && !expand_hook(a, c, sc->post_test, false, r, &post))
			ok = false;
		if (!ok)
			break;
		/* what the script sources (env_vars.sh) and the scheduler's job
		 * document (k8s.json) are part of the job: their hashes close the
		 * script, so a change to either is a changed script, which ninja
		 * reruns and the runner never takes an earlier job's result for */
		script_env(r, &env);
		if (c->system->scheduler == SCHED_KUBERNETES)
			manifest_k8s(r, &doc);
		if (c->system->scheduler == SCHED_SLURM)
			ok = script_slurm(a, r, &h, &b);
		else if (c->system->scheduler == SCHED_LSF)
			ok = script_lsf(a, r, &h, &b);
		else
			ok = script_standalone(a, r, &h, &b);
		util_hash_hex(env.data ? env.data : "", env.len, hex);
		buf_printf(&b, "# kunai: env_vars.sh %s", hex);
		if (c->system->scheduler == SCHED_KUBERNETES) {
			util_hash_hex(doc.data ? doc.data : "", doc.len, hex);
			buf_printf(&b, ", k8s.json %s", hex);
		}
		buf_putc(&b, '\n');
		p.len = 0;
		buf_puts(&p, r->dir);
		buf_putc(&p, '/');
		buf_puts(&p, script);
		sink_emit(out, p.data, &b);
		if (c->system->scheduler == SCHED_RUNAI) {
			manifest_runai(r, &b);
			p.len = 0;
			buf_printf(&p, "%s/runai.json", r->dir);
			sink_emit(out, p.data, &b);
		}
		if (c->system->scheduler == SCHED_KUBERNETES) {
			p.len = 0;
			buf_printf(&p, "%s/k8s.json", r->dir);
			sink_emit(out, p.data, &doc);
			if (strcmp(manifest_k8s_kind(r), "DynamoGraphDeployment") == 0) {
				b.len = 0;
				manifest_k8s_dynamo_bench(r, &b);
				p.len = 0;
				buf_printf(&p, "%s/k8s.bench.json", r->dir);
				sink_emit(out, p.data, &b);
			}
		}
		p.len = 0;
		buf_puts(&p, r->dir);
		buf_puts(&p, "/env_vars.sh");
		sink_emit(out, p.data, &env);
		if (pre.len + post.len) {
			r->hook_env.items = arena_alloc(a, (pre.len + post.len) * sizeof(*r->hook_env.items));
			r->hook_env.len = 0;
		}
		for (j = 0; j < pre.len + post.len; j++) {
			const struct run *hr = j < pre.len ? &pre.items[j] : &post.items[j - pre.len];
			script_env(hr, &b);
			p.len = 0;
			buf_printf(&p, "%s/env_vars.sh", hr->dir);
			r->hook_env.items[r->hook_env.len++] = arena_strdup(a, p.data);
			sink_emit(out, p.data, &b);
		}
	}
	buf_free(&b);
	buf_free(&p);
	buf_free(&env);
	buf_free(&doc);
	return ok && out->ok;
}

/* One of the threads that render a large campaign: runs [from, to), its
 * own sink (the old manifest shared, read only) and its own arena for the
 * hooks' allocations. */
struct worker {
	const struct campaign *c;
	struct runlist *rl;
	size_t from, to;
	struct arena arena;
	struct sink sink;
	bool ok;
	pthread_t thread;
};

static void *
work(void *arg)
{
	struct worker *w = arg;

	w->ok = render(&w->arena, w->c, w->rl, w->from, w->to, &w->sink);
	return NULL;
}

/* How many threads render: $KUNAI_GEN_THREADS, else one per CPU (at most 8)
 * for a campaign large enough to gain from them. */
static size_t
n_workers(size_t runs)
{
	long n = (long)env_number("KUNAI_GEN_THREADS", 1, 64, 0);

	if (n <= 0) {
		n = runs >= 4096 ? sysconf(_SC_NPROCESSORS_ONLN) : 1;
		if (n > 8)
			n = 8;
	}
	if (n > 64)
		n = 64;
	if ((size_t)n > runs)
		n = (long)runs;
	return n > 1 ? (size_t)n : 1;
}

/* Renders every run and kunai.json (into json), in parallel when it pays:
 * each thread takes a contiguous share of the runs (so each run dir is made
 * by one thread) while this one writes kunai.json, which reads nothing the
 * threads change; their manifest lines are joined in run order, so the
 * output is the same bytes whatever the number of threads. */
static bool
render_all(struct arena *a, const struct campaign *c, struct runlist *rl, struct sink *out, struct worker **ws,
           size_t *n_ws, struct buf *json)
{
	size_t n = n_workers(rl->len), i, started;
	struct worker *w;
	bool ok = true;

	if (n == 1)
		return render(a, c, rl, 0, rl->len, out) && json_campaign(c, rl, json);
	w = xcalloc(n, sizeof(*w));
	*ws = w;
	*n_ws = n;
	for (i = 0, started = 0; i < n; i++) {
		w[i].c = c;
		w[i].rl = rl;
		w[i].from = rl->len * i / n;
		w[i].to = rl->len * (i + 1) / n;
		w[i].sink.root = out->root;
		w[i].sink.mf = out->mf;
		w[i].sink.jr = out->jr;
		w[i].sink.same_job = out->same_job;
		w[i].sink.script = out->script;
		w[i].sink.ok = true;
		if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) {
			warn("pthread_create: cannot start a rendering thread");
			ok = false;
			break;
		}
		started++;
	}
	if (ok && !json_campaign(c, rl, json))
		ok = false;
	for (i = 0; i < started; i++) {
		pthread_join(w[i].thread, NULL);
		ok = ok && w[i].ok;
		sink_join(out, &w[i].sink);
	}
	return ok;
}

/* Expands the hooks once (for the first run) so that their errors, e.g. an
 * empty sweep in a hook test, are found before anything is written. */
static bool
hooks_ok(struct arena *a, const struct campaign *c, const struct runlist *rl)
{
	const struct scenario *sc = c->scenario;
	struct runlist tmp = {0};

	if (!rl->len)
		return true;
	if (sc->pre_test && !expand_hook(a, c, sc->pre_test, true, &rl->items[0], &tmp))
		return false;
	if (sc->post_test && !expand_hook(a, c, sc->post_test, false, &rl->items[0], &tmp))
		return false;
	return true;
}

/* Every path and argument that local.ninja and build.ninja carry outside the
 * model (which checks its own values): a line break there would end ninja's
 * line and let the rest be read as ninja text. Returns false after reporting. */
static const char *
shown(struct arena *a, const char *s)
{
	char *t = arena_strdup(a, s), *p;

	for (p = t; *p; p++)
		if ((unsigned char)*p < 0x20)
			*p = '?';
	return t;
}

static bool
ninja_safe(struct arena *a, const struct campaign *c, const char *cwd, const char *exe, const char *rules,
           const char *const *argv, size_t argc)
{
	const char *what[3] = {cwd, exe, rules};
	const char *name[3] = {"the current directory", "kunai's own path", "the rules dir"};
	size_t i;

	for (i = 0; i < 3; i++)
		if (!ninja_expressible(what[i])) {
			warn("%s ('%s') contains a line break, which ninja cannot express", name[i],
			     shown(a, what[i]));
			return false;
		}
	for (i = 0; i < argc; i++)
		if (!ninja_expressible(argv[i])) {
			warn("argument '%s' contains a line break, which local.ninja cannot express "
			     "(it reruns this command)", shown(a, argv[i]));
			return false;
		}
	for (i = 0; i < c->inputs.len; i++)
		if (!ninja_expressible(c->inputs.items[i])) {
			warn("input file '%s' has a line break in its path, which local.ninja cannot express",
			     shown(a, c->inputs.items[i]));
			return false;
		}
	return true;
}

/* Generates the build dir; on success its path goes to dir_out (if any). */
static int
generate(int argc, char **argv, bool dry_run, struct buf *dir_out)
{
	struct arena a = {0};
	struct gen_opts o = {0};
	struct campaign *c;
	struct runlist rl = {0};
	struct sink sink = {.ok = true};
	struct manifest mf = {.rootfd = -1};
	struct journal jr = {.fd = -1};
	struct sink_stream js = {.old_fd = -1, .tmp_fd = -1};
	struct worker *ws = NULL;
	struct install_set inst = {0};
	size_t n_ws = 0, i;
	struct buf b = {0}, dd = {0}, single = {0};
	char cwd[PATH_MAX], exe[PATH_MAX];
	const char *out_dir, **rargv, *rules;
	size_t rargc;
	ssize_t n;
	struct stat st;
	bool made;
	long other;
	int rc, lockfd = -1;

	if ((rc = gen_parse_opts(&a, argc, argv, &o)) != 0)
		goto done;
	rc = 1;
	if (!getcwd(cwd, sizeof(cwd))) {
		warn("getcwd:");
		goto done;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		warn("readlink /proc/self/exe:");
		goto done;
	}
	exe[n] = '\0';
	c = model_load(&a, &o.m);
	if (c && o.single_sbatch && c->system->scheduler != SCHED_SLURM) {
		warn("--single-sbatch needs a Slurm system (%s is not one)", c->system->path);
		goto done;
	}
	if (c)
		c->single_sbatch = o.single_sbatch;
	if (!c || !expand_campaign(&a, c, &rl))
		goto done;
	out_dir = o.out_dir ? o.out_dir : path_join(&a, c->system->output_path, c->scenario->name);
	if (!hooks_ok(&a, c, &rl))
		goto done;
	if (!install_collect(&a, c, &rl, &inst))
		goto done;
	/* CloudAI's flag: take the installed things as present, unchecked */
	inst.order_runs = !o.cache_without_check;
	add_dir_inputs(&a, c, &o);
	/* rules chosen by --rules-dir or $KUNAI_DATADIR stay chosen when ninja regenerates */
	if (o.rules_dir)
		o.rules_dir = absolute(&a, cwd, o.rules_dir);
	else if (getenv("KUNAI_DATADIR") && *getenv("KUNAI_DATADIR"))
		o.rules_dir = path_join(&a, absolute(&a, cwd, kunai_datadir(&dd)), "rules");
	rargc = gen_regen_args(&a, &o, out_dir, &rargv);
	rules = o.rules_dir ? o.rules_dir : path_join(&a, kunai_datadir(&dd), "rules");
	if (!ninja_safe(&a, c, cwd, exe, rules, rargv, rargc))
		goto done;
	if (c->single_sbatch && !script_single(c, &rl, &single))
		goto done;
	/* nothing can fail from here on but I/O: write the runs, then the graph */
	sink.root = out_dir;
	if (c->system->scheduler == SCHED_SLURM)
		sink.same_job = script_slurm_same_job;
	sink.script = ninja_script_name(c->system->scheduler);
	/* the build dir first, so that everything in it is made relative to it */
	if (!make_dir(out_dir, &made))
		goto done;
	if (stat(out_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		warn("%s: not a directory; the build dir must be one", out_dir);
		goto done;
	}
	/* one gen at a time, none under a live driver or a running job, and
	 * nothing rewritten before both are sure */
	if (!(other = lock_driver_other(out_dir)))
		lockfd = lock_take(out_dir, true, "gen");
	if (!other && lockfd < 0)
		goto done;
	if (other || (other = lock_driver_other(out_dir)) != 0) {
		warn("%s: ninja or kunai run (pid %ld) is running this campaign; not regenerating under it "
		     "(wait for it to finish, or stop it)", out_dir, other);
		goto done;
	}
	manifest_load(&mf, out_dir);
	if (mf.rootfd < 0) {
		warn("open %s:", out_dir);
		goto undo;
	}
	/* all or nothing from here: each step is journaled before it is taken */
	if (!journal_begin(&jr, mf.rootfd, out_dir))
		goto undo;
	sink.mf = &mf;
	sink.jr = &jr;
	/* the big files go out as they are written */
	sink_stream_begin(&sink, &js, "kunai.json");
	if (!render_all(&a, c, &rl, &sink, &ws, &n_ws, &js.buf))
		goto undo;
	sink_stream_end(&js);
	if (c->single_sbatch)
		sink_emit(&sink, "single_sbatch.sh", &single);
	if (c->scenario->prepare) {
		phase_script(c->scenario->prepare, "prepare", c->scenario->path, &b);
		sink_emit(&sink, "phases/prepare.sh", &b);
	}
	if (c->scenario->cleanup) {
		phase_script(c->scenario->cleanup, "cleanup", c->scenario->path, &b);
		sink_emit(&sink, "phases/cleanup.sh", &b);
	}
	ninja_write_local(c, exe, rules, cwd, rargv, rargc, &b);
	sink_emit(&sink, "local.ninja", &b);
	for (i = 0; i < inst.len; i++) {
		install_spec(c, &inst, &inst.items[i], &b);
		sink_emit(&sink, arena_printf(&a, "installables/%s.spec", inst.items[i].name), &b);
	}
	sink_stream_begin(&sink, &js, "report.ninja");
	ninja_write_report(c, &rl, &js.buf);
	sink_stream_end(&js);
	/* last, so that until every other file is in place the old graph
	 * (older than the edited config) makes ninja regenerate first */
	sink_stream_begin(&sink, &js, "build.ninja");
	ninja_write_build(c, &rl, &inst, &js.buf);
	sink_stream_end(&js);
	if (!sink_commit(&sink))
		goto undo;
	ninja_log_migrate(out_dir, rules, ninja_rules_file(c->system->scheduler));
	printf("kunai: %zu runs of scenario '%s' in %s\n", rl.len, c->scenario->name, out_dir);
	if (dir_out)
		buf_puts(dir_out, out_dir);
	rc = 0;
	close(lockfd);
	lockfd = -1;
	if (dry_run) {
		pid_t pid;
		int status;

		fflush(stdout);
		pid = fork();
		if (pid == 0) {
			execlp("ninja", "ninja", "-C", out_dir, "scripts", (char *)NULL);
			warn("exec ninja:");
			_exit(127);
		}
		if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		    WEXITSTATUS(status) != 0) {
			warn("ninja scripts failed in %s", out_dir);
			rc = 1;
		}
	}
	goto done;
undo:
	/* a full disk, say: what this gen did is undone, the build dir stays
	 * as it was (or, when undoing fails too, the next command undoes it) */
	sink_stream_free(&js);
	journal_close(&jr);
	if (mf.rootfd >= 0)
		journal_recover(out_dir, true);
	if (made)
		remove_tree_at(AT_FDCWD, out_dir);
done:
	if (lockfd >= 0)
		close(lockfd);
	buf_free(&b);
	buf_free(&dd);
	buf_free(&single);
	sink_stream_free(&js);
	journal_close(&jr);
	sink_free(&sink);
	manifest_free(&mf);
	free(inst.run_set);
	free(inst.set_off);
	free(inst.refs);
	for (i = 0; i < n_ws; i++)
		arena_free(&ws[i].arena);
	free(ws);
	arena_free(&a);
	return rc;
}

int
cmd_gen(int argc, char **argv)
{
	return generate(argc, argv, false, NULL);
}

int
cmd_dry_run(int argc, char **argv)
{
	return generate(argc, argv, true, NULL);
}

int
gen_build_dir(int argc, char **argv, struct buf *dir)
{
	return generate(argc, argv, false, dir);
}
