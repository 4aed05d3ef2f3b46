/* job_slurm.c: a run as a Slurm batch job: sbatch from the run dir (the
 * script derives its paths from $SLURM_SUBMIT_DIR), scancel, and the wait:
 * the waiter watches the job's own records (kunai.start, kunai.exit, which
 * the script writes) and otherwise reads what the build dir's shared
 * poller (job_poll.c) last heard from the scheduler. A clean exit record
 * (slurm_record_clean: status 0, this job's, no OOM kill) ends the wait
 * with no query; any other makes the poll urgent (poll_urgent_ms) until
 * the scheduler calls the job ended. */
#define _POSIX_C_SOURCE 200809L
#define _XOPEN_SOURCE 700 /* realpath */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "job_proc.h"
#include "job_steps.h"
#include "job_poll.h"
#include "job_sched.h"
#include "gen/base/hostlist.h"
#include "gen/base/util.h"

enum {
	URGENT_FOR_S = 60, /* after an exit record; then the normal interval again (a requeued job) */
	WATCH_MS = 250,    /* how often a waiter looks for its job's records: within a
	                    * quarter of the second that a result may take after its exit */
	SUBMIT_TRIES = 6,  /* transient sbatch errors: 1+2+4+8+16 s of retries */
};

/* ---- submit and cancel ------------------------------------------------------------- */

/* Runs a scheduler's command, retrying errors transient() calls transient
 * up to tries times with growing pauses; a signal ends the retries unless
 * cleanup (scancel is what a signal asks for). Returns its status. */
int
job_cmd_retry(struct job *j, char *const argv[], const char *dir, int tries, bool cleanup, struct buf *out,
              struct buf *err, bool (*transient)(const char *err))
{
	long pause = 1000;
	int rc = -1, k;

	for (k = 0; k < tries; k++) {
		if (out)
			out->len = 0;
		err->len = 0;
		rc = job_capture(j, argv, dir, out, err);
		if (rc == 0 || !transient(buf_str(err)) || k + 1 == tries)
			break;
		warn("%s: %.*s; again in %ld s", argv[0], (int)strcspn(buf_str(err), "\n"), buf_str(err), pause / 1000);
		if (job_sleep(j, pause) && j->signo && !cleanup)
			break;
		pause *= 2;
	}
	return rc;
}

int
slurm_cmd(struct job *j, char *const argv[], const char *dir, int tries, bool cleanup, struct buf *out,
          struct buf *err)
{
	return job_cmd_retry(j, argv, dir, tries, cleanup, out, err, slurm_transient);
}

/* The comment every job of run dir j->dir carries (--comment): what tells
 * its job apart from another build dir's job of the same name, and, with
 * the attempt and its submission time (on disk in job.json before sbatch
 * runs), one submission from another: the token kunai looks up before it
 * submits again. */
static const char *
run_comment(struct job *j, bool bare)
{
	char abs[PATH_MAX];
	struct buf b = {0};
	const char *s;

	buf_printf(&b, "kunai:%s", realpath(j->dir, abs) ? abs : j->dir);
	/* a record of an older kunai (no submission time) looks for its
	 * comment, the run dir alone */
	if (!bare)
		buf_printf(&b, "#%d@%s", j->info.attempt, j->info.submit_time ? j->info.submit_time : "-");
	s = arena_strdup(&j->arena, b.data);
	buf_free(&b);
	return s;
}

/* The job name on the script's #SBATCH --job-name line, or NULL. */
static const char *
script_job_name(struct job *j)
{
	struct buf p = {0}, text = {0};
	const char *s, *e, *name = NULL;

	if (job_slurp(job_path(j, &p, "cloudai_sbatch_script.sh"), &text) &&
	    (s = strstr(text.data, "\n#SBATCH --job-name="))) {
		s += strlen("\n#SBATCH --job-name=");
		e = s + strcspn(s, "\n");
		name = arena_strndup(&j->arena, s, (size_t)(e - s));
	}
	buf_free(&p);
	buf_free(&text);
	return name;
}

