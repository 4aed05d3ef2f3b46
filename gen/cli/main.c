/* main.c: command-line flags and subcommand dispatch. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "gen/base/util.h"
#include "gen/model/model.h"
#include "gen/toml/toml.h"
#include "gen/write/gen.h"
#include "reports/history/compare.h"
#include "reports/history/export.h"
#include "reports/grade/grade.h"
#include "reports/history/status.h"
#include "reports/report.h"
#include "reports/write/plot/plot.h"
#include "rules/job/job.h"

#ifndef KUNAI_VERSION
#define KUNAI_VERSION "0.0.0-dev"
#endif

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *brief; /* kunai help's one line */
	bool internal;     /* what ninja runs in a build dir, or a tool for tests */
	const char *synopsis;
	const char *help;
};

/* The flags of gen, which run, dry-run, install and uninstall take too. */
#define GEN_FLAGS \
	"  --system-config FILE    system TOML (slurm, standalone, kubernetes)\n" \
	"  --tests-dir DIR         test definitions (every *.toml in DIR)\n" \
	"  --test-scenario FILE    scenario TOML\n" \
	"  --hook-dir DIR          pre/post hook scenarios (tests in DIR/test)\n" \
	"  --rules-dir DIR         ninja rule files to include instead of kunai's own\n" \
	"  -o, --output-dir DIR    the build dir\n" \
	"  --set KEY=VALUE         override a field, e.g. Tests.1.cmd_args.iters=50\n" \
	"                          (system fields: system.KEY); repeatable\n" \
	"  --preset NAME           apply the scenario's [presets.NAME] overrides (its\n" \
	"                          extends first); repeatable; before every --set\n" \
	"  --single-sbatch         slurm: every run as a step of one allocation (one\n" \
	"                          sbatch for the campaign)\n" \
	"  --enable-cache-without-check   runs do not wait for install edges: what\n" \
	"                          they need is taken as present, unchecked\n" \
	"CloudAI's older spellings (--system_config_path, --test_scenario_path,\n" \
	"--tests_dir, --test_templates_dir, --output_dir, --output_path, --mode\n" \
	"dry-run) are accepted too.\n"

static int cmd_help(int argc, char **argv);
static int cmd_toml2json(int argc, char **argv);
static int cmd_generate_report(int argc, char **argv);

