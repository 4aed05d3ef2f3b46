/* run.c: `kunai run [gen options]`: kunai gen, then `ninja -k 0 run` in the
 * build dir (every run, the failed ones not stopping the others), then
 * `ninja report` (which never submits), then a table of the outcomes. The
 * exit status says whether everything passed (DESIGN 13). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/wait.h>
#include <unistd.h>

#include "again.h"
#include "cmds.h"
#include "progress.h"
#include "gen/write/gen.h"
#include "gen/base/lock.h"
#include "gen/base/util.h"
#include "reports/results/campaign.h"
#include "reports/results/results.h"
#include "reports/results/plan.h"
#include "reports/results/summary.h"
#include "reports/write/summary.h"
#include "reports/results/format.h"

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

/* Feeds ninja's output on fd to the progress view, line by line, until
 * it closes; ticks about once a second. */
static void
watch_output(int fd, struct progress *pr)
{
	struct pollfd pfd = {fd, POLLIN, 0};
	struct buf b = {0};
	char chunk[4096], *nl;
	ssize_t n;
	int r;

	for (;;) {
		r = poll(&pfd, 1, 1000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0) {
			progress_tick(pr);
			continue;
		}
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		buf_push(&b, chunk, (size_t)n);
		while (b.len && (nl = memchr(b.data, '\n', b.len))) {
			*nl = '\0';
			progress_line(pr, b.data);
			b.len -= (size_t)(nl + 1 - b.data);
			memmove(b.data, nl + 1, b.len);
		}
	}
	if (b.len) {
		buf_putc(&b, '\0');
		progress_line(pr, b.data);
	}
	progress_end(pr);
	buf_free(&b);
}

/* Runs `ninja -C dir [args]`, forwarding SIGINT and SIGTERM to it; with pr,
 * its output goes through the progress view; with log, into that file
 * (third-party warnings stay off the user's terminal). Returns its exit status,
 * 128+N when a signal N ended it, -1 when it could not be started (after
 * reporting). */
static int
ninja(const char *dir, const char *const *args, size_t n, struct progress *pr, const char *log)
{
	const char *argv[12];
	sigset_t block, old;
	int status, fd[2] = {-1, -1};
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
	sigaddset(&block, SIGHUP);
	sigprocmask(SIG_BLOCK, &block, &old);
	fflush(stdout);
	fflush(stderr);
	if (pr && pipe(fd) != 0) {
		warn("run: pipe:");
		pr = NULL;
	}
	pid = fork();
	if (pid == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
#ifdef __linux__
		/* a killed kunai run hangs ninja up: its runners detach from
		 * their jobs and let go of the build dir's lock at once, and the
		 * next kunai run reattaches (not waiting on an orphaned ninja) */
		prctl(PR_SET_PDEATHSIG, SIGHUP);
		if (getppid() == 1)
			_exit(128 + SIGHUP);
#endif
		sigprocmask(SIG_SETMASK, &old, NULL);
		if (pr) {
			/* each edge's status when it ends, with the running count */
			dup2(fd[1], 1);
			dup2(fd[1], 2);
			close(fd[0]);
			close(fd[1]);
			setenv("NINJA_STATUS", "[%f/%t %r] ", 1);
		} else if (log) {
			int lfd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
			if (lfd >= 0) {
				dup2(lfd, 1);
				dup2(lfd, 2);
			}
		}
		execvp("ninja", (char *const *)argv);
		fprintf(stderr, "kunai: run: cannot run ninja: %s (is ninja-build installed and in PATH?)\n",
		        strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		warn("run: fork:");
		if (pr) {
			close(fd[0]);
			close(fd[1]);
		}
		return -1;
	}
	child_pid = pid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (pr) {
		close(fd[1]);
		watch_output(fd[0], pr);
		close(fd[0]);
	}
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

/* Copies the file at path to stderr (a failed step's log). */
static void
show_log(const char *path)
{
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "r");

	if (!f)
		return;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, stderr);
	fclose(f);
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

/* Every run, the worst first, with its reason (DESIGN 18). */
static void
print_table(const struct summary *s)
{
	size_t w[4] = {2, 4, 7, 4}, i, *order = campaign_order(s);
	char it[32];
	struct buf t = {0};

	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[i];
		if (strlen(r->id) > w[0])
			w[0] = strlen(r->id);
		if (strlen(outcome_name(r->outcome)) > w[2])
			w[2] = strlen(outcome_name(r->outcome));
		if (r->step > 0)
			snprintf(it, sizeof(it), "%d/%d", r->iteration, r->step);
		else
			snprintf(it, sizeof(it), "%d", r->iteration);
		if (strlen(it) > w[1])
			w[1] = strlen(it);
		t.len = 0;
		if (r->duration_s >= 0)
			fmt_duration(&t, r->duration_s, r->start_time, r->end_time);
		if (t.len > w[3])
			w[3] = t.len;
	}
	printf("%-*s  %-*s  %-*s  %-*s  REASON\n", (int)w[0], "ID", (int)w[1], "ITER", (int)w[2], "OUTCOME", (int)w[3],
	       "TIME");
	for (i = 0; i < s->n_runs; i++) {
		const struct run_report *r = &s->runs[order[i]];
		if (r->step > 0)
			snprintf(it, sizeof(it), "%d/%d", r->iteration, r->step);
		else
			snprintf(it, sizeof(it), "%d", r->iteration);
		t.len = 0;
		if (r->duration_s >= 0)
			fmt_duration(&t, r->duration_s, r->start_time, r->end_time);
		else
			buf_putc(&t, '-');
		if (r->reason && r->outcome != OUTCOME_PASSED)
			printf("%-*s  %-*s  %-*s  %-*s  %s\n", (int)w[0], r->id, (int)w[1], it, (int)w[2],
			       outcome_name(r->outcome), (int)w[3], buf_str(&t), r->reason);
		else
			printf("%-*s  %-*s  %-*s  %s\n", (int)w[0], r->id, (int)w[1], it, (int)w[2], outcome_name(r->outcome),
			       buf_str(&t));
	}
	buf_free(&t);
	free(order);
}

