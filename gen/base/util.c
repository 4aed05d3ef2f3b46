/* util.c: memory, strings, buffers, diagnostics, numbers and hashes (the arena
 * and growing arrays: arena.c; whole files in and out: file.c). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

static void
oom(void)
{
	fputs("kunai: out of memory\n", stderr);
	exit(1);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *
xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		oom();
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *
xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

static void
buf_reserve(struct buf *b, size_t n)
{
	if (n > SIZE_MAX - b->len - 1)
		oom();
	if (b->len + n + 1 > b->cap && b->drain)
		b->drain(b);
	if (b->len + n + 1 > b->cap)
		b->data = xreserve(b->data, b->len + n + 1, &b->cap, 1);
}

void
buf_push(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
buf_putc(struct buf *b, int c)
{
	if (b->len + 2 > b->cap)
		buf_reserve(b, 1);
	b->data[b->len++] = (char)c;
	b->data[b->len] = '\0';
}

void
buf_puts(struct buf *b, const char *s)
{
	buf_push(b, s, strlen(s));
}

void
buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	char small[256];
	va_list ap2;
	int n;

	/* most pieces fit a small buffer: format once */
	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	if ((size_t)n < sizeof(small)) {
		buf_push(b, small, (size_t)n);
		return;
	}
	buf_reserve(b, (size_t)n);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

const char *
buf_str(struct buf *b)
{
	return b->data ? b->data : "";
}

void
buf_drop(struct buf *b, size_t n)
{
	if (n > b->len)
		n = b->len;
	if (!n)
		return;
	memmove(b->data, b->data + n, b->len - n);
	b->len -= n;
	b->data[b->len] = '\0';
}

void
buf_free(struct buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

bool
str_eq(struct str a, const char *b)
{
	size_t n = strlen(b);
	return a.len == n && memcmp(a.s, b, n) == 0;
}

struct str
str_from(const char *s)
{
	struct str r = {s, strlen(s)};
	return r;
}

static void
vwarn(const char *fmt, va_list ap)
{
	size_t n = strlen(fmt);
	int e = errno;

	fputs("kunai: ", stderr);
	vfprintf(stderr, fmt, ap);
	if (n && fmt[n - 1] == ':')
		fprintf(stderr, " %s", strerror(e));
	fputc('\n', stderr);
}

void
warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vwarn(fmt, ap);
	va_end(ap);
	exit(1);
}

long long
env_number(const char *name, long long min, long long max, long long def)
{
	const char *v = getenv(name);
	char *end;
	long long n;

	if (!v || !*v)
		return def;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (errno || *end || end == v || n < min || n > max || (*v != '-' && (*v < '0' || *v > '9')))
		fatal("%s='%s' is not a whole number from %lld to %lld", name, v, min, max);
	return n;
}

const char *
env_word(const char *name, const char *const *words, const char *def)
{
	const char *v = getenv(name);
	struct buf all = {0};
	size_t i;

	if (!v || !*v)
		return def;
	for (i = 0; words[i]; i++)
		if (strcmp(v, words[i]) == 0)
			return words[i];
	for (i = 0; words[i]; i++)
		buf_printf(&all, "%s%s", i ? ", " : "", words[i]);
	fatal("%s='%s' is none of: %s", name, v, all.data);
}

void
error_at(const char *path, int line, int col, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d:%d: error: ", path, line, col);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

char *
path_join(struct arena *a, const char *dir, const char *name)
{
	size_t n = strlen(dir);
	char *p;

	if (strcmp(dir, ".") == 0)
		return arena_strdup(a, name);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	p = arena_alloc(a, n + strlen(name) + 2);
	memcpy(p, dir, n);
	if (n && dir[n - 1] != '/')
		p[n++] = '/';
	strcpy(p + n, name);
	return p;
}

#ifndef KUNAI_DATADIR
#define KUNAI_DATADIR "/usr/local/share/kunai"
#endif

/* Is there a rules/ directory under dir? */
static bool
has_rules(const char *dir)
{
	struct buf p = {0};
	struct stat st;
	bool ok;

	buf_printf(&p, "%s/rules", dir);
	ok = stat(p.data, &st) == 0 && S_ISDIR(st.st_mode);
	buf_free(&p);
	return ok;
}

/* The directory holding rules/ and conf/: $KUNAI_DATADIR, else the source
 * tree the binary was built in (binary at its top), else the installed one. */
const char *
kunai_datadir(struct buf *out)
{
	const char *env = getenv("KUNAI_DATADIR");
	char exe[4096];
	ssize_t n;

	if (env && *env)
		return env;
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		char *slash;

		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			if (has_rules(exe)) {
				buf_puts(out, exe);
				return buf_str(out);
			}
		}
	}
	return KUNAI_DATADIR;
}