static const struct command commands[] = {
	{"run", cmd_run, "gen, run what has no result yet, report: the usual command", false,
	 "run [--rerun] [gen options]",
	 "kunai gen, then `ninja -C BUILD_DIR -k 0 -j 0 run` (SIGINT and SIGTERM are\n"
	 "passed on and cancel the jobs; a hangup, the terminal closing, detaches:\n"
	 "the jobs keep running and the same command again reattaches), then `ninja\n"
	 "cleanup` when the scenario has a cleanup phase (after an interruption too;\n"
	 "its failure is reported, not counted), then `ninja report` (its output in\n"
	 "BUILD_DIR/report.log; on Slurm, a run its peers flagged is first measured\n"
	 "again beside a peer node, as the edges of again.ninja: only a gap\n"
	 "reproduced drains its node), then a table of the runs, the worst first, with\n"
	 "the reason of each that did not pass. While it runs, one line (on a\n"
	 "terminal) or a line per finished run shows done/total, passed, failed,\n"
	 "running, pending on the scheduler, the elapsed and the estimated time\n"
	 "left and the runs running. When nothing needed running it says when the\n"
	 "results are from. Then the fleet verdict; the last line is the\n"
	 "campaign's status (failed, suspect, incomplete or passed) and its counts.\n"
	 "Exit status 1 when any run did not pass or a node is to be drained,\n"
	 "128+N when stopped by signal N.\n\n"
	 "  --rerun   run every run again (`ninja -t clean run` first; earlier\n"
	 "            attempts are kept)\n" GEN_FLAGS},
	{"status", cmd_status, "the campaign's status and where each run is", false, "status BUILD_DIR",
	 "One line per run: its outcome, or for a run under way its live state\n"
	 "(one batched squeue for all Slurm jobs; nothing is asked when no run is\n"
	 "live), job id, elapsed time and its nodes (n[1-3,5]); last, the\n"
	 "campaign's status (failed, suspect, incomplete or passed) and counts.\n"},
	{"report", cmd_report, "grade every run and write the reports (HTML, JSON, JUnit, CSV)", false,
	 "report BUILD_DIR [--check] [--no-html | --html-only] [--history DIR...]",
	 "Grade every run whose report.json is older than its results (or than\n"
	 "kunai.json) into its report.json, as `kunai grade` does, then write\n"
	 "BUILD_DIR/report/summary.json, junit.xml and summary.md: every run of\n"
	 "kunai.json with its outcome (passed, failed, perf-failed, suspect,\n"
	 "timeout, cancelled, node-fail, infra, skipped, running, not-run). A run\n"
	 "that never started because an earlier iteration or a dependency did not\n"
	 "pass is skipped; a passed run with a value far from the same value on\n"
	 "its peers (other nodes or GPUs) is suspect. The last line is the fleet\n"
	 "verdict: the nodes to drain and why, the healthy and inconclusive ones.\n"
	 "Never runs anything. Also writes report/csv/METRIC.csv and the HTML\n"
	 "report (report/index.html, report/runs/).\n\n"
	 "  --check       exit status 1 when any run did not pass (a program that\n"
	 "                ran and reported SKIPPED does not count) or a node is to\n"
	 "                be drained\n"
	 "  --no-html     no HTML (ninja's report edge: its html edge follows the plots)\n"
	 "  --html-only   only the HTML, from report/summary.json\n"
	 "  --history DIR...  earlier campaigns (build dirs or summary.json): report/\n"
	 "                history.md flags each value worse than the worst of at\n"
	 "                least 3 earlier ones by more than its tolerance (the\n"
	 "                reference's, else 5%) of their median; --check fails then,\n"
	 "                and when fewer than 3 campaigns could be read (\"history: 2\n"
	 "                of 3 campaigns needed; not checked\") or a DIR could not be\n"
	 "                read\n"},
	{"dry-run", cmd_dry_run, "gen, then write every job script; nothing is submitted", false, "dry-run [gen options]",
	 "kunai gen, then `ninja scripts`: every job script, nothing submitted.\n\n" GEN_FLAGS},
	{"gen", cmd_gen, "compile a campaign into a Ninja build dir (nothing runs)", false,
	 "gen --system-config FILE --test-scenario FILE [--tests-dir DIR] [--hook-dir DIR]\n"
	 "            [-o DIR] [--preset NAME]... [--set KEY=VALUE]... [--single-sbatch]",
	 "Compile the campaign into a Ninja build dir (-o DIR, or --output-dir DIR;\n"
	 "default: the system's output_path/<scenario name>): build.ninja, one job\n"
	 "script and env_vars.sh per run (<id>/<iteration>[/<step>]), kunai.json.\n"
	 "Files whose bytes did not change are not rewritten. On any error nothing\n"
	 "is written.\n\n" GEN_FLAGS},
	{"compare", cmd_compare, "the regressions of one campaign against another", false, "compare [--all] [--tolerance PCT] OLD NEW",
	 "Compare two campaigns' results (build dirs, or their report/summary.json):\n"
	 "every whole-run value of NEW (per test, step, metric, node and GPU; the\n"
	 "mean of its iterations) against OLD's. Prints the regressions first,\n"
	 "worst first (a value that moved the wrong way by more than its\n"
	 "tolerance: its reference's lower or upper tolerance, else PCT, default\n"
	 "5), then a one-line count; exit status 1 when there is one.\n\n"
	 "  --all         every value in both, not only the regressions\n"},
	{"export", cmd_export, "pack a build dir's results into a .tar.gz for later analysis", false,
	 "export BUILD_DIR -o FILE.tar.gz | export --list ARCHIVE|BUILD_DIR",
	 "Pack what a later analysis needs into FILE.tar.gz, paths relative to the\n"
	 "build dir: kunai.json, build.ninja, each run's job.json, report.json,\n"
	 "stdout.txt, stderr.txt and script (and those of its attempt-N/), the\n"
	 "phases/ logs and the report/ folder. ustar, compressed by gzip -n.\n"
	 "Links are not followed. The file appears complete or not at all.\n\n"
	 "  -o, --output FILE  the archive to write\n"
	 "  --list PATH   open PATH as report's history and compare do (an\n"
	 "                archive is checked and extracted to a temp dir, then\n"
	 "                removed) and print its files. An archive that is\n"
	 "                truncated, or holds absolute paths, '..' parts, links\n"
	 "                or devices, or no kunai.json, is refused (exit 1).\n"},
	{"install", cmd_install, "install what the campaign needs (images, repositories)", false,
	 "install [gen options]",
	 "kunai gen, then `ninja install`: everything the campaign's runs need in\n"
	 "install_path, each once: container images (enroot import, through srun\n"
	 "on Slurm, when cache_docker_images_locally is set), git repositories at\n"
	 "their commit, python environments, slurm-metadata.sh. What is there\n"
	 "already is kept; a download is renamed into place only when complete.\n"
	 "`ninja run` installs first by itself.\n\n" GEN_FLAGS},
	{"uninstall", cmd_uninstall, "remove what install put in install_path", false, "uninstall [gen options]",
	 "kunai gen, then `ninja uninstall`: removes from install_path what install\n"
	 "puts there for this campaign (and leftovers of interrupted installs).\n\n" GEN_FLAGS},
	{"verify-configs", cmd_verify_configs, "check TOML files (system, test, scenario) without running", false,
	 "verify-configs [--tests-dir DIR] [--hook-dir DIR] PATH...",
	 "Classify every TOML file under PATH (system, test or scenario) and\n"
	 "validate it. Exit status 1 when any file has an error.\n"},
	{"generate-report", cmd_generate_report, "CloudAI's verb: the report of a result dir, kunai's or CloudAI's", false,
	 "generate-report --system-config FILE --test-scenario FILE [--tests-dir DIR]\n"
	 "            [--hook-dir DIR] --result-dir DIR",
	 "CloudAI's verb, with its flags: `kunai report DIR` of --result-dir, a kunai\n"
	 "build dir or a results dir that CloudAI wrote (no kunai.json: its run dirs'\n"
	 "test-run.toml). The configs must exist (the system may come from\n"
	 "$CLOUDAI_SYSTEM_CONFIG); the results dir says what ran.\n"},
	{"help", cmd_help, "this list, or the help of one command", false, "help [COMMAND]",
	 "Print the list of commands, or the help of one command.\n"},
	{"grade", cmd_grade, "grade one run into its report.json (ninja's report edges)", true, "grade DIR/report.json",
	 "Run in the build dir (ninja does): grade one run from what its dir holds\n"
	 "(job.json, stdout.txt) and write DIR/report.json: outcome, reason, exit\n"
	 "code, times, and the workload's metrics (NcclTest: max_busbw, avg_busbw\n"
	 "in GB/s; below cmd_args.min_busbw is perf-failed). Never runs anything;\n"
	 "a failed run is not an error (exit 0). Exit 1 when DIR is not a run of\n"
	 "kunai.json or the report cannot be written.\n"},
	{"job", cmd_job, "submit, wait for and record one run (ninja's run edges)", true,
	 "job run|start --scheduler standalone|slurm|kubernetes|lsf|runai [options] DIR|DIR/kunai.stamp",
	 "Run one run dir of the build dir (what `ninja run` calls, from the build\n"
	 "dir, with the edge's stamp): submit DIR's script, or reattach to its job if an earlier\n"
	 "invocation left one queued or running; wait; record DIR/job.json (state,\n"
	 "exit code, outcome class, times, nodes) and write DIR/kunai.stamp only\n"
	 "when the run passed. Exit status 0 iff it passed. `job start` returns\n"
	 "once the job has started (writing DIR/kunai.started); a later `job run`\n"
	 "waits for its end. Earlier attempts move to DIR/attempt-N/. Ctrl-C\n"
	 "cancels the job. A job of a second ninja on the same build dir is refused.\n"
	 "The options below also come from the #KUNAI lines at the top of DIR's\n"
	 "script (gen writes the run's there); the command line's come after them.\n\n"
	 "  --workload NAME         success check on stdout.txt (workload's patterns)\n"
	 "  --time-limit SEC        standalone: TERM, then KILL 10 s later\n"
	 "  --after-start DIR:SEC   submit SEC seconds after run DIR started\n"
	 "  --stop-with ID          end the job once every run of test ID completed\n"
	 "                          (outcome passed, reason \"stopped: ID completed\")\n"
	 "  --delay SEC             wait SEC seconds before submitting\n"
	 "  --retries N             infrastructure failures (node-fail, infra) retried\n"
	 "                          N times (default 2, or $KUNAI_MAX_RETRIES), the\n"
	 "                          first after 5 s ($KUNAI_RETRY_DELAY), then doubling\n"
	 "  --poll-max SEC          slurm: longest interval between the batched\n"
	 "                          scheduler queries (default 60, or $KUNAI_POLL_MAX)\n"
	 "  --launch-dir DIR        the job's KUNAI_LAUNCH_DIR, CloudAI's $PWD (the\n"
	 "                          dir gen ran in; local.ninja's launch_dir)\n"
	 "  --single-sbatch SCRIPT  slurm: queue the run as a step of the build dir's\n"
	 "                          one allocation, SCRIPT (gen --single-sbatch)\n"
	 "  --node-group PARTITION:GROUP:N:NODES   slurm: choose N nodes of the\n"
	 "                          group when submitting (idle first)\n"
	 "  --also-nodes LIST       slurm: nodes added to the chosen ones\n"
	 "  --exclude-nodes LIST    slurm: nodes never chosen\n"
	 "  --system-config FILE    runai: the system file, whose app_secret (or the\n"
	 "                          variable it names, \"$NAME\") authenticates\n\n"
	 "A Slurm job's exit record that the scheduler has not confirmed within\n"
	 "600 s ($KUNAI_TRUST_RECORD; slurmctld down, accounting lagging) is taken\n"
	 "as the job's end, with a warning, rather than waited on forever.\n"},
	{"installable", cmd_installable, "install or remove one installable (ninja's install edges)", true,
	 "installable install [--rules-dir DIR] installables/NAME.stamp | installable uninstall SPEC...",
	 "Run in the build dir (ninja does): install the installable that\n"
	 "installables/NAME.spec describes, then write the stamp; or remove what specs\n"
	 "name, and their stamps.\n"},
	{"phase", cmd_phase, "run the prepare or cleanup phase (ninja's phase edges)", true,
	 "phase phases/NAME.stamp",
	 "Run in the build dir (ninja does): the campaign's prepare or cleanup phase,\n"
	 "phases/NAME.sh (from the scenario's [prepare] / [cleanup] commands), under\n"
	 "its time limit (TERM, then KILL 5 s later, to the whole process group).\n"
	 "Output goes to phases/NAME/output.txt, the outcome (passed, failed,\n"
	 "timeout, interrupted) to phases/NAME.json; the stamp is written only when\n"
	 "every command succeeded. Exit status 0 iff it passed.\n"},
	{"plot", cmd_plot, "draw runs' plots with gnuplot (ninja's plot edges)", true, "plot KIND DIR/report.json... OUT.svg... | plot KIND --test ID OUT.svg",
	 "Draw runs' plots with gnuplot, the first report's into the first OUT and\n"
	 "so on, in one gnuplot process (what the plot edges of `ninja report`\n"
	 "run): KIND is busbw (bus bandwidth per message size), gemm (TFLOP/s per\n"
	 "GPU per node), loss (training loss per epoch), osu or ucc. With --test\n"
	 "(in the build dir): every run of test ID on one plot, the perf-failed\n"
	 "ones red and named, the test's references dashed. OUT is replaced only\n"
	 "when its bytes change. Without gnuplot OUT is an SVG that says so.\n"},
	{"toml2json", cmd_toml2json, "a TOML file as toml-test's tagged JSON (the parser's tests)", true,
	 "toml2json [FILE]",
	 "Parse a TOML 1.0 document (FILE, or standard input when FILE is absent\n"
	 "or '-') and print it as toml-test's tagged JSON: tables are objects,\n"
	 "arrays are arrays, every scalar is {\"type\": T, \"value\": \"S\"}.\n"
	 "On invalid input print 'path:line:col: error: message' and exit 1.\n"},
};

