/* gen_fuzz: libFuzzer target for the whole generator (make fuzz). The input is
 * a campaign: documents separated by lines "%%%", the first the system, the
 * last the scenario, those between test definitions. They are written to a
 * temp dir and `kunai gen` runs on them into a build dir there (model load,
 * validation, expansion, scripts, ninja files, manifest). Every input must
 * either generate or be refused: never crash, hang or trip a sanitizer.
 * tests/fuzz/seeds.sh makes seed inputs of this form from conf/ and tests/cases. */
#include <ftw.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/base/util.h"
#include "gen/write/gen.h"

#define SEP "\n%%%\n"

static char root[64];

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	remove(path);
	return 0;
}

static void
rm_tree(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void
put(const char *path, const uint8_t *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0)
		abort();
}

static void
cleanup(void)
{
	rm_tree(root);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	strcpy(root, "/tmp/kunai-gen-fuzz.XXXXXX");
	if (!mkdtemp(root))
		abort();
	atexit(cleanup);
	/* one thread: the fuzzer's own stack traces stay readable */
	setenv("KUNAI_GEN_THREADS", "1", 1);
	/* local.ninja only names the rules dir; no lookup beside the binary */
	setenv("KUNAI_DATADIR", "/usr/share/kunai", 1);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char sys[128], tests[128], scen[128], out[128], path[160];
	const uint8_t *p = data, *end = data + size, *q;
	const uint8_t *part[16];
	size_t len[16], n = 0, i;
	char *argv[] = {"gen", "--system-config", sys, "--tests-dir", tests,
	                "--test-scenario", scen, "-o", out, NULL};

	while (n < 16) {
		q = memmem(p, (size_t)(end - p), SEP, strlen(SEP));
		part[n] = p;
		len[n++] = q ? (size_t)(q - p) : (size_t)(end - p);
		if (!q)
			break;
		p = q + strlen(SEP);
	}
	if (n < 2)
		return 0;
	snprintf(sys, sizeof(sys), "%s/system.toml", root);
	snprintf(tests, sizeof(tests), "%s/tests", root);
	snprintf(scen, sizeof(scen), "%s/scenario.toml", root);
	snprintf(out, sizeof(out), "%s/out", root);
	rm_tree(tests);
	rm_tree(out);
	if (mkdir(tests, 0755) != 0)
		abort();
	put(sys, part[0], len[0]);
	put(scen, part[n - 1], len[n - 1]);
	for (i = 1; i + 1 < n; i++) {
		snprintf(path, sizeof(path), "%s/t%zu.toml", tests, i);
		put(path, part[i], len[i]);
	}
	gen_build_dir(9, argv, NULL);
	return 0;
}
