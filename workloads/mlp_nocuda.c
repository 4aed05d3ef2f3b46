/* mlp_nocuda.c: the MLP's GPU backend for a build without CUDA or cuBLAS. */
#include <stdio.h>

#include "mlp.h"

static void *
create(const struct mlp_shape *s, const float *params, int max_batch, char *why, size_t n)
{
	(void)s, (void)params, (void)max_batch;
	snprintf(why, n, "kunai's workloads were built without CUDA and cuBLAS (configure found none)");
	return NULL;
}

/* Never called: create fails first. */
const struct mlp_ops mlp_gpu_ops = {"cuda", create, NULL, NULL, NULL, NULL, NULL, NULL};
