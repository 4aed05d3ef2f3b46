/* wl_kunai.c: kunai's own workloads, the programs in workloads/, as one
 * table: each entry names its program, its flags (every schema key but the
 * launch keys becomes --key-with-dashes), its task layout on Slurm and its
 * grader. They share one command builder and the [RESULT] success check. */
#include <stdbool.h>
#include <string.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/run.h"

static const char *const success[] = {"[RESULT] SUCCESS", NULL};
static const char *const no_failure[] = {"[RESULT] FAILURE", NULL};
/* KunaiHealth: SUCCESS or SKIPPED: some result, and not a failure */
static const char *const some_result[] = {"[RESULT] ", NULL};

/* Schema entries, by type: no default but a boolean's False. */
#define STR(k) {k, ARG_STRING, NULL, NULL, false}
#define INT(k) {k, ARG_INT, NULL, NULL, false}
#define FLT(k) {k, ARG_FLOAT, NULL, NULL, false}
#define SIZE(k) {k, ARG_SIZE, NULL, NULL, false}
#define BOOL(k) {k, ARG_BOOL, "False", NULL, false}

/* Every program's last keys: the GPUs it must find, the CPU path, the
 * self-test, and (kubernetes) an image holding kunai's workloads. */
#define COMMON_ARGS INT("expect_gpus"), BOOL("cpu"), BOOL("force_wrong"), STR("docker_image_url")
/* The MPI programs' launch: ranks on a standalone system, the launcher
 * and its arguments. */
#define MPI_ARGS {"ranks", ARG_INT, NULL, NULL, false}, {"mpirun", ARG_STRING, "mpirun", NULL, false}, \
	{"mpirun_args", ARG_STRING, "--oversubscribe", NULL, false}
/* The collective benchmarks (nccl-tests' flags), bw their bandwidth gate. */
#define COLL_ARGS(bw) SIZE("minbytes"), SIZE("maxbytes"), INT("stepfactor"), INT("iters"), INT("warmup"), \
	INT("check"), FLT(bw), FLT("timeout"), COMMON_ARGS, MPI_ARGS
/* The training smoke tests' optimizer and gates. */
#define SGD_ARGS INT("batch"), INT("epochs"), INT("steps"), FLT("lr"), FLT("momentum"), INT("seed"), \
	FLT("max_loss_ratio"), FLT("min_accuracy")

/* In the order the flags go on the command line. */
static const struct arg_schema allreduce_args[] = {COLL_ARGS("min_busbw")};
static const struct arg_schema bisection_args[] = {COLL_ARGS("min_pair_bw")};
static const struct arg_schema ddp_smoke_args[] = {
	INT("samples"), SGD_ARGS, FLT("max_param_spread"), FLT("timeout"), COMMON_ARGS, MPI_ARGS};
static const struct arg_schema gemm_args[] = {
	INT("size"), INT("m"), INT("n"), INT("k"),
	STR("precision"), /* fp64,fp32,tf32,bf16,fp16 */
	INT("warmup"), INT("iters"), INT("reps"), INT("threads"),
	STR("min_tflops"), /* X, or bf16=600,fp32=40 */
	FLT("max_spread"), COMMON_ARGS};
static const struct arg_schema health_args[] = {
	INT("expect_gpus"), STR("nvidia_smi"), BOOL("no_dmesg"), BOOL("force_wrong"), STR("docker_image_url")};
static const struct arg_schema train_smoke_args[] = {
	INT("samples"), INT("test_samples"), SGD_ARGS, INT("device"), COMMON_ARGS};

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

/* The table, in name order; the registry (workload.c) lists each entry.
 * All run on every scheduler with the one command builder and pass on
 * [RESULT] SUCCESS without [RESULT] FAILURE (KunaiHealth: any result). */
#define KUNAI(name_, program_, args_, ntasks_, mpi_, all_of_, grader_)                                     \
	{.name = name_, .program = program_, .args = args_, .n_args = LEN(args_),                             \
	 .schedulers = WL_STANDALONE | WL_SLURM | WL_KUBERNETES | WL_LSF | WL_RUNAI, .command = command,      \
	 .ntasks = ntasks_, .uses_mpi = mpi_, .all_of = all_of_, .none_of = no_failure, .grader = grader_}
const struct workload wl_kunai[6] = {
	/* all-reduce benchmark: one MPI rank per GPU with NCCL, or MPI_Allreduce
	 * on the CPU, printing nccl-tests' format (NcclTest's grader reads it,
	 * min_busbw included) */
	KUNAI("KunaiAllReduce", "allreduce", allreduce_args, ranks_per_gpu, with_mpi, success, "nccl"),
	/* bisection bandwidth: rank r exchanges with rank r + n/2 over NCCL
	 * send/recv, or MPI on the CPU; rows in nccl-tests' format */
	KUNAI("KunaiBisection", "bisection", bisection_args, ranks_per_gpu, with_mpi, success, "bisection"),
	/* data-parallel training smoke test: one MPI rank per GPU, gradients
	 * all-reduced with NCCL, or with MPI on the CPU */
	KUNAI("KunaiDdpSmoke", "ddp_smoke", ddp_smoke_args, ranks_per_gpu, with_mpi, success, "kunai"),
	/* GEMM throughput: one process per node drives every GPU of it, or the CPU path */
	KUNAI("KunaiGemm", "gemm", gemm_args, one_per_node, no_mpi, success, "kunai"),
	/* GPU inventory and health gates, one process per node. A machine
	 * without nvidia-smi prints [RESULT] SKIPPED unless GPUs are expected:
	 * that passes, so the default local campaign can start with it on a
	 * machine without GPUs */
	KUNAI("KunaiHealth", "health", health_args, one_per_node, no_mpi, some_result, "kunai"),
	/* training smoke test: a tiny MLP on one GPU per node, or the CPU */
	KUNAI("KunaiTrainSmoke", "train_smoke", train_smoke_args, one_per_node, no_mpi, success, "kunai"),
};
