/* escape.c: quoting for shell scripts and ninja files (see escape.h). */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "escape.h"
#include "util.h"

static bool
safe(unsigned char c, bool cont)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	switch (c) {
	case '_': case '+': case '-': case '.': case '/': case '=': case ',': case ':': case '@': case '%':
		return true;
	case '#':
		return cont;
	}
	return false;
}

bool
sh_safe(int c)
{
	return safe((unsigned char)c, false);
}

static void
quote(struct buf *b, const char *s, bool cont)
{
	const char *p;

	for (p = s; *p && safe((unsigned char)*p, cont); p++)
		;
	if (*s && !*p) {
		buf_puts(b, s);
		return;
	}
	buf_putc(b, '\'');
	for (p = s; *p;) {
		size_t n = strcspn(p, "'");
		buf_push(b, p, n);
		p += n;
		if (*p == '\'') {
			buf_puts(b, "'\\''");
			p++;
		}
	}
	buf_putc(b, '\'');
}

void
sh_quote(struct buf *b, const char *s)
{
	quote(b, s, false);
}

void
sh_quote_cont(struct buf *b, const char *s)
{
	quote(b, s, true);
}

/* Appends s with esc before each byte of special: plain spans are copied
 * whole (the writers' hottest loop). */
static void
escape_spans(struct buf *b, const char *s, const char *special, char esc)
{
	size_t n;

	for (;;) {
		n = strcspn(s, special);
		buf_push(b, s, n);
		s += n;
		if (!*s)
			return;
		buf_putc(b, esc);
		buf_putc(b, *s++);
	}
}

void
sh_dquote_body(struct buf *b, const char *s)
{
	escape_spans(b, s, "$`\"\\", '\\');
}

void
sh_dquote_batch(struct buf *b, const char *s)
{
	size_t n;

	for (;;) {
		n = strcspn(s, "$`\"\\" SH_BATCH_REF);
		buf_push(b, s, n);
		s += n;
		if (!*s)
			return;
		if (*s != SH_BATCH_REF[0])
			buf_putc(b, '\\');
		buf_putc(b, *s == SH_BATCH_REF[0] ? '$' : *s);
		s++;
	}
}

/* The length of the parameter reference at s ($NAME, ${NAME}, or ${NAME}
 * with :- - :+ + and a plain word), 0 when s starts none; *nlen is the
 * name's length, which starts at s + 1 or s + 2. */
static size_t
param_ref(const char *s, size_t *nlen)
{
	size_t b = s[1] == '{', n = 0, w;

	if (s[0] != '$' || !(isalpha((unsigned char)s[1 + b]) || s[1 + b] == '_'))
		return 0;
	while (isalnum((unsigned char)s[1 + b + n]) || s[1 + b + n] == '_')
		n++;
	*nlen = n;
	if (!b)
		return 1 + n;
	w = 2 + n;
	if (s[w] == ':' && (s[w + 1] == '-' || s[w + 1] == '+'))
		w += 2;
	else if (s[w] == '-' || s[w] == '+')
		w++;
	if (w > 2 + n)
		w += strcspn(s + w, "$`\"\\'}\n");
	return s[w] == '}' ? w + 1 : 0;
}

bool
sh_has_params(const char *s)
{
	size_t n;

	for (; (s = strchr(s, '$')); s++)
		if (param_ref(s, &n))
			return true;
	return false;
}

void
sh_dquote_params(struct buf *b, const char *s, const char *pwd)
{
	size_t len, n, skip;
	bool braced;

	for (;;) {
		len = strcspn(s, "$`\"\\");
		buf_push(b, s, len);
		s += len;
		if (!*s)
			return;
		if (!(len = param_ref(s, &n))) {
			buf_putc(b, '\\');
			buf_putc(b, *s++);
			continue;
		}
		braced = s[1] == '{';
		skip = 1 + braced;
		if (pwd && n == 3 && strncmp(s + skip, "PWD", 3) == 0) {
			buf_printf(b, "${%s", pwd);
			if (braced)
				buf_push(b, s + skip + n, len - skip - n);
			else
				buf_putc(b, '}');
		} else {
			buf_push(b, s, len);
		}
		s += len;
	}
}

