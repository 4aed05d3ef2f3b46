/* results/format.c: how the reports write numbers and text (see
 * format.h). Every report (summary.md, the HTML, the CSV, JUnit, the
 * plots' data, the terminal, the reasons of a grade) formats through here,
 * so one value reads the same everywhere. */
#define _POSIX_C_SOURCE 200809L
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reports/results/format.h"
#include "gen/base/util.h"

/* Integral and exactly representable: printed with %.0f it is exact. */
static int
integral(double v)
{
	return isfinite(v) && v == floor(v) && fabs(v) < 9007199254740992.0;
}

/* v exactly when integral, else with prec significant digits; both
 * without printf's float path where they can (a CSV of 100,000 runs'
 * message sizes and bandwidths is millions of them) */
static void
fmt_prec(struct buf *b, double v, int prec)
{
	char text[24];
	long long n;
	int i = sizeof(text);

	if (integral(v)) {
		/* "%.0f": the digits, and the sign of -0 too */
		n = (long long)v;
		do
			text[--i] = (char)('0' + (n < 0 ? -(n % 10) : n % 10));
		while ((n /= 10) != 0);
		if (signbit(v))
			text[--i] = '-';
		buf_push(b, text + i, sizeof(text) - (size_t)i);
	}
	else if (util_decimal_text(v, prec, text))
		buf_puts(b, text);
	else
		buf_printf(b, "%.*g", prec, v);
}

void
fmt_num(struct buf *b, double v)
{
	fmt_prec(b, v, 4);
}

void
fmt_data(struct buf *b, double v)
{
	fmt_prec(b, v, 9);
}

void
fmt_bytes(struct buf *b, double v)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	double x = v;
	size_t u = 0;

	while (fabs(x) >= 1024 && u + 1 < LEN(units)) {
		x /= 1024;
		u++;
	}
	fmt_num(b, x);
	buf_printf(b, " %s", units[u]);
}

void
fmt_seconds(struct buf *b, double s)
{
	if (fabs(s) < 10)
		buf_printf(b, "%.2f s", s);
	else
		buf_printf(b, "%.1f s", s);
}

void
fmt_duration(struct buf *b, double s, const char *start, const char *end)
{
	/* "2024-05-01T12:00:03Z": a second is all such a record can tell */
	if (start && end && !strchr(start, '.') && !strchr(end, '.')) {
		if (s < 1)
			buf_puts(b, "< 1 s");
		else
			buf_printf(b, "%.0f s", s);
	} else {
		fmt_seconds(b, s);
	}
}

void
fmt_percent(struct buf *b, double frac)
{
	double p = 100 * frac;

	if (p != 0 && fabs(p) < 1)
		buf_printf(b, "%.1f%%", p);
	else
		buf_printf(b, "%.0f%%", p);
}

void
fmt_value(struct buf *b, double v, const char *unit)
{
	if (unit && strcmp(unit, "B") == 0)
		fmt_bytes(b, v);
	else if (unit && strcmp(unit, "count") == 0)
		fmt_num(b, v);
	else if (unit && strcmp(unit, "ratio") == 0)
		fmt_percent(b, v);
	else if (unit && strcmp(unit, "s") == 0)
		fmt_seconds(b, v);
	else {
		fmt_num(b, v);
		if (unit && *unit)
			buf_printf(b, " %s", unit);
	}
}

/* Length of the UTF-8 sequence at s (n bytes left) and its code point, or 0
 * when it is not well-formed (overlong, surrogate, beyond U+10FFFF). */
static size_t
utf8_decode(const unsigned char *s, size_t n, unsigned long *cp)
{
	size_t len, i;
	unsigned long c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, c = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, c = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3F);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)) ||
	    (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

void
xml_escape(struct buf *out, const char *s, size_t len, bool attr)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	unsigned long cp;
	size_t n;

	while (p < end) {
		/* most output is printable ASCII without markup: copy it at once */
		const unsigned char *q = p;
		while (q < end && *q >= 0x20 && *q < 0x7F && *q != '&' && *q != '<' && *q != '>' && *q != '"')
			q++;
		if (q > p) {
			buf_push(out, p, (size_t)(q - p));
			p = q;
			continue;
		}
		n = utf8_decode(p, (size_t)(end - p), &cp);
		if (n == 0) {
			buf_puts(out, "\xEF\xBF\xBD");
			p++;
			continue;
		}
		switch (cp) {
		case '&':
			buf_puts(out, "&amp;");
			break;
		case '<':
			buf_puts(out, "&lt;");
			break;
		case '>':
			buf_puts(out, "&gt;");
			break;
		case '"':
			buf_puts(out, attr ? "&quot;" : "\"");
			break;
		case '\t':
			buf_puts(out, attr ? "&#9;" : "\t");
			break;
		case '\n':
			buf_puts(out, attr ? "&#10;" : "\n");
			break;
		default:
			/* XML 1.0 has no way to write the other C0 controls, nor
			 * U+FFFE/U+FFFF */
			if (cp >= 0x20 && cp != 0x7F && cp != 0xFFFE && cp != 0xFFFF)
				buf_push(out, p, n);
			break;
		}
		p += n;
	}
}

/* Reads up to n bytes at offset off into p; returns the count read. */
static size_t
read_at(int fd, char *p, size_t n, off_t off)
{
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = pread(fd, p + got, n - got, off + (off_t)got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	return got;
}

void
tail_lines(const char *path, size_t n, size_t max, struct buf *out)
{
	struct stat st;
	size_t want, got, i, end, lines = 0;
	char *p;
	int fd;

	/* a file, not a FIFO or device planted in the run dir (never waited
	 * on), nor a link (what it names is not the run's to publish) */
	fd = file_open_regular(AT_FDCWD, path, O_NOFOLLOW);
	if (fd < 0)
		return;
	if (fstat(fd, &st) != 0 || st.st_size <= 0) {
		close(fd);
		return;
	}
	/* outputs can be gigabytes: read only the end */
	want = (unsigned long long)st.st_size < max ? (size_t)st.st_size : max;
	p = xmalloc(want + 1);
	got = read_at(fd, p, want, st.st_size - (off_t)want);
	close(fd);
	end = got;
	if (end && p[end - 1] == '\n')
		end--;
	for (i = end; i > 0; i--)
		if (p[i - 1] == '\n' && ++lines == n)
			break;
	/* a window that starts mid-line drops the partial line when it can */
	if (i == 0 && want < (size_t)st.st_size) {
		char *nl = memchr(p, '\n', end);
		if (nl)
			i = (size_t)(nl - p) + 1;
	}
	buf_push(out, p + i, got - i);
	free(p);
}
