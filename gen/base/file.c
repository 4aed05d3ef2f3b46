/* file.c: whole files in and out (util.h): reading with a bound, and output
 * that is complete or absent, never written through a link: a unique
 * O_CREAT|O_EXCL|O_NOFOLLOW temporary, then rename; directories made and
 * removed. A file that does not exist yet is written unnamed (O_TMPFILE)
 * and linked into place when complete, where the kernel can. */
#define _GNU_SOURCE /* O_TMPFILE, AT_EMPTY_PATH */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

int
file_open_regular(int dirfd, const char *path, int flags)
{
	struct stat st;
	int fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags), e;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0)
		e = errno;
	else if (!S_ISREG(st.st_mode))
		e = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
	else if (fcntl(fd, F_SETFL, O_RDONLY) != 0)
		e = errno;
	else
		return fd;
	close(fd);
	errno = e;
	return -1;
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

	struct stat st;

	if (strcmp(path, "-") != 0) {
		/* O_NONBLOCK: a FIFO with no writer does not hang the open */
		fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
		if (fd < 0) {
			warn("open %s:", path);
			return false;
		}
		/* a device (/dev/zero, a terminal) or a dir is never read to its
		 * end: only files and pipes are */
		if (fstat(fd, &st) != 0 || fcntl(fd, F_SETFL, 0) != 0) {
			warn("open %s:", path);
			close(fd);
			return false;
		}
		if (!S_ISREG(st.st_mode) && !S_ISFIFO(st.st_mode)) {
			errno = EISDIR;
			if (S_ISDIR(st.st_mode))
				warn("read %s:", path);
			else
				warn("%s: not a regular file", path);
			close(fd);
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

/* Does rel (under dirfd) hold exactly these bytes? (open, fstat, one
 * read: gen compares every generated file on each regeneration) *st, when
 * not NULL, gets the stat of the file read. */
static bool
same_contents_at(int dirfd, const char *rel, const void *data, size_t len, struct stat *st)
{
	struct stat own;
	char small[8192], *p = small;
	bool same = false;
	ssize_t n;
	int e = errno, fd;

	if (!st)
		st = &own;
	/* (a FIFO planted there is not waited on) */
	fd = file_open_regular(dirfd, rel, O_NOFOLLOW);
	if (fd < 0) {
		errno = e;
		return false;
	}
	if (fstat(fd, st) == 0 && S_ISREG(st->st_mode) && (size_t)st->st_size == len) {
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

static bool
same_contents(const char *path, const void *data, size_t len)
{
	return same_contents_at(AT_FDCWD, path, data, len, NULL);
}

bool
file_same_at(int dirfd, const char *rel, const void *data, size_t len, struct stat *st)
{
	return same_contents_at(dirfd, rel, data, len, st);
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
file_write_all(int fd, const void *data, size_t len)
{
	const char *s = data;
	ssize_t n;

	while (len) {
		n = write(fd, s, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = ENOSPC;
			return false;
		}
		len -= (size_t)n;
		s += n;
	}
	return true;
}

/* Creates rel under dirfd (O_EXCL: fd -1 and errno EEXIST when it exists)
 * with data. Returns false after reporting (any other failure). */
static bool
create_at(int dirfd, const char *rel, const char *path, const void *data, size_t len, struct stat *st,
          bool *exists)
{
	int fd, e;
	bool ok;

	*exists = false;
	fd = openat(dirfd, rel, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		if (errno == EEXIST)
			*exists = true;
		else
			warn("open %s:", path);
		return false;
	}
	ok = file_write_all(fd, data, len);
	e = errno;
	/* the stat of the written file, from its fd: no second path lookup */
	if (ok && st && fstat(fd, st) != 0)
		st->st_size = -1;
	if (close(fd) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		errno = e;
		warn("write %s:", path);
		unlinkat(dirfd, rel, 0);
	}
	return ok;
}

bool
write_file_new_at(int dirfd, const char *rel, const char *path, const void *data, size_t len, struct stat *st)
{
	bool exists;

	if (create_at(dirfd, rel, path, data, len, st, &exists))
		return true;
	return exists && write_file_atomic_st(path, data, len, st);
}

bool
write_file_excl_at(int dirfd, const char *rel, const char *path, const void *data, size_t len, struct stat *st)
{
	bool exists;

	if (create_at(dirfd, rel, path, data, len, st, &exists))
		return true;
	if (exists)
		warn("open %s:", path);
	return false;
}

bool
write_file_fresh_at(int dirfd, const char *rel, const char *path, const void *data, size_t len, struct stat *st)
{
#if defined(O_TMPFILE) && defined(AT_EMPTY_PATH)
	char proc[64];
	int fd = openat(dirfd, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666), e;

	if (fd < 0)
		return write_file_atomic_st(path, data, len, st);
	if (!file_write_all(fd, data, len)) {
		e = errno;
		close(fd);
		errno = e;
		warn("write %s:", path);
		return false;
	}
	/* linked by its descriptor (a kernel that asks for a capability
	 * there takes /proc's name of it); never over a name that exists */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(fd, "", dirfd, rel, AT_EMPTY_PATH) != 0 &&
	    (errno == EEXIST || linkat(AT_FDCWD, proc, dirfd, rel, AT_SYMLINK_FOLLOW) != 0)) {
		close(fd);
		return write_file_atomic_st(path, data, len, st);
	}
	if (st && (fstat(fd, st) != 0 || (size_t)st->st_size != len))
		st->st_size = -1;
	if (close(fd) != 0) {
		warn("write %s:", path);
		return false;
	}
	return true;
#else
	(void)dirfd;
	(void)rel;
	return write_file_atomic_st(path, data, len, st);
#endif
}

bool
write_file_atomic(const char *path, const void *data, size_t len)
{
	return write_file_atomic_st(path, data, len, NULL);
}

/* A name beside path that no other writer uses: this process, and a
 * counter shared by its threads. */
void
file_temp_name(struct buf *tmp, const char *path, const char *suffix)
{
	static _Atomic unsigned long seq;

	buf_printf(tmp, "%s.%ld.%lu.%s", path, (long)getpid(), (unsigned long)seq++, suffix);
}

bool
write_file_atomic_st(const char *path, const void *data, size_t len, struct stat *st)
{
	struct buf tmp = {0};
	struct stat lst;
	const char *s = data;
	size_t left = len;
	ssize_t n;
	int fd;

	bool have = lstat(path, &lst) == 0;

	if (have && S_ISLNK(lst.st_mode)) {
		warn("%s is a symbolic link; kunai does not write through links (remove it)", path);
		return false;
	}
	/* a file that is absent, or of another size, differs: not opened (a
	 * first report, a first gen: one system call less per file) */
	if (have && S_ISREG(lst.st_mode) && (size_t)lst.st_size == len && same_contents(path, data, len)) {
		if (st && stat(path, st) != 0)
			st->st_size = -1;
		return true;
	}
	file_temp_name(&tmp, path, "tmp");
	/* a new name of our own: nothing planted there is opened or followed */
	fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 && errno == ENOENT && make_parents(tmp.data))
		fd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0) {
		warn("open %s:", tmp.data);
		buf_free(&tmp);
		return false;
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
	if (left || rename(tmp.data, path) != 0) {
		warn(left ? "write %s:" : "rename %s:", left ? tmp.data : path);
		close(fd);
		unlink(tmp.data);
		buf_free(&tmp);
		return false;
	}
	/* the stat of what this call wrote (its descriptor, after the
	 * rename), never of whatever is at the path later */
	if (st && (fstat(fd, st) != 0 || (size_t)st->st_size != len))
		st->st_size = -1;
	if (close(fd) != 0) {
		warn("write %s:", path);
		buf_free(&tmp);
		return false;
	}
	buf_free(&tmp);
	return true;
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

/* ---- file_out: write_file_atomic for output made piece by piece ---------- */

/* Starts the temporary: the bytes that matched the old file, then data. */
static bool
out_diverge(struct file_out *o, const char *data, size_t len)
{
	char chunk[65536];
	long long done = 0;
	ssize_t n;

	file_temp_name(&o->tmp, o->path, "tmp");
	o->fd = open(o->tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (o->fd < 0 && errno == ENOENT && make_parents(o->tmp.data))
		o->fd = open(o->tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (o->fd < 0) {
		warn("open %s:", o->tmp.data);
		return false;
	}
	while (done < o->same) {
		size_t want = (size_t)(o->same - done) < sizeof(chunk) ? (size_t)(o->same - done) : sizeof(chunk);
		n = pread(o->old, chunk, want, done);
		if (n <= 0 || !file_write_all(o->fd, chunk, (size_t)n)) {
			warn("write %s:", o->tmp.data);
			return false;
		}
		done += n;
	}
	close(o->old);
	o->old = -1;
	if (!file_write_all(o->fd, data, len)) {
		warn("write %s:", o->tmp.data);
		return false;
	}
	return true;
}

/* Compares data with the old file's next bytes, or writes it. */
static void
out_put(struct file_out *o, const char *data, size_t len)
{
	char chunk[65536];
	size_t off = 0;
	ssize_t n;

	if (o->failed || !len)
		return;
	while (o->old >= 0 && off < len) {
		size_t want = len - off < sizeof(chunk) ? len - off : sizeof(chunk);
		n = pread(o->old, chunk, want, o->same);
		if (n != (ssize_t)want || memcmp(chunk, data + off, want) != 0)
			break;
		o->same += n;
		off += want;
	}
	if (off == len)
		return;
	if (o->fd < 0)
		o->failed = !out_diverge(o, data + off, len - off);
	else if (!file_write_all(o->fd, data + off, len - off)) {
		warn("write %s:", o->tmp.data);
		o->failed = true;
	}
}

bool
file_out_open(struct file_out *o, const char *path)
{
	struct stat lst;

	memset(o, 0, sizeof(*o));
	o->path = xstrdup(path);
	o->fd = -1;
	o->old = -1;
	if (lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode)) {
		warn("%s is a symbolic link; kunai does not write through links (remove it)", path);
		o->failed = true;
		return false;
	}
	if (lstat(path, &lst) == 0 && S_ISREG(lst.st_mode))
		o->old = file_open_regular(AT_FDCWD, path, O_NOFOLLOW);
	if (o->old < 0 && !out_diverge(o, "", 0))
		o->failed = true;
	return !o->failed;
}

void
file_out_flush(struct file_out *o, bool all)
{
	if (!all && o->b.len < 65536)
		return;
	out_put(o, o->b.data, o->b.len);
	o->b.len = 0;
}

bool
file_out_close(struct file_out *o)
{
	char c;
	bool ok;

	file_out_flush(o, true);
	/* an old file that goes on past the new bytes differs too */
	if (!o->failed && o->old >= 0 && pread(o->old, &c, 1, o->same) != 0 && !out_diverge(o, "", 0))
		o->failed = true;
	ok = !o->failed;
	if (o->old >= 0)
		close(o->old);
	if (o->fd >= 0) {
		if (close(o->fd) != 0 && ok) {
			warn("write %s:", o->tmp.data);
			ok = false;
		}
		if (ok && rename(o->tmp.data, o->path) != 0) {
			warn("rename %s:", o->path);
			ok = false;
		}
		if (!ok)
			unlink(o->tmp.data);
	}
	free(o->path);
	buf_free(&o->tmp);
	buf_free(&o->b);
	return ok;
}
