/* grade_test: the nccl-tests output parser, ISO 8601 times, XML escaping,
 * output tails, skipped-by-dependency and grade_run on fabricated run dirs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/results/format.h"
#include "reports/results/results.h"
#include "reports/results/report_json.h"
#include "reports/results/summary.h"
#include "reports/grade/parse.h"
#include "reports/grade/grade.h"
#include "tap.h"
#include "numbers.h"
#include "grade_helpers.h"
#include "gen/base/util.h"

/* The layout of nccl-tests 2.19 (WORKLOADS.md 1.1); the numbers are made up. */
static const char nccl_current[] =
	"# nccl-tests version 2.19.6 nccl-headers=22809 nccl-library=22809\n"
	"# Collective test starting: all_reduce_perf\n"
	"# nThread 1 nGpus 1 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n"
	"#\n"
	"# Using devices\n"
	"#  Rank  0 Group  0 Pid  12345 on     node01 device  0 [0000:18:00] NVIDIA H100 80GB HBM3\n"
	"#\n"
	"#                                                              out-of-place                       in-place\n"
	"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
	"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)\n"
	"           8             2     float     sum      -1    10.12    0.00    0.00       0     9.87    0.00    0.00       0\n"
	"    67108864      16777216     float     sum      -1   352.10  190.60  333.55       0   350.33  191.56  335.23       0\n"
	"   134217728      33554432     float     sum      -1   652.10  205.83  360.20       0   650.33  206.38  361.17       0\n"
	"# Out of bounds values : 0 OK\n"
	"# Avg bus bandwidth    : 231.692 \n"
	"#\n"
	"# Collective test concluded: all_reduce_perf\n";


static void
test_nccl(void)
{
	struct nccl_result n;
	const char *old, *noheader, *label, *bad, *na, *wrong, *two, *iflag, *crlf;

	ok(nccl_parse(nccl_current, strlen(nccl_current), &n), "current output parses");
	ok(n.rows == 3, "three result rows (got %zu)", n.rows);
	ok(near(n.max_busbw, 361.17) && near(n.max_busbw_size, 134217728), "max busbw is the in-place 128M value");
	ok(n.footer_avg && near(n.avg_busbw, 231.692), "avg busbw from the footer");
	ok(n.has_oob && n.oob == 0 && n.wrong == 0, "no wrong values");

	/* before 2.13: no root column, "error" instead of #wrong */
	old = "#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error\n"
	      "     1048576        262144   float     sum    50.00   20.97   39.32  5e-07    49.00   21.40   40.12  5e-07\n"
	      "# Out of bounds values : 0 OK\n";
	ok(nccl_parse(old, strlen(old), &n) && n.rows == 1 && near(n.max_busbw, 40.12),
	   "old layout: busbw found from the header (%g)", n.max_busbw);
	ok(!n.footer_avg && near(n.avg_busbw, (39.32 + 40.12) / 2), "no footer: avg is the mean of every busbw");
	ok(n.wrong == 0, "the old 'error' column is not a wrong count");

	noheader = "  33554432  8388608  float  sum  -1  300.1  111.8  209.6  0  299.0  112.2  210.4  0\n";
	ok(nccl_parse(noheader, strlen(noheader), &n) && n.rows == 1 && near(n.max_busbw, 210.4),
	   "no header: the current 13 columns are assumed");

	label = "0: #       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
	        "0:     1024           256     float     sum      -1    12.00    0.09    0.15       0    11.00    0.09    0.16       0\n"
	        "0: # Avg bus bandwidth    : 0.155\n";
	ok(nccl_parse(label, strlen(label), &n) && n.rows == 1 && near(n.max_busbw, 0.16) && near(n.avg_busbw, 0.155),
	   "srun --label prefixes are skipped");

	bad = "NCCL version 2.19.3+cuda12.2\nsrun: error: node01: task 0: Exited with exit code 1\n"
	      " .. node01 pid 42: Test failure common.cu:1234\n";
	ok(!nccl_parse(bad, strlen(bad), &n) && n.rows == 0, "an output with no results is not parsed");
	ok(!nccl_parse("", 0, &n), "empty output is not parsed");

	na = "    1024   256   float   sum   -1   12.00   0.09   0.15   N/A   11.00   0.09   0.16   N/A\n";
	ok(nccl_parse(na, strlen(na), &n) && n.rows == 1 && n.wrong == 0, "-c 0: #wrong N/A counts nothing");

	wrong = "    1024   256   float   sum   -1   12.00   0.09   0.15   3   11.00   0.09   0.16   2\n"
	        "# Out of bounds values : 2 FAILED\n# Avg bus bandwidth    : 0.155 FAILED\n";
	ok(nccl_parse(wrong, strlen(wrong), &n) && n.wrong == 5 && n.oob == 2, "wrong values counted (%ld, %ld)",
	   n.wrong, n.oob);

	two = "# Avg bus bandwidth    : 10\n# Avg bus bandwidth    : 20\n";
	ok(nccl_parse(two, strlen(two), &n) && n.rows == 0 && near(n.avg_busbw, 15),
	   "several footers (one per process) are averaged");

	iflag = "#  size count type redop root time algbw busbw #wrong i_min i_max i_p99 i_cv% time algbw busbw #wrong i_min i_max i_p99 i_cv%\n"
	        "  4096 1024 float sum -1 20.0 0.20 0.38 0 19 21 21 1.2 19.0 0.21 0.40 0 18 20 20 1.1\n";
	ok(nccl_parse(iflag, strlen(iflag), &n) && n.rows == 1 && near(n.max_busbw, 0.40), "-I 1 columns follow the header");

	crlf = "    2048   512   float   sum   -1   12.00   0.17   0.30   0   11.00   0.18   0.31   0\r\n"
	       "    garbage   512   float   sum   -1   12.00   0.17   999   0   11.00   0.18   999   0\r\n"
	       "    4096   1024   float   sum   -1   12.00   0.17   nan?   0   11.00   0.18   x   0\r\n";
	ok(nccl_parse(crlf, strlen(crlf), &n) && n.rows == 1 && near(n.max_busbw, 0.31),
	   "CRLF lines; rows with a non-numeric size or busbw are skipped");
}

