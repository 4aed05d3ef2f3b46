/* grade/comm_files.c: the communication benchmarks that write their results
 * into the run dir, read as CloudAI's report strategies do.
 *
 * MoEBenchmark (grade_moe_results): every results.json in a directory
 * benchmark_*_ranks_* of the run dir or of its results/ (benchmark.py names
 * them benchmark_<ranks>_ranks_<time>_<mode>), a JSON list of one row per
 * backend and operation. A row's figures become <backend>_<operation>_<figure>:
 * bus_bw (bus_bw_avg), bus_bw_min, bus_bw_max, global_bw, nvl_bw and rdma_bw
 * (separate_nvl_bw, separate_rdma_bw), simple_nvl_bw, simple_rdma_bw, all
 * GB/s, and time (time_s, s); a later row of the same backend and operation
 * replaces an earlier one, as in CloudAI's throughput chart.
 *
 * NixlPerftest (grade_nixl_perftest): results.json of the perftest, whose
 * iterations_results holds, per iteration, one record per traffic pattern:
 * latency and isolated_latency (ms), mean_bw (GB/s), size (GB). Each
 * pattern's mean over the iterations is a value at x = its index
 * ("pattern"); default is the mean bandwidth of every record. */
#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reports/grade/grade.h"
#include "gen/base/util.h"

static const struct {
	const char *key, *name, *unit;
} moe_figs[] = {
	{"bus_bw_avg", "bus_bw", "GB/s"},
	{"bus_bw_min", "bus_bw_min", "GB/s"},
	{"bus_bw_max", "bus_bw_max", "GB/s"},
	{"global_bw", "global_bw", "GB/s"},
	{"separate_nvl_bw", "nvl_bw", "GB/s"},
	{"separate_rdma_bw", "rdma_bw", "GB/s"},
	{"simple_nvl_bw", "simple_nvl_bw", "GB/s"},
	{"simple_rdma_bw", "simple_rdma_bw", "GB/s"},
	{"time_s", "time", "s"},
};

/* A backend or operation name fit for a metric name. */
static bool
word_ok(const cJSON *s)
{
	const char *p;

	if (!cJSON_IsString(s) || !s->valuestring[0] || strlen(s->valuestring) > 64)
		return false;
	for (p = s->valuestring; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
		      *p == '-' || *p == '.'))
			return false;
	return true;
}

/* Sets the run-wide value name, replacing one added before. */
static void
moe_set(struct arena *a, struct run_report *out, const char *name, const char *unit, double v)
{
	size_t i;

	for (i = 0; i < out->n_metrics; i++)
		if (strcmp(out->metrics[i].name, name) == 0 && isfinite(v)) {
			out->metrics[i].value = v;
			return;
		}
	metric_add(a, out, name, unit, v);
}

/* The rows of one results.json; false (with the reason) when it is not a
 * JSON list. *rows counts the rows with a bus bandwidth. */
static bool
moe_file(struct arena *a, const char *path, const char *rel, struct run_report *out, size_t *rows)
{
	struct buf text = {0};
	cJSON *root, *row;
	size_t i;
	bool good;

	if (!read_file(path, &text)) {
		grade_demote(out, OUTCOME_FAILED, arena_printf(a, "MoEBenchmark: %s cannot be read", rel));
		buf_free(&text);
		return false;
	}
	root = cJSON_ParseWithLength(text.data ? text.data : "", text.len);
	buf_free(&text);
	good = cJSON_IsArray(root);
	if (!good)
		grade_demote(out, OUTCOME_FAILED,
		             arena_printf(a, "MoEBenchmark: %s is not a JSON list of result rows", rel));
	cJSON_ArrayForEach(row, root)
	{
		const cJSON *be = cJSON_GetObjectItemCaseSensitive(row, "backend");
		const cJSON *op = cJSON_GetObjectItemCaseSensitive(row, "operation");

		if (!good || !cJSON_IsObject(row) || !word_ok(be) || !word_ok(op))
			continue;
		for (i = 0; i < LEN(moe_figs); i++) {
			const cJSON *v = cJSON_GetObjectItemCaseSensitive(row, moe_figs[i].key);
			if (!cJSON_IsNumber(v))
				continue;
			moe_set(a, out, arena_printf(a, "%s_%s_%s", be->valuestring, op->valuestring, moe_figs[i].name),
			        moe_figs[i].unit, v->valuedouble);
			*rows += i == 0;
		}
	}
	cJSON_Delete(root);
	return good;
}

