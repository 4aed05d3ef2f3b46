/* wl_ucc.c: UCCTest, HPC-X's ucc_perftest on CUDA memory, as CloudAI's UCC
 * Slurm strategy builds it. */
#include <stddef.h>

#include "gen/model/expand.h"

#include "workload.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"

static const char *const collectives[] = {
	"allgather", "allgatherv", "allreduce", "alltoall", "alltoallv", "barrier", "bcast",
	"gather", "gatherv", "reduce", "reduce_scatter", "reduce_scatterv", "scatter",
	"scatterv", "memcpy", "reducedt", "reducedt_strided", NULL,
};

/* where ucc_perftest's generator reads a DeepEP matrix (use_deepep_matrix) */
#define MATRIX_DEST "/opt/hpcx/ucc/tools/perf/generator/input_matrices.txt"

static const struct arg_schema args[] = {
	{"docker_image_url", ARG_STRING, NULL, NULL, true},
	{"collective", ARG_STRING, "alltoall", collectives, false},
	{"b", ARG_INT, "1", NULL, false},
	{"e", ARG_SIZE, "8M", NULL, false},
	{"gen", ARG_STRING, NULL, NULL, false},
	{"use_deepep_matrix", ARG_BOOL, "False", NULL, false},
};

static void
command(const struct run *r, struct buf *out)
{
	const char *gen = workload_value(r, "gen");

	buf_puts(out, "/opt/hpcx/ucc/bin/ucc_perftest -c ");
	sh_quote(out, workload_value(r, "collective"));
	buf_puts(out, " -b ");
	sh_quote(out, workload_value(r, "b"));
	buf_puts(out, " -e ");
	sh_quote(out, workload_value(r, "e"));
	if (gen) {
		buf_puts(out, " --gen ");
		sh_quote(out, gen);
	} else if (r->matrix_dir) {
		buf_puts(out, " --gen file:name=" MATRIX_DEST);
	}
	buf_puts(out, " -m cuda -F");
	workload_extra_args(r, '=', out);
}

const struct workload wl_ucc = {
	.name = "UCCTest",
	.args = args,
	.n_args = LEN(args),
	.extra_args_ok = true,
	.schedulers = WL_SLURM,
	.container = true,
	.command = command,
	.grader = "ucc",
	.deepep_matrix = "ucc_matrix.txt",
	.deepep_matrix_dest = MATRIX_DEST,
};
