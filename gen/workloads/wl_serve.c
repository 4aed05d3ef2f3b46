/* wl_serve.c: the serving family's shared launcher code (wl_serve.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wl_serve.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

/* table.name in buf b, with '-' in name turned to '_' when under. */
static const char *
key_of(struct buf *b, const char *table, const char *name, bool under)
{
	size_t i, start;

	b->len = 0;
	if (table)
		buf_printf(b, "%s.", table);
	start = b->len;
	buf_puts(b, name);
	for (i = start; under && i < b->len; i++)
		if (b->data[i] == '-')
			b->data[i] = '_';
	return buf_str(b);
}

static const char *
run_value(const struct run *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->args.len; i++)
		if (strcmp(r->args.items[i].key, key) == 0)
			return r->args.items[i].value;
	return NULL;
}

const char *
serve_get(const struct run *r, const char *table, const char *name)
{
	struct buf b = {0};
	const char *v;

	if (!(v = run_value(r, key_of(&b, table, name, false))) &&
	    !(v = run_value(r, key_of(&b, table, name, true))))
		v = workload_value(r, key_of(&b, table, name, false));
	buf_free(&b);
	return v;
}

bool
serve_is_bool(const struct run *r, const char *table, const char *name)
{
	const struct arg_schema *s;
	struct buf b = {0};
	bool yes;

	if (run_value(r, key_of(&b, table, name, false)))
		yes = workload_is_bool(r, buf_str(&b));
	else if (run_value(r, key_of(&b, table, name, true)))
		yes = workload_is_bool(r, buf_str(&b));
	else
		yes = (s = workload_arg(r->def->wl, key_of(&b, table, name, false))) && s->type == ARG_BOOL;
	buf_free(&b);
	return yes;
}

/* Whether name (as written) is one of list, dashes and underscores alike. */
static bool
listed(const char *name, const char *const *list)
{
	size_t i, j;

	for (i = 0; list && list[i]; i++) {
		const char *a = list[i];
		for (j = 0; a[j] && name[j]; j++)
			if (a[j] != name[j] && !((a[j] == '-' || a[j] == '_') && (name[j] == '-' || name[j] == '_')))
				break;
		if (!a[j] && !name[j])
			return true;
	}
	return false;
}

static void
pair(struct buf *out, const char *prefix, const char *name, const char *value)
{
	buf_printf(out, " %s%s ", prefix, name);
	sh_quote(out, value);
}

void
serve_fields(const struct run *r, const char *table, const char *prefix, const char *const *fields,
             struct buf *out)
{
	const char *v;
	size_t i;

	for (i = 0; fields && fields[i]; i++)
		if ((v = serve_get(r, table, fields[i])))
			pair(out, prefix, fields[i], v);
}

void
serve_extras(const struct run *r, const char *table, const char *prefix, const char *const *declared,
             struct buf *out)
{
	size_t i, n = table ? strlen(table) : 0;

	for (i = 0; i < r->args.len; i++) {
		const char *k = r->args.items[i].key;
		if (table && (strncmp(k, table, n) != 0 || k[n] != '.'))
			continue;
		k += table ? n + 1 : 0;
		/* a nested table of an extra key: Python prints a dict, kunai none */
		if (strchr(k, '.') || listed(k, declared))
			continue;
		pair(out, prefix, k, r->args.items[i].value);
	}
}

const struct toml_value *
serve_toml(const struct run *r, const char *key)
{
	size_t i;

	for (i = 0; i < r->def->cmd_args.len; i++)
		if (strcmp(r->def->cmd_args.items[i].key, key) == 0)
			return r->def->cmd_args.items[i].val;
	return NULL;
}

void
serve_scalar(struct buf *b, const struct toml_value *v)
{
	char tmp[64];

	switch (v->type) {
	case TOML_STRING:
		buf_push(b, v->u.str.s, v->u.str.len);
		return;
	case TOML_INTEGER:
		buf_printf(b, "%" PRId64, v->u.integer);
		return;
	case TOML_BOOL:
		buf_puts(b, v->u.boolean ? "True" : "False");
		return;
	case TOML_FLOAT:
		if (!isfinite(v->u.flt)) {
			buf_puts(b, isnan(v->u.flt) ? "nan" : v->u.flt < 0 ? "-inf" : "inf");
			return;
		}
		util_float_repr(tmp, sizeof(tmp), v->u.flt);
		buf_puts(b, tmp);
		return;
	default:
		return;
	}
}

