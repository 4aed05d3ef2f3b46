/* write/summary.h: report/summary.json, written and read back
 * (write/summary.c). */
#ifndef KUNAI_WRITE_SUMMARY_H
#define KUNAI_WRITE_SUMMARY_H

#include <stdbool.h>

struct arena;
struct file_out;
struct summary;

/* Appends s as summary.json text. */
void json_write_summary(const struct summary *s, struct file_out *o);
/* Reads summary.json back. Returns false after reporting. */
bool json_load_summary(struct arena *a, const char *path, struct summary *s);

#endif