static void
test_time(void)
{
	double t;

	ok(time_parse_iso8601("1970-01-01T00:00:00Z", &t) && t == 0, "the epoch");
	ok(time_parse_iso8601("2024-05-01T12:00:00Z", &t) && t == 1714564800, "a UTC time (%.0f)", t);
	ok(time_parse_iso8601("2024-05-01T14:00:00+02:00", &t) && t == 1714564800, "an offset");
	ok(time_parse_iso8601("2024-05-01 12:00:00.250Z", &t) && near(t, 1714564800.25), "a fraction, space for T");
	ok(time_parse_iso8601("2000-02-29T00:00:00Z", &t) && t == 951782400, "a leap day");
	ok(!time_parse_iso8601("2024-13-01T00:00:00Z", &t), "month 13 is refused");
	ok(!time_parse_iso8601("2024-05-01T12:00:00", &t), "no zone is refused (not UTC)");
	ok(!time_parse_iso8601("2024-05-01T12:00:00Zjunk", &t), "trailing text is refused");
	ok(!time_parse_iso8601("", &t) && !time_parse_iso8601(NULL, &t), "empty and NULL are refused");
}

static bool
escaped(const char *in, size_t len, bool attr, const char *want)
{
	struct buf b = {0};
	bool same;

	xml_escape(&b, in, len, attr);
	same = strcmp(buf_str(&b), want) == 0;
	if (!same)
		printf("# got '%s', want '%s'\n", buf_str(&b), want);
	buf_free(&b);
	return same;
}

