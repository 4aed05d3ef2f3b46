/* script_test: quoting, workload command builders and the script writers,
 * on runs built by hand (no TOML; links model_util.o for model_format_time). With -o DIR it also writes the scripts of
 * CloudAI's four golden cases into DIR/<name>.sbatch for tests/scripts.bats. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/base/escape.h"
#include "gen/base/record.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"
#include "gen/write/script.h"
#include "tap.h"
#include "gen/base/util.h"
#include "gen/workloads/workload.h"

static struct arena A;

static struct toml_value *
str_value(const char *s)
{
	struct toml_value *v = arena_alloc(&A, sizeof(*v));

	v->type = TOML_STRING;
	v->u.str.s = arena_strdup(&A, s);
	v->u.str.len = strlen(s);
	return v;
}

static void
argset_add(struct argset *as, const char *k, const char *v)
{
	as->items = arena_grow(&A, as->items, as->len, as->len + 1, sizeof(*as->items));
	as->items[as->len].key = arena_strdup(&A, k);
	as->items[as->len].val = str_value(v);
	as->len++;
}

static void
kv_add(struct kvlist *l, const char *k, const char *v)
{
	l->items = arena_grow(&A, l->items, l->len, l->len + 1, sizeof(*l->items));
	l->items[l->len].key = arena_strdup(&A, k);
	l->items[l->len].value = arena_strdup(&A, v);
	l->len++;
}

/* The system of ../shared/cloudai-compat/golden/system.toml, as model.c
 * would load it. */
static struct system *
golden_system(void)
{
	struct system *s = arena_alloc(&A, sizeof(*s));

	s->path = "system.toml";
	s->name = "test_system";
	s->scheduler = SCHED_SLURM;
	s->install_path = "/opt/cloudai/install";
	s->output_path = "/opt/cloudai/output";
	s->default_partition = "main";
	s->mpi = "pmix";
	s->gpus_per_node = 8;
	s->cache_docker_images_locally = true;
	s->container_mount_home = true;
	s->supports_gpu_directives = -1;
	return s;
}

static struct campaign *
campaign(struct system *sys, const char *scenario)
{
	struct campaign *c = arena_alloc(&A, sizeof(*c));

	c->system = sys;
	c->scenario = arena_alloc(&A, sizeof(*c->scenario));
	c->scenario->name = scenario;
	return c;
}

/* A run of a one-iteration case id whose test uses workload wl with the
 * given cmd_args (key, value pairs, NULL-terminated). */
static struct run *
run(struct campaign *c, const char *id, const char *wl, const char *const *args)
{
	struct run *r = arena_alloc(&A, sizeof(*r));
	struct test_case *tc = arena_alloc(&A, sizeof(*tc));
	struct testdef *d = arena_alloc(&A, sizeof(*d));
	size_t i;

	d->name = id;
	d->wl = workload_find(wl);
	tc->id = id;
	tc->def = d;
	tc->iterations = 1;
	tc->time_limit = -1;
	r->c = c;
	r->tc = tc;
	r->def = d;
	r->num_nodes = 1;
	r->time_limit = -1;
	{
		struct buf b = {0};
		buf_printf(&b, "%s/0", id);
		r->dir = arena_strdup(&A, b.data);
		buf_free(&b);
	}
	for (i = 0; args && args[i]; i += 2) {
		argset_add(&d->cmd_args, args[i], args[i + 1]);
		kv_add(&r->args, args[i], args[i + 1]);
	}
	return r;
}

static char *
gen_slurm(const struct run *r, const struct hooks *h)
{
	struct buf b = {0};
	char *s;

	ok(script_slurm(&A, r, h, &b), "script_slurm %s", r->tc->id);
	s = arena_strdup(&A, buf_str(&b));
	buf_free(&b);
	return s;
}

static char *
command(const struct run *r)
{
	struct buf b = {0};
	char *s;

	r->def->wl->command(r, &b);
	s = arena_strdup(&A, buf_str(&b));
	buf_free(&b);
	return s;
}

static bool
has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = text; (p = strstr(p, line)); p++)
		if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
			return true;
	return false;
}

