/* wl_nixl.h: what the NIXL workloads (wl_nixl_*.c) share: an etcd server
 * on the first node for their rendezvous, started and waited for before
 * the benchmark's sruns and stopped after, and their variables. */
#ifndef KUNAI_WL_NIXL_H
#define KUNAI_WL_NIXL_H

#include <stdbool.h>

#include "workload.h"

struct buf;
struct run;
struct wl_srun;

/* The images a NIXL workload needs: the benchmark's and etcd's. */
extern const struct installable nixl_installables[2];

/* Appends a blank line and the exports of NIXL_ETCD_NAMESPACE (a fresh one per job) and
 * NIXL_ETCD_ENDPOINTS (the first node's etcd), for script_prologue. */
void nixl_prologue(const struct run *r, struct buf *out);
/* Appends the etcd srun (cmd_args etcd_path, in etcd_image_url's image if
 * set), its pid and the wait until it answers (wait_etcd_for seconds). */
void nixl_etcd_start(const struct run *r, const struct wl_srun *s, struct buf *out);
/* Appends the lines that stop etcd after the benchmark, keeping the
 * benchmark's status as the run's: "KUNAI_TEST_RC=$?" first. */
void nixl_etcd_stop(struct buf *out);
/* Appends etcd's start, the benchmark's sruns as CloudAI places them
 * (backend UCX: once per node, twice on one node; else once on the first
 * node), each but the last in the background 15 s before the next, and
 * etcd's stop. */
void nixl_body(const struct run *r, const struct wl_srun *s, const char *backend, struct buf *out);
/* Appends the srun of r's command on one node (1-based index, 0: the
 * first node by name), one task, overlapping etcd's step. */
void nixl_srun_on(const struct run *r, const struct wl_srun *s, int node, struct buf *out);

/* nixl_body with the run's cmd_args backend, as a script_sruns hook. */
void nixl_backend_body(const struct run *r, const struct wl_srun *s, struct buf *out);
/* Appends total_buffer_size's bytes ("8gb" -> 8589934592, as CloudAI
 * passes it) and returns true; false, appending nothing, for other text. */
bool nixl_bytes(struct buf *out, const char *v);
/* Whether key is one of the NULL-terminated keys (a launcher's own, which
 * the command line does not pass on). */
bool nixl_own(const char *key, const char *const *keys);

/* What nixlbench's table (CloudAI: Block Size (B), Batch Size, ... B/W
 * (GB/Sec)) must hold: the all_of of NIXLBench and NIXLKVBench. */
extern const char *const nixl_table[2];

/* What a member's struct workload holds besides its name, args, command,
 * grader and script hooks. */
#define NIXL_WORKLOAD \
	.extra_args_ok = true, .schedulers = WL_SLURM, .container = true, .installables = nixl_installables, \
	.n_installables = 2

#endif
