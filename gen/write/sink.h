/* sink.h: where gen's rendered files go (sink.c): under the build dir,
 * only when their bytes changed, never through a link, all or nothing: a
 * file in a run dir this gen made is written in place (the dir is new), any
 * other to a temporary, and the temporaries are renamed over their files
 * together at the end (sink_commit), each step journaled first. */
#ifndef KUNAI_SINK_H
#define KUNAI_SINK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "manifest.h"
#include "gen/base/util.h"

struct journal;

/* A file written to its temporary, to be renamed over it. */
struct sink_pending {
	size_t rel, tmp;   /* offsets of the NUL-ended paths in names */
	uint64_t hash, ino; /* ino: the temporary's (0: unknown) */
	size_t len;
	bool existed;      /* the file is there now (backed up before the rename) */
	bool remove;       /* rel goes, backed up (a run's stale stamp); tmp is never made */
};

/* Where rendered files go: under root, or nowhere when root is NULL. */
struct sink {
	const char *root; /* NULL: discard */
	const struct manifest *mf; /* what gen wrote last time (shared); its rootfd is root */
	struct journal *jr; /* where each step is recorded first (shared) */
	struct buf mf_out;         /* this sink's lines of the new manifest */
	struct buf path;  /* root/rel of the file at hand, for messages */
	struct buf tmp, shown;
	struct buf dir;   /* the directory of the last file made sure of */
	bool fresh;       /* dir was made by this gen: its files are all new */
	struct buf checked; /* the last dir (relative) found free of links */
	struct sink_pending *pend; /* in the order written */
	size_t n_pend, cap_pend;
	struct buf names;
	/* Whether old, the file at rel now (oldlen bytes), runs what data (len
	 * bytes) does though the bytes differ: an earlier kunai's form of the
	 * same script. It is then rewritten with its mtime kept, so that ninja
	 * reruns nothing for it. NULL: no file is. */
	bool (*same_job)(const char *rel, const char *old, size_t oldlen, const char *data, size_t len);
	/* The name of a run's script (ninja_script_name): when one changes,
	 * its dir's kunai.stamp and kunai.started go at sink_commit, so that
	 * ninja runs it again (the run edge does not name the script). NULL:
	 * none. */
	const char *script;
	bool ok;
};

/* A file written as it is made (kunai.json, build.ninja, report.ninja:
 * tens of megabytes at 100,000 runs, which gen does not hold whole): its
 * writer appends to buf, which passes its whole lines on whenever it
 * fills. A file that exists is compared as the text comes, and its
 * temporary (renamed at sink_commit, as sink_emit's are) is written only
 * from the first difference, with the bytes before it copied from the
 * file; a new file goes to its temporary from the start. */
struct sink_stream {
	struct buf buf; /* first: its drain finds the stream from it */
	struct sink *s;
	char *rel;
	struct buf path, tmp; /* root/rel for messages; the temporary (rel) */
	int old_fd;           /* the file there now, while the text matches it; -1: none */
	int tmp_fd;           /* the temporary once made; -1: none */
	uint64_t off;         /* bytes passed on */
	struct manifest_hasher hash;
	char *scratch;        /* for reading the file there now */
	bool existed, ok;
};

/* Starts root/rel (rel not in a run dir: at the build dir's top); the
 * writer appends to f->buf. A failure makes s->ok false after reporting,
 * and the text is dropped. */
void sink_stream_begin(struct sink *s, struct sink_stream *f, const char *rel);
/* Passes the rest on and gives the file to the sink: unchanged (recorded
 * in the manifest), or a temporary to rename at sink_commit. The sink must
 * be the one f began with, and in the same thread. Frees f. */
void sink_stream_end(struct sink_stream *f);
/* Frees f, its temporary (if any) left for the journal to remove. */
void sink_stream_free(struct sink_stream *f);

/* Writes content as root/rel when it changed (to a temporary, over an
 * existing file), records it in the manifest and empties content for the
 * next file; s->ok false after reporting a failure. */
void sink_emit(struct sink *s, const char *rel, struct buf *content);
/* Appends what the sink from has written (a thread's share) to s, and
 * empties from. */
void sink_join(struct sink *s, struct sink *from);
/* Journals every rename, then renames every temporary over its file (each
 * old file linked to a backup first; a stale stamp is linked and removed),
 * then writes the new manifest (this sink's lines, with the stats of the
 * files as renamed), then removes the backups and the journal. Returns
 * false after reporting: the journal then undoes it all. */
bool sink_commit(struct sink *s);
void sink_free(struct sink *s);

#endif
