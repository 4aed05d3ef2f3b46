/* job_args.c: the command line of `kunai job` and the options on the
 * #KUNAI lines of the run's script, with the defaults and the environment
 * variables that change them. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job_proc.h"
#include "job_steps.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/workloads/workload.h"

enum {
	DEFAULT_RETRIES = 2,
	DEFAULT_RETRY_DELAY_S = 5, /* doubled per retry, at most 120 s (job.c) */
	DEFAULT_POLL_MAX_S = 60,
	DEFAULT_TRUST_RECORD_S = 600, /* then a Slurm job's unconfirmed exit record is its end */
};

/* ---- command line ------------------------------------------------------------ */

static int
usage_job(const char *fmt, const char *arg)
{
	fputs("kunai: job: ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\nusage: kunai job run|start --scheduler standalone|slurm|kubernetes|lsf|runai [--workload NAME]\n"
	      "         [--time-limit SEC] [--after-start DIR:DELAY]... [--stop-with ID]...\n"
	      "         [--delay SEC] [--retries N] [--poll-max SEC] [--launch-dir DIR] [--system-config FILE]\n"
	      "         [--single-sbatch SCRIPT]\n"
	      "         [--node-group PARTITION:GROUP:N:NODES]... [--also-nodes NODES] [--exclude-nodes NODES]\n"
	      "         DIR|DIR/kunai.stamp\n"
	      "The run's script may carry these options on #KUNAI lines at its top (gen\n"
	      "writes one); those on the command line come after them.\n",
	      stderr);
	return 2;
}

static bool
parse_long(const char *s, long *v)
{
	char *end;

	errno = 0;
	*v = strtol(s, &end, 10);
	return s[0] && !*end && errno == 0 && *v >= 0;
}

/* Applies one option (every option takes a value). Returns 0, or the exit
 * status of a usage error. */
static int
option(struct job *j, const char *a, const char *val)
{
	long v;

	if (strcmp(a, "--scheduler") == 0) {
		if (strcmp(val, "standalone") == 0)
			j->sched = JOB_STANDALONE;
		else if (strcmp(val, "slurm") == 0)
			j->sched = JOB_SLURM;
		else if (strcmp(val, "kubernetes") == 0)
			j->sched = JOB_KUBERNETES;
		else if (strcmp(val, "lsf") == 0)
			j->sched = JOB_LSF;
		else if (strcmp(val, "runai") == 0)
			j->sched = JOB_RUNAI;
		else
			return usage_job("unknown scheduler '%s'", val);
	} else if (strcmp(a, "--workload") == 0) {
		if (!workload_find(val))
			return usage_job("unknown workload '%s'", val);
		j->workload = val;
	} else if (strcmp(a, "--time-limit") == 0) {
		if (!parse_long(val, &j->time_limit))
			return usage_job("--time-limit '%s': seconds expected", val);
	} else if (strcmp(a, "--delay") == 0) {
		if (!parse_long(val, &j->delay))
			return usage_job("--delay '%s': seconds expected", val);
	} else if (strcmp(a, "--retries") == 0) {
		if (!parse_long(val, &v) || v > 100)
			return usage_job("--retries '%s': a count expected", val);
		j->retries = (int)v;
	} else if (strcmp(a, "--poll-max") == 0) {
		if (!parse_long(val, &v) || v == 0)
			return usage_job("--poll-max '%s': seconds expected", val);
		j->poll_max_ms = v * 1000;
	} else if (strcmp(a, "--after-start") == 0) {
		const char *colon = strrchr(val, ':');
		struct job_after *n;

		if (!colon || colon == val || !parse_long(colon + 1, &v))
			return usage_job("--after-start '%s': DIR:DELAY expected", val);
		j->after = arena_reserve(&j->arena, j->after, j->n_after, j->n_after + 1, &j->cap_after,
		                         sizeof(*j->after));
		n = &j->after[j->n_after++];
		n->dir = arena_strndup(&j->arena, val, (size_t)(colon - val));
		n->delay = v;
	} else if (strcmp(a, "--stop-with") == 0) {
		if (!*val || strchr(val, '/') || strcmp(val, "..") == 0 || strcmp(val, ".") == 0)
			return usage_job("--stop-with '%s': a test id expected", val);
		j->stop_with = arena_reserve(&j->arena, j->stop_with, j->n_stop, j->n_stop + 1, &j->cap_stop,
		                             sizeof(*j->stop_with));
		j->stop_with[j->n_stop++] = val;
	} else if (strcmp(a, "--node-group") == 0) {
		const char *c1 = strchr(val, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2 || !strchr(c2 + 1, ':'))
			return usage_job("--node-group '%s': PARTITION:GROUP:N:NODES expected", val);
		j->node_groups = arena_reserve(&j->arena, j->node_groups, j->n_node_groups, j->n_node_groups + 1,
		                               &j->cap_node_groups, sizeof(*j->node_groups));
		j->node_groups[j->n_node_groups++] = val;
	} else if (strcmp(a, "--system-config") == 0) {
		/* runai: where a secret written in the system file is read */
		j->system_config = val;
	} else if (strcmp(a, "--launch-dir") == 0) {
		/* CloudAI's $PWD (the dir kunai gen ran in), which the job's
		 * script reads from the environment sbatch or bash inherit */
		if (val[0] != '/')
			return usage_job("--launch-dir '%s': an absolute path expected", val);
		if (setenv(SH_LAUNCH_VAR, val, 1) != 0)
			return usage_job("--launch-dir '%s': cannot set the environment", val);
	} else if (strcmp(a, "--single-sbatch") == 0) {
		if (!*val || strchr(val, '/'))
			return usage_job("--single-sbatch '%s': the allocation's script in the build dir expected", val);
		j->single = val;
	} else if (strcmp(a, "--also-nodes") == 0) {
		j->also_nodes = val;
	} else if (strcmp(a, "--exclude-nodes") == 0) {
		j->exclude_nodes = val;
	} else
		return usage_job("unknown option '%s'", a);
	return 0;
}

