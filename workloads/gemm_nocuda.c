/* gemm_nocuda.c: gemm's GPU path for a build without CUDA or cuBLAS. */
#include <stdio.h>

#include "gpu.h"

bool
gemm_gpu_run(const struct gemm_job *j, double *tflops, long *wrong, char *why, size_t n)
{
	(void)j, (void)tflops, (void)wrong;
	snprintf(why, n, "kunai's gemm was built without CUDA and cuBLAS (configure found none)");
	return false;
}