static void
test_quote(void)
{
	struct buf b = {0};

	sh_quote(&b, "abc-1.2/x=y,z:@%+_");
	ok(strcmp(buf_str(&b), "abc-1.2/x=y,z:@%+_") == 0, "safe word stays bare");
	b.len = 0;
	sh_quote(&b, "");
	ok(strcmp(buf_str(&b), "''") == 0, "empty word is ''");
	b.len = 0;
	sh_quote(&b, "it's $HOME");
	ok(strcmp(buf_str(&b), "'it'\\''s $HOME'") == 0, "quote and dollar: %s", buf_str(&b));
	b.len = 0;
	sh_quote(&b, "#x");
	sh_quote_cont(&b, "a#b");
	ok(strcmp(buf_str(&b), "'#x'a#b") == 0, "# is bare only inside a word");
	b.len = 0;
	sh_dquote_body(&b, "a\"$`\\b'");
	ok(strcmp(buf_str(&b), "a\\\"\\$\\`\\\\b'") == 0, "double-quote body escapes $ ` \" \\");
	b.len = 0;
	ok(sh_words(&b, "  --a b\t'c d' ") == 4 && strcmp(buf_str(&b), "--a b ''\\''c' 'd'\\'''") == 0,
	   "sh_words splits on blanks only: %s", buf_str(&b));
	b.len = 0;
	ninja_escape_path(&b, "a b:$c");
	ok(strcmp(buf_str(&b), "a$ b$:$$c") == 0, "ninja path escaping");
	b.len = 0;
	ninja_escape_value(&b, "a b:$c");
	ok(strcmp(buf_str(&b), "a b:$$c") == 0, "ninja value escaping");
	ok(sh_is_name("_A1") && !sh_is_name("1A") && !sh_is_name("A-B") && !sh_is_name(""),
	   "shell names");
	ok(sh_plain_command("sleep 0") && sh_plain_command("../bin/x --a 'b c' 'it'\\''s' -n=1") &&
	       sh_plain_command("'my prog' x"),
	   "literal words are a plain command");
	ok(!sh_plain_command("sleep 0 && true") && !sh_plain_command("echo $HOME") && !sh_plain_command("ls *") &&
	       !sh_plain_command("A=1 x") && !sh_plain_command("echo hi") && !sh_plain_command("'exit' 3") &&
	       !sh_plain_command("time x") && !sh_plain_command("") && !sh_plain_command("'' x") &&
	       !sh_plain_command("x 'y") && !sh_plain_command("x\ny") && !sh_plain_command("x \"y\""),
	   "operators, expansions, globs, assignments, builtins and keywords are not");
	buf_free(&b);
}

/* sh_split reads back what sh_quote wrote (the #KUNAI line of a script). */
static void
test_split(void)
{
	static const char *const words[] = {"--stop-with", "it's a \"test\"", "", "$x`y`", "a#b", "--delay"};
	struct arena a = {0};
	struct buf b = {0};
	char **v;
	size_t i;
	int n;

	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		buf_puts(&b, i ? " " : "");
		sh_quote(&b, words[i]);
	}
	n = sh_split(&a, buf_str(&b), &v);
	ok(n == 6, "sh_split: %d words from %s", n, buf_str(&b));
	for (i = 0; n == 6 && i < 6; i++)
		ok(strcmp(v[i], words[i]) == 0, "word %zu reads back: [%s]", i, v[i]);
	ok(n == 6 && v[6] == NULL, "the list ends with NULL");
	n = sh_split(&a, " a\\ b \"c\\\"d\\$\\n\" e'f'g\n", &v);
	ok(n == 3 && strcmp(v[0], "a b") == 0 && strcmp(v[1], "c\"d$\\n") == 0 && strcmp(v[2], "efg") == 0,
	   "backslash, double quotes, adjacent quotes");
	ok(sh_split(&a, "a 'b", &v) == -1 && sh_split(&a, "\"b", &v) == -1, "an unterminated quote is -1");
	ok(sh_split(&a, "  \t", &v) == 0 && v[0] == NULL, "no words");
	b.len = 0;
	sh_heredoc(&b, "EOF", "a\nEOF\nEOF_1 x\n");
	ok(strcmp(buf_str(&b), "<<'EOF_1'\na\nEOF\nEOF_1 x\nEOF_1\n") == 0,
	   "a here-document's delimiter is no line of its body");
	buf_free(&b);
	arena_free(&a);
}

