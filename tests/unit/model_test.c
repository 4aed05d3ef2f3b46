/* model_test: the model's small parsers: Slurm time limits, hostlists,
 * "did you mean", float text, and --set overrides on a TOML tree. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/model/model.h"
#include "gen/model/model_priv.h"
#include "tap.h"
#include "gen/toml/toml.h"
#include "gen/base/util.h"
#include "gen/base/hostlist.h"

static void
test_parse_time(void)
{
	static const struct {
		const char *s;
		long want;
		int slurm_only;
	} cases[] = {
		/* CloudAI's forms (cloudai.util.parse_time_limit) */
		{"10:30", 10 * 3600 + 30 * 60, 0}, /* H:M: hours and minutes, as CloudAI reads it */
		{"20:00", 20 * 3600, 0},
		{"01:02:03", 3723, 0},              /* H:M:S */
		{"00:60:00", 3600, 0},              /* normalised, not refused */
		{"25:61:00", 26 * 3600 + 60, 0},
		{"100:00:00", 360000, 0},           /* hours may exceed a day */
		{"1-02:03:04", 86400 + 2 * 3600 + 3 * 60 + 4, 0}, /* D-H:M:S */
		{"1-24:00:00", 2 * 86400, 0},
		{"30s", 30, 0},
		{"5m", 300, 0},
		{"2h", 7200, 0},
		{"2H", 7200, 0},                    /* any case */
		{"1d", 86400, 0},
		{"1w", 604800, 0},
		/* Slurm's, which CloudAI refuses: read as Slurm reads them */
		{"10", 600, 1},                     /* MM */
		{"0", 0, 1},
		{"1-0", 86400, 1},                  /* D-H */
		{"2-03", 2 * 86400 + 3 * 3600, 1},
		{"1-02:03", 86400 + 2 * 3600 + 3 * 60, 1}, /* D-H:M */
		/* neither */
		{"", -1, 0},
		{"abc", -1, 0},
		{"1:2:3:4", -1, 0},
		{"1-2:3:4:5", -1, 0},
		{"-5", -1, 0},
		{"5-", -1, 0},
		{"5x", -1, 0},
		{"5ms", -1, 0},
		{" 5", -1, 0},
		{"5 ", -1, 0},
		{"1.5h", -1, 0},
		{"1234567890", -1, 0}, /* too many digits */
		{"999999999w", -1, 0}, /* more than a century */
		{"10:", -1, 0},
		{":10", -1, 0},
	};
	size_t i;
	long got;
	bool slurm_only;

	for (i = 0; i < LEN(cases); i++) {
		got = model_parse_time(cases[i].s, &slurm_only);
		ok(got == cases[i].want && (got < 0 || slurm_only == (cases[i].slurm_only != 0)),
		   "parse_time(\"%s\") = %ld (want %ld), Slurm's form only: %d", cases[i].s, got,
		   cases[i].want, slurm_only);
	}
	ok(model_parse_time(NULL, &slurm_only) == -1, "parse_time(NULL) = -1");
}

static void
test_format_time(void)
{
	char b[32];
	bool slurm_only;

	model_format_time(0, b, sizeof(b));
	ok(strcmp(b, "00:00:00") == 0, "0 s -> %s", b);
	model_format_time(3723, b, sizeof(b));
	ok(strcmp(b, "01:02:03") == 0, "3723 s -> %s", b);
	model_format_time(86399, b, sizeof(b));
	ok(strcmp(b, "23:59:59") == 0, "86399 s -> %s", b);
	model_format_time(86400 + 2 * 3600 + 3 * 60 + 4, b, sizeof(b));
	ok(strcmp(b, "1-02:03:04") == 0, "a day and more -> %s", b);
	model_format_time(model_parse_time("1-02:03:04", &slurm_only), b, sizeof(b));
	ok(strcmp(b, "1-02:03:04") == 0, "parse and format round-trip: %s", b);
	model_format_time(-5, b, sizeof(b));
	ok(strcmp(b, "00:00:00") == 0, "negative -> %s", b);
}

/* Expands spec and joins the names with ' ' ("ERR" when rejected). */
static const char *
hosts(struct arena *a, const char *spec)
{
	struct strlist l = {0};
	struct buf b = {0};
	size_t i;
	char *r;

	if (!model_expand_hostlist(a, spec, &l))
		return "ERR";
	for (i = 0; i < l.len; i++)
		buf_printf(&b, "%s%s", i ? " " : "", l.items[i]);
	r = arena_strdup(a, buf_str(&b));
	buf_free(&b);
	return r;
}

