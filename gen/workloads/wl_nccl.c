/* wl_nccl.c: NcclTest, NVIDIA nccl-tests (<subtest_name> with every argument
 * as a flag), argument for argument as CloudAI's NCCLCmdArgs and its Slurm
 * command strategy build it. */
#include <stdbool.h>
#include <string.h>

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"

static const char *const subtests[] = {
	"all_reduce_perf_mpi", "all_gather_perf_mpi", "alltoall_perf_mpi", "alltoallv_perf_mpi",
	"broadcast_perf_mpi", "gather_perf_mpi", "hypercube_perf_mpi", "reduce_perf_mpi",
	"reduce_scatter_perf_mpi", "scatter_perf_mpi", "sendrecv_perf_mpi", "bisection_perf_mpi",
	"all_reduce_perf", "all_gather_perf", "alltoall_perf", "alltoallv_perf",
	"broadcast_perf", "gather_perf", "hypercube_perf", "reduce_perf",
	"reduce_scatter_perf", "scatter_perf", "sendrecv_perf", "bisection_perf",
	NULL,
};
static const char *const ops[] = {"sum", "prod", "min", "max", "avg", "all", NULL};
static const char *const datatypes[] = {"uint8", "float", NULL};

/* NCCLCmdArgs field order: the flags come out in this order. */
static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, "nvcr.io/nvidia/pytorch:24.02-py3", NULL, false},
	{"subtest_name", ARG_STRING, "all_reduce_perf_mpi", subtests, false},
	{"nthreads", ARG_INT, "1", NULL, false},
	{"ngpus", ARG_INT, "1", NULL, false},
	{"minbytes", ARG_SIZE, "32M", NULL, false},
	{"maxbytes", ARG_SIZE, "32M", NULL, false},
	{"stepbytes", ARG_SIZE, "1M", NULL, false},
	{"op", ARG_STRING, "sum", ops, false},
	{"datatype", ARG_STRING, "float", datatypes, false},
	{"root", ARG_INT, "0", NULL, false},
	{"iters", ARG_INT, "20", NULL, false},
	{"warmup_iters", ARG_INT, "5", NULL, false},
	{"agg_iters", ARG_INT, "1", NULL, false},
	{"average", ARG_INT, "1", NULL, false},
	{"parallel_init", ARG_INT, "0", NULL, false},
	{"check", ARG_INT, "1", NULL, false},
	{"blocking", ARG_INT, "0", NULL, false},
	{"cudagraph", ARG_INT, "0", NULL, false},
	{"stepfactor", ARG_INT, NULL, NULL, false},
	{"use_deepep_matrix", ARG_BOOL, "False", NULL, false},
	{"alltoallv_matrix_container_path", ARG_STRING, "/tmp/traffic_matrix.txt", NULL, false},
	{"min_busbw", ARG_FLOAT, NULL, NULL, false},
};

/* CloudAI metadata, never a flag of the binary. */
static bool
not_a_flag(const char *key)
{
	static const char *const skip[] = {
		"docker_image_url", "subtest_name", "use_deepep_matrix",
		"alltoallv_matrix_container_path", "min_busbw",
	};
	size_t i;

	for (i = 0; i < LEN(skip); i++)
		if (strcmp(key, skip[i]) == 0)
			return true;
	return false;
}

static bool
single_process(const struct run *r)
{
	const char *s = workload_value(r, "subtest_name");
	size_t n = strlen(s);

	return !(n >= 4 && strcmp(s + n - 4, "_mpi") == 0);
}

static void
flag(struct buf *out, const char *key, const char *value, bool long_only)
{
	buf_puts(out, strlen(key) > 1 || long_only ? " --" : " -");
	buf_puts(out, key);
	buf_putc(out, ' ');
	sh_quote(out, value);
}

/* alltoallv_perf_mpi runs the plain alltoallv_perf binary with short flags
 * for the sizes and counts, then every other setting as --name value. */
static void
alltoallv(const struct run *r, struct buf *out)
{
	static const char *const first[][2] = {
		{"-b", "minbytes"}, {"-e", "maxbytes"}, {"-g", "ngpus"},
		{"-w", "warmup_iters"}, {"-n", "iters"},
	};
	size_t i, j;

	buf_puts(out, "/opt/nccl-tests/build/alltoallv_perf");
	for (i = 0; i < LEN(first); i++) {
		buf_printf(out, " %s ", first[i][0]);
		sh_quote(out, workload_value(r, first[i][1]));
	}
	for (i = 0; i < LEN(args); i++) {
		const char *k = args[i].key, *v = workload_value_of(r, &args[i]);
		bool done = false;
		for (j = 0; j < LEN(first); j++)
			done |= strcmp(k, first[j][1]) == 0;
		if (done || not_a_flag(k) || !v)
			continue;
		flag(out, k, v, true);
	}
	for (i = 0; i < r->args.len; i++) {
		const struct kv *a = &r->args.items[i];
		if (workload_arg(r->def->wl, a->key))
			continue;
		if (workload_is_bool(r, a->key)) {
			if (workload_true(a->value))
				buf_printf(out, " --%s", a->key);
			continue;
		}
		flag(out, a->key, a->value, true);
	}
}

static void
command(const struct run *r, struct buf *out)
{
	bool single = single_process(r);
	size_t i;

	if (strcmp(workload_value(r, "subtest_name"), "alltoallv_perf_mpi") == 0) {
		alltoallv(r, out);
		workload_extra_args(r, ' ', out);
		return;
	}
	sh_quote(out, workload_value(r, "subtest_name"));
	for (i = 0; i < LEN(args); i++) {
		const char *k = args[i].key, *v = workload_value_of(r, &args[i]);
		if (not_a_flag(k) || !v)
			continue;
		/* one process drives all of its GPUs: -g N */
		if (single && strcmp(k, "ngpus") == 0) {
			buf_puts(out, " -g ");
			sh_quote(out, v);
		} else
			flag(out, k, v, false);
	}
	/* unknown keys are nccl-tests flags the schema does not name (R, G, ...) */
	for (i = 0; i < r->args.len; i++)
		if (!workload_arg(r->def->wl, r->args.items[i].key))
			flag(out, r->args.items[i].key, r->args.items[i].value, false);
	workload_extra_args(r, ' ', out);
}

/* Non-MPI subtests are one process that drives every GPU itself. */
static int
ntasks(const struct run *r)
{
	return single_process(r) ? 1 : 0;
}

static bool
uses_mpi(const struct run *r)
{
	return !single_process(r);
}

/* use_deepep_matrix: alltoallv_perf reads the matrix named by this variable */
static size_t
env(struct arena *a, const struct run *r, struct wl_env *out, size_t max)
{
	if (max < 1 || !workload_true(workload_value(r, "use_deepep_matrix")))
		return 0;
	out[0].key = "ALLTOALLV_MATRIX_FILE";
	out[0].value = workload_value(r, "alltoallv_matrix_container_path");
	out[0].if_unset = false;
	return 1;
}

static const char *const all_of[] = {"# Out of bounds values", "# Avg bus bandwidth", NULL};
static const char *const none_of[] = {"Test failure", "Test NCCL failure", NULL};

const struct workload wl_nccl = {
	.name = "NcclTest",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_STANDALONE | WL_SLURM | WL_KUBERNETES | WL_RUNAI,
	.container = true,
	.command = command,
	.ntasks = ntasks,
	.uses_mpi = uses_mpi,
	.all_of = all_of,
	.none_of = none_of,
	.grader = "nccl",
	.env = env,
	.deepep_matrix = "nccl_matrix.txt",
	.deepep_matrix_arg = "alltoallv_matrix_container_path",
};
