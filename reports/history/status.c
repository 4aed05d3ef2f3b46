/* history/status.c: `kunai status BUILD_DIR`: one line per run with its outcome, or
 * for a run still under way its live state. What is still pending or
 * running per job.json is asked of the scheduler once, batched (one squeue
 * for every Slurm job; kill(pid, 0) and /proc for standalone processes), and
 * not at all when nothing is live: polite to slurmctld (DESIGN 9). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "reports/results/results.h"
#include "reports/history/status.h"
#include "reports/results/plan.h"
#include "reports/results/report_json.h"
#include "reports/results/summary.h"
#include "reports/write/summary.h"
#include "reports/grade/grade.h"
#include "reports/results/campaign.h"
#include "gen/base/escape.h"
#include "gen/base/hostlist.h"
#include "gen/base/lock.h"
#include "gen/base/util.h"

struct row {
	struct run_report rep;
	struct job_record job; /* loaded only for live candidates */
	const char *state;     /* what the STATE column shows */
	bool live, slurm;
	bool ended;            /* the job ended, and no runner has collected it yet */
	bool has_start, has_exit; /* its own records (kunai.start, kunai.exit) */
	int exit_code;         /* ... what kunai.exit says */
};

/* A Slurm job id as squeue takes it: digits, array "_" and step "." parts. */
static bool
slurm_id(const char *s)
{
	if (!s || *s < '0' || *s > '9')
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || *s == '_' || *s == '.'))
			return false;
	return true;
}