/* The end of the shell word at p (quotes skipped whole). */
static const char *
word_end(const char *p)
{
	for (; *p && *p != ' '; p++) {
		if (*p == '\'' && strchr(p + 1, '\''))
			p = strchr(p + 1, '\'');
		else if (*p == '"')
			for (p++; *p && *p != '"'; p++)
				if (*p == '\\' && p[1])
					p++;
		if (!*p)
			break;
	}
	return p;
}

void
serve_aux_prefix(const struct run *r, const char *srun_prefix, const char *image, struct buf *out)
{
	const char *p = srun_prefix, *img = strstr(p, " --container-image="),
	           *mnt = strstr(p, " --container-mounts=");
	const char *home = strstr(p, " --no-container-mount-home");
	char nflag[32];
	size_t n;

	snprintf(nflag, sizeof(nflag), " -N%d", r->num_nodes);
	n = strlen(nflag);
	while (*p) {
		if (strncmp(p, nflag, n) == 0 && (p[n] == ' ' || !p[n])) {
			p += n;
			continue;
		}
		if (img && p == img && mnt) {
			if (image) {
				buf_puts(out, " --container-image=");
				if (r->c->system->cache_docker_images_locally && image[0] != '/' && image[0] != '.') {
					struct buf name = {0};
					workload_image_cache_name(&name, image);
					buf_puts(out, "\"$INSTALL_DIR\"/");
					sh_quote_cont(out, buf_str(&name));
					buf_free(&name);
				} else
					sh_quote_cont(out, image);
				p = mnt;
				continue;
			}
			/* no container: neither image, mounts nor mount-home flags */
			p = word_end(mnt + 1);
			if (home && strncmp(p, " --no-container-mount-home", 26) == 0)
				p += 26;
			continue;
		}
		buf_putc(out, *p++);
	}
}

/* aiperf's ordered arguments (a Python dict): kind 0 a value, 1 True (the
 * flag alone), 2 False or None (left out). */
struct aarg {
	char *key, *text;
	int kind;
};

struct aargs {
	struct aarg *items;
	size_t len, cap;
};

static void
aset(struct aargs *a, const char *key, const char *text, int kind)
{
	size_t i;

	for (i = 0; i < a->len; i++)
		if (strcmp(a->items[i].key, key) == 0)
			break;
	if (i == a->len) {
		if (a->len == a->cap) {
			a->cap = a->cap ? a->cap * 2 : 16;
			a->items = xrealloc(a->items, a->cap * sizeof(*a->items));
		}
		a->items[a->len].key = xstrdup(key);
		a->items[a->len++].text = NULL;
	}
	free(a->items[i].text);
	a->items[i].text = xstrdup(text ? text : "");
	a->items[i].kind = kind;
}

static struct aarg *
aget(struct aargs *a, const char *key)
{
	size_t i;

	for (i = 0; i < a->len; i++)
		if (strcmp(a->items[i].key, key) == 0)
			return &a->items[i];
	return NULL;
}

static void
afree(struct aargs *a)
{
	size_t i;

	for (i = 0; i < a->len; i++) {
		free(a->items[i].key);
		free(a->items[i].text);
	}
	free(a->items);
}

/* " --key [value]" of one argument; marks it rendered (kind 2). */
static void
arender(struct buf *out, struct aarg *g)
{
	if (!g || g->kind == 2)
		return;
	buf_printf(out, " --%s", g->key);
	if (g->kind == 0) {
		buf_putc(out, ' ');
		sh_quote(out, g->text);
	}
	g->kind = 2;
}

/* A phase's string field (dashes or underscores), or NULL. */
static const char *
pstr(const struct toml_value *ph, const char *name, struct buf *tmp)
{
	size_t i;

	for (i = 0; ph && i < ph->u.table->len; i++) {
		const struct toml_keyval *kv = &ph->u.table->items[i];
		const char *const one[] = {name, NULL};
		if (!listed(kv->key, one) || kv->value->type == TOML_TABLE || kv->value->type == TOML_ARRAY)
			continue;
		tmp->len = 0;
		serve_scalar(tmp, kv->value);
		return buf_str(tmp);
	}
	return NULL;
}

