/* wl_kunai.c: kunai's own workloads, the programs in workloads/, as one
 * table: each entry names its program, its flags (every schema key but the
 * launch keys becomes --key-with-dashes), its task layout on Slurm and its
 * grader. They share one command builder and the [RESULT] success check. */
#include <stdbool.h>
#include <string.h>

#include "wl_kunai.h"
#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

static const char *const success[] = {"[RESULT] SUCCESS", NULL};
static const char *const no_failure[] = {"[RESULT] FAILURE", NULL};
/* KunaiHealth: SUCCESS or SKIPPED: some result, and not a failure */
static const char *const some_result[] = {"[RESULT] ", NULL};

/* The schema entries every MPI program has besides its own flags: ranks
 * on a standalone system, the launcher and its arguments. */
#define MPI_ARGS                                                                                   \
	{"ranks", ARG_INT, NULL, NULL, false}, {"mpirun", ARG_STRING, "mpirun", NULL, false},          \
	{"mpirun_args", ARG_STRING, "--oversubscribe", NULL, false}

static const struct arg_schema allreduce_args[] = {
	{"minbytes", ARG_SIZE, NULL, NULL, false},
	{"maxbytes", ARG_SIZE, NULL, NULL, false},
	{"stepfactor", ARG_INT, NULL, NULL, false},
	{"iters", ARG_INT, NULL, NULL, false},
	{"warmup", ARG_INT, NULL, NULL, false},
	{"check", ARG_INT, NULL, NULL, false},
	{"min_busbw", ARG_FLOAT, NULL, NULL, false},
	{"timeout", ARG_FLOAT, NULL, NULL, false},
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"cpu", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
	{"docker_image_url", ARG_STRING, NULL, NULL, false}, /* kubernetes: an image holding kunai's workloads */
	MPI_ARGS,
};

static const struct arg_schema bisection_args[] = {
	{"minbytes", ARG_SIZE, NULL, NULL, false},
	{"maxbytes", ARG_SIZE, NULL, NULL, false},
	{"stepfactor", ARG_INT, NULL, NULL, false},
	{"iters", ARG_INT, NULL, NULL, false},
	{"warmup", ARG_INT, NULL, NULL, false},
	{"check", ARG_INT, NULL, NULL, false},
	{"min_pair_bw", ARG_FLOAT, NULL, NULL, false},
	{"timeout", ARG_FLOAT, NULL, NULL, false},
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"cpu", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
	{"docker_image_url", ARG_STRING, NULL, NULL, false}, /* kubernetes: an image holding kunai's workloads */
	MPI_ARGS,
};

static const struct arg_schema ddp_smoke_args[] = {
	{"samples", ARG_INT, NULL, NULL, false},
	{"batch", ARG_INT, NULL, NULL, false},
	{"epochs", ARG_INT, NULL, NULL, false},
	{"steps", ARG_INT, NULL, NULL, false},
	{"lr", ARG_FLOAT, NULL, NULL, false},
	{"momentum", ARG_FLOAT, NULL, NULL, false},
	{"seed", ARG_INT, NULL, NULL, false},
	{"max_loss_ratio", ARG_FLOAT, NULL, NULL, false},
	{"min_accuracy", ARG_FLOAT, NULL, NULL, false},
	{"max_param_spread", ARG_FLOAT, NULL, NULL, false},
	{"timeout", ARG_FLOAT, NULL, NULL, false},
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"cpu", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
	{"docker_image_url", ARG_STRING, NULL, NULL, false}, /* kubernetes: an image holding kunai's workloads */
	MPI_ARGS,
};

static const struct arg_schema gemm_args[] = {
	{"size", ARG_INT, NULL, NULL, false},
	{"m", ARG_INT, NULL, NULL, false},
	{"n", ARG_INT, NULL, NULL, false},
	{"k", ARG_INT, NULL, NULL, false},
	{"precision", ARG_STRING, NULL, NULL, false}, /* fp64,fp32,tf32,bf16,fp16 */
	{"warmup", ARG_INT, NULL, NULL, false},
	{"iters", ARG_INT, NULL, NULL, false},
	{"reps", ARG_INT, NULL, NULL, false},
	{"threads", ARG_INT, NULL, NULL, false},
	{"min_tflops", ARG_STRING, NULL, NULL, false}, /* X, or bf16=600,fp32=40 */
	{"max_spread", ARG_FLOAT, NULL, NULL, false},
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"cpu", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
	{"docker_image_url", ARG_STRING, NULL, NULL, false}, /* kubernetes: an image holding kunai's workloads */
};

