/* sink.c: where gen's rendered files go (sink.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sink.h"
#include "manifest.h"
#include "gen/base/journal.h"
#include "gen/base/util.h"

/* Refuses a symbolic link among the directories of rel (relative to the
 * open build dir at) that it does not share with the last dir checked:
 * a planted link must never take a run's files outside. *missing gets the
 * length of rel's first prefix that is not there (nothing below it is,
 * and sink_dir makes them), 0 when rel is all there. */
static bool
sink_nolinks(struct sink *s, int at, const char *rel, size_t *missing)
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
	*missing = 0;
	for (i = common + 1; ok && i <= n; i++) {
		if (i < n && rel[i] != '/')
			continue;
		p.len = 0;
		buf_push(&p, rel, i);
		if (fstatat(at, p.data, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			/* (not ENOENT: making it says why) */
			*missing = i;
			break;
		}
		if (S_ISLNK(st.st_mode)) {
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

/* Makes the directories of rel under at from its first missing prefix
 * (sink_nolinks found it; 0: rel is there, and a file there says so when
 * it is written in). The topmost one is journaled before it is made (all
 * below it is new, and goes with it). Returns false after reporting. */
static bool
sink_dir(struct sink *s, int at, const char *rel, size_t missing)
{
	struct buf p = {0};
	char *c;
	bool ok = true;

	s->fresh = false;
	if (!missing)
		return true;
	buf_puts(&p, rel);
	buf_putc(&p, '/');
	for (c = p.data + missing; ok && c; c = strchr(c + 1, '/')) {
		struct stat st;
		*c = '\0';
		if (!s->fresh && !journal_note(s->jr, JOURNAL_DIR, p.data)) {
			ok = false;
		} else if (mkdirat(at, p.data, 0777) == 0) {
			s->fresh = true;
		} else if (errno == EEXIST && fstatat(at, p.data, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		           S_ISDIR(st.st_mode)) {
			/* made meanwhile by another thread of this gen (a parent
			 * their run dirs share), which journaled it: used as it
			 * is, and what goes below it is journaled again */
			s->fresh = false;
		} else {
			warn("mkdir %s/%s:", s->root, p.data);
			ok = false;
		}
		*c = '/';
	}
	buf_free(&p);
	return ok;
}

/* Lists the temporary tmp, written with len bytes of this hash (st: its
 * stat, st_size -1 if none), to be renamed over rel at sink_commit. */
static void
sink_pend(struct sink *s, const char *rel, const char *tmp, uint64_t hash, size_t len, const struct stat *st,
          bool existed)
{
	struct sink_pending *p;

	s->pend = xreserve(s->pend, s->n_pend + 1, &s->cap_pend, sizeof(*s->pend));
	p = &s->pend[s->n_pend++];
	p->rel = s->names.len;
	buf_push(&s->names, rel, strlen(rel) + 1);
	p->tmp = s->names.len;
	buf_push(&s->names, tmp, strlen(tmp) + 1);
	p->hash = hash;
	p->len = len;
	p->ino = st->st_size >= 0 ? (uint64_t)st->st_ino : 0;
	p->existed = existed;
	p->remove = false;
}

/* A run's results that its script changed under: its dir's kunai.stamp
 * and kunai.started, where they are (a file or a link, never followed), to
 * go at sink_commit. The temporary named for each is never made; the
 * journal's record of the rename undoes the removal from the backup. */
static void
sink_stale(struct sink *s, int at, const char *rel)
{
	static const char *const results[] = {"kunai.stamp", "kunai.started"};
	const char *slash = strrchr(rel, '/'), *base = slash ? slash + 1 : rel;
	struct buf r = {0}, tmp = {0};
	struct stat st;
	size_t i;

	if (!s->script || !slash || strcmp(base, s->script) != 0)
		return;
	for (i = 0; i < sizeof(results) / sizeof(*results); i++) {
		r.len = tmp.len = 0;
		buf_push(&r, rel, (size_t)(slash + 1 - rel));
		buf_puts(&r, results[i]);
		if (fstatat(at, r.data, &st, AT_SYMLINK_NOFOLLOW) != 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
			continue;
		file_temp_name(&tmp, r.data, "tmp");
		st.st_size = -1; /* no inode of gen's to record */
		sink_pend(s, r.data, tmp.data, 0, 0, &st, true);
		s->pend[s->n_pend - 1].remove = true;
	}
	buf_free(&r);
	buf_free(&tmp);
}

enum { SAME_JOB_MAX = 1 << 22 }; /* a script past 4 MiB is compared as bytes only */

/* Whether the file at rel, whose stat is *st, runs what data does
 * (s->same_job), read through no link. */
static bool
sink_same_job(struct sink *s, int at, const char *rel, const struct stat *st, const char *data, size_t len)
{
	size_t size = (size_t)st->st_size, got = 0;
	char *old;
	ssize_t n = 0;
	bool same = false;
	int fd;

	if (!s->same_job || !S_ISREG(st->st_mode) || st->st_size > SAME_JOB_MAX)
		return false;
	fd = file_open_regular(at, rel, O_NOFOLLOW);
	if (fd < 0)
		return false;
	old = xmalloc(size + 1);
	/* one byte more than stat said tells a file that grew meanwhile */
	while (got <= size && ((n = read(fd, old + got, size + 1 - got)) > 0 || (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	if (n == 0 && got == size)
		same = s->same_job(rel, old, size, data, len);
	close(fd);
	free(old);
	return same;
}

/* Writes data for rel (not in a dir this gen made) to a temporary of its
 * own, unless rel holds these bytes already; a file that runs the same
 * job (sink_same_job) gives the temporary its times. Returns false after
 * reporting. */
static bool
sink_stage(struct sink *s, int at, const char *rel, uint64_t hash, const char *data, size_t len)
{
	struct stat st, was;
	bool existed = false, keep = false;

	if (fstatat(at, rel, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISLNK(st.st_mode)) {
			warn("%s is a symbolic link; kunai does not write through links (remove it)", s->path.data);
			return false;
		}
		existed = true;
		if (file_same_at(at, rel, data, len, &st)) {
			manifest_record(s->mf, &s->mf_out, rel, s->path.data, hash, len, &st);
			return true;
		}
		was = st;
		keep = sink_same_job(s, at, rel, &was, data, len);
	} else if (errno != ENOENT) {
		warn("stat %s:", s->path.data);
		return false;
	}
	s->tmp.len = 0;
	file_temp_name(&s->tmp, rel, "tmp");
	s->shown.len = 0;
	buf_printf(&s->shown, "%s/%s", s->root, s->tmp.data);
	if (!journal_note(s->jr, JOURNAL_TEMP, s->tmp.data) ||
	    !write_file_excl_at(at, s->tmp.data, s->shown.data, data, len, &st))
		return false;
	if (keep) {
		struct timespec t[2] = {was.st_atim, was.st_mtim};

		if (utimensat(at, s->tmp.data, t, AT_SYMLINK_NOFOLLOW) != 0 ||
		    fstatat(at, s->tmp.data, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			warn("utimensat %s:", s->shown.data);
			return false;
		}
	}
	sink_pend(s, rel, s->tmp.data, hash, len, &st, existed);
	/* a script made anew or changed: its run's results are not its (the
	 * same job, an earlier form of its script, keeps them) */
	if (!keep)
		sink_stale(s, at, rel);
	return true;
}

/* Writes content as root/rel when it changed and empties content for the
 * next file. A file the manifest vouches for costs one stat; a run's files
 * come together, so its directory is made sure of once, and a new one
 * needs no reads and no temporaries. */
void
sink_emit(struct sink *s, const char *rel, struct buf *content)
{
	const char *slash = strrchr(rel, '/');
	size_t dlen = slash ? (size_t)(slash - rel) : 0, len = content->len, missing;
	const char *data = content->data ? content->data : "";
	int at = s->mf ? s->mf->rootfd : -1;
	uint64_t hash;
	struct stat st;

	content->len = 0;
	if (!s->root || !s->ok)
		return;
	hash = manifest_hash(data, len);
	if (manifest_unchanged(s->mf, &s->mf_out, rel, hash, len))
		return;
	s->path.len = 0;
	/* (printf costs more than the path: this runs twice per run) */
	buf_puts(&s->path, s->root);
	buf_putc(&s->path, '/');
	buf_puts(&s->path, rel);
	if (!slash) {
		s->fresh = false;
	} else if (s->dir.len != dlen || memcmp(s->dir.data, rel, dlen) != 0) {
		s->dir.len = 0;
		buf_push(&s->dir, rel, dlen);
		if (!sink_nolinks(s, at, s->dir.data, &missing) || !sink_dir(s, at, s->dir.data, missing)) {
			s->ok = false;
			return;
		}
	}
	if (s->fresh) {
		s->ok = write_file_new_at(at, rel, s->path.data, data, len, &st);
		if (s->ok)
			manifest_record(s->mf, &s->mf_out, rel, s->path.data, hash, len, &st);
	} else {
		s->ok = sink_stage(s, at, rel, hash, data, len);
	}
}

enum { STREAM_CHUNK = 1 << 18 };

/* Makes f's temporary and copies into it the first f->off bytes of the
 * file there now (all of which matched). */
static bool
stream_diverge(struct sink_stream *f)
{
	struct sink *s = f->s;
	uint64_t done = 0;
	ssize_t n;
	size_t want;

	file_temp_name(&f->tmp, f->rel, "tmp");
	if (!journal_note(s->jr, JOURNAL_TEMP, f->tmp.data))
		return false;
	f->tmp_fd = openat(s->mf->rootfd, f->tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (f->tmp_fd < 0) {
		warn("open %s/%s:", s->root, f->tmp.data);
		return false;
	}
	while (done < f->off) {
		want = f->off - done < STREAM_CHUNK ? (size_t)(f->off - done) : STREAM_CHUNK;
		n = pread(f->old_fd, f->scratch, want, (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			warn("read %s:", f->path.data);
			return false;
		}
		if (!file_write_all(f->tmp_fd, f->scratch, (size_t)n)) {
			warn("write %s/%s:", s->root, f->tmp.data);
			return false;
		}
		done += (uint64_t)n;
	}
	if (f->old_fd >= 0)
		close(f->old_fd);
	f->old_fd = -1;
	return true;
}

/* Whether the file there now holds p (n bytes) at f->off. */
static bool
stream_matches(struct sink_stream *f, const char *p, size_t n)
{
	uint64_t at = f->off;
	size_t want;
	ssize_t got;

	while (n) {
		want = n < STREAM_CHUNK ? n : STREAM_CHUNK;
		got = pread(f->old_fd, f->scratch, want, (off_t)at);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || memcmp(f->scratch, p, (size_t)got) != 0)
			return false;
		p += got;
		n -= (size_t)got;
		at += (uint64_t)got;
	}
	return true;
}

/* A failure, reported: the rest of the text is dropped and gen undoes
 * what it did. (The sink is not another thread's.) */
static void
stream_fail(struct sink_stream *f)
{
	f->ok = false;
	f->s->ok = false;
}

/* Passes n bytes of the file on: compared with the file there now while
 * it matches, else written to the temporary. */
static void
stream_out(struct sink_stream *f, const char *p, size_t n)
{
	if (!f->ok || !n)
		return;
	manifest_hash_add(&f->hash, p, n);
	if (f->old_fd >= 0 && !stream_matches(f, p, n) && !stream_diverge(f))
		stream_fail(f);
	if (f->ok && f->tmp_fd >= 0 && !file_write_all(f->tmp_fd, p, n)) {
		warn("write %s/%s:", f->s->root, f->tmp.data);
		stream_fail(f);
	}
	f->off += n;
}

/* buf's drain: passes on its whole lines (a line longer than the buffer
 * makes it grow instead). */
static void
stream_drain(struct buf *b)
{
	struct sink_stream *f = (struct sink_stream *)b;
	size_t n = b->len;

	while (n && b->data[n - 1] != '\n')
		n--;
	stream_out(f, b->data, n);
	buf_drop(b, n);
}

void
sink_stream_begin(struct sink *s, struct sink_stream *f, const char *rel)
{
	int at = s->mf ? s->mf->rootfd : -1;
	struct stat st;

	memset(f, 0, sizeof(*f));
	f->s = s;
	f->rel = xstrdup(rel);
	f->old_fd = f->tmp_fd = -1;
	f->ok = s->ok && s->root;
	f->buf.drain = stream_drain;
	f->buf.data = xmalloc(STREAM_CHUNK);
	f->buf.data[0] = '\0';
	f->buf.cap = STREAM_CHUNK;
	f->scratch = xmalloc(STREAM_CHUNK);
	manifest_hash_init(&f->hash);
	if (!f->ok)
		return;
	buf_printf(&f->path, "%s/%s", s->root, rel);
	if (fstatat(at, rel, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		f->existed = true;
		if (S_ISLNK(st.st_mode)) {
			warn("%s is a symbolic link; kunai does not write through links (remove it)", f->path.data);
			stream_fail(f);
			return;
		}
		/* (anything but a file: the rename over it says so) */
		if (S_ISREG(st.st_mode))
			f->old_fd = file_open_regular(at, rel, O_NOFOLLOW);
	} else if (errno != ENOENT) {
		warn("stat %s:", f->path.data);
		stream_fail(f);
		return;
	}
	if (f->old_fd < 0 && !stream_diverge(f))
		stream_fail(f);
}

void
sink_stream_end(struct sink_stream *f)
{
	struct sink *s = f->s;
	struct stat st;

	stream_out(f, f->buf.data, f->buf.len);
	f->buf.len = 0;
	/* a file there now that is longer than the text: a difference too */
	if (f->ok && f->old_fd >= 0 && (fstat(f->old_fd, &st) != 0 || (uint64_t)st.st_size != f->off) &&
	    !stream_diverge(f))
		stream_fail(f);
	if (f->ok && f->old_fd >= 0)
		manifest_record(s->mf, &s->mf_out, f->rel, f->path.data, manifest_hash_end(&f->hash), f->off, &st);
	if (f->ok && f->tmp_fd >= 0) {
		if (fstat(f->tmp_fd, &st) != 0 || (uint64_t)st.st_size != f->off)
			st.st_size = -1;
		if (close(f->tmp_fd) != 0) {
			warn("write %s/%s:", s->root, f->tmp.data);
			stream_fail(f);
		}
		f->tmp_fd = -1;
		if (f->ok)
			sink_pend(s, f->rel, f->tmp.data, manifest_hash_end(&f->hash), f->off, &st, f->existed);
	}
	sink_stream_free(f);
}

void
sink_stream_free(struct sink_stream *f)
{
	if (f->old_fd >= 0)
		close(f->old_fd);
	if (f->tmp_fd >= 0)
		close(f->tmp_fd);
	f->old_fd = f->tmp_fd = -1;
	free(f->rel);
	free(f->scratch);
	f->rel = f->scratch = NULL;
	f->buf.drain = NULL;
	buf_free(&f->buf);
	buf_free(&f->path);
	buf_free(&f->tmp);
}

void
sink_join(struct sink *s, struct sink *from)
{
	size_t i, base = s->names.len;
	struct buf t;

	/* the first share's lines are taken over, not copied: at 100,000
	 * runs they are megabytes */
	if (!s->mf_out.len) {
		t = s->mf_out;
		s->mf_out = from->mf_out;
		from->mf_out = t;
	} else {
		buf_push(&s->mf_out, from->mf_out.data, from->mf_out.len);
	}
	buf_push(&s->names, from->names.data, from->names.len);
	s->pend = xreserve(s->pend, s->n_pend + from->n_pend, &s->cap_pend, sizeof(*s->pend));
	for (i = 0; i < from->n_pend; i++) {
		s->pend[s->n_pend] = from->pend[i];
		s->pend[s->n_pend].rel += base;
		s->pend[s->n_pend].tmp += base;
		s->n_pend++;
	}
	s->ok = s->ok && from->ok;
	sink_free(from);
}

#define MANIFEST ".kunai/manifest"

bool
sink_commit(struct sink *s)
{
	const char *mdata = s->mf_out.data ? s->mf_out.data : "";
	int at = s->mf->rootfd;
	struct buf rec = {0}, baks = {0}, shown = {0};
	size_t *bak = xcalloc(s->n_pend + 1, sizeof(*bak)), i, mtmp;
	struct stat st;
	bool ok = false, mexisted;

	if (!s->ok)
		goto out;
	mexisted = fstatat(at, MANIFEST, &st, AT_SYMLINK_NOFOLLOW) == 0;
	if (!s->n_pend && mexisted && file_same_at(at, MANIFEST, mdata, s->mf_out.len, NULL)) {
		ok = true;
		goto end;
	}
	/* every rename, with the backup of the file it replaces, listed and on
	 * disk before the first */
	for (i = 0; i <= s->n_pend; i++) {
		const char *rel = i < s->n_pend ? s->names.data + s->pend[i].rel : MANIFEST;
		bak[i] = baks.len;
		file_temp_name(&baks, rel, "old");
		buf_push(&baks, "", 1);
	}
	mtmp = baks.len;
	file_temp_name(&baks, MANIFEST, "tmp");
	for (i = 0; i < s->n_pend; i++)
		journal_rename(&rec, s->pend[i].existed, s->names.data + s->pend[i].rel,
		               s->names.data + s->pend[i].tmp, baks.data + bak[i]);
	journal_rename(&rec, mexisted, MANIFEST, baks.data + mtmp, baks.data + bak[s->n_pend]);
	journal_mark(&rec, JOURNAL_COMMIT);
	if (!journal_write(s->jr, &rec, true))
		goto out;
	for (i = 0; i < s->n_pend; i++) {
		const struct sink_pending *p = &s->pend[i];
		const char *rel = s->names.data + p->rel;

		if (p->existed && linkat(at, rel, at, baks.data + bak[i], 0) != 0) {
			/* a stale stamp that is gone already: nothing to remove */
			if (p->remove && errno == ENOENT)
				continue;
			warn("link %s/%s:", s->root, rel);
			goto out;
		}
		if (p->remove) {
			if (unlinkat(at, rel, 0) != 0 && errno != ENOENT) {
				warn("remove %s/%s:", s->root, rel);
				goto out;
			}
			continue;
		}
		if (renameat(at, s->names.data + p->tmp, at, rel) != 0) {
			warn("rename %s/%s:", s->root, rel);
			goto out;
		}
		/* the stat of the file this gen wrote (its inode), as renamed */
		if (p->ino && fstatat(at, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && (uint64_t)st.st_ino == p->ino)
			manifest_record(s->mf, &s->mf_out, rel, NULL, p->hash, p->len, &st);
	}
	mdata = s->mf_out.data ? s->mf_out.data : "";
	if (!mexisted || !file_same_at(at, MANIFEST, mdata, s->mf_out.len, NULL)) {
		buf_printf(&shown, "%s/%s", s->root, baks.data + mtmp);
		if (mexisted && linkat(at, MANIFEST, at, baks.data + bak[s->n_pend], 0) != 0) {
			warn("link %s/%s:", s->root, MANIFEST);
			goto out;
		}
		if (!write_file_excl_at(at, baks.data + mtmp, shown.data, mdata, s->mf_out.len, NULL))
			goto out;
		if (renameat(at, baks.data + mtmp, at, MANIFEST) != 0) {
			warn("rename %s/%s:", s->root, MANIFEST);
			goto out;
		}
	}
	rec.len = 0;
	journal_mark(&rec, JOURNAL_DONE);
	if (!journal_write(s->jr, &rec, false))
		goto out;
	/* every file is the new one: the backups go, then the journal */
	for (i = 0; i <= s->n_pend; i++)
		unlinkat(at, baks.data + bak[i], 0);
	ok = true;
end:
	journal_end(s->jr);
out:
	buf_free(&rec);
	buf_free(&baks);
	buf_free(&shown);
	free(bak);
	return ok;
}

void
sink_free(struct sink *s)
{
	buf_free(&s->mf_out);
	buf_free(&s->path);
	buf_free(&s->tmp);
	buf_free(&s->shown);
	buf_free(&s->dir);
	buf_free(&s->checked);
	buf_free(&s->names);
	free(s->pend);
	s->pend = NULL;
	s->n_pend = s->cap_pend = 0;
}
