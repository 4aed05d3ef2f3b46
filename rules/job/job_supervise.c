/* job_supervise.c: the process that stands for one standalone job. kunai
 * job forks it (no exec: it is kunai already) as the job's own session; it
 * writes the start record, runs DIR/run.sh as a process group of its own,
 * enforces the time limit (TERM, then KILL after a grace) whether or not
 * the runner that started it still lives, ends every process the job left
 * (setsid and double-forked ones too: it is their subreaper), and only
 * then writes the exit record. So a job that outlives a killed driver
 * still stops at its limit, and nothing of a recorded run writes on. */
#define _GNU_SOURCE /* prctl, syscall: Linux's subreaper and close_range */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include "job_proc.h"
#include "job_plain.h"
#include "job_sched.h"
#include "gen/base/util.h"

/* Closes every descriptor above stderr: a lock the runner holds (its flock
 * of DIR, or of DIR/kunai.lock) must end with the runner, not with the job. */
static void
close_others(void)
{
	int fd;

#if defined(__linux__) && defined(SYS_close_range)
	if (syscall(SYS_close_range, 3U, ~0U, 0U) == 0)
		return;
#endif
	for (fd = 3; fd < 1024; fd++)
		close(fd);
}

/* Writes a record file of the run dir (the working dir) in one piece: a
 * unique new name, then rename. */
static void
record(const char *name, const char *text)
{
	char tmp[64];
	int fd;
	size_t n = strlen(text);

	snprintf(tmp, sizeof(tmp), "%s.%ld.tmp", name, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		dprintf(2, "kunai: %s: %s\n", tmp, strerror(errno));
		return;
	}
	if (write(fd, text, n) != (ssize_t)n || close(fd) != 0 || rename(tmp, name) != 0) {
		dprintf(2, "kunai: %s: %s\n", name, strerror(errno));
		unlink(tmp);
	}
}

/* The processes whose parent (group: whose process group) is self:
 * our children now (the job's orphans are re-parented to us, the
 * subreaper), or the members of a group. */
static size_t
procs_of(pid_t self, bool group, pid_t *out, size_t max)
{
	char path[300], text[512], *rp;
	struct dirent *e;
	size_t n = 0;
	ssize_t len;
	long ppid, pgrp;
	DIR *d;
	int fd;

	d = opendir("/proc");
	if (!d)
		return 0;
	while (n < max && (e = readdir(d))) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, text, sizeof(text) - 1);
		close(fd);
		if (len <= 0)
			continue;
		text[len] = '\0';
		rp = strrchr(text, ')');
		if (rp && sscanf(rp + 1, " %*c %ld %ld", &ppid, &pgrp) == 2 && (group ? pgrp : ppid) == (long)self)
			out[n++] = (pid_t)strtol(e->d_name, NULL, 10);
	}
	closedir(d);
	return n;
}

/* Ends what the job left behind: its process group, then every process that
 * is (or becomes, as its parent dies) our child, until none is left. */
static void
end_all(pid_t script)
{
	pid_t self = getpid(), kids[256];
	size_t n, i;
	int round;

	kill(-script, SIGKILL);
	for (round = 0; round < 1000; round++) {
		while (waitpid(-1, NULL, WNOHANG) > 0)
			;
		/* no child at all: then no descendant either (they would be ours) */
		if (waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD)
			return;
		n = procs_of(self, false, kids, LEN(kids));
		for (i = 0; i < n; i++)
			kill(kids[i], SIGKILL);
		if (!n) {
			/* a zombie being reaped, or a child in exec: look again */
			struct timespec ts = {0, 10 * 1000000L};
			nanosleep(&ts, NULL);
		}
	}
}

extern char **environ;

/* The watchdog: a fork of the supervisor that joins the job's own process
 * group, so the job's time limit outlives the supervisor. It sleeps until
 * the limit and a margin (the supervisor, alive, acts first and ends the
 * group, the watchdog in it); if the supervisor died meanwhile, it ends
 * the job itself (TERM, then KILL after the grace, itself with the group)
 * and writes the exit record the supervisor cannot. Whatever kills the
 * whole job kills it too: it never outlives the job. */
enum { WATCH_MARGIN_S = 2 };

