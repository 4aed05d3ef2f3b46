/* job_proc.c: what the runner needs from the operating system: clocks,
 * signals taken synchronously (sigtimedwait, so no handler state), /proc,
 * helper commands (sbatch, sacct, ...) and the job's own record files; and
 * the run dir's paths and job.json, which every backend writes. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "job_proc.h"
#include "gen/base/lock.h"
#include "gen/base/util.h"

/* A helper command that runs longer than this is killed: the scheduler's
 * clients give up on their own well before (MessageTimeout). */
enum { CAPTURE_LIMIT_S = 300 };

long
job_env_seconds(const char *name, long def)
{
	const char *s = getenv(name);
	char *end;
	long v;

	if (!s || !*s)
		return def;
	v = strtol(s, &end, 10);
	return *end || v < 0 ? def : v;
}

bool
job_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

double
job_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

double
job_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *
job_iso(struct arena *a, double t)
{
	char s[64];
	time_t tt = (time_t)t;
	struct tm tm;

	if (!gmtime_r(&tt, &tm) || !strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;
	return arena_strdup(a, s);
}


bool
job_iso_parse(const char *s, double *epoch)
{
	int y, mo, d, h, mi, se, n = 0;

	if (!s || sscanf(s, "%d-%d-%dT%d:%d:%dZ%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || n != 20)
		return false;
	*epoch = (double)util_days_from_civil(y, mo, d) * 86400.0 + h * 3600 + mi * 60 + se;
	return true;
}

bool
job_slurm_time(const char *s, double *epoch)
{
	struct tm tm = {0};
	time_t t;
	int n = 0;

	if (!s || sscanf(s, "%d-%d-%dT%d:%d:%d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
	                 &tm.tm_min, &tm.tm_sec, &n) != 6 || n < 19)
		return false;
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	tm.tm_isdst = -1; /* Slurm prints local time */
	t = mktime(&tm);
	if (t == (time_t)-1)
		return false;
	*epoch = (double)t;
	return true;
}

/* SIGCHLD must stay pending while blocked: with the default (ignore)
 * action a system may discard it, so it gets a handler that does nothing. */
static void
on_chld(int sig)
{
	(void)sig;
}

bool
job_signals_init(struct job *j)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL) != 0) {
		warn("sigaction:");
		return false;
	}
	/* a vanished ninja must not kill us before the job is cancelled */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&j->sigs);
	sigaddset(&j->sigs, SIGINT);
	sigaddset(&j->sigs, SIGTERM);
	sigaddset(&j->sigs, SIGHUP);
	sigaddset(&j->sigs, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &j->sigs, NULL) != 0) {
		warn("sigprocmask:");
		return false;
	}
	/* a shell's background job starts with SIGINT ignored; taken by
	 * sigtimedwait, it must not be */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	return true;
}

void
job_signals_child(const struct job *j)
{
	signal(SIGPIPE, SIG_DFL);
	signal(SIGCHLD, SIG_DFL);
	sigprocmask(SIG_UNBLOCK, &j->sigs, NULL);
}

int
job_sleep(struct job *j, long ms)
{
	struct timespec ts;
	siginfo_t si;
	int sig;

	if (ms < 0)
		ms = 0;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (ms % 1000) * 1000000L;
	do
		sig = sigtimedwait(&j->sigs, &si, &ts);
	while (sig < 0 && errno == EINTR);
	if (sig < 0)
		return 0;
	if (sig != SIGCHLD && !j->signo)
		j->signo = sig;
	return sig;
}

/* Fields of /proc/pid/stat: the name may hold spaces and parentheses, so
 * the fields are counted from the last ')'. */
