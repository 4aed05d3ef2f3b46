/* escape.c: quoting for shell scripts and ninja files (see escape.h). */
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
		v = arena_grow(a, v, (size_t)n, (size_t)n + 2, sizeof(*v));
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
