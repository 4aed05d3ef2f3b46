/* util_test: arena, buf, write_file_atomic and util_float_repr. */
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "tap.h"
#include "numbers.h"
#include "gen/base/json.h"
#include "gen/base/util.h"

static void
test_arena(void)
{
	struct arena a = {0};
	char *big, *s;
	int *xs = NULL;
	size_t i, n = 0;
	bool aligned = true, intact = true;

	for (i = 0; i < 10000; i++) {
		void *p = arena_alloc(&a, i % 37 + 1);
		if ((size_t)p % _Alignof(max_align_t))
			aligned = false;
	}
	ok(aligned, "arena allocations are max-aligned");
	big = arena_alloc(&a, 8 << 20);
	ok(big != NULL && big[0] == 0 && big[(8 << 20) - 1] == 0, "large allocation is zeroed");
	s = arena_strndup(&a, "hello world", 5);
	ok(strcmp(s, "hello") == 0, "arena_strndup copies and terminates");
	for (i = 0; i < 1000; i++) {
		if (n == i) {
			xs = arena_grow(&a, xs, n, n ? n * 2 : 4, sizeof(*xs));
			n = n ? n * 2 : 4;
		}
		xs[i] = (int)i;
	}
	for (i = 0; i < 1000; i++)
		if (xs[i] != (int)i)
			intact = false;
	ok(intact, "arena_grow keeps contents");
	arena_free(&a);
	ok(a.head == NULL && a.total == 0, "arena_free resets");
}

static void
test_buf(void)
{
	struct buf b = {0};
	int i;

	ok(strcmp(buf_str(&b), "") == 0, "empty buf reads as empty string");
	for (i = 0; i < 1000; i++)
		buf_printf(&b, "%d,", i);
	ok(b.len == strlen(b.data) && strncmp(b.data, "0,1,2,", 6) == 0 &&
	       strcmp(b.data + b.len - 4, "999,") == 0,
	   "buf_printf appends");
	buf_push(&b, "\0x", 2);
	ok(b.data[b.len - 2] == '\0' && b.data[b.len - 1] == 'x' && b.data[b.len] == '\0',
	   "buf_push keeps NUL bytes and terminates");
	buf_free(&b);
	ok(b.data == NULL && b.len == 0, "buf_free resets");
}

static void
test_write_atomic(void)
{
	char dir[] = "/tmp/kunai-util-test.XXXXXX";
	struct buf path = {0}, back = {0};
	struct stat st1, st2;
	struct timespec old = {1000000000, 0};
	struct timespec times[2];

	ok(mkdtemp(dir) != NULL, "mkdtemp");
	buf_printf(&path, "%s/f", dir);
	ok(write_file_atomic(path.data, "abc", 3), "write new file");
	ok(read_file(path.data, &back) && back.len == 3 && memcmp(back.data, "abc", 3) == 0,
	   "read back");
	times[0] = old;
	times[1] = old;
	utimensat(AT_FDCWD, path.data, times, 0);
	stat(path.data, &st1);
	ok(write_file_atomic(path.data, "abc", 3), "rewrite identical");
	stat(path.data, &st2);
	ok(st1.st_mtime == st2.st_mtime && st1.st_ino == st2.st_ino,
	   "identical content leaves the file untouched (mtime kept)");
	ok(write_file_atomic(path.data, "abcd", 4), "write changed");
	stat(path.data, &st2);
	ok(st2.st_mtime != st1.st_mtime && st2.st_size == 4, "changed content is written");
	buf_free(&back);
	buf_printf(&back, "%s.tmp", path.data);
	ok(access(back.data, F_OK) != 0, "no temp file left behind");
	buf_free(&back);
	buf_printf(&back, "%s/missing/deeper/f", dir);
	ok(write_file_atomic(back.data, "x", 1), "write into a missing dir creates it");
	unlink(back.data);
	back.len = 0;
	buf_printf(&back, "%s/missing/deeper", dir);
	rmdir(back.data);
	back.len = 0;
	buf_printf(&back, "%s/missing", dir);
	rmdir(back.data);
	back.len = 0;
	buf_printf(&back, "%s/f/under-a-file", dir);
	ok(!write_file_atomic(back.data, "x", 1), "write below a regular file fails");
	unlink(path.data);
	rmdir(dir);
	buf_free(&back);
	buf_free(&path);
}

