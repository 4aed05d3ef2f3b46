/* nccl_cuda.cu: the NCCL collectives of gpu.h: a communicator per rank
 * (bootstrapped by the caller over MPI), the data-parallel all-reduce, and
 * the benchmark kernels and loops of allreduce and bisection. Every wait
 * polls the stream and ncclCommGetAsyncError against a deadline, so a peer
 * that died or a broken fabric gives a failure, not a hang. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime.h>
#include <nccl.h>

#include "gpu.h"
#include "gpu_check.h"

struct nc {
	ncclComm_t comm;
	cudaStream_t st;
	cudaEvent_t e0, e1;
	float *send, *recv;
	int rank, nranks;
	double timeout;
};

#define CK(call) CUDA_CHECK(#call, call, return false)
#define NK(call) NCCL_CHECK(#call, call, return false)

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Waits for the stream; aborts the communicator on an asynchronous NCCL
 * error or at the deadline. */
static bool
wait(struct nc *c, char *why, size_t n)
{
	double deadline = now() + c->timeout;
	struct timespec pause = {0, 20000};
	ncclResult_t ar;
	cudaError_t e;

	for (;;) {
		e = cudaStreamQuery(c->st);
		if (e == cudaSuccess)
			return true;
		if (e != cudaErrorNotReady) {
			snprintf(why, n, "CUDA stream: %s", cudaGetErrorString(e));
			return false;
		}
		if (ncclCommGetAsyncError(c->comm, &ar) == ncclSuccess && ar != ncclSuccess && ar != ncclInProgress) {
			snprintf(why, n, "NCCL: %s", ncclGetErrorString(ar));
			ncclCommAbort(c->comm);
			c->comm = NULL;
			return false;
		}
		if (now() > deadline) {
			snprintf(why, n, "NCCL operation still running after %g s (a peer died or the fabric is stuck); "
			         "communicator aborted", c->timeout);
			ncclCommAbort(c->comm);
			c->comm = NULL;
			return false;
		}
		nanosleep(&pause, NULL);
	}
}

extern "C" size_t
nccl_id_size(void)
{
	return sizeof(ncclUniqueId);
}

extern "C" bool
nccl_get_id(void *id, char *why, size_t n)
{
	NK(ncclGetUniqueId((ncclUniqueId *)id));
	return true;
}

extern "C" void
nccl_close(void *cc)
{
	struct nc *c = (struct nc *)cc;

	if (!c)
		return;
	if (c->comm)
		ncclCommDestroy(c->comm);
	cudaFree(c->send);
	cudaFree(c->recv);
	if (c->e0)
		cudaEventDestroy(c->e0);
	if (c->e1)
		cudaEventDestroy(c->e1);
	if (c->st)
		cudaStreamDestroy(c->st);
	free(c);
}

static bool
open_comm(struct nc *c, const void *id, int dev, size_t max_bytes, char *why, size_t n)
{
	ncclUniqueId uid;

	memcpy(&uid, id, sizeof(uid));
	/* the device first: NCCL and the stream belong to it */
	CK(cudaSetDevice(dev));
	CK(cudaStreamCreateWithFlags(&c->st, cudaStreamNonBlocking));
	CK(cudaEventCreate(&c->e0));
	CK(cudaEventCreate(&c->e1));
	if (max_bytes) {
		CK(cudaMalloc(&c->send, max_bytes));
		CK(cudaMalloc(&c->recv, max_bytes));
	}
	NK(ncclCommInitRank(&c->comm, c->nranks, uid, c->rank));
	return true;
}

extern "C" void *
nccl_open(const void *id, int nranks, int rank, int dev, size_t max_bytes, double timeout_s, char *why, size_t n)
{
	struct nc *c = (struct nc *)calloc(1, sizeof(*c));

	if (!c) {
		snprintf(why, n, "out of memory");
		return NULL;
	}
	c->rank = rank;
	c->nranks = nranks;
	c->timeout = timeout_s > 0 ? timeout_s : 600;
	if (!open_comm(c, id, dev, max_bytes, why, n)) {
		nccl_close(c);
		return NULL;
	}
	return c;
}

extern "C" bool
nccl_allreduce(void *cc, const float *send, float *recv, size_t count, char *why, size_t n)
{
	struct nc *c = (struct nc *)cc;

	NK(ncclAllReduce(send, recv, count, ncclFloat, ncclSum, c->comm, c->st));
	return wait(c, why, n);
}

static int
grid(size_t count)
{
	size_t b = (count + 255) / 256;

	return (int)(b < 1 ? 1 : b > 4096 ? 4096 : b);
}

/* f(rank, i) = (rank + 1) * (i % 7 + 1): small exact integers */
__global__ void
fill(float *a, size_t count, int rank)
{
	size_t i;

	for (i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)blockDim.x * gridDim.x)
		a[i] = (float)((rank + 1) * (int)(i % 7 + 1));
}

__global__ void
set(float *a, size_t count, float v)
{
	size_t i;

	for (i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)blockDim.x * gridDim.x)
		a[i] = v;
}

