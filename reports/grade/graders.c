/* grade/graders.c: every grader, by the name a workload entry gives
 * (workload.grader). Adding a workload family's grader is one line here,
 * with the CRC of the file that holds it (GRADE_SRC_<FILE>, sources.h); a
 * grader in a new file also takes a line in sources.sh and in Makefile.in's
 * GRADE_SRC, so that a change to it regrades its runs. */
#include <stdint.h>
#include <string.h>

#include "reports/grade/grade.h"
#include "reports/grade/sources.h"
#include "gen/base/util.h"

grader_fn grade_aiconfig, grade_bisection, grade_chakra_replay, grade_deepep, grade_fio, grade_jax_toolbox,
	grade_kunai, grade_megatron_bridge, grade_megatron_run, grade_moe_results, grade_nccl, grade_nemo_launcher,
	grade_nemo_run, grade_nixl, grade_nixl_ep, grade_nixl_perftest, grade_osu, grade_serve, grade_sglang,
	grade_time, grade_triton, grade_ucc, grade_vllm;

static const struct {
	const char *name;
	grader_fn *fn;
	uint32_t source; /* the CRC of its file's source (sources.sh) */
} graders[] = {
	{"aiconfig", grade_aiconfig, GRADE_SRC_SERVE},
	{"bash_cmd", grade_time, GRADE_SRC_OSU},
	{"bisection", grade_bisection, GRADE_SRC_NCCL},
	{"chakra_replay", grade_chakra_replay, GRADE_SRC_CHAKRA},
	{"deepep", grade_deepep, GRADE_SRC_COMM},
	{"fio", grade_fio, GRADE_SRC_FIO},
	{"jax_toolbox", grade_jax_toolbox, GRADE_SRC_JAX},
	{"kunai", grade_kunai, GRADE_SRC_KUNAI},
	{"megatron_bridge", grade_megatron_bridge, GRADE_SRC_TRAIN},
	{"megatron_run", grade_megatron_run, GRADE_SRC_TRAIN},
	{"moe_benchmark", grade_moe_results, GRADE_SRC_COMM_FILES},
	{"nccl", grade_nccl, GRADE_SRC_NCCL},
	{"nemo_launcher", grade_nemo_launcher, GRADE_SRC_TRAIN},
	{"nemo_run", grade_nemo_run, GRADE_SRC_TRAIN},
	{"nixl", grade_nixl, GRADE_SRC_COMM},
	{"nixl_ep", grade_nixl_ep, GRADE_SRC_COMM},
	{"nixl_perftest", grade_nixl_perftest, GRADE_SRC_COMM_FILES},
	{"osu", grade_osu, GRADE_SRC_OSU},
	{"serve", grade_serve, GRADE_SRC_SERVE},
	{"sglang", grade_sglang, GRADE_SRC_SERVING},
	{"sleep", grade_time, GRADE_SRC_OSU},
	{"slurm_container", grade_time, GRADE_SRC_OSU},
	{"triton_inference", grade_triton, GRADE_SRC_SERVING},
	{"ucc", grade_ucc, GRADE_SRC_OSU},
	{"vllm", grade_vllm, GRADE_SRC_SERVING},
};

grader_fn *
grader_find(const char *name)
{
	size_t i;

	for (i = 0; name && i < LEN(graders); i++)
		if (strcmp(graders[i].name, name) == 0)
			return graders[i].fn;
	return NULL;
}

uint32_t
grader_source(const char *name)
{
	size_t i;

	for (i = 0; name && i < LEN(graders); i++)
		if (strcmp(graders[i].name, name) == 0)
			return graders[i].source;
	return 0;
}

uint32_t
grade_source_common(void)
{
	return GRADE_SRC_COMMON;
}