bool
slurm_find_submitted(struct job *j)
{
	const char *name = script_job_name(j), *comment = run_comment(j, !j->info.submit_time), *l;
	char *argv[] = {"squeue", "-h", "-n", (char *)name, "-o", "%i|%T|%k", NULL};
	struct buf out = {0}, err = {0};
	size_t n = strlen(comment), id;
	bool found = false;

	if (j->single)
		return false; /* its queue entry is replaced when it is queued again */

	if (!name || slurm_cmd(j, argv, NULL, 4, false, &out, &err) != 0) {
		buf_free(&out);
		buf_free(&err);
		return false;
	}
	/* "ID|STATE|COMMENT" per live job of that name */
	for (l = buf_str(&out); *l && !found; l += strcspn(l, "\n"), l += *l == '\n') {
		const char *bar = strchr(l, '|'), *bar2 = bar ? strchr(bar + 1, '|') : NULL;
		id = strspn(l, "0123456789_");
		if (!bar || !bar2 || (size_t)(bar - l) != id || id == 0 || strncmp(bar2 + 1, comment, n) != 0 ||
		    (bar2[1 + n] != '\n' && bar2[1 + n]))
			continue;
		j->info.job_id = arena_strndup(&j->arena, l, id);
		j->info.state = arena_strndup(&j->arena, bar + 1, (size_t)(bar2 - bar - 1));
		found = true;
	}
	buf_free(&out);
	buf_free(&err);
	return found;
}

bool
slurm_submit(struct job *j, bool *retryable)
{
	/* --no-requeue on the command line (it overrides the script's own
	 * #SBATCH lines): a job Slurm requeued after a node failure would
	 * run again under the same id after kunai recorded its end, while
	 * kunai retries infrastructure failures itself, as a new attempt.
	 * --comment names the run dir, so that a driver killed between sbatch
	 * and job.json finds its job again (slurm_find_submitted). */
	char *argv[] = {"sbatch", "--parsable", "--no-requeue", NULL, NULL, NULL, NULL, NULL};
	struct buf out = {0}, err = {0}, msg = {0}, comment = {0}, nodes = {0}, count = {0};
	const char *cause, *first;
	size_t n, k = 4;
	long pause = 1000;
	int rc, nn = 0, tries;
	bool found = false;

	if (j->single)
		return single_submit(j, retryable);
	*retryable = false;
	buf_printf(&comment, "--comment=%s", run_comment(j, false));
	argv[3] = comment.data;
	/* nodes = ["PARTITION:GROUP:N"]: chosen now, from the nodes' states */
	if (j->n_node_groups) {
		buf_puts(&nodes, "--nodelist=");
		if (!slurm_choose_nodes(j, &nodes, &nn)) {
			j->info.state = "SUBMIT_FAILED";
			j->info.end_time = job_iso(&j->arena, job_now());
			warn("%s: %s", j->dir, j->info.reason);
			buf_free(&comment);
			buf_free(&nodes);
			return false;
		}
		buf_printf(&count, "--nodes=%d", nn);
		argv[k++] = nodes.data;
		argv[k++] = count.data;
		j->info.nodes = arena_strdup(&j->arena, nodes.data + strlen("--nodelist="));
		warn("%s: nodes %s chosen from the node group%s (idle first)", j->dir, j->info.nodes,
		     j->n_node_groups > 1 ? "s" : "");
	}
	argv[k] = "cloudai_sbatch_script.sh";
	/* an sbatch that fails after the controller took the job (a socket
	 * timed out on the answer) must not submit it twice: before each new
	 * try, this submission's token is looked up */
	for (tries = 0;; tries++) {
		rc = slurm_cmd(j, argv, j->dir, 1, false, &out, &err);
		if (rc == 0 || !slurm_transient(buf_str(&err)))
			break;
		if ((found = slurm_find_submitted(j))) {
			warn("%s: sbatch said '%.*s', but job %s was submitted: not submitting again", j->dir,
			     (int)strcspn(buf_str(&err), "\n"), buf_str(&err), j->info.job_id);
			goto done;
		}
		if (tries + 1 == SUBMIT_TRIES)
			break;
		warn("sbatch: %.*s; again in %ld s", (int)strcspn(buf_str(&err), "\n"), buf_str(&err), pause / 1000);
		if (job_sleep(j, pause) && j->signo)
			break;
		pause *= 2;
	}
	n = strspn(buf_str(&out), "0123456789_");
	if (rc == 0 && n > 0 && (out.data[n] == ';' || out.data[n] == '\n' || !out.data[n])) {
		/* "123" or "123;cluster" */
		j->info.job_id = arena_strndup(&j->arena, out.data, n);
		j->info.state = "PENDING";
		found = true;
		goto done;
	}
	j->info.state = "SUBMIT_FAILED";
	j->info.end_time = job_iso(&j->arena, job_now());
	/* sbatch's whole answer (a refusal under load may be pages) */
	job_keep_answer(j, "sbatch.txt",
	                arena_printf(&j->arena, "%s (in %s): exit status %d", job_argv_line(&j->arena, argv), j->dir, rc),
	                &err, &out);
	/* its first line that says something (an sbatch that retried under
	 * load may start with an empty one); its own "sbatch: error: ..." is
	 * not prefixed again */
	first = buf_str(&err) + strspn(buf_str(&err), " \t\r\n");
	buf_printf(&msg, "%s%.*s", strncmp(first, "sbatch: ", 8) == 0 ? "" : "sbatch: ", (int)strcspn(first, "\n"),
	           *first ? first : rc == 0 ? "no job id in its output" : "failed");
	j->info.reason = arena_strdup(&j->arena, msg.data);
	/* a setting the cluster refuses is the configuration's fault, and
	 * names its field (DESIGN 18): failed, not infra, never retried */
	if ((cause = job_cause_submit(j, buf_str(&err)))) {
		j->info.state = "CONFIG_ERROR";
		j->info.outcome = outcome_name(OUTCOME_FAILED);
		j->info.reason = cause;
	}
	/* a full queue clears by itself; a bad script or partition does not */
	*retryable = !cause && (slurm_limit_error(buf_str(&err)) || slurm_transient(buf_str(&err)));
	/* said once: by the retry's line, or the runner's last */
done:
	buf_free(&out);
	buf_free(&err);
	buf_free(&msg);
	buf_free(&comment);
	buf_free(&nodes);
	buf_free(&count);
	return found;
}

