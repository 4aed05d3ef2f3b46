/* results/report_json.h: a run's report.json, read and written
 * (results/report_json.c). */
#ifndef KUNAI_REPORT_JSON_H
#define KUNAI_REPORT_JSON_H

#include <stdbool.h>

struct arena;
struct buf;
struct run_report;

/* Reads a report.json. Returns false when absent or invalid (why in why). */
bool json_load_report(struct arena *a, const char *path, struct run_report *r, struct buf *why);
/* json_load_report, or (series false) all of it but the values that are
 * one point of a series, whose text is then not even parsed. */
bool json_load_values(struct arena *a, const char *path, struct run_report *r, struct buf *why, bool series);
/* Appends r as report.json text. */
void json_write_report(const struct run_report *r, struct buf *out);

#endif