static const struct arg_schema health_args[] = {
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"nvidia_smi", ARG_STRING, NULL, NULL, false},
	{"no_dmesg", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
	{"docker_image_url", ARG_STRING, NULL, NULL, false}, /* kubernetes: an image holding kunai's workloads */
};

static const struct arg_schema train_smoke_args[] = {
	{"samples", ARG_INT, NULL, NULL, false},
	{"test_samples", ARG_INT, NULL, NULL, false},
	{"batch", ARG_INT, NULL, NULL, false},
	{"epochs", ARG_INT, NULL, NULL, false},
	{"steps", ARG_INT, NULL, NULL, false},
	{"lr", ARG_FLOAT, NULL, NULL, false},
	{"momentum", ARG_FLOAT, NULL, NULL, false},
	{"seed", ARG_INT, NULL, NULL, false},
	{"max_loss_ratio", ARG_FLOAT, NULL, NULL, false},
	{"min_accuracy", ARG_FLOAT, NULL, NULL, false},
	{"device", ARG_INT, NULL, NULL, false},
	{"expect_gpus", ARG_INT, NULL, NULL, false},
	{"cpu", ARG_BOOL, "False", NULL, false},
	{"force_wrong", ARG_BOOL, "False", NULL, false},
	{"docker_image_url", ARG_STRING, NULL, NULL, false}, /* kubernetes: an image holding kunai's workloads */
};

/* Schema keys that configure the launch, not the program. */
static bool
launch_key(const char *key)
{
	return strcmp(key, "ranks") == 0 || strcmp(key, "mpirun") == 0 || strcmp(key, "mpirun_args") == 0 ||
	       strcmp(key, "expect_gpus") == 0 || strcmp(key, "docker_image_url") == 0;
}

/* Appends " " and the words of s (arguments written in TOML), if any. */
static void
words(struct buf *out, const char *s)
{
	buf_putc(out, ' ');
	if (!sh_words(out, s))
		out->len--;
}

static void
command(const struct run *r, struct buf *out)
{
	const struct workload *wl = r->def->wl;
	bool mpi = wl->uses_mpi(r);
	const struct system *sys = r->c->system;
	const char *v;
	size_t i, k;

	/* no srun or MPI operator there: mpirun starts the ranks (under LSF
	 * it takes the job's hosts from LSB_* itself) */
	if (mpi && (sys->scheduler == SCHED_STANDALONE || sys->scheduler == SCHED_LSF ||
	            sys->scheduler == SCHED_RUNAI)) {
		/* Open MPI refuses root without both variables; others ignore them */
		buf_puts(out, "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ");
		sh_quote(out, workload_value(r, "mpirun"));
		v = workload_value(r, "mpirun_args");
		if (v && *v)
			words(out, v);
		buf_puts(out, " -np ");
		v = workload_value(r, "ranks");
		if (v)
			sh_quote(out, v);
		else
			buf_puts(out, "2");
		buf_putc(out, ' ');
	}
	/* expanded by the shell that runs the command, on the node that runs it */
	buf_printf(out, "\"${KUNAI_WORKLOADS:-$(kunai --datadir)/workloads}\"/%s", wl->program);
	v = workload_value(r, "expect_gpus");
	if (v) {
		buf_puts(out, " --expect-gpus ");
		sh_quote(out, v);
	} else if (sys->gpus_per_node > 0 && sys->scheduler != SCHED_KUBERNETES && sys->scheduler != SCHED_RUNAI)
		buf_printf(out, " --expect-gpus %d", sys->gpus_per_node);
	for (i = 0; i < wl->n_args; i++) {
		const struct arg_schema *s = &wl->args[i];
		if (launch_key(s->key) || !(v = workload_value(r, s->key)))
			continue;
		if (s->type == ARG_BOOL && !workload_true(v))
			continue;
		buf_puts(out, " --");
		for (k = 0; s->key[k]; k++)
			buf_putc(out, s->key[k] == '_' ? '-' : s->key[k]);
		if (s->type != ARG_BOOL) {
			buf_putc(out, ' ');
			sh_quote(out, v);
		}
	}
	workload_extra_args(r, ' ', out);
}

/* Slurm: one rank per GPU (num_nodes x gpus_per_node), else the system's
 * layout (0). */