/* Python's repr() of the same doubles, as CloudAI prints float values. */
static void
test_float_repr(void)
{
	static const struct {
		double d;
		const char *py;
	} t[] = {
		{200.0, "200.0"}, {0.8, "0.8"}, {1e16, "1e+16"}, {1e-5, "1e-05"}, {0.0001, "0.0001"},
		{123456789012345.6, "123456789012345.6"}, {-0.0, "-0.0"}, {1.5e300, "1.5e+300"},
		{2079377920.0, "2079377920.0"}, {1e15, "1000000000000000.0"}, {12.5e-7, "1.25e-06"},
		{-2.5, "-2.5"},
	};
	char b[64];
	size_t i;
	bool all = true;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		util_float_repr(b, sizeof(b), t[i].d);
		if (strcmp(b, t[i].py) != 0) {
			printf("# %s, Python: %s\n", b, t[i].py);
			all = false;
		}
	}
	ok(all, "floats print as Python's repr (200.0, not 2e+02)");
}

static void
test_parse_size(void)
{
	static const struct {
		const char *s;
		double v;
	} good[] = {{"0", 0}, {"1048576", 1048576}, {"8B", 8}, {"1K", 1024}, {"256KiB", 262144},
	            {"1GiB", 1073741824.0}, {"8G", 8589934592.0}, {"1.5MiB", 1572864}, {"4TiB", 4398046511104.0}};
	static const char *const bad[] = {"", "GiB", "1 GiB", "1GB", "1Gi", "-1", "1x", "1.5.5K", "1KiBB"};
	double v;
	size_t i;

	for (i = 0; i < LEN(good); i++)
		ok(util_parse_size(good[i].s, &v) && v == good[i].v, "size %s", good[i].s);
	for (i = 0; i < LEN(bad); i++)
		ok(!util_parse_size(bad[i], &v), "not a size: '%s'", bad[i]);
}

/* Filling arrays one element at a time costs memory linear in their length
 * (doubling), keeps their contents, and zeroes the room it adds. */
static void
test_reserve(void)
{
	struct arena a = {0};
	long *xs = NULL, *big = NULL, *ys = NULL;
	size_t i, cap = 0, bcap = 0, ycap = 0, n = 200000, grows = 0;
	bool intact = true, zeroed = true;
	void *last = NULL;

	for (i = 0; i < n; i++) {
		xs = arena_reserve(&a, xs, i, i + 1, &cap, sizeof(*xs));
		if (xs != last)
			grows++, last = xs;
		xs[i] = (long)i;
	}
	for (i = 0; i < n; i++)
		if (xs[i] != (long)i)
			intact = false;
	ok(intact && cap >= n && cap < 2 * n, "arena_reserve keeps contents; room %zu for %zu", cap, n);
	ok(grows < 20, "arena_reserve doubles: %zu moves for %zu pushes", grows, n);
	/* 200,000 longs by ones was 160 GB of arena before doubling */
	ok(a.total < 8 * n * sizeof(*xs), "arena total %zu B for %zu B of array", a.total, n * sizeof(*xs));
	/* a big array in a block of its own is resized in place of a copy */
	for (i = 0; i < n; i++) {
		big = arena_reserve(&a, big, i, i + 1, &bcap, sizeof(*big));
		big[i] = (long)i;
	}
	for (i = n; i < bcap; i++)
		if (big[i] != 0)
			zeroed = false;
	ok(zeroed && big[n - 1] == (long)(n - 1), "added room is zeroed");
	ok(arena_reserve(&a, big, n, n, &bcap, sizeof(*big)) == big, "no move while there is room");
	arena_free(&a);
	for (i = 0; i < n; i++) {
		ys = xreserve(ys, i + 1, &ycap, sizeof(*ys));
		ys[i] = (long)i;
	}
	ok(ycap >= n && ycap < 2 * n && ys[n - 1] == (long)(n - 1), "xreserve doubles: room %zu", ycap);
	free(ys);
}

