/* toml_scalar.c: TOML strings, numbers, booleans and date-times, UTF-8. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toml.h"
#include "toml_priv.h"
#include "gen/base/util.h"

const char *
toml_utf8_check(const char *s, const char *end)
{
	const unsigned char *p = (const unsigned char *)s, *e = (const unsigned char *)end;
	unsigned char lo, hi;
	uint64_t w;
	int i, n;

	while (p < e) {
		/* most of a config is ASCII: skip it eight bytes at a time */
		while (e - p >= 8) {
			memcpy(&w, p, 8);
			if (w & 0x8080808080808080u)
				break;
			p += 8;
		}
		if (p == e)
			break;
		if (*p < 0x80) {
			p++;
			continue;
		}
		lo = 0x80, hi = 0xbf;
		if (*p < 0xc2)
			return (const char *)p; /* stray continuation or overlong */
		else if (*p < 0xe0)
			n = 1;
		else if (*p < 0xf0) {
			n = 2;
			if (*p == 0xe0)
				lo = 0xa0; /* overlong */
			else if (*p == 0xed)
				hi = 0x9f; /* surrogate */
		} else if (*p < 0xf5) {
			n = 3;
			if (*p == 0xf0)
				lo = 0x90; /* overlong */
			else if (*p == 0xf4)
				hi = 0x8f; /* beyond U+10FFFF */
		} else
			return (const char *)p;
		if (e - p <= n || p[1] < lo || p[1] > hi)
			return (const char *)p;
		for (i = 2; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return (const char *)p;
		}
		p += n + 1;
	}
	return NULL;
}

unsigned long
toml_utf8_decode(const char *s, const char *end)
{
	const unsigned char *p = (const unsigned char *)s;
	unsigned long c = *p;
	int i, n = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;

	if (end - s <= n)
		return 0;
	if (n)
		c &= 0x3f >> n;
	for (i = 1; i <= n; i++)
		c = c << 6 | (p[i] & 0x3f);
	return c;
}

static void
put_utf8(struct buf *out, unsigned long c)
{
	char b[4];
	size_t n;

	if (c < 0x80) {
		b[0] = (char)c, n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xc0 | c >> 6), n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xe0 | c >> 12), n = 3;
	} else {
		b[0] = (char)(0xf0 | c >> 18), n = 4;
	}
	if (n > 1)
		b[n - 1] = (char)(0x80 | (c & 0x3f));
	if (n > 2)
		b[n - 2] = (char)(0x80 | (c >> 6 & 0x3f));
	if (n > 3)
		b[1] = (char)(0x80 | (c >> 12 & 0x3f));
	buf_push(out, b, n);
}

static int
digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return 99;
}

/* Decodes the escape at P->p (a backslash) onto out. */
static void
escape(struct parser *P, struct buf *out)
{
	const char *at = P->p;
	unsigned long c = 0;
	int i, n = 0, d;

	if (P->end - at < 2)
		toml_fail(P, at, "unterminated string");
	switch (at[1]) {
	case 'b': buf_putc(out, '\b'); break;
	case 't': buf_putc(out, '\t'); break;
	case 'n': buf_putc(out, '\n'); break;
	case 'f': buf_putc(out, '\f'); break;
	case 'r': buf_putc(out, '\r'); break;
	case '"': buf_putc(out, '"'); break;
	case '\\': buf_putc(out, '\\'); break;
	case 'u': n = 4; break;
	case 'U': n = 8; break;
	default:
		if (at[1] > ' ' && at[1] < 0x7f)
			toml_fail(P, at, "invalid escape '\\%c' in string", at[1]);
		toml_fail(P, at, "invalid escape: backslash followed by %s",
		          toml_found(P, at + 1));
	}
	P->p += 2;
	for (i = 0; i < n; i++) {
		if (P->p == P->end || (d = digit_value(*P->p)) > 15)
			toml_fail(P, at, "escape '\\%c' needs %d hex digits", at[1], n);
		c = c << 4 | (unsigned long)d;
		P->p++;
	}
	if (!n)
		return;
	if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		toml_fail(P, at, "escape '%.*s' is not a Unicode scalar value", n + 2, at);
	put_utf8(out, c);
}

/* Bytes that a string may hold as they are: not controls except tab. */
static bool
is_plain(unsigned char c)
{
	return (c >= ' ' && c != 0x7f) || c == '\t';
}

