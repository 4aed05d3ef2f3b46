/* grade/run.c: `kunai grade DIR/report.json`: turns what the runner left in a
 * run dir (job.json, stdout.txt) into the graded report.json: the outcome
 * class, its reason and the workload's metrics. It never runs or submits
 * anything, and a failed run is a result, not an error: the exit status is
 * 1 only when the report cannot be written (or the build dir is not one). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/results/plan.h"
#include "reports/results/report_json.h"
#include "reports/grade/grade.h"
#include "gen/base/beneath.h"
#include "gen/base/util.h"
#include "gen/workloads/workload.h"

#ifndef KUNAI_VERSION
#define KUNAI_VERSION "0.0.0-dev"
#endif

/* Reads exactly n digits at *p into *v. */
static bool
digits(const char **p, int n, int *v)
{
	*v = 0;
	while (n-- > 0) {
		if (**p < '0' || **p > '9')
			return false;
		*v = *v * 10 + (*(*p)++ - '0');
	}
	return true;
}


bool
time_parse_iso8601(const char *s, double *epoch)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y, mo, d, h, mi, sec, oh = 0, om = 0, sign = 0;
	double frac = 0, scale = 0.1;
	const char *p = s;

	if (!s || !digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' ||
	    !digits(&p, 2, &d) || (*p != 'T' && *p != 't' && *p != ' '))
		return false;
	p++;
	if (!digits(&p, 2, &h) || *p++ != ':' || !digits(&p, 2, &mi) || *p++ != ':' || !digits(&p, 2, &sec))
		return false;
	if (*p == '.' || *p == ',') {
		if (*++p < '0' || *p > '9')
			return false;
		for (; *p >= '0' && *p <= '9'; p++, scale /= 10)
			frac += (*p - '0') * scale;
	}
	if (*p == 'Z' || *p == 'z')
		p++;
	else if (*p == '+' || *p == '-') {
		sign = *p++ == '-' ? -1 : 1;
		if (!digits(&p, 2, &oh))
			return false;
		if (*p == ':')
			p++;
		if (!digits(&p, 2, &om) || oh > 23 || om > 59)
			return false;
	} else
		return false;
	if (*p || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || sec > 60)
		return false;
	*epoch = (double)util_days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec + frac -
	         sign * (oh * 3600.0 + om * 60.0);
	return true;
}

const struct plan_run *
plan_find_run(const struct plan *p, const char *dir)
{
	size_t i;

	for (i = 0; i < p->n_runs; i++)
		if (strcmp(p->runs[i].dir, dir) == 0)
			return &p->runs[i];
	return NULL;
}

/* Output may hold NUL bytes: no strstr. */
static bool
contains(const char *hay, size_t n, const char *needle)
{
	size_t m = strlen(needle);
	const char *p = hay, *end = hay + n;

	if (m == 0)
		return true;
	while ((size_t)(end - p) >= m && (p = memchr(p, needle[0], (size_t)(end - p) - m + 1))) {
		if (memcmp(p, needle, m) == 0)
			return true;
		p++;
	}
	return false;
}

/* Reads path whole; false (silently) when it does not exist. */
static bool
read_output(const char *path, struct buf *out, bool *unreadable)
{
	struct stat st;

	*unreadable = false;
	if (stat(path, &st) != 0)
		return false;
	if (!S_ISREG(st.st_mode) || !read_file(path, out)) {
		*unreadable = true;
		return false;
	}
	return true;
}

/* The success markers and the grader of workload wl on the run's stdout. */
static void
check_output(struct arena *a, const char *dir, const struct plan_run *r, const struct workload *wl,
             struct run_report *out)
{
	struct buf text = {0}, path = {0};
	bool have, unreadable;
	size_t i;

	buf_printf(&path, "%s/stdout.txt", dir);
	have = read_output(path.data, &text, &unreadable);
	buf_free(&path);
	grader_fn *g = grader_find(wl->grader);

