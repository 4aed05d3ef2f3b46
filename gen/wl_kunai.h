/* wl_kunai.h: what the entries of kunai's own workloads (gen/wl_kunai_*.c,
 * programs in workloads/) share: where the program is, the MPI launcher on
 * a standalone system, --expect-gpus, flags from the argument schema and
 * the [RESULT] success check. */
#ifndef KUNAI_WL_KUNAI_H
#define KUNAI_WL_KUNAI_H

#include <stdbool.h>

struct buf;
struct run;

/* The schema entries every MPI program has besides its own flags: ranks
 * on a standalone system, the launcher and its arguments. */
#define WL_KUNAI_MPI_ARGS                                                                          \
	{"ranks", ARG_INT, NULL, NULL, false}, {"mpirun", ARG_STRING, "mpirun", NULL, false},          \
	{"mpirun_args", ARG_STRING, "--oversubscribe", NULL, false}

/* Appends the command of kunai workload program `prog` for run r: on a
 * standalone system MPI programs go under `mpirun -np N` (N: cmd_args.ranks,
 * default 2), under Slurm srun starts them (script_slurm.c); then the
 * program, found at run time in $KUNAI_WORKLOADS (exported by `kunai job`),
 * else `kunai --datadir`/workloads, so no absolute path is written; then
 * --expect-gpus and one --flag per set schema argument, then the test's
 * extra_cmd_args. */
void wl_kunai_command(const struct run *r, struct buf *out, const char *prog, bool mpi);
/* Slurm: one rank per GPU (num_nodes x gpus_per_node), else the system's
 * layout (0). */
int wl_kunai_ranks_per_gpu(const struct run *r);
/* Slurm: one task per node, which drives every GPU of the node. */
int wl_kunai_one_per_node(const struct run *r);
bool wl_kunai_mpi(const struct run *r);
bool wl_kunai_no_mpi(const struct run *r);

/* [RESULT] SUCCESS present, [RESULT] FAILURE absent. */
extern const char *const wl_kunai_success[];
extern const char *const wl_kunai_no_failure[];

#endif