/* The phase's value of an AIPerf field, else the base's (cmd_args.aiperf). */
static const char *
field(const struct run *r, const struct toml_value *ph, const char *name, struct buf *tmp)
{
	const char *v = pstr(ph, name, tmp);

	return v ? v : serve_get(r, "aiperf", name);
}

static void
results_path(struct buf *b, const char *p)
{
	b->len = 0;
	if (p[0] != '/')
		buf_puts(b, "/cloudai_run_results/");
	buf_puts(b, p);
}

static void
log_line(struct buf *s, const char *indent, const char *msg)
{
	buf_printf(s, "%slog ", indent);
	sh_quote(s, msg);
	buf_putc(s, '\n');
}

/* log 'MSG: bash -lc CMD' and bash -lc CMD, each line after indent. */
static void
bash_lc(struct buf *s, const char *indent, const char *msg, const char *cmd)
{
	struct buf m = {0}, c = {0};

	buf_puts(&c, "bash -lc ");
	sh_quote(&c, cmd);
	buf_printf(&m, "%s: %s", msg, buf_str(&c));
	log_line(s, indent, buf_str(&m));
	buf_printf(s, "%s%s\n", indent, buf_str(&c));
	buf_free(&m);
	buf_free(&c);
}

static void
dirname_of(struct buf *b, const char *path)
{
	const char *sl = strrchr(path, '/');

	b->len = 0;
	if (!sl)
		buf_puts(b, ".");
	else if (sl == path)
		buf_puts(b, "/");
	else
		buf_push(b, path, (size_t)(sl - path));
}

/* The arguments of one phase: CloudAI's fixed three, the base's and the
 * phase's args, the artifact dir, no-server-metrics unless either is set. */
static void
phase_args(const struct run *r, const struct toml_value *ph, const char *model,
           const char *artifact, struct aargs *a)
{
	const struct toml_value *pa = NULL;
	struct buf t = {0};
	size_t i;

	aset(a, "model", model, 0);
	aset(a, "endpoint-type", "chat", 0);
	aset(a, "streaming", NULL, 1);
	for (i = 0; i < r->args.len; i++) {
		const char *k = r->args.items[i].key;
		if (strncmp(k, "aiperf.args.", 12) != 0 || strchr(k + 12, '.'))
			continue;
		if (workload_is_bool(r, k))
			aset(a, k + 12, NULL, workload_true(r->args.items[i].value) ? 1 : 2);
		else
			aset(a, k + 12, r->args.items[i].value, 0);
	}
	for (i = 0; ph && i < ph->u.table->len; i++)
		if (strcmp(ph->u.table->items[i].key, "args") == 0 &&
		    ph->u.table->items[i].value->type == TOML_TABLE)
			pa = ph->u.table->items[i].value;
	for (i = 0; pa && i < pa->u.table->len; i++) {
		const struct toml_value *v = pa->u.table->items[i].value;
		if (v->type == TOML_TABLE || v->type == TOML_ARRAY)
			continue; /* CloudAI refuses those */
		t.len = 0;
		serve_scalar(&t, v);
		if (v->type == TOML_BOOL)
			aset(a, pa->u.table->items[i].key, NULL, v->u.boolean ? 1 : 2);
		else
			aset(a, pa->u.table->items[i].key, buf_str(&t), 0);
	}
	aset(a, "artifact-dir", artifact, 0);
	if (!aget(a, "server-metrics") && !aget(a, "no-server-metrics"))
		aset(a, "no-server-metrics", NULL, 1);
	buf_free(&t);
}