/* The user's commands, each with what it does, then the internal ones. */
static void
usage(FILE *f)
{
	size_t i;
	int internal;

	fprintf(f, "usage: kunai [--help | --version | --datadir] COMMAND [ARGS...]\n"
	           "       kunai [--log-file FILE] [--log-level LEVEL] COMMAND [ARGS...]\n");
	for (internal = 0; internal < 2; internal++) {
		fputs(internal ? "\ninternal commands (what ninja runs in a build dir; tools for tests):\n"
		               : "\ncommands:\n",
		      f);
		for (i = 0; i < LEN(commands); i++)
			if (commands[i].internal == internal)
				fprintf(f, "  %-15s %s\n", commands[i].name, commands[i].brief);
	}
	fprintf(f, "\nRun 'kunai help COMMAND' for the options of one command.\n");
}

static const struct command *
find_command(const char *name)
{
	size_t i;

	for (i = 0; i < LEN(commands); i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

static int
usage_error(const char *fmt, const char *arg)
{
	fputs("kunai: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n", stderr);
	usage(stderr);
	return 2;
}

static int
cmd_help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	if (argc > 2)
		return usage_error("help: too many arguments (%s...)", argv[2]);
	c = find_command(argv[1]);
	if (!c)
		return usage_error("unknown command '%s'", argv[1]);
	printf("usage: kunai %s\n\n%s", c->synopsis, c->help);
	return 0;
}

/* Job scripts find kunai's workload programs through $KUNAI_WORKLOADS
 * (gen/workloads/wl_kunai.c) so that they embed no absolute path: every kunai process
 * (and so every job it starts; sbatch passes the environment on) has it,
 * pointing at the workloads/ of the tree or install this kunai belongs to,
 * unless the user set it. */
static void
export_workloads(void)
{
	struct buf dd = {0}, path = {0};

	if (!getenv("KUNAI_WORKLOADS")) {
		buf_printf(&path, "%s/workloads", kunai_datadir(&dd));
		if (setenv("KUNAI_WORKLOADS", path.data, 0) != 0)
			warn("setenv KUNAI_WORKLOADS:");
	}
	buf_free(&dd);
	buf_free(&path);
}

static int
cmd_toml2json(int argc, char **argv)
{
	const char *path = "-";
	struct buf text = {0};
	struct arena arena = {0};
	struct toml_error err;
	struct toml_value *root;
	int rc = 1;

	if (argc > 2)
		return usage_error("toml2json: too many arguments (%s...)", argv[2]);
	if (argc == 2) {
		if (argv[1][0] == '-' && argv[1][1])
			return usage_error("toml2json: unknown option '%s'", argv[1]);
		path = argv[1];
	}
	if (!read_file(path, &text))
		goto out;
	root = toml_parse(&arena, strcmp(path, "-") == 0 ? "<stdin>" : path, text.data, text.len, &err);
	if (!root) {
		error_at(strcmp(path, "-") == 0 ? "<stdin>" : path, err.line, err.col, "%s", err.msg);
		goto out;
	}
	/* the tree, not the text, is what it walks */
	buf_free(&text);
	if (!toml_tagged_json(root, stdout))
		goto out;
	rc = 0;
out:
	arena_free(&arena);
	buf_free(&text);
	return rc;
}

static int
cmd_generate_report(int argc, char **argv)
{
	static const char *const flags[] = {"--system-config", "--test-scenario", "--tests-dir", "--hook-dir",
	                                    "--result-dir"};
	const char *v[5] = {NULL, NULL, NULL, NULL, NULL}, *env = getenv("CLOUDAI_SYSTEM_CONFIG");
	char *rargv[3] = {"report", NULL, NULL};
	struct stat st;
	size_t k, n;
	int i;

	for (i = 1; i < argc; i++) {
		const char *f = argv[i], *eq = strchr(f, '=');
		char name[32];
		n = eq ? (size_t)(eq - f) : strlen(f);
		if (strncmp(f, "--", 2) != 0 || n >= sizeof(name))
			return usage_error("generate-report: unknown option '%s'", f);
		/* CloudAI's older spellings: --system_config, --result_dir */
		for (k = 0; k < n; k++)
			name[k] = k > 1 && f[k] == '_' ? '-' : f[k];
		name[n] = '\0';
		for (k = 0; k < LEN(flags) && strcmp(name, flags[k]) != 0; k++)
			;
		if (k == LEN(flags))
			return usage_error("generate-report: unknown option '%s'", f);
		if (!eq && i + 1 >= argc)
			return usage_error("generate-report: option %s needs a value", f);
		v[k] = eq ? eq + 1 : argv[++i];
	}
	if (!v[0] && env && *env)
		v[0] = env;
	for (k = 0; k < LEN(flags); k++) {
		if (!v[k] && k != 2 && k != 3)
			return usage_error("generate-report: missing %s", flags[k]);
		if (v[k] && stat(v[k], &st) != 0) {
			warn("%s:", v[k]);
			return 1;
		}
	}
	if (!S_ISDIR(st.st_mode)) {
		warn("%s: the result dir is no directory", v[4]);
		return 1;
	}
	rargv[1] = (char *)v[4];
	return cmd_report(2, rargv);
}

/* The copy of stderr that CloudAI's --log-file and --log-level ask for: a
 * process that reads every line kunai and what it starts write to stderr,
 * appends it to file (emptied first, CloudAI's mode "w"; NULL: none) and
 * passes it on to the terminal, but for warnings when quiet (ERROR,
 * CRITICAL). It outlives Ctrl-C (ending at the last writer's close), so
 * kunai's own cancel messages still reach both. Returns its pid, or -1
 * after reporting. */
static pid_t
log_start(const char *file, bool quiet)
{
	int fd[2], out = -1;
	pid_t pid;

	if (file && (out = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644)) < 0) {
		warn("--log-file %s:", file);
		return -1;
	}
	if (pipe(fd) != 0 || (pid = fork()) < 0) {
		warn("--log-file:");
		return -1;
	}
	if (pid == 0) {
		FILE *in;
		char *line = NULL;
		size_t cap = 0;
		ssize_t n;
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		close(fd[1]);
		if (!(in = fdopen(fd[0], "r")))
			_exit(1);
		while ((n = getline(&line, &cap, in)) > 0) {
			if (out >= 0 && write(out, line, (size_t)n) != n)
				out = -1;
			if ((!quiet || !strstr(line, ": warning: ")) && write(STDERR_FILENO, line, (size_t)n) != n)
				quiet = true;
		}
		_exit(0);
	}
	if (out >= 0)
		close(out);
	close(fd[0]);
	if (dup2(fd[1], STDERR_FILENO) < 0) {
		warn("--log-file:");
		return -1;
	}
	close(fd[1]);
	return pid;
}