static void
test_xml(void)
{
	ok(escaped("a<b>&\"c\"", 9, true, "a&lt;b&gt;&amp;&quot;c&quot;"), "markup in attributes");
	ok(escaped("a<b>&\"c\"", 9, false, "a&lt;b&gt;&amp;\"c\""), "markup in text");
	ok(escaped("x\ty\nz", 5, true, "x&#9;y&#10;z"), "tab and newline survive in attributes");
	ok(escaped("\x1b[31mred\x1b[0m\r\n", 14, false, "[31mred[0m\n"), "control characters are dropped");
	ok(escaped("a\0b", 3, false, "ab"), "NUL is dropped");
	ok(escaped("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14, false, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
	   "valid UTF-8 is kept");
	ok(escaped("\xff\xc0\xaf", 3, false, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"), "invalid bytes become U+FFFD");
	ok(escaped("\xed\xa0\x80", 3, false, "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"), "a UTF-8 surrogate is invalid");
	ok(escaped("\xe2\x82", 2, false, "\xEF\xBF\xBD\xEF\xBF\xBD"), "a truncated sequence is invalid");
	ok(escaped("\xef\xbf\xbe", 3, false, ""), "U+FFFE cannot be written in XML");
}

static void
test_tail(const char *tmp)
{
	struct buf path = {0}, b = {0};
	FILE *f;
	int i;

	buf_printf(&path, "%s/out.txt", tmp);
	f = fopen(path.data, "w");
	for (i = 1; i <= 100; i++)
		fprintf(f, "line %d\n", i);
	fclose(f);
	tail_lines(path.data, 50, 1 << 20, &b);
	ok(strncmp(buf_str(&b), "line 51\n", 8) == 0 && strstr(buf_str(&b), "line 100\n") &&
	   !strstr(buf_str(&b), "line 50\n"), "the last 50 lines");
	b.len = 0;
	tail_lines(path.data, 50, 20, &b);
	ok(strcmp(buf_str(&b), "line 99\nline 100\n") == 0, "a byte cap drops the partial first line");
	f = fopen(path.data, "w");
	fputs("one\ntwo", f);
	fclose(f);
	b.len = 0;
	tail_lines(path.data, 1, 1 << 20, &b);
	ok(strcmp(buf_str(&b), "two") == 0, "a last line without newline");
	b.len = 0;
	tail_lines("/nonexistent/file", 50, 1 << 20, &b);
	ok(b.len == 0, "a missing file gives nothing");
	buf_free(&path);
	buf_free(&b);
}

static void
test_outcomes(void)
{
	enum outcome o;
	bool round = true;
	int i;

	for (i = 0; i < OUTCOME_COUNT; i++)
		if (!outcome_parse(outcome_name((enum outcome)i), &o) || o != (enum outcome)i)
			round = false;
	ok(round, "every outcome name parses back");
	ok(!outcome_parse("error", &o) && !outcome_parse("", &o) && !outcome_parse(NULL, &o), "unknown names are refused");
	ok(outcome_is_failure(OUTCOME_TIMEOUT) && outcome_is_failure(OUTCOME_INFRA) &&
	   !outcome_is_failure(OUTCOME_PASSED) && !outcome_is_failure(OUTCOME_NOT_RUN) &&
	   !outcome_is_failure(OUTCOME_SKIPPED), "failure classes");
}

/* Tests e (after b), a (2 iterations), b (after a), c (after a starts), d. */
static void
test_skipped(void)
{
	struct arena a = {0};
	struct plan p = {0};
	struct run_report r[7];
	static const struct {
		const char *id;
		int iteration;
		size_t test;
	} runs[] = {{"e", 0, 0}, {"a", 0, 1}, {"a", 1, 1}, {"b", 0, 2}, {"c", 0, 3}, {"d", 0, 4}, {"d", 1, 4}};
	static size_t e_runs[] = {0}, a_runs[] = {1, 2}, b_runs[] = {3}, c_runs[] = {4}, d_runs[] = {5, 6};
	struct plan_dep e_deps[] = {{PLAN_AFTER_COMP, 2}}, b_deps[] = {{PLAN_AFTER_COMP, 1}},
	                c_deps[] = {{PLAN_AFTER_START, 1}};
	struct plan_test tests[] = {
		{"e", "Sleep", e_deps, 1, e_runs, 1, NULL, 0, NULL, {0}}, {"a", "Sleep", NULL, 0, a_runs, 2, NULL, 0, NULL, {0}},
		{"b", "Sleep", b_deps, 1, b_runs, 1, NULL, 0, NULL, {0}}, {"c", "Sleep", c_deps, 1, c_runs, 1, NULL, 0, NULL, {0}},
		{"d", "Sleep", NULL, 0, d_runs, 2, NULL, 0, NULL, {0}},
	};
	struct plan_run pr[7];
	size_t i;

	memset(pr, 0, sizeof(pr));
	memset(r, 0, sizeof(r));
	for (i = 0; i < 7; i++) {
		pr[i].id = r[i].id = runs[i].id;
		pr[i].dir = r[i].dir = runs[i].id;
		pr[i].iteration = r[i].iteration = runs[i].iteration;
		pr[i].test = runs[i].test;
		r[i].outcome = OUTCOME_NOT_RUN;
	}
	p.tests = tests;
	p.n_tests = 5;
	p.runs = pr;
	p.n_runs = 7;
	r[1].outcome = OUTCOME_FAILED;
	r[1].start_time = "2024-05-01T12:00:00Z";
	report_mark_skipped(&a, &p, r);
	ok(r[2].outcome == OUTCOME_SKIPPED && strstr(r[2].reason, "a iteration 0 did not pass (failed)"),
	   "the next iteration of a failed one is skipped (%s)", r[2].reason ? r[2].reason : "");
	ok(r[3].outcome == OUTCOME_SKIPPED, "start_post_comp on a failed test: skipped");
	ok(r[0].outcome == OUTCOME_SKIPPED && strstr(r[0].reason, "b iteration 0 did not pass (skipped)"),
	   "a skip propagates, also to runs listed earlier");
	ok(r[4].outcome == OUTCOME_NOT_RUN, "start_post_init on a test that did start: not skipped");
	ok(r[5].outcome == OUTCOME_NOT_RUN && r[6].outcome == OUTCOME_NOT_RUN, "independent runs stay not-run");

	for (i = 0; i < 7; i++)
		r[i].outcome = OUTCOME_NOT_RUN, r[i].reason = NULL;
	r[1].outcome = OUTCOME_INFRA;
	r[1].start_time = NULL;
	report_mark_skipped(&a, &p, r);
	ok(r[4].outcome == OUTCOME_SKIPPED && strstr(r[4].reason, "did not start (infra)"),
	   "start_post_init on a test that never started: skipped");

	for (i = 0; i < 7; i++)
		r[i].outcome = OUTCOME_NOT_RUN, r[i].reason = NULL;
	r[1].outcome = OUTCOME_RUNNING;
	r[5].outcome = OUTCOME_PASSED;
	report_mark_skipped(&a, &p, r);
	ok(r[2].outcome == OUTCOME_NOT_RUN && r[3].outcome == OUTCOME_NOT_RUN && r[0].outcome == OUTCOME_NOT_RUN,
	   "waiting on a running test is not-run, not skipped");
	arena_free(&a);
}



static void
test_grade_run(const char *tmp)
{
	struct arena a = {0};
	struct plan_arg args[] = {{"min_busbw", "300"}};
	static size_t runs[] = {0};
	struct plan_test t = {"nccl", "NcclTest", NULL, 0, runs, 1, NULL, 0, NULL, {0}};
	struct plan_run r = {"nccl/0", "nccl", 0, 0, 0, NULL, 0};
	struct plan p = {"s", "standalone", NULL, &t, 1, &r, 1, NULL, 0, false};
	struct run_report rep;
	struct buf dir = {0};
	static const char passed[] = "{\"dir\": \"nccl/0\", \"scheduler\": \"standalone\", \"job_id\": \"42\","
		" \"state\": \"EXITED\", \"exit_code\": 0, \"signal\": null, \"outcome\": \"passed\", \"reason\": null,"
		" \"submit_time\": \"2024-05-01T12:00:00Z\", \"start_time\": \"2024-05-01T12:00:01Z\","
		" \"end_time\": \"2024-05-01T12:00:31.5Z\", \"nodes\": [\"n1\", \"n2\"], \"attempt\": 1}\n";

	buf_printf(&dir, "%s/nccl/0", tmp);
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_NOT_RUN, "no job.json: not-run");

	put(dir.data, "job.json", "{\"outcome\": \"pass");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_INFRA && strstr(rep.reason, "invalid JSON"), "corrupt job.json: infra (%s)",
	   rep.reason);

	put(dir.data, "job.json", "{\"outcome\": \"exploded\"}");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_INFRA && strstr(rep.reason, "unknown outcome 'exploded'"), "unknown outcome: infra");

	put(dir.data, "job.json", "{\"job_id\": 7, \"state\": \"RUNNING\", \"outcome\": null}");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_RUNNING && strcmp(rep.job_id, "7") == 0, "no outcome yet: running, numeric job id");

	put(dir.data, "job.json", passed);
	put(dir.data, "stdout.txt", nccl_current);
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PASSED && !rep.reason, "passed with the markers");
	ok(near(rep.duration_s, 30.5) && rep.has_exit_code && rep.exit_code == 0, "duration from the times");
	ok(near(metric(&rep, "max_busbw"), 361.17) && near(metric(&rep, "avg_busbw"), 231.692),
	   "NCCL metrics in the report");

	r.args = args;
	r.n_args = 1;
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PASSED, "max busbw 361 is above min_busbw 300: %s", outcome_name(rep.outcome));
	args[0].value = "400";
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PERF_FAILED && strstr(rep.reason, "max busbw 361.17 GB/s is below min_busbw 400"),
	   "below min_busbw: perf-failed (%s)", rep.reason ? rep.reason : "");
	r.n_args = 0;

	put(dir.data, "stdout.txt", "# Avg bus bandwidth : 1\n Test NCCL failure common.cu:1\n");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "lacks '# Out of bounds values'"),
	   "a missing marker fails a passed run (%s)", rep.reason);
	grade_run(&a, tmp, &p, &r, false, &rep);
	ok(rep.outcome == OUTCOME_PASSED, "without the output check the runner's outcome stands");

	put(dir.data, "job.json", "{\"outcome\": \"timeout\", \"reason\": \"time limit 60 s\", \"exit_code\": null}");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_TIMEOUT && strcmp(rep.reason, "time limit 60 s") == 0 && !rep.has_exit_code,
	   "the runner's failure and reason stand");
	buf_free(&dir);
	arena_free(&a);
}

