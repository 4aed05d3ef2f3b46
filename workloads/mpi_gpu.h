/* mpi_gpu.h: what the MPI workloads (allreduce, ddp_smoke, bisection) share:
 * ranks and local ranks, flags parsed on every rank, one rank per GPU with
 * the GPU or CPU path agreed by every rank, the NCCL communicator
 * bootstrapped over MPI, failures collected on rank 0, which alone prints
 * the JSON and [RESULT] lines, and the size sweep of the two collective
 * benchmarks (allreduce, bisection). */
#ifndef KUNAI_MPI_GPU_H
#define KUNAI_MPI_GPU_H

#include <stdbool.h>
#include <stddef.h>

struct wl;
struct wl_flag;

struct mpi_env {
	int rank, size, local_rank, local_size;
	char host[256];
	bool gpu;       /* the GPU (NCCL) path; false: MPI on the CPU */
	int dev;        /* this rank's GPU: its local rank */
	char desc[400]; /* "device 0 [0000:18:00.0] NVIDIA H100 80GB HBM3" or "cpu" */
	void *nccl;     /* the communicator, on the GPU path */
};

/* MPI_Init and the ranks; ranks other than 0 make w quiet. */
void mpi_start(struct wl *w, int *argc, char ***argv, struct mpi_env *m);
/* Moves every rank's failures to rank 0 (as "rank R on HOST: why").
 * Returns true on every rank iff no rank had failed. Collective. */
bool mpi_sync(struct wl *w, const struct mpi_env *m);
/* Chooses the path: the CPU when cpu or expect == 0; else one GPU per
 * rank (its local rank), where fewer than expect GPUs on a node (or than
 * its ranks) fails; with expect < 0 the CPU only when no node has a GPU.
 * On the GPU path opens the NCCL communicator with benchmark buffers of
 * max_bytes. Returns false (on every rank) after recording why. Collective. */
bool mpi_choose_path(struct wl *w, struct mpi_env *m, long expect, bool cpu, size_t max_bytes, double timeout_s);
/* Rank 0 prints nccl-tests' "# Using devices" block. Collective. */
void mpi_print_devices(struct wl *w, const struct mpi_env *m);
/* Collects failures, closes NCCL, prints the result on rank 0,
 * MPI_Finalize; returns the exit status, the same on every rank. */
int mpi_finish(struct wl *w, struct mpi_env *m);
/* wl_parse on every rank (rank 0 alone prints). Returns true to go on;
 * false after --help or a usage error, with MPI finalized and *rc the exit
 * status (0 or 2). */
bool mpi_parse(struct wl *w, int argc, char **argv, const struct wl_flag *flags, size_t n, const char *usage,
               int *rc);

/* What allreduce and bisection share: sizes from -b to -e by -f, each with
 * -w untimed then -n timed operations and a check (-c), on the path that
 * --expect-gpus and --cpu choose. */
struct mpi_sweep {
	size_t minbytes, maxbytes;
	long factor, iters, warmup, check, expect;
	double floor, timeout; /* floor: the program's GB/s floor flag, 0: none */
	bool force_wrong, cpu;
};
/* mpi_parse of the sweep's flags and floor_flag ("--min-busbw X"); a
 * --minbytes above --maxbytes is a usage error. */
bool mpi_sweep_parse(struct wl *w, int argc, char **argv, struct mpi_sweep *o, const char *floor_flag,
                     const char *usage, int *rc);
/* mpi_choose_path for the largest size, then on the CPU path *send and
 * *recv of --maxbytes (free them). Returns false (on every rank) after
 * recording why. Collective. */
bool mpi_sweep_path(struct wl *w, struct mpi_env *m, const struct mpi_sweep *o, float **send, float **recv);

#endif
