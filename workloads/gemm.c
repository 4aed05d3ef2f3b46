/* gemm: GEMM throughput per GPU (cuBLAS: fp64, fp32, tf32, bf16, fp16) with
 * the spread across the GPUs of the node, or on a machine without GPUs a
 * blocked multithreaded C GEMM (fp64, fp32). Inputs are structured so the
 * exact product is known (gemm_pattern.h) and every element is checked:
 * a wrong result fails whatever its speed. */
#define _GNU_SOURCE /* sched_getaffinity: the CPUs a Slurm job may use, not the node's */
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gemm_pattern.h"
#include "gpu.h"
#include "wl.h"

static const char *const prec_names[GEMM_NPREC] = {"fp64", "fp32", "tf32", "bf16", "fp16"};

struct opts {
	long size, m, n, k;
	long warmup, iters, reps, threads, expect;
	bool prec[GEMM_NPREC], prec_set;
	double min_tflops[GEMM_NPREC]; /* 0: no floor */
	double max_spread;
	bool force_wrong, cpu;
};

static const char usage[] =
	"usage: gemm [options]\n"
	"GEMM throughput per GPU (cuBLAS), or a multithreaded C GEMM without GPUs.\n"
	"Inputs have an exactly known product; every element of C is checked.\n\n"
	"  --size N            M = N = K (default 8192 on GPUs, 1024 on the CPU)\n"
	"  --m M --n N --k K   a non-square shape\n"
	"  --precision LIST    fp64,fp32,tf32,bf16,fp16 (default: all on GPUs,\n"
	"                      fp64,fp32 on the CPU, which has no tf32/bf16/fp16 path)\n"
	"  --warmup N          untimed GEMMs first (default 5 on GPUs, 1 on the CPU)\n"
	"  --iters N           GEMMs per timed repetition (default 20 on GPUs, 1 on the CPU)\n"
	"  --reps N            timed repetitions; the median is reported (default 5, 3)\n"
	"  --threads N         CPU threads (default: the CPUs this process may use)\n"
	"  --expect-gpus N     GPUs this node must have: fewer, or unusable, fails;\n"
	"                      0 runs the CPU path (default: GPUs if present, else CPU)\n"
	"  --cpu               the CPU path even when GPUs are present\n"
	"  --min-tflops X|P=X,...  floor per GPU (all precisions, or per precision)\n"
	"  --max-spread F      fail when (max - min) / median TFLOP/s across the\n"
	"                      node's GPUs exceeds F (default 0.10)\n"
	"  --force-wrong       corrupt one element of C (tests that the check fails)\n"
	"  --help              this help\n\n"
	"Prints [GEMM] log lines, one JSON line, then [RESULT] SUCCESS|FAILURE|SKIPPED.";

static int
find_prec(const char *s, size_t n)
{
	int p;

	for (p = 0; p < GEMM_NPREC; p++)
		if (strlen(prec_names[p]) == n && strncmp(prec_names[p], s, n) == 0)
			return p;
	return -1;
}

static bool
parse_precisions(const char *s, void *opts)
{
	struct opts *o = opts;
	const char *p = s;

	memset(o->prec, 0, sizeof(o->prec));
	while (*p) {
		size_t n = strcspn(p, ",");
		int k = find_prec(p, n);
		if (k < 0)
			return false;
		o->prec[k] = true;
		p += n;
		if (*p == ',')
			p++;
	}
	o->prec_set = true;
	return p != s;
}

/* "X" for every precision, or "bf16=600,fp32=40". */
static bool
parse_floor(const char *s, void *opts)
{
	struct opts *o = opts;
	char buf[64];
	const char *p = s;
	double v;
	int k;

	if (wl_parse_double(s, 0, 1e9, &v)) {
		for (k = 0; k < GEMM_NPREC; k++)
			o->min_tflops[k] = v;
		return true;
	}
	while (*p) {
		size_t n = strcspn(p, ","), eq = strcspn(p, "=");
		if (eq >= n || n - eq - 1 >= sizeof(buf) || (k = find_prec(p, eq)) < 0)
			return false;
		memcpy(buf, p + eq + 1, n - eq - 1);
		buf[n - eq - 1] = '\0';
		if (!wl_parse_double(buf, 0, 1e9, &o->min_tflops[k]))
			return false;
		p += n;
		if (*p == ',')
			p++;
	}
	return p != s;
}