/* scancel ID; a failure is a warning. */
static void
cancel_id(struct job *j, const char *id)
{
	char *argv[] = {"scancel", (char *)id, NULL};
	struct buf err = {0};

	if (slurm_cmd(j, argv, NULL, 4, true, NULL, &err) != 0)
		warn("scancel %s: %.*s", id, (int)strcspn(buf_str(&err), "\n"), buf_str(&err));
	buf_free(&err);
}

void
slurm_cancel(struct job *j)
{
	struct buf rec = {0}, id = {0};
	const char *f;
	size_t len;

	if (!j->info.job_id)
		return;
	cancel_id(j, j->info.job_id);
	/* a launcher's job script records the job its launcher submitted
	 * (kunai.subjob, job=ID): cancelled too, even when the script was
	 * killed before its traps ran */
	if (job_read_record(j, "kunai.subjob", &rec) && (f = job_record_field(rec.data, "job", &len)) &&
	    len > 0 && len < 32 && strspn(f, "0123456789") == len) {
		buf_push(&id, f, len);
		cancel_id(j, buf_str(&id));
	}
	buf_free(&rec);
	buf_free(&id);
}

/* The job's own start and exit records, when they are this job's, time the
 * run: the scheduler's EndTime is when slurmctld heard of the end, which
 * after an outage is long after it (start= of kunai.start, the mtime of
 * kunai.exit); and kunai.exit's code is the one shown. */
static void
record_times(struct job *j)
{
	struct buf rec = {0}, p = {0};
	const char *f;
	struct stat st;
	size_t len;
	double t0 = 0;

	if (job_read_record(j, "kunai.start", &rec) && (f = job_record_field(rec.data, "job", &len)) &&
	    j->info.job_id && strlen(j->info.job_id) == len && strncmp(f, j->info.job_id, len) == 0 &&
	    (f = job_record_field(rec.data, "start", &len)) && (t0 = strtod(f, NULL)) > 0) {
		j->info.start_time = job_iso(&j->arena, t0);
		if (stat(job_path(j, &p, "kunai.exit"), &st) == 0 && (double)st.st_mtime >= t0) {
			j->info.end_time = job_iso(&j->arena, (double)st.st_mtime);
			/* the job's own exit code, not sacct's (which is srun's or
			 * the shell's view of it, 127 for 255) */
			buf_free(&rec);
			if (job_read_record(j, "kunai.exit", &rec)) {
				j->info.exit_code = atoi(rec.data);
				j->info.has_exit_code = true;
			}
		}
	}
	buf_free(&rec);
	buf_free(&p);
}

