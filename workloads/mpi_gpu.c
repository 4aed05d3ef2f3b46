/* mpi_gpu.c: ranks, flags, path choice, NCCL bootstrap, failure collection
 * and the size sweep's set-up for the MPI workloads (see mpi_gpu.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "gpu.h"
#include "mpi_gpu.h"
#include "wl.h"

enum { REASON = 1024 };

/* In an AddressSanitizer build: what Open MPI and its plugins leave
 * allocated at exit is not this program's leak, and the CUDA runtime needs
 * the shadow gap (replaces wl.c's weak definition). */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "detect_leaks=0:protect_shadow_gap=0";
}

void
mpi_start(struct wl *w, int *argc, char ***argv, struct mpi_env *m)
{
	MPI_Comm node;

	memset(m, 0, sizeof(*m));
	MPI_Init(argc, argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &m->rank);
	MPI_Comm_size(MPI_COMM_WORLD, &m->size);
	/* the ranks sharing this node: the local rank picks the GPU */
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, m->rank, MPI_INFO_NULL, &node);
	MPI_Comm_rank(node, &m->local_rank);
	MPI_Comm_size(node, &m->local_size);
	MPI_Comm_free(&node);
	if (gethostname(m->host, sizeof(m->host) - 1) != 0)
		snprintf(m->host, sizeof(m->host), "unknown");
	snprintf(m->desc, sizeof(m->desc), "cpu");
	w->quiet = m->rank != 0;
}

