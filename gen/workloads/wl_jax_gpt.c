/* wl_jax_gpt.c: JaxToolboxGPT, PAXML's GPT under the JaxToolbox launcher
 * (wl_jax.c), as CloudAI's GPTCmdArgs declares it: fdl (JaxFdl with
 * num_groups), xla_flags (XLAFlags with GPT's two) and setup_flags tables,
 * each of them closed. */
#include "wl_jax.h"
#include "gen/base/util.h"

static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"load_container", ARG_BOOL, "True", NULL, false},
	{"output_path", ARG_STRING, NULL, NULL, false},
	{"fdl_config", ARG_STRING, NULL, NULL, true},
	{"fdl.checkpoint_policy", ARG_STRING, "save_nothing", NULL, false},
	{"fdl.dcn_mesh_shape", ARG_STRING, "'[1, 1, 1]'", NULL, false},
	{"fdl.fprop_dtype", ARG_STRING, "bfloat16", NULL, false},
	{"fdl.ici_mesh_shape", ARG_STRING, "'[1, 8, 1]'", NULL, false},
	{"fdl.max_steps", ARG_INT, "20", NULL, false},
	{"fdl.num_gpus", ARG_INT, "64", NULL, false},
	{"fdl.num_microbatches", ARG_INT, "1", NULL, false},
	{"fdl.num_stages", ARG_INT, "1", NULL, false},
	{"fdl.percore_batch_size", ARG_FLOAT, "4.0", NULL, false},
	{"fdl.use_fp8", ARG_INT, "1", NULL, false},
	{"fdl.use_repeated_layer", ARG_BOOL, "False", NULL, false},
	{"fdl.num_groups", ARG_INT, "64", NULL, false},
	{"xla_flags.xla_disable_hlo_passes", ARG_STRING, "rematerialization", NULL, false},
	{"xla_flags.xla_dump_hlo_pass_re", ARG_STRING, ".*", NULL, false},
	{"xla_flags.xla_gpu_enable_all_gather_combine_by_dim", ARG_BOOL, "False", NULL, false},
	{"xla_flags.xla_gpu_enable_highest_priority_async_stream", ARG_BOOL, "True", NULL, false},
	{"xla_flags.xla_gpu_enable_latency_hiding_scheduler", ARG_BOOL, "True", NULL, false},
	{"xla_flags.xla_gpu_enable_pipelined_all_gather", ARG_BOOL, "True", NULL, false},
	{"xla_flags.xla_gpu_enable_pipelined_all_reduce", ARG_BOOL, "True", NULL, false},
	{"xla_flags.xla_gpu_enable_pipelined_reduce_scatter", ARG_BOOL, "True", NULL, false},
	{"xla_flags.xla_gpu_enable_reduce_scatter_combine_by_dim", ARG_BOOL, "False", NULL, false},
	{"xla_flags.xla_gpu_enable_triton_gemm", ARG_BOOL, "False", NULL, false},
	{"xla_flags.xla_gpu_enable_triton_softmax_fusion", ARG_BOOL, "False", NULL, false},
	{"xla_flags.xla_gpu_enable_while_loop_double_buffering", ARG_BOOL, "False", NULL, false},
	{"xla_flags.xla_gpu_graph_level", ARG_INT, "0", NULL, false},
	{"xla_flags.xla_gpu_all_reduce_combine_threshold_bytes", ARG_INT, "447741952", NULL, false},
	{"setup_flags.docker_workspace_dir", ARG_STRING, "/opt/paxml/workspace/", NULL, false},
	{"setup_flags.enable_checkpoint_saving", ARG_BOOL, "False", NULL, false},
	{"setup_flags.gpus_per_node", ARG_INT, "8", NULL, false},
	{"setup_flags.mpi", ARG_STRING, "pmix", NULL, false},
	{"setup_flags.num_nodes", ARG_INT, "8", NULL, false},
	{"setup_flags.tfds_data_dir", ARG_STRING, "/opt/dataset", NULL, false},
	{"setup_flags.gpt_vocab_path", ARG_STRING, "gs://t5-data/vocabs/cc_all.32000.100extra/sentencepiece.model",
	 NULL, false},
};

static const char *const single[] = {
	"docker_image_url", "load_container", "output_path", "fdl_config", "fdl.num_groups",
	"setup_flags.docker_workspace_dir", "setup_flags.enable_checkpoint_saving", "setup_flags.gpus_per_node",
	"setup_flags.mpi", "setup_flags.num_nodes", "setup_flags.tfds_data_dir", "setup_flags.gpt_vocab_path", NULL,
};

static const struct jax_template gpt = {false, single};

const struct workload wl_jax_gpt = {
	.name = "JaxToolboxGPT",
	.args = args,
	.n_args = LEN(args),
	.family = &gpt,
	JAX_WORKLOAD,
};