/* AIDynamo's aiperf CSV (two tables) and accuracy, DynamoMocker's missing
 * report, Aiconfigurator's report.json. */
static void
test_kunai(const char *tmp)
{
	struct arena a = {0};
	static size_t runs[] = {0};
	struct plan_ref refs[] = {
		{NULL, "bf16_tflops", "TFLOP/s", 100, -0.1, INFINITY, false, 0, INFINITY},
		{"H100", "bf16_tflops", "TFLOP/s", 625, -0.1, INFINITY, false, 0, INFINITY},
		{"B200", "fp64_tflops", "TFLOP/s", 40, -0.1, INFINITY, false, 0, INFINITY},
	};
	struct plan_test t = {"gemm", "KunaiGemm", NULL, 0, runs, 1, refs, 3, NULL, {0}};
	struct plan_run r = {"gemm/0", "gemm", 0, 0, 0, NULL, 0};
	struct plan p = {"s", "slurm", "cluster", &t, 1, &r, 1, NULL, 0, false};
	struct run_report rep;
	struct buf dir = {0};
	const struct metric *slow = NULL;
	size_t i, per_gpu = 0;
	static const char job[] = "{\"dir\": \"gemm/0\", \"workload\": \"KunaiGemm\", \"outcome\": \"passed\", "
		"\"exit_code\": 0, \"nodes\": [\"node-002\", \"node-003\"]}\n";
	static const char out[] =
		"0: [GEMM] GPU path\n"
		"0: {\"workload\":\"gemm\",\"path\":\"gpu\",\"gpu_models\":[\"NVIDIA H100 80GB HBM3\",\"NVIDIA H100 80GB HBM3\"],"
		"\"results\":{\"bf16\":{\"tflops_per_gpu\":[640.5,630.1]}},\"metrics\":{\"bf16_tflops_min\":630.1},"
		"\"result\":\"SUCCESS\",\"failures\":[],\"host\":\"node-002\"}\n"
		"1: {\"workload\":\"gemm\",\"path\":\"gpu\",\"gpu_models\":[\"NVIDIA H100 80GB HBM3\",\"NVIDIA H100 80GB HBM3\"],"
		"\"results\":{\"bf16\":{\"tflops_per_gpu\":[633.0,512.0]}},\"metrics\":{\"bf16_tflops_min\":512.0},"
		"\"result\":\"SUCCESS\",\"failures\":[],\"host\":\"node-003\"}\n"
		"0: [RESULT] SUCCESS\n1: [RESULT] SUCCESS\n";

	buf_printf(&dir, "%s/gemm/0", tmp);
	put(dir.data, "job.json", job);
	put(dir.data, "stdout.txt", out);
	grade_run(&a, tmp, &p, &r, true, &rep);
	for (i = 0; i < rep.n_metrics; i++) {
		const struct metric *m = &rep.metrics[i];
		if (strcmp(m->name, "bf16_tflops") != 0)
			continue;
		per_gpu++;
		if (m->value == 512.0)
			slow = m;
	}
	ok(per_gpu == 4, "one bf16 value per GPU per node (%zu)", per_gpu);
	ok(slow && slow->gpu == 1 && strcmp(slow->node, "node-003") == 0 && strcmp(slow->unit, "TFLOP/s") == 0 &&
	   strstr(slow->gpu_model, "H100") && slow->check == CHECK_LOW && slow->ref == &refs[1],
	   "the slow GPU: node, index, model, unit, the H100 reference");
	ok(rep.outcome == OUTCOME_PERF_FAILED && rep.reason &&
	   strstr(rep.reason, "bf16_tflops on node-003 GPU 1 (NVIDIA H100 80GB HBM3): 512 TFLOP/s is 18% below "
	                      "the reference 625 TFLOP/s (tolerance 10%)"),
	   "perf-failed with the numbers (%s)", rep.reason ? rep.reason : "");
	ok(rep.path && strcmp(rep.path, "gpu") == 0, "GPU path");

	/* the threshold changes, nothing re-runs: passed */
	refs[1].lower = -0.2;
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_PASSED, "a wider tolerance re-grades to passed (%s)", rep.reason ? rep.reason : "");

	/* the program's own failure text is the reason */
	put(dir.data, "job.json", "{\"workload\": \"KunaiGemm\", \"outcome\": \"failed\", \"reason\": \"EXITED: exit code 1\", "
	    "\"exit_code\": 1, \"nodes\": \"n1\"}\n");
	put(dir.data, "stdout.txt", "{\"workload\":\"gemm\",\"path\":\"cpu\",\"results\":{},\"metrics\":{},"
	    "\"result\":\"FAILURE\",\"failures\":[\"cpu fp64: 3 of 100 elements differ\"],\"host\":\"n1\"}\n"
	    "[RESULT] FAILURE: cpu fp64: 3 of 100 elements differ\n");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "n1: cpu fp64: 3 of 100 elements differ (EXITED"),
	   "the program's FAILURE text is the reason (%s)", rep.reason);

	/* cut short: a JSON line without its end */
	put(dir.data, "job.json", "{\"workload\": \"KunaiGemm\", \"outcome\": \"passed\", \"exit_code\": 0}\n");
	put(dir.data, "stdout.txt", "{\"workload\":\"gemm\",\"path\":\"cpu\",\"resu\n[RESULT] SUCCESS\n");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_FAILED && strstr(rep.reason, "cut short"), "a truncated JSON line: %s", rep.reason);

	/* health without nvidia-smi: skipped, and it ran */
	t.workload = "KunaiHealth";
	put(dir.data, "job.json", "{\"workload\": \"KunaiHealth\", \"outcome\": \"passed\", \"exit_code\": 0}\n");
	put(dir.data, "stdout.txt", "{\"workload\":\"health\",\"result\":\"SKIPPED\",\"reason\":\"no nvidia-smi\","
	    "\"failures\":[]}\n[RESULT] SKIPPED: no nvidia-smi\n");
	grade_run(&a, tmp, &p, &r, true, &rep);
	ok(rep.outcome == OUTCOME_SKIPPED && rep.ran_skipped && strstr(rep.reason, "no nvidia-smi"),
	   "health SKIPPED counts as skipped");
	buf_free(&dir);
	arena_free(&a);
}

