/* ninja_log.c: carries a build dir's .ninja_log over a change of the
 * scheduler's rule file that only adds `exec` to the run and start commands
 * (rules/slurm.ninja, kubernetes.ninja, standalone.ninja). ninja reruns an
 * edge whose command's hash differs from the one its log recorded; the same
 * command under exec runs the same thing, one process less, so the log's
 * entries that hold the hash of the command without exec get the hash of
 * the command with it, and no finished run is run again. Every other entry,
 * and a log of any other version (ninja 1.11's is v5), is left as it was. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen/base/util.h"
#include "gen/write/ninja.h"

/* ninja's hash of a command (build_log.cc: MurmurHash64A, its seed). */
static uint64_t
ninja_hash(const char *s, size_t len)
{
	const uint64_t m = 0xc6a4a7935bd1e995ull, seed = 0xDECAFBADDECAFBADull;
	const unsigned char *p = (const unsigned char *)s;
	uint64_t h = seed ^ (len * m), k;
	const int r = 47;

	for (; len >= 8; len -= 8, p += 8) {
		k = (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
		    (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
		k *= m;
		k ^= k >> r;
		k *= m;
		h ^= k;
		h *= m;
	}
	switch (len & 7) {
	case 7: h ^= (uint64_t)p[6] << 48; /* fall through */
	case 6: h ^= (uint64_t)p[5] << 40; /* fall through */
	case 5: h ^= (uint64_t)p[4] << 32; /* fall through */
	case 4: h ^= (uint64_t)p[3] << 24; /* fall through */
	case 3: h ^= (uint64_t)p[2] << 16; /* fall through */
	case 2: h ^= (uint64_t)p[1] << 8;  /* fall through */
	case 1:
		h ^= (uint64_t)p[0];
		h *= m;
	}
	h ^= h >> r;
	h *= m;
	h ^= h >> r;
	return h;
}

/* $out as ninja puts it in a command: bare when every byte is one it
 * knows safe for the shell, else in single quotes. */
static void
ninja_shell_escape(struct buf *out, const char *path)
{
	const char *p;

	for (p = path; *p && (strchr("_+-./", *p) || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
	                      (*p >= 'A' && *p <= 'Z'));
	     p++)
		;
	if (!*p && *path) {
		buf_puts(out, path);
		return;
	}
	buf_putc(out, '\'');
	for (p = path; *p; p++) {
		if (*p == '\'')
			buf_puts(out, "'\\''");
		else
			buf_putc(out, *p);
	}
	buf_putc(out, '\'');
}

static bool
name_char(char c)
{
	return c == '_' || c == '-' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The text of the top-level line "name = value" of a ninja file, or NULL
 * (*len: the value's length). */
static const char *
find_var(const char *text, const char *name, size_t n, size_t *len)
{
	const char *p, *e;

	for (p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, n) != 0 || (p[n] != ' ' && p[n] != '='))
			continue;
		for (p += n; *p == ' '; p++)
			;
		if (*p++ != '=')
			continue;
		for (; *p == ' '; p++)
			;
		for (e = p; *e && *e != '\n'; e++)
			;
		*len = (size_t)(e - p);
		return p;
	}
	return NULL;
}

/* Appends v[0..n) evaluated as ninja does: $$, "$ ", $: and the variables
 * of local.ninja (vars; theirs hold none but these escapes). Returns false
 * for any other variable or form. */
static bool
eval(const char *v, size_t n, const char *vars, int depth, struct buf *out)
{
	const char *e, *end = v + n, *val;
	size_t k, len;
	bool brace;

	for (e = v; e < end; e++) {
		if (*e != '$') {
			buf_putc(out, *e);
			continue;
		}
		if (++e == end)
			return false;
		if (*e == '$' || *e == ' ' || *e == ':') {
			buf_putc(out, *e);
			continue;
		}
		brace = *e == '{';
		e += brace;
		for (k = 0; e + k < end && name_char(e[k]); k++)
			;
		if (!k || (brace && (e + k == end || e[k] != '}')) || depth > 0 ||
		    !(val = find_var(vars, e, k, &len)) || !eval(val, len, vars, depth + 1, out))
			return false;
		e += k - 1 + brace;
	}
	return true;
}

/* The value of the rule file's top-level variable name, evaluated with
 * local.ninja's variables; false when it is not there or needs another. */
static bool
rule_var(const char *text, const char *name, const char *vars, struct buf *out)
{
	const char *v;
	size_t len;

	out->len = 0;
	return (v = find_var(text, name, strlen(name), &len)) && eval(v, len, vars, 0, out);
}

/* One line of a v5 log: "start\tend\tmtime\tpath\thash"; *path and *hash
 * point into line, which is cut at the path's end. */
static bool
log_line(char *line, const char **path, char **hash)
{
	char *t = line;
	int i;

	for (i = 0; i < 3 && t; i++)
		t = strchr(t, '\t'), t = t ? t + 1 : NULL;
	if (!t)
		return false;
	*path = t;
	*hash = strrchr(t, '\t');
	if (!*hash || *hash == t)
		return false;
	*(*hash)++ = '\0';
	return true;
}

void
ninja_log_migrate(const char *out_dir, const char *rulesdir, const char *rules_file)
{
	static const char head[] = "# ninja log v5\n";
	static const struct {
		const char *var, *stamp;
	} kinds[] = {{"run_command", "/kunai.stamp"}, {"start_command", "/kunai.started"}};
	struct buf path = {0}, rules = {0}, text = {0}, local = {0}, log = {0}, out = {0}, cmd[2] = {{0}}, one = {0};
	char *line, *next, *hash;
	const char *target;
	size_t k, n, changed = 0;

	buf_printf(&path, "%s/.ninja_log", out_dir);
	buf_printf(&rules, "%s/%s", rulesdir, rules_file);
	/* no log: nothing ran; a rule file that cannot be read: nothing known */
	if (access(path.data, F_OK) != 0 || access(rules.data, R_OK) != 0 || !read_file(rules.data, &text))
		goto done;
	/* the variables the commands name: local.ninja's, as gen just wrote it */
	rules.len = 0;
	buf_printf(&rules, "%s/local.ninja", out_dir);
	if (!read_file(rules.data, &local))
		goto done;
	for (k = 0; k < LEN(kinds); k++)
		if (!rule_var(text.data, kinds[k].var, local.data, &cmd[k]) || strncmp(cmd[k].data, "exec ", 5) != 0)
			cmd[k].len = 0;
	if ((!cmd[0].len && !cmd[1].len) || !read_file(path.data, &log) || log.len < sizeof(head) - 1 ||
	    memcmp(log.data, head, sizeof(head) - 1) != 0)
		goto done;
	buf_puts(&out, head);
	for (line = log.data + sizeof(head) - 1; line < log.data + log.len; line = next) {
		char *nl = memchr(line, '\n', (size_t)(log.data + log.len - line));
		const char *copy = line;
		size_t copy_len;
		next = nl ? nl + 1 : log.data + log.len;
		copy_len = (size_t)(next - line);
		if (!nl)
			goto keep;
		*nl = '\0';
		one.len = 0;
		buf_puts(&one, line);
		if (!log_line(one.data, &target, &hash))
			goto restore;
		n = strlen(target);
		for (k = 0; k < LEN(kinds); k++) {
			size_t sl = strlen(kinds[k].stamp);
			struct buf c = {0};
			if (!cmd[k].len || n <= sl || strcmp(target + n - sl, kinds[k].stamp) != 0)
				continue;
			buf_puts(&c, cmd[k].data);
			buf_putc(&c, ' ');
			ninja_shell_escape(&c, target);
			/* the command without exec, as the log has it: the same, under exec */
			if (strtoull(hash, NULL, 16) == ninja_hash(c.data + 5, c.len - 5)) {
				buf_push(&out, line, (size_t)(strrchr(line, '\t') - line) + 1);
				buf_printf(&out, "%" PRIx64 "\n", ninja_hash(c.data, c.len));
				changed++;
				copy_len = 0;
			}
			buf_free(&c);
		}
	restore:
		*nl = '\n';
	keep:
		buf_push(&out, copy, copy_len);
	}
	if (changed && write_file_atomic(path.data, out.data, out.len)) {
		/* a ninja regenerating build.ninja (restat) reloads its log only
		 * when build.ninja is newer after it: so it is, even when its bytes
		 * are the same */
		path.len = 0;
		buf_printf(&path, "%s/build.ninja", out_dir);
		if (utimensat(AT_FDCWD, path.data, NULL, 0) != 0)
			warn("%s:", path.data);
		printf("kunai: %zu finished run%s kept across the rules' exec (%s/.ninja_log)\n", changed,
		       changed == 1 ? "" : "s", out_dir);
	}
done:
	buf_free(&path);
	buf_free(&rules);
	buf_free(&text);
	buf_free(&log);
	buf_free(&out);
	buf_free(&local);
	buf_free(&cmd[0]);
	buf_free(&cmd[1]);
	buf_free(&one);
}