void
toml_scan_string(struct parser *P, struct buf *out, bool basic)
{
	const char *open = P->p, *s;
	char q = *P->p;

	P->p++;
	for (;;) {
		s = P->p;
		while (P->p < P->end && is_plain(*P->p) && *P->p != q && (*P->p != '\\' || !basic))
			P->p++;
		buf_push(out, s, (size_t)(P->p - s));
		if (P->p == P->end || *P->p == '\n' || *P->p == '\r')
			toml_fail(P, open, "unterminated string");
		if (*P->p == q) {
			P->p++;
			return;
		}
		if (*P->p == '\\')
			escape(P, out);
		else
			toml_fail(P, P->p, "%s in string", toml_found(P, P->p));
	}
}

/* A backslash that ends a line eats all blanks and newlines after it. */
static bool
line_ending_backslash(struct parser *P)
{
	const char *s = P->p + 1;

	while (s < P->end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == P->end || (*s != '\n' && *s != '\r'))
		return false;
	P->p = s;
	while (P->p < P->end) {
		if (*P->p == '\n' || *P->p == '\r')
			toml_newline(P);
		else if (*P->p == ' ' || *P->p == '\t')
			P->p++;
		else
			break;
	}
	return true;
}

static void
scan_multiline(struct parser *P, struct buf *out, bool basic)
{
	const char *open = P->p, *s;
	char q = *P->p;
	size_t n;

	P->p += 3;
	/* a newline right after the opening quotes is trimmed */
	if (P->p < P->end && (*P->p == '\n' || *P->p == '\r'))
		toml_newline(P);
	for (;;) {
		s = P->p;
		while (P->p < P->end && is_plain(*P->p) && *P->p != q && (*P->p != '\\' || !basic))
			P->p++;
		buf_push(out, s, (size_t)(P->p - s));
		if (P->p == P->end)
			toml_fail(P, open, "unterminated multi-line string");
		if (*P->p == q) {
			for (n = 1; P->p + n < P->end && P->p[n] == q; n++)
				;
			/* up to two quotes may precede the closing three */
			if (n > 5)
				toml_fail(P, P->p, "too many quotes in multi-line string");
			buf_push(out, P->p, n < 3 ? n : n - 3);
			P->p += n;
			if (n >= 3)
				return;
		} else if (*P->p == '\\') {
			if (!line_ending_backslash(P))
				escape(P, out);
		} else if (*P->p == '\n' || *P->p == '\r') {
			/* CRLF reads as LF, so values do not depend on the editor */
			toml_newline(P);
			buf_putc(out, '\n');
		} else {
			toml_fail(P, P->p, "%s in string", toml_found(P, P->p));
		}
	}
}

void
toml_parse_string(struct parser *P, struct toml_value *v)
{
	char q = *P->p;

	P->str.len = 0;
	if (P->end - P->p > 2 && P->p[1] == q && P->p[2] == q)
		scan_multiline(P, &P->str, q == '"');
	else
		toml_scan_string(P, &P->str, q == '"');
	v->type = TOML_STRING;
	v->u.str.s = toml_strndup(P, P->str.data, P->str.len);
	v->u.str.len = P->str.len;
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* Checks that [s, end) starts with pat, where 'd' in pat stands for a digit. */
static bool
match(const char *s, const char *end, const char *pat)
{
	for (; *pat; s++, pat++) {
		if (s == end || (*pat == 'd' ? !is_digit(*s) : *s != *pat))
			return false;
	}
	return true;
}

static int
num2(const char *s)
{
	return (s[0] - '0') * 10 + s[1] - '0';
}

static int
days_in_month(int y, int m)
{
	static const unsigned char days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

	if (m == 2 && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0))
		return 29;
	return days[m - 1];
}

