/* manifest.h: what kunai gen wrote into a build dir last time
 * (.kunai/manifest: per file its content hash and its stat), so that
 * regenerating tells an unchanged file by one stat instead of reading it. */
#ifndef KUNAI_MANIFEST_H
#define KUNAI_MANIFEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gen/base/util.h"

struct mf_entry;

struct manifest {
	struct buf text;        /* the old manifest, its paths NUL-terminated in place */
	struct mf_entry *old;   /* its entries */
	size_t n_old;
	size_t *slots;          /* open addressing: index + 1 into old, 0 empty */
	size_t n_slots;         /* a power of two */
	int64_t written_ns;     /* the old manifest's mtime: later stats are not trusted */
	int rootfd;             /* the build dir, for stats relative to it; -1 if none */
};
/* It is only read after manifest_load, so threads that render parts of the
 * campaign share it, each recording the new manifest's lines into a buffer
 * of its own (joined in order; sink_commit writes them). */

/* A 64-bit hash of a file's bytes (not cryptographic: its size must match
 * too), taken in one piece or, for a file written as it is made, piece by
 * piece: init, add..., end give manifest_hash of the pieces joined. */
struct manifest_hasher {
	uint64_t h, len;
	unsigned char tail[8]; /* the bytes of an unfinished word */
	size_t n_tail;
};
void manifest_hash_init(struct manifest_hasher *m);
void manifest_hash_add(struct manifest_hasher *m, const void *p, size_t n);
uint64_t manifest_hash_end(const struct manifest_hasher *m);
uint64_t manifest_hash(const void *p, size_t n);

/* Reads root/.kunai/manifest (a missing or malformed one is empty). */
void manifest_load(struct manifest *m, const char *root);

/* Whether file (rel, in the build dir, at path) holds len bytes of this hash
 * as gen left it: the old manifest says so and its stat is the recorded one
 * (size, mtime, ctime, inode; a stat as new as the old manifest itself is
 * not trusted). Then it is recorded in out (for the new manifest) too. */
bool manifest_unchanged(const struct manifest *m, struct buf *out, const char *rel, uint64_t hash, size_t len);

/* Records a file just written (or found equal by reading it) with its stat:
 * known, when the writer has it (st_size -1: none), else one taken here. */
struct stat;
void manifest_record(const struct manifest *m, struct buf *out, const char *rel, const char *path, uint64_t hash,
                     size_t len, const struct stat *known);

void manifest_free(struct manifest *m);

#endif