/* fio's text output, as fio 3.x prints it (counts scaled with k/M, fields
 * padded with blanks: "avg= 5.12"). */

/* Numbers read back from a report.json can be anything: a GPU index out of
 * int's range is no GPU (converting it was undefined behaviour), and a long
 * series reads back whole. */
static void
test_readback(const char *tmp)
{
	struct arena a = {0};
	struct run_report r;
	struct buf path = {0}, text = {0}, why = {0};
	size_t i, n = 50000;
	bool ok_series = true;

	buf_printf(&path, "%s/back.json", tmp);
	buf_puts(&text, "{\"dir\": \"t/0\", \"id\": \"t\", \"iteration\": 0, \"outcome\": \"passed\", "
	                "\"values\": [{\"name\": \"v\", \"value\": 1, \"gpu\": 1e300}, "
	                "{\"name\": \"w\", \"value\": 2, \"gpu\": -3e9}], "
	                "\"series\": [{\"name\": \"busbw\", \"gpu\": 1e300, \"x\": [");
	for (i = 0; i < n; i++)
		buf_printf(&text, "%s%zu", i ? ", " : "", i);
	buf_puts(&text, "], \"values\": [");
	for (i = 0; i < n; i++)
		buf_printf(&text, "%s%zu.5", i ? ", " : "", i);
	buf_puts(&text, "]}]}\n");
	ok(write_file_atomic(path.data, text.data, text.len), "fabricate back.json");
	ok(json_load_report(&a, path.data, &r, &why) && r.n_metrics == n + 2, "report.json read back: %zu metrics",
	   r.n_metrics);
	ok(r.n_metrics > 1 && r.metrics[0].gpu == -1 && r.metrics[1].gpu == -1,
	   "a GPU index out of int's range reads back as none");
	for (i = 0; i < n && i + 2 < r.n_metrics; i++)
		if (r.metrics[i + 2].x != (double)i || r.metrics[i + 2].value != (double)i + 0.5 || r.metrics[i + 2].gpu != -1)
			ok_series = false;
	ok(ok_series, "a series of %zu points reads back in order", n);
	buf_free(&path);
	buf_free(&text);
	buf_free(&why);
	arena_free(&a);
}

