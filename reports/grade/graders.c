/* grade/graders.c: every grader, by the name a workload entry gives
 * (workload.grader). Adding a workload family's grader is one line here. */
#include <string.h>

#include "reports/grade/grade.h"
#include "gen/base/util.h"

grader_fn grade_aiconfig, grade_bisection, grade_chakra_replay, grade_deepep, grade_fio, grade_jax_toolbox,
	grade_kunai, grade_megatron_bridge, grade_megatron_run, grade_moe_results, grade_nccl, grade_nemo_launcher,
	grade_nemo_run, grade_nixl, grade_nixl_ep, grade_nixl_perftest, grade_osu, grade_serve, grade_sglang,
	grade_time, grade_triton, grade_ucc, grade_vllm;

static const struct {
	const char *name;
	grader_fn *fn;
} graders[] = {
	{"aiconfig", grade_aiconfig},
	{"bash_cmd", grade_time},
	{"bisection", grade_bisection},
	{"chakra_replay", grade_chakra_replay},
	{"deepep", grade_deepep},
	{"fio", grade_fio},
	{"jax_toolbox", grade_jax_toolbox},
	{"kunai", grade_kunai},
	{"megatron_bridge", grade_megatron_bridge},
	{"megatron_run", grade_megatron_run},
	{"moe_benchmark", grade_moe_results},
	{"nccl", grade_nccl},
	{"nemo_launcher", grade_nemo_launcher},
	{"nemo_run", grade_nemo_run},
	{"nixl", grade_nixl},
	{"nixl_ep", grade_nixl_ep},
	{"nixl_perftest", grade_nixl_perftest},
	{"osu", grade_osu},
	{"serve", grade_serve},
	{"sglang", grade_sglang},
	{"sleep", grade_time},
	{"slurm_container", grade_time},
	{"triton_inference", grade_triton},
	{"ucc", grade_ucc},
	{"vllm", grade_vllm},
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