static int
ranks_per_gpu(const struct run *r)
{
	int g = r->c->system->gpus_per_node;

	return g > 0 ? g * (r->nodes.len ? (int)r->nodes.len : r->num_nodes) : 0;
}

/* Slurm: one task per node, which drives every GPU of the node. */
static int
one_per_node(const struct run *r)
{
	return r->nodes.len ? (int)r->nodes.len : r->num_nodes;
}

static bool
with_mpi(const struct run *r)
{
	(void)r;
	return true;
}

static bool
no_mpi(const struct run *r)
{
	(void)r;
	return false;
}

/* The table; the registry (workload.c) lists each entry by its index. */
const struct workload wl_kunai[WL_KUNAI_COUNT] = {
	/* all-reduce benchmark: one MPI rank per GPU with NCCL, or MPI_Allreduce on the CPU, printing nccl-tests' format (NcclTest's grader reads it, min_busbw included) */
	[WL_KUNAI_ALLREDUCE] = {.name = "KunaiAllReduce", .program = "allreduce", .args = allreduce_args, .n_args = LEN(allreduce_args),
		.schedulers = WL_STANDALONE | WL_SLURM | WL_KUBERNETES | WL_LSF | WL_RUNAI, .command = command, .ntasks = ranks_per_gpu,
		.uses_mpi = with_mpi, .all_of = success, .none_of = no_failure, .grader = "nccl"},
	/* bisection bandwidth: rank r exchanges with rank r + n/2 over NCCL send/recv, or MPI on the CPU; rows in nccl-tests' format */
	[WL_KUNAI_BISECTION] = {.name = "KunaiBisection", .program = "bisection", .args = bisection_args, .n_args = LEN(bisection_args),
		.schedulers = WL_STANDALONE | WL_SLURM | WL_KUBERNETES | WL_LSF | WL_RUNAI, .command = command, .ntasks = ranks_per_gpu,
		.uses_mpi = with_mpi, .all_of = success, .none_of = no_failure, .grader = "bisection"},
	/* data-parallel training smoke test: one MPI rank per GPU, gradients all-reduced with NCCL, or with MPI on the CPU */
	[WL_KUNAI_DDP] = {.name = "KunaiDdpSmoke", .program = "ddp_smoke", .args = ddp_smoke_args, .n_args = LEN(ddp_smoke_args),
		.schedulers = WL_STANDALONE | WL_SLURM | WL_KUBERNETES | WL_LSF | WL_RUNAI, .command = command, .ntasks = ranks_per_gpu,
		.uses_mpi = with_mpi, .all_of = success, .none_of = no_failure, .grader = "kunai"},
	/* GEMM throughput: one process per node drives every GPU of it, or the CPU path */
	[WL_KUNAI_GEMM] = {.name = "KunaiGemm", .program = "gemm", .args = gemm_args, .n_args = LEN(gemm_args),
		.schedulers = WL_STANDALONE | WL_SLURM | WL_KUBERNETES | WL_LSF | WL_RUNAI, .command = command, .ntasks = one_per_node,
		.uses_mpi = no_mpi, .all_of = success, .none_of = no_failure, .grader = "kunai"},
	/* GPU inventory and health gates, one process per node. A machine without nvidia-smi prints [RESULT] SKIPPED unless GPUs are expected: that passes, so the default local campaign can start with it on a machine without GPUs */
	[WL_KUNAI_HEALTH] = {.name = "KunaiHealth", .program = "health", .args = health_args, .n_args = LEN(health_args),
		.schedulers = WL_STANDALONE | WL_SLURM | WL_KUBERNETES | WL_LSF | WL_RUNAI, .command = command, .ntasks = one_per_node,
		.uses_mpi = no_mpi, .all_of = some_result, .none_of = no_failure, .grader = "kunai"},
	/* training smoke test: a tiny MLP on one GPU per node, or the CPU */
	[WL_KUNAI_TRAIN] = {.name = "KunaiTrainSmoke", .program = "train_smoke", .args = train_smoke_args, .n_args = LEN(train_smoke_args),
		.schedulers = WL_STANDALONE | WL_SLURM | WL_KUBERNETES | WL_LSF | WL_RUNAI, .command = command, .ntasks = one_per_node,
		.uses_mpi = no_mpi, .all_of = success, .none_of = no_failure, .grader = "kunai"},
};
