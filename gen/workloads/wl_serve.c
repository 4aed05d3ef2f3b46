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

const char *
serve_get(const struct run *r, const char *table, const char *name)
{
	struct buf b = {0};
	const char *v;

	if (!(v = workload_own_value(r, key_of(&b, table, name, false))) &&
	    !(v = workload_own_value(r, key_of(&b, table, name, true))))
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

	if (workload_own_value(r, key_of(&b, table, name, false)))
		yes = workload_is_bool(r, buf_str(&b));
	else if (workload_own_value(r, key_of(&b, table, name, true)))
		yes = workload_is_bool(r, buf_str(&b));
	else
		yes = (s = workload_arg(r->def->wl, key_of(&b, table, name, false))) && s->type == ARG_BOOL;
	buf_free(&b);
	return yes;
}

/* Whether name (as written) is one of list, dashes and underscores alike. */
bool
serve_listed(const char *name, const char *const *list)
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
		if (strchr(k, '.') || serve_listed(k, declared))
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

static void
toml_key(struct buf *out, const char *k)
{
	if (*k && strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") == strlen(k))
		buf_puts(out, k);
	else
		serve_dq(out, k);
}

void
serve_dq(struct buf *out, const char *s)
{
	buf_putc(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			buf_printf(out, "\\%c", c);
		else if (c == '\n')
			buf_puts(out, "\\n");
		else if (c == '\t')
			buf_puts(out, "\\t");
		else if (c < 0x20 || c == 0x7f)
			buf_printf(out, "\\u%04x", c);
		else
			buf_putc(out, c);
	}
	buf_putc(out, '"');
}

/* A scalar as TOML and YAML both read it (strings double-quoted). */
static void
conf_scalar(struct buf *out, const struct toml_value *v)
{
	size_t i;

	switch (v->type) {
	case TOML_STRING:
		serve_dq(out, v->u.str.s);
		break;
	case TOML_BOOL:
		buf_puts(out, v->u.boolean ? "true" : "false");
		break;
	case TOML_ARRAY:
		buf_putc(out, '[');
		for (i = 0; i < v->u.array->len; i++) {
			buf_puts(out, i ? ", " : "");
			conf_scalar(out, v->u.array->items[i]);
		}
		buf_putc(out, ']');
		break;
	case TOML_TABLE:
		buf_puts(out, "{}");
		break;
	default:
		serve_scalar(out, v);
	}
}

static void
toml_table(struct buf *out, const struct toml_value *t, struct buf *path, int depth)
{
	size_t i, at = path->len;
	bool scalars = false;

	for (i = 0; i < t->u.table->len; i++)
		scalars |= t->u.table->items[i].value->type != TOML_TABLE;
	if (scalars && path->len)
		buf_printf(out, "%s[%s]\n", out->len ? "\n" : "", buf_str(path));
	for (i = 0; i < t->u.table->len; i++) {
		const struct toml_keyval *kv = &t->u.table->items[i];
		if (kv->value->type == TOML_TABLE)
			continue;
		toml_key(out, kv->key);
		buf_puts(out, " = ");
		conf_scalar(out, kv->value);
		buf_putc(out, '\n');
	}
	for (i = 0; depth < 32 && i < t->u.table->len; i++) {
		const struct toml_keyval *kv = &t->u.table->items[i];
		if (kv->value->type != TOML_TABLE)
			continue;
		if (at)
			buf_putc(path, '.');
		toml_key(path, kv->key);
		toml_table(out, kv->value, path, depth + 1);
		path->len = at;
		buf_str(path);
	}
}

static void
yaml_table(struct buf *out, const struct toml_value *t, int indent)
{
	size_t i, j;

	for (i = 0; i < t->u.table->len; i++) {
		const struct toml_keyval *kv = &t->u.table->items[i];
		const struct toml_value *v = kv->value;
		buf_printf(out, "%*s", indent, "");
		toml_key(out, kv->key);
		buf_putc(out, ':');
		if (v->type == TOML_TABLE && v->u.table->len && indent < 64) {
			buf_putc(out, '\n');
			yaml_table(out, v, indent + 2);
		} else if (v->type == TOML_ARRAY && v->u.array->len) {
			buf_putc(out, '\n');
			for (j = 0; j < v->u.array->len; j++) {
				buf_printf(out, "%*s- ", indent, "");
				conf_scalar(out, v->u.array->items[j]);
				buf_putc(out, '\n');
			}
		} else {
			buf_putc(out, ' ');
			conf_scalar(out, v);
			buf_putc(out, '\n');
		}
	}
}

void
serve_conf_file(const struct run *r, const char *table, bool yaml, const char *file, struct buf *out)
{
	const struct toml_value *t = r->def->toml;
	struct buf body = {0}, path = {0};
	size_t i;

	for (i = 0; t && i < 2; i++) {
		const char *k = i ? table : "cmd_args";
		size_t j;
		const struct toml_value *next = NULL;
		for (j = 0; t->type == TOML_TABLE && j < t->u.table->len; j++)
			if (strcmp(t->u.table->items[j].key, k) == 0)
				next = t->u.table->items[j].value;
		t = next;
	}
	if (!t || t->type != TOML_TABLE)
		return;
	if (yaml)
		yaml_table(&body, t, 0);
	else
		toml_table(&body, t, &path, 0);
	buf_printf(out, "cat >\"$RUN_DIR\"/%s ", file);
	sh_heredoc(out, "KUNAI_CONF", buf_str(&body));
	buf_free(&body);
	buf_free(&path);
}
