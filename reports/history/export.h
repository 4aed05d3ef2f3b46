/* history/export.h: `kunai export` archives (gzip'd ustar, paths relative to the
 * build dir) and the safe way back in, for every command that reads a
 * build dir's results (report --history and compare take an archive
 * wherever they take a build dir). */
#ifndef KUNAI_EXPORT_H
#define KUNAI_EXPORT_H

#include <stdbool.h>
#include <stddef.h>

/* A build dir opened for reading: dir is where its files are (the
 * directory itself, or a private temp dir an archive was extracted to). */
struct export_src {
	char *dir;
	char *tmp; /* the temp dir to remove; NULL for a directory */
	size_t files; /* regular files extracted (0 for a directory) */
};

/* Opens path, a build dir or an archive of kunai export, so that callers
 * read src->dir like any build dir. An archive is checked and extracted
 * whole before anything is read: it is refused (after reporting "kunai:
 * PATH: why") when it is truncated or corrupt, when an entry is absolute,
 * has a ".." part or is anything but a file or directory (symlinks, hard
 * links, devices), when an entry comes twice, or when it has no
 * kunai.json. File times are kept (report regrades by mtime). Returns
 * false after reporting; then nothing is left behind. */
bool export_open(const char *path, struct export_src *src);

/* Removes what export_open extracted; frees src. */
void export_close(struct export_src *src);

/* `kunai export`: returns the process exit status. */
int cmd_export(int argc, char **argv);

#endif
