/* grade/serve.c: the serving family's results, read as CloudAI's report
 * strategies read them. AIDynamo and DynamoMocker: the benchmark CSV that
 * genai-perf or aiperf wrote (AIDynamo: each configured benchmark's report,
 * the first present; DynamoMocker: benchmark_report.csv), one table or
 * several, each starting at a "Metric" header row: throughput, TTFT and
 * inter-token latency (average and percentiles), request rate and count;
 * AIDynamo's aiperf accuracy (accuracy_results.csv, OVERALL row).
 * Aiconfigurator: the predictor's report.json (else the last JSON line of
 * stdout): TTFT, TPOT, tokens per second per GPU and per user. */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "reports/grade/grade.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

/* A CSV row split into its cells (quotes removed, blanks trimmed). */
struct row {
	char **cell;
	size_t n, cap;
};

static void
row_free(struct row *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		free(r->cell[i]);
	r->n = 0;
}

/* Splits one CSV line (RFC 4180 quotes, "" for a quote) into r. */
static void
split(const char *s, size_t len, struct row *r)
{
	struct buf c = {0};
	size_t i = 0;
	bool q;

	row_free(r);
	for (;;) {
		c.len = 0;
		q = false;
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		for (; i < len && (q || s[i] != ','); i++) {
			if (s[i] == '"') {
				if (q && i + 1 < len && s[i + 1] == '"')
					buf_putc(&c, s[++i]);
				else
					q = !q;
			} else
				buf_putc(&c, s[i]);
		}
		while (c.len && (c.data[c.len - 1] == ' ' || c.data[c.len - 1] == '\t' || c.data[c.len - 1] == '\r'))
			c.len--;
		r->cell = xreserve(r->cell, r->n + 1, &r->cap, sizeof(*r->cell));
		r->cell[r->n++] = xstrdup(buf_str(&c));
		if (i >= len)
			break;
		i++; /* the comma */
	}
	buf_free(&c);
}

/* What the CSV holds: every metric row under its table's header. */
struct csv {
	struct row header, row;
	struct arena *a;
	struct run_report *out;
	bool any;
};

static bool
number(const char *s, double *v)
{
	struct buf t = {0};
	char *e;
	bool ok;

	for (; *s; s++)
		if (*s != ',')
			buf_putc(&t, *s);
	*v = strtod(buf_str(&t), &e);
	ok = t.len && !*e;
	buf_free(&t);
	return ok;
}

/* The first of cols (a header name) that the row has a number in. */
static bool
column(const struct csv *c, const char *const *cols, double *v)
{
	size_t i, j;

	for (j = 0; cols[j]; j++)
		for (i = 1; i < c->header.n && i < c->row.n; i++)
			if (strcmp(c->header.cell[i], cols[j]) == 0 && *c->row.cell[i] && number(c->row.cell[i], v))
				return true;
	return false;
}

static const char *const avg[] = {"avg", "mean", "Value", NULL};
static const char *const p50[] = {"p50", "median", NULL};
static const char *const p90[] = {"p90", NULL};
static const char *const p99[] = {"p99", NULL};
static const char *const value[] = {"avg", "Value", NULL};

/* CloudAI's names of each metric (genai-perf's and aiperf's spellings),
 * kunai's name and unit, and the columns read. */
static const struct {
	const char *rows[3];
	const char *name, *unit;
	const char *const *cols;
} wanted[] = {
	{{"Output Token Throughput (tokens/sec)", "Output Token Throughput (per sec)"}, "output_token_throughput", "tokens/s", value},
	{{"Output Token Throughput Per User (tokens/sec/user)"}, "output_token_throughput_per_user", "tokens/s", avg},
	{{"Request Throughput (per sec)", "Request Throughput (requests/sec)"}, "request_throughput", "req/s", value},
	{{"Request Count (count)", "Request Count", "Request count"}, "request_count", "count", value},
	{{"Time To First Token (ms)", "Time to First Token (ms)"}, "ttft_avg", "ms", avg},
	{{"Time To First Token (ms)", "Time to First Token (ms)"}, "ttft_p50", "ms", p50},
	{{"Time To First Token (ms)", "Time to First Token (ms)"}, "ttft_p90", "ms", p90},
	{{"Time To First Token (ms)", "Time to First Token (ms)"}, "ttft_p99", "ms", p99},
	{{"Inter Token Latency (ms)"}, "itl_avg", "ms", avg},
	{{"Inter Token Latency (ms)"}, "itl_p50", "ms", p50},
	{{"Inter Token Latency (ms)"}, "itl_p90", "ms", p90},
	{{"Inter Token Latency (ms)"}, "itl_p99", "ms", p99},
	{{"Request Latency (ms)"}, "request_latency_avg", "ms", avg},
	{{"Request Latency (ms)"}, "request_latency_p99", "ms", p99},
};