static void
phase_block(const struct run *r, const struct toml_value *ph, const char *name, size_t idx,
            size_t nphases, const char *model, struct buf *s)
{
	bool single = nphases == 1, last = idx + 1 == nphases;
	struct buf t = {0}, art = {0}, rep = {0}, src = {0}, cmd = {0}, m = {0}, d = {0}, fin = {0};
	const char *v, *extra;
	struct aargs a = {0};
	struct aarg *g;
	bool auto_metrics;
	char **w;
	int nw, i;
	size_t k;

	/* artifact dir and report: the phase's, else per phase when there are several */
	if ((v = pstr(ph, "artifact-dir-name", &t)))
		results_path(&art, v);
	else {
		buf_printf(&m, "%s%s%s", serve_get(r, "aiperf", "artifact-dir-name"), single ? "" : "/",
		           single ? "" : name);
		results_path(&art, buf_str(&m));
	}
	if ((v = pstr(ph, "report-name", &t)))
		results_path(&rep, v);
	else if (single)
		results_path(&rep, serve_get(r, "aiperf", "report-name"));
	else {
		m.len = 0;
		buf_printf(&m, "aiperf_%s_report.csv", name);
		results_path(&rep, buf_str(&m));
	}
	buf_printf(&src, "%s/profile_export_aiperf.csv", buf_str(&art));

	/* the command: cmd's words re-quoted, the arguments, extra-args */
	v = field(r, ph, "cmd", &t);
	{
		struct arena tmp = {0};
		nw = sh_split(&tmp, v ? v : "", &w);
		for (i = 0; i < nw; i++) {
			if (i)
				buf_putc(&cmd, ' ');
			sh_quote(&cmd, w[i]);
		}
		arena_free(&tmp);
	}
	phase_args(r, ph, model, buf_str(&art), &a);
	g = aget(&a, "server-metrics");
	auto_metrics = g && g->kind == 0 && strcmp(g->text, "auto") == 0;
	if (auto_metrics)
		g->kind = 2;
	m.len = 0;
	arender(&m, aget(&a, "model"));
	arender(&m, aget(&a, "endpoint-type"));
	arender(&m, aget(&a, "streaming"));
	if ((g = aget(&a, "url")) && g->kind != 2)
		arender(&m, g);
	else
		buf_puts(&m, " --url \"$FRONTEND_URL\"");
	for (k = 0; k < a.len; k++)
		arender(&m, &a.items[k]);
	if (auto_metrics)
		buf_puts(&m, " --server-metrics \"$AIPERF_SERVER_METRICS_URLS\"");
	buf_puts(&cmd, buf_str(&m));
	t.len = 0;
	extra = pstr(ph, "extra-args", &t);
	if (!extra)
		extra = serve_get(r, "aiperf", "extra-args");
	if (extra && *extra)
		buf_printf(&cmd, " %s", extra);

	/* the phase's own setup command */
	t.len = 0;
	if ((v = pstr(ph, "setup-cmd", &t))) {
		m.len = 0;
		buf_printf(&m, "Running AIPerf phase setup for %s", name);
		bash_lc(s, "", buf_str(&m), v);
	}
	buf_puts(s, "rm -rf ");
	sh_quote(s, buf_str(&art));
	buf_puts(s, "\nmkdir -p ");
	sh_quote(s, buf_str(&art));
	buf_putc(s, '\n');
	m.len = 0;
	buf_printf(&m, "Running %s: %s", name, buf_str(&cmd));
	log_line(s, "", buf_str(&m));
	buf_printf(s, "phase_status=0\nset +e\n%s", buf_str(&cmd));
	if (!single) {
		m.len = 0;
		buf_printf(&m, "aiperf_%s.log", name);
		results_path(&d, buf_str(&m));
		buf_puts(s, " > ");
		sh_quote(s, buf_str(&d));
		buf_puts(s, " 2>&1");
	}
	buf_puts(s, "\nphase_status=$?\nset -e\nif [[ \"$phase_status\" -ne 0 ]]; then\n");
	m.len = 0;
	buf_printf(&m, "AIPerf phase %s failed", name);
	log_line(s, "  ", buf_str(&m));
	if (!workload_true(field(r, ph, "continue-on-phase-failure", &t)))
		buf_puts(s, "  exit \"$phase_status\"\n");
	buf_puts(s, "fi\nif [[ \"$phase_status\" -eq 0 ]]; then\n  mkdir -p ");
	dirname_of(&d, buf_str(&rep));
	sh_quote(s, buf_str(&d));
	buf_putc(s, '\n');
	if (strcmp(buf_str(&src), buf_str(&rep)) != 0) {
		buf_puts(s, "  cp ");
		sh_quote(s, buf_str(&src));
		buf_putc(s, ' ');
		sh_quote(s, buf_str(&rep));
		buf_putc(s, '\n');
	}
	m.len = 0;
	buf_printf(&m, "AIPerf report saved to %s", buf_str(&rep));
	log_line(s, "  ", buf_str(&m));
	if (!single && last) {
		results_path(&fin, "aiperf_report.csv");
		buf_puts(s, "  mkdir -p ");
		dirname_of(&d, buf_str(&fin));
		sh_quote(s, buf_str(&d));
		buf_putc(s, '\n');
		if (strcmp(buf_str(&rep), buf_str(&fin)) != 0) {
			buf_puts(s, "  cp ");
			sh_quote(s, buf_str(&rep));
			buf_putc(s, ' ');
			sh_quote(s, buf_str(&fin));
			buf_putc(s, '\n');
		}
		m.len = 0;
		buf_printf(&m, "Final AIPerf report saved to %s", buf_str(&fin));
		log_line(s, "  ", buf_str(&m));
	}
	if (!single && !last) {
		if ((v = field(r, ph, "between-phase-cmd", &t)) && *v) {
			m.len = 0;
			buf_printf(&m, "Running AIPerf between-phase command after %s", name);
			bash_lc(s, "  ", buf_str(&m), v);
		}
		if (workload_true(field(r, ph, "health-check-between-phases", &t)))
			buf_puts(s, "  if [[ -f \"$AIPERF_FAILURE_MARKER\" ]]; then\n"
			            "    log 'FATAL: failure marker found between AIPerf phases'\n"
			            "    exit 1\n"
			            "  fi\n"
			            "  if ! curl -fsS -X POST \"${FRONTEND_URL}/${AIPERF_ENDPOINT}\" "
			            "-H 'Content-Type: application/json' -d \"{\\\"model\\\":\\\"${AIPERF_MODEL}\\\","
			            "\\\"messages\\\":[{\\\"role\\\":\\\"user\\\",\\\"content\\\":\\\"ping\\\"}],"
			            "\\\"stream\\\":false,\\\"max_tokens\\\":1}\" >/dev/null; then\n"
			            "    log 'FATAL: frontend health probe failed between AIPerf phases'\n"
			            "    exit 1\n"
			            "  fi\n");
	}
	buf_puts(s, "fi\n");
	afree(&a);
	buf_free(&t);
	buf_free(&art);
	buf_free(&rep);
	buf_free(&src);
	buf_free(&cmd);
	buf_free(&m);
	buf_free(&d);
	buf_free(&fin);
}

