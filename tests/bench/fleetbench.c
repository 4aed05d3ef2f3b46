/* fleetbench: the cost of the fleet verdict alone (reports/fleet/fleet.c and the
 * index page's fleet views), in memory, without the files around it.
 *     fleetbench [RUNS [NODES]]   (default 10000 runs over 2000 nodes)
 * Every run is one node's NcclTest (max_busbw, avg_busbw and 3 values
 * without a direction) and KunaiGemm's 8 per-GPU values; one node is 40%
 * slow. Prints the time and the peak RSS; target < 2 s and < 500 MB. */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "reports/fleet/fleet.h"
#include "reports/fleet/json.h"
#include "reports/write/html/html.h"
#include "reports/results/results.h"
#include "reports/results/plan.h"
#include "gen/base/util.h"

static double
now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

int
main(int argc, char **argv)
{
	size_t runs = argc > 1 ? strtoul(argv[1], NULL, 10) : 10000, nodes = argc > 2 ? strtoul(argv[2], NULL, 10) : 2000;
	struct arena a = {0};
	struct plan p = {0};
	struct summary s = {0};
	struct fleet f;
	struct buf b = {0};
	struct rusage ru;
	const char **stems;
	double t0, t1, t2;
	size_t i, k, nt = 2;

	if (!runs || !nodes) {
		fputs("usage: fleetbench [RUNS [NODES]]\n", stderr);
		return 2;
	}
	p.n_tests = nt;
	p.tests = arena_alloc(&a, nt * sizeof(*p.tests));
	for (k = 0; k < nt; k++) {
		p.tests[k].id = k ? "gemm" : "nccl";
		p.tests[k].name = p.tests[k].id;
		p.tests[k].workload = k ? "KunaiGemm" : "NcclTest";
		fleet_peers_default(&p.tests[k].peers);
	}
	p.n_runs = s.n_runs = runs;
	p.runs = arena_alloc(&a, runs * sizeof(*p.runs));
	s.runs = arena_alloc(&a, runs * sizeof(*s.runs));
	stems = arena_alloc(&a, runs * sizeof(*stems));
	for (i = 0; i < runs; i++) {
		struct run_report *r = &s.runs[i];
		size_t node = i % nodes, t = (i / nodes) % nt;
		double slow = node == 4 ? 0.6 : 1;
		struct metric *m = arena_alloc(&a, 8 * sizeof(*m));
		p.runs[i].dir = r->dir = stems[i] = arena_printf(&a, "%s-%zu/%zu", p.tests[t].id, node, i / nodes);
		p.runs[i].id = r->id = p.tests[t].id;
		p.runs[i].test = t;
		r->nodes = arena_printf(&a, "node%05zu", node);
		r->outcome = OUTCOME_PASSED;
		if (t == 0) {
			const char *names[] = {"max_busbw", "max_busbw_size", "avg_busbw", "results", "wrong"};
			const char *units[] = {"GB/s", "B", "GB/s", "count", "count"};
			for (k = 0; k < 5; k++)
				m[k] = (struct metric){names[k], (480 + (double)(i % 7)) * slow, units[k], r->nodes, -1,
				                       "NVIDIA H100 80GB HBM3", -1, NULL, CHECK_NONE, NULL};
			r->n_metrics = 5;
		} else {
			for (k = 0; k < 8; k++)
				m[k] = (struct metric){"bf16_tflops", 640 + (double)((i + k) % 5), "TFLOP/s", r->nodes, (int)k,
				                       "NVIDIA H100 80GB HBM3", -1, NULL, CHECK_NONE, NULL};
			r->n_metrics = 8;
		}
		r->metrics = m;
	}
	t0 = now();
	fleet_grade(&a, &p, &s, &f);
	t1 = now();
	html_fleet_verdict(&b, &s);
	html_fleet_views(&b, &s, stems);
	t2 = now();
	getrusage(RUSAGE_SELF, &ru);
	printf("fleet verdict of %zu runs over %zu nodes: %.3f s (peers and verdict %.3f s, HTML views %.3f s, "
	       "%zu KB of HTML), peak RSS %ld MB (target < 2 s, < 500 MB); %zu drained\n",
	       runs, nodes, t2 - t0, t1 - t0, t2 - t1, b.len / 1024, ru.ru_maxrss / 1024, f.n_drain);
	buf_free(&b);
	arena_free(&a);
	return f.n_drain == 1 && t2 - t0 < 2 && ru.ru_maxrss < 500 * 1024 ? 0 : 1;
}
