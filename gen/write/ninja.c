/* ninja.c: writes build.ninja (stable bytes: same campaign, same file, in any
 * checkout) and local.ninja (what depends on this machine: where kunai and
 * its rules are, and the regenerate edge with the input paths). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "install.h"
#include "ninja.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"
#include "gen/workloads/workload.h"

const char *
ninja_script_name(enum sched s)
{
	return s == SCHED_SLURM ? "cloudai_sbatch_script.sh" : s == SCHED_LSF ? "bsub_script.sh" : "run.sh";
}

const char *
ninja_rules_file(enum sched s)
{
	switch (s) {
	case SCHED_SLURM:
		return "slurm.ninja";
	case SCHED_KUBERNETES:
		return "kubernetes.ninja";
	case SCHED_LSF:
		return "lsf.ninja";
	case SCHED_RUNAI:
		return "runai.ninja";
	case SCHED_STANDALONE:
		break;
	}
	return "standalone.ninja";
}

void
ninja_path_in(struct buf *b, const char *dir, const char *file)
{
	struct buf p = {0};

	buf_printf(&p, "%s/%s", dir, file);
	ninja_escape_path(b, p.data);
	buf_free(&p);
}

/* Is some run's start the trigger of another run (start_post_init)? Such a
 * run gets a separate start edge whose output the dependants wait for. */
static bool
*started_targets(const struct scenario *sc)
{
	bool *t = xcalloc(sc->n_cases + 1, sizeof(*t));
	size_t i, j;

	for (i = 0; i < sc->n_cases; i++)
		for (j = 0; j < sc->cases[i].n_deps; j++)
			if (sc->cases[i].deps[j].type == DEP_START_POST_INIT)
				t[sc->cases[i].deps[j].target] = true;
	return t;
}

/* The phony that names the stamps of a sweep's iteration (r one of its
 * runs), unescaped, appended to p. */
static void
iteration_name(struct buf *p, const struct run *r)
{
	buf_printf(p, "%s/%d/kunai.iteration", r->tc->id, r->iteration);
}

/* The node that stands for one iteration of a case (its runs from first):
 * the run's stamp, or with a sweep the phony that names the point's stamps. */
static void
iteration_node(struct buf *b, const struct runlist *rl, size_t first, size_t per_iter)
{
	const struct run *r = &rl->items[first];
	struct buf p = {0};

	if (per_iter == 1) {
		ninja_path_in(b, r->dir, "kunai.stamp");
		return;
	}
	iteration_name(&p, r);
	ninja_escape_path(b, p.data);
	buf_free(&p);
}

/* A case's runs (contiguous in rl): the first, and whether it is the only one. */
struct case_runs {
	const struct run *first;
	bool single;
};

/* Each case's runs, by case index. */
static struct case_runs *
case_runs(const struct scenario *sc, const struct runlist *rl)
{
	struct case_runs *cr = xcalloc(sc->n_cases + 1, sizeof(*cr));
	size_t i, from;

	for (from = 0; from < rl->len; from = i) {
		for (i = from; i < rl->len && rl->items[i].tc == rl->items[from].tc; i++)
			;
		cr[rl->items[from].tc - sc->cases].first = &rl->items[from];
		cr[rl->items[from].tc - sc->cases].single = i - from == 1;
	}
	return cr;
}

/* The node that stands for case k where others name it (its dependants,
 * `run`): the stamp of its one run, or its alias. A test of one run is
 * named by its stamp though it has an alias, which only the user names: a
 * `ninja run` never scans (nor stats) it. */
static void
case_node(struct buf *b, const struct scenario *sc, const struct case_runs *cr, size_t k)
{
	if (!cr[k].single)
		ninja_escape_path(b, sc->cases[k].id);
	else
		ninja_path_in(b, cr[k].first->dir, "kunai.stamp");
}

/* A MoEBenchmark or DeepEP run whose matrices other runs read names them
 * as its outputs (its script leaves the newest of each in its dir). */
static void
matrix_outputs(struct buf *b, const struct run *r)
{
	if (!r->matrix_out)
		return;
	buf_puts(b, " | ");
	ninja_path_in(b, r->dir, "nccl_matrix.txt");
	buf_putc(b, ' ');
	ninja_path_in(b, r->dir, "ucc_matrix.txt");
}