static bool
proc_stat(long pid, char *comm, size_t ncomm, char *state, long *ppid, long long *start)
{
	char path[64], text[1024], *lp, *rp, *p;
	ssize_t n;
	int fd, field;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return false;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return false;
	text[n] = '\0';
	lp = strchr(text, '(');
	rp = strrchr(text, ')');
	if (!lp || !rp || rp < lp || rp[1] != ' ')
		return false;
	if (comm) {
		size_t len = (size_t)(rp - lp - 1);
		if (len >= ncomm)
			len = ncomm - 1;
		memcpy(comm, lp + 1, len);
		comm[len] = '\0';
	}
	p = rp + 2;
	if (state)
		*state = *p;
	for (field = 3; *p && field < 22; p++)
		if (*p == ' ') {
			field++;
			if (field == 4 && ppid)
				*ppid = strtol(p + 1, NULL, 10);
		}
	if (field != 22)
		return false;
	if (start)
		*start = strtoll(p, NULL, 10);
	return true;
}

long long
job_proc_start(long pid, bool *zombie)
{
	return lock_pid_start(pid, zombie, NULL);
}

long
job_driver(long long *start)
{
	long pid = (long)env_number("KUNAI_DRIVER_PID", 1, 1LL << 31, 0), ppid;
	char comm[64];
	int depth;

	if (pid) {
		*start = job_proc_start(pid, NULL);
		return pid > 0 && *start >= 0 ? pid : 0;
	}
	/* ninja runs `/bin/sh -c COMMAND`; the nearest ninja above us is ours */
	for (pid = (long)getppid(), depth = 0; pid > 1 && depth < 64; pid = ppid, depth++) {
		if (!proc_stat(pid, comm, sizeof(comm), NULL, &ppid, start))
			return 0;
		if (strcmp(comm, "ninja") == 0 || strcmp(comm, "samu") == 0)
			return pid;
	}
	return 0;
}

/* Reads what is ready on fd into b; returns false at end of file. */
static bool
drain(int fd, struct buf *b)
{
	char tmp[8192];
	ssize_t n;

	n = read(fd, tmp, sizeof(tmp));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN;
	if (n == 0)
		return false;
	if (b)
		buf_push(b, tmp, (size_t)n);
	return true;
}