static int
cmp_str(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

/* The results.json of dir's benchmark_*_ranks_* directories, in name order. */
static void
moe_dir(struct arena *a, const char *dir, const char *rel, struct run_report *out, size_t *files, size_t *rows)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	struct stat st;
	char **names = NULL;
	size_t n = 0, cap = 0, i;

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "benchmark_", 10) != 0 || !strstr(e->d_name + 10, "_ranks_"))
			continue;
		names = arena_reserve(a, names, n, n + 1, &cap, sizeof(*names));
		names[n++] = arena_strdup(a, e->d_name);
	}
	if (d)
		closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	for (i = 0; i < n; i++) {
		const char *path = arena_printf(a, "%s/%s/results.json", dir, names[i]);
		if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		(*files)++;
		moe_file(a, path, arena_printf(a, "%s%s/results.json", rel, names[i]), out, rows);
	}
}

void
grade_moe_results(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
                  struct run_report *out)
{
	size_t files = 0, rows = 0;

	(void)r;
	moe_dir(a, arena_printf(a, "%s/results", dir), "results/", out, &files, &rows);
	moe_dir(a, dir, "", out, &files, &rows);
	if (!files)
		grade_demote(out, OUTCOME_FAILED,
		             "MoEBenchmark: no results.json in benchmark_*_ranks_*/ or results/benchmark_*_ranks_*/");
	else if (!rows)
		grade_demote(out, OUTCOME_FAILED,
		             "MoEBenchmark: no result row with backend, operation and bus_bw_avg in its results.json");
}

enum { NP_LAT, NP_ISO, NP_BW, NP_SIZE, NP_N };

void
grade_nixl_perftest(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
                    struct run_report *out)
{
	static const char *const keys[NP_N] = {"latency", "isolated_latency", "mean_bw", "size"};
	static const char *const names[NP_N] = {"latency", "isolated_latency", "bandwidth", "transfer_size"};
	static const char *const units[NP_N] = {"ms", "ms", "GB/s", "GB"};
	const char *path = arena_printf(a, "%s/results.json", dir);
	struct buf body = {0};
	struct stat st;
	cJSON *root = NULL;
	const cJSON *iters, *it, *rec;
	double *sum = NULL, bw = 0;
	size_t *cnt = NULL, np = 0, nbw = 0, cap_sum = 0, cap_cnt = 0, i, k;
	struct metric *m;

	(void)r;
	if (stat(path, &st) != 0) {
		grade_demote(out, OUTCOME_FAILED, "NixlPerftest: no results.json in the run dir");
		return;
	}
	if (!S_ISREG(st.st_mode) || !read_file(path, &body)) {
		grade_demote(out, OUTCOME_FAILED, "NixlPerftest: results.json cannot be read");
		buf_free(&body);
		return;
	}
	root = cJSON_ParseWithLength(body.data ? body.data : "", body.len);
	buf_free(&body);
	iters = cJSON_GetObjectItemCaseSensitive(root, "iterations_results");
	if (!cJSON_IsObject(root) || !cJSON_IsArray(iters)) {
		grade_demote(out, OUTCOME_FAILED, "NixlPerftest: results.json is not an object with a list iterations_results");
		cJSON_Delete(root);
		return;
	}
	cJSON_ArrayForEach(it, iters)
	{
		if (!cJSON_IsArray(it))
			continue;
		i = 0;
		cJSON_ArrayForEach(rec, it)
		{
			if (i == np) {
				sum = arena_reserve(a, sum, np * NP_N, (np + 1) * NP_N, &cap_sum, sizeof(*sum));
				cnt = arena_reserve(a, cnt, np * NP_N, (np + 1) * NP_N, &cap_cnt, sizeof(*cnt));
				memset(sum + np * NP_N, 0, NP_N * sizeof(*sum));
				memset(cnt + np * NP_N, 0, NP_N * sizeof(*cnt));
				np++;
			}
			for (k = 0; k < NP_N; k++) {
				const cJSON *v = cJSON_GetObjectItemCaseSensitive(rec, keys[k]);
				if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
					continue; /* a pattern nobody sent has latency null */
				sum[i * NP_N + k] += v->valuedouble;
				cnt[i * NP_N + k]++;
				if (k == NP_BW) {
					bw += v->valuedouble;
					nbw++;
				}
			}
			i++;
		}
	}
	cJSON_Delete(root);
	if (!nbw) {
		grade_demote(out, OUTCOME_FAILED, "NixlPerftest: results.json has no traffic pattern with mean_bw");
		return;
	}
	metric_add(a, out, "default", "GB/s", bw / (double)nbw);
	for (i = 0; i < np; i++)
		for (k = 0; k < NP_N; k++)
			if (cnt[i * NP_N + k] && (m = metric_add(a, out, names[k], units[k],
			                                         sum[i * NP_N + k] / (double)cnt[i * NP_N + k]))) {
				m->x = (double)i;
				m->x_name = "pattern";
			}
}
