/* wl_train.c: the overrides list the training workloads share (wl_train.h). */
#include <stdlib.h>
#include <string.h>

#include "wl_train.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

static bool
listed(const char *const *l, const char *k)
{
	for (; l && *l; l++)
		if (strcmp(*l, k) == 0)
			return true;
	return false;
}

static ptrdiff_t
find(const struct ovr *o, const char *key)
{
	size_t i;

	for (i = 0; i < o->len; i++)
		if (strcmp(o->items[i].key, key) == 0)
			return (ptrdiff_t)i;
	return -1;
}

/* Where a new key goes: after the last entry that shares its longest
 * table prefix ("a.b." then "a."), else at the end. */
static size_t
slot(const struct ovr *o, const char *key)
{
	size_t n = strlen(key), i, at;

	for (;;) {
		while (n > 0 && key[n - 1] != '.')
			n--;
		if (n == 0)
			return o->len;
		at = 0;
		for (i = 0; i < o->len; i++)
			if (strncmp(o->items[i].key, key, n) == 0)
				at = i + 1;
		if (at)
			return at;
		n--;
	}
}

void
ovr_set(struct ovr *o, const char *key, const char *value)
{
	ptrdiff_t f = find(o, key);
	size_t at;

	if (f >= 0) {
		o->items[f].value = value;
		return;
	}
	o->items = xreserve(o->items, o->len + 1, &o->cap, sizeof(*o->items));
	at = slot(o, key);
	memmove(&o->items[at + 1], &o->items[at], (o->len - at) * sizeof(*o->items));
	o->items[at].key = key;
	o->items[at].value = value;
	o->len++;
}

void
ovr_del(struct ovr *o, const char *key)
{
	ptrdiff_t f = find(o, key);

	if (f < 0)
		return;
	memmove(&o->items[f], &o->items[f + 1], (o->len - (size_t)f - 1) * sizeof(*o->items));
	o->len--;
}

const char *
ovr_get(const struct ovr *o, const char *key)
{
	ptrdiff_t f = find(o, key);

	return f >= 0 ? o->items[f].value : NULL;
}

static const char *
pybool(const struct arg_schema *s, const char *v)
{
	if (s && s->type == ARG_BOOL && v) {
		if (strcmp(v, "true") == 0)
			return "True";
		if (strcmp(v, "false") == 0)
			return "False";
	}
	return v;
}

void
ovr_init(struct ovr *o, const struct run *r, const char *const *skip)
{
	const struct workload *wl = r->def->wl;
	size_t i;

	memset(o, 0, sizeof(*o));
	for (i = 0; i < wl->n_args; i++) {
		/* a field that is None keeps its place for a value set later */
		const char *v = workload_value_of(r, &wl->args[i]);
		if (!listed(skip, wl->args[i].key))
			ovr_set(o, wl->args[i].key, pybool(&wl->args[i], v));
	}
	for (i = 0; i < r->args.len; i++)
		if (!workload_arg(wl, r->args.items[i].key) && !listed(skip, r->args.items[i].key))
			ovr_set(o, r->args.items[i].key, r->args.items[i].value);
}

void
ovr_append(const struct ovr *o, struct buf *out)
{
	struct buf w = {0};
	size_t i;

	for (i = 0; i < o->len; i++) {
		if (!o->items[i].value)
			continue; /* None: left out, as CloudAI leaves it out */
		w.len = 0;
		buf_printf(&w, "%s=%s", o->items[i].key, o->items[i].value);
		buf_putc(out, ' ');
		sh_quote(out, buf_str(&w));
	}
	buf_free(&w);
}

void
ovr_free(struct ovr *o)
{
	free(o->items);
	memset(o, 0, sizeof(*o));
}

bool
train_int(const char *s, long long *v)
{
	char *end;

	if (!s || !*s)
		return false;
	*v = strtoll(s, &end, 10);
	return *end == '\0';
}

void
train_wait(struct buf *out, const char *logs)
{
	/* kunai.subjob: the runner cancels that job too; the traps cancel it
	 * when the job script is (the wait in the loop lets them run at once) */
	buf_puts(out, "[ -n \"$KUNAI_JOB\" ] && {\n"
	              "  printf 'job=%s\\n' \"$KUNAI_JOB\" >\"$RUN_DIR/kunai.subjob\"\n"
	              "  trap 'scancel \"$KUNAI_JOB\"; exit 129' HUP; trap 'scancel \"$KUNAI_JOB\"; exit 130' INT\n"
	              "  trap 'scancel \"$KUNAI_JOB\"; exit 143' TERM\n"
	              "  while squeue -h -j \"$KUNAI_JOB\" 2>/dev/null | grep -q .; do sleep 30 & wait $!; done\n"
	              "  cat ");
	buf_puts(out, logs);
	/* without accounting, squeue -t all knows an ended job for MinJobAge */
	buf_puts(out, " 2>/dev/null\n"
	              "  { sacct -n -X -P -j \"$KUNAI_JOB\" -o State 2>/dev/null | grep . ||\n"
	              "    squeue -h -t all -j \"$KUNAI_JOB\" -o %T 2>/dev/null; } | grep -q '^COMPLETED'\n"
	              "}");
}
