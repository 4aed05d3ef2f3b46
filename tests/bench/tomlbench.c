/* tomlbench: writes a TOML document shaped like a large campaign (many
 * tables, dotted keys, strings, arrays, inline tables, datetimes), or
 * parses one: the floor that tests/bench/tomlbench.sh holds `kunai
 * toml2json` to. */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/toml/toml.h"
#include "gen/base/util.h"

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

/* tomlbench write SIZE FILE: the document; tomlbench parse FILE: reads and
 * parses it once, what `kunai toml2json` does before it writes JSON (the
 * peer of tests/bench/tomlbench.sh). */
int
main(int argc, char **argv)
{
	struct buf doc = {0};
	struct arena a = {0};
	struct toml_error err;
	FILE *f;

	if (argc == 4 && strcmp(argv[1], "write") == 0) {
		generate(&doc, (size_t)strtoul(argv[2], NULL, 10));
		f = fopen(argv[3], "w");
		if (!f || fwrite(doc.data, 1, doc.len, f) != doc.len || fclose(f) != 0) {
			perror(argv[3]);
			return 1;
		}
		buf_free(&doc);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "parse") != 0) {
		fputs("usage: tomlbench write SIZE FILE | tomlbench parse FILE\n", stderr);
		return 2;
	}
	if (!read_file(argv[2], &doc))
		return 1;
	if (!toml_parse(&a, argv[2], doc.data, doc.len, &err)) {
		fprintf(stderr, "tomlbench: %d:%d: %s\n", err.line, err.col, err.msg);
		return 1;
	}
	arena_free(&a);
	buf_free(&doc);
	return 0;
}