static void
fill_row(struct job *j, const struct slurm_row *r)
{
	struct job_record *in = &j->info;
	struct buf rec = {0};

	in->state = arena_strdup(&j->arena, r->state);
	in->has_exit_code = r->exit_code >= 0;
	in->exit_code = r->exit_code;
	in->has_signal = r->signal >= 0;
	in->signal = r->signal;
	if (!in->has_exit_code && job_read_record(j, "kunai.exit", &rec)) {
		in->exit_code = atoi(rec.data);
		in->has_exit_code = true;
	}
	if (r->submit > 0)
		in->submit_time = job_iso(&j->arena, r->submit);
	if (r->start > 0)
		in->start_time = job_iso(&j->arena, r->start);
	if (r->end > 0)
		in->end_time = job_iso(&j->arena, r->end);
	/* Slurm's compressed list ("n[1-2]") as the node set it is */
	if (r->nodes[0])
		in->nodes = hostlist_join(&j->arena, arena_strdup(&j->arena, r->nodes));
	record_times(j);
	buf_free(&rec);
}

/* The scheduler no longer knows the job: its own exit record is all there is. */
static void
fill_record(struct job *j)
{
	struct job_record *in = &j->info;
	struct buf rec = {0};

	if (job_read_record(j, "kunai.exit", &rec)) {
		in->exit_code = atoi(rec.data);
		in->has_exit_code = true;
		in->state = in->exit_code ? "FAILED" : "COMPLETED";
	} else {
		in->state = "LOST";
		in->reason = "the scheduler forgot the job and it left no exit record";
	}
	in->end_time = job_iso(&j->arena, job_now());
	record_times(j);
	buf_free(&rec);
}

bool
slurm_record_clean(const char *rec, const char *job_id)
{
	const char *f;
	size_t len;

	if (!rec || !job_id || strncmp(rec, "0\n", 2) != 0)
		return false;
	f = job_record_field(rec, "job", &len);
	if (!f || len != strlen(job_id) || strncmp(f, job_id, len) != 0)
		return false;
	f = job_record_field(rec, "oom_kill", &len);
	return !f || (len == 1 && *f == '0');
}

/* The job's clean exit record (slurm_record_clean) as its end: what
 * fill_record makes of it (COMPLETED, status 0, timed by the job's own
 * records), on the nodes it names. */
static void
fill_clean(struct job *j, const char *rec)
{
	const char *f;
	size_t len;

	fill_record(j);
	if ((f = job_record_field(rec, "nodes", &len)) && len)
		j->info.nodes = hostlist_join(&j->arena, arena_strndup(&j->arena, f, len));
}

/* From the job's kunai.start record: start time and node. */
static void
fill_start(struct job *j, const char *rec)
{
	const char *f;
	size_t len;

	if ((f = job_record_field(rec, "start", &len)))
		j->info.start_time = job_iso(&j->arena, strtod(f, NULL));
	if ((f = job_record_field(rec, "host", &len)) && !j->info.nodes)
		j->info.nodes = arena_strndup(&j->arena, f, len);
	j->info.state = "RUNNING";
}

/* Asks slurmctld about this one job (the poll's sacct may lag, or be all
 * that answers while slurmctld is down): 1 it answered with a row in r,
 * 0 it could not be asked or no longer knows the job. */
static int
ask_ctld(struct job *j, struct slurm_row *r)
{
	char *argv[] = {"scontrol", "-o", "show", "job", (char *)j->info.job_id, NULL};
	struct buf out = {0}, err = {0};
	int found = 0;

	if (j->sched == JOB_LSF)
		return lsf_ask(j, r);
	if (slurm_cmd(j, argv, NULL, 1, false, &out, &err) == 0 && slurm_parse_scontrol(buf_str(&out), r) &&
	    strcmp(r->id, j->info.job_id) == 0)
		found = 1;
	buf_free(&out);
	buf_free(&err);
	return found;
}

