/* grade/kunai.c: kunai's own programs (workloads/): each process that
 * reports prints one JSON line ("workload", "path", "host", "metrics",
 * "failures", "result"), one per node when a run spans several. Their
 * values get the node of the line that held them, and GEMM's and health's
 * per-GPU values their GPU index and model. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "reports/grade/grade.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

struct scan {
	struct arena *a;
	struct run_report *out;
	bool metrics;        /* add the programs' metrics (not for nccl-format output) */
	size_t lines, bad;   /* JSON result lines read, and unreadable ones */
	struct buf failures; /* "host: why; why" of every line that failed */
	const char *result_line; /* the last "[RESULT] FAILURE: ..." text */
	const char *skipped;     /* why a program skipped */
};

/* "cpu"/"mpi" are CPU paths; "gpu", "nccl", "cuda" GPU ones. */
static const char *
path_class(const char *p)
{
	if (!p)
		return NULL;
	if (!strcmp(p, "cpu") || !strcmp(p, "mpi"))
		return "cpu";
	return "gpu";
}

/* The unit of a metric by its name's ending. */
static const char *
unit_of(const char *name)
{
	static const struct {
		const char *suffix, *unit;
	} units[] = {
		{"_gflops", "GFLOP/s"}, {"_tflops", "TFLOP/s"}, {"_tflops_min", "TFLOP/s"},
		{"_tflops_median", "TFLOP/s"}, {"_spread", "ratio"}, {"busbw", "GB/s"}, {"_bw", "GB/s"},
		{"_bytes", "B"}, {"wrong", "count"}, {"gpus", "count"}, {"xid_lines", "count"},
		{"_loss", "loss"}, {"accuracy", "ratio"}, {"time_s", "s"}, {"steps", "count"},
	};
	size_t i, n = strlen(name), k;

	if (strncmp(name, "loss", 4) == 0)
		return "loss";
	for (i = 0; i < LEN(units); i++) {
		k = strlen(units[i].suffix);
		if (n >= k && strcmp(name + n - k, units[i].suffix) == 0)
			return units[i].unit;
	}
	return "";
}

static struct metric *
add(struct scan *s, const char *host, const char *name, double v)
{
	struct metric *m;
	size_t i;

	/* bisection's JSON repeats what its nccl-tests rows said */
	for (i = 0; i < s->out->n_metrics; i++) {
		const struct metric *o = &s->out->metrics[i];
		const char *node = host ? host : s->out->nodes;
		if (o->x < 0 && o->gpu < 0 && !strcmp(o->name, name) &&
		    (o->node == node || (o->node && node && !strcmp(o->node, node))))
			return NULL;
	}
	m = metric_add(s->a, s->out, arena_strdup(s->a, name), unit_of(name), v);

	if (m && host)
		m->node = host;
	return m;
}

static double
num(const cJSON *o, const char *key, bool *ok)
{
	const cJSON *v = json_item(o, key);

	*ok = cJSON_IsNumber(v);
	return *ok ? v->valuedouble : 0;
}

/* GEMM on GPUs: every GPU's TFLOP/s per precision, with its model. */
static void
gemm_gpus(struct scan *s, const cJSON *o, const char *host)
{
	const cJSON *res = json_item(o, "results"), *models = json_item(o, "gpu_models"), *p, *v, *model;
	struct buf name = {0};
	int d;

	cJSON_ArrayForEach(p, json_children(res, true)) {
		d = 0;
		/* GPU d's model is models' item d: walked beside v, not looked up */
		model = cJSON_IsArray(models) ? models->child : NULL;
		cJSON_ArrayForEach(v, json_children(json_item(p, "tflops_per_gpu"), false)) {
			struct metric *m;
			if (cJSON_IsNumber(v)) {
				name.len = 0;
				buf_printf(&name, "%s_tflops", p->string);
				if ((m = add(s, host, name.data, v->valuedouble))) {
					m->gpu = d;
					m->gpu_model = cJSON_IsString(model) ? arena_strdup(s->a, model->valuestring) : NULL;
				}
			}
			d++;
			model = model ? model->next : NULL;
		}
	}
	buf_free(&name);
}

/* Health: per GPU, the gauges an admin compares across GPUs. */
static void
health_gpus(struct scan *s, const cJSON *o, const char *host)
{
	static const struct {
		const char *field, *name, *unit;
	} gauges[] = {
		{"ecc.errors.uncorrected.volatile.total", "ecc_uncorrected", "count"},
		{"retired_pages.pending", "retired_pages_pending", "count"},
		{"remapped_rows.pending", "remapped_rows_pending", "count"},
		{"temperature.gpu", "temperature", "C"},
		{"power.draw", "power", "W"},
		{"clocks.sm", "sm_clock", "MHz"},
		{"pcie.link.width.current", "pcie_width", "lanes"},
	};
	const cJSON *dev, *v;
	size_t i;
	char *end;
	double d;

	cJSON_ArrayForEach(dev, json_children(json_item(o, "devices"), false)) {
		const char *idx = json_get_str(s->a, dev, "index"), *model = json_get_str(s->a, dev, "name");
		for (i = 0; i < LEN(gauges); i++) {
			struct metric *m;
			v = json_item(dev, gauges[i].field);
			if (cJSON_IsNumber(v))
				d = v->valuedouble;
			else if (cJSON_IsString(v) && v->valuestring[0]) {
				d = strtod(v->valuestring, &end);
				if (*end && *end != ' ')
					continue; /* "[N/A]", "Yes"... */
			} else
				continue;
			m = metric_add(s->a, s->out, gauges[i].name, gauges[i].unit, d);
			if (!m)
				continue;
			m->node = host ? host : m->node;
			m->gpu = idx ? (int)strtol(idx, NULL, 10) : -1;
			m->gpu_model = model;
		}
	}
}

