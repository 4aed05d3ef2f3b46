/* run.c: `kunai run [gen options]`: kunai gen, then `ninja -k 0 run` in the
 * build dir (every run, the failed ones not stopping the others), then
 * `ninja report` (which never submits), then a table of the outcomes. The
 * exit status says whether everything passed (DESIGN 13). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmds.h"
#include "report.h"
#include "util.h"

/* The ninja being waited for, and the signal that asked us to stop. Signal
 * handlers can reach nothing else, hence the only file-scope state. */
static volatile sig_atomic_t child_pid;
static volatile sig_atomic_t stop_signal;

/* Ctrl-C in a terminal reaches ninja directly too (same process group); a
 * kill(1) of kunai run does not. Forwarding a second SIGINT is harmless:
 * ninja cancels its edges once (its runners cancel their jobs, DESIGN 8). */
static void
forward(int sig)
{
	stop_signal = sig;
	if (child_pid > 0)
		kill((pid_t)child_pid, sig);
}

/* Runs `ninja -C dir [args]`, forwarding SIGINT and SIGTERM to it. Returns
 * its exit status, 128+N when a signal N ended it, -1 when it could not be
 * started (after reporting). */
static int
ninja(const char *dir, const char *const *args, size_t n)
{
	const char *argv[8];
	sigset_t block, old;
	int status;
	size_t i;
	pid_t pid;

	argv[0] = "ninja";
	argv[1] = "-C";
	argv[2] = dir;
	for (i = 0; i < n && i + 4 < LEN(argv); i++)
		argv[3 + i] = args[i];
	argv[3 + i] = NULL;
	/* no signal between fork and child_pid being known */
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &old);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp("ninja", (char *const *)argv);
		fprintf(stderr, "kunai: run: cannot run ninja: %s (is ninja-build installed and in PATH?)\n",
		        strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		warn("run: fork:");
		return -1;
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			warn("run: waitpid:");
			child_pid = 0;
			return -1;
		}
	}
	child_pid = 0;
	if (WIFEXITED(status))
		return WEXITSTATUS(status) == 127 ? -1 : WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* Says how phase name ended when it did not pass (phases/NAME.json), or
 * that it did not run. */
static void
say_phase(struct arena *a, const char *dir, const char *name, const char *then)
{
	struct phase_record r;
	struct buf p = {0};

	buf_printf(&p, "%s/phases/%s.json", dir, name);
	if (json_load_phase(a, p.data, &r))
		fprintf(stderr, "kunai: run: %s %s: %s (%s/phases/%s/output.txt); %s\n", name, r.outcome,
		        r.reason ? r.reason : "-", dir, name, then);
	else
		fprintf(stderr, "kunai: run: %s did not run; %s\n", name, then);
	buf_free(&p);
}

/* Is there dir/rel? */
static bool
exists(const char *dir, const char *rel)
{
	struct buf p = {0};
	bool r;

	buf_printf(&p, "%s/%s", dir, rel);
	r = access(p.data, F_OK) == 0;
	buf_free(&p);
	return r;
}

static void
print_table(const struct summary *s)
{
	size_t w[3] = {2, 4, 7}, i, c;
	char it[32], t[32];
	bool first = true;

	for (i = 0; i < s->n_runs; i++) {
		if (strlen(s->runs[i].id) > w[0])
			w[0] = strlen(s->runs[i].id);
		if (strlen(outcome_name(s->runs[i].outcome)) > w[2])
			w[2] = strlen(outcome_name(s->runs[i].outcome));
		if (s->runs[i].step > 0)
			snprintf(it, sizeof(it), "%d/%d", s->runs[i].iteration, s->runs[i].step);
		else
			snprintf(it, sizeof(it), "%d", s->runs[i].iteration);
		if (strlen(it) > w[1])
			w[1] = strlen(it);
	}
	printf("%-*s  %-*s  %-*s  %s\n", (int)w[0], "ID", (int)w[1], "ITER", (int)w[2], "OUTCOME", "TIME");
	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[i];
		if (r->step > 0)
			snprintf(it, sizeof(it), "%d/%d", r->iteration, r->step);
		else
			snprintf(it, sizeof(it), "%d", r->iteration);
		if (r->duration_s >= 0)
			snprintf(t, sizeof(t), "%.1fs", r->duration_s);
		else
			snprintf(t, sizeof(t), "-");
		printf("%-*s  %-*s  %-*s  %s\n", (int)w[0], r->id, (int)w[1], it, (int)w[2],
		       outcome_name(r->outcome), t);
	}
	printf("%zu run%s", s->n_runs, s->n_runs == 1 ? "" : "s");
	for (c = 0; c < OUTCOME_COUNT; c++) {
		if (!s->counts[c])
			continue;
		printf("%s%zu %s", first ? ": " : ", ", s->counts[c], outcome_name((enum outcome)c));
		first = false;
	}
	printf("\n");
}

int
cmd_run(int argc, char **argv)
{
	static const char *const run_args[] = {"-k", "0", "run"};
	static const char *const report_args[] = {"report"};
	static const char *const cleanup_args[] = {"cleanup"};
	struct sigaction sa;
	struct buf dir = {0}, path = {0};
	struct arena a = {0};
	struct summary s;
	char pid[32];
	int rc, st;

	rc = gen_build_dir(argc, argv, &dir);
	if (rc != 0)
		goto done;
	rc = 1;
	/* the runner's lock names the invocation that holds it */
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	if (setenv("KUNAI_DRIVER_PID", pid, 1) != 0) {
		warn("run: setenv:");
		goto done;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	st = ninja(dir.data, run_args, LEN(run_args));
	if (st < 0)
		goto done;
	if (exists(dir.data, "phases/prepare.sh") && !exists(dir.data, "phases/prepare.stamp"))
		say_phase(&a, dir.data, "prepare", "no run started");
	/* after the last run, whatever the outcomes, interrupted too (a second
	 * Ctrl-C stops it, and it says so) */
	if (exists(dir.data, "phases/cleanup.sh")) {
		if (stop_signal)
			fprintf(stderr, "kunai: run: interrupted; running cleanup (Ctrl-C again stops it)\n");
		if (ninja(dir.data, cleanup_args, LEN(cleanup_args)) != 0)
			say_phase(&a, dir.data, "cleanup", "the runs' outcomes stand");
	}
	if (stop_signal) {
		/* the user asked to stop: no report; ninja has cancelled the runs */
		fprintf(stderr, "kunai: run: interrupted; `ninja -C %s report` reports what finished\n", dir.data);
		rc = 128 + stop_signal;
		goto done;
	}
	st = ninja(dir.data, report_args, LEN(report_args));
	if (st != 0) {
		if (st > 0)
			warn("run: `ninja -C %s report` failed (status %d)", dir.data, st);
		rc = stop_signal ? 128 + stop_signal : 1;
		goto done;
	}
	buf_printf(&path, "%s/report/summary.json", dir.data);
	if (!json_load_summary(&a, path.data, &s))
		goto done;
	printf("\nkunai: results in %s (report/summary.md, report/junit.xml)\n", dir.data);
	print_table(&s);
	rc = s.counts[OUTCOME_PASSED] == s.n_runs ? 0 : 1;
done:
	buf_free(&dir);
	buf_free(&path);
	arena_free(&a);
	return rc;
}
