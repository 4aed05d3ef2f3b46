/* job_test.c: the runner's tables and parsers: every scheduler state's
 * outcome class, sacct/scontrol lines, error classes, the causes of
 * sbatch's, bsub's and kubectl's refusals, job.json round trip. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rules/job/job_proc.h"
#include "rules/job/job_steps.h"
#include "rules/job/job_plain.h"
#include "rules/job/job_poll.h"
#include "rules/job/job_k8s.h"
#include "rules/job/job_sched.h"
#include "gen/base/record.h"
#include "tap.h"
#include "gen/base/util.h"

static void
test_states(void)
{
	static const struct {
		const char *state;
		int exit_code;
		bool terminal;
		enum outcome o;
	} cases[] = {
		{"COMPLETED", 0, true, OUTCOME_PASSED},
		{"COMPLETED", 2, true, OUTCOME_FAILED},
		{"FAILED", 3, true, OUTCOME_FAILED},
		{"SPECIAL_EXIT", 1, true, OUTCOME_FAILED},
		{"TIMEOUT", 0, true, OUTCOME_TIMEOUT},
		{"DEADLINE", 0, true, OUTCOME_TIMEOUT},
		{"CANCELLED", 0, true, OUTCOME_CANCELLED},
		{"NODE_FAIL", 0, true, OUTCOME_NODE_FAIL},
		{"BOOT_FAIL", 0, true, OUTCOME_INFRA},
		{"OUT_OF_MEMORY", 0, true, OUTCOME_INFRA},
		{"PREEMPTED", 0, true, OUTCOME_INFRA},
		{"REVOKED", 0, true, OUTCOME_INFRA},
		{"RECONFIG_FAIL", 0, true, OUTCOME_INFRA},
		{"LAUNCH_FAILED", 0, true, OUTCOME_INFRA},
		{"EXITED", 0, true, OUTCOME_PASSED},
		{"EXITED", 1, true, OUTCOME_FAILED},
		{"SIGNALED", 0, true, OUTCOME_FAILED},
		{"LOST", 0, true, OUTCOME_INFRA},
		{"SUBMIT_FAILED", 0, true, OUTCOME_INFRA},
		{"CONFIG_ERROR", 0, true, OUTCOME_FAILED},
		{"SOMETHING_NEW", 0, true, OUTCOME_INFRA},
	};
	static const char *const going[] = {
		"PENDING", "RUNNING", "SUSPENDED", "COMPLETING", "CONFIGURING", "REQUEUED", "REQUEUE_FED",
		"REQUEUE_HOLD", "RESIZING", "RESV_DEL_HOLD", "SIGNALING", "STAGE_OUT", "STOPPED",
		"POWER_UP_NODE", "UPDATE_DB", "SUBMITTED",
	};
	size_t i;
	bool t;

	for (i = 0; i < LEN(cases); i++) {
		enum outcome o = job_state_outcome(cases[i].state, cases[i].exit_code, &t);
		ok(o == cases[i].o && t == cases[i].terminal, "%s exit %d -> %s", cases[i].state, cases[i].exit_code,
		   outcome_name(cases[i].o));
	}
	for (i = 0; i < LEN(going); i++) {
		job_state_outcome(going[i], 0, &t);
		ok(!t, "%s is not terminal", going[i]);
	}
	ok(job_outcome_retryable(OUTCOME_NODE_FAIL) && job_outcome_retryable(OUTCOME_INFRA),
	   "node-fail and infra are retried");
	ok(!job_outcome_retryable(OUTCOME_FAILED) && !job_outcome_retryable(OUTCOME_TIMEOUT) &&
	       !job_outcome_retryable(OUTCOME_CANCELLED) && !job_outcome_retryable(OUTCOME_PASSED),
	   "test failures, timeouts and cancellations are not");
}

static void
test_sacct(void)
{
	struct slurm_row r;
	double t;

	ok(slurm_parse_sacct("12|FAILED|3:0|2026-11-22T02:21:10|2026-11-22T02:21:11|2026-11-22T02:21:12|vm", &r) &&
	       strcmp(r.id, "12") == 0 && strcmp(r.state, "FAILED") == 0 && r.exit_code == 3 && r.signal == 0 &&
	       strcmp(r.nodes, "vm") == 0,
	   "sacct: failed job");
	job_slurm_time("2026-11-22T02:21:11", &t);
	ok(r.start == t && r.end == t + 1 && r.submit == t - 1, "sacct: times");
	ok(slurm_parse_sacct("7|CANCELLED by 0|0:15|2026-11-22T02:21:10|Unknown|2026-11-22T02:21:12|None assigned\n",
	                     &r) &&
	       strcmp(r.state, "CANCELLED") == 0 && r.signal == 15 && r.start == 0 && r.nodes[0] == '\0',
	   "sacct: 'CANCELLED by 0', Unknown start, no nodes");
	ok(slurm_parse_sacct("8|PENDING||2026-11-22T02:21:10|Unknown|Unknown|None assigned", &r) &&
	       r.exit_code == -1 && r.end == 0,
	   "sacct: pending job without exit code");
	ok(!slurm_parse_sacct("garbage", &r) && !slurm_parse_sacct("", &r) && !slurm_parse_sacct("|||||", &r),
	   "sacct: rejects lines that are not rows");
	ok(slurm_parse_sacct("9|-", &r) == false, "a poll.state 'unknown job' line is not a row");
}

static void
test_scontrol(void)
{
	const char *line =
		"JobId=1 JobName=j.sh UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=4294901759 Nice=0 "
		"Account=(null) QOS=(null) JobState=FAILED Reason=NonZeroExitCode Dependency=(null) Requeue=1 "
		"Restarts=0 BatchFlag=1 Reboot=0 ExitCode=3:0 RunTime=00:00:00 TimeLimit=UNLIMITED TimeMin=N/A "
		"SubmitTime=2026-11-22T02:21:10 EligibleTime=2026-11-22T02:21:10 AccrueTime=2026-11-22T02:21:10 "
		"StartTime=2026-11-22T02:21:11 EndTime=2026-11-22T02:21:11 Deadline=N/A ReqNodeList=(null) "
		"ExcNodeList=(null) NodeList=vm BatchHost=vm NumNodes=1\n";
	struct slurm_row r;

	ok(slurm_parse_scontrol(line, &r) && strcmp(r.id, "1") == 0 && strcmp(r.state, "FAILED") == 0 &&
	       r.exit_code == 3 && r.signal == 0 && r.start > 0 && r.end == r.start && r.submit == r.start - 1 &&
	       strcmp(r.nodes, "vm") == 0,
	   "scontrol: failed job (ReqNodeList does not shadow NodeList)");
	ok(slurm_parse_scontrol("JobId=5 JobName=x JobState=PENDING Reason=None ExitCode=0:0 "
	                        "SubmitTime=2026-11-22T02:21:10 StartTime=Unknown EndTime=Unknown NodeList=(null)",
	                        &r) &&
	       strcmp(r.state, "PENDING") == 0 && r.start == 0 && r.end == 0 && r.nodes[0] == '\0',
	   "scontrol: pending job, Unknown times, (null) nodes");
	ok(!slurm_parse_scontrol("No jobs in the system", &r), "scontrol: 'No jobs in the system' is no row");
	ok(!slurm_parse_scontrol("JobName=x JobState=RUNNING", &r), "scontrol: a line must start with JobId=");
}

static void
test_squeue(void)
{
	struct slurm_row r;

	ok(slurm_parse_squeue("1|FAILED|768|2026-11-24T16:50:09|2026-11-24T16:50:09|2026-11-24T16:50:11|vm\n", &r) &&
	       strcmp(r.id, "1") == 0 && strcmp(r.state, "FAILED") == 0 && r.exit_code == 3 && r.signal == 0 &&
	       r.end == r.start + 2 && strcmp(r.nodes, "vm") == 0,
	   "squeue: exit_code 768 is exit code 3");
	ok(slurm_parse_squeue("2|CANCELLED|15|2026-11-24T16:50:09|2026-11-24T16:50:09|2026-11-24T16:50:22|vm", &r) &&
	       r.exit_code == 0 && r.signal == 15,
	   "squeue: exit_code 15 is signal 15");
	ok(slurm_parse_squeue("3|PENDING|0|2026-11-24T16:50:25|N/A|N/A|", &r) && strcmp(r.state, "PENDING") == 0 &&
	       r.start == 0 && r.end == 0 && r.nodes[0] == '\0',
	   "squeue: pending job, N/A times, no nodes");
	ok(!slurm_parse_squeue("squeue: error: Invalid job id specified", &r), "squeue: an error line is no row");
}

static void
test_errors(void)
{
	ok(slurm_transient("sbatch: error: Batch job submission failed: Socket timed out on send/recv operation"),
	   "transient: socket timed out");
	ok(slurm_transient("slurm_load_jobs error: Unable to contact slurm controller (connect failure)"),
	   "transient: slurm_load_jobs");
	ok(slurm_transient("squeue: error: Connection refused"), "transient: connection refused");
	ok(!slurm_transient("sbatch: error: invalid partition specified: nope"), "not transient: bad partition");
	ok(!slurm_transient("sacct: error: Slurm accounting storage is disabled"),
	   "not transient: accounting disabled");
	ok(slurm_limit_error("sbatch: error: QOSMaxSubmitJobPerUserLimit"), "limit: QOSMaxSubmitJobPerUserLimit");
	ok(slurm_limit_error("sbatch: error: Batch job submission failed: Job violates accounting/QOS policy "
	                     "(job submit limit, user's size and/or time limits)"),
	   "limit: accounting/QOS policy");
	ok(!slurm_limit_error("sbatch: error: Batch job submission failed: Invalid account"),
	   "not a limit: invalid account");
}

static void
test_json(void)
{
	struct job_record in = {0}, back;
	struct arena a = {0};
	struct buf text = {0}, why = {0};
	char path[] = "/tmp/kunai-job-test-XXXXXX";
	int fd = mkstemp(path);

	in.dir = "Tests.x/0";
	in.scheduler = "slurm";
	in.workload = "Sleep";
	in.job_id = "123";
	in.state = "TIMEOUT";
	in.outcome = "timeout";
	in.reason = "TIMEOUT: \"quoted\"";
	in.has_exit_code = true;
	in.exit_code = 0;
	in.has_signal = true;
	in.signal = 15;
	in.start_time = "2026-11-22T02:21:11Z";
	in.attempt = 3;
	in.pid_start = 123456789012LL;
	in.collected = false;
	ok(record_job_write(&in, &text) && fd >= 0 && write(fd, text.data, text.len) == (ssize_t)text.len,
	   "job.json written");
	if (fd >= 0)
		close(fd);
	ok(record_job_read(&a, path, &back, &why) == 1 && strcmp(back.dir, in.dir) == 0 &&
	       strcmp(back.state, "TIMEOUT") == 0 && strcmp(back.outcome, "timeout") == 0 &&
	       strcmp(back.reason, in.reason) == 0 && back.has_exit_code && back.exit_code == 0 &&
	       back.has_signal && back.signal == 15 && back.attempt == 3 && back.pid_start == in.pid_start &&
	       !back.collected && !back.end_time && !back.nodes,
	   "job.json read back");
	unlink(path);
	ok(record_job_read(&a, path, &back, &why) == 0, "absent job.json: 0");
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	ok(fd >= 0 && write(fd, "[1,2", 4) == 4, "corrupt job.json written");
	if (fd >= 0)
		close(fd);
	ok(record_job_read(&a, path, &back, &why) == -1 && why.len > 0, "corrupt job.json: -1 with a reason");
	unlink(path);
	buf_free(&text);
	buf_free(&why);
	arena_free(&a);
}

static void
test_times(void)
{
	struct arena a = {0};
	const char *s;
	double t;

	s = job_iso(&a, 1795314071.7);
	ok(s && strcmp(s, "2026-11-22T02:21:11Z") == 0, "job_iso: %s", s ? s : "(null)");
	ok(job_iso_parse(s, &t) && t == 1795314071.0, "job_iso_parse inverts job_iso");
	ok(job_iso_parse("2000-02-29T00:00:00Z", &t) && t == 951782400.0, "job_iso_parse: leap day");
	ok(!job_iso_parse("2026-11-22T02:21:11", &t) && !job_iso_parse("Unknown", &t), "job_iso_parse: rejects");
	ok(!job_slurm_time("Unknown", &t) && !job_slurm_time("None", &t) && !job_slurm_time(NULL, &t),
	   "job_slurm_time: Unknown, None");
	arena_free(&a);
}

static void
test_records(void)
{
	const char *rec = "start=1795314108\nhost=vm\njob=4\n", *f;
	size_t len = 0;

	f = job_record_field(rec, "host", &len);
	ok(f && len == 2 && strncmp(f, "vm", 2) == 0, "kunai.start: host");
	f = job_record_field(rec, "start", &len);
	ok(f && strtod(f, NULL) == 1795314108.0, "kunai.start: start");
	ok(!job_record_field(rec, "sta", &len) && !job_record_field(rec, "nodes", &len), "kunai.start: no prefix match");
}

/* rows from `kubectl get pods,<kinds> -o json` in the shapes a real API
 * server gives (trimmed): each object's state from its conditions and pods */