static void
test_registry(void)
{
	const char *const *n = workload_names();
	size_t i, count = 0;
	bool all = true;

	for (i = 0; n[i]; i++, count++)
		all &= workload_find(n[i]) != NULL && strcmp(workload_find(n[i])->name, n[i]) == 0;
	ok(count == 34 && all, "every listed workload is found by name");
	ok(workload_find("nccl") == NULL, "names are exact");
	ok(workload_arg(workload_find("NcclTest"), "stepbytes")->def != NULL &&
	   strcmp(workload_arg(workload_find("NcclTest"), "stepbytes")->def, "1M") == 0,
	   "schema defaults");
}

static void
test_nccl(struct campaign *c)
{
	static const char *const mpi[] = {"docker_image_url", "nvcr.io#nvidia/pytorch:24.02-py3", NULL};
	static const char *const single[] = {"subtest_name", "all_gather_perf", "ngpus", "8", "R", "2",
	                                     "blocking_extra", "x y", NULL};
	static const char *const a2av[] = {"subtest_name", "alltoallv_perf_mpi", "stepfactor", "2", NULL};
	struct run *r = run(c, "n1", "NcclTest", mpi);
	const struct workload *wl = r->def->wl;
	const char *s;

	s = command(r);
	ok(strcmp(s, "all_reduce_perf_mpi --nthreads 1 --ngpus 1 --minbytes 32M --maxbytes 32M "
	             "--stepbytes 1M --op sum --datatype float --root 0 --iters 20 --warmup_iters 5 "
	             "--agg_iters 1 --average 1 --parallel_init 0 --check 1 --blocking 0 --cudagraph 0") == 0,
	   "nccl defaults in CloudAI's order: %s", s);
	ok(wl->uses_mpi(r) && wl->ntasks(r) == 0, "_mpi subtests use MPI");
	argset_add(&r->tc->def->extra_cmd_args, "--stepfactor", "2");
	argset_add(&r->tc->def->extra_cmd_args, "--flag", "");
	s = command(r);
	ok(strstr(s, "--cudagraph 0 --stepfactor 2 --flag") && s[strlen(s) - 1] == 'g',
	   "extra_cmd_args appended as 'k v': %s", s);

	r = run(c, "n2", "NcclTest", single);
	s = command(r);
	ok(strncmp(s, "all_gather_perf --nthreads 1 -g 8 --minbytes", 44) == 0 &&
	   strstr(s, "--cudagraph 0 -R 2 --blocking_extra 'x y'") != NULL,
	   "single-process subtest: -g, unknown keys forwarded: %s", s);
	ok(!wl->uses_mpi(r) && wl->ntasks(r) == 1, "non-_mpi subtests: one task, no --mpi");
	s = gen_slurm(r, NULL);
	ok(strstr(s, "\nsrun --export=ALL --ntasks=1 -N1 --container-image=") != NULL,
	   "--ntasks=1 takes --mpi's place");

	r = run(c, "n3", "NcclTest", a2av);
	s = command(r);
	ok(strcmp(s, "/opt/nccl-tests/build/alltoallv_perf -b 32M -e 32M -g 1 -w 5 -n 20 --nthreads 1 "
	             "--stepbytes 1M --op sum --datatype float --root 0 --agg_iters 1 --average 1 "
	             "--parallel_init 0 --check 1 --blocking 0 --cudagraph 0 --stepfactor 2") == 0,
	   "alltoallv_perf_mpi runs alltoallv_perf: %s", s);
}

