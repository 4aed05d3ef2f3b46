/* nccl_nocuda.c: the NCCL functions of gpu.h for a build without CUDA or
 * NCCL: the GPU path reports why it cannot run; the MPI path is unaffected. */
#include <stdio.h>

#include "gpu.h"

static const char why_text[] = "kunai's workloads were built without NCCL (configure found none)";

size_t
nccl_id_size(void)
{
	return 0;
}

bool
nccl_get_id(void *id, char *why, size_t n)
{
	(void)id;
	snprintf(why, n, "%s", why_text);
	return false;
}

void *
nccl_open(const void *id, int nranks, int rank, int dev, size_t max_bytes, double timeout_s, char *why, size_t n)
{
	(void)id, (void)nranks, (void)rank, (void)dev, (void)max_bytes, (void)timeout_s;
	snprintf(why, n, "%s", why_text);
	return NULL;
}

void
nccl_close(void *c)
{
	(void)c;
}

/* The rest is never reached: nccl_open fails first. */
bool
nccl_allreduce(void *c, const float *send, float *recv, size_t count, char *why, size_t n)
{
	(void)c, (void)send, (void)recv, (void)count;
	snprintf(why, n, "%s", why_text);
	return false;
}

bool
nccl_bench_fill(void *c, size_t count, bool inplace, char *why, size_t n)
{
	(void)c, (void)count, (void)inplace;
	snprintf(why, n, "%s", why_text);
	return false;
}

bool
nccl_bench_allreduce(void *c, size_t count, bool inplace, int warmup, int iters, double *sec, char *why, size_t n)
{
	(void)c, (void)count, (void)inplace, (void)warmup, (void)iters, (void)sec;
	snprintf(why, n, "%s", why_text);
	return false;
}

bool
nccl_bench_corrupt(void *c, size_t index, char *why, size_t n)
{
	(void)c, (void)index;
	snprintf(why, n, "%s", why_text);
	return false;
}

long
nccl_bench_check_sum(void *c, size_t count, int nranks, char *why, size_t n)
{
	(void)c, (void)count, (void)nranks;
	snprintf(why, n, "%s", why_text);
	return -1;
}

bool
nccl_bench_exchange(void *c, size_t count, int peer, int warmup, int iters, double *sec, char *why, size_t n)
{
	(void)c, (void)count, (void)peer, (void)warmup, (void)iters, (void)sec;
	snprintf(why, n, "%s", why_text);
	return false;
}

long
nccl_bench_check_peer(void *c, size_t count, int peer, char *why, size_t n)
{
	(void)c, (void)count, (void)peer;
	snprintf(why, n, "%s", why_text);
	return -1;
}
