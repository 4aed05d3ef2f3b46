/* journal.c: BUILD/.kunai/journal (journal.h). After the line
 * "kunai journal 1", one record a line: its type, then its fields, each
 * ended by a NUL (paths relative to the build dir; gen's paths hold no line
 * break, ninja could not express one). A record is written before the step
 * it names, so a killed gen leaves nothing the journal does not list:
 *     D dir        made by this gen
 *     T tmp        a temporary about to be written
 *     R o|n rel tmp bak   a rename of tmp over rel; o: rel exists and is
 *                  linked to bak first, n: rel is new
 *     C            every rename is listed (synced): the renames begin
 *     F            every rename is done
 * Undoing one without F: each rename in reverse (bak back over rel, or a
 * new rel removed), then every temporary and made dir. With F, gen had
 * finished but for removing its backups: they go. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"
#include "journal.h"

#define JOURNAL_HEADER "kunai journal 1\n"
#define JOURNAL_PATH ".kunai/journal"

bool
journal_begin(struct journal *j, int rootfd, const char *root)
{
	j->rootfd = rootfd;
	j->root = root;
	j->fd = beneath_open(rootfd, JOURNAL_PATH, O_WRONLY | O_CREAT | O_EXCL | O_APPEND, 0644);
	if (j->fd < 0) {
		warn("open %s/%s:", root, JOURNAL_PATH);
		return false;
	}
	if (write(j->fd, JOURNAL_HEADER, sizeof(JOURNAL_HEADER) - 1) != sizeof(JOURNAL_HEADER) - 1) {
		warn("write %s/%s:", root, JOURNAL_PATH);
		journal_end(j);
		return false;
	}
	return true;
}

static bool
put(struct journal *j, const char *data, size_t len)
{
	ssize_t n;

	/* O_APPEND: a record is one write, whole or short (a full disk) */
	do
		n = write(j->fd, data, len);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t)n != len) {
		if (n >= 0)
			errno = ENOSPC;
		warn("write %s/%s:", j->root, JOURNAL_PATH);
		return false;
	}
	return true;
}

bool
journal_note(struct journal *j, int type, const char *rel)
{
	struct buf rec = {0};
	bool ok;

	buf_putc(&rec, type);
	buf_push(&rec, rel, strlen(rel) + 1);
	buf_putc(&rec, '\n');
	ok = put(j, rec.data, rec.len);
	buf_free(&rec);
	return ok;
}

void
journal_rename(struct buf *rec, bool existed, const char *rel, const char *tmp, const char *bak)
{
	buf_putc(rec, JOURNAL_RENAME);
	buf_push(rec, existed ? "o" : "n", 2);
	buf_push(rec, rel, strlen(rel) + 1);
	buf_push(rec, tmp, strlen(tmp) + 1);
	buf_push(rec, bak, strlen(bak) + 1);
	buf_putc(rec, '\n');
}

void
journal_mark(struct buf *rec, int type)
{
	buf_putc(rec, type);
	buf_putc(rec, '\n');
}

bool
journal_write(struct journal *j, const struct buf *rec, bool sync)
{
	if (!put(j, rec->data ? rec->data : "", rec->len))
		return false;
	if (sync && fsync(j->fd) != 0) {
		warn("fsync %s/%s:", j->root, JOURNAL_PATH);
		return false;
	}
	return true;
}

void
journal_close(struct journal *j)
{
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
}

void
journal_end(struct journal *j)
{
	journal_close(j);
	if (beneath_unlink(j->rootfd, JOURNAL_PATH, 0) != 0 && errno != ENOENT)
		warn("remove %s/%s:", j->root, JOURNAL_PATH);
}

bool
journal_pending(const char *root)
{
	struct buf path = {0};
	struct stat st;
	bool there;

	buf_printf(&path, "%s/%s", root, JOURNAL_PATH);
	there = lstat(path.data, &st) == 0;
	buf_free(&path);
	return there;
}

/* One record: its type and fields (pointing into the journal's text). */
struct rec {
	int type;
	const char *f[4];
};

/* The fields a record of type has; -1 for an unknown type. */
static int
n_fields(int type)
{
	switch (type) {
	case JOURNAL_DIR:
	case JOURNAL_TEMP:
		return 1;
	case JOURNAL_RENAME:
		return 4;
	case JOURNAL_COMMIT:
	case JOURNAL_DONE:
		return 0;
	}
	return -1;
}

/* Whether rel stays inside the build dir: relative, no "..". */
static bool
inside(const char *rel)
{
	const char *p;

	if (!*rel || *rel == '/')
		return false;
	for (p = rel; (p = strstr(p, "..")); p += 2)
		if ((p == rel || p[-1] == '/') && (p[2] == '\0' || p[2] == '/'))
			return false;
	return true;
}

/* Splits text (the journal, header skipped) into records. A line that is
 * not a whole record (a write cut short by a full disk or a kill: always
 * the last of its writer's) names nothing that was done, and is skipped. */
static struct rec *
parse(char *text, size_t len, size_t *n_out)
{
	struct rec *r = NULL;
	size_t n = 0, cap = 0;
	char *p = text, *end = text + len, *nl;
	int k, nf;

	for (; p < end && (nl = memchr(p, '\n', (size_t)(end - p))); p = nl + 1) {
		struct rec x = {0};
		char *q = p + 1;

		x.type = (unsigned char)*p;
		nf = n_fields(x.type);
		for (k = 0; nf >= 0 && k < nf && q < nl; k++) {
			char *z = memchr(q, '\0', (size_t)(nl - q));
			if (!z)
				break;
			x.f[k] = q;
			q = z + 1;
		}
		if (nf < 0 || k != nf || q != nl)
			continue;
		for (k = 0; k < nf; k++)
			if (!(x.type == JOURNAL_RENAME && k == 0) && !inside(x.f[k]))
				break;
		if (k != nf)
			continue;
		r = xreserve(r, n + 1, &cap, sizeof(*r));
		r[n++] = x;
	}
	*n_out = n;
	return r;
}