static void
test_others(struct campaign *c)
{
	static const char *const ucc[] = {"docker_image_url", "img", "gen", "file:name=/x", NULL};
	static const char *const osu[] = {"docker_image_url", "img", "benchmarks_dir", "/osu",
	                                  "benchmark", "osu_allreduce", "message_size", "2:128",
	                                  "iterations", "10", NULL};
	static const char *const osu_bw[] = {"docker_image_url", "img", "benchmarks_dir", "/osu",
	                                     "benchmark", "osu_bw", NULL};
	static const char *const sleep[] = {"seconds", "7", NULL};
	static const char *const bash[] = {"cmd", "echo \"$HOME\" | tr a b", NULL};
	struct run *r;
	const char *s;

	s = command(run(c, "u", "UCCTest", ucc));
	ok(strcmp(s, "/opt/hpcx/ucc/bin/ucc_perftest -c alltoall -b 1 -e 8M --gen file:name=/x -m cuda -F") == 0,
	   "ucc: %s", s);
	s = command(run(c, "o", "OSUBench", osu));
	ok(strcmp(s, "/osu/osu_allreduce --message-size 2:128 --iterations 10 --full") == 0, "osu: %s", s);
	s = command(run(c, "o2", "OSUBench", osu_bw));
	ok(strcmp(s, "/osu/osu_bw") == 0, "osu_bw takes no --full: %s", s);
	s = command(run(c, "s", "Sleep", sleep));
	ok(strcmp(s, "sleep 7") == 0, "sleep: %s", s);
	s = command(run(c, "s0", "Sleep", NULL));
	ok(strcmp(s, "sleep 5") == 0, "sleep default");

	r = run(c, "b", "BashCmd", bash);
	s = gen_slurm(r, NULL);
	ok(has_line(s, "bash -c \"source $RUN_DIR_Q/env_vars.sh; echo \\\"\\$HOME\\\" | tr a b\""),
	   "BashCmd runs in the batch script, cmd escaped for the double quotes");
	ok(strstr(s, "bash \"$INSTALL_DIR/slurm-metadata.sh\"") != NULL, "no container: metadata from $INSTALL_DIR");
}

/* The hook scenario of CloudAI's nccl_test.toml dry run, wrapped around a
 * Sleep case, plus every value that could break quoting. */