/* The dependencies of a case's runs, as comments (once, above its first run). */
static void
deps_comment(struct buf *b, const struct scenario *sc, const struct run *r)
{
	static const char *const names[] = {"start_post_comp", "start_post_init", "end_post_comp"};
	size_t j;

	for (j = 0; j < r->n_deps; j++) {
		buf_printf(b, "# %s ", names[r->deps[j].type]);
		buf_puts(b, sc->cases[r->deps[j].case_index].id);
		buf_printf(b, ", delay %lds\n", r->deps[j].delay);
	}
}

/* The run's edge: its stamp, and nothing else a run does not need. The
 * runner's options (workload, time limit, dependencies) are the script's
 * #KUNAI line and its dir is the stamp's, so the edge has no bindings: a
 * no-op `ninja run` parses little more than a bare graph (a binding costs
 * ninja a scope per edge). Nor does it name the script: gen writes the
 * script and, when its bytes change, removes the run's stamps itself
 * (sink.c), so a no-op stats one file per run where an input would make it
 * two. Iterations in a sequencing pool have its rules (run_POOL,
 * start_POOL); chained ones name the iteration before them and, through
 * it, every precondition of the first. first: the first iteration's run
 * that this one waits for (order-only), or NULL. */
static void
run_edge(struct buf *b, const struct campaign *c, const struct runlist *rl, const struct run *r,
         bool started, const char *seq_pool, const struct run *first,
         const struct install_set *inst, const struct case_runs *cr)
{
	const struct scenario *sc = c->scenario;
	bool bar = false, chained = !seq_pool && r->iteration > 0, ordered = false, installed = false;
	size_t j;

	buf_puts(b, "build ");
	/* submit and wait for the start; the run edge then waits for the end */
	ninja_path_in(b, r->dir, started ? "kunai.started" : "kunai.stamp");
	if (!started)
		matrix_outputs(b, r);
	buf_puts(b, started ? ": start" : ": run");
	if (seq_pool)
		buf_printf(b, "_%s", seq_pool);
	/* the script holds the run's environment; hooks keep theirs apart; a
	 * DeepEP matrix is read from the run that wrote it */
	if (r->hook_env.len || r->matrix_dir) {
		buf_puts(b, " |");
		for (j = 0; j < r->hook_env.len; j++) {
			buf_putc(b, ' ');
			ninja_escape_path(b, r->hook_env.items[j]);
		}
		if (r->matrix_dir) {
			buf_putc(b, ' ');
			ninja_path_in(b, r->matrix_dir, r->def->wl->deepep_matrix);
		}
	}
	/* the previous iteration and the cases this one starts after, each
	 * named once: by its stamp, or the phony that groups its runs */
	if (chained) {
		buf_puts(b, " || ");
		bar = true;
		iteration_node(b, rl, r->prev, r->per_iter);
	}
	if (first) {
		buf_puts(b, " || ");
		bar = true;
		ninja_path_in(b, first->dir, "kunai.stamp");
	}
	for (j = 0; j < r->n_deps && !chained; j++) {
		if (r->deps[j].type == DEP_END_POST_COMP)
			continue;
		buf_puts(b, bar ? " " : " || ");
		bar = true;
		/* that test waited for the prepare phase, and for its installs
		 * (its first run, or the tests it starts after in turn) */
		ordered = true;
		installed |= inst->order_runs &&
		             inst->run_set[cr[r->deps[j].case_index].first->index] == inst->run_set[r->index];
		if (r->deps[j].type == DEP_START_POST_INIT)
			ninja_path_in(b, r->deps[j].first_dir, "kunai.started");
		else
			case_node(b, sc, cr, r->deps[j].case_index);
	}
	/* the campaign's prepare phase: a precondition, not an input (a
	 * changed prepare reruns itself, not the runs), unless the run waits
	 * for it through a test it starts after, as every test does */
	if (sc->prepare && !chained && !ordered) {
		buf_puts(b, bar ? " " : " || ");
		bar = true;
		buf_puts(b, "phases/prepare.stamp");
	}
	/* what it needs installed: a precondition too (see install.c), unless
	 * the first run of a test it starts after needs the same */
	if (inst->order_runs && inst->run_set[r->index] && !chained && !installed) {
		buf_puts(b, bar ? "" : " ||");
		bar = true;
		install_run_deps(inst, r->index, b);
	}
	/* end_post_comp: the other case is built too, in parallel (a validation
	 * orders nothing) */
	bar = false;
	for (j = 0; j < r->n_deps; j++) {
		if (r->deps[j].type != DEP_END_POST_COMP)
			continue;
		buf_puts(b, bar ? " " : " |@ ");
		bar = true;
		case_node(b, sc, cr, r->deps[j].case_index);
	}
	buf_putc(b, '\n');
	if (started) {
		buf_puts(b, "build ");
		ninja_path_in(b, r->dir, "kunai.stamp");
		matrix_outputs(b, r);
		buf_puts(b, ": run");
		if (seq_pool)
			buf_printf(b, "_%s", seq_pool);
		buf_putc(b, ' ');
		ninja_path_in(b, r->dir, "kunai.started");
		buf_putc(b, '\n');
	}
}