/* Parses the token [s, e) as a date, time or date-time (RFC 3339). */
static void
parse_datetime(struct parser *P, const char *s, const char *e, struct toml_value *v)
{
	struct toml_datetime *dt = &v->u.dt;
	const char *p = s;
	int tok = e - s > 40 ? 40 : (int)(e - s), sign, n;
	bool date = !match(p, e, "dd:");

	if (date) {
		if (!match(p, e, "dddd-dd-dd"))
			toml_fail(P, s, "invalid date '%.*s': expected YYYY-MM-DD", tok, s);
		dt->year = num2(p) * 100 + num2(p + 2);
		dt->month = num2(p + 5);
		dt->day = num2(p + 8);
		if (dt->month < 1 || dt->month > 12)
			toml_fail(P, s, "invalid date '%.*s': month out of range", tok, s);
		if (dt->day < 1 || dt->day > days_in_month(dt->year, dt->month))
			toml_fail(P, s, "invalid date '%.*s': day out of range", tok, s);
		p += 10;
		if (p == e) {
			v->type = TOML_DATE_LOCAL;
			return;
		}
		if (*p != 'T' && *p != 't' && *p != ' ')
			toml_fail(P, p, "invalid date-time '%.*s': expected 'T' after the date",
			          tok, s);
		p++;
	}
	if (!match(p, e, "dd:dd:dd"))
		toml_fail(P, p, "invalid time in '%.*s': expected HH:MM:SS", tok, s);
	dt->hour = num2(p);
	dt->minute = num2(p + 3);
	dt->second = num2(p + 6);
	/* 60 is a leap second */
	if (dt->hour > 23 || dt->minute > 59 || dt->second > 60)
		toml_fail(P, p, "invalid time in '%.*s': out of range", tok, s);
	p += 8;
	if (p < e && *p == '.') {
		for (n = 0, p++; p < e && is_digit(*p); n++, p++) {
			if (n < 9)
				dt->nanosecond = dt->nanosecond * 10 + *p - '0';
		}
		if (!n)
			toml_fail(P, p, "invalid time in '%.*s': expected digits after '.'",
			          tok, s);
		dt->frac_digits = n < 9 ? n : 9;
		for (; n < 9; n++)
			dt->nanosecond *= 10;
	}
	if (!date) {
		v->type = TOML_TIME_LOCAL;
	} else if (p == e) {
		v->type = TOML_DATETIME_LOCAL;
	} else {
		v->type = TOML_DATETIME;
		if (*p == 'Z' || *p == 'z') {
			dt->offset_z = true;
			p++;
		} else if ((*p == '+' || *p == '-') && match(p + 1, e, "dd:dd")) {
			sign = *p == '-' ? -1 : 1;
			if (num2(p + 1) > 23 || num2(p + 4) > 59)
				toml_fail(P, p, "invalid offset in '%.*s': out of range", tok, s);
			dt->offset_minutes = sign * (num2(p + 1) * 60 + num2(p + 4));
			p += 6;
		} else {
			toml_fail(P, p, "invalid date-time '%.*s': expected 'Z' or an offset",
			          tok, s);
		}
	}
	if (p != e)
		toml_fail(P, p, "unexpected %s after date/time", toml_found(P, p));
}

/* Checks a run of digits in base with '_' only between digits; returns its end. */
static const char *
digits(struct parser *P, const char *p, const char *e, int base)
{
	const char *s = p;

	while (p < e) {
		if (digit_value(*p) < base) {
			p++;
		} else if (*p == '_') {
			if (p == s || p + 1 == e || digit_value(p[1]) >= base)
				toml_fail(P, p, "'_' must be between digits");
			p++;
		} else {
			break;
		}
	}
	if (p == s)
		toml_fail(P, p, "expected a digit, found %s",
		          p == e ? "end of number" : toml_found(P, p));
	return p;
}

static void
parse_float(struct parser *P, const char *s, const char *e, struct toml_value *v)
{
	const char *p = s, *q;
	char *end;
	double d;

	if (*p == '+' || *p == '-')
		p++;
	q = digits(P, p, e, 10);
	if (*p == '0' && q - p > 1)
		toml_fail(P, p, "leading zeros are not allowed");
	if (q < e && *q == '.')
		q = digits(P, q + 1, e, 10);
	if (q < e && (*q == 'e' || *q == 'E')) {
		q++;
		if (q < e && (*q == '+' || *q == '-'))
			q++;
		q = digits(P, q, e, 10);
	}
	if (q != e)
		toml_fail(P, q, "unexpected %s in number", toml_found(P, q));
	/* strtod does not know '_' */
	P->str.len = 0;
	for (q = s; q < e; q++) {
		if (*q != '_')
			buf_putc(&P->str, *q);
	}
	errno = 0;
	d = strtod(P->str.data, &end);
	if (end != P->str.data + P->str.len)
		toml_fail(P, s, "invalid float");
	if (errno == ERANGE && isinf(d))
		toml_fail(P, s, "float is out of range");
	v->type = TOML_FLOAT;
	v->u.flt = d;
}

