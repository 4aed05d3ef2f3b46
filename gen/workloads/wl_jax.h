/* wl_jax.h: the launcher the JaxToolbox templates (JaxToolboxGPT,
 * JaxToolboxGrok, JaxToolboxNemotron) share, as CloudAI's
 * JaxToolboxSlurmCommandGenStrategy builds it: a run.sh of one or two
 * PAXML stages (profile, then perf with the profile's PGLE output), written
 * by the batch script into the run directory, which is mounted at
 * setup_flags.docker_workspace_dir; the container loaded once under the
 * name "cont", then run.sh under srun in it; XLA_FLAGS, COMBINE_THRESHOLD
 * and PER_GPU_COMBINE_THRESHOLD in the environment. */
#ifndef KUNAI_WL_JAX_H
#define KUNAI_WL_JAX_H

#include <stdbool.h>
#include <stddef.h>

#include "workload.h"

struct jax_template {
	/* Grok and Nemotron: XLA flags from the profile./perf. tables and the
	 * enable_pgle switch; GPT: neither (CloudAI's GPT.XLA_FLAGS keys match
	 * no stage, so its XLA_FLAGS are the three combine thresholds only) */
	bool stages;
	/* keys CloudAI types as one value (str, int, bool): a list is an error */
	const char *const *single;
};

/* JaxToolboxGrok's cmd_args (CloudAI's GrokCmdArgs), which
 * JaxToolboxNemotron's extend: the keys up to setup_flags, then the
 * profile and perf stages' XLA flags; the keys CloudAI types as one value. */
#define JAX_GROK_ARGS \
	{"docker_image_url", ARG_STRING, NULL, NULL, true}, \
	{"load_container", ARG_BOOL, "True", NULL, false}, \
	{"output_path", ARG_STRING, NULL, NULL, false}, \
	{"fdl.checkpoint_policy", ARG_STRING, "\"save_iteration_input\"", NULL, false}, \
	{"fdl.dcn_mesh_shape", ARG_STRING, "'[1, 8, 1, 1]'", NULL, false}, \
	{"fdl.fprop_dtype", ARG_STRING, "bfloat16", NULL, false}, \
	{"fdl.ici_mesh_shape", ARG_STRING, "'[1, 1, 8, 1]'", NULL, false}, \
	{"fdl.max_steps", ARG_INT, "20", NULL, false}, \
	{"fdl.num_gpus", ARG_INT, "64", NULL, false}, \
	{"fdl.num_microbatches", ARG_INT, "1", NULL, false}, \
	{"fdl.num_stages", ARG_INT, "1", NULL, false}, \
	{"fdl.percore_batch_size", ARG_FLOAT, "1.0", NULL, false}, \
	{"fdl.use_fp8", ARG_INT, "1", NULL, false}, \
	{"fdl.use_repeated_layer", ARG_BOOL, "False", NULL, false}, \
	{"fdl.combine_qkv", ARG_BOOL, "False", NULL, false}, \
	{"fdl.dims_per_head", ARG_INT, "128", NULL, false}, \
	{"fdl.hidden_dims", ARG_INT, "32768", NULL, false}, \
	{"fdl.max_seq_len", ARG_INT, "8192", NULL, false}, \
	{"fdl.model_dims", ARG_INT, "6144", NULL, false}, \
	{"fdl.num_experts", ARG_INT, "8", NULL, false}, \
	{"fdl.num_groups", ARG_INT, "64", NULL, false}, \
	{"fdl.num_heads", ARG_INT, "48", NULL, false}, \
	{"fdl.num_kv_heads", ARG_INT, "8", NULL, false}, \
	{"fdl.num_layers", ARG_INT, "64", NULL, false}, \
	{"fdl.use_expert_parallel", ARG_BOOL, "True", NULL, false}, \
	{"fdl.use_te_dpa", ARG_BOOL, "True", NULL, false}, \
	{"fdl.vocab_size", ARG_INT, "131072", NULL, false}, \
	{"fdl_config", ARG_STRING, "paxml.tasks.lm.params.nvidia.Grok_Proxy", NULL, false}, \
	{"enable_pgle", ARG_BOOL, "True", NULL, false}, \
	{"setup_flags.docker_workspace_dir", ARG_STRING, "/opt/paxml/workspace/", NULL, false}, \
	{"setup_flags.enable_checkpoint_saving", ARG_BOOL, "False", NULL, false}, \
	{"setup_flags.gpus_per_node", ARG_INT, "8", NULL, false}, \
	{"setup_flags.mpi", ARG_STRING, "pmix", NULL, false}, \
	{"setup_flags.num_nodes", ARG_INT, "8", NULL, false}, \
	{"setup_flags.tfds_data_dir", ARG_STRING, "/opt/dataset", NULL, false}

