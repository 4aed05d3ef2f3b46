/* journal.h: all or nothing for `kunai gen` (journal.c). BUILD/.kunai/journal
 * records each step before gen takes it: a directory it makes, a temporary
 * it writes, and, once every temporary is written, every rename with the
 * backup (a hard link) of the file it replaces. A gen that fails undoes
 * itself from it; one that was killed is undone by the next kunai command,
 * under the build dir's exclusive lock, before anything else (lock.c). */
#ifndef KUNAI_JOURNAL_H
#define KUNAI_JOURNAL_H

#include <stdbool.h>

#include "util.h"

/* Record types. */
enum {
	JOURNAL_DIR = 'D',    /* a directory this gen made: it goes, with all it holds */
	JOURNAL_TEMP = 'T',   /* a temporary this gen writes: it goes */
	JOURNAL_RENAME = 'R', /* a rename of a temporary over a file (backed up first) */
	JOURNAL_COMMIT = 'C', /* every rename is listed: the renames begin */
	JOURNAL_DONE = 'F',   /* every rename is done: the backups go */
};

struct journal {
	int fd;     /* -1: none open */
	int rootfd; /* the build dir */
	const char *root;
};

/* Creates root/.kunai/journal (rootfd: root, open), which must not exist.
 * Returns false after reporting. */
bool journal_begin(struct journal *j, int rootfd, const char *root);
/* Records a JOURNAL_DIR or JOURNAL_TEMP rel before it is made: one write,
 * so threads may share j. Returns false after reporting. */
bool journal_note(struct journal *j, int type, const char *rel);
/* Appends to rec the record of a rename of tmp over rel; existed: rel is
 * there now (and is linked to bak before the rename). */
void journal_rename(struct buf *rec, bool existed, const char *rel, const char *tmp, const char *bak);
/* Appends the record of type (JOURNAL_COMMIT, JOURNAL_DONE) to rec. */
void journal_mark(struct buf *rec, int type);
/* Writes rec to the journal (and syncs it to disk when sync). Returns
 * false after reporting. */
bool journal_write(struct journal *j, const struct buf *rec, bool sync);
/* Closes the journal and removes it: gen is complete. */
void journal_end(struct journal *j);
/* Closes the journal, leaving it for journal_recover. */
void journal_close(struct journal *j);

/* Whether root/.kunai/journal exists: a gen runs, or was interrupted. */
bool journal_pending(const char *root);
/* Puts root back as it was before the gen that left root/.kunai/journal
 * (or, when that gen had done its last rename, removes what it left to
 * remove), then removes the journal; says so on stderr unless quiet.
 * The caller holds root's lock exclusively. Returns false after
 * reporting; the journal then stays for the next try. */
bool journal_recover(const char *root, bool quiet);

#endif