static void
csv_line(void *ctx, const char *line, size_t n, int task)
{
	struct csv *c = ctx;
	size_t i, j;
	double v;

	(void)task;
	split(line, n, &c->row);
	if (!c->row.n || !*c->row.cell[0])
		return;
	if (strcmp(c->row.cell[0], "Metric") == 0) {
		split(line, n, &c->header);
		return;
	}
	if (!c->header.n)
		return;
	for (i = 0; i < LEN(wanted); i++) {
		for (j = 0; j < 3 && wanted[i].rows[j]; j++)
			if (strcmp(c->row.cell[0], wanted[i].rows[j]) == 0)
				break;
		if (j == 3 || !wanted[i].rows[j] || !column(c, wanted[i].cols, &v))
			continue;
		metric_add(c->a, c->out, wanted[i].name, wanted[i].unit, v);
		c->any = true;
	}
}

/* Reads dir/name whole; false when absent or empty. */
static bool
slurp(const struct run_report *out, const char *name, struct buf *b)
{
	struct buf p = {0};
	bool ok;

	if (!out->run_dir)
		return false;
	buf_printf(&p, "%s/%s", out->run_dir, name);
	ok = read_file_max(buf_str(&p), b, 64u << 20, "benchmark report") && b->len > 0;
	buf_free(&p);
	return ok;
}

/* CloudAI's parse_aiperf_accuracy: the OVERALL row's Accuracy (a percentage
 * or a fraction), else Correct/Total, else the first row's; 0..1. */
static void
accuracy(struct arena *a, struct run_report *out)
{
	static const char *const files[] = {
		"accuracy_results.csv", "aiperf_accuracy_artifacts/accuracy_results.csv",
		"aiperf_artifacts/accuracy_results.csv",
	};
	struct buf b = {0};
	struct row h = {0}, r = {0};
	size_t f, i, k, n;
	double first = -1, found = -1, v, correct, total;

	for (f = 0; f < LEN(files) && found < 0 && first < 0; f++) {
		b.len = 0;
		if (!slurp(out, files[f], &b))
			continue;
		row_free(&h);
		for (i = 0; i < b.len; i += n + 1) {
			const char *task = NULL, *acc = NULL, *cor = NULL, *tot = NULL;
			n = strcspn(b.data + i, "\n");
			split(b.data + i, n, h.n ? &r : &h);
			if (r.n == 0)
				continue;
			for (k = 0; k < h.n && k < r.n; k++) {
				const char *c = h.cell[k];
				if (!strcmp(c, "Task") || !strcmp(c, "task") || !strcmp(c, "Metric"))
					task = r.cell[k];
				else if (!strcmp(c, "Accuracy") || !strcmp(c, "accuracy") || !strcmp(c, "Value"))
					acc = r.cell[k];
				else if (!strcmp(c, "Correct") || !strcmp(c, "correct"))
					cor = r.cell[k];
				else if (!strcmp(c, "Total") || !strcmp(c, "total"))
					tot = r.cell[k];
			}
			v = -1;
			if (acc && *acc) {
				char t[64];
				size_t m = strlen(acc);
				bool pct = m && acc[m - 1] == '%';
				snprintf(t, sizeof(t), "%.*s", (int)(pct ? m - 1 : m), acc);
				if (number(t, &v))
					v = pct || v > 1 ? v / 100 : v;
				else
					v = -1;
			}
			if (v < 0 && cor && tot && number(cor, &correct) && number(tot, &total) && total != 0)
				v = correct / total;
			if (v < 0)
				continue;
			if (task && strcasecmp(task, "OVERALL") == 0) {
				found = v;
				break;
			}
			if (first < 0)
				first = v;
			row_free(&r);
		}
		row_free(&r);
	}
	if (found >= 0 || first >= 0)
		metric_add(a, out, "accuracy", "fraction", found >= 0 ? found : first);
	row_free(&h);
	row_free(&r);
	free(h.cell);
	free(r.cell);
	buf_free(&b);
}