#define JAX_GROK_STAGE_ARGS \
	{"profile.xla_disable_hlo_passes", ARG_STRING, "rematerialization", NULL, false}, \
	{"profile.xla_dump_hlo_pass_re", ARG_STRING, ".*", NULL, false}, \
	{"profile.xla_gpu_enable_all_gather_combine_by_dim", ARG_BOOL, "False", NULL, false}, \
	{"profile.xla_gpu_enable_highest_priority_async_stream", ARG_BOOL, "True", NULL, false}, \
	{"profile.xla_gpu_enable_latency_hiding_scheduler", ARG_BOOL, "False", NULL, false}, \
	{"profile.xla_gpu_enable_pipelined_all_gather", ARG_BOOL, "True", NULL, false}, \
	{"profile.xla_gpu_enable_pipelined_all_reduce", ARG_BOOL, "True", NULL, false}, \
	{"profile.xla_gpu_enable_pipelined_reduce_scatter", ARG_BOOL, "True", NULL, false}, \
	{"profile.xla_gpu_enable_reduce_scatter_combine_by_dim", ARG_BOOL, "False", NULL, false}, \
	{"profile.xla_gpu_enable_triton_gemm", ARG_BOOL, "False", NULL, false}, \
	{"profile.xla_gpu_enable_triton_softmax_fusion", ARG_BOOL, "False", NULL, false}, \
	{"profile.xla_gpu_enable_while_loop_double_buffering", ARG_BOOL, "True", NULL, false}, \
	{"profile.xla_gpu_graph_level", ARG_INT, "0", NULL, false}, \
	{"profile.xla_gpu_disable_async_collectives", ARG_STRING, "ALLREDUCE,ALLGATHER,REDUCESCATTER,COLLECTIVEBROADCAST,ALLTOALL,COLLECTIVEPERMUTE", NULL, false}, \
	{"profile.xla_gpu_run_post_layout_collective_pipeliner", ARG_BOOL, "False", NULL, false}, \
	{"perf.xla_disable_hlo_passes", ARG_STRING, "rematerialization", NULL, false}, \
	{"perf.xla_dump_hlo_pass_re", ARG_STRING, ".*", NULL, false}, \
	{"perf.xla_gpu_enable_all_gather_combine_by_dim", ARG_BOOL, "False", NULL, false}, \
	{"perf.xla_gpu_enable_highest_priority_async_stream", ARG_BOOL, "True", NULL, false}, \
	{"perf.xla_gpu_enable_latency_hiding_scheduler", ARG_BOOL, "True", NULL, false}, \
	{"perf.xla_gpu_enable_pipelined_all_gather", ARG_BOOL, "True", NULL, false}, \
	{"perf.xla_gpu_enable_pipelined_all_reduce", ARG_BOOL, "True", NULL, false}, \
	{"perf.xla_gpu_enable_pipelined_reduce_scatter", ARG_BOOL, "True", NULL, false}, \
	{"perf.xla_gpu_enable_reduce_scatter_combine_by_dim", ARG_BOOL, "False", NULL, false}, \
	{"perf.xla_gpu_enable_triton_gemm", ARG_BOOL, "False", NULL, false}, \
	{"perf.xla_gpu_enable_triton_softmax_fusion", ARG_BOOL, "False", NULL, false}, \
	{"perf.xla_gpu_enable_while_loop_double_buffering", ARG_BOOL, "True", NULL, false}, \
	{"perf.xla_gpu_graph_level", ARG_INT, "0", NULL, false}, \
	{"perf.combine_threshold_bytes", ARG_INT, "301989888", NULL, false}, \
	{"perf.xla_gpu_run_post_layout_collective_pipeliner", ARG_BOOL, "False", NULL, false}, \
	{"perf.xla_gpu_use_memcpy_local_p2p", ARG_BOOL, "False", NULL, false}, \
	{"perf.xla_gpu_pgle_profile_file_or_directory_path", ARG_STRING, "/opt/paxml/workspace/pgle_output_profile.pbtxt", NULL, false}

#define JAX_GROK_SINGLE \
	"docker_image_url", \
	"load_container", \
	"output_path", \
	"fdl_config", \
	"enable_pgle", \
	"setup_flags.docker_workspace_dir", \
	"setup_flags.enable_checkpoint_saving", \
	"setup_flags.gpus_per_node", \
	"setup_flags.mpi", \
	"setup_flags.num_nodes", \
	"setup_flags.tfds_data_dir", \
	"perf.xla_gpu_pgle_profile_file_or_directory_path"

/* The workload hooks of every member, reading the member's struct
 * jax_template from its workload's family. */
void jax_check(const struct run *r, struct wl_diags *d);
size_t jax_env(struct arena *a, const struct run *r, struct wl_env *out, size_t max);
void jax_body(const struct run *r, const char *image, const char *mounts, struct buf *out);
/* The command of the runs: run.sh in the workspace. */
void jax_command(const struct run *r, struct buf *out);
/* setup_flags.docker_workspace_dir: where the run directory is mounted. */
const char *jax_workspace(const struct run *r);
/* The image, the only thing a member installs. */
extern const struct installable jax_installables[1];

/* What a member's struct workload holds besides its name, args and family. */
#define JAX_WORKLOAD \
	.extra_args_ok = true, .schedulers = WL_SLURM, .container = true, .command = jax_command, \
	.grader = "jax_toolbox", .installables = jax_installables, .n_installables = 1, .env = jax_env, \
	.check = jax_check, .run_dir_mount = jax_workspace, .container_body = jax_body

#endif