	if (!have && wl->all_of && wl->all_of[0])
		grade_demote(out, OUTCOME_FAILED, unreadable ? "stdout.txt cannot be read" : "no stdout.txt");
	for (i = 0; have && wl->all_of && wl->all_of[i]; i++)
		if (!contains(text.data, text.len, wl->all_of[i]))
			grade_demote(out, OUTCOME_FAILED,
			             arena_printf(a, "success check: stdout.txt lacks '%s'%s", wl->all_of[i],
			                       text.len ? "" : " (it is empty)"));
	for (i = 0; have && wl->none_of && wl->none_of[i]; i++)
		if (contains(text.data, text.len, wl->none_of[i]))
			grade_demote(out, OUTCOME_FAILED, arena_printf(a, "success check: stdout.txt has '%s'", wl->none_of[i]));
	if (have && wl->any_of && wl->any_of[0]) {
		for (i = 0; wl->any_of[i] && !contains(text.data, text.len, wl->any_of[i]); i++)
			;
		if (!wl->any_of[i])
			grade_demote(out, OUTCOME_FAILED,
			             arena_printf(a, "success check: stdout.txt has none of '%s'...", wl->any_of[0]));
	}
	if (!have && wl->any_of && wl->any_of[0])
		grade_demote(out, OUTCOME_FAILED, unreadable ? "stdout.txt cannot be read" : "no stdout.txt");
	if (g)
		g(a, r, dir, have ? text.data : "", have ? text.len : 0, out);
	buf_free(&text);
}

/* A run of CloudAI's results dir: no job.json, so the outcome is its
 * output's (success markers, grader, references); whether its job exited
 * 0, where it ran and when are unknown, not failed. */
static void
cloudai_run(struct arena *a, const char *dir, const struct plan *p, const struct plan_run *r, bool check,
            struct run_report *out)
{
	const char *wname = p->tests[r->test].workload;
	const struct workload *wl = wname ? workload_find(wname) : NULL;
	struct buf path = {0};

	buf_printf(&path, "%s/stdout.txt", dir);
	out->workload = wname;
	out->run_dir = arena_strdup(a, dir);
	if (access(path.data, F_OK) != 0) {
		out->outcome = OUTCOME_NOT_RUN;
		out->reason = "never run (CloudAI's run dir has no stdout.txt)";
	} else if (!wl) {
		out->outcome = OUTCOME_INFRA;
		out->reason = arena_printf(a, "kunai does not know the workload '%s'", wname ? wname : "");
	} else {
		out->outcome = OUTCOME_PASSED; /* until its output says otherwise */
		if (check) {
			check_output(a, dir, r, wl, out);
			refs_apply(a, &p->tests[r->test], p->system, out);
		}
	}
	buf_free(&path);
}

static void
hash_mix(unsigned long long *h, const void *p, size_t n)
{
	unsigned long long v = util_hash(p, n);
	/* the length too, so that "ab","c" and "a","bc" differ */
	v ^= (unsigned long long)n * 0x9e3779b97f4a7c15ull;
	*h = (*h ^ v) * 0x100000001b3ull;
}

static void
hash_list(unsigned long long *h, const char *const *l)
{
	size_t i;

	for (i = 0; l && l[i]; i++)
		hash_mix(h, l[i], strlen(l[i]) + 1);
	hash_mix(h, "", 0);
}

static unsigned long long
version_hash(const struct workload *wl)
{
	unsigned long long h = 0xcbf29ce484222325ull;
	uint32_t common = grade_source_common(), own = wl ? grader_source(wl->grader) : 0;

	hash_mix(&h, &common, sizeof(common));
	hash_mix(&h, &own, sizeof(own));
	if (wl) {
		hash_mix(&h, wl->name, strlen(wl->name));
		hash_mix(&h, wl->grader ? wl->grader : "", wl->grader ? strlen(wl->grader) : 0);
		hash_list(&h, wl->all_of);
		hash_list(&h, wl->none_of);
		hash_list(&h, wl->any_of);
	}
	return h;
}

