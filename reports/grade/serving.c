/* grade/serving.c: the serving benchmarks' results, from the files their
 * clients write in the run dir, as CloudAI's report strategies read them
 * (llm_serving.py, vllm/, sglang/): vLLM's vllm-bench.json (`vllm bench
 * serve --save-result`), SGLang's sglang-bench.jsonl (the first record that
 * parses), and the semantic check's accuracy (vllm-gsm8k.json, else
 * "Accuracy: X" in vllm-semantic-eval.log; "Score: X" or "Accuracy: X" in
 * sglang-semantic-eval.log). throughput is CloudAI's: output tokens/s for
 * vLLM, requests/s for SGLang; tps-per-user divides it by the
 * concurrency. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "reports/grade/grade.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

/* read_file for a file that may be absent (then false, silently). */
static bool
read_quiet(const char *path, struct buf *b)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && read_file(path, b);
}

static bool
num(const cJSON *o, const char *key, double *v)
{
	const cJSON *i = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsNumber(i))
		return false;
	*v = i->valuedouble;
	return true;
}

/* The latency and rate figures both clients write, under the same names. */
static void
common(struct arena *a, const cJSON *o, struct run_report *out)
{
	static const struct {
		const char *key, *name, *unit;
	} m[] = {
		{"request_throughput", "request_throughput", "req/s"},
		{"output_throughput", "output_throughput", "tok/s"},
		{"total_token_throughput", "total_token_throughput", "tok/s"},
		{"mean_ttft_ms", "ttft_mean", "ms"},
		{"median_ttft_ms", "ttft_median", "ms"},
		{"p99_ttft_ms", "ttft_p99", "ms"},
		{"mean_tpot_ms", "tpot_mean", "ms"},
		{"median_tpot_ms", "tpot_median", "ms"},
		{"p99_tpot_ms", "tpot_p99", "ms"},
		{"mean_itl_ms", "itl_mean", "ms"},
		{"median_itl_ms", "itl_median", "ms"},
		{"p99_itl_ms", "itl_p99", "ms"},
		{"completed", "completed", "count"},
	};
	double v;
	size_t i;

	for (i = 0; i < LEN(m); i++)
		if (num(o, m[i].key, &v))
			metric_add(a, out, m[i].name, m[i].unit, v);
}

/* CloudAI's LLMServingBenchReport: these must be there. */
static bool
complete(const cJSON *o)
{
	static const char *const need[] = {"completed", "mean_ttft_ms", "median_ttft_ms", "p99_ttft_ms",
	                                   "mean_tpot_ms", "median_tpot_ms", "p99_tpot_ms", "max_concurrency"};
	double v;
	size_t i;

	for (i = 0; i < LEN(need); i++)
		if (!num(o, need[i], &v))
			return false;
	return true;
}

/* throughput and tps-per-user (CloudAI's metrics). */
static void
headline(struct arena *a, const cJSON *o, const char *key, const char *unit, struct run_report *out)
{
	double t, c;

	if (!num(o, key, &t))
		return;
	metric_add(a, out, "throughput", unit, t);
	if (num(o, "max_concurrency", &c) && c > 0)
		metric_add(a, out, "tps-per-user", unit, t / c);
}

/* The first number after pattern (one of pats) in the file, as CloudAI's
 * regex \b(?:Score|Accuracy):\s*([0-9]*\.?[0-9]+) finds it. */
static bool
log_accuracy(const char *path, const char *const *pats, double *v)
{
	struct buf b = {0};
	const char *p;
	bool ok = false;
	size_t i;

	if (!read_quiet(path, &b))
		return false;
	buf_str(&b);
	for (p = b.data; p && *p && !ok; p++)
		for (i = 0; pats[i] && !ok; i++) {
			size_t n = strlen(pats[i]);
			const char *q = p + n;
			char *e;
			if (strncmp(p, pats[i], n) != 0 || (p > b.data && (isalnum((unsigned char)p[-1]) || p[-1] == '_')))
				continue;
			while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r')
				q++;
			if (!isdigit((unsigned char)*q) && !(*q == '.' && isdigit((unsigned char)q[1])))
				continue;
			*v = strtod(q, &e);
			ok = e > q;
		}
	buf_free(&b);
	return ok;
}

static bool
has_semantic(const struct plan_run *r)
{
	size_t i;

	for (i = 0; i < r->n_args; i++)
		if (strncmp(r->args[i].key, "semantic_eval_cmd_args", 22) == 0)
			return true;
	return false;
}

static void
no_result(struct arena *a, struct run_report *out, const char *what, const char *why)
{
	if (out->outcome == OUTCOME_PASSED)
		grade_demote(out, OUTCOME_FAILED, arena_printf(a, "%s: %s", what, why));
}