/* ---- the CPU path ------------------------------------------------------------ */

/* Column-major C(M x N) = A(M x K) . B(K x N), columns of C split between
 * threads. The kernel takes two columns of C and four of A at a time, so
 * each load of A feeds eight multiply-adds; blocks of A stay in cache. */
enum { IB = 256, KB = 128 };

#define KERNEL(NAME, T)                                                                            \
	static void NAME(const T *A, const T *B, T *C, long M, long K, long j0, long j1)                 \
	{                                                                                                \
		long i0, k0, i, j, k;                                                                        \
		for (j = j0; j < j1; j++)                                                                    \
			memset(C + j * M, 0, (size_t)M * sizeof(T));                                             \
		for (k0 = 0; k0 < K; k0 += KB)                                                               \
			for (i0 = 0; i0 < M; i0 += IB) {                                                         \
				long ie = i0 + IB < M ? i0 + IB : M, ke = k0 + KB < K ? k0 + KB : K;                 \
				for (j = j0; j + 1 < j1; j += 2) {                                                   \
					T *c0 = C + j * M, *c1 = C + (j + 1) * M;                                        \
					const T *b0 = B + j * K, *b1 = B + (j + 1) * K;                                  \
					for (k = k0; k + 3 < ke; k += 4) {                                               \
						const T *a0 = A + k * M, *a1 = a0 + M, *a2 = a1 + M, *a3 = a2 + M;           \
						T x0 = b0[k], x1 = b0[k + 1], x2 = b0[k + 2], x3 = b0[k + 3];                \
						T y0 = b1[k], y1 = b1[k + 1], y2 = b1[k + 2], y3 = b1[k + 3];                \
						for (i = i0; i < ie; i++) {                                                  \
							c0[i] += a0[i] * x0 + a1[i] * x1 + a2[i] * x2 + a3[i] * x3;              \
							c1[i] += a0[i] * y0 + a1[i] * y1 + a2[i] * y2 + a3[i] * y3;              \
						}                                                                            \
					}                                                                                \
					for (; k < ke; k++)                                                              \
						for (i = i0; i < ie; i++) {                                                  \
							c0[i] += A[k * M + i] * b0[k];                                           \
							c1[i] += A[k * M + i] * b1[k];                                           \
						}                                                                            \
				}                                                                                    \
				for (; j < j1; j++)                                                                  \
					for (k = k0; k < ke; k++)                                                        \
						for (i = i0; i < ie; i++)                                                    \
							C[j * M + i] += A[k * M + i] * B[j * K + k];                             \
			}                                                                                        \
	}
KERNEL(kernel_d, double)
KERNEL(kernel_s, float)

struct task {
	const void *a, *b;
	void *c;
	long m, k, j0, j1;
	bool dbl;
};

static void *
task_run(void *arg)
{
	struct task *t = arg;

	if (t->dbl)
		kernel_d(t->a, t->b, t->c, t->m, t->k, t->j0, t->j1);
	else
		kernel_s(t->a, t->b, t->c, t->m, t->k, t->j0, t->j1);
	return NULL;
}

enum { MAX_THREADS = 256 };