static bool
blank(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

int
sh_words(struct buf *b, const char *s)
{
	struct buf w = {0};
	int n = 0;

	while (*s) {
		const char *e;

		while (blank(*s))
			s++;
		if (!*s)
			break;
		for (e = s; *e && !blank(*e); e++)
			;
		w.len = 0;
		buf_push(&w, s, (size_t)(e - s));
		if (n++)
			buf_putc(b, ' ');
		sh_quote(b, buf_str(&w));
		s = e;
	}
	buf_free(&w);
	return n;
}

int
sh_split(struct arena *a, const char *s, char ***words)
{
	struct buf w = {0};
	char **v = NULL;
	size_t cap = 0;
	int n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s || *s == '\n')
			break;
		w.len = 0;
		while (*s && *s != ' ' && *s != '\t' && *s != '\n') {
			char q = *s++;
			if (q == '\'') {
				for (; *s && *s != '\''; s++)
					buf_putc(&w, *s);
				if (!*s++)
					goto bad;
			} else if (q == '"') {
				for (; *s && *s != '"'; s++) {
					if (*s == '\\' && s[1] && strchr("$`\"\\", s[1]))
						s++;
					buf_putc(&w, *s);
				}
				if (!*s++)
					goto bad;
			} else if (q == '\\' && *s) {
				buf_putc(&w, *s++);
			} else
				buf_putc(&w, q);
		}
		v = arena_reserve(a, v, (size_t)n, (size_t)n + 2, &cap, sizeof(*v));
		v[n++] = arena_strndup(a, buf_str(&w), w.len); /* '' is a word too */
	}
	if (!v)
		v = arena_alloc(a, sizeof(*v));
	v[n] = NULL;
	*words = v;
	buf_free(&w);
	return n;
bad:
	buf_free(&w);
	return -1;
}

bool
sh_is_name(const char *s)
{
	const char *p;

	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (p = s + 1; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_'))
			return false;
	return true;
}

void
ninja_escape_path(struct buf *b, const char *s)
{
	escape_spans(b, s, "$ :", '$');
}

void
ninja_escape_value(struct buf *b, const char *s)
{
	escape_spans(b, s, "$", '$');
}

bool
ninja_expressible(const char *s)
{
	return !strpbrk(s, "\n\r");
}

/* Whether some line of body is exactly d. */
static bool
has_line(const char *body, const char *d)
{
	size_t n = strlen(d);
	const char *p = body;

	for (;;) {
		if (strncmp(p, d, n) == 0 && (p[n] == '\n' || p[n] == '\0'))
			return true;
		if (!(p = strchr(p, '\n')))
			return false;
		p++;
	}
}

void
sh_heredoc(struct buf *b, const char *tag, const char *body)
{
	struct buf d = {0};
	unsigned i;

	buf_puts(&d, tag);
	for (i = 1; has_line(body, buf_str(&d)); i++) {
		d.len = 0;
		buf_printf(&d, "%s_%u", tag, i);
	}
	buf_printf(b, "<<'%s'\n%s%s\n", buf_str(&d), body, buf_str(&d));
	buf_free(&d);
}

void
csv_field(struct buf *b, const char *s)
{
	bool formula, quoted;
	const char *p;

	if (!s)
		return;
	formula = s[0] && strchr("=+-@\t\r", s[0]);
	quoted = formula || strpbrk(s, ",\"\r\n");
	if (!quoted) {
		buf_puts(b, s);
		return;
	}
	buf_putc(b, '"');
	if (formula)
		buf_putc(b, '\'');
	for (p = s; *p; p++) {
		if (*p == '"')
			buf_putc(b, '"');
		buf_putc(b, *p);
	}
	buf_putc(b, '"');
}

void
md_text(struct buf *b, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '&')
			buf_puts(b, "&amp;");
		else if (*s == '<')
			buf_puts(b, "&lt;");
		else if (*s == '>')
			buf_puts(b, "&gt;");
		else if (strchr("\\`[]|", *s)) {
			buf_putc(b, '\\');
			buf_putc(b, *s);
		} else if ((unsigned char)*s < 0x20 || *s == 0x7F)
			buf_putc(b, ' ');
		else
			buf_putc(b, *s);
	}
}

/* ---- live values (see escape.h and doc/manual.md) ---------------------------- */

enum { LIVE_MAX_DEPTH = 64 };

static bool
name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool
name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static const char *live_end(const char *p, int depth);

/* The byte after the " that closes a "..." whose body starts at p. */
static const char *
dquote_end(const char *p, int depth)
{
	while (p && *p && *p != '"') {
		if (*p == '\\' && p[1])
			p += 2;
		else if (*p == '`' || (*p == '$' && (p[1] == '(' || p[1] == '{')))
			p = live_end(p, depth + 1);
		else
			p++;
	}
	return p && *p ? p + 1 : NULL;
}

