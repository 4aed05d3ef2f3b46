/* lock.h: one writer at a time per build dir: the .kunai/lock flock and the
 * .kunai/driver record of the live driver (lock.c). */
#ifndef KUNAI_LOCK_H
#define KUNAI_LOCK_H

#include <stdbool.h>

/* The /proc start time of pid (clock ticks since boot), -1 when it is gone;
 * *zombie: it has exited and waits to be reaped; *ppid: its parent. */
long long lock_pid_start(long pid, bool *zombie, long *ppid);
/* Takes BUILD/.kunai/lock, exclusive (gen) or shared (runner, report,
 * export), waiting with a message naming who when another holds it.
 * Returns the descriptor to keep open while the lock is needed; -1 after
 * reporting. */
int lock_take(const char *build_dir, bool exclusive, const char *who);
/* The pid of a live driver of BUILD other than this process and its
 * ancestors (the ninja that regenerates through us); 0 when none. */
long lock_driver_other(const char *build_dir);
/* Records pid (with its /proc start) as BUILD's driver unless another live
 * one is recorded: returns 1 (claimed, or already ours), 0 (*other names
 * the live driver), -1 after reporting an I/O error. */
int lock_driver_claim(const char *build_dir, long pid, long long start, long *other);

#endif
