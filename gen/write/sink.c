/* sink.c: where gen's rendered files go (sink.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink.h"
#include "manifest.h"
#include "gen/base/util.h"

/* Refuses a symbolic link among the directories of rel (relative to the
 * open build dir at) that it does not share with the last dir checked:
 * a planted link must never take a run's files outside. */
static bool
sink_nolinks(struct sink *s, int at, const char *rel)
{
	const char *prev = s->checked.len ? s->checked.data : "";
	size_t n = strlen(rel), common = 0, i;
	struct buf p = {0};
	struct stat st;
	bool ok = true;

	while (common < n && prev[common] == rel[common])
		common++;
	if (!(rel[common] == '\0' || rel[common] == '/') || !(prev[common] == '\0' || prev[common] == '/'))
		while (common > 0 && rel[common - 1] != '/')
			common--;
	for (i = common + 1; ok && i <= n; i++) {
		if (i < n && rel[i] != '/')
			continue;
		p.len = 0;
		buf_push(&p, rel, i);
		if (fstatat(at, p.data, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)) {
			warn("%s/%s is a symbolic link; kunai does not write through links (remove it)", s->root,
			     p.data);
			ok = false;
		}
	}
	s->checked.len = 0;
	if (ok)
		buf_puts(&s->checked, rel);
	buf_free(&p);
	return ok;
}

/* Makes the directory rel (and its parents) under at, recording in made
 * the topmost one that did not exist. Returns false after reporting. */
static bool
sink_dir(struct sink *s, int at, const char *rel, const char *path)
{
	struct buf p = {0};
	char *c;
	bool ok = true;

	s->fresh = false;
	if (mkdirat(at, rel, 0777) == 0) {
		s->fresh = true;
		buf_push(&s->made, rel, strlen(rel) + 1);
		return true;
	}
	if (errno == EEXIST)
		return true;
	if (errno != ENOENT)
		return warn("mkdir %s:", path), false;
	buf_puts(&p, rel);
	buf_putc(&p, '/');
	for (c = p.data + 1; (c = strchr(c, '/')); c++) {
		*c = '\0';
		if (mkdirat(at, p.data, 0777) == 0) {
			if (!s->fresh)
				buf_push(&s->made, p.data, strlen(p.data) + 1);
			s->fresh = true;
		} else if (errno != EEXIST) {
			warn("mkdir %s:", path);
			ok = false;
			break;
		}
		*c = '/';
	}
	buf_free(&p);
	return ok;
}

/* Removes the dirs a failed gen made (with the files it wrote in them),
 * newest first, so that the build dir is as it was. */
void
sink_undo(struct sink *s)
{
	int at = s->mf && s->mf->rootfd >= 0 ? s->mf->rootfd : AT_FDCWD;
	size_t end = s->made.len, i;

	while (end > 0) {
		for (i = end - 1; i > 0 && s->made.data[i - 1]; i--)
			;
		remove_tree_at(at, s->made.data + i);
		end = i;
	}
}

/* Writes content as root/rel (only when it changed; atomically over an
 * existing file) and empties content for the next file. A file the
 * manifest vouches for costs one stat; a run's files come together, so its
 * directory is made once, and a new one needs no reads. */
void
sink_emit(struct sink *s, const char *rel, struct buf *content)
{
	const char *slash = strrchr(rel, '/');
	size_t dlen = slash ? (size_t)(slash - rel) : 0, len = content->len, rlen;
	const char *data = content->data ? content->data : "";
	/* paths relative to the open build dir (from off in path and dir): no
	 * lookup of its own path */
	int at = s->mf->rootfd >= 0 ? s->mf->rootfd : AT_FDCWD;
	uint64_t hash;
	struct stat st;
	size_t off;

	content->len = 0;
	if (!s->root || !s->ok)
		return;
	hash = manifest_hash(data, len);
	s->path.len = 0;
	/* (printf costs more than the path: this runs twice per run) */
	buf_puts(&s->path, s->root);
	buf_putc(&s->path, '/');
	rlen = s->path.len;
	buf_puts(&s->path, rel);
	off = at == AT_FDCWD ? 0 : rlen;
	if (manifest_unchanged(s->mf, &s->mf_out, rel, hash, len))
		return;
	if (!slash) {
		s->fresh = false;
	} else {
		size_t plen = rlen + dlen;
		if (s->dir.len != plen || memcmp(s->dir.data, s->path.data, plen) != 0) {
			s->dir.len = 0;
			buf_push(&s->dir, s->path.data, plen);
			if ((at != AT_FDCWD && !sink_nolinks(s, at, s->dir.data + off)) ||
			    !sink_dir(s, at, s->dir.data + off, s->dir.data)) {
				s->ok = false;
				return;
			}
		}
	}
	if (s->fresh) {
		s->ok = write_file_new_at(at, s->path.data + off, s->path.data, data, len, &st);
		if (s->ok)
			manifest_record(s->mf, &s->mf_out, rel, s->path.data, hash, len, &st);
	} else {
		s->ok = write_file_atomic_st(s->path.data, data, len, &st);
		if (s->ok)
			manifest_record(s->mf, &s->mf_out, rel, s->path.data, hash, len, &st);
	}
}