static char *
lower(struct arena *a, const char *s, size_t n)
{
	char *r = arena_strndup(a, s, n);
	char *p;

	for (p = r; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return r;
}

/* Runs argv with stdout and stderr into out. Returns the exit status, 127
 * when it cannot be started, -1 on other failures. */
static int
capture(char *const *argv, struct buf *out)
{
	char tmp[4096];
	int fd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fd) != 0)
		return -1;
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	while ((n = read(fd[0], tmp, sizeof(tmp))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			break;
		buf_push(out, tmp, (size_t)n);
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Whether squeue's state is a job's end. */
static bool
slurm_ended(const char *state)
{
	static const char *const ends[] = {"completed", "failed", "cancelled", "timeout", "node_fail",
	                                   "preempted", "out_of_memory", "boot_fail", "deadline", "revoked"};
	size_t i;

	for (i = 0; i < LEN(ends); i++)
		if (strcmp(state, ends[i]) == 0)
			return true;
	return false;
}

/* A job that ended while no runner waited on it: not live, and not lost. */
static void
set_ended(struct arena *a, struct row *r, const char *why)
{
	r->live = false;
	r->ended = true;
	r->state = "ended";
	r->rep.reason = arena_printf(a, "%s; not collected yet (ninja run collects it)", why);
}

/* What a live Slurm row shows from squeue's answer (state NULL: squeue did
 * not list the job; answered false: it could not be asked, the records
 * are all there is). */
static void
settle_slurm(struct arena *a, struct row *r, const char *state, bool answered)
{
	if (state && slurm_ended(state))
		set_ended(a, r, arena_printf(a, "%s per squeue", state));
	else if (state)
		r->state = state;
	else if (r->has_exit)
		set_ended(a, r, arena_printf(a, answered ? "exit record %d" : "exit record %d, squeue did not answer",
		                             r->exit_code));
	else if (answered)
		r->state = "lost";
	else if (r->has_start)
		r->state = "running";
}

/* One squeue for every live Slurm job, the ended ones too while slurmctld
 * remembers them: squeue -h -t all -j ID1,ID2,... -o '%i|%T'. */
static void
query_slurm(struct arena *a, struct row *rows, size_t n)
{
	struct buf ids = {0}, out = {0};
	char *argv[] = {"squeue", "-h", "-t", "all", "-j", NULL, "-o", "%i|%T", NULL};
	const char *p, *eol, *bar, **states = arena_alloc(a, (n + 1) * sizeof(*states));
	bool answered = false;
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if (rows[i].slurm && slurm_id(rows[i].rep.job_id))
			buf_printf(&ids, "%s%s", ids.len ? "," : "", rows[i].rep.job_id);
	if (!ids.len)
		goto done;
	argv[5] = ids.data;
	rc = capture(argv, &out);
	if (rc == 127 || rc < 0)
		warn("status: cannot run squeue; live states are from the jobs' own records");
	/* squeue fails with "Invalid job id" when none of them is known any more */
	else if (rc != 0 && !strstr(buf_str(&out), "Invalid job id"))
		warn("status: squeue exited with status %d: %.*s; live states are from the jobs' own records", rc,
		     (int)strcspn(buf_str(&out), "\n"), buf_str(&out));
	else
		answered = true;
	for (p = buf_str(&out); answered && *p; p = *eol ? eol + 1 : eol) {
		eol = strchr(p, '\n');
		if (!eol)
			eol = p + strlen(p);
		bar = memchr(p, '|', (size_t)(eol - p));
		if (!bar)
			continue;
		for (i = 0; i < n; i++) {
			const char *id = rows[i].rep.job_id;
			if (rows[i].slurm && id && strlen(id) == (size_t)(bar - p) && memcmp(id, p, (size_t)(bar - p)) == 0)
				states[i] = lower(a, bar + 1, (size_t)(eol - bar - 1));
		}
	}
done:
	for (i = 0; i < n; i++)
		if (rows[i].slurm && rows[i].live)
			settle_slurm(a, &rows[i], states[i], answered);
	buf_free(&ids);
	buf_free(&out);
}

/* The start time of process pid in clock ticks since boot (field 22 of
 * /proc/PID/stat), or -1 when it is gone. */
static long long
proc_ticks(long pid)
{
	char path[64], tmp[1024];
	const char *p;
	size_t n;
	int field;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	n = fread(tmp, 1, sizeof(tmp) - 1, f);
	fclose(f);
	tmp[n] = '\0';
	/* the command name may hold blanks and parentheses: fields follow the last ')' */
	p = strrchr(tmp, ')');
	for (field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	return p ? strtoll(p + 1, NULL, 10) : -1;
}

/* Seconds since the epoch of a /proc start time. */
static bool
ticks_epoch(long long ticks, double *when)
{
	long long btime = -1;
	long hz = sysconf(_SC_CLK_TCK);
	char line[256];
	FILE *f = fopen("/proc/stat", "r");

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "btime ", 6) == 0)
			btime = strtoll(line + 6, NULL, 10);
	fclose(f);
	if (ticks < 0 || btime < 0 || hz <= 0)
		return false;
	*when = (double)btime + (double)ticks / (double)hz;
	return true;
}

/* Standalone jobs are process (group) ids on the host that ran them: alive
 * when kill(pid, 0) finds the process and it is the same one (its /proc
 * start time is the one recorded, or without a record it did not start
 * after the job did: a reused pid starts later). */
static void
query_standalone(struct row *r, const char *host)
{
	const char *ref = r->job.start_time ? r->job.start_time : r->job.submit_time;
	char *end;
	long pid = r->rep.job_id ? strtol(r->rep.job_id, &end, 10) : 0;
	long long ticks;
	double started, t;

	if (pid <= 1 || *end)
		return;
	if (r->job.host && host && strcmp(r->job.host, host) != 0)
		return; /* another machine's process: the recorded state is all we know */
	if (kill((pid_t)pid, 0) != 0 && errno != EPERM) {
		r->state = "lost";
		return;
	}
	ticks = proc_ticks(pid);
	if (r->job.pid_start > 0 ? ticks >= 0 && ticks != r->job.pid_start
	                         : time_parse_iso8601(ref, &t) && ticks_epoch(ticks, &started) && started > t + 2) {
		r->state = "lost";
		return;
	}
	r->state = r->job.start_time ? "running" : "pending";
}

/* A small record file into b (NUL-terminated); false when it is absent. */
static bool
slurp(const char *path, struct buf *b)
{
	char tmp[512];
	ssize_t n;
	/* a file: a FIFO planted there is not waited on */
	int fd = file_open_regular(AT_FDCWD, path, O_NOFOLLOW);

	b->len = 0;
	if (fd < 0)
		return false;
	while ((n = read(fd, tmp, sizeof(tmp) - 1)) < 0 && errno == EINTR)
		;
	close(fd);
	if (n < 0)
		n = 0;
	buf_push(b, tmp, (size_t)n);
	buf_putc(b, '\0');
	b->len = n;
	return true;
}

/* The run's own start and exit records, when they are its job's. */
static void
read_records(const char *root, struct row *r)
{
	struct buf p = {0}, text = {0};
	const char *f;

	buf_printf(&p, "%s/%s/kunai.start", root, r->rep.dir);
	if (slurp(p.data, &text) && (f = strstr(text.data, "\njob=")) && r->rep.job_id &&
	    strncmp(f + 5, r->rep.job_id, strlen(r->rep.job_id)) == 0 && f[5 + strlen(r->rep.job_id)] == '\n') {
		r->has_start = true;
		p.len = text.len = 0;
		buf_printf(&p, "%s/%s/kunai.exit", root, r->rep.dir);
		if (slurp(p.data, &text)) {
			r->has_exit = true;
			r->exit_code = atoi(text.data);
		}
	}
	buf_free(&p);
	buf_free(&text);
}

static void
elapsed(char *out, size_t n, double s)
{
	long t = util_to_long(s + 0.5, LONG_MAX);

	if (s < 0)
		snprintf(out, n, "-");
	else if (t >= 3600)
		snprintf(out, n, "%ldh%02ldm%02lds", t / 3600, t / 60 % 60, t % 60);
	else if (t >= 60)
		snprintf(out, n, "%ldm%02lds", t / 60, t % 60);
	else
		snprintf(out, n, "%lds", t);
}

/* The time a row has taken so far: a live run counts from its start (or
 * submission while pending). */
static double
row_elapsed(const struct row *r, double now)
{
	double t;

	if (!r->live)
		return r->rep.duration_s;
	if (time_parse_iso8601(r->job.start_time, &t) || time_parse_iso8601(r->job.submit_time, &t))
		return now >= t ? now - t : 0;
	return -1;
}

/* One line per phase the build dir has: how it last ended, or "not run". */
static void
print_phases(struct arena *a, const char *dir)
{
	static const char *const names[] = {"prepare", "cleanup"};
	struct phase_record r;
	struct buf p = {0}, o = {0};
	size_t i;

	for (i = 0; i < LEN(names); i++) {
		p.len = 0;
		buf_printf(&p, "%s/phases/%s.sh", dir, names[i]);
		if (access(p.data, F_OK) != 0)
			continue;
		p.len = 0;
		buf_printf(&p, "%s/phases/%s.json", dir, names[i]);
		o.len = 0;
		if (!json_load_phase(a, p.data, &r))
			buf_printf(&o, "%s: not run", names[i]);
		else if (r.reason)
			buf_printf(&o, "%s: %s (%s) at %s", names[i], r.outcome, r.reason, r.end_time ? r.end_time : "-");
		else
			buf_printf(&o, "%s: %s at %s", names[i], r.outcome, r.end_time ? r.end_time : "-");
		puts(term_text(o.data));
	}
	buf_free(&p);
	buf_free(&o);
}

static void
print_rows(struct arena *a, const struct plan *p, struct row *rows, size_t n)
{
	static const char *const head[] = {"ID", "ITER", "STATE", "JOB", "ELAPSED", "NODES"};
	const char *(*cells)[6] = arena_alloc(a, (n + 1) * sizeof(*cells));
	size_t w[6], i, c, counts[OUTCOME_COUNT] = {0}, live = 0, ended = 0;
	enum campaign_status worst = n ? CAMPAIGN_PASSED : CAMPAIGN_INCOMPLETE, one;
	bool tty = isatty(1);
	double now = (double)time(NULL);
	struct buf line = {0};
	char tmp[64];

	for (c = 0; c < 6; c++)
		w[c] = strlen(head[c]);
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		cells[i][0] = r->rep.id;
		if (r->rep.step > 0)
			snprintf(tmp, sizeof(tmp), "%d/%d", r->rep.iteration, r->rep.step);
		else
			snprintf(tmp, sizeof(tmp), "%d", r->rep.iteration);
		cells[i][1] = arena_strdup(a, tmp);
		cells[i][2] = r->state;
		cells[i][3] = r->rep.job_id ? r->rep.job_id : "-";
		elapsed(tmp, sizeof(tmp), row_elapsed(r, now));
		cells[i][4] = arena_strdup(a, tmp);
		/* every node of the run, written short as Slurm does (n[1-4]) */
		cells[i][5] = r->rep.nodes ? hostlist_compress(a, r->rep.nodes) : "-";
		for (c = 0; c < 6; c++)
			if (strlen(cells[i][c]) > w[c])
				w[c] = strlen(cells[i][c]);
	}
	if (p->n_presets) {
		printf("presets:");
		for (i = 0; i < p->n_presets; i++)
			printf(" %s", p->presets[i]);
		printf("\n");
	}
	printf("%-*s  %-*s  %-*s  %-*s  %-*s  %-*s  REASON\n", (int)w[0], head[0], (int)w[1], head[1], (int)w[2],
	       head[2], (int)w[3], head[3], (int)w[4], head[4], (int)w[5], head[5]);
	for (i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		const char *reason = r->live || !r->rep.reason ? "" : r->rep.reason;
		line.len = 0;
		buf_printf(&line, "%-*s  %-*s  %-*s  %-*s  %-*s  %-*s  %s", (int)w[0], cells[i][0], (int)w[1], cells[i][1],
		           (int)w[2], cells[i][2], (int)w[3], cells[i][3], (int)w[4], cells[i][4], (int)w[5], cells[i][5],
		           reason);
		while (line.len && line.data[line.len - 1] == ' ')
			line.data[--line.len] = '\0';
		puts(term_text(line.data));
		if (r->live)
			live++;
		else if (r->ended)
			ended++;
		else
			counts[r->rep.outcome]++;
		one = r->live || r->ended ? CAMPAIGN_INCOMPLETE : campaign_of_run(r->rep.outcome, r->rep.ran_skipped);
		if (one > worst)
			worst = one;
	}
	/* the campaign's one status first, as the report's (DESIGN 18) */
	if (tty)
		printf("%s%s\033[0m: ", campaign_colour(worst), campaign_name(worst));
	else
		printf("%s: ", campaign_name(worst));
	printf("%zu run%s of %s:", n, n == 1 ? "" : "s", p->scenario);
	for (c = 0; c < OUTCOME_COUNT; c++)
		if (counts[c])
			printf(" %zu %s,", counts[c], outcome_name((enum outcome)c));
	if (ended)
		printf(" %zu ended, not collected,", ended);
	printf(" %zu live\n", live);
	buf_free(&line);
}

