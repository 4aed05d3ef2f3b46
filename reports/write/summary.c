/* write/summary.c: report/summary.json (see summary.h): the campaign's
 * status, counts and duration, the fleet verdict, then every run's report
 * without its series, written one run at a time; and read back, for
 * compare, status, the overlays and kunai run. */
#define _POSIX_C_SOURCE 200809L
#include <string.h>

#include <cjson/cJSON.h>

#include "reports/results/results.h"
#include "reports/results/campaign.h"
#include "reports/results/report_json.h"
#include "reports/fleet/json.h"
#include "reports/write/summary.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

/* Writes summary.json through o one run at a time: the head printed with
 * an empty runs list, which each run's object (indented as cJSON_Print
 * nests it) then fills. */
void
json_write_summary(const struct summary *s, struct file_out *o)
{
	cJSON *h = cJSON_CreateObject(), *counts;
	double total = 0;
	struct buf one = {0};
	size_t i, j, k;

	cJSON_AddStringToObject(h, "scenario", s->scenario ? s->scenario : "");
	json_add_str_or_null(h, "system", s->system);
	/* the one status every view shows (DESIGN 18) */
	cJSON_AddStringToObject(h, "status", campaign_name(campaign_status(s)));
	cJSON_AddNumberToObject(h, "total", (double)s->n_runs);
	counts = cJSON_AddObjectToObject(h, "counts");
	for (i = 0; i < OUTCOME_COUNT; i++)
		cJSON_AddNumberToObject(counts, outcome_name((enum outcome)i), (double)s->counts[i]);
	for (i = 0; i < s->n_runs; i++)
		if (s->runs[i].duration_s > 0)
			total += s->runs[i].duration_s;
	cJSON_AddNumberToObject(h, "duration_s", total);
	json_add_str_or_null(h, "note", s->note);
	if (s->fleet)
		fleet_json_add(h, s);
	cJSON_AddArrayToObject(h, "runs");
	json_print(h, &o->b);
	if (!s->n_runs)
		return;
	o->b.len -= strlen("]\n}\n");
	for (i = 0; i < s->n_runs; i++) {
		one.len = 0;
		json_print(report_json(&s->runs[i], false), &one);
		buf_puts(&o->b, i ? ", " : "");
		for (j = 0, k = 0; j + 1 < one.len; j++)
			if (one.data[j] == '\n') {
				buf_push(&o->b, one.data + k, j + 1 - k);
				buf_puts(&o->b, "\t\t");
				k = j + 1;
			}
		buf_push(&o->b, one.data + k, one.len - 1 - k);
		file_out_flush(o, false);
	}
	buf_free(&one);
	buf_puts(&o->b, "]\n}\n");
}

bool
json_load_summary(struct arena *a, const char *path, struct summary *s)
{
	struct buf why = {0};
	const cJSON *runs, *r;
	cJSON *root;
	size_t i = 0;
	bool absent, ok = true;

	memset(s, 0, sizeof(*s));
	root = json_load(path, &why, &absent);
	if (!root) {
		warn("%s: %s", path, buf_str(&why));
		buf_free(&why);
		return false;
	}
	s->scenario = json_get_str(a, root, "scenario");
	s->system = json_get_str(a, root, "system");
	s->note = json_get_str(a, root, "note");
	fleet_json_load(a, root, s);
	runs = json_item(root, "runs");
	s->runs = arena_alloc(a, ((size_t)cJSON_GetArraySize(runs) + 1) * sizeof(*s->runs));
	cJSON_ArrayForEach(r, json_children(runs, false)) {
		why.len = 0;
		if (!report_from_json(a, r, &s->runs[i], &why)) {
			warn("%s: runs[%zu]: %s", path, i, buf_str(&why));
			ok = false;
			break;
		}
		s->counts[s->runs[i].outcome]++;
		i++;
	}
	s->n_runs = i;
	if (ok && !cJSON_IsArray(runs)) {
		warn("%s: no runs list", path);
		ok = false;
	}
	cJSON_Delete(root);
	buf_free(&why);
	return ok;
}
