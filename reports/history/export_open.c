/* history/export_open.c: export_open(), the safe way back into an archive of
 * `kunai export` for the commands that read results (every entry checked
 * before a byte of it reaches the disk), and the gzip plumbing both
 * directions share. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/history/export.h"
#include "reports/history/export_priv.h"
#include "gen/base/util.h"

extern char **environ;

bool
export_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	ssize_t w;

	while (n) {
		w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return false;
		c += w;
		n -= (size_t)w;
	}
	return true;
}

/* Reads n bytes unless the stream ends first; returns how many it read, or
 * (size_t)-1 on a read error. */
size_t
export_read_full(int fd, void *p, size_t n)
{
	char *c = p;
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = read(fd, c + got, n - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return (size_t)-1;
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return got;
}

/* Starts gzip with in and out as its standard input and output (and its
 * messages thrown away when quiet). Returns its pid, or -1 after reporting. */
pid_t
export_spawn_gzip(char *const argv[], int in, int out, int close_fd)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;
	int rc;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, in, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	if (close_fd >= 0)
		posix_spawn_file_actions_addclose(&fa, close_fd);
	rc = posix_spawnp(&pid, "gzip", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		errno = rc;
		warn("cannot run gzip:");
		return -1;
	}
	return pid;
}

int
export_wait_status(pid_t pid)
{
	int st;

	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}


/* ---- reading ------------------------------------------------------------------ */

/* Removes everything under dirfd's entry name (which this process made:
 * files and directories only), then the entry. */
static void
remove_tree(int dirfd, const char *name, int depth)
{
	struct dirent *d;
	DIR *dir;
	int fd;

	if (unlinkat(dirfd, name, 0) == 0 || depth > 64)
		return;
	fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	if (fd < 0)
		return;
	if (!(dir = fdopendir(fd))) {
		close(fd);
		return;
	}
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0)
			remove_tree(fd, d->d_name, depth + 1);
	closedir(dir);
	unlinkat(dirfd, name, AT_REMOVEDIR);
}

void
export_close(struct export_src *s)
{
	if (s->tmp)
		remove_tree(AT_FDCWD, s->tmp, 0);
	free(s->tmp);
	free(s->dir);
	memset(s, 0, sizeof(*s));
}

/* Parses an octal header field; false when it is not one. */
static bool
parse_octal(const unsigned char *f, size_t n, unsigned long long *out)
{
	unsigned long long v = 0;
	size_t i = 0;

	while (i < n && f[i] == ' ')
		i++;
	if (i == n || f[i] < '0' || f[i] > '7')
		return false;
	for (; i < n && f[i] >= '0' && f[i] <= '7'; i++) {
		if (v > (~0ULL >> 3))
			return false;
		v = v * 8 + (unsigned long long)(f[i] - '0');
	}
	for (; i < n; i++)
		if (f[i] != ' ' && f[i] != '\0')
			return false;
	*out = v;
	return true;
}

/* Opens (making it) the directory of the entry's parent parts under root;
 * returns an fd, or -1 with why set. parts: the name's parts, n of them. */
