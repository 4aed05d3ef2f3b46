/* write/junit.h: report/junit.xml (write/junit.c). */
#ifndef KUNAI_JUNIT_H
#define KUNAI_JUNIT_H

struct file_out;
struct plan;
struct summary;

/* Writes the JUnit XML of s through o (one testsuite per test id, in plan
 * order); the runs' stdout/stderr tails are read from root/<dir>/. */
void junit_write(const char *root, const struct plan *p, const struct summary *s, struct file_out *o);

#endif