enum job_wait
slurm_wait(struct job *j, bool want_start)
{
	struct buf rec = {0}, p = {0};
	struct slurm_row r;
	double urgent_until = 0, now, last_missing = 0, when = 0, seen_at = 0, last_miss = 0;
	enum job_wait result;
	bool exit_seen = false, terminal, live_warned = false;
	long tick = 100;
	int missing = 0, misses = 0, f;

	if (j->single)
		return single_wait(j, want_start);
	if (!poll_register(j))
		warn("%s: job %s is watched through its own records only", j->dir, j->info.job_id);
	for (;;) {
		if (job_wait_over(j, &result))
			break;
		now = job_now();
		if (want_start && job_read_record(j, "kunai.start", &rec)) {
			fill_start(j, rec.data);
			result = JOB_WAIT_STARTED;
			break;
		}
		if (!exit_seen && access(job_path(j, &p, "kunai.exit"), F_OK) == 0) {
			exit_seen = true;
			seen_at = now;
			urgent_until = now + URGENT_FOR_S;
		}
		when = 0;
		f = poll_lookup(j, &r, &when);
		if (f == 1) {
			job_state_outcome(r.state, 0, &terminal);
			if (terminal) {
				fill_row(j, &r);
				result = JOB_WAIT_ENDED;
				break;
			}
			if (want_start && r.start > 0 && strcmp(r.state, "PENDING") != 0) {
				fill_row(j, &r);
				result = JOB_WAIT_STARTED;
				break;
			}
		}
		/* a clean exit record is the end, with no query for it (DESIGN 9);
		 * a row that calls the job ended already says more (above) */
		if (exit_seen && j->sched == JOB_SLURM && job_read_record(j, "kunai.exit", &rec) &&
		    slurm_record_clean(rec.data, j->info.job_id)) {
			fill_clean(j, rec.data);
			result = JOB_WAIT_ENDED;
			break;
		}
		if (f == 0 && when != last_missing) {
			/* the scheduler does not know it (any more) */
			last_missing = when;
			if (exit_seen || ++missing >= 2) {
				fill_record(j);
				result = JOB_WAIT_ENDED;
				break;
			}
		}
		/* the scheduler down, unreachable or its accounting lagging: not
		 * forever; but while slurmctld answers that the job is pending or
		 * running (requeued, or still in its epilog), the record is not the
		 * end: wait, and ask again after as long */
		if (exit_seen && now - seen_at >= (double)j->trust_record_s && ask_ctld(j, &r)) {
			job_state_outcome(r.state, 0, &terminal);
			if (terminal) {
				fill_row(j, &r);
				result = JOB_WAIT_ENDED;
				break;
			}
			if (!live_warned)
				warn("%s: job %s wrote its exit record, but slurmctld says it is %s; waiting", j->dir,
				     j->info.job_id, r.state);
			live_warned = true;
			seen_at = now;
		}
		if (exit_seen && now - seen_at >= (double)j->trust_record_s) {
			warn("%s: job %s wrote its exit record %.0f s ago and the scheduler has not confirmed its "
			     "end; taking the record",
			     j->dir, j->info.job_id, now - seen_at);
			fill_record(j);
			result = JOB_WAIT_ENDED;
			break;
		}
		/* a query since the record that did not end the wait: the next one waits longer */
		if (exit_seen && f != -2 && when >= seen_at && when != last_miss) {
			last_miss = when;
			misses++;
		}
		poll_maybe(j, now < urgent_until ? poll_urgent_ms(misses) : 0);
		job_sleep(j, tick);
		tick = now < urgent_until ? 100 : tick * 2 < WATCH_MS ? tick * 2 : WATCH_MS;
	}
	/* an ended job is nobody's to poll for; a retry registers its own */
	if (result == JOB_WAIT_ENDED)
		poll_unregister(j);
	buf_free(&rec);
	buf_free(&p);
	return result;
}

void
slurm_release(struct job *j)
{
	poll_release(j);
}
