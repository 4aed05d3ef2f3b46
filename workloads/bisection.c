/* bisection: bisection bandwidth. The ranks are cut in two halves (rank r
 * pairs with r + n/2: with Slurm's block distribution, the first half of
 * the nodes with the second) and every pair exchanges buffers in both
 * directions at once (grouped ncclSend/ncclRecv on GPUs, MPI_Sendrecv on
 * the CPU). Rows in nccl-tests' format (one timing per size, busbw =
 * algbw, as for sendrecv), then the per-pair bandwidths and their sum, the
 * bisection bandwidth per direction, at the largest size. Each size is
 * validated from a reset buffer after the timed loop. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "gpu.h"
#include "mpi_gpu.h"
#include "wl.h"

static const char usage[] =
	"usage: bisection [options]   (under mpirun/srun: an even number of ranks,\n"
	"one per GPU)\n"
	"Rank r exchanges with rank r + n/2, all pairs at once: per-pair and aggregate\n"
	"bandwidth across the bisection, NCCL send/recv on GPUs or MPI on the CPU.\n\n"
	"  -b, --minbytes N    smallest size, bytes, K/M/G suffixes (default 1M)\n"
	"  -e, --maxbytes N    largest size (default 32M)\n"
	"  -f, --stepfactor N  multiply the size by N each step (default 2)\n"
	"  -n, --iters N       timed exchanges per size (default 20)\n"
	"  -w, --warmup N      untimed exchanges per size first (default 5)\n"
	"  -c, --check N       validate each size from a reset buffer (default 1)\n"
	"  --min-pair-bw X     fail when a pair is below X GB/s at the largest size\n"
	"  --timeout S         an NCCL operation running longer fails (default 600)\n"
	"  --expect-gpus N     GPUs per node (fewer fails; 0: the CPU path)\n"
	"  --cpu               the CPU path even when GPUs are present\n"
	"  --force-wrong       corrupt one received element on rank 0 (tests the check)\n"
	"  --help              this help\n\n"
	"Rank 0 prints the table, [BISECTION] log lines, one JSON line, then\n"
	"[RESULT] SUCCESS|FAILURE|SKIPPED.";

struct ctx {
	struct mpi_env *m;
	int peer;
	float *send, *recv;
	char why[512];
};

static bool
op_fill(struct ctx *c, size_t count)
{
	size_t i;

	if (c->m->gpu)
		return nccl_bench_fill(c->m->nccl, count, false, c->why, sizeof(c->why));
	for (i = 0; i < count; i++) {
		c->send[i] = (float)((c->m->rank + 1) * (int)(i % 7 + 1));
		c->recv[i] = -1;
	}
	return true;
}

static bool
op_run(struct ctx *c, size_t count, long warmup, long iters, double *sec)
{
	double t0 = 0;
	long i;
	int rc = MPI_SUCCESS;

	if (c->m->gpu)
		return nccl_bench_exchange(c->m->nccl, count, c->peer, (int)warmup, (int)iters, sec, c->why,
		                           sizeof(c->why));
	for (i = 0; i < warmup + iters && rc == MPI_SUCCESS; i++) {
		if (i == warmup)
			t0 = MPI_Wtime();
		rc = MPI_Sendrecv(c->send, (int)count, MPI_FLOAT, c->peer, 0, c->recv, (int)count, MPI_FLOAT, c->peer, 0,
		                  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	if (iters > 0)
		*sec = (MPI_Wtime() - t0) / (double)iters;
	if (rc != MPI_SUCCESS)
		snprintf(c->why, sizeof(c->why), "MPI_Sendrecv with rank %d failed (error %d)", c->peer, rc);
	return rc == MPI_SUCCESS;
}

static long
op_check(struct ctx *c, size_t count, bool corrupt)
{
	long wrong = 0;
	size_t i;

	if (c->m->gpu) {
		if (corrupt && !nccl_bench_corrupt(c->m->nccl, count / 2, c->why, sizeof(c->why)))
			return -1;
		return nccl_bench_check_peer(c->m->nccl, count, c->peer, c->why, sizeof(c->why));
	}
	if (corrupt)
		c->recv[count / 2] += 1;
	for (i = 0; i < count; i++)
		wrong += c->recv[i] != (float)((c->peer + 1) * (int)(i % 7 + 1));
	return wrong;
}

/* Times and validates one size: *sec is this rank's time per exchange. */
static bool
one_size(struct wl *w, struct ctx *c, const struct mpi_sweep *o, size_t count, double *sec, long *wrong_all)
{
	long wrong = 0;

	if (!op_fill(c, count) || !op_run(c, count, o->warmup, 0, sec))
		wl_fail(w, "%zu bytes: %s", count * sizeof(float), c->why);
	MPI_Barrier(MPI_COMM_WORLD);
	if (!wl_failed(w) && !op_run(c, count, 0, o->iters, sec))
		wl_fail(w, "%zu bytes: %s", count * sizeof(float), c->why);
	if (!mpi_sync(w, c->m))
		return false;
	*wrong_all = -1;
	if (!o->check)
		return true;
	if (!op_fill(c, count) || !op_run(c, count, 1, 0, sec) ||
	    (wrong = op_check(c, count, o->force_wrong && c->m->rank == 0)) < 0)
		wl_fail(w, "%zu bytes, validation: %s", count * sizeof(float), c->why);
	if (!mpi_sync(w, c->m))
		return false;
	MPI_Allreduce(&wrong, wrong_all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	return true;
}

/* Rank 0: the pairs at the last size, from every rank's time. */
static void
pairs(struct wl *w, struct ctx *c, const struct mpi_sweep *o, double bytes, double sec, cJSON *metrics)
{
	int n = c->m->size, half = n / 2, i;
	double *t = c->m->rank == 0 ? malloc((size_t)n * sizeof(double)) : NULL, agg = 0, lo = 0, hi = 0;
	char *hosts = c->m->rank == 0 ? malloc((size_t)n * 256) : NULL;
	cJSON *arr;

	if (c->m->rank == 0 && (!t || !hosts)) {
		fputs("out of memory\n", stderr);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Gather(&sec, 1, MPI_DOUBLE, t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	MPI_Gather(c->m->host, 256, MPI_CHAR, hosts, 256, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (c->m->rank != 0)
		return;
	arr = cJSON_AddArrayToObject(w->json, "pairs");
	printf("# Per pair at %.0f bytes (GB/s in each direction):\n", bytes);
	for (i = 0; i < half; i++) {
		/* a pair is as fast as its slower side */
		double ts = t[i] > t[i + half] ? t[i] : t[i + half], bw = ts > 0 ? bytes / ts / 1e9 : 0;
		cJSON *p = cJSON_CreateObject();
		printf("#  pair %3d <-> %3d  %10s <-> %-10s  %8.2f\n", i, i + half, hosts + (size_t)i * 256,
		       hosts + (size_t)(i + half) * 256, bw);
		cJSON_AddNumberToObject(p, "a", i);
		cJSON_AddNumberToObject(p, "b", i + half);
		cJSON_AddNumberToObject(p, "busbw", bw);
		cJSON_AddItemToArray(arr, p);
		agg += bw;
		if (i == 0 || bw < lo)
			lo = bw;
		if (i == 0 || bw > hi)
			hi = bw;
	}
	printf("# %-20s : %g GB/s per direction (%d pairs)\n", "Bisection bandwidth", agg, half);
	cJSON_AddNumberToObject(metrics, "bisection_bw", agg);
	cJSON_AddNumberToObject(metrics, "min_pair_bw", lo);
	cJSON_AddNumberToObject(metrics, "max_pair_bw", hi);
	wl_log(w, "%d pairs at %.0f bytes: slowest %.2f, fastest %.2f, aggregate %.2f GB/s per direction", half, bytes,
	       lo, hi, agg);
	if (o->floor > 0 && lo < o->floor)
		wl_fail(w, "slowest pair %.2f GB/s is below --min-pair-bw %g", lo, o->floor);
	free(t);
	free(hosts);
}

int
main(int argc, char **argv)
{
	struct mpi_sweep o = {1u << 20, 32u << 20, 2, 20, 5, 1, -1, 0, 600, false, false};
	struct mpi_env m;
	struct ctx c = {&m, 0, NULL, NULL, ""};
	struct wl w;
	struct wl_half h;
	size_t bytes, count, last = 0;
	double sec = 0, last_sec = 0, sum, busbw_sum = 0;
	long wrong, wrong_tests = 0, wrong_elems = 0, rows = 0;
	cJSON *metrics;
	bool ok = true;
	int rc;

	wl_init(&w, "bisection", "[BISECTION]");
	mpi_start(&w, &argc, &argv, &m);
	if (!mpi_sweep_parse(&w, argc, argv, &o, "--min-pair-bw", usage, &rc))
		return rc;
	if (m.size < 2 || m.size % 2) {
		if (m.rank == 0)
			wl_fail(&w, "needs an even number of ranks to cut in two halves, not %d", m.size);
		return mpi_finish(&w, &m);
	}
	c.peer = (m.rank + m.size / 2) % m.size;
	if (!mpi_sweep_path(&w, &m, &o, &c.send, &c.recv))
		goto out;
	if (!w.quiet)
		printf("# kunai bisection: rank r <-> rank r + %d, %s, nccl-tests row format\n"
		       "# nRanks %d minBytes %zu maxBytes %zu step: %ld(factor) warmup iters: %ld iters: %ld "
		       "validation: %ld\n#\n", m.size / 2, m.gpu ? "ncclSend/ncclRecv on GPUs" : "MPI_Sendrecv on the CPU",
		       m.size, o.minbytes, o.maxbytes, o.factor, o.warmup, o.iters, o.check);
	mpi_print_devices(&w, &m);
	if (!w.quiet)
		wl_coll_header(1);
	for (bytes = o.minbytes; bytes <= o.maxbytes; bytes *= (size_t)o.factor) {
		count = bytes / sizeof(float);
		if (count == 0)
			continue;
		if (!(ok = one_size(&w, &c, &o, count, &sec, &wrong)))
			break;
		MPI_Allreduce(&sec, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		h.time_us = sum / m.size * 1e6;
		h.algbw = h.time_us > 0 ? (double)(count * sizeof(float)) / (h.time_us * 1e-6) / 1e9 : 0;
		h.busbw = h.algbw;
		h.wrong = wrong;
		if (!w.quiet)
			wl_coll_row(count * sizeof(float), count, "float", "none", -1, &h, 1);
		busbw_sum += h.busbw;
		if (wrong > 0)
			wrong_tests++, wrong_elems += wrong;
		rows++;
		last = count * sizeof(float);
		last_sec = sec;
		if (bytes > o.maxbytes / (size_t)o.factor)
			break;
	}
	metrics = cJSON_AddObjectToObject(w.json, "metrics");
	/* ok and rows are the same on every rank: pairs() is collective */
	if (ok && rows) {
		if (!w.quiet)
			wl_coll_footer(wrong_tests, busbw_sum / (double)rows);
		pairs(&w, &c, &o, (double)last, last_sec, metrics);
	}
	cJSON_AddStringToObject(w.json, "path", m.gpu ? "nccl" : "mpi");
	cJSON_AddNumberToObject(w.json, "ranks", m.size);
	cJSON_AddNumberToObject(metrics, "avg_busbw", rows ? busbw_sum / (double)rows : 0);
	cJSON_AddNumberToObject(metrics, "wrong", (double)wrong_elems);
	if (m.rank == 0 && wrong_tests)
		wl_fail(&w, "%ld of %ld sizes had wrong elements (%ld in all)", wrong_tests, rows, wrong_elems);
	if (m.rank == 0 && !wl_failed(&w) && rows == 0)
		wl_fail(&w, "no size between --minbytes %zu and --maxbytes %zu holds a float", o.minbytes, o.maxbytes);
out:
	free(c.send);
	free(c.recv);
	return mpi_finish(&w, &m);
}
