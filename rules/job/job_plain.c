/* job_plain.c: a standalone run.sh that needs no bash. gen writes, for a
 * command of literal words, a script of nothing but comments, the cd to
 * its own dir, the path variables, the redirections, exports of literal
 * values (its own and env_vars.sh's) and `exec WORDS`. The supervisor
 * (job_supervise.c) then does what bash would do itself: the same files
 * on stdout and stderr, the same environment (exports, and what bash
 * changes: PWD, SHLVL, OLDPWD, $_), the same PATH search, one process
 * launch fewer per run. A line of any other text, or an environment bash
 * treats in its own way, leaves the script to bash: the fast path is taken
 * only where its result is bash's (tests/run_standalone.bats compares
 * both). */
#define _POSIX_C_SOURCE 200809L
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "job_plain.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"

/* The path variables gen assigns (not exported: no command sees them). */
static const char *const assigned[] = {"RUN_DIR", "BUILD_DIR", "INSTALL_DIR"};

/* The length of the shell name s starts with, 0 when it starts none. */
static size_t
name_len(const char *s)
{
	size_t n = 0;

	if (!((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z') || s[0] == '_'))
		return 0;
	while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= 'a' && s[n] <= 'z') || (s[n] >= '0' && s[n] <= '9') ||
	       s[n] == '_')
		n++;
	return n;
}

/* The length of a parameter reference at s that expands without a side
 * effect or an error ($NAME, ${NAME}, ${NAME%PAT} with PAT of / and *), 0
 * when s starts none. */
static size_t
quiet_ref(const char *s)
{
	size_t n, p;

	if (s[0] != '$')
		return 0;
	if ((n = name_len(s + 1)))
		return 1 + n;
	if (s[1] != '{' || !(n = name_len(s + 2)))
		return 0;
	p = 2 + n;
	if (s[p] == '%')
		for (p++; s[p] == '/' || s[p] == '*'; p++)
			;
	return s[p] == '}' ? p + 1 : 0;
}

/* Whether v, the value of an unexported assignment, is one word whose
 * expansion has no effect: literal bytes, '...', references (quiet_ref),
 * and "..." of those. */
static bool
quiet_value(const char *v)
{
	bool dq = false;
	size_t n;

	while (*v) {
		if (*v == '"') {
			dq = !dq;
			v++;
		} else if (!dq && *v == '\'') {
			const char *e = strchr(v + 1, '\'');
			if (!e)
				return false;
			v = e + 1;
		} else if ((n = quiet_ref(v))) {
			v += n;
		} else if (sh_safe(*v) || (dq && *v == ' ')) {
			v++;
		} else {
			return false;
		}
	}
	return !dq;
}

/* Names bash sets, drops or acts on itself: an export of one is bash's. */
static bool
bash_special(const char *name, size_t n)
{
	static const char *const names[] = {
		"PWD", "OLDPWD", "SHLVL", "_", "IFS", "ENV", "SHELLOPTS", "POSIXLY_CORRECT", "PPID", "PS4",
		"LINENO", "OPTIND", "OPTERR", "RANDOM", "SRANDOM", "SECONDS", "HISTCMD", "EPOCHSECONDS",
		"EPOCHREALTIME", "COMP_WORDBREAKS", "GLOBIGNORE", "CDPATH",
	};
	size_t i;

	if (n >= 4 && strncmp(name, "BASH", 4) == 0)
		return true;
	for (i = 0; i < LEN(names); i++)
		if (strlen(names[i]) == n && strncmp(name, names[i], n) == 0)
			return true;
	return false;
}

/* The specials job_plain_env gives the values bash would. */
static bool
bash_done(const char *name, size_t n)
{
	return (n == 3 && !strncmp(name, "PWD", 3)) || (n == 6 && !strncmp(name, "OLDPWD", 6)) ||
	       (n == 5 && !strncmp(name, "SHLVL", 5)) || (n == 1 && name[0] == '_');
}

/* `export NAME=WORD` with WORD literal: appended to p->exports. */
static bool
export_line(struct job_plain *p, const char *line)
{
	struct buf w = {0};
	size_t n;
	bool ok;

	if (strncmp(line, "export ", 7) != 0)
		return false;
	line += 7;
	n = name_len(line);
	if (!n || line[n] != '=' || bash_special(line, n))
		return false;
	ok = sh_literal_words(line + n + 1, true, &w) == 1;
	if (ok) {
		buf_push(&p->exports, line, n + 1);
		buf_puts(&p->exports, w.data);
		buf_putc(&p->exports, '\0');
		p->nexport++;
	}
	buf_free(&w);
	return ok;
}

/* One line of env_vars.sh: a comment, nothing, or a literal export. */
static bool
env_line(struct job_plain *p, const char *line)
{
	return !*line || *line == '#' || export_line(p, line);
}

/* Applies fn to each line of text (a copy: lines are cut at their \n);
 * false at the first line fn refuses. */
static bool
each_line(struct job_plain *p, const char *text, bool (*fn)(struct job_plain *, const char *))
{
	struct buf line = {0};
	const char *nl;
	bool ok = true;

	while (ok && *text) {
		nl = strchr(text, '\n');
		line.len = 0;
		buf_push(&line, text, nl ? (size_t)(nl - text) : strlen(text));
		ok = fn(p, buf_str(&line));
		text = nl ? nl + 1 : text + strlen(text);
	}
	buf_free(&line);
	return ok;
}

/* One line of run.sh before its exec. */
static bool
script_line(struct job_plain *p, const char *line)
{
	size_t n, i;

	if (p->nword)
		return !*line || *line == '#'; /* after the exec: never read */
	if (!*line || *line == '#')
		return true;
	if (strncmp(line, "exec ", 5) == 0 && line[5] != '>') {
		long n = line[5] == '-' ? -1 : sh_literal_words(line + 5, true, &p->words);
		if (n < 1 || !p->words.data[0])
			return false;
		p->nword = (size_t)n;
		return true;
	}
	p->commands++;
	if (strcmp(line, "case $0 in */*) cd -- \"${0%/*}\" || exit 1 ;; esac") == 0)
		return true; /* $0 is run.sh: the supervisor runs it from its dir */
	if (strcmp(line, "exec >stdout.txt 2>stderr.txt") == 0)
		return p->redirect = true;
	if (strcmp(line, "source ./env_vars.sh") == 0)
		return p->env_vars && each_line(p, p->env_vars, env_line);
	if (strncmp(line, "export ", 7) == 0)
		return export_line(p, line);
	n = name_len(line);
	for (i = 0; n && line[n] == '=' && i < LEN(assigned); i++)
		if (strlen(assigned[i]) == n && strncmp(line, assigned[i], n) == 0) {
			p->assigns |= 1u << i;
			return quiet_value(line + n + 1);
		}
	return false;
}

bool
job_plain_parse(const char *script, const char *env_vars, struct job_plain *p)
{
	memset(p, 0, sizeof(*p));
	p->env_vars = env_vars;
	if (strncmp(script, "#!/bin/bash\n", 12) != 0 || !each_line(p, script, script_line) || !p->nword) {
		job_plain_free(p);
		return false;
	}
	return true;
}

void
job_plain_free(struct job_plain *p)
{
	buf_free(&p->words);
	buf_free(&p->exports);
	p->nword = p->nexport = 0;
}

/* The index in v (n entries) of the entry NAME=, or n. */
static size_t
env_find(char **v, size_t n, const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (strncmp(v[i], name, len) == 0 && v[i][len] == '=')
			return i;
	return n;
}

/* Sets NAME=VALUE (entry: that text, kept) in v, replacing NAME's entry. */
static size_t
env_put(char **v, size_t n, char *entry)
{
	size_t len = strcspn(entry, "="), i = env_find(v, n, entry, len);

	v[i] = entry;
	return i == n ? n + 1 : n;
}

static size_t
env_drop(char **v, size_t n, const char *name)
{
	size_t i = env_find(v, n, name, strlen(name));

	if (i < n)
		memmove(&v[i], &v[i + 1], (n - i - 1) * sizeof(*v));
	return i < n ? n - 1 : n;
}

/* Whether path names the directory "." is. */
static bool
same_dir(const char *path)
{
	struct stat a, b;

	return path[0] == '/' && stat(path, &a) == 0 && stat(".", &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

char **
job_plain_env(struct arena *a, const struct job_plain *p, char *const *env)
{
	size_t n = 0, i, cap;
	char **v, *e, cwd[4096];
	const char *x;
	struct stat st;

	while (env[n])
		n++;
	cap = n + p->nexport + 4;
	v = arena_alloc(a, cap * sizeof(*v));
	for (i = 0; i < n; i++) {
		size_t len = strcspn(env[i], "=");
		unsigned k;
		/* bash acts on it (PWD, OLDPWD, SHLVL and $_ are done below) */
		if (!env[i][len] || (bash_special(env[i], len) && !bash_done(env[i], len)))
			return NULL;
		for (k = 0; k < LEN(assigned); k++)
			if ((p->assigns >> k & 1) && strlen(assigned[k]) == len && !strncmp(env[i], assigned[k], len))
				return NULL; /* the assignment would change what is passed on */
		v[i] = env[i];
	}
	for (x = p->exports.data, i = 0; i < p->nexport; i++, x += strlen(x) + 1)
		n = env_put(v, n, (char *)x);
	/* bash: PWD kept when it names this dir, else the physical path */
	i = env_find(v, n, "PWD", 3);
	if (i == n || !same_dir(v[i] + 4)) {
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		e = arena_alloc(a, strlen(cwd) + 5);
		strcpy(e, "PWD=");
		strcat(e, cwd);
		n = env_put(v, n, e);
	}
	/* OLDPWD only when a dir; $_ gone once a command ran before exec */
	i = env_find(v, n, "OLDPWD", 6);
	if (i < n && !(stat(v[i] + 7, &st) == 0 && S_ISDIR(st.st_mode)))
		n = env_drop(v, n, "OLDPWD");
	if (p->commands)
		n = env_drop(v, n, "_");
	/* SHLVL: bash adds one at its start and takes it back at exec; a
	 * value it would read another way (signs, zeros, the limit) is bash's */
	i = env_find(v, n, "SHLVL", 5);
	if (i == n) {
		n = env_put(v, n, "SHLVL=0");
	} else {
		x = v[i] + 6;
		if (strspn(x, "0123456789") != strlen(x) || !*x || (x[0] == '0' && x[1]) || strlen(x) > 3 ||
		    atoi(x) > 998)
			return NULL;
	}
	v[n] = NULL;
	return v;
}

const char *
job_plain_path(struct arena *a, char *const *envp, const char *cmd)
{
	const char *path = NULL, *d, *end;
	struct stat st;
	struct buf b = {0};
	char *r = NULL;
	size_t i;

	if (strchr(cmd, '/'))
		return cmd;
	for (i = 0; envp[i]; i++)
		if (strncmp(envp[i], "PATH=", 5) == 0)
			path = envp[i] + 5;
	if (!path)
		return NULL; /* bash's own default path */
	for (d = path; !r; d = end + 1) {
		end = d + strcspn(d, ":");
		if (*d == '~')
			break; /* bash expands it */
		b.len = 0;
		if (end > d)
			buf_printf(&b, "%.*s/", (int)(end - d), d);
		buf_puts(&b, cmd);
		if (stat(b.data, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(b.data, X_OK) != 0)
				break; /* bash would go on, and may say Permission denied */
			r = arena_strdup(a, b.data);
		}
		if (!*end)
			break;
	}
	buf_free(&b);
	return r;
}