/* One GEMM on nt threads (the caller's among them). */
static void
cpu_gemm(const void *a, const void *b, void *c, long m, long n, long k, bool dbl, long nt)
{
	pthread_t th[MAX_THREADS];
	bool made[MAX_THREADS];
	struct task t[MAX_THREADS];
	long i, per = (n + nt - 1) / nt;

	/* whole column pairs per thread keep the two-column kernel busy */
	per += per % 2;
	for (i = 0; i < nt; i++) {
		long j0 = i * per < n ? i * per : n, j1 = (i + 1) * per < n ? (i + 1) * per : n;
		t[i] = (struct task){a, b, c, m, k, j0, j1, dbl};
		made[i] = i < nt - 1 && pthread_create(&th[i], NULL, task_run, &t[i]) == 0;
		/* the last share, or one whose thread could not start, runs here */
		if (!made[i])
			task_run(&t[i]);
	}
	for (i = 0; i < nt; i++)
		if (made[i])
			pthread_join(th[i], NULL);
}

/* What a correct element may differ by: two units of the output's rounding
 * (bf16 and fp16 results are rounded once from an exact fp32 sum). */
static double
tolerance(int p, double exact)
{
	static const double unit[GEMM_NPREC] = {0x1p-53, 0x1p-24, 0x1p-24, 0x1p-8, 0x1p-11};

	return 2 * unit[p] * fabs(exact) + 1e-9;
}

static void
fill(void *a, void *b, long m, long n, long k, bool dbl)
{
	long i, j;

	for (j = 0; j < k; j++)
		for (i = 0; i < m; i++) {
			int v = gemm_pa(i) + gemm_pc(j);
			if (dbl)
				((double *)a)[j * m + i] = v;
			else
				((float *)a)[j * m + i] = (float)v;
		}
	for (j = 0; j < n; j++)
		for (i = 0; i < k; i++) {
			int v = gemm_pd(i) + gemm_pe(j);
			if (dbl)
				((double *)b)[j * k + i] = v;
			else
				((float *)b)[j * k + i] = (float)v;
		}
}

/* Times and checks precision p on the CPU; *gflops gets the median. */
static bool
cpu_run(struct wl *w, const struct opts *o, int p, double *gflops, long *wrong)
{
	bool dbl = p == GEMM_FP64;
	size_t es = dbl ? sizeof(double) : sizeof(float);
	long m = o->m, n = o->n, k = o->k, i, j, r;
	void *a = malloc((size_t)(m * k) * es), *b = malloc((size_t)(k * n) * es), *c = malloc((size_t)(m * n) * es);
	double rate[64], t0, flop = 2.0 * (double)m * (double)n * (double)k * (double)o->iters;
	struct gemm_sums s;
	bool ok = false;

	if (!a || !b || !c) {
		wl_fail(w, "%s: cannot allocate %.1f MiB for the matrices", prec_names[p],
		        (double)((m * k + k * n + m * n) * (long)es) / 1048576.0);
		goto out;
	}
	fill(a, b, m, n, k, dbl);
	for (r = 0; r < o->warmup; r++)
		cpu_gemm(a, b, c, m, n, k, dbl, o->threads);
	for (r = 0; r < o->reps; r++) {
		t0 = wl_now();
		for (i = 0; i < o->iters; i++)
			cpu_gemm(a, b, c, m, n, k, dbl, o->threads);
		rate[r] = flop / (wl_now() - t0) / 1e9;
	}
	*gflops = wl_median(rate, (size_t)o->reps);
	if (o->force_wrong) {
		if (dbl)
			((double *)c)[(n / 2) * m + m / 2] += 1;
		else
			((float *)c)[(n / 2) * m + m / 2] += 1;
	}
	gemm_sums(k, &s);
	*wrong = 0;
	for (j = 0; j < n; j++)
		for (i = 0; i < m; i++) {
			double e = gemm_exact(&s, i, j);
			double v = dbl ? ((double *)c)[j * m + i] : ((float *)c)[j * m + i];
			*wrong += !(fabs(v - e) <= tolerance(p, e));
		}
	ok = true;
out:
	free(a);
	free(b);
	free(c);
	return ok;
}