/* Whether errno (from beneath.h) says a path passed a link or a file:
 * nothing gen wrote, since gen writes through neither. */
static bool
through_link(const char *root, const char *rel)
{
	if (errno != ELOOP && errno != ENOTDIR && errno != EXDEV)
		return false;
	warn("%s/%s: left alone (a journal record through a symbolic link names nothing kunai gen wrote)", root,
	     rel);
	return true;
}

/* Removes rel under at, never through a link; a missing one is fine. */
static bool
gone(int at, const char *root, const char *rel)
{
	if (beneath_unlink(at, rel, 0) == 0 || errno == ENOENT || through_link(root, rel))
		return true;
	warn("remove %s/%s:", root, rel);
	return false;
}

bool
journal_recover(const char *root, bool quiet)
{
	struct buf text = {0};
	struct rec *r = NULL;
	size_t n = 0, i, back = 0;
	char tmp[65536];
	bool done = false, committed = false, ok = true;
	struct stat b, f;
	ssize_t got;
	int at, fd;

	at = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (at < 0) {
		warn("open %s:", root);
		return false;
	}
	/* O_NONBLOCK: a FIFO planted there is refused, not waited on */
	fd = beneath_open(at, JOURNAL_PATH, O_RDONLY | O_NONBLOCK, 0);
	if (fd < 0) {
		if (errno == ENOENT) {
			close(at);
			return true;
		}
		warn("open %s/%s:", root, JOURNAL_PATH);
		close(at);
		return false;
	}
	if (fstat(fd, &f) != 0 || !S_ISREG(f.st_mode)) {
		warn("%s/%s: not a regular file (remove it)", root, JOURNAL_PATH);
		close(fd);
		close(at);
		return false;
	}
	while ((got = read(fd, tmp, sizeof(tmp))) > 0 || (got < 0 && errno == EINTR))
		if (got > 0)
			buf_push(&text, tmp, (size_t)got);
	close(fd);
	if (got < 0 || text.len < sizeof(JOURNAL_HEADER) - 1 ||
	    memcmp(text.data, JOURNAL_HEADER, sizeof(JOURNAL_HEADER) - 1) != 0) {
		/* not even its first line: gen was killed before its first step */
		if (got < 0 || text.len > sizeof(JOURNAL_HEADER) - 1 ||
		    memcmp(text.data ? text.data : "", JOURNAL_HEADER, text.len) != 0) {
			warn("%s/%s: not a journal this kunai can read; a killed kunai gen may have left the build "
			     "dir half rewritten (regenerate it, then remove this file)", root, JOURNAL_PATH);
			ok = false;
		}
	} else {
		r = parse(text.data + sizeof(JOURNAL_HEADER) - 1, text.len - (sizeof(JOURNAL_HEADER) - 1), &n);
	}
	for (i = 0; i < n; i++) {
		committed |= r[i].type == JOURNAL_COMMIT;
		done |= r[i].type == JOURNAL_DONE;
	}
	if (done) {
		/* every rename was made: only the backups and temporaries are left */
		for (i = 0; i < n; i++) {
			if (r[i].type == JOURNAL_RENAME)
				ok = gone(at, root, r[i].f[3]) && gone(at, root, r[i].f[2]) && ok;
			else if (r[i].type == JOURNAL_TEMP)
				ok = gone(at, root, r[i].f[0]) && ok;
		}
	} else {
		for (i = n; committed && i-- > 0;) {
			const struct rec *x = &r[i];
			if (x->type != JOURNAL_RENAME)
				continue;
			if (x->f[0][0] == 'n') {
				ok = gone(at, root, x->f[1]) && ok;
			} else if (beneath_stat(at, x->f[3], &b) == 0 && beneath_stat(at, x->f[1], &f) == 0 &&
			           b.st_ino == f.st_ino &&
			           b.st_dev == f.st_dev) {
				/* linked, never renamed over: the link goes */
				ok = gone(at, root, x->f[3]) && ok;
			} else if (beneath_rename(at, x->f[3], x->f[1]) == 0) {
				back++;
			} else if (errno != ENOENT && !through_link(root, x->f[3])) {
				/* ENOENT: never linked, so never renamed over */
				warn("rename %s/%s to %s/%s:", root, x->f[3], root, x->f[1]);
				ok = false;
			}
		}
		for (i = 0; i < n; i++)
			if (r[i].type == JOURNAL_TEMP || r[i].type == JOURNAL_RENAME)
				ok = gone(at, root, r[i].f[r[i].type == JOURNAL_TEMP ? 0 : 2]) && ok;
		for (i = n; i-- > 0;)
			if (r[i].type == JOURNAL_DIR)
				if (!beneath_remove_tree(at, r[i].f[0]))
					through_link(root, r[i].f[0]);
	}
	if (ok)
		ok = gone(at, root, JOURNAL_PATH);
	if (ok && !quiet && !done)
		fprintf(stderr, "kunai: %s: undid an interrupted kunai gen (%zu file%s put back)\n", root, back,
		        back == 1 ? "" : "s");
	free(r);
	buf_free(&text);
	close(at);
	return ok;
}
