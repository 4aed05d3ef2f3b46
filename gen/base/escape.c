/* escape.c: quoting for shell scripts and ninja files (see escape.h). */
#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "escape.h"
#include "util.h"

static bool
sh_safe(unsigned char c, bool cont)
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

static void
quote(struct buf *b, const char *s, bool cont)
{
	const char *p;

	for (p = s; *p && sh_safe((unsigned char)*p, cont); p++)
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
