/* gemm_cuda.cu: gemm's GPU path. cuBLAS GEMMs on device-filled structured
 * inputs (gemm_pattern.h: no host RNG, no copies in the timed region),
 * timed with CUDA events around back-to-back calls on one stream; then a
 * kernel checks every element of C against the closed-form product. */
#include <math.h>
#include <stdio.h>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "gemm_pattern.h"
#include "gpu.h"
#include "gpu_check.h"

/* Conversions from the pattern's small integers, exact in every type. */
template <typename T> __device__ T from_int(int v);
template <> __device__ double from_int<double>(int v) { return (double)v; }
template <> __device__ float from_int<float>(int v) { return (float)v; }
template <> __device__ __nv_bfloat16 from_int<__nv_bfloat16>(int v) { return __float2bfloat16((float)v); }
template <> __device__ __half from_int<__half>(int v) { return __float2half((float)v); }

template <typename T> __device__ double to_double(T v);
template <> __device__ double to_double<double>(double v) { return v; }
template <> __device__ double to_double<float>(float v) { return (double)v; }
template <> __device__ double to_double<__nv_bfloat16>(__nv_bfloat16 v) { return (double)__bfloat162float(v); }
template <> __device__ double to_double<__half>(__half v) { return (double)__half2float(v); }

/* Column-major A (m x k) and B (k x n), as cuBLAS reads them. */
template <typename T>
__global__ void
fill_ab(T *a, T *b, long m, long n, long k)
{
	long s = (long)blockDim.x * gridDim.x, t = (long)blockIdx.x * blockDim.x + threadIdx.x, x;

	for (x = t; x < m * k; x += s)
		a[x] = from_int<T>(gemm_pa(x % m) + gemm_pc(x / m));
	for (x = t; x < k * n; x += s)
		b[x] = from_int<T>(gemm_pd(x % k) + gemm_pe(x / k));
}

template <typename T>
__global__ void
check(const T *c, long m, long n, struct gemm_sums s, double unit, unsigned long long *wrong)
{
	long st = (long)blockDim.x * gridDim.x, x;
	unsigned long long bad = 0;

	for (x = (long)blockIdx.x * blockDim.x + threadIdx.x; x < m * n; x += st) {
		double e = gemm_exact(&s, x % m, x / m), v = to_double<T>(c[x]);
		bad += !(fabs(v - e) <= 2 * unit * fabs(e) + 1e-9);
	}
	if (bad)
		atomicAdd(wrong, bad);
}

/* The test hook: one element of C off by one. */
template <typename T>
__global__ void
bump(T *c, long at)
{
	c[at] = (T)(to_double<T>(c[at]) + 1.0);
}

template <> __global__ void
bump<__nv_bfloat16>(__nv_bfloat16 *c, long at)
{
	c[at] = __float2bfloat16(__bfloat162float(c[at]) + 1.0f);
}

template <> __global__ void
bump<__half>(__half *c, long at)
{
	c[at] = __float2half(__half2float(c[at]) + 1.0f);
}

struct prec {
	cudaDataType_t ab, c;
	cublasComputeType_t compute;
	size_t ab_size, c_size;
	double unit; /* unit roundoff of C's type */
	bool dbl_scale;
};

static const struct prec precs[GEMM_NPREC] = {
	{CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, 8, 8, 0x1p-53, true},
	{CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 4, 4, 0x1p-24, false},
	{CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, 4, 4, 0x1p-24, false},
	{CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, 2, 2, 0x1p-8, false},
	{CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F, 2, 2, 0x1p-11, false},
};

#define CUDA_OK(call) CUDA_CHECK(#call, call, goto out)
#define BLAS_OK(call) CUBLAS_CHECK(#call, call, goto out)

static void
launch_fill(enum gemm_prec p, void *a, void *b, long m, long nn, long k, cudaStream_t st)
{
	switch (p) {
	case GEMM_FP64: fill_ab<double><<<4096, 256, 0, st>>>((double *)a, (double *)b, m, nn, k); break;
	case GEMM_FP32:
	case GEMM_TF32: fill_ab<float><<<4096, 256, 0, st>>>((float *)a, (float *)b, m, nn, k); break;
	case GEMM_BF16:
		fill_ab<__nv_bfloat16><<<4096, 256, 0, st>>>((__nv_bfloat16 *)a, (__nv_bfloat16 *)b, m, nn, k);
		break;
	default: fill_ab<__half><<<4096, 256, 0, st>>>((__half *)a, (__half *)b, m, nn, k); break;
	}
}

