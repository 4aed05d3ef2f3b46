/* wl_serve_aiperf.c: the aiperf script of CloudAI's serving workloads:
 * each phase of cmd_args.aiperf_phases (or one made of cmd_args.aiperf) with
 * its arguments merged as CloudAI merges them, its report copied where
 * CloudAI's report parser reads it, health checks between phases. */
#include <stdlib.h>
#include <string.h>

#include "wl_serve.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"

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
		a->items = xreserve(a->items, a->len + 1, &a->cap, sizeof(*a->items));
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
		if (!serve_listed(kv->key, one) || kv->value->type == TOML_TABLE || kv->value->type == TOML_ARRAY)
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

/* The lines that put report src at dst (its folder made; no copy onto
 * itself) and log "WHAT saved to DST". */
static void
save_report(struct buf *s, const char *src, const char *dst, const char *what)
{
	struct buf d = {0}, m = {0};

	buf_puts(s, "  mkdir -p ");
	dirname_of(&d, dst);
	sh_quote(s, buf_str(&d));
	buf_putc(s, '\n');
	if (strcmp(src, dst) != 0) {
		buf_puts(s, "  cp ");
		sh_quote(s, src);
		buf_putc(s, ' ');
		sh_quote(s, dst);
		buf_putc(s, '\n');
	}
	buf_printf(&m, "%s saved to %s", what, dst);
	log_line(s, "  ", buf_str(&m));
	buf_free(&d);
	buf_free(&m);
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
	buf_puts(s, "fi\nif [[ \"$phase_status\" -eq 0 ]]; then\n");
	save_report(s, buf_str(&src), buf_str(&rep), "AIPerf report");
	if (!single && last) {
		results_path(&fin, "aiperf_report.csv");
		save_report(s, buf_str(&rep), buf_str(&fin), "Final AIPerf report");
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

