/* allreduce: all-reduce bandwidth over a range of sizes, one MPI rank per
 * GPU with NCCL, or MPI_Allreduce on the CPU, printed in nccl-tests'
 * all_reduce_perf format (rows, "# Out of bounds values", "# Avg bus
 * bandwidth") so one parser reads this and the real benchmark. Each size is
 * timed out-of-place and in-place (time averaged over ranks, as nccl-tests'
 * -a 1), then validated separately from a freshly reset input: the original
 * DDP test validated after repeated in-place sums, which cannot be right.
 * busbw = algbw * 2(n-1)/n. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gpu.h"
#include "mpi_gpu.h"
#include "wl.h"

struct ctx {
	struct mpi_env *m;
	float *send, *recv; /* the CPU path's buffers */
	char why[512];
};

static const char usage[] =
	"usage: allreduce [options]   (under mpirun/srun: one rank per GPU)\n"
	"Sum all-reduce of floats over a range of sizes with NCCL on GPUs, or with\n"
	"MPI_Allreduce on the CPU; nccl-tests' all_reduce_perf output format.\n\n"
	"  -b, --minbytes N    smallest size, bytes, K/M/G suffixes (default 8)\n"
	"  -e, --maxbytes N    largest size (default 32M)\n"
	"  -f, --stepfactor N  multiply the size by N each step (default 2)\n"
	"  -n, --iters N       timed operations per size (default 20)\n"
	"  -w, --warmup N      untimed operations per size first (default 5)\n"
	"  -c, --check N       validate each size from a reset input (default 1; 0: off)\n"
	"  --min-busbw X       fail when the largest busbw is below X GB/s\n"
	"  --timeout S         an NCCL operation running longer fails (default 600)\n"
	"  --expect-gpus N     GPUs per node: fewer, or fewer than ranks, fails; 0: the\n"
	"                      CPU path (default: GPUs if any node has one, else CPU)\n"
	"  --cpu               the CPU path even when GPUs are present\n"
	"  --force-wrong       corrupt one element of rank 0's result (tests the check)\n"
	"  --help              this help\n\n"
	"Rank 0 prints the table, [ALLREDUCE] log lines, one JSON line, then\n"
	"[RESULT] SUCCESS|FAILURE|SKIPPED.";

/* ---- one operation on either path ---------------------------------------------- */

static void
cpu_fill(struct ctx *c, size_t count, bool inplace)
{
	float *a = inplace ? c->recv : c->send;
	size_t i;

	for (i = 0; i < count; i++)
		a[i] = (float)((c->m->rank + 1) * (int)(i % 7 + 1));
	if (!inplace)
		for (i = 0; i < count; i++)
			c->recv[i] = -1; /* a result that never arrives must not look right */
}

static bool
op_fill(struct ctx *c, size_t count, bool inplace)
{
	if (c->m->gpu)
		return nccl_bench_fill(c->m->nccl, count, inplace, c->why, sizeof(c->why));
	cpu_fill(c, count, inplace);
	return true;
}

/* warmup untimed operations, then iters timed ones: *sec per operation */
static bool
op_run(struct ctx *c, size_t count, bool inplace, long warmup, long iters, double *sec)
{
	double t0;
	long i;
	int rc = MPI_SUCCESS;

	if (c->m->gpu)
		return nccl_bench_allreduce(c->m->nccl, count, inplace, (int)warmup, (int)iters, sec, c->why,
		                            sizeof(c->why));
	for (i = 0; i < warmup && rc == MPI_SUCCESS; i++)
		rc = MPI_Allreduce(inplace ? MPI_IN_PLACE : c->send, c->recv, (int)count, MPI_FLOAT, MPI_SUM,
		                   MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < iters && rc == MPI_SUCCESS; i++)
		rc = MPI_Allreduce(inplace ? MPI_IN_PLACE : c->send, c->recv, (int)count, MPI_FLOAT, MPI_SUM,
		                   MPI_COMM_WORLD);
	if (iters > 0)
		*sec = (MPI_Wtime() - t0) / (double)iters;
	if (rc != MPI_SUCCESS)
		snprintf(c->why, sizeof(c->why), "MPI_Allreduce failed (error %d)", rc);
	return rc == MPI_SUCCESS;
}