static int
open_parent(int root, char **parts, size_t n, const char **why)
{
	int fd = dup(root), next;
	size_t i;

	for (i = 0; fd >= 0 && i < n; i++) {
		if (mkdirat(fd, parts[i], 0755) != 0 && errno != EEXIST) {
			*why = "cannot make a directory";
			close(fd);
			return -1;
		}
		next = openat(fd, parts[i], O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		close(fd);
		fd = next;
		if (fd < 0)
			*why = "an entry is both a file and a directory";
	}
	return fd;
}

/* Splits name into its parts (dropping empty and "." ones); why says what
 * makes it unsafe. */
static size_t
split_name(char *name, char **parts, size_t max, const char **why)
{
	size_t n = 0;
	char *s, *save = NULL;

	*why = NULL;
	if (name[0] == '/') {
		*why = "an absolute path";
		return 0;
	}
	for (s = strtok_r(name, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
		if (strcmp(s, ".") == 0)
			continue;
		if (strcmp(s, "..") == 0) {
			*why = "a '..' part, outside the archive's root";
			return 0;
		}
		if (n == max) {
			*why = "too deep";
			return 0;
		}
		parts[n++] = s;
	}
	if (!n)
		*why = "an empty name";
	return n;
}

/* Reads the tar stream from in into the directory root. Returns false
 * after reporting (as "kunai: path: ..."). */
static bool
extract(int in, int root, const char *path, size_t *files)
{
	unsigned char h[BLOCK], data[65536];
	char name[257 + 100], *parts[64];
	unsigned long long size, mtime, left;
	unsigned sum, want;
	size_t n, i, got, zeros = 0;
	const char *why;
	struct timespec ts[2];
	bool ok = true;
	int dfd, fd;

	for (;;) {
		got = export_read_full(in, h, BLOCK);
		if (got == (size_t)-1 || got < BLOCK) {
			warn("%s: truncated (the archive ends inside an entry or before its end marker)", path);
			return false;
		}
		for (i = 0; i < BLOCK && !h[i]; i++)
			;
		if (i == BLOCK) {
			if (++zeros == 2)
				return true;
			continue;
		}
		if (zeros) {
			warn("%s: corrupt (a zero block inside the archive)", path);
			return false;
		}
		sum = 0;
		for (i = 0; i < BLOCK; i++)
			sum += (i >= 148 && i < 156) ? ' ' : h[i];
		if (!parse_octal(h + 148, 8, &size) || (want = (unsigned)size) != sum ||
		    memcmp(h + 257, "ustar", 5) != 0) {
			warn("%s: not a tar archive of kunai export (bad header checksum or magic)", path);
			return false;
		}
		if (!parse_octal(h + 124, 12, &size) || !parse_octal(h + 136, 12, &mtime)) {
			warn("%s: corrupt (a header's size or time is not octal)", path);
			return false;
		}
		n = 0;
		if (h[345]) {
			memcpy(name, h + 345, 155);
			name[155] = '\0';
			n = strlen(name);
			name[n++] = '/';
		}
		memcpy(name + n, h, 100);
		name[n + 100] = '\0';
		if (h[156] != '0' && h[156] != '\0' && h[156] != '5') {
			warn("%s: entry '%s' is a %s; an export holds only files and directories", path, name,
			     h[156] == '2' ? "symbolic link" : h[156] == '1' ? "hard link" : "special entry");
			return false;
		}
		n = split_name(name, parts, LEN(parts), &why);
		if (why) {
			/* (name was cut by split_name: show the header's) */
			memcpy(name, h, 100);
			name[100] = '\0';
			warn("%s: entry '%s' is %s; refused", path, name, why);
			return false;
		}
		if (h[156] == '5') {
			dfd = open_parent(root, parts, n, &why);
			if (dfd < 0) {
				warn("%s: %s", path, why);
				return false;
			}
			close(dfd);
			if (size)
				ok = false;
		} else {
			dfd = open_parent(root, parts, n - 1, &why);
			if (dfd < 0) {
				warn("%s: %s", path, why);
				return false;
			}
			fd = openat(dfd, parts[n - 1], O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0644);
			close(dfd);
			if (fd < 0) {
				warn("%s: entry %s comes twice, or cannot be made:", path, parts[n - 1]);
				return false;
			}
			for (left = size; left;) {
				size_t want_n = left < sizeof(data) ? (size_t)left : sizeof(data);
				got = export_read_full(in, data, want_n);
				if (got != want_n) {
					close(fd);
					warn("%s: truncated (the archive ends inside an entry)", path);
					return false;
				}
				if (!export_write_all(fd, data, got)) {
					close(fd);
					warn("%s: writing an extracted file:", path);
					return false;
				}
				left -= got;
			}
			ts[0].tv_sec = ts[1].tv_sec = (time_t)mtime;
			ts[0].tv_nsec = ts[1].tv_nsec = 0;
			futimens(fd, ts);
			if (close(fd) != 0) {
				warn("%s: writing an extracted file:", path);
				return false;
			}
			(*files)++;
			if (size % BLOCK && export_read_full(in, data, BLOCK - size % BLOCK) != BLOCK - size % BLOCK) {
				warn("%s: truncated (the archive ends inside an entry)", path);
				return false;
			}
		}
		if (!ok) {
			warn("%s: corrupt (a directory entry with data)", path);
			return false;
		}
	}
}

bool
export_open(const char *path, struct export_src *s)
{
	char *gz_argv[] = {"gzip", "-d", "-c", NULL};
	const char *tmpdir = getenv("TMPDIR");
	struct buf t = {0};
	struct stat st;
	void (*old)(int);
	int in = -1, fd[2] = {-1, -1}, root = -1, gz;
	pid_t pid = -1;
	bool ok = false;

	memset(s, 0, sizeof(*s));
	if (stat(path, &st) != 0) {
		warn("%s:", path);
		return false;
	}
	if (S_ISDIR(st.st_mode)) {
		s->dir = xstrdup(path);
		return true;
	}
	buf_printf(&t, "%s/kunai-export.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
	if (!mkdtemp(t.data)) {
		warn("%s: cannot make a temporary directory %s:", path, t.data);
		buf_free(&t);
		return false;
	}
	s->tmp = xstrdup(t.data);
	if ((in = open(path, O_RDONLY)) < 0) {
		warn("%s:", path);
		goto done;
	}
	{
		unsigned char magic[2];
		if (pread(in, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
			warn("%s: not a .tar.gz of kunai export (no gzip header)", path);
			goto done;
		}
	}
	if ((root = open(s->tmp, O_RDONLY | O_DIRECTORY)) < 0 || pipe(fd) != 0) {
		warn("%s:", s->tmp);
		goto done;
	}
	pid = export_spawn_gzip(gz_argv, in, fd[1], fd[0]);
	close(fd[1]);
	fd[1] = -1;
	if (pid < 0)
		goto done;
	old = signal(SIGPIPE, SIG_IGN);
	ok = extract(fd[0], root, path, &s->files);
	close(fd[0]);
	fd[0] = -1;
	signal(SIGPIPE, old);
	gz = export_wait_status(pid);
	if (ok && gz != 0) {
		warn("%s: truncated or corrupt (gzip cannot decompress it)", path);
		ok = false;
	}
	if (ok && faccessat(root, "kunai.json", F_OK, 0) != 0) {
		warn("%s: no kunai.json in the archive: not an export of a kunai build dir", path);
		ok = false;
	}
	if (ok)
		s->dir = xstrdup(s->tmp);
done:
	if (in >= 0)
		close(in);
	if (root >= 0)
		close(root);
	if (fd[0] >= 0)
		close(fd[0]);
	if (fd[1] >= 0)
		close(fd[1]);
	buf_free(&t);
	if (!ok)
		export_close(s);
	return ok;
}