static void
launch_check(enum gemm_prec p, const void *c, long m, long nn, const struct gemm_sums &s,
             unsigned long long *wrong, cudaStream_t st)
{
	double u = precs[p].unit;

	switch (p) {
	case GEMM_FP64: check<double><<<4096, 256, 0, st>>>((const double *)c, m, nn, s, u, wrong); break;
	case GEMM_FP32:
	case GEMM_TF32: check<float><<<4096, 256, 0, st>>>((const float *)c, m, nn, s, u, wrong); break;
	case GEMM_BF16:
		check<__nv_bfloat16><<<4096, 256, 0, st>>>((const __nv_bfloat16 *)c, m, nn, s, u, wrong);
		break;
	default: check<__half><<<4096, 256, 0, st>>>((const __half *)c, m, nn, s, u, wrong); break;
	}
}

static void
launch_bump(enum gemm_prec p, void *c, long at, cudaStream_t st)
{
	switch (p) {
	case GEMM_FP64: bump<double><<<1, 1, 0, st>>>((double *)c, at); break;
	case GEMM_FP32:
	case GEMM_TF32: bump<float><<<1, 1, 0, st>>>((float *)c, at); break;
	case GEMM_BF16: bump<__nv_bfloat16><<<1, 1, 0, st>>>((__nv_bfloat16 *)c, at); break;
	default: bump<__half><<<1, 1, 0, st>>>((__half *)c, at); break;
	}
}

extern "C" bool
gemm_gpu_run(const struct gemm_job *j, double *tflops, long *wrong, char *why, size_t n)
{
	const struct prec *p = &precs[j->prec];
	long m = j->m, nn = j->n, k = j->k;
	double one_d = 1, zero_d = 0, flop = 2.0 * (double)m * (double)nn * (double)k * (double)j->iters;
	float one_f = 1, zero_f = 0;
	const void *alpha = p->dbl_scale ? (const void *)&one_d : (const void *)&one_f;
	const void *beta = p->dbl_scale ? (const void *)&zero_d : (const void *)&zero_f;
	cublasHandle_t h = NULL;
	cudaStream_t st = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	void *a = NULL, *b = NULL, *c = NULL;
	unsigned long long *dwrong = NULL, hwrong = 0;
	struct gemm_sums s;
	float ms = 0;
	bool ok = false;
	int r, i;

	if (!gpu_select(j->dev, why, n))
		return false;
	CUDA_OK(cudaStreamCreate(&st));
	CUDA_OK(cudaEventCreate(&e0));
	CUDA_OK(cudaEventCreate(&e1));
	CUDA_OK(cudaMalloc(&a, (size_t)(m * k) * p->ab_size));
	CUDA_OK(cudaMalloc(&b, (size_t)(k * nn) * p->ab_size));
	CUDA_OK(cudaMalloc(&c, (size_t)(m * nn) * p->c_size));
	CUDA_OK(cudaMalloc(&dwrong, sizeof(*dwrong)));
	BLAS_OK(cublasCreate(&h));
	BLAS_OK(cublasSetStream(h, st));
	launch_fill(j->prec, a, b, m, nn, k, st);
	CUDA_OK(cudaGetLastError());
	for (i = 0; i < j->warmup; i++)
		BLAS_OK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)nn, (int)k, alpha, a, p->ab, (int)m, b,
		                     p->ab, (int)k, beta, c, p->c, (int)m, p->compute, CUBLAS_GEMM_DEFAULT));
	CUDA_OK(cudaStreamSynchronize(st));
	for (r = 0; r < j->reps; r++) {
		CUDA_OK(cudaEventRecord(e0, st));
		for (i = 0; i < j->iters; i++)
			BLAS_OK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, (int)m, (int)nn, (int)k, alpha, a, p->ab, (int)m,
			                     b, p->ab, (int)k, beta, c, p->c, (int)m, p->compute, CUBLAS_GEMM_DEFAULT));
		CUDA_OK(cudaEventRecord(e1, st));
		CUDA_OK(cudaEventSynchronize(e1));
		CUDA_OK(cudaEventElapsedTime(&ms, e0, e1));
		tflops[r] = ms > 0 ? flop / ((double)ms * 1e-3) / 1e12 : 0;
	}
	/* beta = 0: C is A.B however many times it was computed */
	if (j->force_wrong)
		launch_bump(j->prec, c, (nn / 2) * m + m / 2, st);
	gemm_sums(k, &s);
	CUDA_OK(cudaMemsetAsync(dwrong, 0, sizeof(*dwrong), st));
	launch_check(j->prec, c, m, nn, s, dwrong, st);
	CUDA_OK(cudaGetLastError());
	CUDA_OK(cudaMemcpyAsync(&hwrong, dwrong, sizeof(hwrong), cudaMemcpyDeviceToHost, st));
	CUDA_OK(cudaStreamSynchronize(st));
	*wrong = (long)hwrong;
	ok = true;
out:
	if (h)
		cublasDestroy(h);
	cudaFree(a);
	cudaFree(b);
	cudaFree(c);
	cudaFree(dwrong);
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	if (st)
		cudaStreamDestroy(st);
	return ok;
}