const char *
grade_version(struct arena *a, const char *workload)
{
	return arena_printf(a, "%016llx", version_hash(workload ? workload_find(workload) : NULL));
}

unsigned long long
grade_identity(void)
{
	const char *const *names = workload_names();
	unsigned long long h = version_hash(NULL), v;
	size_t i;

	hash_mix(&h, KUNAI_VERSION, strlen(KUNAI_VERSION));
	for (i = 0; names[i]; i++) {
		v = version_hash(workload_find(names[i]));
		hash_mix(&h, &v, sizeof(v));
	}
	return h;
}

/* The report of run r before anything is known of it. */
static void
report_start(struct run_report *out, const struct plan_run *r)
{
	memset(out, 0, sizeof(*out));
	out->dir = r->dir;
	out->id = r->id;
	out->iteration = r->iteration;
	out->step = r->step;
	out->duration_s = -1;
}

void
grade_run(struct arena *a, const char *root, const struct plan *p, const struct plan_run *r,
          bool check, struct run_report *out)
{
	struct buf dir = {0}, path = {0}, why = {0};
	struct job_record j;
	double t0, t1;
	const char *wname;
	int rc;

	report_start(out, r);
	out->grader = grade_version(a, NULL);
	buf_printf(&dir, "%s/%s", root, r->dir);
	buf_printf(&path, "%s/job.json", dir.data);
	rc = record_job_read(a, path.data, &j, &why);
	if (rc == 0 && p->cloudai) {
		cloudai_run(a, dir.data, p, r, check, out);
		goto done;
	}
	if (rc <= 0) {
		out->outcome = rc == 0 ? OUTCOME_NOT_RUN : OUTCOME_INFRA;
		out->reason = rc == 0 ? "never run (no job.json)" : arena_printf(a, "job.json: %s", buf_str(&why));
		goto done;
	}
	out->job_id = j.job_id;
	out->start_time = j.start_time;
	out->end_time = j.end_time;
	out->has_exit_code = j.has_exit_code;
	out->exit_code = j.exit_code;
	if (time_parse_iso8601(j.start_time, &t0) && time_parse_iso8601(j.end_time, &t1) && t1 >= t0)
		out->duration_s = t1 - t0;
	out->job_state = j.state;
	if (!record_outcome(&j, &out->outcome)) {
		out->outcome = OUTCOME_RUNNING;
		out->reason = arena_printf(a, "no outcome recorded yet (state %s)", j.state ? j.state : "unknown");
		goto done;
	}
	out->job_outcome = outcome_name(out->outcome);
	out->reason = out->outcome == OUTCOME_PASSED ? NULL : j.reason ? j.reason : j.outcome;
	/* the runner names the workload it checked; else the test's template */
	wname = j.workload ? j.workload : p->tests[r->test].workload;
	out->workload = wname;
	out->grader = grade_version(a, wname);
	out->nodes = j.nodes ? j.nodes : j.host;
	out->run_dir = arena_strdup(a, dir.data);
	if (check && workload_find(wname))
		check_output(a, dir.data, r, workload_find(wname), out);
	if (check)
		refs_apply(a, &p->tests[r->test], p->system, out);
done:
	buf_free(&dir);
	buf_free(&path);
	buf_free(&why);
}