/* The byte after the end of the substitution that starts at p ($(, ${ or
 * a backquote), NULL when it is unterminated or nested too deep. */
static const char *
live_end(const char *p, int depth)
{
	char open, close;
	int level = 1;

	if (depth > LIVE_MAX_DEPTH)
		return NULL;
	if (*p == '`') {
		for (p++; *p && *p != '`'; p++)
			if (*p == '\\' && p[1])
				p++;
		return *p ? p + 1 : NULL;
	}
	open = p[1];
	close = open == '(' ? ')' : '}';
	for (p += 2; p && *p;) {
		if (*p == '\\' && p[1]) {
			p += 2;
		} else if (*p == '\'') {
			p = strchr(p + 1, '\'');
			p = p ? p + 1 : NULL;
		} else if (*p == '"') {
			p = dquote_end(p + 1, depth);
		} else if (*p == '`' || (*p == '$' && (p[1] == '(' || p[1] == '{'))) {
			p = live_end(p, depth + 1);
		} else {
			if (*p == open)
				level++;
			else if (*p == close && --level == 0)
				return p + 1;
			p++;
		}
	}
	return NULL;
}

bool
sh_is_live(const char *s)
{
	return strpbrk(s, "$`") != NULL;
}

bool
sh_live_computes(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' && (s[1] == '$' || s[1] == '`'))
			s++;
		else if (*s == '`' || (*s == '$' && s[1] == '('))
			return true;
	}
	return false;
}

/* Appends [p, e), shell code of a substitution, with each $PWD and
 * ${PWD...} outside single quotes mapped as sh_live_body says. */
static void
pwd_map(struct buf *b, const char *p, const char *e, const char *var, const char *fallback)
{
	bool squote = false;

	while (p < e) {
		if (*p == '\'' )
			squote = !squote;
		if (!squote && *p == '\\' && p + 1 < e) {
			buf_push(b, p, 2);
			p += 2;
			continue;
		}
		if (!squote && var && *p == '$' && strncmp(p + 1, "PWD", 3) == 0 && !name_char(p[4])) {
			buf_printf(b, "${%s:-%s}", var, fallback);
			p += 4;
		} else if (!squote && var && *p == '$' && strncmp(p + 1, "{PWD", 4) == 0 && !name_char(p[5])) {
			if (p[5] == '}') {
				buf_printf(b, "${%s:-%s}", var, fallback);
				p += 6;
			} else {
				buf_printf(b, "${%s", var);
				p += 5;
			}
		} else {
			buf_putc(b, *p++);
		}
	}
}

void
sh_live_body(struct buf *b, const char *s, const char *var, const char *fallback)
{
	const char *p = s, *q;

	while (*p) {
		switch (*p) {
		case '\\':
			if (p[1] == '$' || p[1] == '`') {
				buf_push(b, p, 2);
				p += 2;
			} else {
				buf_puts(b, "\\\\");
				p++;
			}
			continue;
		case '"':
			buf_puts(b, "\\\"");
			p++;
			continue;
		case '`':
		case '$':
			if (*p == '`' || p[1] == '(' || p[1] == '{') {
				if (!(q = live_end(p, 0))) {
					/* the model refuses these; literal if one gets here */
					buf_putc(b, '\\');
					buf_putc(b, *p++);
					continue;
				}
				pwd_map(b, p, q, var, fallback);
				p = q;
			} else if (name_start(p[1])) {
				for (q = p + 1; name_char(*q); q++)
					;
				pwd_map(b, p, q, var, fallback);
				p = q;
			} else {
				buf_putc(b, *p++);
			}
			continue;
		}
		buf_putc(b, *p++);
	}
}

