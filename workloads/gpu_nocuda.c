/* gpu_nocuda.c: the device functions of gpu.h for a build without the CUDA
 * toolkit: no device, and a reason that says so. */
#include <stdio.h>

#include "gpu.h"

int
gpu_count(char *why, size_t n)
{
	snprintf(why, n, "kunai's workloads were built without CUDA (configure found no nvcc)");
	return 0;
}

bool
gpu_select(int dev, char *why, size_t n)
{
	(void)dev;
	snprintf(why, n, "built without CUDA");
	return false;
}

bool
gpu_info(int dev, char *name, size_t name_n, int *cc_major, int *cc_minor, double *mem_gib, char *bus,
         size_t bus_n, char *why, size_t n)
{
	(void)dev, (void)name, (void)name_n, (void)cc_major, (void)cc_minor, (void)mem_gib, (void)bus, (void)bus_n;
	snprintf(why, n, "built without CUDA");
	return false;
}