static void
test_hooks_and_quoting(struct campaign *c)
{
	static const char *const hook_args[] = {"docker_image_url", "nvcr.io#nvidia/pytorch:25.06-py3",
	                                        "subtest_name", "all_gather_perf_mpi", NULL};
	static const char *const sleep[] = {"seconds", "1", NULL};
	struct run *r = run(c, "Tests.sleep", "Sleep", sleep);
	struct run *hr = run(c, "Tests.1", "NcclTest", hook_args);
	struct runlist pre = {hr, 1}, post = {hr, 1};
	struct hooks h = {&pre, &post};
	struct buf b = {0};
	const char *s;

	hr->tc->def->name = "nccl_test_all_gather";
	hr->dir = "Tests.sleep/0/pre_test/nccl_test_all_gather";
	kv_add(&r->env, "A", "x y $HOME 'q'");
	kv_add(&r->env, "B", "`id` $(id) \"q\"");
	kv_add(&r->env, "CUDA_VISIBLE_DEVICES", "0,1");
	r->time_limit = 3000;
	s = gen_slurm(r, &h);
	ok(has_line(s, "#SBATCH --time=00:50:00"), "time limit formatted");
	ok(has_line(s, "export A=\"x y $HOME 'q'\"") && has_line(s, "export B=\"`id` $(id) \\\"q\\\"\"") &&
	       has_line(s, "export CUDA_VISIBLE_DEVICES=0,1"),
	   "env values are one word, their expansions and substitutions live");
	ok(strstr(s, "\nsrun --output=\"$RUN_DIR/pre_test/nccl_test_all_gather/stdout.txt\" "
	             "--error=\"$RUN_DIR/pre_test/nccl_test_all_gather/stderr.txt\" --export=ALL --mpi=pmix -N1 "
	             "--container-image=\"$INSTALL_DIR/nvcr.io_nvidia__pytorch__25.06-py3.sqsh\" "
	             "--container-mounts=\"$RUN_DIR/pre_test/nccl_test_all_gather:/cloudai_run_results,"
	             "$INSTALL_DIR:/cloudai_install,$RUN_DIR/pre_test/nccl_test_all_gather\" bash -c "
	             "\"source $RUN_DIR_Q/pre_test/nccl_test_all_gather/env_vars.sh; all_gather_perf_mpi ") != NULL,
	   "pre hook srun in CloudAI's shape");
	ok(has_line(s, "SUCCESS_0=$( [ $? -eq 0 ] && grep -qF -- '# Out of bounds values' "
	               "\"$RUN_DIR/pre_test/nccl_test_all_gather/stdout.txt\" && grep -qF -- '# Avg bus bandwidth' "
	               "\"$RUN_DIR/pre_test/nccl_test_all_gather/stdout.txt\" && ! grep -qF -- 'Test failure' "
	               "\"$RUN_DIR/pre_test/nccl_test_all_gather/stdout.txt\" && ! grep -qF -- 'Test NCCL failure' "
	               "\"$RUN_DIR/pre_test/nccl_test_all_gather/stdout.txt\" && echo 1 || echo 0 )"),
	   "success check from the hook workload's patterns");
	ok(has_line(s, "PRE_TEST_SUCCESS=$( [ $SUCCESS_0 -eq 1 ] && echo 1 || echo 0 )") &&
	   has_line(s, "if [ $PRE_TEST_SUCCESS -eq 1 ]; then") && has_line(s, "    KUNAI_RC=$?") &&
	   has_line(s, "fi") && has_line(s, "exit $KUNAI_RC"),
	   "main and post run only when the pre hooks passed");
	ok(strstr(s, "    srun --output=\"$RUN_DIR/post_test/nccl_test_all_gather/stdout.txt\"") != NULL,
	   "post hook in post_test/");
	ok(strstr(s, "/Users") == NULL && strstr(s, "/opt/cloudai/output") == NULL && strstr(s, "/home/") == NULL,
	   "no absolute build path");
	script_env(r, &b);
	ok(strcmp(buf_str(&b), "export A=\"x y $HOME 'q'\"\n"
	                       "[ \"${KUNAI_ENV_RUN-}\" = Tests.sleep/0 ] || export B=\"`id` $(id) \\\"q\\\"\"\n"
	                       "export CUDA_VISIBLE_DEVICES=\"0,1\"\n") == 0,
	   "env_vars.sh: export K=\"V\" by the same rule as the script's exports, "
	   "a value that runs a command unless the job script computed it");
	ok(has_line(s, "export KUNAI_ENV_RUN=Tests.sleep/0") &&
	       strstr(s, "export KUNAI_ENV_RUN=Tests.sleep/0\n") > strstr(s, "export CUDA_VISIBLE_DEVICES=0,1\n"),
	   "the job script says it computed them, after its exports");
	b.len = 0;

	ok(script_standalone(&A, r, &h, &b), "script_standalone");
	s = buf_str(&b);
	ok(has_line(s, "case $0 in */*) cd -- \"${0%/*}\" || exit 1 ;; esac") && has_line(s, "exec >stdout.txt 2>stderr.txt") &&
	   has_line(s, "BUILD_DIR=${RUN_DIR%/*/*}"),
	   "standalone script runs in its own dir, output there");
	ok(has_line(s, "(source pre_test/nccl_test_all_gather/env_vars.sh && bash -c 'all_gather_perf_mpi "
	               "--nthreads 1 --ngpus 1 --minbytes 32M --maxbytes 32M --stepbytes 1M --op sum "
	               "--datatype float --root 0 --iters 20 --warmup_iters 5 --agg_iters 1 --average 1 "
	               "--parallel_init 0 --check 1 --blocking 0 --cudagraph 0') "
	               ">pre_test/nccl_test_all_gather/stdout.txt 2>pre_test/nccl_test_all_gather/stderr.txt"),
	   "standalone hook in its own dir");
	ok(has_line(s, "    bash -c 'sleep 1'"), "standalone main command");

	kv_add(&r->env, "BAD-NAME", "1");
	b.len = 0;
	fprintf(stderr, "# three errors expected:\n");
	ok(!script_slurm(&A, r, NULL, &b), "an env name that is no shell name is an error");
	r->env.len--;
	kv_add(&hr->env, "X;Y", "1");
	b.len = 0;
	ok(!script_standalone(&A, r, &h, &b), "so is one in a hook");
	b.len = 0;
	script_env(hr, &b);
	ok(b.len == 0, "and env_vars.sh leaves it out");
	hr->env.len--;
	c->system->default_partition = "main\nrm -rf /";
	b.len = 0;
	ok(!script_slurm(&A, r, NULL, &b), "a newline in an #SBATCH value is an error");
	c->system->default_partition = "main";
	buf_free(&b);
}

