/* grade.c: `kunai grade DIR/report.json`: turns what the runner left in a
 * run dir (job.json, stdout.txt) into the graded report.json: the outcome
 * class, its reason and the workload's metrics. It never runs or submits
 * anything, and a failed run is a result, not an error: the exit status is
 * 1 only when the report cannot be written (or the build dir is not one). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report.h"
#include "gen/base/util.h"
#include "gen/workloads/workload.h"

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

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (Howard Hinnant's days_from_civil). */
static long
days_from_civil(long y, int m, int d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
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
	*epoch = (double)days_from_civil(y, mo, d) * 86400.0 + h * 3600.0 + mi * 60.0 + sec + frac -
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

static const char *
run_arg(const struct plan_run *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->n_args; i++)
		if (strcmp(r->args[i].key, key) == 0)
			return r->args[i].value;
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

static const char *afmt(struct arena *a, const char *f, ...) __attribute__((format(printf, 2, 3)));

/* Returns the formatted text, copied into the arena. */
static const char *
afmt(struct arena *a, const char *f, ...)
{
	struct buf b = {0};
	const char *r;
	va_list ap;

	va_start(ap, f);
	buf_vprintf(&b, f, ap);
	va_end(ap);
	r = arena_strdup(a, buf_str(&b));
	buf_free(&b);
	return r;
}

static void
demote(struct run_report *out, enum outcome o, const char *reason)
{
	if (out->outcome == OUTCOME_PASSED) {
		out->outcome = o;
		out->reason = reason;
	}
}

static void
add_metric(struct arena *a, struct run_report *out, const char *name, double v)
{
	out->metrics = arena_grow(a, out->metrics, out->n_metrics, out->n_metrics + 1, sizeof(*out->metrics));
	out->metrics[out->n_metrics].name = name;
	out->metrics[out->n_metrics].value = v;
	out->n_metrics++;
}

/* nccl-tests: bus bandwidth metrics; wrong results fail the run, and a busbw
 * below cmd_args.min_busbw (GB/s) is a performance failure. */
static void
grade_nccl(struct arena *a, const struct plan_run *r, const char *text, size_t len, struct run_report *out)
{
	const char *min = run_arg(r, "min_busbw");
	struct nccl_result n;
	bool parsed = nccl_parse(text, len, &n);
	char *end;
	double want;

	if (parsed) {
		if (n.rows) {
			add_metric(a, out, "max_busbw", n.max_busbw);
			add_metric(a, out, "max_busbw_size", n.max_busbw_size);
		}
		if (n.rows || n.footer_avg)
			add_metric(a, out, "avg_busbw", n.avg_busbw);
		add_metric(a, out, "results", (double)n.rows);
		add_metric(a, out, "wrong", (double)n.wrong);
		if (n.has_oob)
			add_metric(a, out, "out_of_bounds", (double)n.oob);
		if (n.oob > 0 || n.wrong > 0)
			demote(out, OUTCOME_FAILED, afmt(a, "nccl-tests: data check failed (%ld wrong, %ld out of bounds)",
			                                 n.wrong, n.oob));
	}
	if (!min)
		return;
	want = strtod(min, &end);
	if (end == min || *end || !isfinite(want))
		demote(out, OUTCOME_INFRA, afmt(a, "min_busbw '%s' is not a number", min));
	else if (!parsed || !n.rows)
		demote(out, OUTCOME_PERF_FAILED, afmt(a, "no busbw in stdout.txt (min_busbw %s GB/s)", min));
	else if (n.max_busbw < want)
		demote(out, OUTCOME_PERF_FAILED,
		       afmt(a, "max busbw %.2f GB/s is below min_busbw %s GB/s", n.max_busbw, min));
}

/* Training logs: step time, TFLOP/s per GPU, loss, and tokens/s when the
 * run's arguments give the global batch and sequence length. */
static void
grade_train(struct arena *a, const struct plan_run *r, const char *text, size_t len, struct run_report *out,
            enum train_log kind, const char *gbs_key, const char *seq_key)
{
	const char *gbs = run_arg(r, gbs_key), *seq = run_arg(r, seq_key);
	struct train_result t;

	if (!train_parse(kind, text, len, &t))
		return;
	if (t.has_step_time) {
		add_metric(a, out, "step_time_s", t.step_time);
		add_metric(a, out, "steps", (double)t.steps);
		if (gbs && seq && t.step_time > 0 && atof(gbs) > 0 && atof(seq) > 0)
			add_metric(a, out, "tokens_per_s", atof(gbs) * atof(seq) / t.step_time);
	}
	if (t.has_tflops)
		add_metric(a, out, "tflops_per_gpu", t.tflops_per_gpu);
	if (t.has_loss)
		add_metric(a, out, "train_loss", t.loss);
}

static void
grade_nemo_launcher(struct arena *a, const struct plan_run *r, const char *text, size_t len, struct run_report *out)
{
	grade_train(a, r, text, len, out, TRAIN_NEMO_LAUNCHER, "training.model.global_batch_size",
	            "training.model.encoder_seq_length");
}

static void
grade_nemo_run(struct arena *a, const struct plan_run *r, const char *text, size_t len, struct run_report *out)
{
	grade_train(a, r, text, len, out, TRAIN_NEMO_RUN, "data.global_batch_size", "data.seq_length");
}

static void
grade_megatron_bridge(struct arena *a, const struct plan_run *r, const char *text, size_t len,
                      struct run_report *out)
{
	grade_train(a, r, text, len, out, TRAIN_MBRIDGE, "gb", "seq_length");
}

/* Megatron-LM: iteration metrics; CloudAI's success check wants one
 * iteration line or a validation loss. */
static void
grade_megatron_run(struct arena *a, const struct plan_run *r, const char *text, size_t len, struct run_report *out)
{
	struct train_result t;

	grade_train(a, r, text, len, out, TRAIN_MEGATRON, "global_batch_size", "seq_length");
	if ((!train_parse(TRAIN_MEGATRON, text, len, &t) || !t.has_step_time) &&
	    !contains(text, len, "validation loss at iteration"))
		demote(out, OUTCOME_FAILED, "stdout.txt has no Megatron iteration metrics and no validation loss");
}

/* Graders by the name a workload entry gives (workload.grader). */
static const struct {
	const char *name;
	void (*grade)(struct arena *a, const struct plan_run *r, const char *text, size_t len,
	              struct run_report *out);
} graders[] = {
	{"megatron_bridge", grade_megatron_bridge},
	{"megatron_run", grade_megatron_run},
	{"nccl", grade_nccl},
	{"nemo_launcher", grade_nemo_launcher},
	{"nemo_run", grade_nemo_run},
};

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
	if (!have && wl->all_of && wl->all_of[0])
		demote(out, OUTCOME_FAILED, unreadable ? "stdout.txt cannot be read" : "no stdout.txt");
	for (i = 0; have && wl->all_of && wl->all_of[i]; i++)
		if (!contains(text.data, text.len, wl->all_of[i]))
			demote(out, OUTCOME_FAILED, afmt(a, "success check: stdout.txt lacks '%s'", wl->all_of[i]));
	for (i = 0; have && wl->none_of && wl->none_of[i]; i++)
		if (contains(text.data, text.len, wl->none_of[i]))
			demote(out, OUTCOME_FAILED, afmt(a, "success check: stdout.txt has '%s'", wl->none_of[i]));
	for (i = 0; have && wl->grader && i < LEN(graders); i++)
		if (strcmp(graders[i].name, wl->grader) == 0)
			graders[i].grade(a, r, text.data, text.len, out);
	buf_free(&text);
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

	memset(out, 0, sizeof(*out));
	out->dir = r->dir;
	out->id = r->id;
	out->iteration = r->iteration;
	out->step = r->step;
	out->duration_s = -1;
	buf_printf(&dir, "%s/%s", root, r->dir);
	buf_printf(&path, "%s/job.json", dir.data);
	rc = record_job_read(a, path.data, &j, &why);
	if (rc <= 0) {
		out->outcome = rc == 0 ? OUTCOME_NOT_RUN : OUTCOME_INFRA;
		out->reason = rc == 0 ? "never run (no job.json)" : afmt(a, "job.json: %s", buf_str(&why));
		goto done;
	}
	out->job_id = j.job_id;
	out->start_time = j.start_time;
	out->end_time = j.end_time;
	out->has_exit_code = j.has_exit_code;
	out->exit_code = j.exit_code;
	if (time_parse_iso8601(j.start_time, &t0) && time_parse_iso8601(j.end_time, &t1) && t1 >= t0)
		out->duration_s = t1 - t0;
	if (!record_outcome(&j, &out->outcome)) {
		out->outcome = OUTCOME_RUNNING;
		out->reason = afmt(a, "no outcome recorded yet (state %s)", j.state ? j.state : "unknown");
		goto done;
	}
	out->reason = out->outcome == OUTCOME_PASSED ? NULL : j.reason ? j.reason : j.outcome;
	/* the runner names the workload it checked; else the test's template */
	wname = j.workload ? j.workload : p->tests[r->test].workload;
	if (check && workload_find(wname))
		check_output(a, dir.data, r, workload_find(wname), out);
done:
	buf_free(&dir);
	buf_free(&path);
	buf_free(&why);
}

bool
grade_write(struct arena *a, const char *root, const struct plan *p, const struct plan_run *r,
            const char *target, struct run_report *out)
{
	struct buf b = {0};
	bool ok;

	grade_run(a, root, p, r, true, out);
	json_write_report(out, &b);
	ok = write_file_atomic(target, b.data, b.len);
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
	size_t i;
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
	for (i = 0; wl && wl->grader && i < LEN(graders); i++)
		if (strcmp(graders[i].name, wl->grader) == 0)
			return true;
	return false;
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
	if (grade_write(&a, ".", &p, r, target, &rep))
		rc = 0;
done:
	buf_free(&out);
	arena_free(&a);
	return rc;
}