/* mul == 0: expect f(peer, i) = (peer + 1) * (i % 7 + 1); else (i % 7 + 1) * mul */
__global__ void
count_wrong(const float *a, size_t count, float mul, unsigned long long *wrong)
{
	unsigned long long bad = 0;
	size_t i;

	for (i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += (size_t)blockDim.x * gridDim.x)
		bad += a[i] != (float)(i % 7 + 1) * mul;
	if (bad)
		atomicAdd(wrong, bad);
}

extern "C" bool
nccl_bench_fill(void *cc, size_t count, bool inplace, char *why, size_t n)
{
	struct nc *c = (struct nc *)cc;

	if (inplace)
		fill<<<grid(count), 256, 0, c->st>>>(c->recv, count, c->rank);
	else {
		fill<<<grid(count), 256, 0, c->st>>>(c->send, count, c->rank);
		/* a result that never arrives must not look right */
		set<<<grid(count), 256, 0, c->st>>>(c->recv, count, -1.0f);
	}
	CK(cudaGetLastError());
	return wait(c, why, n);
}

extern "C" bool
nccl_bench_allreduce(void *cc, size_t count, bool inplace, int warmup, int iters, double *sec, char *why, size_t n)
{
	struct nc *c = (struct nc *)cc;
	const float *src = inplace ? c->recv : c->send;
	float ms = 0;
	int i;

	for (i = 0; i < warmup; i++)
		NK(ncclAllReduce(src, c->recv, count, ncclFloat, ncclSum, c->comm, c->st));
	if (!wait(c, why, n))
		return false;
	if (iters <= 0)
		return true;
	CK(cudaEventRecord(c->e0, c->st));
	for (i = 0; i < iters; i++)
		NK(ncclAllReduce(src, c->recv, count, ncclFloat, ncclSum, c->comm, c->st));
	CK(cudaEventRecord(c->e1, c->st));
	if (!wait(c, why, n))
		return false;
	CK(cudaEventElapsedTime(&ms, c->e0, c->e1));
	*sec = (double)ms * 1e-3 / iters;
	return true;
}

__global__ void
add_one(float *a, size_t at)
{
	a[at] += 1;
}

extern "C" bool
nccl_bench_corrupt(void *cc, size_t index, char *why, size_t n)
{
	struct nc *c = (struct nc *)cc;

	add_one<<<1, 1, 0, c->st>>>(c->recv, index);
	CK(cudaGetLastError());
	return wait(c, why, n);
}

static long
check(struct nc *c, size_t count, float mul, char *why, size_t n)
{
	unsigned long long *d = NULL, h = 0;
	cudaError_t e;

	if ((e = cudaMalloc(&d, sizeof(*d))) != cudaSuccess ||
	    (e = cudaMemsetAsync(d, 0, sizeof(*d), c->st)) != cudaSuccess) {
		snprintf(why, n, "check: %s", cudaGetErrorString(e));
		cudaFree(d);
		return -1;
	}
	count_wrong<<<grid(count), 256, 0, c->st>>>(c->recv, count, mul, d);
	if ((e = cudaGetLastError()) != cudaSuccess ||
	    (e = cudaMemcpyAsync(&h, d, sizeof(h), cudaMemcpyDeviceToHost, c->st)) != cudaSuccess) {
		snprintf(why, n, "check: %s", cudaGetErrorString(e));
		cudaFree(d);
		return -1;
	}
	if (!wait(c, why, n)) {
		cudaFree(d);
		return -1;
	}
	cudaFree(d);
	return (long)h;
}

extern "C" long
nccl_bench_check_sum(void *cc, size_t count, int nranks, char *why, size_t n)
{
	return check((struct nc *)cc, count, (float)nranks * (float)(nranks + 1) / 2, why, n);
}

extern "C" bool
nccl_bench_exchange(void *cc, size_t count, int peer, int warmup, int iters, double *sec, char *why, size_t n)
{
	struct nc *c = (struct nc *)cc;
	float ms = 0;
	int i;

	for (i = 0; i < warmup + iters; i++) {
		if (i == warmup) {
			if (!wait(c, why, n))
				return false;
			if (iters <= 0)
				return true;
			CK(cudaEventRecord(c->e0, c->st));
		}
		NK(ncclGroupStart());
		NK(ncclSend(c->send, count, ncclFloat, peer, c->comm, c->st));
		NK(ncclRecv(c->recv, count, ncclFloat, peer, c->comm, c->st));
		NK(ncclGroupEnd());
	}
	if (iters <= 0)
		return wait(c, why, n);
	CK(cudaEventRecord(c->e1, c->st));
	if (!wait(c, why, n))
		return false;
	CK(cudaEventElapsedTime(&ms, c->e0, c->e1));
	*sec = (double)ms * 1e-3 / iters;
	return true;
}

extern "C" long
nccl_bench_check_peer(void *cc, size_t count, int peer, char *why, size_t n)
{
	return check((struct nc *)cc, count, (float)(peer + 1), why, n);
}