static void
test_directives(struct campaign *c)
{
	static const char *const sleep[] = {NULL};
	struct run *r = run(c, "d", "Sleep", sleep);
	struct system *sys = c->system;
	const char *s;
	const char *nodes[] = {"node-01", "node-02"};

	sys->account = "acct";
	sys->distribution = "block";
	sys->ntasks_per_node = 2;
	sys->extra_srun_args = "--reservation res1 --exclusive";
	sys->extra_sbatch_args.items = (const char *[]){"--qos=high", "--comment x"};
	sys->extra_sbatch_args.len = 2;
	r->nodes.items = nodes;
	r->nodes.len = 2;
	r->step = 3;
	r->dir = "d/0/3";
	s = gen_slurm(r, NULL);
	ok(strstr(s, "#SBATCH --job-name=acct-golden.d.0.3\n#SBATCH --output=stdout.txt\n"
	             "#SBATCH --error=stderr.txt\n#SBATCH --partition=main\n#SBATCH --account=acct\n"
	             "#SBATCH --reservation=res1\n#SBATCH --distribution=block\n"
	             "#SBATCH --nodelist=node-01,node-02\n#SBATCH --gpus-per-node=8\n#SBATCH --gres=gpu:8\n"
	             "#SBATCH --ntasks-per-node=2\n#SBATCH --qos=high\n#SBATCH --comment x\n") != NULL,
	   "directives in CloudAI's order");
	ok(has_line(s, "printf '%s\\n' node-01 node-01 node-02 node-02 >\"$RUN_DIR/hostfile.txt\"") &&
	   has_line(s, "export SLURM_HOSTFILE=\"$RUN_DIR/hostfile.txt\""), "hostfile: each node once per task");
	ok(has_line(s, "BUILD_DIR=$(cd \"$RUN_DIR/../../..\" && pwd)"), "build dir three levels up for a step");
	ok(strstr(s, " -N1") == NULL && strstr(s, "--ntasks=2 --ntasks-per-node=1") != NULL,
	   "no -N with a node list; metadata on every node");
	ok(strstr(s, "--mpi=pmix --reservation res1 --exclusive --output=") != NULL,
	   "system extra_srun_args on every srun");
	sys->install_path = "./install_dir";
	s = gen_slurm(r, NULL);
	ok(has_line(s, "INSTALL_DIR=\"$BUILD_DIR\"/install_dir"), "relative install_path: under the build dir");
	sys->install_path = "/opt/cloudai/install";
	sys->account = NULL;
	sys->distribution = NULL;
	sys->ntasks_per_node = 0;
	sys->extra_srun_args = NULL;
	sys->extra_sbatch_args.len = 0;
}

static void
write_out(const char *dir, const char *name, const char *ext, struct buf *b)
{
	struct buf path = {0};
	FILE *f;

	buf_printf(&path, "%s/%s%s", dir, name, ext);
	f = fopen(path.data, "w");
	if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0)
		fatal("write %s:", path.data);
	buf_free(&path);
	b->len = 0;
}