/* The runs [from, to)'s FILE as an edge's inputs, appended to list (each
 * after a blank): the files themselves, or past NINJA_INPUT_GROUP runs the
 * phonies NAME.K of NINJA_INPUT_GROUP files each, written to b. */
void
ninja_grouped_runs(struct buf *b, struct buf *list, const struct runlist *rl, size_t from, size_t to, const char *name,
                   const char *file)
{
	bool grouped = to - from > NINJA_INPUT_GROUP;
	struct buf g = {0};
	size_t i, k;

	for (k = from; k < to; k += grouped ? NINJA_INPUT_GROUP : 1) {
		buf_putc(list, ' ');
		if (!grouped) {
			ninja_path_in(list, rl->items[k].dir, file);
			continue;
		}
		g.len = 0;
		buf_printf(&g, "%s.%zu", name, (k - from) / NINJA_INPUT_GROUP);
		ninja_escape_path(list, g.data);
		buf_puts(b, "build ");
		ninja_escape_path(b, g.data);
		buf_puts(b, ": phony");
		for (i = k; i < to && i < k + NINJA_INPUT_GROUP; i++) {
			buf_putc(b, ' ');
			ninja_path_in(b, rl->items[i].dir, file);
		}
		buf_putc(b, '\n');
	}
	buf_free(&g);
}

/* Iterations of a test run one after another. Up to this many, each waits
 * (order-only) for the one before: the order is in the graph and the runs
 * share the jobs pool. Beyond, or where the chain would make the graph's
 * longest path (through start_post_comp dependencies too) longer than
 * NINJA_DEPTH_MAX, a pool of depth 1 per test (per sweep point) orders them
 * instead: ninja recurses along a path and runs out of an 8 MiB stack at
 * about 30,000 nodes. */
#define NINJA_CHAIN_MAX 1000
#define NINJA_DEPTH_MAX 10000

/* Which cases chain their iterations: the cases in dependency order (an
 * iterative depth-first walk), each chained while its alias stays within
 * NINJA_DEPTH_MAX nodes of the graph's leaves. */
static bool *
chained_cases(const struct scenario *sc, const struct runlist *rl)
{
	size_t n = sc->n_cases, i, u, sp, k, *iters = xcalloc(n + 1, sizeof(size_t));
	size_t *per = xcalloc(n + 1, sizeof(size_t)), *depth = xcalloc(n + 1, sizeof(size_t));
	size_t *stack = xcalloc(n + 1, sizeof(size_t)), *next = xcalloc(n + 1, sizeof(size_t));
	bool *chain = xcalloc(n + 1, sizeof(bool));
	char *seen = xcalloc(n + 1, 1);

	for (i = 0; i < rl->len; i++) {
		if (rl->items[i].hook_of)
			continue;
		u = (size_t)(rl->items[i].tc - sc->cases);
		iters[u] = (size_t)rl->items[i].iteration + 1;
		per[u]++;
	}
	for (i = 0; i < n; i++) {
		if (seen[i])
			continue;
		sp = 0;
		stack[sp++] = i;
		seen[i] = 1;
		while (sp) {
			const struct test_case *tc = &sc->cases[stack[sp - 1]];
			size_t base = 1, len;

			u = stack[sp - 1];
			if (next[u] < tc->n_deps) {
				size_t t = tc->deps[next[u]++].target;
				if (t < n && !seen[t]) {
					seen[t] = 1;
					stack[sp++] = t;
				}
				continue;
			}
			/* every dependency done: its alias's depth is known */
			for (k = 0; k < tc->n_deps; k++)
				if (tc->deps[k].target < n && tc->deps[k].type != DEP_END_POST_COMP &&
				    depth[tc->deps[k].target] + 1 > base)
					base = depth[tc->deps[k].target] + 1;
			/* a sweep's iteration is its phony and its runs */
			len = iters[u] * (iters[u] && per[u] > iters[u] ? 2 : 1);
			chain[u] = iters[u] <= NINJA_CHAIN_MAX && base + len + 1 <= NINJA_DEPTH_MAX;
			depth[u] = base + (chain[u] ? len : 1) + 1;
			sp--;
		}
	}
	free(iters);
	free(per);
	free(depth);
	free(stack);
	free(next);
	free(seen);
	return chain;
}

