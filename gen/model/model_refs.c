/* model_refs.c: a test's [references] (ReFrame's model): every reference
 * is checked here, with a located error for each bad value, tolerance,
 * unit or size range; reports/grade/refs.c applies them. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <string.h>

#include "model_priv.h"
#include "gen/base/util.h"

static bool
ref_number(const struct toml_value *v, double *d)
{
	if (v->type == TOML_INTEGER)
		*d = (double)v->u.integer;
	else if (v->type == TOML_FLOAT)
		*d = v->u.flt;
	else
		return false;
	return !isnan(*d);
}

/* A size of a reference's range: bytes as an integer, or a string such as
 * "1GiB" (util_parse_size). */
static bool
ref_size(struct mctx *c, const char *metric, const char *key, const struct toml_value *v, double *bytes)
{
	if (v->type == TOML_INTEGER && v->u.integer >= 0) {
		*bytes = (double)v->u.integer;
		return true;
	}
	if (v->type == TOML_STRING && strlen(v->u.str.s) == v->u.str.len && util_parse_size(v->u.str.s, bytes))
		return true;
	if (v->type == TOML_STRING)
		merr(c, v->pos, "reference '%s': %s '%s' is not a size in bytes (an integer, or a string such as "
		     "\"1GiB\", \"512MiB\", \"8G\")", metric, key, m_shown(c, v->u.str.s));
	else if (v->type == TOML_INTEGER)
		merr(c, v->pos, "reference '%s': %s must be a size in bytes, not %lld", metric, key,
		     (long long)v->u.integer);
	else
		merr(c, v->pos, "reference '%s': %s must be a size in bytes (an integer, or a string such as "
		     "\"1GiB\"), not %s", metric, key, m_a_type(v));
	return false;
}

/* min_size and max_size of table t: the message sizes a reference is for. */
static void
check_range(struct mctx *c, const char *metric, const struct toml_value *t)
{
	const struct toml_keyval *lo = m_kv(t, "min_size"), *hi = m_kv(t, "max_size");
	double a = 0, b = 0;
	bool ha, hb;

	ha = lo && ref_size(c, metric, "min_size", lo->value, &a);
	hb = hi && ref_size(c, metric, "max_size", hi->value, &b);
	if (ha && hb && a > b)
		merr(c, hi->value->pos, "reference '%s': max_size is below min_size", metric);
}

static void
check_lower(struct mctx *c, const char *metric, const struct toml_value *v)
{
	double lo;

	if (!ref_number(v, &lo) || lo > 0 || (lo < -1 && !isinf(lo)))
		merr(c, v->pos, "reference '%s': the lower tolerance must be a fraction in [-1, 0] or -inf", metric);
}

static void
check_upper(struct mctx *c, const char *metric, const struct toml_value *v)
{
	double hi;

	if (!ref_number(v, &hi) || hi < 0)
		merr(c, v->pos, "reference '%s': the upper tolerance must be a fraction >= 0 or inf", metric);
}

/* The table form: { value = V, lower = L, upper = U, unit = "U",
 * min_size = S, max_size = S }; value and lower are required. */
static void
check_ref_table(struct mctx *c, const char *metric, const struct toml_value *v)
{
	static const char *const keys[] = {"value", "lower", "upper", "unit", "min_size", "max_size", NULL};
	const struct toml_keyval *kv;
	double val;

	m_check_keys(c, v, keys);
	if (!(kv = m_kv(v, "value")))
		merr(c, v->pos, "reference '%s' has no value", metric);
	else if (!ref_number(kv->value, &val) || isinf(val))
		merr(c, kv->value->pos, "reference '%s': the value must be a finite number", metric);
	if (!(kv = m_kv(v, "lower")))
		merr(c, v->pos, "reference '%s' has no lower tolerance (lower = -0.05: 5%% below)", metric);
	else
		check_lower(c, metric, kv->value);
	if ((kv = m_kv(v, "upper")))
		check_upper(c, metric, kv->value);
	if ((kv = m_kv(v, "unit")) && kv->value->type != TOML_STRING)
		merr(c, kv->value->pos, "reference '%s': the unit must be a string", metric);
	check_range(c, metric, v);
}

/* Is v a reference in the table form (rather than a table of references
 * for one system or GPU model)? One of its keys is a reference's own
 * (value, lower, ...) and holds a plain value, not an array or a table. */
static bool
ref_is_table(const struct toml_value *v)
{
	static const char *const own[] = {"value", "lower", "upper", "unit", "min_size", "max_size"};
	const struct toml_keyval *kv;
	size_t i;

	for (i = 0; v->type == TOML_TABLE && i < LEN(own); i++)
		if ((kv = m_kv(v, own[i])) && kv->value->type != TOML_ARRAY && kv->value->type != TOML_TABLE)
			return true;
	return false;
}

/* One metric's reference, ReFrame's tuple: [value, lower, upper, "unit"],
 * tolerances as fractions of value (-0.1: 10% below), -inf/inf unbounded;
 * upper and unit may be left out; a last { min_size, max_size } limits it
 * to those message sizes. Or the same as a table (check_ref_table). */
static void
check_ref(struct mctx *c, const char *metric, const struct toml_value *v)
{
	static const char *const range_keys[] = {"min_size", "max_size", NULL};
	const struct toml_value *const *it;
	double val;
	size_t n, unit_at;

	if (v->type == TOML_TABLE) {
		check_ref_table(c, metric, v);
		return;
	}
	if (v->type != TOML_ARRAY) {
		merr(c, v->pos, "reference '%s' must be [value, lower, upper, \"unit\"] or { value = ..., lower = ... }, "
		     "not %s", metric, m_a_type(v));
		return;
	}
	it = (const struct toml_value *const *)v->u.array->items;
	n = v->u.array->len;
	if (n >= 3 && it[n - 1]->type == TOML_TABLE) {
		m_check_keys(c, it[n - 1], range_keys);
		check_range(c, metric, it[n - 1]);
		n--;
	}
	if (n < 2 || n > 4) {
		merr(c, v->pos, "reference '%s' must be [value, lower, upper, \"unit\"] (2 to 4 items, not %zu)",
		     metric, n);
		return;
	}
	if (!ref_number(it[0], &val) || isinf(val))
		merr(c, it[0]->pos, "reference '%s': the value must be a finite number", metric);
	check_lower(c, metric, it[1]);
	unit_at = n;
	if (n >= 3 && it[2]->type == TOML_STRING)
		unit_at = 2;
	else if (n >= 3)
		check_upper(c, metric, it[2]);
	if (n == 4 && unit_at == n)
		unit_at = 3;
	if (unit_at < n && (it[unit_at]->type != TOML_STRING || unit_at != n - 1))
		merr(c, it[unit_at]->pos, "reference '%s': the unit must be the last item, a string", metric);
}

/* [references]: metric = [...] (or { value = ... }) for every system, or a
 * table of them per system name or GPU model ([references."H100"]). */
void
m_load_references(struct mctx *c, const struct toml_value *root)
{
	const struct toml_value *t = m_table(c, root, "references");
	size_t i, j;

	for (i = 0; t && i < t->u.table->len; i++) {
		const struct toml_keyval *kv = &t->u.table->items[i];
		if (kv->value->type != TOML_TABLE || ref_is_table(kv->value)) {
			check_ref(c, kv->key, kv->value);
			continue;
		}
		for (j = 0; j < kv->value->u.table->len; j++) {
			const struct toml_keyval *m = &kv->value->u.table->items[j];
			check_ref(c, m->key, m->value);
		}
	}
}
