/* lock.c: one writer at a time per build dir (DESIGN 8 and 14).
 * BUILD/.kunai/lock is flock'ed for as long as a command needs the build
 * dir still: `kunai gen` exclusively, the runner, `kunai report` and
 * `kunai export` shared. BUILD/.kunai/driver names the live driver (ninja,
 * or `kunai run`) as "PID START" (START from /proc, so a reused pid is not
 * taken for it): gen refuses to rewrite under it, and a second driver is
 * refused. Whoever takes the lock first undoes a gen that failed or was
 * killed (journal.h). */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "journal.h"
#include "lock.h"
#include "util.h"

long long
lock_pid_start(long pid, bool *zombie, long *ppid)
{
	char path[64], text[1024], *rp, *p, state;
	long long start = -1;
	long pp = 0;
	int fd, field;
	ssize_t n;

	if (pid <= 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	text[n] = '\0';
	/* the name may hold blanks and parentheses: count from the last ')' */
	rp = strrchr(text, ')');
	if (!rp || rp[1] != ' ')
		return -1;
	p = rp + 2;
	state = *p;
	for (field = 3; *p && field < 22; p++)
		if (*p == ' ') {
			field++;
			if (field == 4)
				pp = strtol(p + 1, NULL, 10);
		}
	if (field != 22)
		return -1;
	start = strtoll(p, NULL, 10);
	if (zombie)
		*zombie = state == 'Z' || state == 'X';
	if (ppid)
		*ppid = pp;
	return start;
}

/* Opens BUILD/.kunai/NAME (made if missing), never through a link: not
 * at NAME, and not at .kunai itself (every command takes the lock first,
 * so a .kunai planted as a link is refused before anything is written in
 * it). */
static int
open_in(const char *build_dir, const char *name, struct buf *path)
{
	struct stat st;
	int dfd, fd;

	path->len = 0;
	buf_printf(path, "%s/.kunai", build_dir);
	if (mkdir(path->data, 0777) != 0 && errno != EEXIST) {
		warn("mkdir %s:", path->data);
		return -1;
	}
	dfd = open(path->data, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		/* O_DIRECTORY|O_NOFOLLOW at a link: ENOTDIR */
		warn(errno == ELOOP || errno == ENOTDIR ? "%s is a symbolic link or not a directory; kunai does "
		                                          "not write through links" : "open %s:",
		     path->data);
		return -1;
	}
	buf_printf(path, "/%s", name);
	fd = openat(dfd, name, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0)
		warn(errno == ELOOP ? "%s is a symbolic link; kunai does not write through links" : "open %s:",
		     path->data);
	/* a FIFO or device planted there is no lock */
	if (fd >= 0 && (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))) {
		warn("%s: not a regular file (remove it)", path->data);
		close(fd);
		fd = -1;
	}
	close(dfd);
	return fd;
}

/* Takes op on fd, saying so when it has to wait. Returns false after reporting. */
static bool
take(int fd, int op, const char *who, const char *build_dir, const char *path)
{
	if (flock(fd, op | LOCK_NB) == 0)
		return true;
	if (errno != EWOULDBLOCK) {
		warn("lock %s:", path);
		return false;
	}
	fprintf(stderr, "kunai: %s: waiting for another kunai command on %s\n", who, build_dir);
	while (flock(fd, op) != 0)
		if (errno != EINTR) {
			warn("lock %s:", path);
			return false;
		}
	return true;
}

int
lock_take(const char *build_dir, bool exclusive, const char *who)
{
	struct buf path = {0};
	int fd = open_in(build_dir, "lock", &path);
	bool ok = fd >= 0;

	/* a journal under the lock is a gen that failed or was killed: undone
	 * before anything else, under the lock taken exclusively */
	while (ok) {
		ok = take(fd, exclusive ? LOCK_EX : LOCK_SH, who, build_dir, path.data);
		if (!ok || !journal_pending(build_dir))
			break;
		if (exclusive) {
			ok = journal_recover(build_dir, false);
			break;
		}
		/* shared: one of the readers that found it undoes it; the others
		 * wait for it, never for a reader that holds the lock after it */
		flock(fd, LOCK_UN);
		if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
			ok = journal_recover(build_dir, false);
			flock(fd, LOCK_UN);
		} else {
			nanosleep(&(struct timespec){0, 20 * 1000 * 1000}, NULL);
		}
	}
	if (!ok && fd >= 0) {
		close(fd);
		fd = -1;
	}
	buf_free(&path);
	return fd;
}

/* The driver recorded in fd's file, when it still runs; 0 otherwise. */
static long
recorded(int fd, long long *start)
{
	char text[128];
	long long cur;
	long pid = 0;
	bool zombie = false;
	ssize_t n;

	n = pread(fd, text, sizeof(text) - 1, 0);
	text[n > 0 ? n : 0] = '\0';
	if (sscanf(text, "%ld %lld", &pid, start) != 2 || pid <= 0)
		return 0;
	cur = lock_pid_start(pid, &zombie, NULL);
	return cur >= 0 && cur == *start && !zombie ? pid : 0;
}

/* Whether pid is this process or one of its ancestors. */
static bool
ancestor(long pid)
{
	long p = (long)getpid(), pp;
	int depth;

	for (depth = 0; p > 1 && depth < 64; depth++, p = pp) {
		if (p == pid)
			return true;
		if (lock_pid_start(p, NULL, &pp) < 0)
			return false;
	}
	return false;
}

long
lock_driver_other(const char *build_dir)
{
	struct buf path = {0};
	long long start;
	long pid = 0;
	int fd;

	path.len = 0;
	buf_printf(&path, "%s/.kunai/driver", build_dir);
	fd = file_open_regular(AT_FDCWD, path.data, O_NOFOLLOW);
	buf_free(&path);
	if (fd < 0)
		return 0;
	if (flock(fd, LOCK_SH) == 0)
		pid = recorded(fd, &start);
	close(fd);
	return pid && !ancestor(pid) ? pid : 0;
}

int
lock_driver_claim(const char *build_dir, long pid, long long start, long *other)
{
	struct buf path = {0};
	long long rstart = 0;
	char text[128];
	long rpid;
	int fd, n, rc = 1;

	*other = 0;
	fd = open_in(build_dir, "driver", &path);
	if (fd < 0) {
		buf_free(&path);
		return -1;
	}
	if (flock(fd, LOCK_EX) != 0) {
		warn("lock %s:", path.data);
		close(fd);
		buf_free(&path);
		return -1;
	}
	rpid = recorded(fd, &rstart);
	if (rpid && (rpid != pid || rstart != start)) {
		*other = rpid;
		rc = 0;
	} else if (!rpid) {
		n = snprintf(text, sizeof(text), "%ld %lld\n", pid, start);
		if (ftruncate(fd, 0) != 0 || pwrite(fd, text, (size_t)n, 0) != n) {
			warn("write %s:", path.data);
			rc = -1;
		}
	}
	close(fd);
	buf_free(&path);
	return rc;
}