static void
test_hostlist(void)
{
	static const struct {
		const char *spec, *want;
	} cases[] = {
		{"node1", "node1"},
		{"a,b", "a b"},
		{"node-[001-003]", "node-001 node-002 node-003"},
		{"node0[1-4]", "node01 node02 node03 node04"},
		{"node-[012,026]", "node-012 node-026"},
		{"n[1-2,7]", "n1 n2 n7"},
		{"n[8-10]", "n08 n09 n10"}, /* CloudAI pads to the width of the end */
		{"n[1-2]x", "n1x n2x"},
		{"r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2"},
		{"a,n[1-2],b", "a n1 n2 b"},
		{"[1-2]", "1 2"},
		{"n[5-5]", "n5"},
		{"", "ERR"},
		{",", "ERR"},
		{"a,,b", "ERR"},
		{"a,", "ERR"},
		{"n[1-3", "ERR"},
		{"n1-3]", "ERR"},
		{"n[[1-3]]", "ERR"},
		{"n[]", "ERR"},
		{"n[3-1]", "ERR"},
		{"n[1-]", "ERR"},
		{"n[-1]", "ERR"},
		{"n[a-b]", "ERR"},
		{"n[1,,2]", "ERR"},
		{"n[1,]", "ERR"},
		{"n[,1]", "ERR"},
		{"n[1-2-3]", "ERR"},
		{"n[0-100000]", "ERR"}, /* more than 100000 nodes */
		{"n[1-1000]m[1-1000]", "ERR"},
		{"bad name", "ERR"},
		{"a:b", "ERR"},
		{"n[1234567890]", "ERR"},
	};
	struct arena a = {0};
	struct strlist l = {0};
	const char *got;
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		got = hosts(&a, cases[i].spec);
		ok(strcmp(got, cases[i].want) == 0, "hostlist \"%s\" -> \"%s\"", cases[i].spec, got);
	}
	ok(model_expand_hostlist(&a, "n[1-3]", &l) && model_expand_hostlist(&a, "m", &l) &&
	       l.len == 4 && strcmp(l.items[3], "m") == 0 && l.pos != NULL,
	   "expansions append to the list");
	ok(model_expand_hostlist(&a, "n[1-99999]", &l) && l.len == 4 + 99999,
	   "a large range expands");
	ok(!model_expand_hostlist(&a, NULL, &l), "NULL spec is rejected");
	arena_free(&a);
}

/* Node lists as Slurm writes them (job.json, sacct, SLURM_JOB_NODELIST):
 * one node set, Slurm's padding rule, counted in nodes. */
static void
test_hostlist_join(void)
{
	static const struct {
		const char *spec, *want;
		size_t count;
	} cases[] = {
		{"n1", "n1", 1},
		{"n[1-2]", "n1,n2", 2},
		{"n[1,4]", "n1,n4", 2},
		{"gpu-[01-03,07]", "gpu-01,gpu-02,gpu-03,gpu-07", 4},
		{"n[1-2]-ib", "n1-ib,n2-ib", 2},
		{"a[1-2]b[3-4]", "a1b3,a1b4,a2b3,a2b4", 4},
		{"n[8-10]", "n8,n9,n10", 3},      /* Slurm pads to the width of the start */
		{"n[08-10]", "n08,n09,n10", 3},
		{"n[001-002],m3", "n001,n002,m3", 3},
		{"n[1-2],n2,n1", "n1,n2", 2},      /* a set: each node once */
		{"b,a,b", "b,a", 2},
		{"n[1-3", "n[1-3", 1},             /* no hostlist: one node, kept as written */
		{"(null)x", "(null)x", 1},
	};
	struct arena a = {0};
	const char *got;
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		got = hostlist_join(&a, cases[i].spec);
		ok(got && strcmp(got, cases[i].want) == 0, "hostlist_join \"%s\" -> \"%s\"", cases[i].spec,
		   got ? got : "(NULL)");
		ok(hostlist_count(cases[i].spec) == cases[i].count, "hostlist_count \"%s\" = %zu (got %zu)",
		   cases[i].spec, cases[i].count, hostlist_count(cases[i].spec));
	}
	ok(hostlist_join(&a, NULL) == NULL && hostlist_join(&a, "") == NULL, "no list joins to NULL");
	ok(hostlist_count(NULL) == 0 && hostlist_count("") == 0, "no list has no nodes");
	ok(hostlist_count("n[1-5000]") == 5000, "a large range counts its nodes");
	{
		static const struct {
			const char *list, *want;
		} c[] = {
			{"n1", "n1"},
			{"n1,n2,n3,n5", "n[1-3,5]"},
			{"gpu-01,gpu-02,gpu-03,gpu-07", "gpu-[01-03,07]"},
			{"n1-ib,n2-ib", "n[1-2]-ib"},
			{"n8,n9,n10", "n[8-9],n10"}, /* widths differ: Slurm's rule reads n[8-10] as these too */
			{"a,b,n1,n2", "a,b,n[1-2]"},
			{"n[1-2],m1", "n[1-2],m1"},
		};
		for (i = 0; i < LEN(c); i++) {
			got = hostlist_compress(&a, c[i].list);
			ok(got && !strcmp(got, c[i].want), "hostlist_compress \"%s\" -> \"%s\" (got %s)", c[i].list, c[i].want,
			   got ? got : "NULL");
			ok(got && !strcmp(hostlist_join(&a, got), hostlist_join(&a, c[i].list)), "and it expands back");
		}
	}
	arena_free(&a);
}