static void
parse_number(struct parser *P, const char *s, const char *e, struct toml_value *v)
{
	static const char prefix[] = "xob";
	static const int bases[] = {16, 8, 2};
	const char *p = s, *q;
	uint64_t u = 0, max, cut;
	bool neg = false;
	int base = 10, d;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (e - p == 3 && (memcmp(p, "inf", 3) == 0 || memcmp(p, "nan", 3) == 0)) {
		v->type = TOML_FLOAT;
		v->u.flt = *p == 'i' ? INFINITY : NAN;
		if (neg)
			v->u.flt = -v->u.flt;
		return;
	}
	if (e - p > 1 && *p == '0' && p[1] && strchr(prefix, p[1])) {
		if (p != s)
			toml_fail(P, s, "a sign is only allowed on decimal integers");
		base = bases[strchr(prefix, p[1]) - prefix];
		p += 2;
	} else {
		for (q = p; q < e; q++) {
			if (*q == '.' || *q == 'e' || *q == 'E') {
				parse_float(P, s, e, v);
				return;
			}
		}
	}
	q = digits(P, p, e, base);
	if (q != e)
		toml_fail(P, q, "unexpected %s in number", toml_found(P, q));
	if (base == 10 && *p == '0' && q - p > 1)
		toml_fail(P, p, "leading zeros are not allowed");
	max = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	cut = max / (uint64_t)base;
	for (; p < e; p++) {
		if (*p == '_')
			continue;
		d = digit_value(*p);
		if (u > cut || (u == cut && (uint64_t)d > max % (uint64_t)base))
			toml_fail(P, s, "integer overflows 64 bits");
		u = u * (uint64_t)base + (uint64_t)d;
	}
	v->type = TOML_INTEGER;
	if (!neg)
		v->u.integer = (int64_t)u;
	else if (u == (uint64_t)INT64_MAX + 1)
		v->u.integer = INT64_MIN;
	else
		v->u.integer = -(int64_t)u;
}

static bool
is_token(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
	       c == '_' || c == '-' || c == '+' || c == '.' || c == ':';
}

void
toml_parse_scalar(struct parser *P, struct toml_value *v)
{
	const char *s = P->p, *e = s;
	int tok;

	while (e < P->end && is_token(*e))
		e++;
	/* a date, a space and a time are one token */
	if (match(s, e, "dddd-dd-dd") && e - s == 10 && P->end - e > 1 && *e == ' ' &&
	    is_digit(e[1])) {
		for (e++; e < P->end && is_token(*e); e++)
			;
	}
	if (e == s)
		toml_fail(P, s, "expected a value, found %s", toml_found(P, s));
	tok = e - s > 40 ? 40 : (int)(e - s);
	if (match(s, e, "dddd-") || match(s, e, "dd:")) {
		parse_datetime(P, s, e, v);
	} else if (e - s == 4 && memcmp(s, "true", 4) == 0) {
		v->type = TOML_BOOL;
		v->u.boolean = true;
	} else if (e - s == 5 && memcmp(s, "false", 5) == 0) {
		v->type = TOML_BOOL;
	} else if (is_digit(*s) || *s == '+' || *s == '-' || *s == 'i' || *s == 'n') {
		parse_number(P, s, e, v);
	} else {
		toml_fail(P, s, "invalid value '%.*s' (strings need quotes)", tok, s);
	}
	P->p = e;
}

const char *
toml_type_name(enum toml_type t)
{
	switch (t) {
	case TOML_TABLE: return "table";
	case TOML_ARRAY: return "array";
	case TOML_STRING: return "string";
	case TOML_INTEGER: return "integer";
	case TOML_FLOAT: return "float";
	case TOML_BOOL: return "bool";
	case TOML_DATETIME: return "datetime";
	case TOML_DATETIME_LOCAL: return "datetime-local";
	case TOML_DATE_LOCAL: return "date-local";
	case TOML_TIME_LOCAL: return "time-local";
	}
	return "unknown";
}

void
toml_format_datetime(const struct toml_value *v, char *out, size_t n)
{
	static const int scale[] = {
		1000000000, 100000000, 10000000, 1000000, 100000, 10000, 1000, 100, 10, 1,
	};
	const struct toml_datetime *dt = &v->u.dt;
	char b[160];
	int k = 0, frac = dt->frac_digits;
	long long off = dt->offset_minutes;

	if (!n)
		return;
	if (v->type < TOML_DATETIME || v->type > TOML_TIME_LOCAL) {
		*out = '\0';
		return;
	}
	if (v->type != TOML_TIME_LOCAL)
		k += snprintf(b + k, sizeof(b) - k, "%04d-%02d-%02d", dt->year, dt->month, dt->day);
	if (v->type == TOML_DATETIME || v->type == TOML_DATETIME_LOCAL)
		b[k++] = 'T';
	if (v->type != TOML_DATE_LOCAL) {
		k += snprintf(b + k, sizeof(b) - k, "%02d:%02d:%02d", dt->hour, dt->minute,
		              dt->second);
		if (frac > 0 && frac <= 9)
			k += snprintf(b + k, sizeof(b) - k, ".%0*d", frac,
			              dt->nanosecond / scale[frac]);
	}
	if (v->type == TOML_DATETIME) {
		if (dt->offset_z)
			k += snprintf(b + k, sizeof(b) - k, "Z");
		else
			k += snprintf(b + k, sizeof(b) - k, "%c%02lld:%02lld", off < 0 ? '-' : '+',
			              (off < 0 ? -off : off) / 60, (off < 0 ? -off : off) % 60);
	}
	snprintf(out, n, "%s", b);
}