static void
spawn_watchdog(pid_t script, double deadline, long grace_s)
{
	pid_t parent = getpid(), pid = fork(), others[2];
	struct timespec ts;
	double left;

	if (pid != 0)
		return;
	if (setpgid(0, script) != 0)
		_exit(0); /* the job has ended already */
	signal(SIGTERM, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	while ((left = deadline + WATCH_MARGIN_S - job_now()) > 0) {
		ts.tv_sec = left > 1 ? 1 : 0;
		ts.tv_nsec = left > 1 ? 0 : (long)(left * 1e9);
		nanosleep(&ts, NULL);
	}
	if (getppid() == parent)
		_exit(0); /* the supervisor lives: the limit is its to enforce */
	kill(-script, SIGTERM);
	/* the grace, or until the watchdog is all the group has left */
	for (left = grace_s * 10; left > 0 && procs_of(script, true, others, LEN(others)) > 1; left--) {
		ts.tv_sec = 0;
		ts.tv_nsec = 100 * 1000 * 1000;
		nanosleep(&ts, NULL);
	}
	record("kunai.exit", "143\nlimit=timeout\nby=watchdog\n");
	kill(-script, SIGKILL);
	_exit(0);
}

/* Starts run.sh's command itself when bash is not needed for it (see
 * job_plain.c): the same redirections, environment and file as bash's
 * exec. Returns its pid, or -1 when bash is to run the script. */
static pid_t
spawn_plain(struct job *j, const posix_spawnattr_t *at)
{
	struct buf script = {0}, vars = {0};
	posix_spawn_file_actions_t fa;
	struct job_plain p;
	const char *file;
	char **argv, **envp, *w;
	pid_t pid = -1;
	size_t i;
	bool have_vars = access("env_vars.sh", R_OK) == 0;

	job_slurp("env_vars.sh", &vars);
	if (!job_slurp("run.sh", &script) || strlen(script.data) != script.len ||
	    strlen(buf_str(&vars)) != vars.len || !job_plain_parse(script.data, have_vars ? buf_str(&vars) : NULL, &p)) {
		buf_free(&script);
		buf_free(&vars);
		return -1;
	}
	argv = arena_alloc(&j->arena, (p.nword + 1) * sizeof(*argv));
	for (w = p.words.data, i = 0; i < p.nword; i++, w += strlen(w) + 1)
		argv[i] = w;
	argv[i] = NULL;
	envp = job_plain_env(&j->arena, &p, environ);
	file = envp ? job_plain_path(&j->arena, envp, argv[0]) : NULL;
	if (file && posix_spawn_file_actions_init(&fa) == 0) {
		if (!p.redirect ||
		    (posix_spawn_file_actions_addopen(&fa, 1, "stdout.txt", O_WRONLY | O_CREAT | O_TRUNC, 0666) == 0 &&
		     posix_spawn_file_actions_addopen(&fa, 2, "stderr.txt", O_WRONLY | O_CREAT | O_TRUNC, 0666) == 0))
			if (posix_spawn(&pid, file, &fa, at, argv, envp) != 0)
				pid = -1; /* bash then says why, as it would have */
		posix_spawn_file_actions_destroy(&fa);
	}
	job_plain_free(&p);
	buf_free(&script);
	buf_free(&vars);
	return pid;
}

/* Starts run.sh as a process group of its own, with the default actions
 * and unblocked signals a fresh process has: its command itself when the
 * script needs no bash, else bash run.sh. posix_spawn: no copy of our
 * memory for a child that only execs (vfork's way, without its pitfalls).
 * Returns its pid (*via: "exec" or "bash"), or -1 after reporting. */
static pid_t
spawn_script(struct job *j, const char **via)
{
	char a0[] = "bash", a1[] = "run.sh", *argv[] = {a0, a1, NULL};
	posix_spawnattr_t at;
	sigset_t mask, def;
	pid_t pid = -1;
	int rc, sig;

	sigprocmask(SIG_BLOCK, NULL, &mask);
	for (sig = 1; sig < NSIG; sig++)
		if (sigismember(&j->sigs, sig) == 1)
			sigdelset(&mask, sig);
	sigemptyset(&def);
	sigaddset(&def, SIGPIPE);
	sigaddset(&def, SIGCHLD);
	rc = posix_spawnattr_init(&at);
	if (rc == 0) {
		posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
		posix_spawnattr_setpgroup(&at, 0);
		posix_spawnattr_setsigmask(&at, &mask);
		posix_spawnattr_setsigdefault(&at, &def);
		pid = spawn_plain(j, &at);
		*via = pid < 0 ? "bash" : "exec";
		if (pid < 0)
			rc = posix_spawn(&pid, "/bin/bash", NULL, &at, argv, environ);
		if (rc == ENOENT)
			rc = posix_spawnp(&pid, "bash", NULL, &at, argv, environ);
		posix_spawnattr_destroy(&at);
	}
	if (rc != 0) {
		dprintf(2, "kunai: cannot run bash: %s\n", strerror(rc));
		return -1;
	}
	return pid;
}

/* Sleeps until a signal of j->sigs or ms pass; returns the signal or 0. */
static int
take(struct job *j, double ms)
{
	struct timespec ts;
	siginfo_t si;
	int sig;

	if (ms < 0)
		ms = 0;
	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)((ms - (double)ts.tv_sec * 1000) * 1e6);
	do
		sig = sigtimedwait(&j->sigs, &si, &ts);
	while (sig < 0 && errno == EINTR);
	return sig < 0 ? 0 : sig;
}

