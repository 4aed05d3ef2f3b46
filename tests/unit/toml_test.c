/* toml_test: the parser's API: positions, lookups, errors, limits. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "gen/toml/toml.h"
#include "gen/base/util.h"

static struct toml_value *
parse(struct arena *a, const char *text, struct toml_error *err)
{
	return toml_parse(a, "t.toml", text, strlen(text), err);
}

static void
test_positions(void)
{
	struct arena a = {0};
	struct toml_error err;
	struct toml_value *root, *v;
	struct toml_keyval *kv;
	const char *doc =
		"# comment\n"
		"name = \"x\"\n"
		"[server]\n"
		"  port = 8080\r\n"
		"  tags = [ 1,\n"
		"    2 ]\n"
		"[[jobs]]\n"
		"a.b.c = true\n";

	root = parse(&a, doc, &err);
	ok(root && root->type == TOML_TABLE, "document parses");
	if (!root) {
		printf("# %d:%d %s\n", err.line, err.col, err.msg);
		arena_free(&a);
		return;
	}
	ok(root->u.table->len == 3, "three top-level keys in order");
	ok(strcmp(root->u.table->items[0].key, "name") == 0 &&
	       strcmp(root->u.table->items[1].key, "server") == 0 &&
	       strcmp(root->u.table->items[2].key, "jobs") == 0,
	   "declaration order kept");
	kv = toml_get_kv(root->u.table, "name", 4);
	ok(kv && kv->pos.line == 2 && kv->pos.col == 1, "key position 2:1");
	ok(kv && kv->value->pos.line == 2 && kv->value->pos.col == 8, "value position 2:8");
	ok(kv && strcmp(kv->pos.path, "t.toml") == 0, "path recorded");
	v = toml_get(root->u.table, "server");
	ok(v && v->type == TOML_TABLE && v->pos.line == 3, "table from header at line 3");
	v = v ? toml_get(v->u.table, "port") : NULL;
	ok(v && v->type == TOML_INTEGER && v->u.integer == 8080 && v->pos.line == 4 && v->pos.col == 10,
	   "integer 8080 at 4:10 (after CRLF line)");
	v = toml_get(toml_get(root->u.table, "server")->u.table, "tags");
	ok(v && v->type == TOML_ARRAY && v->u.array->len == 2 &&
	       v->u.array->items[1]->pos.line == 6 && v->u.array->items[1]->pos.col == 5,
	   "array element position 6:5");
	v = toml_get(root->u.table, "jobs");
	ok(v && v->type == TOML_ARRAY && v->u.array->len == 1 && v->u.array->of_tables,
	   "array of tables");
	v = v ? v->u.array->items[0] : NULL;
	v = v ? toml_get(v->u.table, "a") : NULL;
	ok(v && v->type == TOML_TABLE && v->pos.line == 8 && v->pos.col == 1,
	   "implicit dotted-key table positioned at its key");
	ok(toml_get(root->u.table, "nope") == NULL, "missing key gives NULL");
	arena_free(&a);
}

static void
expect_error(const char *doc, int line, int col, const char *what)
{
	struct arena a = {0};
	struct toml_error err;
	struct toml_value *root = parse(&a, doc, &err);

	ok(!root && err.line == line && err.col == col && err.msg[0],
	   "%s: error at %d:%d (got %d:%d %s)", what, line, col, root ? 0 : err.line,
	   root ? 0 : err.col, root ? "accepted" : err.msg);
	arena_free(&a);
}

static void
test_errors(void)
{
	expect_error("a = 1\na = 2\n", 2, 1, "duplicate key");
	expect_error("a = \"x\\q\"\n", 1, 7, "bad escape");
	expect_error("x = 9223372036854775808\n", 1, 5, "int64 overflow");
	expect_error("[t]\n[t]\n", 2, 2, "table defined twice");
	expect_error("a = 1\nb = \n", 2, 5, "missing value");
	expect_error("a = [1,2\n", 2, 1, "unterminated array");
}

static void
test_limits(void)
{
	struct arena a = {0};
	struct toml_error err;
	struct buf doc = {0};
	struct toml_value *root;
	int i;

	buf_puts(&doc, "x = ");
	for (i = 0; i < 100000; i++)
		buf_putc(&doc, '[');
	root = toml_parse(&a, "deep.toml", doc.data, doc.len, &err);
	ok(!root && err.msg[0], "100000 nested arrays rejected, not a stack overflow (%s)",
	   root ? "accepted" : err.msg);
	arena_free(&a);
	ok(!toml_parse(&a, "nul.toml", "a = 1\0b = 2", 11, &err), "NUL byte rejected");
	arena_free(&a);
	ok(toml_parse(&a, "unterminated.toml", "a = 'x", 6, &err) == NULL,
	   "unterminated string without trailing NUL");
	arena_free(&a);
	buf_free(&doc);
}

static void
test_datetime(void)
{
	struct arena a = {0};
	struct toml_error err;
	struct toml_value *root;
	char out[64];

	root = parse(&a, "a = 1979-05-27 07:32:00.999999-07:00\nb = 07:32:00\nc = 1979-05-27t00:32:00z\n",
	             &err);
	ok(root != NULL, "datetimes parse");
	if (!root)
		return;
	toml_format_datetime(toml_get(root->u.table, "a"), out, sizeof(out));
	ok(strcmp(out, "1979-05-27T07:32:00.999999-07:00") == 0, "offset datetime formatted (%s)", out);
	toml_format_datetime(toml_get(root->u.table, "b"), out, sizeof(out));
	ok(strcmp(out, "07:32:00") == 0, "local time formatted (%s)", out);
	toml_format_datetime(toml_get(root->u.table, "c"), out, sizeof(out));
	ok(strcmp(out, "1979-05-27T00:32:00Z") == 0, "Z datetime formatted (%s)", out);
	arena_free(&a);
}

int
main(void)
{
	test_positions();
	test_errors();
	test_limits();
	test_datetime();
	ok(strcmp(toml_type_name(TOML_STRING), "string") == 0, "type names");
	return tap_done();
}