static void
test_suggest(void)
{
	static const char *const keys[] = {"minbytes", "maxbytes", "iters", "warmup_iters",
	                                   "time_limit", "Tests", "op"};
	const char *s;

	s = m_suggest("minbyte", keys, LEN(keys));
	ok(s && strcmp(s, "minbytes") == 0, "minbyte -> minbytes");
	s = m_suggest("iter", keys, LEN(keys));
	ok(s && strcmp(s, "iters") == 0, "iter -> iters");
	s = m_suggest("tiem_limit", keys, LEN(keys));
	ok(s && strcmp(s, "time_limit") == 0, "a transposition counts as one edit");
	s = m_suggest("tests", keys, LEN(keys));
	ok(s && strcmp(s, "Tests") == 0, "case differences are suggested");
	ok(m_suggest("frobnicate", keys, LEN(keys)) == NULL, "nothing close: no suggestion");
	ok(m_suggest("x", keys, LEN(keys)) == NULL, "one letter is never close to anything");
	ok(m_suggest("iters", keys, LEN(keys)) == NULL, "an exact key is not suggested");
	ok(m_suggest("abc", keys, 0) == NULL, "no candidates");
	s = m_suggest_close("minbyte", keys, LEN(keys));
	ok(s && strcmp(s, "minbytes") == 0, "close: minbyte -> minbytes");
	ok(m_suggest_close("R", keys, LEN(keys)) == NULL, "close: short pass-through flags are kept");
	ok(m_suggest_close("ops", keys, LEN(keys)) == NULL, "close: short words are kept");
	ok(m_suggest_close("ITERS", keys, LEN(keys)) == NULL, "close: case matters");
}

static void
test_float(void)
{
	static const struct {
		double v;
		const char *want;
	} cases[] = {
		{1.0, "1.0"},     {0.1, "0.1"},        {1.5, "1.5"},     {-2.25, "-2.25"},
		{100.0, "100.0"}, {1e20, "1e+20"},     {1.5e-7, "1.5e-07"},
		{1e16, "1e+16"},  {1e15, "1000000000000000.0"},          {0.0001, "0.0001"},
		{0.00001, "1e-05"}, {123456.789, "123456.789"},          {0.0, "0.0"},
	};
	char b[64];
	size_t i;

	for (i = 0; i < LEN(cases); i++) {
		model_format_float(cases[i].v, b, sizeof(b));
		ok(strcmp(b, cases[i].want) == 0, "float %s (want %s)", b, cases[i].want);
	}
}

static struct toml_value *
parse(struct arena *a, const char *text)
{
	return toml_parse(a, "t.toml", text, strlen(text), NULL);
}

