/* results/format.h: numbers and text as the reports show them, in one
 * place: integers exactly (4294967296, never 4.2949673e+09), sizes in
 * binary units, counts bare, ratios as percentages, sub-second times with
 * their hundredths; text escaped for XML, and the tail of a run's log. */
#ifndef KUNAI_FORMAT_H
#define KUNAI_FORMAT_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

/* An integral value below 2^53 in full, else 4 significant digits: for
 * people. */
void fmt_num(struct buf *b, double v);
/* An integral value below 2^53 in full, else 9 significant digits: for
 * files a program reads back (CSV, plot data). */
void fmt_data(struct buf *b, double v);
/* Bytes in binary units: "256 KiB", "8 GiB", "1.5 MiB", "100 B". */
void fmt_bytes(struct buf *b, double v);
/* Seconds: "0.39 s" below 10 s, "12.3 s" above. */
void fmt_seconds(struct buf *b, double s);
/* A run's duration s with the precision of its records start and end (ISO
 * 8601): whole seconds when neither has a fraction ("4 s", "< 1 s"), else
 * as fmt_seconds. */
void fmt_duration(struct buf *b, double s, const char *start, const char *end);
/* A fraction as a percentage: "38%", "0.5%" below 1%. */
void fmt_percent(struct buf *b, double frac);
/* v in its unit as a person reads it: bytes ("B") in binary units, a count
 * bare, a ratio as a percentage, seconds by fmt_seconds, anything else as
 * fmt_num and the unit ("470 GB/s"). unit may be NULL. */
void fmt_value(struct buf *b, double v, const char *unit);
/* Appends s escaped for XML text (attr false) or a "..." attribute value:
 * markup characters as entities, control characters other than tab and
 * newline dropped (those two as character references in attributes), and
 * bytes that are not UTF-8 as U+FFFD, so that any input gives valid XML. */
void xml_escape(struct buf *out, const char *s, size_t len, bool attr);
/* Appends the last n lines of the file at path (at most max bytes of them);
 * appends nothing when it cannot be read. */
void tail_lines(const char *path, size_t n, size_t max, struct buf *out);

#endif