static void
test_k8s(void)
{
	static const char list[] =
		"{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":["
		/* a Job past its deadline */
		"{\"apiVersion\":\"batch/v1\",\"kind\":\"Job\",\"metadata\":{\"name\":\"kunai-a-0-h\",\"labels\":"
		"{\"kunai.dev/run\":\"a.0\",\"kunai.dev/attempt\":\"1\"},\"creationTimestamp\":\"2026-11-22T02:21:10Z\"},"
		"\"status\":{\"conditions\":[{\"type\":\"FailureTarget\",\"status\":\"True\"},{\"type\":\"Failed\","
		"\"status\":\"True\",\"reason\":\"DeadlineExceeded\",\"message\":\"Job was active longer than specified "
		"deadline\",\"lastTransitionTime\":\"2026-11-22T02:26:10Z\"}]}},"
		/* an MPIJob that succeeded; its launcher pod on node n1 */
		"{\"kind\":\"MPIJob\",\"metadata\":{\"name\":\"kunai-m-0-h\",\"labels\":{\"kunai.dev/run\":\"m.0\","
		"\"kunai.dev/attempt\":\"2\"},\"creationTimestamp\":\"2026-11-22T02:21:10Z\"},\"status\":{\"conditions\":"
		"[{\"type\":\"Created\",\"status\":\"True\"},{\"type\":\"Succeeded\",\"status\":\"True\","
		"\"lastTransitionTime\":\"2026-11-22T02:22:00Z\"}]}},"
		"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"kunai-m-0-h-launcher-x\",\"labels\":{\"kunai.dev/run\":\"m.0\","
		"\"kunai.dev/attempt\":\"2\"}},\"spec\":{\"nodeName\":\"n1\"},\"status\":{\"phase\":\"Succeeded\","
		"\"startTime\":\"2026-11-22T02:21:20Z\",\"containerStatuses\":[{\"name\":\"launcher\",\"state\":"
		"{\"terminated\":{\"exitCode\":0,\"reason\":\"Completed\"}}}]}},"
		/* a JobSet whose second pod was OOMKilled; a pod of an older attempt is not its */
		"{\"kind\":\"JobSet\",\"metadata\":{\"name\":\"kunai-s-0-h\",\"labels\":{\"kunai.dev/run\":\"s.0\","
		"\"kunai.dev/attempt\":\"1\"},\"creationTimestamp\":\"2026-11-22T02:21:10Z\"},\"status\":{}},"
		"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"kunai-s-0-h-node-0-1-y\",\"labels\":{\"kunai.dev/run\":\"s.0\","
		"\"kunai.dev/attempt\":\"1\"}},\"spec\":{\"nodeName\":\"n2\"},\"status\":{\"phase\":\"Failed\","
		"\"containerStatuses\":[{\"state\":{\"terminated\":{\"exitCode\":137,\"reason\":\"OOMKilled\"}}}]}},"
		"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"old\",\"labels\":{\"kunai.dev/run\":\"s.0\","
		"\"kunai.dev/attempt\":\"0\"}},\"spec\":{\"nodeName\":\"n9\"},\"status\":{\"phase\":\"Running\"}},"
		/* a Job whose pod finds no node */
		"{\"kind\":\"Job\",\"metadata\":{\"name\":\"kunai-u-0-h\",\"labels\":{\"kunai.dev/run\":\"u.0\","
		"\"kunai.dev/attempt\":\"1\"}},\"status\":{\"active\":1}},"
		"{\"kind\":\"Pod\",\"metadata\":{\"name\":\"kunai-u-0-h-z\",\"labels\":{\"kunai.dev/run\":\"u.0\","
		"\"kunai.dev/attempt\":\"1\"}},\"spec\":{},\"status\":{\"phase\":\"Pending\",\"conditions\":[{\"type\":"
		"\"PodScheduled\",\"status\":\"False\",\"reason\":\"Unschedulable\",\"message\":\"0/4 nodes are "
		"available: 4 Insufficient nvidia.com/gpu.\"}]}}]}";
	char *ids[] = {"job:kunai-a-0-h", "mpijob:kunai-m-0-h", "jobset:kunai-s-0-h", "job:kunai-u-0-h",
	               "job:kunai-gone-0-h"};
	struct buf rows = {0};
	struct slurm_row r;
	const char *l;

	ok(k8s_rows(list, ids, 5, &rows), "k8s: a List is read");
	l = buf_str(&rows);
	ok(slurm_parse_sacct(l, &r) && strcmp(r.state, "TIMEOUT") == 0 && r.end - r.submit == 300 &&
	       strncmp(r.reason, "DeadlineExceeded: Job was active", 32) == 0,
	   "k8s: Failed with DeadlineExceeded is TIMEOUT");
	l = strchr(l, '\n') + 1;
	ok(slurm_parse_sacct(l, &r) && strcmp(r.state, "COMPLETED") == 0 && r.exit_code == 0 &&
	       strcmp(r.nodes, "n1") == 0 && r.start - r.submit == 10,
	   "k8s: an MPIJob's Succeeded is COMPLETED, its pods give node and start");
	l = strchr(l, '\n') + 1;
	ok(slurm_parse_sacct(l, &r) && strcmp(r.state, "OUT_OF_MEMORY") == 0 && strcmp(r.nodes, "n2") == 0 &&
	       strcmp(r.reason, "OOMKilled: pod kunai-s-0-h-node-0-1-y on n2") == 0,
	   "k8s: an OOMKilled pod makes OUT_OF_MEMORY; another attempt's pod does not count");
	l = strchr(l, '\n') + 1;
	ok(slurm_parse_sacct(l, &r) && strcmp(r.state, "PENDING") == 0 &&
	       strncmp(r.reason, "Unschedulable: 0/4 nodes", 24) == 0,
	   "k8s: an unschedulable pod keeps it PENDING, with why");
	l = strchr(l, '\n') + 1;
	ok(strcmp(l, "job:kunai-gone-0-h|-\n") == 0, "k8s: an object not listed is unknown");
	ok(!k8s_rows("error: the server doesn't have a resource type", ids, 1, &rows), "k8s: not JSON is no answer");
	ok(k8s_transient("The connection to the server 10.0.0.1:6443 was refused - did you specify the right host") &&
	       k8s_transient("Unable to connect to the server: dial tcp 10.0.0.1:6443: i/o timeout") &&
	       !k8s_transient("Error from server (NotFound): namespaces \"x\" not found"),
	   "k8s: transient errors");
	ok(strcmp(k8s_resource("JobSet"), "jobsets.jobset.x-k8s.io") == 0 &&
	       strcmp(k8s_resource("mpijob:x"), "mpijobs.kubeflow.org") == 0 && !k8s_resource("Deployment"),
	   "k8s: resources of kinds and ids");
	buf_free(&rows);
}

static void
test_urgent(void)
{
	ok(poll_urgent_ms(0) == 500, "urgent: an exit record asks within 500 ms of the last query");
	ok(poll_urgent_ms(1) == 500, "urgent: ... and again after 500 ms when that query found the job in its epilog");
	ok(poll_urgent_ms(2) == 1000 && poll_urgent_ms(3) == 2000 && poll_urgent_ms(5) == 8000,
	   "urgent: a job the scheduler still calls unended: each query after that waits twice as long");
	ok(poll_urgent_ms(6) == 16000 && poll_urgent_ms(1000) == 16000, "urgent: ... at most 16 s");
}

/* job_slurm.c: which exit records end the wait with no query */
static void
test_clean(void)
{
	ok(slurm_record_clean("0\njob=42\nnodes=n[1-2]\n", "42"), "clean: status 0 of this job");
	ok(slurm_record_clean("0\njob=42\nnodes=n1\noom_kill=0\n", "42"), "clean: ... and no OOM kill in its cgroup");
	ok(!slurm_record_clean("0\njob=42\nnodes=n1\noom_kill=1\n", "42") &&
	       !slurm_record_clean("0\njob=42\noom_kill=12\n", "42"),
	   "clean: not with an OOM kill (Slurm says OUT_OF_MEMORY)");
	ok(!slurm_record_clean("3\njob=42\n", "42") && !slurm_record_clean("143\njob=42\n", "42") &&
	       !slurm_record_clean("00\njob=42\n", "42"),
	   "clean: not another status (time limit, requeue, failure: the scheduler says which)");
	ok(!slurm_record_clean("0\n", "42") && !slurm_record_clean("0\njob=4\n", "42") &&
	       !slurm_record_clean("0\njob=420\n", "42") && !slurm_record_clean("0\njob=\n", "42"),
	   "clean: not a record that names no job or another (the trap did not write it for this job)");
	ok(!slurm_record_clean("", "42") && !slurm_record_clean(NULL, "42") && !slurm_record_clean("0\njob=42\n", NULL),
	   "clean: not an empty record, nor without a job id");
}

/* job_plain.c: which run.sh texts need no bash, and what they exec */
static void
test_plain(void)
{
	static const char head[] = "#!/bin/bash\n# generated by kunai\n#KUNAI --workload Sleep\n"
	                           "case $0 in */*) cd -- \"${0%/*}\" || exit 1 ;; esac\nRUN_DIR=$PWD\n"
	                           "BUILD_DIR=${RUN_DIR%/*/*}\nINSTALL_DIR=\"$BUILD_DIR\"/install\n"
	                           "exec >stdout.txt 2>stderr.txt\n\n";
	static const struct {
		const char *tail, *vars, *words, *exports;
		unsigned commands;
	} yes[] = {
		{"source ./env_vars.sh\n\nexec sleep 0 \n", "", "sleep|0|", "", 6},
		{"export A='x y'\nsource ./env_vars.sh\nexec ../bin/x --a 'b c' 'it'\\''s' \"d\"\n# end\n",
		 "# vars\nexport B=\"v w\"\n\nexport A=z\n", "../bin/x|--a|b c|it's|d|", "A=x y|B=v w|A=z|", 7},
		{"exec env", NULL, "env|", "", 5},
	};
	static const struct {
		const char *tail, *vars;
	} no[] = {
		{"source ./env_vars.sh\nexec sleep 0\n", NULL},             /* no env_vars.sh */
		{"source ./env_vars.sh\nexec sleep 0\n", "export A=\"$HOME\"\n"},
		{"source ./env_vars.sh\nexec sleep 0\n", "export A=\"$(id)\"\n"},
		{"source ./env_vars.sh\nexec sleep 0\n", "A=1\n"},
		{"source ./env_vars.sh\nexec sleep 0\n", "export PWD=/\n"},
		{"source ./env_vars.sh\nexec sleep 0\n", "export BASH_ENV=x\n"},
		{"exec bash -c 'a && b'\ntrue\n", NULL},
		{"exec sleep $N\n", NULL},
		{"exec -a x sleep 0\n", NULL},
		{"exec '' x\n", NULL},
		{"sleep 0\n", NULL},
		{"X=1\nexec sleep 0\n", NULL},
		{"BUILD_DIR=$(pwd)\nexec sleep 0\n", NULL},
		{"BUILD_DIR=${X:=1}\nexec sleep 0\n", NULL},
		{"BUILD_DIR=${X?e}\nexec sleep 0\n", NULL},
		{"exec sleep 0\r\n", NULL},
		{"mkdir -p pre_test/x\nexec sleep 0\n", NULL},
		{"", NULL}, /* no exec */
	};
	struct buf t = {0}, w = {0};
	struct job_plain p;
	const char *x;
	size_t i, k;

	for (i = 0; i < LEN(yes); i++) {
		t.len = w.len = 0;
		buf_puts(&t, head);
		buf_puts(&t, yes[i].tail);
		ok(job_plain_parse(t.data, yes[i].vars, &p), "plain script %zu needs no bash", i);
		for (x = p.words.data, k = 0; k < p.nword; k++, x += strlen(x) + 1)
			buf_printf(&w, "%s|", x);
		ok(strcmp(buf_str(&w), yes[i].words) == 0, "plain script %zu: words %s", i, buf_str(&w));
		w.len = 0;
		buf_push(&w, "", 0);
		for (x = p.exports.data, k = 0; k < p.nexport; k++, x += strlen(x) + 1)
			buf_printf(&w, "%s|", x);
		ok(strcmp(buf_str(&w), yes[i].exports) == 0, "plain script %zu: exports %s", i, buf_str(&w));
		ok(p.redirect && p.commands == yes[i].commands, "plain script %zu: redirected, %u commands before exec", i,
		   p.commands);
		job_plain_free(&p);
	}
	for (i = 0; i < LEN(no); i++) {
		t.len = 0;
		buf_puts(&t, head);
		buf_puts(&t, no[i].tail);
		ok(!job_plain_parse(t.data, no[i].vars, &p), "script %zu is bash's", i);
	}
	ok(!job_plain_parse("exec sleep 0\n", "", &p), "a script without #!/bin/bash is bash's");
	buf_free(&t);
	buf_free(&w);
}

/* job_plain_env: the environment bash would hand on, or NULL where bash
 * acts on it in a way of its own */
static void
test_plain_env(void)
{
	char *base[] = {"A=1", "SHLVL=3", "_=/usr/bin/ninja", "OLDPWD=/nonexistent-kunai", "PWD=/", NULL};
	char *bad[][3] = {{"BASH_ENV=x", NULL}, {"SHLVL=999", NULL}, {"SHLVL=07", NULL}, {"SHELLOPTS=x", NULL},
	                  {"NOEQUALS", NULL}, {"BUILD_DIR=/x", NULL}};
	struct job_plain p;
	struct arena a = {0};
	struct buf t = {0};
	char **v;
	size_t i;

	ok(job_plain_parse("#!/bin/bash\nBUILD_DIR=${RUN_DIR%/*/*}\nexport A=2\nexport Z='z z'\nexec env\n", "", &p),
	   "plain script for the environment");
	v = job_plain_env(&a, &p, base);
	for (i = 0; v && v[i]; i++)
		buf_printf(&t, "%.*s|", (int)(strncmp(v[i], "PWD=", 4) ? strlen(v[i]) : 4), v[i]);
	ok(v && strcmp(buf_str(&t), "A=2|SHLVL=3|PWD=|Z=z z|") == 0,
	   "exports replace or add, $_ and an OLDPWD that is no dir go, PWD is this dir: %s", buf_str(&t));
	for (i = 0; i < LEN(bad); i++)
		ok(!job_plain_env(&a, &p, bad[i]), "%s: bash's", bad[i][0]);
	v = job_plain_env(&a, &p, (char *[]){NULL});
	ok(v && v[0] && v[1] && v[2] && v[3] && !v[4] && !strcmp(v[0], "A=2") && !strcmp(v[1], "Z=z z") &&
	       !strncmp(v[2], "PWD=/", 5) && !strcmp(v[3], "SHLVL=0"),
	   "an empty environment gets the exports, PWD and SHLVL=0");
	ok(job_plain_path(&a, (char *[]){"PATH=/nonexistent-kunai:/bin:/usr/bin", NULL}, "sh") &&
	   !job_plain_path(&a, (char *[]){"PATH=/nonexistent-kunai", NULL}, "sh") &&
	   !job_plain_path(&a, (char *[]){NULL}, "sh") &&
	   strcmp(job_plain_path(&a, (char *[]){NULL}, "./x"), "./x") == 0,
	   "PATH search: found, not found, no PATH, a path");
	job_plain_free(&p);
	arena_free(&a);
	buf_free(&t);
}

/* Whether s starts with p. */
static bool
starts(const char *s, const char *p)
{
	return s && strncmp(s, p, strlen(p)) == 0;
}

/* job_cause.c: sbatch's, bsub's and kubectl's refusals of a setting name
 * the TOML field, with the value the job script (or the refusal) holds */
static void
test_refusals(void)
{
	static const char sbatch[] = "#!/bin/bash\n#SBATCH --partition=gpu\n#SBATCH --gres=gpu:8\n#SBATCH --account=acct\n";
	static const char bsub[] = "#!/bin/bash\n#BSUB -J x\n#BSUB -q normal\n#BSUB -P proj\n#BSUB -n 4\n"
	                           "#BSUB -R \"span[ptile=1]\"\n#BSUB -m \"n1 n2\"\n#BSUB -W 10\n";
	static const struct {
		enum job_sched sched;
		const char *err, *want;
	} cases[] = {
		{JOB_SLURM, "sbatch: error: Batch job submission failed: Invalid partition name specified",
		 "configuration error: partition 'gpu' does not exist"},
		{JOB_SLURM, "sbatch: error: Batch job submission failed: Invalid generic resource (gres) specification",
		 "configuration error: the cluster has no GPU gres for --gres=gpu:8:"},
		{JOB_SLURM, "sbatch: error: Batch job submission failed: Invalid account or account/partition combination "
		            "specified",
		 "configuration error: account 'acct' is not valid here"},
		{JOB_LSF, "normal: No such queue. Job not submitted.", "configuration error: queue 'normal' does not exist"},
		{JOB_LSF, "normal: User cannot use the queue. Job not submitted.",
		 "configuration error: you may not submit to queue 'normal'"},
		{JOB_LSF, "proj: Invoker is not in specified project group. Job not submitted.",
		 "configuration error: you are not in project 'proj'"},
		{JOB_LSF, "Too many processors requested. Job not submitted.", "configuration error: 4 hosts (a slot each)"},
		{JOB_LSF, "Cannot exceed queue's hard limit(s). Job not submitted.",
		 "configuration error: a run limit of 10 minutes exceeds the queue's"},
		{JOB_LSF, "n3: Bad host name, host group name or cluster name. Job not submitted.",
		 "configuration error: -m \"n1 n2\" names no host"},
	};
	char dir[] = "/tmp/kunai-job-test-XXXXXX";
	struct buf p = {0};
	struct job j;
	const char *r;
	size_t i;

	if (!mkdtemp(dir)) {
		ok(false, "mkdtemp");
		return;
	}
	buf_printf(&p, "%s/cloudai_sbatch_script.sh", dir);
	ok(write_file_atomic(p.data, sbatch, strlen(sbatch)), "an sbatch script");
	p.len = 0;
	buf_printf(&p, "%s/bsub_script.sh", dir);
	ok(write_file_atomic(p.data, bsub, strlen(bsub)), "a bsub script");
	for (i = 0; i < LEN(cases); i++) {
		memset(&j, 0, sizeof(j));
		j.dir = dir;
		j.sched = cases[i].sched;
		r = j.sched == JOB_LSF ? job_cause_bsub(&j, cases[i].err) : job_cause_submit(&j, cases[i].err);
		ok(starts(r, cases[i].want) && strstr(r, cases[i].err) &&
		       r[strlen(r) - 1] == ']',
		   "%s: %s", cases[i].err, r ? r : "(none)");
		arena_free(&j.arena);
	}
	memset(&j, 0, sizeof(j));
	j.dir = dir;
	j.sched = JOB_LSF;
	ok(!job_cause_bsub(&j, "LSF is down. Please wait ...") && !job_cause_bsub(&j, NULL) &&
	       !job_cause_submit(&j, "normal: No such queue. Job not submitted."),
	   "no cause for a transient refusal, no text, or another scheduler's words");
	/* kubectl's, as kubectl 1.2x prints them */
	r = job_cause_kubectl(&j, "Error from server (Forbidden): error when creating \"a/0/k8s.applied.json\": "
	                          "jobs.batch is forbidden: User \"ci\" cannot create resource \"jobs\" in API group "
	                          "\"batch\" in the namespace \"gpu\"\n");
	ok(starts(r, "configuration error: user 'ci' may not create the run's object (Kubernetes RBAC)"),
	   "kubectl: RBAC's refusal names the user: %s", r ? r : "(none)");
	r = job_cause_kubectl(&j, "Error from server (NotFound): error when creating \"a/0/k8s.applied.json\": "
	                          "namespaces \"gpu\" not found\n");
	ok(starts(r, "configuration error: namespace 'gpu' does not exist") &&
	       strstr(r, "[Error from server (NotFound)"),
	   "kubectl: a missing namespace names it, with kubectl's line: %s", r ? r : "(none)");
	r = job_cause_kubectl(&j, "error: error loading config file \"/k/config\": yaml: line 1: did not find expected key");
	ok(r && strstr(r, "kubeconfig '/k/config'") && strstr(r, "kube_config_path"),
	   "kubectl: an unloadable kubeconfig names it: %s", r ? r : "(none)");
	ok(!job_cause_kubectl(&j, "Error from server (NotFound): namespaces \"gpu\" is terminating") &&
	       !job_cause_kubectl(&j, "The connection to the server 127.0.0.1:6443 was refused") &&
	       !job_cause_kubectl(&j, "namespaces \"unterminated"),
	   "kubectl: no cause for other words, a refused connection or a cut quote");
	arena_free(&j.arena);
	unlink(p.data);
	p.len = 0;
	buf_printf(&p, "%s/cloudai_sbatch_script.sh", dir);
	unlink(p.data);
	rmdir(dir);
	buf_free(&p);
}

/* bjobs -noheader -o "jobid stat exit_code exec_host exit_reason delimiter='|'"
 * as LSF 10.1 prints it (job_lsf.c) */
static void
test_lsf(void)
{
	struct slurm_row r;

	ok(lsf_parse_bjobs("101|DONE|-|node1|-", &r) && strcmp(r.id, "101") == 0 && strcmp(r.state, "COMPLETED") == 0 &&
	       r.exit_code == 0 && strcmp(r.nodes, "node1") == 0 && !r.reason[0],
	   "bjobs: DONE is COMPLETED, exit code 0");
	ok(lsf_parse_bjobs("102|EXIT|3|4*node1:4*node2|-\n", &r) && strcmp(r.state, "FAILED") == 0 && r.exit_code == 3 &&
	       strcmp(r.nodes, "node1,node2") == 0,
	   "bjobs: EXIT with its exit code, exec_host's N*host list as nodes");
	ok(lsf_parse_bjobs("103|EXIT|140|n1|TERM_RUNLIMIT: job killed after reaching LSF run time limit", &r) &&
	       strcmp(r.state, "TIMEOUT") == 0,
	   "bjobs: TERM_RUNLIMIT is TIMEOUT");
	ok(lsf_parse_bjobs("104|EXIT|130|n1|TERM_OWNER: job killed by owner", &r) && strcmp(r.state, "CANCELLED") == 0,
	   "bjobs: TERM_OWNER is CANCELLED");
	ok(lsf_parse_bjobs("105|EXIT|137|n1|TERM_MEMLIMIT: job killed after reaching LSF memory usage limit", &r) &&
	       strcmp(r.state, "OUT_OF_MEMORY") == 0,
	   "bjobs: TERM_MEMLIMIT is OUT_OF_MEMORY");
	ok(lsf_parse_bjobs("106|PEND|-|-|-", &r) && strcmp(r.state, "PENDING") == 0 && r.exit_code == -1 && !r.nodes[0],
	   "bjobs: PEND is PENDING, no exit code, no host");
	ok(lsf_parse_bjobs("107|SSUSP|-|n1|-", &r) && strcmp(r.state, "SUSPENDED") == 0, "bjobs: SSUSP is SUSPENDED");
	ok(lsf_parse_bjobs("108|ZOMBI|-|n1|-", &r) && strcmp(r.state, "NODE_FAIL") == 0, "bjobs: ZOMBI is NODE_FAIL");
	ok(!lsf_parse_bjobs("Job <9> is not found", &r) && !lsf_parse_bjobs("109|WHAT|-|-|-", &r) &&
	       !lsf_parse_bjobs("", &r),
	   "bjobs: an error line or an unknown stat is no row");
	ok(lsf_transient("LSF is down. Please wait ...") && lsf_transient("batch system daemon not responding ... still trying") &&
	       !lsf_transient("Job not submitted. Bad queue name"),
	   "bjobs/bsub: mbatchd out of reach is transient, a bad queue is not");
}

int
main(void)
{
	setenv("TZ", "UTC", 1);
	test_states();
	test_sacct();
	test_scontrol();
	test_squeue();
	test_errors();
	test_json();
	test_times();
	test_records();
	test_clean();
	test_k8s();
	test_lsf();
	test_refusals();
	test_urgent();
	test_plain();
	test_plain_env();
	return tap_done();
}