void
grade_vllm(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
           struct run_report *out)
{
	static const char *const pats[] = {"Accuracy:", NULL};
	struct buf path = {0}, why = {0};
	cJSON *o, *acc;
	bool absent;
	double v;

	buf_printf(&path, "%s/vllm-bench.json", dir);
	o = json_load(path.data, &why, &absent);
	if (!o || !complete(o))
		no_result(a, out, "vllm-bench.json", absent ? "absent" : o ? "no benchmark result in it" : buf_str(&why));
	else {
		headline(a, o, "output_throughput", "tok/s", out);
		common(a, o, out);
	}
	cJSON_Delete(o);
	if (has_semantic(r)) {
		path.len = 0;
		buf_printf(&path, "%s/vllm-gsm8k.json", dir);
		o = json_load(path.data, &why, &absent);
		acc = o ? cJSON_GetObjectItemCaseSensitive(o, "accuracy") : NULL;
		if (cJSON_IsNumber(acc))
			metric_add(a, out, "accuracy", "fraction", acc->valuedouble);
		else {
			path.len = 0;
			buf_printf(&path, "%s/vllm-semantic-eval.log", dir);
			if (log_accuracy(path.data, pats, &v))
				metric_add(a, out, "accuracy", "fraction", v);
			else
				no_result(a, out, "semantic check", "no accuracy in vllm-gsm8k.json or vllm-semantic-eval.log");
		}
		cJSON_Delete(o);
	}
	buf_free(&path);
	buf_free(&why);
}

void
grade_sglang(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
             struct run_report *out)
{
	static const char *const pats[] = {"Score:", "Accuracy:", NULL};
	struct buf path = {0}, body = {0};
	const char *p, *end;
	cJSON *o = NULL;
	double v;

	buf_printf(&path, "%s/sglang-bench.jsonl", dir);
	if (read_quiet(path.data, &body)) {
		for (p = body.data, end = p + body.len; p < end && !o; p = memchr(p, '\n', (size_t)(end - p)), p = p ? p + 1 : end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			cJSON *j = cJSON_ParseWithLength(p, nl ? (size_t)(nl - p) : (size_t)(end - p));
			if (cJSON_IsObject(j) && complete(j))
				o = j;
			else
				cJSON_Delete(j);
		}
	}
	if (!o || !num(o, "completed", &v) || v <= 0)
		no_result(a, out, "sglang-bench.jsonl", "no record with completed requests");
	else {
		headline(a, o, "request_throughput", "req/s", out);
		common(a, o, out);
	}
	cJSON_Delete(o);
	if (has_semantic(r)) {
		path.len = 0;
		buf_printf(&path, "%s/sglang-semantic-eval.log", dir);
		if (log_accuracy(path.data, pats, &v))
			metric_add(a, out, "accuracy", "fraction", v);
		else
			no_result(a, out, "semantic check", "no score in sglang-semantic-eval.log");
	}
	buf_free(&path);
	buf_free(&body);
}

/* TritonInference: CloudAI reports nothing; genai-perf's own summary,
 * profile_export_genai_perf.json in its artifact dir (the run dir), holds
 * one object per measure with unit, avg and percentiles. Absent: no
 * metrics (the client's exit status decided the run). */
void
grade_triton(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
             struct run_report *out)
{
	static const struct {
		const char *key, *name, *unit;
	} m[] = {
		{"request_throughput", "request_throughput", "req/s"},
		{"output_token_throughput", "output_throughput", "tok/s"},
		{"time_to_first_token", "ttft", "ms"},
		{"inter_token_latency", "itl", "ms"},
		{"request_latency", "request_latency", "ms"},
	};
	static const char *const stats[] = {"avg", "p50", "p99"};
	struct buf path = {0}, why = {0};
	const cJSON *o;
	cJSON *root;
	bool absent;
	size_t i, j;
	double v;

	(void)r;
	buf_printf(&path, "%s/profile_export_genai_perf.json", dir);
	root = json_load(path.data, &why, &absent);
	for (i = 0; root && i < LEN(m); i++) {
		if (!cJSON_IsObject(o = cJSON_GetObjectItemCaseSensitive(root, m[i].key)))
			continue;
		/* rates: their average; output tokens/s is also the headline */
		if (i < 2) {
			if (i == 1 && num(o, "avg", &v))
				metric_add(a, out, "throughput", m[i].unit, v);
			if (num(o, "avg", &v))
				metric_add(a, out, m[i].name, m[i].unit, v);
			continue;
		}
		for (j = 0; j < LEN(stats); j++)
			if (num(o, stats[j], &v))
				metric_add(a, out, arena_printf(a, "%s_%s", m[i].name, j ? stats[j] : "mean"), m[i].unit, v);
	}
	cJSON_Delete(root);
	buf_free(&path);
	buf_free(&why);
}