/* The scripts of the golden cases (golden/NAME.test.toml on golden/system.toml). */
static void
dump_golden(struct campaign *c, const char *dir)
{
	static const char *const nccl[] = {"docker_image_url", "nvcr.io#nvidia/pytorch:24.02-py3", NULL};
	static const char *const sleep[] = {"seconds", "5", NULL};
	static const char *const ucc[] = {"docker_image_url", "nvcr.io#nvidia/pytorch:24.02-py3", NULL};
	static const char *const sc[] = {"docker_image_url", "https://docker/url", "cmd", "pwd ; ls", NULL};
	struct {
		const char *name, *wl;
		const char *const *args;
	} cases[] = {
		{"nccl", "NcclTest", nccl},
		{"sleep", "Sleep", sleep},
		{"ucc", "UCCTest", ucc},
		{"slurm_container", "SlurmContainer", sc},
	};
	static const char *const hook[] = {"cmd", "echo \"hook $0\"; exit ${HOOK_RC:-0}", NULL};
	static const char *const main_cmd[] = {"cmd", "echo 'main ran'; exit 3", NULL};
	struct runlist pre, post;
	struct hooks h = {&pre, &post};
	struct buf b = {0};
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		script_slurm(&A, run(c, cases[i].name, cases[i].wl, cases[i].args), NULL, &b);
		write_out(dir, cases[i].name, ".sbatch", &b);
	}
	/* a BashCmd run between BashCmd hooks, to run by hand or from a test */
	pre.items = run(c, "pre", "BashCmd", hook);
	pre.len = 1;
	post.items = run(c, "post", "BashCmd", hook);
	post.len = 1;
	script_standalone(&A, run(c, "hooked", "BashCmd", main_cmd), &h, &b);
	write_out(dir, "hooked", ".sh", &b);
	script_slurm(&A, run(c, "hooked", "BashCmd", main_cmd), &h, &b);
	write_out(dir, "hooked", ".sbatch", &b);
	buf_free(&b);
}


/* An earlier kunai's sbatch script (record lines without nodes) runs the
 * same job as the new one, and only that script does. */
static void
test_records_upgrade(struct campaign *c)
{
	static const char *const cmd[] = {"cmd", "true", NULL};
	struct buf now = {0}, was = {0}, back = {0}, twice = {0};
	const char *rel = "t/0/cloudai_sbatch_script.sh";

	script_slurm(&A, run(c, "up", "BashCmd", cmd), NULL, &now);
	ok(strstr(buf_str(&now), "echo \"nodes=${SLURM_JOB_NODELIST-}\"") != NULL, "records: Slurm's exit record names the nodes");
	ok(record_script_swap(now.data, now.len, "SLURM_JOB_ID", "SLURM_JOB_NODELIST", false, &was) &&
	       strstr(buf_str(&was), "SLURM_JOB_NODELIST-") == NULL && strstr(buf_str(&was), "echo $kunai_rc") != NULL,
	   "records: the new form back to the earlier one");
	ok(record_script_swap(was.data, was.len, "SLURM_JOB_ID", "SLURM_JOB_NODELIST", true, &back) &&
	       back.len == now.len && memcmp(back.data, now.data, now.len) == 0,
	   "records: ... and forth, byte for byte");
	ok(script_slurm_same_job(rel, was.data, was.len, now.data, now.len), "records: the earlier form runs the same job");
	ok(!script_slurm_same_job("t/0/env_vars.sh", was.data, was.len, now.data, now.len),
	   "records: ... in an sbatch script only");
	buf_push(&was, "true\n", 5);
	ok(!script_slurm_same_job(rel, was.data, was.len, now.data, now.len),
	   "records: not when anything else differs");
	buf_push(&twice, was.data, was.len);
	buf_push(&twice, was.data, was.len);
	back.len = 0;
	ok(!record_script_swap(twice.data, twice.len, "SLURM_JOB_ID", "SLURM_JOB_NODELIST", true, &back) && !back.len,
	   "records: not a text that holds them twice");
	ok(!script_slurm_same_job(rel, now.data, now.len, now.data, now.len),
	   "records: the new form is not an earlier one");
	buf_free(&now);
	buf_free(&was);
	buf_free(&back);
	buf_free(&twice);
}

/* CSV and Markdown text from run output: nothing a spreadsheet or a
 * Markdown renderer would run or link. */
