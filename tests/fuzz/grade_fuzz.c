/* grade_fuzz: libFuzzer target for the graders (make fuzz-grade). The first
 * byte of the input picks a workload (of workload_names()); the rest is what
 * its run left: written as stdout.txt and linked under every name a grader
 * reads from a run dir (results.json, the serving benchmarks' JSON, CSV and
 * logs, MoE's results/benchmark_*_ranks_*), up to megabytes. grade_run grades
 * it, the report is written as report.json text and read back. Any bytes
 * must grade into some outcome: never crash, hang or trip a sanitizer.
 * tests/fuzz/grade_seeds.sh makes seed inputs of this form. */
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/base/util.h"
#include "gen/workloads/workload.h"
#include "reports/results/results.h"
#include "reports/results/report_json.h"
#include "reports/grade/grade.h"

static char root[64];

/* The files graders open in a run dir besides stdout.txt. */
static const char *const names[] = {
	"results.json", "results/benchmark_0_ranks_8/results.json", "vllm-bench.json", "vllm-gsm8k.json",
	"vllm-semantic-eval.log", "sglang-bench.jsonl", "sglang-semantic-eval.log",
	"profile_export_genai_perf.json", "accuracy_results.csv", "benchmark_report.csv", "report.json",
	"aiperf_artifacts/accuracy_results.csv", "genai_perf_report.csv", "stderr.txt",
};

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void
cleanup(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
put(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		abort();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static const char job[] = "{\"dir\": \"t/0\", \"outcome\": \"passed\", \"exit_code\": 0, "
	                          "\"nodes\": \"node01\", \"start_time\": \"2024-05-01T12:00:00Z\", "
	                          "\"end_time\": \"2024-05-01T12:00:30Z\"}\n";
	char path[160];

	(void)argc, (void)argv;
	strcpy(root, "/tmp/kunai-grade-fuzz.XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	snprintf(path, sizeof(path), "%s/t", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/t/0", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/t/0/results", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/t/0/results/benchmark_0_ranks_8", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/t/0/aiperf_artifacts", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/t/0/job.json", root);
	put(path, job, strlen(job));
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *const *wl = workload_names();
	struct arena a = {0};
	struct plan_test test = {0};
	struct plan_run run = {0};
	struct plan p = {0};
	struct run_report out, back;
	struct buf text = {0}, why = {0};
	char out_path[160], path[160];
	size_t n = 0, i;

	while (wl[n])
		n++;
	if (size < 1 || n == 0)
		return 0;
	test.id = "t";
	test.workload = wl[data[0] % n];
	run.dir = "t/0";
	run.id = "t";
	p.scenario = "fuzz";
	p.scheduler = "standalone";
	p.system = "fuzz";
	p.tests = &test;
	p.n_tests = 1;
	p.runs = &run;
	p.n_runs = 1;
	snprintf(out_path, sizeof(out_path), "%s/t/0/stdout.txt", root);
	put(out_path, data + 1, size - 1);
	for (i = 0; i < LEN(names); i++) {
		snprintf(path, sizeof(path), "%s/t/0/%s", root, names[i]);
		unlink(path);
		if (link(out_path, path) != 0)
			abort();
	}
	grade_run(&a, root, &p, &run, true, &out);
	/* what a report writes must read back */
	json_write_report(&out, &text);
	snprintf(path, sizeof(path), "%s/back.json", root);
	put(path, text.data ? text.data : "", text.len);
	if (!json_load_report(&a, path, &back, &why))
		__builtin_trap();
	buf_free(&text);
	buf_free(&why);
	arena_free(&a);
	return 0;
}