/* Applies the options of argv[from..n) (no operand among them). */
static int
options(struct job *j, char **argv, int from, int n)
{
	int i, rc;

	for (i = from; i < n; i += 2) {
		if (argv[i][0] != '-' || strcmp(argv[i], "-") == 0)
			return usage_job("'%s' is no option here", argv[i]);
		if (i + 1 >= n)
			return usage_job("%s needs a value", argv[i]);
		if ((rc = option(j, argv[i], argv[i + 1])) != 0)
			return rc;
	}
	return 0;
}

/* The run's own options: the #KUNAI lines at the top of its script (gen
 * writes one), as shell words, appended to words. Returns false after
 * reporting a line that is no list of words. A missing script has none;
 * submitting reports it. */
static bool
script_options(struct job *j, struct buf *words)
{
	struct buf p = {0}, text = {0};
	const char *s, *e;
	bool ok = true;
	int line = 1;

	if (!job_slurp(job_path(j, &p, job_script_name(j)), &text)) {
		buf_free(&p);
		return true;
	}
	/* the header: the lines up to the first that is no comment */
	for (s = text.data; s && *s == '#'; s = e ? e + 1 : NULL, line++) {
		e = strchr(s, '\n');
		if (strncmp(s, "#KUNAI", 6) == 0 && (s[6] == ' ' || s[6] == '\t')) {
			char **v;
			int n = sh_split(&j->arena, arena_strndup(&j->arena, s + 7, e ? (size_t)(e - s - 7) : strlen(s + 7)), &v);
			if (n < 0) {
				warn("%s:%d: #KUNAI: unterminated quote", p.data, line);
				ok = false;
				break;
			}
			for (int i = 0; i < n; i++)
				buf_push(words, &v[i], sizeof(v[i]));
		}
	}
	buf_free(&p);
	buf_free(&text);
	return ok;
}

/* Whether dir is relative and never climbs out of the working dir (the
 * build dir): no "..", and a plain "." is the build dir itself. */
static bool
below_cwd(const char *dir)
{
	const char *p;

	if (*dir == '/')
		return false;
	for (p = dir; (p = strstr(p, "..")); p += 2)
		if ((p == dir || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return false;
	return true;
}

/* The run dir of operand a: a itself, or the dir of the file it names
 * (the edge's $out, the stamp, which need not exist yet). */
static const char *
run_dir_of(struct job *j, const char *a)
{
	struct stat st;
	const char *slash;

	if (stat(a, &st) == 0 && S_ISDIR(st.st_mode))
		return a;
	slash = strrchr(a, '/');
	if (!slash)
		return ".";
	return arena_strndup(&j->arena, a, (size_t)(slash - a));
}

int
job_parse(struct job *j, int argc, char **argv)
{
	struct buf cmd = {0}, words = {0};
	const char *operand = NULL, *sched = NULL;
	int i, rc;

	j->retries = (int)env_number("KUNAI_MAX_RETRIES", 0, 99, DEFAULT_RETRIES);
	j->poll_max_ms = (long)env_number("KUNAI_POLL_MAX", 1, 86400 * 365, DEFAULT_POLL_MAX_S) * 1000L;
	j->retry_delay_s = (long)env_number("KUNAI_RETRY_DELAY", 0, 86400, DEFAULT_RETRY_DELAY_S);
	j->trust_record_s = (long)env_number("KUNAI_TRUST_RECORD", 1, 86400 * 365, DEFAULT_TRUST_RECORD_S);
	if (argc < 2)
		return usage_job("%s", "missing run or start");
	if (strcmp(argv[1], "start") == 0)
		j->start_only = true;
	else if (strcmp(argv[1], "run") != 0)
		return usage_job("unknown action '%s' (run or start)", argv[1]);
	/* the operand and the scheduler first: they locate the script, whose
	 * options come before those of the command line */
	for (i = 2; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || strcmp(a, "-") == 0) {
			if (operand)
				return usage_job("more than one DIR ('%s')", a);
			operand = a;
		} else if (++i < argc && strcmp(a, "--scheduler") == 0)
			sched = argv[i];
	}
	if (!sched)
		return usage_job("%s", "--scheduler is required");
	if ((rc = option(j, "--scheduler", sched)) != 0)
		return rc;
	if (!operand)
		return usage_job("%s", "missing DIR");
	j->dir = run_dir_of(j, operand);
	if (!below_cwd(j->dir))
		return usage_job("'%s' is not a run dir below the build dir (the working dir, where ninja runs kunai job)",
		                 j->dir);
	if (!script_options(j, &words)) {
		buf_free(&words);
		return 2;
	}
	rc = options(j, (char **)words.data, 0, (int)(words.len / sizeof(char *)));
	if (rc)
		warn("job: the option above is on the #KUNAI line of %s's script", j->dir);
	for (i = 0; !rc && i < (int)(words.len / sizeof(char *)); i++)
		buf_printf(&cmd, "%s%s", i ? " " : "#KUNAI ", ((char **)words.data)[i]);
	for (i = 2; !rc && i < argc; i++) {
		if (argv[i] == operand)
			continue;
		if ((rc = options(j, argv, i, i + 2 < argc ? i + 2 : argc)) != 0)
			break;
		buf_printf(&cmd, "%s%s %s", cmd.len ? " " : "", argv[i], argv[i + 1]);
		i++;
	}
	j->command = arena_strdup(&j->arena, buf_str(&cmd));
	buf_free(&cmd);
	buf_free(&words);
	return rc;
}
