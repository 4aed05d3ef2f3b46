/* beneath.h: the one way to touch a path below a build dir (beneath.c).
 * Each call resolves rel from the build dir's own descriptor, one
 * component at a time, never through a symbolic link and never above it
 * (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where the kernel has
 * it, else openat with O_NOFOLLOW|O_DIRECTORY per component). A link, an
 * absolute rel or a ".." fails with ELOOP/EXDEV; the last component itself
 * is never followed either (a link there is unlinked or renamed as the
 * link it is, and opened never). */
#ifndef KUNAI_BENEATH_H
#define KUNAI_BENEATH_H

#include <stdbool.h>
#include <sys/types.h>

struct stat;

/* The directory holding rel's last component, opened below rootfd; *leaf
 * points at that component in rel. -1 with errno set. */
int beneath_parent(int rootfd, const char *rel, const char **leaf);
/* openat(2) of rel below rootfd (O_NOFOLLOW and O_CLOEXEC added). -1 with
 * errno set. */
int beneath_open(int rootfd, const char *rel, int flags, mode_t mode);
/* unlinkat(2) of rel below rootfd (flags: 0 or AT_REMOVEDIR). -1 with
 * errno set. */
int beneath_unlink(int rootfd, const char *rel, int flags);
/* renameat(2) of from to to, both below rootfd. -1 with errno set. */
int beneath_rename(int rootfd, const char *from, const char *to);
/* fstatat(2) of rel below rootfd, the last component not followed. -1
 * with errno set. */
int beneath_stat(int rootfd, const char *rel, struct stat *st);
/* Removes rel below rootfd and all it holds, never leaving the tree
 * through a link; a missing rel is fine. False with errno set when rel
 * could not be reached. */
bool beneath_remove_tree(int rootfd, const char *rel);

/* The directory rel below root, opened never through a link (rel is no
 * absolute path, holds no ".."; "" is root): its descriptor; -1 (errno
 * set) where it cannot be opened otherwise (it does not exist, say); -2
 * after reporting where it is a link, crosses one or is no directory, or
 * root cannot be opened. */
int beneath_dir(const char *root, const char *rel);
/* Whether each of rels (NULL-ended) that exists below root is a real
 * directory reached through no link; the first that is not is reported
 * ("ROOT/REL is a symbolic link; kunai does not write through links").
 * For the directories a command writes in, checked under the lock before
 * it writes. */
bool beneath_dirs_ok(const char *root, const char *const *rels);

#endif
