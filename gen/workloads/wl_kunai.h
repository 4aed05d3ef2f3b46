/* wl_kunai.h: kunai's own workloads (the programs in workloads/), one
 * table in gen/workloads/wl_kunai.c; the registry lists each entry. */
#ifndef KUNAI_WL_KUNAI_H
#define KUNAI_WL_KUNAI_H

#include "workload.h"

enum {
	WL_KUNAI_ALLREDUCE,
	WL_KUNAI_BISECTION,
	WL_KUNAI_DDP,
	WL_KUNAI_GEMM,
	WL_KUNAI_HEALTH,
	WL_KUNAI_TRAIN,
	WL_KUNAI_COUNT
};

extern const struct workload wl_kunai[WL_KUNAI_COUNT];

#endif