long
util_days_from_civil(long y, long m, long d)
{
	long era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* "%.{prec}g" of d made without printf's float path where that text is a
 * plain decimal: |d| in [1e-4, 10^prec) and d the double nearest to a
 * decimal x = n / 10^k of at most prec significant digits (then "%.*g" of
 * d is x, trailing zeros dropped, and x reads back as d).
 * Division is rounded exactly, so n / 10^k == d says that d is nearest.
 * Writes into out (at least 24 bytes) and returns true; false where it
 * cannot tell (the caller then asks printf). A report's numbers are
 * mostly such (12.34 GB/s, a message size): printf's float path was a
 * third of the CPU of a first kunai report. */
bool
util_decimal_text(double d, int prec, char *out)
{
	static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
	                             1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
	double a = fabs(d), m;
	unsigned long long n, ip, fp;
	char digits[24];
	int k, len, i;

	if (prec < 1 || prec > 15 || !(a >= 1e-4 && a < p10[prec]))
		return false;
	for (k = 0; k < 16; k++) {
		m = nearbyint(a * p10[k]);
		if (m >= p10[prec])
			return false;
		if (m / p10[k] == a)
			break;
	}
	if (k == 16)
		return false;
	n = (unsigned long long)m;
	ip = n / (unsigned long long)p10[k];
	fp = n % (unsigned long long)p10[k];
	len = 0;
	if (d < 0)
		out[len++] = '-';
	i = 0;
	do
		digits[i++] = (char)('0' + ip % 10);
	while (ip /= 10);
	while (i > 0)
		out[len++] = digits[--i];
	if (fp) {
		for (i = k - 1; i >= 0; i--, fp /= 10)
			digits[i] = (char)('0' + fp % 10);
		while (k > 0 && digits[k - 1] == '0')
			k--;
		out[len++] = '.';
		memcpy(out + len, digits, (size_t)k);
		len += k;
	}
	out[len] = '\0';
	return true;
}

void
util_float_repr(char *out, size_t n, double d)
{
	char e[40], digits[24];
	int prec, exp, nd, i, k;
	char *p;

	for (prec = 0; prec < 17; prec++) {
		snprintf(e, sizeof(e), "%.*e", prec, d);
		if (strtod(e, NULL) == d)
			break;
	}
	/* e is [-]D[.DDD]e[+-]XX: its digits and exponent */
	p = e + (e[0] == '-');
	for (nd = 0; *p && *p != 'e'; p++)
		if (*p != '.')
			digits[nd++] = *p;
	digits[nd] = '\0';
	exp = atoi(p + 1);
	k = 0;
	if (e[0] == '-')
		out[k++] = '-';
	if (exp < -4 || exp >= 16) {
		out[k++] = digits[0];
		if (nd > 1) {
			out[k++] = '.';
			for (i = 1; i < nd; i++)
				out[k++] = digits[i];
		}
		snprintf(out + k, n - (size_t)k, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
		return;
	}
	if (exp < 0) {
		out[k++] = '0';
		out[k++] = '.';
		for (i = -1; i > exp; i--)
			out[k++] = '0';
		for (i = 0; i < nd; i++)
			out[k++] = digits[i];
	} else {
		for (i = 0; i <= exp; i++)
			out[k++] = i < nd ? digits[i] : '0';
		out[k++] = '.';
		if (nd > exp + 1)
			for (i = exp + 1; i < nd; i++)
				out[k++] = digits[i];
		else
			out[k++] = '0';
	}
	out[k] = '\0';
}

bool
util_parse_size(const char *s, double *bytes)
{
	static const char units[] = "KMGTPE";
	const char *p = s, *u;
	double v = 0, scale = 1;
	int digits = 0;

	for (; *p >= '0' && *p <= '9'; p++, digits++)
		v = v * 10 + (*p - '0');
	if (*p == '.') /* "1.5GiB" */
		for (p++; *p >= '0' && *p <= '9'; p++, digits++)
			v += (*p - '0') * (scale /= 10);
	if (!digits)
		return false;
	scale = 1;
	if (*p && (u = strchr(units, *p))) {
		for (int i = 0; i <= u - units; i++)
			scale *= 1024;
		p++;
		if (p[0] == 'i' && p[1] == 'B')
			p += 2;
	} else if (*p == 'B')
		p++;
	if (*p)
		return false;
	*bytes = v * scale;
	return true;
}

int
util_to_int(double d, int dflt)
{
	/* INT_MIN - 1 and INT_MAX + 1 are exact doubles; NaN fails both */
	return d > (double)INT_MIN - 1.0 && d < (double)INT_MAX + 1.0 ? (int)d : dflt;
}

long
util_to_long(double d, long dflt)
{
	/* -2^63 and 2^63 are exact; (double)LONG_MAX rounds up to 2^63 */
	return d >= (double)LONG_MIN && d < -(double)LONG_MIN ? (long)d : dflt;
}

unsigned long long
util_hash(const void *p, size_t n)
{
	const unsigned char *s = p;
	uint64_t h = 0x9e3779b97f4a7c15u ^ n, w;

	for (; n >= 8; n -= 8, s += 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdu;
		h ^= h >> 29;
	}
	w = 0;
	if (n)
		memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
	h ^= h >> 32;
	return h;
}

void
util_hash_hex(const void *p, size_t n, char out[17])
{
	static const char hex[] = "0123456789abcdef";
	uint64_t h = util_hash(p, n);
	int i;

	for (i = 15; i >= 0; i--, h >>= 4)
		out[i] = hex[h & 15];
	out[16] = '\0';
}

long
util_digits(const char **s)
{
	const char *p = *s;
	long v = 0;

	while (*p >= '0' && *p <= '9') {
		if (p - *s == 9)
			return -1;
		v = v * 10 + (*p++ - '0');
	}
	if (p == *s)
		return -1;
	*s = p;
	return v;
}
