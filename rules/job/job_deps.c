/* job_deps.c: CloudAI's dependencies as the runner sees them, once ninja
 * has ordered the edges: --after-start (start_post_init: submit DELAY
 * seconds after the other run started), --delay (start_post_comp) and
 * --stop-with (end_post_comp: end this job once every run of the other
 * test has completed). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "job_proc.h"
#include "job_steps.h"
#include "gen/base/util.h"

/* Whether the run dir rd of a --stop-with test has completed: a final
 * job.json written in this invocation, or a passed run (its stamp) from an
 * earlier one that ninja will not redo. */
static bool
run_completed(struct job *j, struct arena *a, const char *rd)
{
	struct job_record ji;
	struct buf p = {0}, why = {0};
	struct stat st;
	bool done;

	buf_printf(&p, "%s/job.json", rd);
	done = record_job_read(a, p.data, &ji, &why) == 1 && ji.outcome && stat(p.data, &st) == 0 &&
	       st.st_mtime >= (time_t)j->t0 - 1;
	if (!done) {
		p.len = 0;
		buf_printf(&p, "%s/kunai.stamp", rd);
		done = job_exists(p.data);
	}
	buf_free(&p);
	buf_free(&why);
	return done;
}

static bool
is_run_dir(const char *d)
{
	struct buf p = {0};
	bool yes;

	buf_printf(&p, "%s/run.sh", d);
	yes = job_exists(p.data);
	if (!yes) {
		p.len = 0;
		buf_printf(&p, "%s/cloudai_sbatch_script.sh", d);
		yes = job_exists(p.data);
	}
	buf_free(&p);
	return yes;
}

/* Every run of test id (id/<iteration>/ or id/<iteration>/<step>/) done?
 * *runs counts them (0: the test has no run dir, nothing to wait for). */
static bool
test_completed(struct job *j, struct arena *a, const char *path, int depth, size_t *runs)
{
	struct dirent *e;
	struct buf p = {0};
	bool done = true;
	DIR *d = opendir(path);

	if (!d)
		return true;
	while (done && (e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue; /* iterations and steps are numbers */
		p.len = 0;
		buf_printf(&p, "%s/%s", path, e->d_name);
		if (is_run_dir(p.data)) {
			(*runs)++;
			done = run_completed(j, a, p.data);
		} else if (depth < 2)
			done = test_completed(j, a, p.data, depth + 1, runs);
	}
	closedir(d);
	buf_free(&p);
	return done;
}

bool
job_stop_due(struct job *j)
{
	struct arena scratch = {0};
	double now = job_mono();
	bool due = false;
	size_t i, runs;

	if (!j->n_stop || j->stopping || now - j->stop_checked < 1.0)
		return false;
	j->stop_checked = now;
	for (i = 0; i < j->n_stop && !due; i++) {
		runs = 0;
		due = test_completed(j, &scratch, j->stop_with[i], 1, &runs) && runs > 0;
		if (due)
			j->stopped_by = j->stop_with[i];
	}
	arena_free(&scratch);
	return due;
}

bool
job_wait_over(struct job *j, enum job_wait *result)
{
	if (j->signo)
		*result = JOB_WAIT_INTERRUPTED;
	else if (!j->stopping && job_stop_due(j))
		*result = JOB_WAIT_STOP;
	else
		return false;
	return true;
}

bool
job_pre_waits(struct job *j)
{
	struct buf p = {0}, rec = {0};
	double until = job_now() + (double)j->delay, t;
	size_t i, len;

	for (i = 0; i < j->n_after; i++) {
		const char *f;
		long ms = 20;

		/* ninja ran D's start edge first: this is normally at once */
		for (;;) {
			p.len = 0;
			buf_printf(&p, "%s/kunai.start", j->after[i].dir);
			if (job_exists(p.data))
				break;
			p.len = 0;
			buf_printf(&p, "%s/kunai.started", j->after[i].dir);
			if (job_exists(p.data))
				break;
			if (job_sleep(j, ms) && j->signo)
				goto out;
			ms = ms < 500 ? ms * 2 : 1000;
		}
		t = job_now();
		p.len = 0;
		buf_printf(&p, "%s/kunai.start", j->after[i].dir);
		rec.len = 0;
		/* the record has whole seconds: the start lies in [t, t + 1), and
		 * the delay counts from its end, never short of the real start */
		if (job_slurp(p.data, &rec) && (f = job_record_field(rec.data, "start", &len)))
			t = strtod(f, NULL) + 1;
		if (t + (double)j->after[i].delay > until)
			until = t + (double)j->after[i].delay;
	}
	while ((t = job_now()) < until)
		if (job_sleep(j, (long)((until - t) * 1000) + 1) && j->signo)
			goto out;
out:
	buf_free(&p);
	buf_free(&rec);
	return !j->signo;
}

