/* util.c: memory, strings, buffers, diagnostics and atomic file output (the
 * arena and growing arrays: arena.c). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

bool
read_file(const char *path, struct buf *out)
{
	return read_file_max(path, out, 0, NULL);
}

bool
read_file_max(const char *path, struct buf *out, size_t max, const char *what)
{
	int fd = 0;
	char tmp[65536];
	ssize_t n;

	if (strcmp(path, "-") != 0) {
		fd = open(path, O_RDONLY);
		if (fd < 0) {
			warn("open %s:", path);
			return false;
		}
	}
	for (;;) {
		n = read(fd, tmp, sizeof(tmp));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			warn("read %s:", path);
			if (fd)
				close(fd);
			return false;
		}
		if (n == 0)
			break;
		if (max && (size_t)n > max - out->len) {
			warn("%s: larger than %zu bytes, the limit for %s", path, max, what);
			if (fd)
				close(fd);
			return false;
		}
		buf_push(out, tmp, (size_t)n);
	}
	if (fd)
		close(fd);
	if (!out->data)
		buf_push(out, "", 0);
	return true;
}

/* Does path hold exactly these bytes? (open, fstat, one read: gen compares
 * every generated file on each regeneration) */
static bool
same_contents(const char *path, const void *data, size_t len)
{
	struct stat st;
	char small[8192], *p = small;
	bool same = false;
	ssize_t n;
	int e = errno, fd;

	fd = open(path, O_RDONLY);
	if (fd < 0) {
		errno = e;
		return false;
	}
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && (size_t)st.st_size == len) {
		if (len + 1 > sizeof(small))
			p = xmalloc(len + 1);
		/* one byte more than expected tells a file that grew meanwhile */
		n = read(fd, p, len + 1);
		same = n >= 0 && (size_t)n == len && memcmp(p, data, len) == 0;
		if (p != small)
			free(p);
	}
	close(fd);
	errno = e;
	return same;
}

/* Creates the missing directories above path. */
static bool
make_parents(const char *path)
{
	struct buf p = {0};
	char *s;
	bool ok = true;

	buf_puts(&p, path);
	for (s = p.data + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (mkdir(p.data, 0777) != 0 && errno != EEXIST) {
			warn("mkdir %s:", p.data);
			ok = false;
			break;
		}
		*s = '/';
	}
	buf_free(&p);
	return ok;
}

bool
make_dir(const char *dir, bool *made)
{
	return make_dir_at(AT_FDCWD, dir, dir, made);
}

bool
make_dir_at(int dirfd, const char *rel, const char *dir, bool *made)
{
	struct buf p = {0};
	bool ok;

	*made = false;
	if (mkdirat(dirfd, rel, 0777) == 0) {
		*made = true;
		return true;
	}
	if (errno == EEXIST)
		return true;
	if (errno != ENOENT) {
		warn("mkdir %s:", dir);
		return false;
	}
	buf_printf(&p, "%s/", dir);
	ok = make_parents(p.data);
	buf_free(&p);
	if (ok)
		*made = true;
	return ok;
}

bool
write_file_new_at(int dirfd, const char *rel, const char *path, const void *data, size_t len, struct stat *st)
{
	const char *s = data;
	size_t left = len;
	ssize_t n;
	int fd;

	fd = openat(dirfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	if (fd < 0) {
		if (errno != EEXIST)
			return warn("open %s:", path), false;
		if (!write_file_atomic(path, data, len))
			return false;
		if (st && fstatat(dirfd, rel, st, 0) != 0)
			st->st_size = -1; /* no stat: the caller records nothing */
		return true;
	}
	for (; left; left -= (size_t)n, s += n) {
		n = write(fd, s, left);
		if (n < 0 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n <= 0)
			break;
	}
	/* the stat of the written file, from its fd: no second path lookup */
	if (st && fstat(fd, st) != 0)
		st->st_size = -1;
	if (close(fd) != 0 || left) {
		warn("write %s:", path);
		unlinkat(dirfd, rel, 0);
		return false;
	}
	return true;
}

bool
write_file_atomic(const char *path, const void *data, size_t len)
{
	struct buf tmp = {0};
	FILE *f;
	bool ok;

	if (same_contents(path, data, len))
		return true;
	buf_printf(&tmp, "%s.tmp", path);
	f = fopen(tmp.data, "wb");
	if (!f && errno == ENOENT && make_parents(tmp.data))
		f = fopen(tmp.data, "wb");
	if (!f) {
		warn("open %s:", tmp.data);
		buf_free(&tmp);
		return false;
	}
	ok = fwrite(data, 1, len, f) == len;
	ok = fflush(f) == 0 && ok && !ferror(f);
	if (fclose(f) != 0)
		ok = false;
	if (!ok) {
		warn("write %s:", tmp.data);
		unlink(tmp.data);
		buf_free(&tmp);
		return false;
	}
	if (rename(tmp.data, path) != 0) {
		warn("rename %s:", path);
		unlink(tmp.data);
		buf_free(&tmp);
		return false;
	}
	buf_free(&tmp);
	return true;
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

void
remove_tree_at(int dirfd, const char *rel)
{
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	if (unlinkat(dirfd, rel, 0) == 0 || errno == ENOENT)
		return;
	fd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(d = fdopendir(fd))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
			remove_tree_at(fd, e->d_name);
		else
			unlinkat(fd, e->d_name, 0);
	}
	closedir(d);
	unlinkat(dirfd, rel, AT_REMOVEDIR);
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
