/* wl_jax_nemotron.c: JaxToolboxNemotron, as CloudAI's NemotronCmdArgs declares it:
 * GrokCmdArgs (its fdl is GrokFdl: CloudAI's NemotronFdl is declared but
 * unused) with setup_flags.vocab_path and an xla_flags table, which CloudAI
 * validates and then passes nowhere (its keys are Grok.xla_flags.*, no
 * stage's); the launcher is Grok's (wl_jax.c). */
#include "wl_jax.h"
#include "gen/base/util.h"

static const struct arg_schema args[] = {
	JAX_GROK_ARGS,
	{"setup_flags.vocab_path", ARG_STRING, "/mnt/vocab", NULL, false},
	JAX_GROK_STAGE_ARGS,
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
	{"xla_flags.xla_gpu_enable_while_loop_double_buffering", ARG_BOOL, "True", NULL, false},
	{"xla_flags.xla_gpu_graph_level", ARG_INT, "0", NULL, false},
	{"xla_flags.xla_gpu_all_gather_combine_threshold_bytes", ARG_INT, "3221225472", NULL, false},
	{"xla_flags.xla_gpu_all_reduce_combine_threshold_bytes", ARG_INT, "3221225472", NULL, false},
	{"xla_flags.xla_gpu_reduce_scatter_combine_threshold_bytes", ARG_INT, "6291456", NULL, false},
};

/* CloudAI types these as one value (str, int, bool): a list is an error */
static const char *const single[] = {
	JAX_GROK_SINGLE,
	"setup_flags.vocab_path",
	"xla_flags.xla_gpu_all_gather_combine_threshold_bytes",
	"xla_flags.xla_gpu_all_reduce_combine_threshold_bytes",
	"xla_flags.xla_gpu_reduce_scatter_combine_threshold_bytes",
	NULL,
};

static const struct jax_template tmpl = {true, single};

const struct workload wl_jax_nemotron = {
	.name = "JaxToolboxNemotron",
	.args = args,
	.n_args = LEN(args),
	.family = &tmpl,
	JAX_WORKLOAD,
};
