/* tomlbench: generates a ~10 MB TOML document shaped like a large campaign
 * (many tables, dotted keys, strings, arrays, inline tables, datetimes) and
 * reports the best parse time of several runs and the process's peak memory;
 * with KUNAI, also `KUNAI toml2json FILE >/dev/null` as users run it (the
 * median of 5 runs, its peak RSS) and its ratio to the parse alone.
 *     tomlbench [SIZE [KUNAI]] */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Runs kunai toml2json on the document (written to a temporary file) five
 * times; prints the median wall time and the largest peak RSS. */
static int
toml2json(const char *kunai, const struct buf *doc, double parse)
{
	char path[] = "/tmp/kunai-tomlbench.XXXXXX";
	double t[5];
	long rss = 0;
	int fd = mkstemp(path), run;

	if (fd < 0 || write(fd, doc->data, doc->len) != (ssize_t)doc->len || close(fd) != 0) {
		perror("tomlbench: write the document");
		return 1;
	}
	for (run = 0; run < 5; run++) {
		struct rusage ru;
		double t0 = now();
		int status;
		pid_t pid = fork();

		if (pid == 0) {
			int null = open("/dev/null", O_WRONLY);
			dup2(null, 1);
			execl(kunai, kunai, "toml2json", path, (char *)NULL);
			_exit(127);
		}
		if (pid < 0 || wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "tomlbench: %s toml2json failed\n", kunai);
			unlink(path);
			return 1;
		}
		t[run] = now() - t0;
		if (ru.ru_maxrss > rss)
			rss = ru.ru_maxrss;
	}
	unlink(path);
	qsort(t, 5, sizeof(*t), cmp_double);
	printf("kunai toml2json: %.2f MB in %.3f s (median of 5), %.1fx the parse alone; peak RSS %.1f MB, "
	       "%.1fx the document\n",
	       (double)doc->len / 1e6, t[2], t[2] / parse, (double)rss / 1024, (double)rss * 1024 / (double)doc->len);
	return 0;
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
	if (argc > 2 && toml2json(argv[2], &doc, best) != 0)
		return 1;
	buf_free(&doc);
	return 0;
}
