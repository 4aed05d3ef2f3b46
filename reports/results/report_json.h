/* results/report_json.h: a run's report.json, read and written
 * (results/report_json.c). */
#ifndef KUNAI_REPORT_JSON_H
#define KUNAI_REPORT_JSON_H

#include <stdbool.h>

struct arena;
struct buf;
struct cJSON;
struct plan_ref;
struct run_report;

/* Reads a report.json. Returns false when absent or invalid (why in why). */
bool json_load_report(struct arena *a, const char *path, struct run_report *r, struct buf *why);
/* json_load_report, or (series false) all of it but the values that are
 * one point of a series, whose text is then not even parsed. */
bool json_load_values(struct arena *a, const char *path, struct run_report *r, struct buf *why, bool series);
/* Appends r as report.json text. */
void json_write_report(const struct run_report *r, struct buf *out);
/* r as report.json's object (series false: without the values that are
 * one point of a series, as summary.json holds a run); the caller frees it. */
struct cJSON *report_json(const struct run_report *r, bool series);
/* Reads one run's report from o (report.json, or a run of summary.json).
 * Returns false when it is not one (why in why). */
bool report_from_json(struct arena *a, const struct cJSON *o, struct run_report *r, struct buf *why);
/* A reference's tolerance as kunai.json and report.json write it: a
 * number, or "inf"/"-inf". Returns false when v is neither. */
bool json_tolerance(const struct cJSON *v, double *d);
/* The size range ({"min_size": ..., "max_size": ...}, bytes or a TOML size
 * string) of a ranged reference: sets f->sized when either is there. */
void json_load_range(const struct cJSON *o, struct plan_ref *f);
/* Adds key: v to o, or key: null when v is NULL. */
void json_add_str_or_null(struct cJSON *o, const char *key, const char *v);

#endif