void
job_supervise(struct job *j, long grace_s)
{
	double deadline = 0, kill_at = 0, t;
	bool timed_out = false, cancelled = false, ended = false;
	char text[400], host[256];
	const char *via = "bash";
	pid_t self, script, w;
	int status = 0, fd, sig;

	setsid();
	self = getpid();
#ifdef __linux__
	prctl(PR_SET_CHILD_SUBREAPER, 1);
#endif
	close_others();
	if (chdir(j->dir) != 0)
		_exit(127);
	/* nothing of ninja's: its pipe must close when the runner exits, even
	 * while the job runs on (`job start`) */
	fd = open("/dev/null", O_RDONLY);
	if (fd < 0 || dup2(fd, 0) < 0)
		_exit(127);
	close(fd);
	fd = open("stderr.txt", O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0666);
	if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
		_exit(127);
	close(fd);
	if (gethostname(host, sizeof(host) - 1) != 0)
		strcpy(host, "localhost");
	host[sizeof(host) - 1] = '\0';
	t = job_now();
	if (j->time_limit > 0)
		deadline = t + (double)j->time_limit;
	script = spawn_script(j, &via);
	if (script > 0 && deadline)
		spawn_watchdog(script, deadline, grace_s);
	/* after the start: it says how the script runs (via=exec: without
	 * bash), and the job's own group (with its leader's start time), which
	 * the runner checks before it takes the job for ended */
	snprintf(text, sizeof(text), "start=%lld\nhost=%s\njob=%ld\nvia=%s\ngroup=%ld\ngroup_start=%lld\n",
	         (long long)t, host, (long)self, via, (long)script, script > 0 ? job_proc_start(script, NULL) : -1);
	record("kunai.start", text);
	if (script < 0) {
		record("kunai.exit", "127\n");
		_exit(127);
	}
	while (!ended) {
		double now = job_now(), until = now + 3600; /* SIGCHLD wakes us */

		if (deadline && !kill_at)
			until = deadline;
		if (kill_at)
			until = kill_at;
		sig = take(j, (until - now) * 1000);
		do
			w = waitpid(script, &status, WNOHANG);
		while (w < 0 && errno == EINTR);
		if (w == script || (w < 0 && errno == ECHILD)) {
			ended = true;
			break;
		}
		now = job_now();
		if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP)
			cancelled = true;
		if (!kill_at && (cancelled || (deadline && now >= deadline))) {
			timed_out = !cancelled;
			kill(-script, SIGTERM);
			kill_at = now + (double)grace_s;
		} else if (kill_at && now >= kill_at) {
			kill(-script, SIGKILL);
		}
	}
	end_all(script);
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	snprintf(text, sizeof(text), "%d\n%s", status,
	         timed_out ? "limit=timeout\n" : cancelled ? "limit=cancelled\n" : "");
	record("kunai.exit", text);
	_exit(status);
}