static bool
cpu_path(struct wl *w, const struct opts *o, cJSON *results, cJSON *metrics)
{
	int p;
	bool any = false;

	wl_log(w, "CPU path: %ld threads, %ldx%ldx%ld, %ld warm-up, %ld x %ld timed", o->threads, o->m, o->n, o->k,
	       o->warmup, o->reps, o->iters);
	for (p = 0; p < GEMM_NPREC; p++) {
		double gflops = 0;
		long wrong = 0;
		char key[64];
		cJSON *r;

		if (!o->prec[p])
			continue;
		if (p != GEMM_FP64 && p != GEMM_FP32) {
			wl_log(w, "%s: no CPU path (GPU tensor-core precision); not measured", prec_names[p]);
			continue;
		}
		any = true;
		if (!cpu_run(w, o, p, &gflops, &wrong))
			continue;
		wl_log(w, "cpu %s: %.2f GFLOP/s (median of %ld), %ld wrong elements", prec_names[p], gflops, o->reps,
		       wrong);
		r = cJSON_AddObjectToObject(results, prec_names[p]);
		cJSON_AddNumberToObject(r, "gflops", gflops);
		cJSON_AddNumberToObject(r, "tflops", gflops / 1e3);
		cJSON_AddNumberToObject(r, "wrong", (double)wrong);
		snprintf(key, sizeof(key), "%s_gflops", prec_names[p]);
		cJSON_AddNumberToObject(metrics, key, gflops);
		if (wrong)
			wl_fail(w, "cpu %s: %ld of %ld elements differ from the exact product", prec_names[p], wrong,
			        o->m * o->n);
		if (o->min_tflops[p] > 0 && gflops / 1e3 < o->min_tflops[p])
			wl_fail(w, "cpu %s: %.4f TFLOP/s is below --min-tflops %g", prec_names[p], gflops / 1e3,
			        o->min_tflops[p]);
	}
	if (!any)
		wl_skip(w, "no requested precision has a CPU path (fp64, fp32)");
	return true;
}

/* ---- the GPU path ------------------------------------------------------------ */

