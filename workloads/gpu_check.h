/* gpu_check.h: how the *_cuda.cu files check a CUDA, cuBLAS or NCCL call.
 * On an error the reason goes to why[0..n) (the caller's names): "CALL:
 * message" (cuBLAS: "cuBLAS: message (CALL)"), and fail runs (return
 * false; goto out). text is the call as written: each file's short form
 * (CK, BK, NK, ...) passes #call, so the reason names the call unexpanded. */
#ifndef KUNAI_GPU_CHECK_H
#define KUNAI_GPU_CHECK_H

#include <stdio.h>

#define GPU_CHECK(T, good, fail, call, ...)                                                        \
	do {                                                                                           \
		T r_ = (call);                                                                             \
		if (r_ != (good)) {                                                                        \
			snprintf(why, n, __VA_ARGS__);                                                         \
			fail;                                                                                  \
		}                                                                                          \
	} while (0)
#define CUDA_CHECK(text, call, fail)                                                               \
	GPU_CHECK(cudaError_t, cudaSuccess, fail, call, "%s: %s", text, cudaGetErrorString(r_))
#define CUBLAS_CHECK(text, call, fail)                                                             \
	GPU_CHECK(cublasStatus_t, CUBLAS_STATUS_SUCCESS, fail, call, "cuBLAS: %s (%s)", cublasGetStatusString(r_), \
	          text)
#define NCCL_CHECK(text, call, fail)                                                               \
	GPU_CHECK(ncclResult_t, ncclSuccess, fail, call, "%s: %s", text, ncclGetErrorString(r_))

#endif