/* true when a was modified before b */
static bool
older(const struct stat *a, const struct stat *b)
{
	return a->st_mtim.tv_sec < b->st_mtim.tv_sec ||
	       (a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec < b->st_mtim.tv_nsec);
}

/* The run's graded outcome when `kunai report` (or `kunai grade`) has
 * graded its current result: report.json at least as new as job.json and
 * about the same run. The STATE column then shows it with the runner's
 * own outcome beside it when they differ ("perf-failed (job passed)"). */
static void
graded(struct arena *a, const char *root, struct row *r)
{
	struct buf path = {0}, why = {0};
	struct run_report g;
	struct stat js, rs;

	if (r->rep.outcome == OUTCOME_RUNNING || r->rep.outcome == OUTCOME_NOT_RUN ||
	    r->rep.outcome == OUTCOME_SKIPPED)
		return;
	buf_printf(&path, "%s/%s/job.json", root, r->rep.dir);
	if (stat(path.data, &js) != 0)
		goto done;
	path.len = 0;
	buf_printf(&path, "%s/%s/report.json", root, r->rep.dir);
	if (stat(path.data, &rs) != 0 || older(&rs, &js))
		goto done;
	if (!json_load_report(a, path.data, &g, &why) || strcmp(g.dir, r->rep.dir) != 0 ||
	    g.outcome == OUTCOME_RUNNING || g.outcome == OUTCOME_NOT_RUN)
		goto done;
	if (g.outcome != r->rep.outcome)
		r->state = arena_printf(a, "%s (job %s)", outcome_name(g.outcome), outcome_name(r->rep.outcome));
	r->rep.outcome = g.outcome;
	r->rep.reason = g.reason;
done:
	buf_free(&path);
	buf_free(&why);
}