/* The closing line, the campaign's one status (coloured on a terminal)
 * with the counts by outcome, then what the runs measured on. */
static void
print_verdict(const struct summary *s, struct buf *scratch, bool tty)
{
	enum campaign_status c = campaign_status(s);
	size_t k;

	scratch->len = 0;
	campaign_line(s, scratch);
	if (tty)
		printf("kunai: %s%s\033[0m", campaign_colour(c), scratch->data);
	else
		printf("kunai: %s", scratch->data);
	for (k = 0; k < s->n_runs && !s->runs[k].path; k++)
		;
	if (k < s->n_runs) { /* some run measured on a GPU or the CPU: say which */
		scratch->len = 0;
		summary_paths(s, scratch);
		printf("; %s", scratch->data);
	}
	/* and what a pass means when no reference was checked */
	if (s->note && strstr(s->note, "passed = "))
		printf("; %s", strstr(s->note, "passed = "));
	printf("\n");
}

int
cmd_run(int argc, char **argv)
{
	/* -j 0: no limit of ninja's own (CPUs + 2); every job edge is in the
	 * jobs pool, whose depth is the system's max_jobs */
	static const char *const run_args[] = {"-k", "0", "-j", "0", "run"};
	static const char *const report_args[] = {"report"};
	static const char *const clean_args[] = {"-t", "clean", "run"};
	static const char *const cleanup_args[] = {"cleanup"};
	const char *again_args[] = {"-f", "again.ninja", "-k", "0", "-j", "0", NULL};
	char again_target[32];
	struct again_round round;
	struct sigaction sa;
	struct buf dir = {0}, path = {0};
	struct arena a = {0};
	struct summary s;
	struct plan plan = {0};
	struct progress pr;
	char pid[32], **gargv = xcalloc((size_t)argc + 1, sizeof(*gargv));
	const char **dirs = NULL, *date = NULL;
	bool rerun = false;
	long other;
	int rc, st, gargc = 0, i, claim;
	size_t k;

	/* --rerun is ours; the rest are gen's */
	for (i = 0; i < argc; i++) {
		if (i > 0 && strcmp(argv[i], "--rerun") == 0)
			rerun = true;
		else
			gargv[gargc++] = argv[i];
	}
	rc = gen_build_dir(gargc, gargv, &dir);
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
	sigaction(SIGHUP, &sa, NULL);

	/* this invocation is the build dir's driver from here on, before
	 * anything destructive: a live one is refused, not cleaned under */
	claim = lock_driver_claim(dir.data, (long)getpid(), lock_pid_start((long)getpid(), NULL, NULL), &other);
	if (claim == 0)
		warn("run: another ninja or kunai run (pid %ld) is running in %s; refusing to run", other, dir.data);
	if (claim <= 0)
		goto done;
	/* every stamp goes: every run runs again (earlier attempts are kept) */
	if (rerun && ninja(dir.data, clean_args, LEN(clean_args), NULL, NULL) != 0)
		goto done;
	progress_init(&pr, dir.data, isatty(1));
	buf_printf(&path, "%s/kunai.json", dir.data);
	if (json_load_plan(&a, path.data, &plan)) {
		dirs = xcalloc(plan.n_runs + 1, sizeof(*dirs));
		for (k = 0; k < plan.n_runs; k++)
			dirs[k] = plan.runs[k].dir;
		progress_dirs(&pr, dirs, plan.n_runs);
	}
	path.len = 0;
	st = ninja(dir.data, run_args, LEN(run_args), &pr, NULL);
	if (st < 0)
		goto done;
	if (stop_signal == SIGHUP) {
		/* the terminal went away: the runners detached, their jobs run on;
		 * no cleanup under them, no report of half a campaign */
		fprintf(stderr, "kunai: run: hangup: detached; the jobs keep running, and the same command again "
		                "reattaches to them\n");
		rc = 128 + SIGHUP;
		goto done;
	}
	if (exists(dir.data, "phases/prepare.sh") && !exists(dir.data, "phases/prepare.stamp"))
		say_phase(&a, dir.data, "prepare", "no run started");
	/* after the last run, whatever the outcomes, interrupted too (a second
	 * Ctrl-C stops it, and it says so) */
	if (exists(dir.data, "phases/cleanup.sh")) {
		if (stop_signal)
			fprintf(stderr, "kunai: run: interrupted; running cleanup (Ctrl-C again stops it)\n");
		if (ninja(dir.data, cleanup_args, LEN(cleanup_args), NULL, NULL) != 0)
			say_phase(&a, dir.data, "cleanup", "the runs' outcomes stand");
	}
	if (stop_signal) {
		/* the user asked to stop: no report; ninja has cancelled the runs */
		fprintf(stderr, "kunai: run: interrupted; `ninja -C %s report` reports what finished\n", dir.data);
		rc = 128 + stop_signal;
		goto done;
	}
	/* its output (the same counts and verdict as below, gnuplot's
	 * warnings) goes to report.log, shown only when it failed */
	buf_printf(&path, "%s/report.log", dir.data);
	st = ninja(dir.data, report_args, LEN(report_args), NULL, path.data);
	/* runs their peers flagged, measured again beside a peer before they
	 * can drain a node; then the report again, with what they gave */
	if (st == 0 && plan.n_runs && again_prepare(&a, dir.data, &plan, &round) > 0) {
		printf("kunai: the fleet verdict is not final: measuring %zu flagged run%s again, each beside a peer\n",
		       round.n, round.n == 1 ? "" : "s");
		fflush(stdout);
		/* a pair at a time: the two of a pair side by side */
		for (k = 0; k < round.n && !stop_signal; k++) {
			snprintf(again_target, sizeof(again_target), "again-%zu", k + 1);
			again_args[LEN(again_args) - 1] = again_target;
			ninja(dir.data, again_args, LEN(again_args), NULL, NULL);
		}
		if (stop_signal) {
			fprintf(stderr, "kunai: run: interrupted; `ninja -C %s report` reports what finished\n", dir.data);
			rc = 128 + stop_signal;
			goto done;
		}
		again_record(&a, dir.data, &plan, &round);
		st = ninja(dir.data, report_args, LEN(report_args), NULL, path.data);
	}
	if (st != 0) {
		show_log(path.data);
		if (st > 0)
			warn("run: `ninja -C %s report` failed (status %d; its output: %s)", dir.data, st, path.data);
		rc = stop_signal ? 128 + stop_signal : 1;
		goto done;
	}
	path.len = 0;
	buf_printf(&path, "%s/report/summary.json", dir.data);
	if (!json_load_summary(&a, path.data, &s))
		goto done;
	printf("\n");
	print_table(&s);
	if (pr.nothing) {
		for (k = 0; k < s.n_runs; k++)
			if (s.runs[k].end_time && (!date || strcmp(s.runs[k].end_time, date) > 0))
				date = s.runs[k].end_time;
		printf("kunai: nothing needed running: the results are from %s; `kunai run --rerun ...` runs "
		       "every run again (or `ninja -C %s -t clean run`, then `ninja -C %s -k 0 run`)\n",
		       date ? date : "no finished run", dir.data, dir.data);
	}
	printf("kunai: report: %s/report/index.html (summary.md, summary.json, junit.xml beside it)\n", dir.data);
	/* the fleet verdict (which nodes to drain), then the campaign's status
	 * last, where a terminal leaves it */
	if (s.verdict)
		printf("kunai: %s\n", s.verdict);
	print_verdict(&s, &path, isatty(1));
	rc = summary_all_ok(&s) && !s.n_drain ? 0 : 1;
done:
	free(gargv);
	free(dirs);
	buf_free(&dir);
	buf_free(&path);
	arena_free(&a);
	return rc;
}

/* `kunai install|uninstall [gen options]`: gen, then that ninja target. */
static int
install_target(int argc, char **argv, const char *target)
{
	const char *args[] = {target};
	struct sigaction sa;
	struct buf dir = {0};
	int rc = gen_build_dir(argc, argv, &dir);

	if (rc == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = forward;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		rc = ninja(dir.data, args, 1, NULL, NULL);
		if (rc < 0)
			rc = 1;
	}
	buf_free(&dir);
	return rc;
}

int
cmd_install(int argc, char **argv)
{
	return install_target(argc, argv, "install");
}

int
cmd_uninstall(int argc, char **argv)
{
	return install_target(argc, argv, "uninstall");
}