const char *
sh_live_check(const char *s, bool *bad)
{
	const char *p = s, *q, *why = NULL;

	*bad = true;
	if (strchr(s, '\n'))
		return "a line break (a value is one line of the script)";
	*bad = false;
	if (*s == '~')
		why = "a leading ~, which CloudAI's shell expands to a home directory";
	while (*p) {
		const char *w = NULL;
		switch (*p) {
		case '\\':
			if (p[1] == '$' || p[1] == '`') {
				p += 2;
				continue;
			}
			w = "a \\ not before $ or a backquote, which CloudAI's shell drops";
			p += p[1] ? 2 : 1;
			break;
		case '`':
		case '$':
			if (*p == '`' || p[1] == '(' || p[1] == '{') {
				if (!(q = live_end(p, 0))) {
					*bad = true;
					return *p == '`' ? "an unterminated backquote"
					                 : p[1] == '(' ? "an unterminated $(" : "an unterminated ${";
				}
				if (*p == '`' && memchr(p, '"', (size_t)(q - p)))
					w = "a \" inside backquotes, which reads differently inside kunai's "
					    "double quotes";
				else if (p[1] == '{' && memchr(p, '\'', (size_t)(q - p)))
					w = "a ' inside ${...}, which CloudAI's shell removes and kunai's "
					    "double quotes keep";
				p = q;
				break;
			}
			if (p[1] == '\'' || p[1] == '"')
				w = "$' or $\", which CloudAI's shell reads as a quote";
			p++;
			break;
		case '\'':
		case '"':
			w = "a quote, which CloudAI's shell removes";
			p++;
			break;
		case ' ':
		case '\t':
			w = "a blank, where CloudAI's line ends the value";
			p++;
			break;
		case ';': case '&': case '|': case '<': case '>': case '(': case ')':
			w = "one of ;&|<>(), which CloudAI's shell reads as syntax";
			p++;
			break;
		case ':':
			if (p[1] == '~')
				w = "a ~ after :, which CloudAI's shell expands to a home directory";
			p++;
			break;
		default:
			p++;
		}
		if (w && !why)
			why = w;
	}
	return why;
}

bool
sh_pwd_path(const char *s, const char **rest)
{
	if (strncmp(s, "$PWD/", 5) == 0)
		*rest = s + 5;
	else if (strncmp(s, "${PWD}/", 7) == 0)
		*rest = s + 7;
	else
		return false;
	return !sh_is_live(*rest);
}

/* bash's keywords and builtins (compgen -k and -b of bash 5.2): a first
 * word that exec would look up on PATH instead */
static const char *const sh_builtins[] = {
	".", ":", "[", "[[", "]]", "{", "}", "!", "alias", "bg", "bind", "break", "builtin", "caller",
	"case", "cd", "command", "compgen", "complete", "compopt", "continue", "coproc", "declare", "dirs",
	"disown", "do", "done", "echo", "elif", "else", "enable", "esac", "eval", "exec", "exit", "export",
	"false", "fc", "fg", "fi", "for", "function", "getopts", "hash", "help", "history", "if", "in",
	"jobs", "kill", "let", "local", "logout", "mapfile", "popd", "printf", "pushd", "pwd", "read",
	"readarray", "readonly", "return", "select", "set", "shift", "shopt", "source", "suspend", "test",
	"then", "time", "times", "trap", "true", "type", "typeset", "ulimit", "umask", "unalias", "unset",
	"until", "wait", "while",
};

long
sh_literal_words(const char *s, bool dq, struct buf *out)
{
	long nword = 0;

	for (;;) {
		while (*s == ' ')
			s++;
		if (!*s)
			return nword;
		for (; *s && *s != ' '; s++) {
			const char *e;
			if (*s == '\'' || (dq && *s == '"')) {
				/* '...' is literal; "..." only without $ ` \ inside */
				e = *s == '\'' ? strchr(s + 1, '\'') : s + 1 + strcspn(s + 1, "\"$`\\");
				if (!e || *e != *s)
					return -1;
				buf_push(out, s + 1, (size_t)(e - s - 1));
				s = e;
			} else if (*s == '\\' && s[1] == '\'') {
				buf_putc(out, '\'');
				s++;
			} else if (safe((unsigned char)*s, false)) {
				buf_putc(out, *s);
			} else {
				return -1;
			}
		}
		buf_putc(out, '\0');
		nword++;
	}
}

bool
sh_plain_command(const char *s)
{
	struct buf w = {0};
	long nword = sh_literal_words(s, false, &w);
	bool ok;
	size_t i;

	/* an empty or assigning first word is no command name */
	ok = nword > 0 && w.data[0] && !strchr(w.data, '=');
	for (i = 0; ok && i < LEN(sh_builtins); i++)
		ok = strcmp(w.data, sh_builtins[i]) != 0;
	buf_free(&w);
	return ok;
}

char *
term_text(char *s)
{
	unsigned char *p;

	for (p = (unsigned char *)s; p && *p; p++)
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			*p = '?';
	return s;
}
