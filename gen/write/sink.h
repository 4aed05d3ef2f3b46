/* sink.h: where gen's rendered files go (sink.c): under the build dir,
 * only when their bytes changed, never through a link; what a failed gen
 * made is removed again. */
#ifndef KUNAI_SINK_H
#define KUNAI_SINK_H

#include <stdbool.h>

#include "manifest.h"
#include "gen/base/util.h"

/* Where rendered files go: under root, or nowhere when root is NULL. */
struct sink {
	const char *root; /* NULL: discard */
	const struct manifest *mf; /* what gen wrote last time (shared) */
	struct buf mf_out;         /* this sink's lines of the new manifest */
	struct buf path;
	struct buf dir;   /* the directory of the last file made sure of */
	bool fresh;       /* dir was made by this gen: its files are all new */
	struct buf made;  /* the topmost dirs this gen made, each NUL-ended: a
	                     failed gen removes them with what it wrote there */
	struct buf checked; /* the last dir (relative) found free of links */
	bool ok;
};

/* Writes content as root/rel (only when it changed; atomically over an
 * existing file), records it in the manifest and empties content for the
 * next file; s->ok false after reporting a failure. */
void sink_emit(struct sink *s, const char *rel, struct buf *content);
/* Removes the dirs a failed gen made (with the files it wrote in them). */
void sink_undo(struct sink *s);

#endif
