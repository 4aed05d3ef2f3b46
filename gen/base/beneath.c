/* beneath.c: paths below a build dir, never through a link (beneath.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#if defined(SYS_openat2) && __has_include(<linux/openat2.h>)
#include <linux/openat2.h>
#define HAVE_OPENAT2 1
#endif

#include "beneath.h"
#include "util.h"

/* A descriptor of its own for rootfd (AT_FDCWD: the working dir). */
static int
dup_root(int rootfd)
{
	if (rootfd == AT_FDCWD)
		return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fcntl(rootfd, F_DUPFD_CLOEXEC, 0);
}

/* Opens the directory dir (len bytes of a relative path, no trailing
 * slash; 0: rootfd itself) below rootfd, never through a link. */
static int
open_dir(int rootfd, const char *dir, size_t len)
{
	char *path, *p, *slash;
	int fd, next;

	if (len == 0)
		return dup_root(rootfd);
	if (!(path = strndup(dir, len)))
		return -1;
#ifdef HAVE_OPENAT2
	{
		struct open_how how = {
			.flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC,
			.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS,
		};
		fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
		if (fd >= 0 || (errno != ENOSYS && errno != EPERM && errno != EINVAL)) {
			free(path);
			return fd;
		}
	}
#endif
	/* no openat2 (or a seccomp filter refusing it): one component at a time */
	fd = dup_root(rootfd);
	for (p = path; fd >= 0 && *p; p = slash ? slash + 1 : p + strlen(p)) {
		if ((slash = strchr(p, '/')))
			*slash = '\0';
		if (strcmp(p, "..") == 0) {
			close(fd);
			fd = -1;
			errno = EXDEV;
			break;
		}
		if (*p == '\0' || strcmp(p, ".") == 0)
			continue;
		next = openat(fd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(fd);
		fd = next;
	}
	free(path);
	return fd;
}

int
beneath_parent(int rootfd, const char *rel, const char **leaf)
{
	const char *slash;
	size_t n;

	if (!rel || !*rel || *rel == '/') {
		errno = EXDEV;
		return -1;
	}
	n = strlen(rel);
	while (n > 1 && rel[n - 1] == '/')
		n--;
	if (n != strlen(rel)) {
		/* "dir/": the trailing slash would follow a link at dir */
		errno = EINVAL;
		return -1;
	}
	slash = strrchr(rel, '/');
	*leaf = slash ? slash + 1 : rel;
	if (strcmp(*leaf, "..") == 0 || strcmp(*leaf, ".") == 0) {
		errno = EXDEV;
		return -1;
	}
	return open_dir(rootfd, rel, slash ? (size_t)(slash - rel) : 0);
}

int
beneath_open(int rootfd, const char *rel, int flags, mode_t mode)
{
	const char *leaf;
	int dfd = beneath_parent(rootfd, rel, &leaf), fd, e;

	if (dfd < 0)
		return -1;
	fd = openat(dfd, leaf, flags | O_NOFOLLOW | O_CLOEXEC, mode);
	e = errno;
	close(dfd);
	errno = e;
	return fd;
}

int
beneath_unlink(int rootfd, const char *rel, int flags)
{
	const char *leaf;
	int dfd = beneath_parent(rootfd, rel, &leaf), r, e;

	if (dfd < 0)
		return -1;
	r = unlinkat(dfd, leaf, flags);
	e = errno;
	close(dfd);
	errno = e;
	return r;
}

int
beneath_rename(int rootfd, const char *from, const char *to)
{
	const char *lf, *lt;
	int df = beneath_parent(rootfd, from, &lf), dt, r, e;

	if (df < 0)
		return -1;
	if ((dt = beneath_parent(rootfd, to, &lt)) < 0) {
		e = errno;
		close(df);
		errno = e;
		return -1;
	}
	r = renameat(df, lf, dt, lt);
	e = errno;
	close(df);
	close(dt);
	errno = e;
	return r;
}

int
beneath_stat(int rootfd, const char *rel, struct stat *st)
{
	const char *leaf;
	int dfd = beneath_parent(rootfd, rel, &leaf), r, e;

	if (dfd < 0)
		return -1;
	r = fstatat(dfd, leaf, st, AT_SYMLINK_NOFOLLOW);
	e = errno;
	close(dfd);
	errno = e;
	return r;
}

/* Empties the directory fd (and closes it), depth levels deep at most. */
static void
empty_dir(int fd, int depth)
{
	struct dirent *e;
	struct stat st;
	DIR *d = fdopendir(fd);
	int sub;

	if (!d) {
		close(fd);
		return;
	}
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (fstatat(fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)) {
			unlinkat(fd, e->d_name, 0);
			continue;
		}
		if (depth > 0 &&
		    (sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) >= 0)
			empty_dir(sub, depth - 1);
		unlinkat(fd, e->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

bool
beneath_remove_tree(int rootfd, const char *rel)
{
	const char *leaf;
	int dfd = beneath_parent(rootfd, rel, &leaf), fd;

	if (dfd < 0)
		return errno == ENOENT;
	if (unlinkat(dfd, leaf, 0) != 0 && errno != ENOENT) {
		fd = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0)
			empty_dir(fd, 256);
		unlinkat(dfd, leaf, AT_REMOVEDIR);
	}
	close(dfd);
	return true;
}

int
beneath_dir(const char *root, const char *rel)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd, e;

	if (rootfd < 0) {
		warn("open %s:", root);
		return -2;
	}
	errno = EXDEV;
	fd = *rel == '/' ? -1 : open_dir(rootfd, rel, strlen(rel));
	e = errno;
	close(rootfd);
	if (fd >= 0)
		return fd;
	if (e == ELOOP || e == ENOTDIR || e == EXDEV) {
		warn("%s/%s is a symbolic link (or crosses one, or is no directory); kunai does not write "
		     "through links (remove it)",
		     root, rel);
		return -2;
	}
	errno = e;
	return -1;
}

bool
beneath_dirs_ok(const char *root, const char *const *rels)
{
	int fd;

	for (; *rels; rels++) {
		if ((fd = beneath_dir(root, *rels)) == -2)
			return false;
		if (fd >= 0)
			close(fd);
	}
	return true;
}