bool
grade_write(struct arena *a, const char *root, const struct plan *p, const struct plan_run *r,
            const char *target, struct run_report *out, struct stat *st)
{
	struct buf b = {0};
	struct stat old;
	bool ok;
	/* the run dir (and every dir above it) is no link: report.json is
	 * written there (and the run read from there) */
	int dfd = beneath_dir(root, r->dir);

	if (dfd == -2) {
		report_start(out, r);
		out->outcome = OUTCOME_INFRA;
		out->reason = "the run dir is a symbolic link (or under one); not read, not written";
		return false;
	}
	grade_run(a, root, p, r, true, out);
	json_write_report(out, &b);
	/* a first report.json (a first report of the campaign: every run's) is
	 * made unnamed in its dir and linked there, no temporary */
	if (dfd >= 0 && fstatat(dfd, "report.json", &old, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
		ok = write_file_fresh_at(dfd, "report.json", target, b.data, b.len, st);
	else
		ok = write_file_atomic_st(target, b.data, b.len, st);
	if (dfd >= 0)
		close(dfd);
	buf_free(&b);
	return ok;
}

static int
grade_usage(const char *msg)
{
	fprintf(stderr, "kunai: grade: %s\nusage: kunai grade DIR/report.json   (in the build dir)\n", msg);
	return 2;
}

/* Reads "<id>/<iteration>[/<step>]" (gen's layout; ids hold no '/'). */
static bool
parse_run_dir(struct arena *a, const char *dir, struct plan_run *r)
{
	const char *slash = strchr(dir, '/');
	char *end;
	long it, step = 0;

	if (!slash || slash == dir || slash[1] < '0' || slash[1] > '9')
		return false;
	it = strtol(slash + 1, &end, 10);
	if (*end == '/') {
		if (end[1] < '0' || end[1] > '9')
			return false;
		step = strtol(end + 1, &end, 10);
		if (step < 1)
			return false;
	}
	if (*end || it < 0 || it > 1000000000 || step > 1000000000)
		return false;
	r->dir = dir;
	r->id = arena_strndup(a, dir, (size_t)(slash - dir));
	r->iteration = (int)it;
	r->step = (int)step;
	return true;
}

/* Does grading this run need kunai.json? Only for the workload's name when
 * job.json does not record it, and for the cmd_args a grader reads
 * (thresholds); reading it for every run of a large campaign would make
 * `ninja report` quadratic. */
static bool
needs_plan(struct arena *a, const char *dir)
{
	struct buf path = {0}, why = {0};
	struct job_record j;
	const struct workload *wl;
	int rc;

	buf_printf(&path, "%s/job.json", dir);
	rc = record_job_read(a, path.data, &j, &why);
	buf_free(&path);
	buf_free(&why);
	if (rc != 1 || !j.outcome)
		return false;
	if (!j.workload)
		return true;
	wl = workload_find(j.workload);
	/* every grader may read thresholds (cmd_args) or references */
	return wl && grader_find(wl->grader);
}

int
cmd_grade(int argc, char **argv)
{
	static const char suffix[] = "/report.json";
	struct arena a = {0};
	struct plan_test one = {0};
	struct plan_run self = {0};
	struct plan p = {0};
	struct run_report rep;
	struct buf out = {0};
	const struct plan_run *r = &self;
	const char *target;
	struct stat st;
	char *dir;
	size_t n;
	int rc = 1;

	if (argc != 2)
		return grade_usage(argc < 2 ? "missing DIR/report.json" : "too many arguments");
	target = argv[1];
	while (strncmp(target, "./", 2) == 0)
		target += 2;
	n = strlen(target);
	if (n <= sizeof(suffix) - 1 || strcmp(target + n - (sizeof(suffix) - 1), suffix) != 0)
		return grade_usage("the argument must be a run's DIR/report.json");
	dir = arena_strndup(&a, target, n - (sizeof(suffix) - 1));
	if (!parse_run_dir(&a, dir, &self) || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode) ||
	    needs_plan(&a, dir)) {
		/* the run list decides; it also tells a mistyped DIR */
		if (!json_load_plan(&a, "kunai.json", &p))
			goto done;
		r = plan_find_run(&p, dir);
		if (!r) {
			warn("grade: '%s' is not a run of this build dir (see kunai.json)", dir);
			goto done;
		}
	} else {
		one.id = self.id;
		p.tests = &one;
		p.n_tests = 1;
	}
	if (grade_write(&a, ".", &p, r, target, &rep, NULL))
		rc = 0;
done:
	buf_free(&out);
	arena_free(&a);
	return rc;
}