static void
gpu_path(struct wl *w, const struct opts *o, int ndev, cJSON *results, cJSON *metrics)
{
	double rate[GEMM_NPREC][64], reps[64];
	bool have[GEMM_NPREC][64];
	char why[512], name[256], bus[64], key[64];
	int p, d, major, minor;
	double mem;
	cJSON *models;

	if (ndev > 64)
		ndev = 64;
	/* each GPU's model, by index, so that the grader names the model of each value */
	models = cJSON_AddArrayToObject(w->json, "gpu_models");
	for (d = 0; d < ndev; d++)
		cJSON_AddItemToArray(models, cJSON_CreateNull());
	memset(have, 0, sizeof(have));
	wl_log(w, "GPU path: %d GPUs, %ldx%ldx%ld, %ld warm-up, %ld x %ld timed", ndev, o->m, o->n, o->k, o->warmup,
	       o->reps, o->iters);
	for (d = 0; d < ndev; d++) {
		if (!gpu_info(d, name, sizeof(name), &major, &minor, &mem, bus, sizeof(bus), why, sizeof(why))) {
			wl_fail(w, "GPU %d: %s", d, why);
			continue;
		}
		wl_log(w, "GPU %d: %s (compute %d.%d, %.1f GiB, %s)", d, name, major, minor, mem, bus);
		cJSON_ReplaceItemInArray(models, d, cJSON_CreateString(name));
		for (p = 0; p < GEMM_NPREC; p++) {
			struct gemm_job j = {d, (enum gemm_prec)p, (int)o->m, (int)o->n, (int)o->k, (int)o->warmup,
			                     (int)o->iters, (int)o->reps, o->force_wrong};
			long wrong = 0;

			if (!o->prec[p])
				continue;
			if (!gemm_gpu_run(&j, reps, &wrong, why, sizeof(why))) {
				wl_fail(w, "GPU %d %s: %s", d, prec_names[p], why);
				continue;
			}
			rate[p][d] = wl_median(reps, (size_t)o->reps);
			have[p][d] = true;
			wl_log(w, "GPU %d %s: %.1f TFLOP/s (median of %ld), %ld wrong elements", d, prec_names[p],
			       rate[p][d], o->reps, wrong);
			if (wrong)
				wl_fail(w, "GPU %d %s: %ld of %ld elements differ from the exact product", d, prec_names[p],
				        wrong, o->m * o->n);
			if (o->min_tflops[p] > 0 && rate[p][d] < o->min_tflops[p])
				wl_fail(w, "GPU %d %s: %.1f TFLOP/s is below --min-tflops %g", d, prec_names[p], rate[p][d],
				        o->min_tflops[p]);
		}
	}
	for (p = 0; p < GEMM_NPREC; p++) {
		double v[64], lo = 0, hi = 0, med, spread;
		cJSON *r, *per;
		int nv = 0;

		if (!o->prec[p])
			continue;
		r = cJSON_AddObjectToObject(results, prec_names[p]);
		per = cJSON_AddArrayToObject(r, "tflops_per_gpu");
		for (d = 0; d < ndev; d++) {
			cJSON_AddItemToArray(per, have[p][d] ? cJSON_CreateNumber(rate[p][d]) : cJSON_CreateNull());
			if (!have[p][d])
				continue;
			if (nv == 0 || rate[p][d] < lo)
				lo = rate[p][d];
			if (nv == 0 || rate[p][d] > hi)
				hi = rate[p][d];
			v[nv++] = rate[p][d];
		}
		if (nv == 0)
			continue;
		med = wl_median(v, (size_t)nv);
		spread = med > 0 ? (hi - lo) / med : 0;
		cJSON_AddNumberToObject(r, "min", lo);
		cJSON_AddNumberToObject(r, "median", med);
		cJSON_AddNumberToObject(r, "max", hi);
		cJSON_AddNumberToObject(r, "spread", spread);
		snprintf(key, sizeof(key), "%s_tflops_min", prec_names[p]);
		cJSON_AddNumberToObject(metrics, key, lo);
		snprintf(key, sizeof(key), "%s_tflops_median", prec_names[p]);
		cJSON_AddNumberToObject(metrics, key, med);
		snprintf(key, sizeof(key), "%s_spread", prec_names[p]);
		cJSON_AddNumberToObject(metrics, key, spread);
		if (nv > 1)
			wl_log(w, "%s across %d GPUs: min %.1f, median %.1f, max %.1f TFLOP/s, spread %.1f%%",
			       prec_names[p], nv, lo, med, hi, 100 * spread);
		if (nv > 1 && spread > o->max_spread)
			wl_fail(w, "%s: spread %.1f%% across the node's GPUs exceeds --max-spread %.0f%% (slowest %.1f, "
			        "median %.1f TFLOP/s)", prec_names[p], 100 * spread, 100 * o->max_spread, lo, med);
	}
}

/* ---- flags and main ------------------------------------------------------------ */

static int
parse(struct wl *w, int argc, char **argv, struct opts *o)
{
	const struct wl_flag flags[] = {
		{.l = "--size", .kind = WL_LONG, .dst = &o->size, .lo = 1, .hi = 65536},
		{.l = "--m", .kind = WL_LONG, .dst = &o->m, .lo = 1, .hi = 65536},
		{.l = "--n", .kind = WL_LONG, .dst = &o->n, .lo = 1, .hi = 65536},
		{.l = "--k", .kind = WL_LONG, .dst = &o->k, .lo = 1, .hi = 65536},
		{.l = "--warmup", .kind = WL_LONG, .dst = &o->warmup, .lo = 0, .hi = 1000},
		{.l = "--iters", .kind = WL_LONG, .dst = &o->iters, .lo = 1, .hi = 100000},
		{.l = "--reps", .kind = WL_LONG, .dst = &o->reps, .lo = 1, .hi = 64},
		{.l = "--threads", .kind = WL_LONG, .dst = &o->threads, .lo = 1, .hi = MAX_THREADS},
		{.l = "--expect-gpus", .kind = WL_LONG, .dst = &o->expect, .lo = 0, .hi = 64},
		{.l = "--precision", .kind = WL_CALL, .dst = o, .call = parse_precisions,
		 .bad = "expected a list of fp64,fp32,tf32,bf16,fp16"},
		{.l = "--min-tflops", .kind = WL_CALL, .dst = o, .call = parse_floor, .bad = "expected X or PREC=X,..."},
		{.l = "--max-spread", .kind = WL_DOUBLE, .dst = &o->max_spread, .lo = 0, .hi = 1e6,
		 .bad = "expected a fraction >= 0"},
		{.l = "--force-wrong", .kind = WL_SET, .dst = &o->force_wrong},
		{.l = "--cpu", .kind = WL_SET, .dst = &o->cpu},
	};

	return wl_parse(w, argc, argv, flags, sizeof(flags) / sizeof(flags[0]), usage);
}