/* The sequencing pools of a case [from, to) whose iterations are not
 * chained, one per sweep point, each with the rules that run in it (the
 * rules files' commands); returns their count. */
static size_t
seq_pools(struct buf *b, size_t case_index, const struct runlist *rl, size_t from, size_t to, bool started)
{
	size_t iterations = (size_t)rl->items[to - 1].iteration + 1, per_iter = (to - from) / iterations, k;

	if (iterations < 2)
		return 0;
	for (k = 0; k < per_iter; k++) {
		buf_printf(b, "pool seq_%zu_%zu\n  depth = 1\n", case_index, k);
		buf_printf(b, "rule run_seq_%zu_%zu\n  command = $run_command $out\n"
		              "  description = RUN $out\n  pool = seq_%zu_%zu\n", case_index, k, case_index, k);
		if (started)
			buf_printf(b, "rule start_seq_%zu_%zu\n  command = $start_command $out\n"
			              "  description = START $out\n  pool = seq_%zu_%zu\n", case_index, k, case_index, k);
	}
	return per_iter;
}

/* The phony node that names the stamps of runs [from, to): through
 * phonies GROUPS.K of NINJA_INPUT_GROUP runs each where there are more. Each time
 * an input is built ninja scans a waiting edge's inputs from the first, so
 * one phony of every run would cost it time quadratic in the count
 * (minutes at 250,000 runs). */
static void
phony_of_runs(struct buf *b, const char *node, const char *groups, const struct runlist *rl, size_t from,
              size_t to)
{
	struct buf inputs = {0};

	ninja_grouped_runs(b, &inputs, rl, from, to, groups, "kunai.stamp");
	buf_puts(b, "build ");
	ninja_escape_path(b, node);
	buf_puts(b, ": phony");
	buf_push(b, inputs.data, inputs.len);
	buf_putc(b, '\n');
	buf_free(&inputs);
}

/* A case's alias: the runs [from, to) (every run, or its last iteration's,
 * which wait for all the others). */
static void
alias_of_runs(struct buf *b, const char *id, const struct runlist *rl, size_t from, size_t to)
{
	struct buf groups = {0};

	buf_printf(&groups, "%s/kunai.runs", id);
	phony_of_runs(b, id, groups.data, rl, from, to);
	buf_free(&groups);
}

void
ninja_write_build(const struct campaign *c, const struct runlist *rl, const struct install_set *inst,
                  struct buf *b)
{
	const struct scenario *sc = c->scenario;
	bool *started = started_targets(sc), *chain = chained_cases(sc, rl);
	struct case_runs *cr = case_runs(sc, rl);
	struct buf pool = {0}, iter = {0};
	size_t i, from, to, n_pools;

	buf_puts(b, "# Generated by kunai gen; edits are lost when it regenerates.\n");
	buf_puts(b, "# One run edge per test iteration: `ninja run` runs what has no good result,\n");
	buf_puts(b, "# `ninja report` grades and reports without running (report.ninja), `ninja scripts` is the dry run.\n");
	buf_puts(b, "ninja_required_version = 1.11\n\n");
	buf_puts(b, "# where kunai and its rules live on this machine, and the regenerate edge\n");
	buf_puts(b, "include local.ninja\n\n");
	buf_printf(b, "pool jobs\n  depth = %d\n\n", c->system->max_jobs);
	buf_puts(b, "include $rulesdir/common.ninja\n");
	buf_printf(b, "include $rulesdir/%s\n\n", ninja_rules_file(c->system->scheduler));
	buf_puts(b, "scenario = ");
	ninja_escape_value(b, sc->name);
	buf_puts(b, "\n");