static void
test_overrides(void)
{
	struct arena a = {0};
	struct mctx c = {0};
	struct toml_value *root, *v;
	struct override o[] = {
		{.key = "Tests.1.cmd_args.iters", .value = "50"},
		{.key = "Tests.\"b.c\".iterations", .value = "3"},
		{.key = "Tests.b.c.time_limit", .value = "10m"},
		{.key = "name", .value = "\"renamed\""},
		{.key = "Tests.2.new.deep", .value = "[1, 2]"},
		{.key = "system.gpus_per_node", .value = "4"},
	};
	struct override bad1[] = {{.key = "name.x", .value = "1"}};
	struct override bad2[] = {{.key = "Tests.9.x", .value = "1"}};
	struct override bad3[] = {{.key = "a..b", .value = "1"}};
	int saved, null;

	c.a = &a;
	root = parse(&a, "name = \"s\"\n[[Tests]]\nid = \"a\"\n[Tests.cmd_args]\niters = 1\n"
	                 "[[Tests]]\nid = \"b.c\"\n");
	ok(root != NULL, "scenario parses");
	if (!root)
		return;
	ok(m_apply_overrides(&c, root, o, LEN(o), false), "overrides apply");
	v = toml_get(toml_get(root->u.table, "Tests")->u.array->items[0]->u.table, "cmd_args");
	v = toml_get(v->u.table, "iters");
	ok(v && v->type == TOML_INTEGER && v->u.integer == 50, "Tests.1.cmd_args.iters = 50");
	v = toml_get(toml_get(root->u.table, "Tests")->u.array->items[1]->u.table, "iterations");
	ok(v && v->type == TOML_INTEGER && v->u.integer == 3, "a quoted id addresses a test");
	v = toml_get(toml_get(root->u.table, "Tests")->u.array->items[1]->u.table, "time_limit");
	ok(v && v->type == TOML_STRING && strcmp(v->u.str.s, "10m") == 0,
	   "an unquoted dotted id too; a non-TOML value is a string");
	v = toml_get(root->u.table, "name");
	ok(v && v->type == TOML_STRING && strcmp(v->u.str.s, "renamed") == 0, "a TOML string");
	v = toml_get(toml_get(root->u.table, "Tests")->u.array->items[1]->u.table, "new");
	v = v && v->type == TOML_TABLE ? toml_get(v->u.table, "deep") : NULL;
	ok(v && v->type == TOML_ARRAY && v->u.array->len == 2,
	   "missing tables are created; a TOML array");
	ok(toml_get(root->u.table, "gpus_per_node") == NULL, "system.* is not for the scenario");
	ok(c.errors == 0, "no errors");
	/* the expected "kunai: --set ..." messages would clutter the TAP output */
	fflush(stderr);
	saved = dup(2);
	null = open("/dev/null", O_WRONLY);
	if (null >= 0)
		dup2(null, 2);
	ok(!m_apply_overrides(&c, root, bad1, 1, false) && c.errors == 1,
	   "a key under a string is an error");
	ok(!m_apply_overrides(&c, root, bad2, 1, false) && c.errors == 2,
	   "an element out of range is an error");
	ok(!m_apply_overrides(&c, root, bad3, 1, true) && c.errors == 3,
	   "a malformed key is an error");
	m_flush(&c);
	if (saved >= 0) {
		dup2(saved, 2);
		close(saved);
	}
	if (null >= 0)
		close(null);
	arena_free(&a);
}

static void
test_merge(void)
{
	static const char *const keys[] = {"cmd_args", "name", NULL};
	struct arena a = {0};
	struct toml_value *base, *over, *m, *ca;

	base = parse(&a, "name = \"t\"\nx = 1\n[cmd_args]\na = 1\nb = [1, 2]\n[cmd_args.n]\nk = 1\n");
	over = parse(&a, "id = \"i\"\nname = \"u\"\n[cmd_args]\nb = [3]\nc = 2\n[cmd_args.n]\nj = 2\n");
	m = m_merge(&a, base, over, keys);
	ok(toml_get(m->u.table, "id") == NULL, "keys outside the list are not merged");
	ok(strcmp(toml_get(m->u.table, "name")->u.str.s, "u") == 0, "scalars replace");
	ca = toml_get(m->u.table, "cmd_args");
	ok(toml_get(ca->u.table, "a")->u.integer == 1, "untouched keys stay");
	ok(toml_get(ca->u.table, "b")->u.array->len == 1, "arrays replace");
	ok(toml_get(ca->u.table, "c")->u.integer == 2, "new keys are added");
	ok(toml_get(toml_get(ca->u.table, "n")->u.table, "k") &&
	       toml_get(toml_get(ca->u.table, "n")->u.table, "j"),
	   "nested tables merge key by key");
	ok(toml_get(toml_get(base->u.table, "cmd_args")->u.table, "c") == NULL,
	   "the base is not modified");
	arena_free(&a);
}

int
main(void)
{
	test_parse_time();
	test_format_time();
	test_hostlist();
	test_hostlist_join();
	test_suggest();
	test_float();
	test_overrides();
	test_merge();
	return tap_done();
}