/* JaxToolbox: the logs the batch script copies to stdout. */
/* fmt_num and fmt_data write their numbers without printf where they can:
 * byte for byte what "%.0f" (integers) and "%.4g" / "%.9g" write, on
 * numbers of every shape */
static void
test_format_printf(void)
{
	static const double fixed[] = {0.0, -0.0, 1, -1, 0.1, 1e-4, 9.9999e-5, 123456789, 999999999.5, 1e9,
	                               99999.5, 0.00012345, 12.345, 33554432, -4294967296.0, 9007199254740991.0,
	                               9007199254740992.0, 1e300, 5e-324, 2.5, 0.30000000000000004};
	unsigned long long x = 88172645463325252ULL;
	struct buf got = {0}, want = {0};
	int bad = 0, tried = 0, prec;

	for (int i = 0; i < 300000; i++) {
		double d;

		d = i < (int)LEN(fixed) ? fixed[i] : test_number(&x, i, 12);
		if (isnan(d))
			continue;
		for (prec = 4; prec <= 9; prec += 5) {
			got.len = want.len = 0;
			(prec == 4 ? fmt_num : fmt_data)(&got, d);
			if (d == floor(d) && fabs(d) < 9007199254740992.0)
				buf_printf(&want, "%.0f", d);
			else
				buf_printf(&want, "%.*g", prec, d);
			tried++;
			if (strcmp(buf_str(&got), buf_str(&want)) != 0 && bad++ < 5)
				printf("# %.17g: printf %s, fmt %s\n", d, buf_str(&want), buf_str(&got));
		}
	}
	ok(bad == 0, "fmt_num, fmt_data write %d numbers as printf does, %d differ", tried, bad);
	buf_free(&got);
	buf_free(&want);
}