	/* a case's runs are contiguous in rl: one block per case, with its alias */
	for (from = 0; from < rl->len; from = to) {
		const struct test_case *tc = rl->items[from].tc;

		for (to = from; to < rl->len && rl->items[to].tc == tc; to++)
			;
		buf_putc(b, '\n');
		n_pools = chain[tc - sc->cases] ? 0
		          : seq_pools(b, (size_t)(tc - sc->cases), rl, from, to, started[tc - sc->cases]);
		for (i = from; i < to; i++) {
			const struct run *r = &rl->items[i], *first;

			if (i == from || r->deps != rl->items[i - 1].deps)
				deps_comment(b, sc, r);
			pool.len = 0;
			if (n_pools)
				buf_printf(&pool, "seq_%zu_%zu", (size_t)(tc - sc->cases), (i - from) % n_pools);
			/* a pool orders its edges, not a start and its end: in a
			 * test that others start after, the first iteration alone
			 * is split (the one they wait for), and the others wait
			 * for its end, so that no two overlap */
			first = n_pools && started[tc - sc->cases] && r->iteration > 0
			        ? &rl->items[from + (i - from) % n_pools] : NULL;
			run_edge(b, c, rl, r, started[tc - sc->cases] && !first, n_pools ? pool.data : NULL,
			         first, inst, cr);
			/* a sweep's iteration that another follows: one phony names
			 * its points, and the next iteration's runs name the phony */
			if (!n_pools && r->per_iter > 1 && i + 1 < to && rl->items[i + 1].iteration != r->iteration) {
				iter.len = 0;
				iteration_name(&iter, r);
				phony_of_runs(b, iter.data, iter.data, rl, i + 1 - r->per_iter, i + 1);
			}
		}
		/* the alias names the last iteration's runs: each iteration waits
		 * (order-only) for every run of the one before, so building these
		 * builds all of the test's runs, and the graph stays small; with
		 * sequencing pools it names every run, NINJA_INPUT_GROUP at a time */
		for (i = to; !n_pools && i > from && rl->items[i - 1].iteration == rl->items[to - 1].iteration; i--)
			;
		alias_of_runs(b, tc->id, rl, n_pools ? from : i, to);
	}
	buf_free(&pool);
	buf_free(&iter);

	/* the report graph is report.ninja's: a nested ninja builds it, with
	 * a log of its own (ninja's log is one writer's). report.ninja is no
	 * output of the regenerate edge, so the nested ninja never regenerates
	 * (under a live driver, gen would refuse): this ninja did already,
	 * and gen writes report.ninja with build.ninja */
	buf_puts(b, "\nbuild always: phony\n");
	/* its log goes to .kunai/report, which ninja would follow were it a
	 * link: checked before the nested ninja opens it */
	buf_puts(b, "rule report_graph\n  command = if [ -L .kunai ] || [ -L .kunai/report ]; then echo 'kunai: "
	            ".kunai/report is a symbolic link; kunai does not write through links (remove it)' >&2; exit 1; fi; "
	            "ninja -f report.ninja report\n  pool = console\n");
	buf_puts(b, "build report: report_graph | always\n");
	/* phases: prepare once per change of its commands (a stamp), cleanup
	 * every time it is asked for, outside `run`, so that a failed run does
	 * not keep it from running: `kunai run` builds it after `run` */
	if (sc->prepare)
		buf_puts(b, "build phases/prepare.stamp: phase phases/prepare.sh\n"
		            "build prepare: phony phases/prepare.stamp\n");
	if (sc->cleanup)
		buf_puts(b, "build phases/cleanup.stamp: phase phases/cleanup.sh | always\n"
		            "build cleanup: phony phases/cleanup.stamp\n");
	install_edges(inst, b);
	/* gen wrote every script; ninja regenerates them with build.ninja */
	buf_puts(b, "build scripts: phony\n");
	/* run depends on the per-case aliases (or lone stamps), not on every stamp, and past
	 * NINJA_INPUT_GROUP tests on phonies of them (.kunai/run.K): ninja checks all
	 * inputs of a waiting edge each time one finishes */
	for (i = 0; sc->n_cases > NINJA_INPUT_GROUP && i < sc->n_cases; i++) {
		if (i % NINJA_INPUT_GROUP == 0)
			buf_printf(b, "%sbuild .kunai/run.%zu: phony", i ? "\n" : "", i / NINJA_INPUT_GROUP);
		buf_putc(b, ' ');
		case_node(b, sc, cr, i);
	}
	buf_puts(b, sc->n_cases > NINJA_INPUT_GROUP ? "\nbuild run: phony" : "build run: phony");
	for (i = 0; i < sc->n_cases; i += sc->n_cases > NINJA_INPUT_GROUP ? NINJA_INPUT_GROUP : 1) {
		buf_putc(b, ' ');
		if (sc->n_cases > NINJA_INPUT_GROUP)
			buf_printf(b, ".kunai/run.%zu", i / NINJA_INPUT_GROUP);
		else
			case_node(b, sc, cr, i);
	}
	buf_puts(b, "\n\ndefault run\n");
	free(started);
	free(chain);
	free(cr);
}