/* CloudAI's global options before the command, --log-file FILE and
 * --log-level LEVEL (also with '='): moves *argv past them. Returns -1
 * after a usage error, else 0 (*file and *quiet set). */
static int
log_options(int *argc, char ***argv, const char **file, bool *quiet)
{
	static const char *const levels[] = {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"};
	const char *level = NULL;

	while (*argc > 1) {
		const char *a = (*argv)[1], *v;
		const char **to = strncmp(a, "--log-file", 10) == 0 && (!a[10] || a[10] == '=') ? file
		                  : strncmp(a, "--log-level", 11) == 0 && (!a[11] || a[11] == '=') ? &level
		                                                                                     : NULL;
		if (!to)
			break;
		if ((v = strchr(a, '=')))
			v++;
		else if (*argc > 2)
			v = (*argv)[2], (*argc)--, (*argv)++;
		else
			return usage_error("%s needs a value", a);
		*to = v;
		(*argc)--, (*argv)++;
	}
	*quiet = false;
	if (level) {
		size_t i;
		for (i = 0; i < LEN(levels) && strcasecmp(level, levels[i]) != 0; i++)
			;
		if (i == LEN(levels))
			return usage_error("--log-level %s: one of DEBUG, INFO, WARNING, ERROR, CRITICAL", level);
		*quiet = i >= 3;
	}
	return 0;
}

/* The command line after the global options. */
static int
dispatch(int argc, char **argv)
{
	const struct command *c;
	struct buf dd = {0};

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("kunai %s\n", KUNAI_VERSION);
		return 0;
	}
	if (strcmp(argv[1], "--datadir") == 0) {
		puts(kunai_datadir(&dd));
		buf_free(&dd);
		return 0;
	}
	if (strcmp(argv[1], "--mode") == 0 || strncmp(argv[1], "--mode=", 7) == 0) {
		/* CloudAI's first guide: cloudai --mode dry-run --system_config_path ... */
		const char *mode = argv[1][6] == '=' ? argv[1] + 7 : argc > 2 ? argv[2] : "";
		if (strcmp(mode, "dry-run") != 0)
			return usage_error("--mode %s: only dry-run is supported", mode);
		argv[argv[1][6] == '=' ? 1 : 2] = "dry-run";
		return argv[1][6] == '=' ? cmd_dry_run(argc - 1, argv + 1) : cmd_dry_run(argc - 2, argv + 2);
	}
	if (argv[1][0] == '-')
		return usage_error("unknown option '%s'", argv[1]);
	c = find_command(argv[1]);
	if (!c)
		return usage_error("unknown command '%s'", argv[1]);
	if (argc == 3 && strcmp(argv[2], "--help") == 0) {
		char *hargv[] = {"help", argv[1], NULL};
		return cmd_help(2, hargv);
	}
	export_workloads();
	return c->run(argc - 1, argv + 1);
}

int
main(int argc, char **argv)
{
	const char *log_file = NULL;
	bool quiet = false;
	pid_t logger = -1;
	int rc;

	if (log_options(&argc, &argv, &log_file, &quiet) != 0)
		return 2;
	if ((log_file || quiet) && (logger = log_start(log_file, quiet)) < 0)
		return 1;
	rc = dispatch(argc, argv);
	if (logger > 0) {
		/* the logger ends when the last writer closes: every line is out */
		fflush(stderr);
		close(STDERR_FILENO);
		waitpid(logger, NULL, 0);
	}
	return rc;
}
