/* tomlbench: generates a ~10 MB TOML document shaped like a large campaign
 * (many tables, dotted keys, strings, arrays, inline tables, datetimes) and
 * reports the best parse time of several runs and the process's peak memory. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "gen/toml/toml.h"
#include "gen/base/util.h"

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
generate(struct buf *b, size_t target)
{
	unsigned i = 0;

	buf_puts(b, "# synthetic campaign for make bench\ntitle = \"bench\"\n");
	while (b->len < target) {
		buf_printf(b, "\n[[Tests]]\nid = \"test.%u\"\ntest_name = \"nccl_%u\"\n", i, i % 97);
		buf_printf(b, "num_nodes = %u\ntime_limit = \"00:%02u:00\"\n", i % 64 + 1, i % 60);
		buf_printf(b, "cmd_args.subtest_name = \"all_reduce_perf_mpi\"\n"
		              "cmd_args.iters = %u\ncmd_args.minbytes = \"%uM\"\n", i % 100, i % 512);
		buf_printf(b, "extra_env_vars = { NCCL_DEBUG = \"INFO\", NCCL_IB_QPS = %u }\n", i % 8);
		buf_printf(b, "sizes = [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, %u]\n", i);
		buf_printf(b, "ratio = %u.%03ue-3\ncreated = 2026-11-%02uT07:32:00Z\n", i, i % 1000, i % 28 + 1);
		buf_printf(b, "note = '''\nline one of test %u\nline two\n'''\n", i);
		i++;
	}
}

int
main(int argc, char **argv)
{
	size_t target = argc > 1 ? (size_t)strtoul(argv[1], NULL, 10) : 10u << 20;
	struct buf doc = {0};
	struct rusage ru;
	double best = 1e9;
	int run;

	generate(&doc, target);
	for (run = 0; run < 5; run++) {
		struct arena a = {0};
		struct toml_error err;
		double t0 = now(), dt;

		if (!toml_parse(&a, "bench.toml", doc.data, doc.len, &err)) {
			fprintf(stderr, "tomlbench: %d:%d: %s\n", err.line, err.col, err.msg);
			return 1;
		}
		dt = now() - t0;
		if (dt < best)
			best = dt;
		arena_free(&a);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("toml parse: %.2f MB in %.3f s (best of 5), %.0f MB/s; peak RSS %.1f MB\n",
	       (double)doc.len / 1e6, best, (double)doc.len / 1e6 / best, (double)ru.ru_maxrss / 1024);
	buf_free(&doc);
	return 0;
}
