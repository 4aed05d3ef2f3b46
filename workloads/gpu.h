/* gpu.h: the seam between the workloads' C code and their GPU paths. Each
 * group of functions is defined twice: in a *_cuda.cu file (CUDA, cuBLAS,
 * NCCL) and in a *_nocuda.c twin that reports "built without ..."; the
 * Makefile links one of the two as configure found the toolkit (muon's
 * *_null.c seam); the *_cuda.cu files check their calls with gpu_check.h. Every function that can fail returns false (or NULL, or
 * a negative count) and writes a one-line reason into why[0..n). */
#ifndef KUNAI_GPU_H
#define KUNAI_GPU_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- gpu_cuda.cu / gpu_nocuda.c: devices ---------------------------------- */

/* Returns the number of CUDA devices; 0 with why when there is none or
 * none can be used (no driver: the runtime's "driver version is
 * insufficient" counts as no device). */
int gpu_count(char *why, size_t n);
/* Makes dev the current device of this thread. */
bool gpu_select(int dev, char *why, size_t n);
/* Name ("NVIDIA H100 80GB HBM3"), compute capability, memory in GiB and
 * PCI bus id ("0000:18:00.0") of dev. */
bool gpu_info(int dev, char *name, size_t name_n, int *cc_major, int *cc_minor, double *mem_gib,
              char *bus, size_t bus_n, char *why, size_t n);

/* ---- gemm_cuda.cu / gemm_nocuda.c: cuBLAS GEMM ----------------------------- */

enum gemm_prec { GEMM_FP64, GEMM_FP32, GEMM_TF32, GEMM_BF16, GEMM_FP16, GEMM_NPREC };

struct gemm_job {
	int dev;
	enum gemm_prec prec;
	int m, n, k;
	int warmup, iters, reps;
	bool force_wrong; /* corrupt one element of C before the check (test hook) */
};

/* Times reps repetitions of iters back-to-back GEMMs C = A.B of the
 * structured inputs (gemm_pattern.h) on j->dev and checks every element of
 * C. tflops[0..reps) get each repetition's TFLOP/s, *wrong the number of
 * elements off the exact product. */
bool gemm_gpu_run(const struct gemm_job *j, double *tflops, long *wrong, char *why, size_t n);

/* ---- nccl_cuda.cu / nccl_nocuda.c: NCCL collectives --------------------------- */

/* The bytes of an ncclUniqueId (what rank 0 broadcasts over MPI); 0 when
 * built without NCCL. */
size_t nccl_id_size(void);
/* Rank 0: a new unique id into id (nccl_id_size() bytes). */
bool nccl_get_id(void *id, char *why, size_t n);
/* A communicator of rank `rank` among nranks on device dev, with its own
 * stream and buffers of max_bytes for the benchmarks (0: none). An
 * operation that has not finished after timeout_s seconds aborts the
 * communicator and fails, so a hang becomes a failure. */
void *nccl_open(const void *id, int nranks, int rank, int dev, size_t max_bytes, double timeout_s, char *why,
                size_t n);
void nccl_close(void *c);

/* Sum all-reduce of count floats in device memory (in place when
 * send == recv), synchronously; for data-parallel gradients. */
bool nccl_allreduce(void *c, const float *send, float *recv, size_t count, char *why, size_t n);

/* Benchmark buffers. The fill is send[i] = (rank + 1) * (i % 7 + 1), so the
 * sum over n ranks is (i % 7 + 1) * n(n+1)/2, exact in float. */
/* Resets the input (send, or recv when in place) for count floats. */
bool nccl_bench_fill(void *c, size_t count, bool inplace, char *why, size_t n);
/* Runs warmup untimed then iters timed all-reduces; *sec per operation. */
bool nccl_bench_allreduce(void *c, size_t count, bool inplace, int warmup, int iters, double *sec, char *why,
                          size_t n);
/* The test hook: adds 1 to recv[index]. */
bool nccl_bench_corrupt(void *c, size_t index, char *why, size_t n);
/* Elements of the result (recv) off the expected sum over nranks; -1 on error. */
long nccl_bench_check_sum(void *c, size_t count, int nranks, char *why, size_t n);
/* Send count floats to peer and receive as many from it at once (grouped
 * ncclSend/ncclRecv), warmup untimed then iters timed; *sec per exchange. */
bool nccl_bench_exchange(void *c, size_t count, int peer, int warmup, int iters, double *sec, char *why,
                         size_t n);
/* Elements of recv off what peer sent (its fill); -1 on error. */
long nccl_bench_check_peer(void *c, size_t count, int peer, char *why, size_t n);

#ifdef __cplusplus
}
#endif

#endif