static void
test_report_text(void)
{
	static const struct {
		const char *in, *out;
	} csv[] = {
		{"node-01", "node-01"}, {"a,b", "\"a,b\""}, {"say \"hi\"", "\"say \"\"hi\"\"\""},
		{"=1+2", "\"'=1+2\""}, {"+1", "\"'+1\""}, {"-1", "\"'-1\""}, {"@SUM(A1)", "\"'@SUM(A1)\""},
		{"\tx", "\"'\tx\""}, {"\rx", "\"'\rx\""}, {"a-b=c", "a-b=c"}, {"", ""},
	};
	struct buf b = {0};
	size_t i;

	for (i = 0; i < LEN(csv); i++) {
		b.len = 0;
		csv_field(&b, csv[i].in);
		ok(strcmp(buf_str(&b), csv[i].out) == 0, "csv_field: %s", buf_str(&b));
	}
	b.len = 0;
	md_text(&b, "<script>x</script> [a](http://e) ![i](j) `c` a|b \\[ & \n");
	ok(strcmp(buf_str(&b), "&lt;script&gt;x&lt;/script&gt; \\[a\\](http://e) !\\[i\\](j) \\`c\\` a\\|b \\\\\\[ &amp;  ") ==
	       0,
	   "md_text: no HTML, link, code span or cell break: %s", buf_str(&b));
	buf_free(&b);
}

/* Live values: the body written for each value, and what sh_live_check
 * says of CloudAI's bare line (NULL: the same value). */
static void
test_live(void)
{
	static const struct {
		const char *in, *body;
		bool differs, bad;
	} t[] = {
		{"$(scontrol show hostname $SLURM_JOB_NODELIST | tr -s '\\n' ',')",
		 "$(scontrol show hostname $SLURM_JOB_NODELIST | tr -s '\\n' ',')", false, false},
		{"`hostname`:$HOME/${X:-a}", "`hostname`:$HOME/${X:-a}", false, false},
		{"\\$HOME \\`x\\`", "\\$HOME \\`x\\`", true, false},
		{"\\$HOME", "\\$HOME", false, false},
		{"a \"b\" \\c", "a \\\"b\\\" \\\\c", true, false},
		{"$PWD/x:${PWD}/y:${PWD%/*}:$PWDX", "${V:-$F}/x:${V:-$F}/y:${V%/*}:$PWDX", false, false},
		{"$(cd $PWD && echo '$PWD')", "$(cd ${V:-$F} && echo '$PWD')", false, false},
		{"$((1 + 2))", "$((1 + 2))", false, false},
		{"a$", "a$", false, false},
		{"$(echo \"a)b\")", "$(echo \"a)b\")", false, false},
		{"a\nb", NULL, false, true},
		{"$(x", NULL, false, true},
		{"${x", NULL, false, true},
		{"`x", NULL, false, true},
	};
	struct buf b = {0};
	size_t i;
	bool bad;

	for (i = 0; i < LEN(t); i++) {
		const char *why = sh_live_check(t[i].in, &bad);
		ok(bad == t[i].bad && (bad || !!why == t[i].differs), "sh_live_check '%s': %s", t[i].in,
		   why ? why : "same");
		if (!t[i].body)
			continue;
		b.len = 0;
		sh_live_body(&b, t[i].in, "V", "$F");
		ok(strcmp(buf_str(&b), t[i].body) == 0, "sh_live_body '%s' -> %s", t[i].in, buf_str(&b));
	}
	ok(sh_is_live("a`b") && sh_is_live("$") && !sh_is_live("a b'\"\\"), "sh_is_live");
	ok(sh_live_computes("$(id)") && sh_live_computes("x`id`") && sh_live_computes("${X:-$(id)}") &&
	   sh_live_computes("$((1+1))") && sh_live_computes("\\ $(id)"),
	   "sh_live_computes: $(...), backquotes, inside ${...}, after a lone backslash");
	/* as sh_live_body reads \\$: a literal backslash, then an escaped $ */
	ok(!sh_live_computes("$HOME ${X} \\$(id) \\`id\\` \\\\$(id) $") && !sh_live_computes(""),
	   "sh_live_computes: names, escaped $( and backquotes are no command");
	buf_free(&b);
}

int
main(int argc, char **argv)
{
	struct campaign *c = campaign(golden_system(), "golden");

	if (argc == 3 && strcmp(argv[1], "-o") == 0) {
		dump_golden(c, argv[2]);
		arena_free(&A);
		return 0;
	}
	test_quote();
	test_report_text();
	test_split();
	test_live();
	test_registry();
	test_nccl(c);
	test_others(c);
	test_hooks_and_quoting(c);
	test_directives(c);
	test_records_upgrade(c);
	arena_free(&A);
	return tap_done();
}
