/* gpu_cuda.cu: the device functions of gpu.h with the CUDA runtime. */
#include <stdio.h>

#include <cuda_runtime.h>

#include "gpu.h"

extern "C" int
gpu_count(char *why, size_t n)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);

	if (e != cudaSuccess) {
		/* without a driver the runtime answers "CUDA driver version is
		 * insufficient for CUDA runtime version": that is "no GPU" */
		snprintf(why, n, "no usable CUDA device (cudaGetDeviceCount: %s)", cudaGetErrorString(e));
		cudaGetLastError();
		return 0;
	}
	if (count == 0)
		snprintf(why, n, "no CUDA device (check CUDA_VISIBLE_DEVICES)");
	return count;
}

extern "C" bool
gpu_select(int dev, char *why, size_t n)
{
	cudaError_t e = cudaSetDevice(dev);

	if (e != cudaSuccess) {
		snprintf(why, n, "cudaSetDevice(%d): %s", dev, cudaGetErrorString(e));
		return false;
	}
	return true;
}

extern "C" bool
gpu_info(int dev, char *name, size_t name_n, int *cc_major, int *cc_minor, double *mem_gib, char *bus,
         size_t bus_n, char *why, size_t n)
{
	cudaDeviceProp p;
	cudaError_t e = cudaGetDeviceProperties(&p, dev);

	if (e != cudaSuccess) {
		snprintf(why, n, "cudaGetDeviceProperties(%d): %s", dev, cudaGetErrorString(e));
		return false;
	}
	snprintf(name, name_n, "%s", p.name);
	*cc_major = p.major;
	*cc_minor = p.minor;
	*mem_gib = (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
	snprintf(bus, bus_n, "%04x:%02x:%02x.0", p.pciDomainID, p.pciBusID, p.pciDeviceID);
	return true;
}