static int
capture(struct job *j, char *const argv[], const char *dir, struct buf *out, struct buf *err, long limit_s,
        bool watch)
{
	int po[2], pe[2], status = 0, nfd, null;
	struct pollfd fds[2];
	double deadline;
	pid_t pid, w;

	if (pipe(po) != 0) {
		warn("pipe:");
		return -1;
	}
	if (pipe(pe) != 0) {
		warn("pipe:");
		close(po[0]);
		close(po[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		warn("fork:");
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		return -1;
	}
	if (pid == 0) {
		/* own process group: a Ctrl-C that ninja sends to ours must not
		 * kill an sbatch whose job id we have yet to learn */
		setpgid(0, 0);
		job_signals_child(j);
		null = open("/dev/null", O_RDONLY);
		if (null < 0 || dup2(null, 0) < 0 || dup2(po[1], 1) < 0 || dup2(pe[1], 2) < 0)
			_exit(127);
		/* only 1 and 2 lead to our pipes: what the command leaves
		 * running (a kubeconfig's credential helper) must not hold them */
		close(po[0]);
		close(pe[0]);
		close(po[1]);
		close(pe[1]);
		if (dir && chdir(dir) != 0) {
			dprintf(2, "kunai: chdir %s: %s\n", dir, strerror(errno));
			_exit(127);
		}
		execvp(argv[0], argv);
		dprintf(2, "kunai: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	fds[0].fd = po[0];
	fds[1].fd = pe[0];
	fds[0].events = fds[1].events = POLLIN;
	deadline = job_mono() + (double)limit_s;
	for (nfd = 2; nfd > 0;) {
		int r = poll(fds, 2, 1000);
		int i;

		if (r < 0 && errno != EINTR) {
			warn("poll:");
			break;
		}
		if (job_mono() > deadline) {
			warn("%s did not finish in %ld s; killed", argv[0], limit_s);
			kill(-pid, SIGKILL);
			break;
		}
		if (watch && (job_sleep(j, 0), j->signo)) {
			kill(-pid, SIGKILL);
			break;
		}
		for (i = 0; r > 0 && i < 2; i++)
			if (fds[i].fd >= 0 && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
			    !drain(fds[i].fd, i ? err : out)) {
				close(fds[i].fd);
				fds[i].fd = -1;
				nfd--;
			}
	}
	if (fds[0].fd >= 0)
		close(fds[0].fd);
	if (fds[1].fd >= 0)
		close(fds[1].fd);
	do
		w = waitpid(pid, &status, 0);
	while (w < 0 && errno == EINTR);
	if (w < 0) {
		warn("waitpid:");
		return -1;
	}
	if (out)
		buf_str(out);
	if (err)
		buf_str(err);
	if (watch && j->signo)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int
job_capture(struct job *j, char *const argv[], const char *dir, struct buf *out, struct buf *err)
{
	return capture(j, argv, dir, out, err, CAPTURE_LIMIT_S, false);
}

int
job_capture_long(struct job *j, char *const argv[], struct buf *out, struct buf *err, long limit_s)
{
	return capture(j, argv, NULL, out, err, limit_s, true);
}

bool
job_slurp(const char *path, struct buf *b)
{
	char tmp[4096];
	ssize_t n;
	int fd;

	b->len = 0;
	/* a record is a file: a FIFO or device planted in the run dir is
	 * neither waited on nor read without end */
	fd = file_open_regular(AT_FDCWD, path, O_NOFOLLOW);
	if (fd < 0)
		return false;
	while ((n = read(fd, tmp, sizeof(tmp))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0)
			buf_push(b, tmp, (size_t)n);
	close(fd);
	buf_str(b);
	return b->len > 0;
}

bool
job_read_record(struct job *j, const char *name, struct buf *b)
{
	struct buf path = {0};
	bool ok = job_slurp(job_path(j, &path, name), b);

	buf_free(&path);
	return ok;
}

const char *
job_record_field(const char *rec, const char *key, size_t *len)
{
	size_t k = strlen(key);
	const char *p;

	for (p = rec; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (strncmp(p, key, k) == 0 && p[k] == '=') {
			p += k + 1;
			*len = strcspn(p, "\n");
			return p;
		}
	return NULL;
}

/* ---- the run dir ---------------------------------------------------------------- */

const char *
job_path(struct job *j, struct buf *b, const char *name)
{
	b->len = 0;
	buf_printf(b, "%s/%s", j->dir, name);
	return b->data;
}

const char *
job_script_name(const struct job *j)
{
	return j->sched == JOB_SLURM ? "cloudai_sbatch_script.sh" : j->sched == JOB_LSF ? "bsub_script.sh" : "run.sh";
}

bool
job_save(struct job *j)
{
	struct buf text = {0}, p = {0};
	bool ok;

	ok = record_job_write(&j->info, &text) && write_file_atomic(job_path(j, &p, "job.json"), text.data, text.len);
	buf_free(&text);
	buf_free(&p);
	return ok;
}

const char *
job_argv_line(struct arena *a, char *const argv[])
{
	struct buf line = {0};
	const char *s;
	size_t i;

	for (i = 0; argv[i]; i++)
		buf_printf(&line, "%s%s", i ? " " : "", argv[i]);
	s = arena_strdup(a, buf_str(&line));
	buf_free(&line);
	return s;
}

void
job_keep_answer(struct job *j, const char *name, const char *head, const struct buf *said, const struct buf *out)
{
	struct buf p = {0}, text = {0};

	buf_printf(&text, "# %s\n", head);
	if (said && said->len) {
		buf_push(&text, said->data, said->len);
		if (said->data[said->len - 1] != '\n')
			buf_putc(&text, '\n');
	}
	if (out && out->len) {
		buf_puts(&text, "# its standard output:\n");
		buf_push(&text, out->data, out->len);
	}
	write_file_atomic(job_path(j, &p, name), text.data, text.len);
	buf_free(&p);
	buf_free(&text);
}