/* A run the fleet verdict flagged is suspect only in summary.json (kunai
 * report writes it after every report.json; DESIGN 15): the STATE column
 * shows it when that summary is at least as new as the run's report.json. */
static void
suspects(struct arena *a, const char *root, struct row *rows, size_t n)
{
	struct buf path = {0};
	struct summary s;
	struct stat ss, rs;
	size_t i;

	buf_printf(&path, "%s/report/summary.json", root);
	if (stat(path.data, &ss) != 0 || !json_load_summary(a, path.data, &s))
		goto done;
	for (i = 0; i < n && i < s.n_runs; i++) {
		struct row *r = &rows[i];

		if (s.runs[i].outcome != OUTCOME_SUSPECT || r->rep.outcome != OUTCOME_PASSED || !s.runs[i].dir ||
		    strcmp(s.runs[i].dir, r->rep.dir) != 0)
			continue;
		path.len = 0;
		buf_printf(&path, "%s/%s/report.json", root, r->rep.dir);
		if (stat(path.data, &rs) != 0 || older(&ss, &rs))
			continue;
		r->state = "suspect (job passed)";
		r->rep.outcome = OUTCOME_SUSPECT;
		r->rep.reason = s.runs[i].reason;
	}
done:
	buf_free(&path);
}

int
cmd_status(int argc, char **argv)
{
	struct arena a = {0};
	struct plan p;
	struct run_report *reps;
	struct row *rows;
	struct buf path = {0}, why = {0};
	bool any_slurm = false, have_host;
	char host[256];
	size_t i;
	int rc = 1, lockfd = -1;

	if (argc != 2 || argv[1][0] == '-') {
		fprintf(stderr, "kunai: status: %s\nusage: kunai status BUILD_DIR\n",
		        argc < 2 ? "missing BUILD_DIR" : argc > 2 ? "too many arguments" : "unknown option");
		return 2;
	}
	/* shared, as report: an interrupted gen is undone before kunai.json is
	 * read (a dir without one gets no .kunai: the load says why) */
	buf_printf(&path, "%s/kunai.json", argv[1]);
	if (access(path.data, F_OK) == 0 && (lockfd = lock_take(argv[1], false, "status")) < 0)
		goto done;
	if (!json_load_plan(&a, path.data, &p))
		goto done;
	have_host = gethostname(host, sizeof(host)) == 0;
	host[sizeof(host) - 1] = '\0';
	rows = arena_alloc(&a, (p.n_runs + 1) * sizeof(*rows));
	reps = arena_alloc(&a, (p.n_runs + 1) * sizeof(*reps));
	/* the runner's view (job.json); `kunai report` adds the grading */
	for (i = 0; i < p.n_runs; i++)
		grade_run(&a, argv[1], &p, &p.runs[i], false, &reps[i]);
	report_mark_skipped(&a, &p, reps);
	for (i = 0; i < p.n_runs; i++) {
		struct row *r = &rows[i];
		r->rep = reps[i];
		r->state = outcome_name(r->rep.outcome);
		graded(&a, argv[1], r);
		if (r->rep.outcome != OUTCOME_RUNNING)
			continue;
		path.len = 0;
		why.len = 0;
		buf_printf(&path, "%s/%s/job.json", argv[1], r->rep.dir);
		if (record_job_read(&a, path.data, &r->job, &why) <= 0)
			continue;
		r->live = true;
		r->state = r->job.state ? lower(&a, r->job.state, strlen(r->job.state)) : "submitted";
		if (!r->job.scheduler)
			r->job.scheduler = p.scheduler;
		if (r->job.scheduler && strcmp(r->job.scheduler, "slurm") == 0) {
			any_slurm = r->slurm = true;
			read_records(argv[1], r);
		}
		else if (r->job.scheduler && strcmp(r->job.scheduler, "standalone") == 0)
			query_standalone(r, have_host ? host : NULL);
	}
	suspects(&a, argv[1], rows, p.n_runs);
	if (any_slurm)
		query_slurm(&a, rows, p.n_runs);
	print_phases(&a, argv[1]);
	print_rows(&a, &p, rows, p.n_runs);
	rc = fflush(stdout) == 0 ? 0 : 1;
done:
	if (lockfd >= 0)
		close(lockfd);
	buf_free(&path);
	buf_free(&why);
	arena_free(&a);
	return rc;
}