void
ninja_write_local(const struct campaign *c, const char *kunai, const char *rulesdir,
                  const char *cwd, const char *const *argv, size_t argc, struct buf *b)
{
	struct buf cmd = {0};
	size_t i;

	buf_puts(b, "# Generated by kunai gen: the machine-specific part of build.ninja.\n");
	/* $kunai and $rulesdir_q go into commands: quoted for the shell, then
	 * for ninja; $rulesdir is a path (include, inputs): for ninja only */
	sh_quote(&cmd, kunai);
	buf_puts(b, "kunai = ");
	ninja_escape_value(b, cmd.data);
	buf_puts(b, "\nrulesdir = ");
	ninja_escape_value(b, rulesdir);
	cmd.len = 0;
	sh_quote(&cmd, rulesdir);
	buf_puts(b, "\nrulesdir_q = ");
	ninja_escape_value(b, cmd.data);
	/* CloudAI's $PWD, which `kunai job` hands to the job: a shell word */
	cmd.len = 0;
	sh_quote(&cmd, cwd);
	buf_puts(b, "\nlaunch_dir = ");
	ninja_escape_value(b, cmd.data);
	if (c->system->scheduler == SCHED_RUNAI) {
		/* kunai job reads the API's secret from there (or from the
		 * variable it names): never from a generated file */
		struct buf p = {0};

		if (c->system->path[0] != '/')
			buf_printf(&p, "%s/", cwd);
		buf_puts(&p, c->system->path);
		cmd.len = 0;
		sh_quote(&cmd, p.data);
		buf_puts(b, "\nsystem_config = ");
		ninja_escape_value(b, cmd.data);
		buf_free(&p);
	}
	buf_puts(b, "\n\n");
	cmd.len = 0;

	/* the regenerate edge reruns the original command from where it ran */
	buf_puts(&cmd, "cd ");
	sh_quote(&cmd, cwd);
	buf_puts(&cmd, " && ");
	sh_quote(&cmd, kunai);
	for (i = 0; i < argc; i++) {
		buf_putc(&cmd, ' ');
		sh_quote(&cmd, argv[i]);
	}
	buf_puts(b, "rule regenerate\n  command = ");
	ninja_escape_value(b, cmd.data);
	buf_puts(b, "\n  description = Regenerating build.ninja\n  generator = 1\n  restat = 1\n\n");
	buf_puts(b, "build build.ninja local.ninja: regenerate");
	for (i = 0; i < c->inputs.len; i++) {
		struct buf p = {0};
		const char *in = c->inputs.items[i];
		if (in[0] != '/')
			buf_printf(&p, "%s/%s", cwd, in);
		else
			buf_puts(&p, in);
		buf_putc(b, ' ');
		ninja_escape_path(b, p.data);
		buf_free(&p);
	}
	buf_puts(b, " | ");
	ninja_escape_path(b, kunai);
	buf_puts(b, "\n  pool = console\n");
	buf_free(&cmd);
}