int
main(int argc, char **argv)
{
	struct opts o = {0, 0, 0, 0, -1, -1, -1, 0, -1, {false}, false, {0}, 0.10, false, false};
	struct wl w;
	char why[512] = "";
	int rc, ndev = 0;
	bool gpu;
	cJSON *results, *metrics;
	struct gemm_sums s;

	wl_init(&w, "gemm", "[GEMM]");
	if ((rc = parse(&w, argc, argv, &o)))
		return rc < 0 ? 0 : rc; /* --help, or a usage error */
	gpu = !o.cpu && o.expect != 0;
	if (gpu) {
		ndev = gpu_count(why, sizeof(why));
		if (o.expect > 0 && ndev < o.expect) {
			wl_fail(&w, "expected %ld GPU%s, found %d%s%s", o.expect, o.expect == 1 ? "" : "s", ndev,
			        *why ? ": " : "", why);
			return wl_finish(&w);
		}
		if (ndev == 0) {
			wl_log(&w, "no GPU (%s): running the CPU path", why);
			gpu = false;
		}
	}
	if (!o.size)
		o.size = gpu ? 8192 : 1024;
	o.m = o.m ? o.m : o.size;
	o.n = o.n ? o.n : o.size;
	o.k = o.k ? o.k : o.size;
	if (o.warmup < 0)
		o.warmup = gpu ? 5 : 1;
	if (o.iters < 0)
		o.iters = gpu ? 20 : 1;
	if (o.reps < 0)
		o.reps = gpu ? 5 : 3;
	if (!o.threads) {
		cpu_set_t set;
		long n = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set)
		                                                        : sysconf(_SC_NPROCESSORS_ONLN);
		o.threads = n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : n;
	}
	if (!o.prec_set)
		for (rc = 0; rc < GEMM_NPREC; rc++)
			o.prec[rc] = gpu || rc == GEMM_FP64 || rc == GEMM_FP32;
	gemm_sums(o.k, &s);
	if (o.prec[GEMM_FP16] && gemm_max_abs(&s) > 65504) {
		wl_log(&w, "fp16: K = %ld makes |C| exceed fp16's 65504; not measured", o.k);
		o.prec[GEMM_FP16] = false;
	}
	cJSON_AddStringToObject(w.json, "path", gpu ? "gpu" : "cpu");
	cJSON_AddNumberToObject(w.json, "m", (double)o.m);
	cJSON_AddNumberToObject(w.json, "n", (double)o.n);
	cJSON_AddNumberToObject(w.json, "k", (double)o.k);
	cJSON_AddNumberToObject(w.json, "iters", (double)o.iters);
	cJSON_AddNumberToObject(w.json, "reps", (double)o.reps);
	if (gpu)
		cJSON_AddNumberToObject(w.json, "gpus", ndev);
	else
		cJSON_AddNumberToObject(w.json, "threads", (double)o.threads);
	results = cJSON_AddObjectToObject(w.json, "results");
	metrics = cJSON_AddObjectToObject(w.json, "metrics");
	if (gpu)
		gpu_path(&w, &o, ndev, results, metrics);
	else
		cpu_path(&w, &o, results, metrics);
	return wl_finish(&w);
}
