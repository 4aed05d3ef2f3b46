/* history/export_priv.h: what export.c (writing) and export_open.c (reading)
 * share: the tar block size and gzip(1) as a child process. */
#ifndef KUNAI_EXPORT_PRIV_H
#define KUNAI_EXPORT_PRIV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum { BLOCK = 512 }; /* ustar's block */

/* Writes all n bytes; false on an error. */
bool export_write_all(int fd, const void *p, size_t n);
/* Reads n bytes unless the stream ends first; returns how many it read. */
size_t export_read_full(int fd, void *p, size_t n);
/* Starts gzip (argv) with in and out as its standard input and output,
 * closing close_fd in the child; returns its pid, -1 after reporting. */
pid_t export_spawn_gzip(char *const argv[], int in, int out, int close_fd);
/* Waits for pid; returns its exit status, -1 when it did not exit. */
int export_wait_status(pid_t pid);

#endif