void
grade_serve(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
            struct run_report *out)
{
	const char *w = grade_arg(r, "workloads"), *name = NULL;
	struct csv c = {.a = a, .out = out};
	struct buf b = {0}, n = {0};
	bool dynamo = out->workload && strcmp(out->workload, "AIDynamo") == 0;

	(void)text, (void)len;
	if (!dynamo)
		name = "benchmark_report.csv";
	else {
		/* the first configured benchmark's report, as CloudAI's _benchmark_csv */
		const char *first = w && strstr(w, "aiperf.sh") && (!strstr(w, "genai_perf.sh") ||
		                    strstr(w, "aiperf.sh") < strstr(w, "genai_perf.sh")) ? "aiperf" : "genai_perf";
		const char *rep;
		buf_printf(&n, "%s.report-name", first);
		if (!(rep = grade_arg(r, buf_str(&n)))) {
			n.len = 0;
			buf_printf(&n, "%s.report_name", first);
			rep = grade_arg(r, buf_str(&n));
		}
		n.len = 0;
		if (rep)
			buf_puts(&n, rep);
		else
			buf_printf(&n, "%s_report.csv", first);
		name = buf_str(&n);
	}
	if (slurp(out, name, &b))
		grade_lines(b.data, b.len, csv_line, &c);
	else if (out->outcome == OUTCOME_PASSED)
		grade_demote(out, OUTCOME_FAILED, arena_printf(a, "success check: no %s", name));
	if (b.len && !c.any && out->outcome == OUTCOME_PASSED)
		grade_demote(out, OUTCOME_FAILED, arena_printf(a, "%s has no metric kunai knows", name));
	if (dynamo && (grade_arg(r, "aiperf_accuracy.cli") || grade_arg(r, "aiperf_accuracy.name")))
		accuracy(a, out);
	row_free(&c.header);
	row_free(&c.row);
	free(c.header.cell);
	free(c.row.cell);
	buf_free(&b);
	buf_free(&n);
}

void
grade_aiconfig(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
               struct run_report *out)
{
	static const struct {
		const char *key, *unit;
	} keys[] = {
		{"ttft_ms", "ms"}, {"tpot_ms", "ms"}, {"tokens_per_s_per_gpu", "tokens/s"},
		{"tokens_per_s_per_user", "tokens/s"},
	};
	struct buf p = {0}, why = {0};
	cJSON *j = NULL;
	const cJSON *v;
	bool absent;
	size_t i, n, k = 0;

	(void)r;
	if (out->run_dir) {
		buf_printf(&p, "%s/report.json", out->run_dir);
		j = json_load(buf_str(&p), &why, &absent);
	}
	/* else the last line of stdout that is a JSON object */
	for (i = len; !j && i > 0; i = n) {
		size_t e = i;
		while (e > 0 && (text[e - 1] == '\n' || text[e - 1] == '\r' || text[e - 1] == ' '))
			e--;
		for (n = e; n > 0 && text[n - 1] != '\n'; n--)
			;
		if (e > n && text[n] == '{' && text[e - 1] == '}') {
			j = cJSON_ParseWithLength(text + n, e - n);
			if (j && !cJSON_IsObject(j)) {
				cJSON_Delete(j);
				j = NULL;
			}
			break;
		}
	}
	for (i = 0; j && i < LEN(keys); i++)
		if ((v = json_item(j, keys[i].key)) && cJSON_IsNumber(v)) {
			metric_add(a, out, keys[i].key, keys[i].unit, v->valuedouble);
			k++;
		}
	if (!k && out->outcome == OUTCOME_PASSED)
		grade_demote(out, OUTCOME_FAILED, "no predictor results (report.json or a JSON line on stdout)");
	cJSON_Delete(j);
	buf_free(&p);
	buf_free(&why);
}