static void
test_to_int(void)
{
	ok(util_to_int(3.9, -1) == 3 && util_to_int(-3.9, 0) == -3, "util_to_int truncates");
	ok(util_to_int(2147483647.5, -1) == 2147483647 && util_to_int(2147483648.0, -1) == -1,
	   "util_to_int: INT_MAX fits, INT_MAX + 1 does not");
	ok(util_to_int(1e300, -1) == -1 && util_to_int(-1e300, -1) == -1 && util_to_int(NAN, -7) == -7,
	   "util_to_int: out of range and NaN give the default");
	ok(util_to_long(9.2e18, -1) == 9200000000000000000L && util_to_long(9.3e18, -1) == -1 &&
	       util_to_long(-9.3e18, 5) == 5,
	   "util_to_long: in range converts, beyond 2^63 gives the default");
}

/* json_print writes plain decimals itself (gen/base/json.c): byte for byte
 * what cJSON_Print writes, on numbers of every shape */
static void
test_json_numbers(void)
{
	static const double fixed[] = {12.34, -12.34, 0.1, 1e-4, 9.9999e-5, 0.000123, 1.005, 2.5, -0.5, 3e9, -3e9,
	                               1e15, 9.99999999999999e14, 999999999999999.9, 123456789012345.6, 1.0 / 3,
	                               2.0 / 3, 0.30000000000000004, 1e300, 5e-324, 1e21, 2147483648.5, 4.35,
	                               299.99999999999994, 1e-5, 0.0001000000000001, 0.0, -0.0, 1, -1, 7,
	                               2147483647, -2147483648.0, 2147483648.0, 33554432, 99999999999999,
	                               999999999999999, 1e14, -1e14, 4294967296.0, 9007199254740992.0};
	unsigned long long x = 88172645463325252ULL;
	int bad = 0, tried = 0, raw = 0;

	for (int i = 0; i < 400000; i++) {
		double d;

		d = i < (int)(sizeof(fixed) / sizeof(fixed[0])) ? fixed[i] : test_number(&x, i, 15);
		if (isnan(d))
			continue;
		cJSON *a = cJSON_CreateObject(), *b = cJSON_CreateObject();
		char *want;
		struct buf got = {0};

		cJSON_AddNumberToObject(a, "v", d);
		cJSON_AddNumberToObject(b, "v", d);
		want = cJSON_Print(a);
		cJSON_Delete(a);
		json_print(b, &got);
		tried++;
		if (got.len != strlen(want) + 1 || memcmp(got.data, want, got.len - 1) != 0) {
			if (bad++ < 5)
				printf("# %.17g: cJSON %s, json_print %s", d, want, buf_str(&got));
		}
		raw += strchr(want, '.') != NULL;
		cJSON_free(want);
		buf_free(&got);
	}
	ok(bad == 0, "json_print writes %d numbers as cJSON_Print does (%d with a point), %d differ", tried, raw, bad);

	/* texts of every size, printed in place in a buffer that already
	 * holds text: each as cJSON_Print, after what was there */
	struct buf expect = {0};
	for (int size = 1, n = 0; size < 200000; size = size * 3 + 1, n++) {
		cJSON *a = cJSON_CreateObject(), *b, *arr = cJSON_AddArrayToObject(a, "series");
		struct buf got = {0};
		char *want;

		for (int i = 0; i < size / 16; i++)
			cJSON_AddItemToArray(arr, cJSON_CreateNumber(i * 0.25));
		cJSON_AddStringToObject(a, "text", "x");
		b = cJSON_Duplicate(a, 1);
		want = cJSON_Print(a);
		cJSON_Delete(a);
		buf_printf(&got, "before %d\n", n);
		json_print(b, &got);
		buf_printf(&expect, "before %d\n%s\n", n, want);
		bad = got.len != expect.len || memcmp(got.data, expect.data, got.len) != 0;
		expect.len = 0;
		ok(!bad, "json_print of %zu bytes in place after other text: as cJSON_Print", strlen(want));
		cJSON_free(want);
		buf_free(&got);
	}
	buf_free(&expect);
}

int
main(void)
{
	test_arena();
	test_reserve();
	test_to_int();
	test_buf();
	test_write_atomic();
	test_float_repr();
	test_parse_size();
	test_json_numbers();
	return tap_done();
}