bool
mpi_sync(struct wl *w, const struct mpi_env *m)
{
	char mine[REASON] = "", *all = NULL;
	int n = cJSON_GetArraySize(w->failures), i, bad = n > 0, anybad = 0;
	size_t len = 0;

	for (i = 0; m->rank != 0 && i < n; i++) {
		const char *s = cJSON_GetArrayItem(w->failures, i)->valuestring;
		int k;
		/* rank 0 cannot know where a rank runs: say it here */
		if (strncmp(s, "rank ", 5) == 0)
			k = snprintf(mine + len, sizeof(mine) - len, "%s%s", i ? "; " : "", s);
		else
			k = snprintf(mine + len, sizeof(mine) - len, "%srank %d on %s: %s", i ? "; " : "", m->rank,
			             m->host, s);
		if (k < 0 || (size_t)k >= sizeof(mine) - len)
			break;
		len += (size_t)k;
	}
	if (m->rank == 0 && !(all = malloc((size_t)m->size * REASON))) {
		fputs("out of memory\n", stderr);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Gather(mine, REASON, MPI_CHAR, all, REASON, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (m->rank == 0) {
		for (i = 1; i < m->size; i++) {
			const char *r = all + (size_t)i * REASON;
			if (!*r)
				continue;
			cJSON_AddItemToArray(w->failures, cJSON_CreateString(r));
			wl_log(w, "FAIL: %s", r);
		}
		free(all);
	} else if (n > 0) {
		/* reported through rank 0 now */
		cJSON_Delete(w->failures);
		w->failures = cJSON_CreateArray();
	}
	MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return !anybad && !wl_failed(w);
}

static bool
open_nccl(struct wl *w, struct mpi_env *m, size_t max_bytes, double timeout_s)
{
	char why[512] = "", id[1024];
	size_t idn = nccl_id_size();
	int ok = 1;

	if (idn == 0 || idn > sizeof(id)) {
		nccl_get_id(id, why, sizeof(why));
		wl_fail(w, "rank %d on %s: %s", m->rank, m->host, why);
		return false;
	}
	if (m->rank == 0 && !nccl_get_id(id, why, sizeof(why))) {
		wl_fail(w, "ncclGetUniqueId: %s", why);
		ok = 0;
	}
	MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (!ok)
		return false;
	MPI_Bcast(id, (int)idn, MPI_BYTE, 0, MPI_COMM_WORLD);
	m->nccl = nccl_open(id, m->size, m->rank, m->dev, max_bytes, timeout_s, why, sizeof(why));
	if (!m->nccl)
		wl_fail(w, "rank %d on %s, GPU %d: %s", m->rank, m->host, m->dev, why);
	return mpi_sync(w, m);
}

bool
mpi_choose_path(struct wl *w, struct mpi_env *m, long expect, bool cpu, size_t max_bytes, double timeout_s)
{
	char why[512] = "", name[256], bus[64];
	int ndev = 0, lo = 0, hi = 0, major, minor;
	double mem;

	m->gpu = false;
	if (cpu || expect == 0)
		return mpi_sync(w, m);
	ndev = gpu_count(why, sizeof(why));
	if (expect > 0 && ndev < expect)
		wl_fail(w, "rank %d on %s: expected %ld GPU%s, found %d%s%s", m->rank, m->host, expect,
		        expect == 1 ? "" : "s", ndev,
		        *why ? ": " : "", why);
	else if (ndev > 0 && m->local_rank >= ndev)
		wl_fail(w, "rank %d on %s: %d ranks on this node but %d GPUs (start one rank per GPU)", m->rank,
		        m->host, m->local_size, ndev);
	if (!mpi_sync(w, m))
		return false;
	MPI_Allreduce(&ndev, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	MPI_Allreduce(&ndev, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (hi == 0) {
		wl_log(w, "no GPU on any node (%s): the MPI path on the CPU", why);
		return true;
	}
	if (lo == 0 && ndev == 0)
		wl_fail(w, "rank %d on %s: no GPU (%s) while other nodes have some", m->rank, m->host, why);
	if (!mpi_sync(w, m))
		return false;
	m->gpu = true;
	m->dev = m->local_rank;
	if (!gpu_select(m->dev, why, sizeof(why)) ||
	    !gpu_info(m->dev, name, sizeof(name), &major, &minor, &mem, bus, sizeof(bus), why, sizeof(why)))
		wl_fail(w, "rank %d on %s, GPU %d: %s", m->rank, m->host, m->dev, why);
	else
		snprintf(m->desc, sizeof(m->desc), "device %2d [%s] %s", m->dev, bus, name);
	if (!mpi_sync(w, m))
		return false;
	return open_nccl(w, m, max_bytes, timeout_s);
}

void
mpi_print_devices(struct wl *w, const struct mpi_env *m)
{
	char mine[768], *all = NULL;
	int i;

	snprintf(mine, sizeof(mine), "#  Rank %2d Group  0 Pid %6d on %10s %s", m->rank, (int)getpid(), m->host,
	         m->desc);
	if (m->rank == 0 && !(all = malloc((size_t)m->size * sizeof(mine)))) {
		fputs("out of memory\n", stderr);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Gather(mine, (int)sizeof(mine), MPI_CHAR, all, (int)sizeof(mine), MPI_CHAR, 0, MPI_COMM_WORLD);
	if (m->rank == 0 && !w->quiet) {
		puts("# Using devices");
		for (i = 0; i < m->size; i++)
			puts(all + (size_t)i * sizeof(mine));
		fflush(stdout);
	}
	free(all);
}

int
mpi_finish(struct wl *w, struct mpi_env *m)
{
	int rc;

	mpi_sync(w, m);
	if (m->nccl)
		nccl_close(m->nccl);
	m->nccl = NULL;
	rc = wl_finish(w);
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return rc;
}

bool
mpi_parse(struct wl *w, int argc, char **argv, const struct wl_flag *flags, size_t n, const char *usage, int *rc)
{
	if (!(*rc = wl_parse(w, argc, argv, flags, n, usage)))
		return true;
	if (*rc < 0)
		*rc = 0; /* --help */
	MPI_Finalize();
	return false;
}

bool
mpi_sweep_parse(struct wl *w, int argc, char **argv, struct mpi_sweep *o, const char *floor_flag,
                const char *usage, int *rc)
{
	const struct wl_flag flags[] = {
		{.s = "-b", .l = "--minbytes", .kind = WL_SIZE, .dst = &o->minbytes, .lo = 1},
		{.s = "-e", .l = "--maxbytes", .kind = WL_SIZE, .dst = &o->maxbytes, .lo = 1},
		{.s = "-f", .l = "--stepfactor", .kind = WL_LONG, .dst = &o->factor, .lo = 2, .hi = 1024},
		{.s = "-n", .l = "--iters", .kind = WL_LONG, .dst = &o->iters, .lo = 1, .hi = 1000000},
		{.s = "-w", .l = "--warmup", .kind = WL_LONG, .dst = &o->warmup, .lo = 0, .hi = 1000000},
		{.s = "-c", .l = "--check", .kind = WL_LONG, .dst = &o->check, .lo = 0, .hi = 1},
		{.l = "--expect-gpus", .kind = WL_LONG, .dst = &o->expect, .lo = 0, .hi = 64},
		{.l = floor_flag, .kind = WL_DOUBLE, .dst = &o->floor, .lo = 0, .hi = 1e9, .bad = "expected GB/s"},
		{.l = "--timeout", .kind = WL_DOUBLE, .dst = &o->timeout, .lo = 1, .hi = 1e7, .bad = "expected seconds"},
		{.l = "--force-wrong", .kind = WL_SET, .dst = &o->force_wrong},
		{.l = "--cpu", .kind = WL_SET, .dst = &o->cpu},
	};

	if (!mpi_parse(w, argc, argv, flags, sizeof(flags) / sizeof(flags[0]), usage, rc))
		return false;
	if (o->minbytes <= o->maxbytes)
		return true;
	*rc = wl_usage_error(w, "--minbytes %zu is larger than --maxbytes %zu", o->minbytes, o->maxbytes);
	MPI_Finalize();
	return false;
}

bool
mpi_sweep_path(struct wl *w, struct mpi_env *m, const struct mpi_sweep *o, float **send, float **recv)
{
	size_t maxcount = o->maxbytes / sizeof(float);

	*send = *recv = NULL;
	if (!mpi_choose_path(w, m, o->expect, o->cpu, maxcount * sizeof(float), o->timeout))
		return false;
	if (m->gpu || maxcount == 0)
		return true;
	*send = malloc(maxcount * sizeof(float));
	*recv = malloc(maxcount * sizeof(float));
	if (!*send || !*recv)
		wl_fail(w, "rank %d on %s: cannot allocate 2 x %zu bytes", m->rank, m->host, o->maxbytes);
	return mpi_sync(w, m);
}