/* Elements of the result off (i % 7 + 1) * n(n+1)/2; -1 on error. */
static long
op_check(struct ctx *c, size_t count, bool corrupt)
{
	float want = (float)c->m->size * (float)(c->m->size + 1) / 2;
	long wrong = 0;
	size_t i;

	if (c->m->gpu) {
		if (corrupt && !nccl_bench_corrupt(c->m->nccl, count / 2, c->why, sizeof(c->why)))
			return -1;
		return nccl_bench_check_sum(c->m->nccl, count, c->m->size, c->why, sizeof(c->why));
	}
	if (corrupt)
		c->recv[count / 2] += 1;
	for (i = 0; i < count; i++)
		wrong += c->recv[i] != (float)(i % 7 + 1) * want;
	return wrong;
}

/* ---- the sweep ------------------------------------------------------------------ */

/* Times and validates one size; false after a failure on some rank. */
static bool
one_size(struct wl *w, struct ctx *c, const struct mpi_sweep *o, size_t count, struct wl_half *h)
{
	double n = c->m->size, sec = 0, sum = 0, bytes = (double)count * sizeof(float);
	long wrong;
	int k;

	for (k = 0; k < 2; k++) {
		bool inplace = k == 1, ok;
		ok = op_fill(c, count, inplace) && op_run(c, count, inplace, o->warmup, 0, &sec);
		MPI_Barrier(MPI_COMM_WORLD);
		ok = ok && op_run(c, count, inplace, 0, o->iters, &sec);
		if (!ok)
			wl_fail(w, "%zu bytes, %s: %s", count * sizeof(float), inplace ? "in-place" : "out-of-place", c->why);
		if (!mpi_sync(w, c->m))
			return false;
		MPI_Allreduce(&sec, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		h[k].time_us = sum / n * 1e6;
		h[k].algbw = h[k].time_us > 0 ? bytes / (h[k].time_us * 1e-6) / 1e9 : 0;
		h[k].busbw = h[k].algbw * 2 * (n - 1) / n;
		h[k].wrong = -1;
		if (!o->check)
			continue;
		/* validation on its own run from a reset input */
		wrong = 0;
		if (!op_fill(c, count, inplace) || !op_run(c, count, inplace, 1, 0, &sec) ||
		    (wrong = op_check(c, count, o->force_wrong && c->m->rank == 0)) < 0)
			wl_fail(w, "%zu bytes, validation: %s", count * sizeof(float), c->why);
		if (!mpi_sync(w, c->m))
			return false;
		MPI_Allreduce(&wrong, &h[k].wrong, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	}
	return true;
}

int
main(int argc, char **argv)
{
	struct mpi_sweep o = {8, 32u << 20, 2, 20, 5, 1, -1, 0, 600, false, false};
	struct mpi_env m;
	struct ctx c = {&m, NULL, NULL, ""};
	struct wl w;
	struct wl_half h[2];
	size_t bytes, count;
	double busbw_sum = 0, max_busbw = 0, max_at = 0;
	long wrong_tests = 0, wrong_elems = 0, rows = 0;
	cJSON *table = NULL, *metrics;
	int rc, k;

	wl_init(&w, "allreduce", "[ALLREDUCE]");
	mpi_start(&w, &argc, &argv, &m);
	if (!mpi_sweep_parse(&w, argc, argv, &o, "--min-busbw", usage, &rc))
		return rc;
	if (!mpi_sweep_path(&w, &m, &o, &c.send, &c.recv))
		goto out;
	if (!w.quiet) {
		printf("# kunai allreduce: nccl-tests all_reduce_perf format, %s\n",
		       m.gpu ? "NCCL on GPUs" : "MPI_Allreduce on the CPU");
		printf("# Collective test starting: all_reduce_perf\n");
		printf("# nThread 1 nGpus 1 minBytes %zu maxBytes %zu step: %ld(factor) warmup iters: %ld iters: %ld "
		       "agg iters: 1 validation: %ld graph: 0\n#\n", o.minbytes, o.maxbytes, o.factor, o.warmup, o.iters,
		       o.check);
	}
	mpi_print_devices(&w, &m);
	if (!w.quiet)
		wl_coll_header(2);
	table = cJSON_AddArrayToObject(w.json, "rows");
	for (bytes = o.minbytes; bytes <= o.maxbytes; bytes = bytes * (size_t)o.factor) {
		count = bytes / sizeof(float);
		if (count == 0)
			continue;
		if (!one_size(&w, &c, &o, count, h))
			break;
		if (!w.quiet) {
			cJSON *r = cJSON_CreateObject();
			wl_coll_row(count * sizeof(float), count, "float", "sum", -1, h, 2);
			cJSON_AddNumberToObject(r, "bytes", (double)(count * sizeof(float)));
			cJSON_AddNumberToObject(r, "busbw_oop", h[0].busbw);
			cJSON_AddNumberToObject(r, "busbw_ip", h[1].busbw);
			cJSON_AddNumberToObject(r, "wrong", (double)((h[0].wrong > 0 ? h[0].wrong : 0) +
			                                             (h[1].wrong > 0 ? h[1].wrong : 0)));
			cJSON_AddItemToArray(table, r);
		}
		for (k = 0; k < 2; k++) {
			busbw_sum += h[k].busbw;
			if (h[k].busbw > max_busbw)
				max_busbw = h[k].busbw, max_at = (double)(count * sizeof(float));
			if (h[k].wrong > 0)
				wrong_tests++, wrong_elems += h[k].wrong;
		}
		rows++;
		if (bytes > o.maxbytes / (size_t)o.factor)
			break;
	}
	if (!w.quiet && rows) {
		wl_coll_footer(wrong_tests, busbw_sum / (double)(2 * rows));
		printf("# Collective test concluded: all_reduce_perf\n");
	}
	cJSON_AddStringToObject(w.json, "path", m.gpu ? "nccl" : "mpi");
	cJSON_AddNumberToObject(w.json, "ranks", m.size);
	metrics = cJSON_AddObjectToObject(w.json, "metrics");
	cJSON_AddNumberToObject(metrics, "max_busbw", max_busbw);
	cJSON_AddNumberToObject(metrics, "max_busbw_bytes", max_at);
	cJSON_AddNumberToObject(metrics, "avg_busbw", rows ? busbw_sum / (double)(2 * rows) : 0);
	cJSON_AddNumberToObject(metrics, "wrong", (double)wrong_elems);
	if (rows)
		wl_log(&w, "%d ranks, %s: largest busbw %.2f GB/s at %.0f bytes, average %.2f GB/s, %ld wrong elements",
		       m.size, m.gpu ? "NCCL" : "MPI", max_busbw, max_at, busbw_sum / (double)(2 * rows), wrong_elems);
	/* the totals are all-reduced: rank 0 alone judges them */
	if (m.rank == 0 && wrong_tests)
		wl_fail(&w, "%ld of %ld results had wrong elements (%ld in all)", wrong_tests, 2 * rows, wrong_elems);
	if (m.rank == 0 && !wl_failed(&w) && rows == 0)
		wl_fail(&w, "no size between --minbytes %zu and --maxbytes %zu holds a float", o.minbytes, o.maxbytes);
	if (m.rank == 0 && o.floor > 0 && rows && max_busbw < o.floor)
		wl_fail(&w, "largest busbw %.2f GB/s is below --min-busbw %g", max_busbw, o.floor);
out:
	free(c.send);
	free(c.recv);
	return mpi_finish(&w, &m);
}