void
serve_aiperf_script(const struct run *r, const char *model, const char *endpoint,
                    const char *dir_word, struct buf *out)
{
	const struct toml_value *phases = serve_toml(r, "aiperf_phases");
	size_t n = 0, i, j = 0;
	struct buf s = {0}, t = {0};
	const char *v;

	if (phases && phases->type == TOML_ARRAY)
		for (i = 0; i < phases->u.array->len; i++)
			n += phases->u.array->items[i]->type == TOML_TABLE;
	buf_puts(&s, "#!/usr/bin/env bash\nset -Eeuo pipefail\n\n"
	             "log() { echo \"[$(date +%F\\ %T) $(hostname)]: $*\"; }\n\n"
	             ": \"${FRONTEND_URL:?FRONTEND_URL is not set}\"\n"
	             ": \"${AIPERF_MODEL:=");
	sh_dquote_body(&s, model);
	buf_puts(&s, "}\"\n: \"${AIPERF_ENDPOINT:=");
	sh_dquote_body(&s, endpoint);
	buf_puts(&s, "}\"\n: \"${AIPERF_FAILURE_MARKER:=/cloudai_run_results/failure-marker.txt}\"\n");
	if ((v = serve_get(r, "aiperf", "setup-cmd")) && *v) {
		buf_putc(&s, '\n');
		bash_lc(&s, "", "Running aiperf setup", v);
	}
	if (!n) {
		buf_putc(&s, '\n');
		phase_block(r, NULL, "aiperf", 0, 1, model, &s);
	}
	for (i = 0; n && i < phases->u.array->len; i++) {
		const struct toml_value *ph = phases->u.array->items[i];
		if (ph->type != TOML_TABLE)
			continue;
		buf_putc(&s, '\n');
		t.len = 0;
		v = pstr(ph, "name", &t);
		phase_block(r, ph, v ? v : "", j++, n, model, &s);
	}
	buf_printf(out, "cat >%s/aiperf.sh ", dir_word);
	sh_heredoc(out, "KUNAI_AIPERF", buf_str(&s));
	buf_printf(out, "chmod 755 %s/aiperf.sh\n", dir_word);
	buf_free(&s);
	buf_free(&t);
}