/* Training: the loss of every epoch, a series. */
static void
epochs(struct scan *s, const cJSON *o, const char *host)
{
	const cJSON *v;
	int e = 1;

	cJSON_ArrayForEach(v, json_children(json_item(o, "epoch_loss"), false)) {
		struct metric *m;
		if (cJSON_IsNumber(v) && (m = add(s, host, "epoch_loss", v->valuedouble))) {
			m->x = e;
			m->x_name = "epoch";
		}
		e++;
	}
}

static void
one_line(struct scan *s, const cJSON *o)
{
	const char *wl = json_get_str(s->a, o, "workload"), *host = json_get_str(s->a, o, "host");
	const char *result = json_get_str(s->a, o, "result"), *path = json_get_str(s->a, o, "path");
	static const char *const top[] = {"loss_start", "loss_end", "accuracy", "test_accuracy", "time_s",
	                                  "checksum_spread", "steps"};
	const cJSON *v;
	size_t i, nf = 0;
	bool ok;
	double d;

	s->lines++;
	if (path && !s->out->path)
		s->out->path = path_class(path);
	if (cJSON_IsArray(json_item(o, "failures")))
		nf = (size_t)cJSON_GetArraySize(json_item(o, "failures"));
	if (nf) {
		buf_printf(&s->failures, "%s%s%s", s->failures.len ? "; " : "", host ? host : "", host ? ": " : "");
		i = 0;
		cJSON_ArrayForEach(v, json_item(o, "failures"))
			if (cJSON_IsString(v))
				buf_printf(&s->failures, "%s%s", i++ ? "; " : "", v->valuestring);
	}
	if (result && !strcmp(result, "SKIPPED") && !s->skipped)
		s->skipped = arena_printf(s->a, "%s%s%s", host ? host : "", host ? ": " : "",
		                       json_get_str(s->a, o, "reason") ? json_get_str(s->a, o, "reason") : "skipped");
	if (!s->metrics)
		return;
	if (wl && !strcmp(wl, "gemm") && path && !strcmp(path, "gpu")) {
		gemm_gpus(s, o, host);
	} else if (wl && !strcmp(wl, "gemm")) {
		cJSON_ArrayForEach(v, json_children(json_item(o, "results"), true)) {
			struct metric *m;
			struct buf n = {0};
			buf_printf(&n, "%s_gflops", v->string);
			d = num(v, "gflops", &ok);
			if (ok && (m = add(s, host, n.data, d)))
				m->gpu_model = "cpu";
			buf_free(&n);
		}
	}
	/* the program's own summary metrics (per node) */
	cJSON_ArrayForEach(v, json_children(json_item(o, "metrics"), true)) {
		if (!cJSON_IsNumber(v) || (wl && !strcmp(wl, "gemm") && path && !strcmp(path, "cpu")))
			continue;
		add(s, host, v->string, v->valuedouble);
	}
	for (i = 0; i < LEN(top); i++) {
		d = num(o, top[i], &ok);
		if (ok)
			add(s, host, top[i], d);
	}
	if (wl && !strcmp(wl, "health"))
		health_gpus(s, o, host);
	epochs(s, o, host);
}

static void
line(void *ctx, const char *p, size_t n, int task)
{
	static const char fail[] = "[RESULT] FAILURE: ";
	struct scan *s = ctx;
	cJSON *o;

	(void)task;
	if (n >= sizeof(fail) - 1 && memcmp(p, fail, sizeof(fail) - 1) == 0) {
		s->result_line = arena_strndup(s->a, p + sizeof(fail) - 1, n - (sizeof(fail) - 1));
		return;
	}
	if (n < 2 || p[0] != '{' || !memchr(p, '"', n))
		return;
	o = cJSON_ParseWithLength(p, n);
	if (!cJSON_IsObject(o) || !cJSON_IsString(json_item(o, "workload"))) {
		/* a line cut short when the job was killed, or garbled */
		if (n > 12 && memcmp(p, "{\"workload\":", 12) == 0)
			s->bad++;
	} else
		one_line(s, o);
	cJSON_Delete(o);
}

/* Reads the JSON lines; with metrics, their values too. Sets the run's
 * path, its failure reason (the programs' own words), and SKIPPED. */
void
kunai_scan(struct arena *a, const char *text, size_t len, bool metrics, struct run_report *out)
{
	struct scan s = {a, out, metrics, 0, 0, {0}, NULL, NULL};

	grade_lines(text, len, line, &s);
	if (s.failures.len || s.result_line) {
		const char *why = s.failures.len ? arena_strdup(a, s.failures.data) : s.result_line;
		/* the program said what broke: that beats "exit code 1" */
		if (out->outcome == OUTCOME_FAILED && out->reason && strncmp(out->reason, "success check", 13) != 0)
			out->reason = arena_printf(a, "%s (%s)", why, out->reason);
		else if (out->outcome == OUTCOME_FAILED)
			out->reason = why;
		else
			grade_demote(out, OUTCOME_FAILED, why);
	} else if (s.bad && !s.lines) {
		grade_demote(out, OUTCOME_FAILED, "the JSON result line in stdout.txt is cut short or not JSON");
	} else if (s.skipped && out->outcome == OUTCOME_PASSED) {
		out->outcome = OUTCOME_SKIPPED;
		out->reason = arena_printf(a, "the program skipped: %s", s.skipped);
		out->ran_skipped = true;
	}
	buf_free(&s.failures);
}

/* The grader of kunai's programs (workload.grader "kunai"). */
void
grade_kunai(struct arena *a, const struct plan_run *r, const char *dir, const char *text, size_t len,
            struct run_report *out)
{
	(void)r;
	kunai_scan(a, text, len, true, out);
}