/* One way to write a number in every report (P13, P15). */
static void
test_format(void)
{
	static const struct {
		double v;
		const char *unit, *out;
	} cases[] = {
		{4294967296.0, "B", "4 GiB"}, {262144, "B", "256 KiB"}, {8589934592.0, "B", "8 GiB"},
		{1572864, "B", "1.5 MiB"}, {100, "B", "100 B"}, {12, "count", "12"},
		{0.95, "ratio", "95%"}, {0.004, "ratio", "0.4%"}, {0.39, "s", "0.39 s"}, {0.0, "s", "0.00 s"},
		{123.456, "s", "123.5 s"}, {470, "GB/s", "470 GB/s"}, {289.94, "GB/s", "289.9 GB/s"},
		{4294967296.0, "GB/s", "4294967296 GB/s"}, {2.5, NULL, "2.5"},
	};
	struct buf b = {0};
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		b.len = 0;
		fmt_value(&b, cases[i].v, cases[i].unit);
		ok(strcmp(buf_str(&b), cases[i].out) == 0, "fmt_value %s: %s", cases[i].out, buf_str(&b));
	}
	b.len = 0;
	fmt_data(&b, 4294967296.0);
	buf_putc(&b, ' ');
	fmt_data(&b, 0.1);
	buf_putc(&b, ' ');
	fmt_data(&b, 1e300);
	ok(strcmp(buf_str(&b), "4294967296 0.1 1e+300") == 0, "fmt_data: integers exact: %s", buf_str(&b));
	buf_free(&b);
	test_format_printf();
}

int
main(void)
{
	char tmp[] = "/tmp/grade_test.XXXXXX";

	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_nccl();
	test_format();
	test_time();
	test_xml();
	test_tail(tmp);
	test_outcomes();
	test_skipped();
	test_grade_run(tmp);
	test_kunai(tmp);
	test_readback(tmp);
	{
		char cmd[128];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
		if (system(cmd) != 0)
			printf("# could not remove %s\n", tmp);
	}
	return tap_done();
}