const struct toml_value *
serve_arg(const struct argset *args, const char *key)
{
	size_t i;

	for (i = 0; i < args->len; i++)
		if (strcmp(args->items[i].key, key) == 0)
			return args->items[i].val;
	return NULL;
}

bool
serve_has(const struct argset *args, const char *prefix)
{
	size_t i, n = strlen(prefix);

	for (i = 0; i < args->len; i++)
		if (strncmp(args->items[i].key, prefix, n) == 0)
			return true;
	return false;
}

static const struct toml_value *
tget(const struct toml_value *t, const char *key)
{
	size_t i;

	for (i = 0; i < t->u.table->len; i++)
		if (strcmp(t->u.table->items[i].key, key) == 0)
			return t->u.table->items[i].value;
	return NULL;
}

bool
serve_check_phases(const struct argset *args, struct buf *msg, const struct toml_value **where)
{
	const struct toml_value *ph = serve_arg(args, "aiperf_phases"), *p, *name, *a, *o;
	size_t i, j, k;

	if (!ph)
		return true;
	*where = ph;
	if (ph->type != TOML_ARRAY) {
		buf_puts(msg, "'aiperf_phases' must be a list of tables ([[cmd_args.aiperf_phases]])");
		return false;
	}
	for (i = 0; i < ph->u.array->len; i++) {
		p = *where = ph->u.array->items[i];
		if (p->type != TOML_TABLE) {
			buf_puts(msg, "'aiperf_phases' must hold tables, each a phase");
			return false;
		}
		name = tget(p, "name");
		if (!name || name->type != TOML_STRING || !name->u.str.len ||
		    strspn(name->u.str.s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") !=
		            name->u.str.len) {
			*where = name ? name : p;
			buf_puts(msg, "an aiperf phase needs a name of letters, digits, '_', '.' and '-'");
			return false;
		}
		for (j = 0; j < i; j++) {
			o = tget(ph->u.array->items[j], "name");
			if (o && o->type == TOML_STRING && strcmp(o->u.str.s, name->u.str.s) == 0) {
				*where = name;
				buf_printf(msg, "aiperf phase names must be unique: '%s' is used twice", name->u.str.s);
				return false;
			}
		}
		for (j = 0; j < p->u.table->len; j++) {
			const struct toml_keyval *kv = &p->u.table->items[j];
			a = kv->value;
			if (strcmp(kv->key, "args") == 0) {
				if (a->type != TOML_TABLE) {
					*where = a;
					buf_puts(msg, "an aiperf phase's 'args' must be a table");
					return false;
				}
				for (k = 0; k < a->u.table->len; k++)
					if (a->u.table->items[k].value->type == TOML_TABLE ||
					    a->u.table->items[k].value->type == TOML_ARRAY) {
						*where = a->u.table->items[k].value;
						buf_printf(msg, "aiperf argument '%s' must be a single value (a string "
						                "with aiperf's own syntax for several)",
						           a->u.table->items[k].key);
						return false;
					}
			} else if (a->type == TOML_TABLE || a->type == TOML_ARRAY) {
				*where = a;
				buf_printf(msg, "an aiperf phase's '%s' must be a single value", kv->key);
				return false;
			}
		}
	}
	return true;
}

void
serve_install_dir(const struct run *r, struct buf *out)
{
	const char *ip = r->c->system->install_path, *d;
	struct buf b = {0};

	if (ip && ip[0] == '/') {
		sh_quote(out, ip);
		return;
	}
	/* a relative install_path is relative to the build dir */
	buf_puts(&b, "..");
	for (d = r->dir; (d = strchr(d, '/')); d++)
		buf_puts(&b, "/..");
	while (ip && ip[0] == '.' && ip[1] == '/')
		ip += 2;
	if (ip && *ip && strcmp(ip, ".") != 0)
		buf_printf(&b, "/%s", ip);
	sh_quote(out, buf_str(&b));
	buf_free(&b);
}
