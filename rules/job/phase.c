/* phase.c: `kunai phase phases/NAME.stamp`, what ninja runs for the
 * campaign's prepare or cleanup phase (gen writes phases/NAME.sh,
 * gen/write/phase_script.c): the script under its time limit, from the build dir, its
 * output in phases/NAME/output.txt, its record in phases/NAME.json, and
 * the stamp only when every command succeeded. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "job.h"
#include "gen/base/record.h"
#include "gen/base/beneath.h"
#include "gen/base/util.h"

enum {
	GRACE_S = 5, /* between TERM and KILL */
};

static volatile sig_atomic_t stop_sig;

static void
on_stop(int sig)
{
	stop_sig = sig;
}

static char *
now_iso(char *out, size_t n)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, n, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return out;
}

/* The script's time limit (its #KUNAI --time-limit line), or 600. */
static long
time_limit(const char *script)
{
	struct buf text = {0};
	const char *p;
	long t = 600;

	if (read_file(script, &text) && (p = strstr(buf_str(&text), "\n#KUNAI --time-limit ")))
		t = strtol(p + 21, NULL, 10);
	buf_free(&text);
	return t > 0 ? t : 600;
}

/* The last "[PHASE] FAILED: " line of the output, for the reason. */
static void
failed_line(const char *log, struct buf *why)
{
	struct buf text = {0};
	const char *p, *last = NULL, *eol;

	if (read_file(log, &text))
		for (p = buf_str(&text); (p = strstr(p, "[PHASE] FAILED: ")); p++)
			last = p + 16;
	if (last) {
		eol = strchr(last, '\n');
		buf_push(why, last, eol ? (size_t)(eol - last) : strlen(last));
	}
	buf_free(&text);
}

int
cmd_phase(int argc, char **argv)
{
	struct phase_record rec = {0};
	struct buf name = {0}, script = {0}, log = {0}, json = {0}, why = {0};
	struct sigaction sa;
	struct timespec tick = {0, 50 * 1000 * 1000};
	char start[32], end[32];
	const char *stamp, *base, *dot, *dirs[] = {"phases", NULL, NULL};
	long limit, waited_ms = 0, term_at = -1;
	int out, status = 0, rc = 1;
	pid_t pid;

	if (argc != 2 || strncmp(argv[1], "phases/", 7) != 0 || !(dot = strrchr(argv[1], '.')) ||
	    strcmp(dot, ".stamp") != 0) {
		fprintf(stderr, "kunai: phase: usage: kunai phase phases/NAME.stamp (run by ninja in the build dir)\n");
		return 2;
	}
	stamp = argv[1];
	base = stamp + 7;
	buf_push(&name, base, (size_t)(dot - base));
	buf_printf(&script, "phases/%s.sh", name.data);
	buf_printf(&log, "phases/%s", name.data);
	/* phases/, its output dir, output.txt and the records: never through
	 * a link (run from the build dir by ninja) */
	dirs[1] = log.data;
	if (!beneath_dirs_ok(".", dirs))
		goto done;
	if (mkdir(log.data, 0755) != 0 && errno != EEXIST) {
		warn("phase: %s:", log.data);
		goto done;
	}
	buf_puts(&log, "/output.txt");
	limit = time_limit(script.data);
	out = beneath_open(AT_FDCWD, log.data, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (out < 0) {
		warn(errno == ELOOP ? "phase: %s is a symbolic link; kunai does not write through links (remove it)"
		                    : "phase: %s:", log.data);
		goto done;
	}
	beneath_unlink(AT_FDCWD, stamp, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	now_iso(start, sizeof(start));
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		dup2(out, 1);
		dup2(out, 2);
		close(out);
		execl("/bin/bash", "bash", script.data, (char *)NULL);
		perror("kunai phase: exec /bin/bash");
		_exit(127);
	}
	close(out);
	if (pid < 0) {
		warn("phase: fork:");
		goto done;
	}
	setpgid(pid, pid);
	/* poll: the time limit and a stop signal both end the process group */
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			warn("phase: waitpid:");
			goto done;
		}
		if (term_at < 0 && (stop_sig || waited_ms >= limit * 1000)) {
			kill(-pid, SIGTERM);
			term_at = waited_ms;
		} else if (term_at >= 0 && waited_ms - term_at >= GRACE_S * 1000) {
			kill(-pid, SIGKILL);
		}
		nanosleep(&tick, NULL);
		waited_ms += 50;
	}
	/* whatever the script left behind in its group goes too */
	kill(-pid, SIGKILL);
	now_iso(end, sizeof(end));
	rec.name = name.data;
	rec.start_time = start;
	rec.end_time = end;
	if (term_at >= 0 && stop_sig) {
		rec.outcome = "interrupted";
		buf_printf(&why, "interrupted by signal %d", (int)stop_sig);
	} else if (term_at >= 0) {
		rec.outcome = "timeout";
		buf_printf(&why, "time limit of %lds reached", limit);
	} else if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		rec.outcome = "passed";
	} else {
		rec.outcome = "failed";
		failed_line(log.data, &why);
		if (!why.len)
			buf_printf(&why, WIFEXITED(status) ? "exit code %d" : "killed by signal %d",
			           WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
	}
	if (WIFEXITED(status)) {
		rec.has_exit_code = true;
		rec.exit_code = WEXITSTATUS(status);
	}
	rec.reason = why.len ? why.data : NULL;
	json_write_phase(&rec, &json);
	buf_printf(&script, ".json");
	script.len = 0;
	buf_printf(&script, "phases/%s.json", name.data);
	if (!write_file_atomic(script.data, json.data, json.len))
		goto done;
	if (strcmp(rec.outcome, "passed") != 0) {
		fprintf(stderr, "kunai: %s %s: %s (see %s)\n", name.data, rec.outcome, rec.reason, log.data);
		rc = stop_sig ? 128 + stop_sig : 1;
		goto done;
	}
	rc = write_file_atomic(stamp, "passed\n", 7) ? 0 : 1;
done:
	buf_free(&name);
	buf_free(&script);
	buf_free(&log);
	buf_free(&json);
	buf_free(&why);
	return rc;
}
