/* util.h: memory, strings, buffers, diagnostics and atomic file output
 * (util.c); the arena and growing arrays (arena.c). */
#ifndef KUNAI_UTIL_H
#define KUNAI_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#define LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Counted, immutable text; not necessarily NUL-terminated. */
struct str {
	const char *s;
	size_t len;
};

/* Growable byte buffer, always NUL-terminated once non-empty. A buffer
 * with a drain (a file streamed out as it is written: sink_stream) calls it
 * whenever it would grow; the drain takes whole lines off the front
 * (buf_drop), so its writer only appends, and may still edit the line it is
 * on. */
struct buf {
	char *data;
	size_t len, cap;
	void (*drain)(struct buf *b);
};

/* Bump allocator; everything is freed at once by arena_free. */
struct arena {
	struct arena_block *head;
	size_t total;
};

/* Die with "kunai: out of memory" on failure. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
/* arena_reserve for a malloc'd array (p NULL or from xmalloc/xreserve). */
void *xreserve(void *p, size_t need, size_t *cap, size_t sz);
char *xstrdup(const char *s);

/* Never returns NULL; memory is zeroed. */
void *arena_alloc(struct arena *a, size_t n);
/* Returns a NUL-terminated copy in the arena. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
/* Grows an arena array from old_n to new_n elements of size sz (copying):
 * for a one-time size; an array that grows as it is filled uses
 * arena_reserve, or its memory is quadratic in its length. */
void *arena_grow(struct arena *a, void *p, size_t old_n, size_t new_n, size_t sz);
/* Returns p, an arena array of n elements of sz bytes in use and room for
 * *cap, with room for at least need: when need > *cap, a copy with the room
 * doubled (at least need, at least 8), and *cap updated. The old array stays
 * in the arena, so the total stays within twice the final size. */
void *arena_reserve(struct arena *a, void *p, size_t n, size_t need, size_t *cap, size_t sz);
void arena_free(struct arena *a);
/* Returns the formatted text, copied into the arena. */
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Strings that many records share (metric names, units, nodes, a test's
 * arguments), held once: open addressing over the arena's copies. */
struct strtab {
	const char **slot;
	size_t cap, n;
};
/* Returns s's copy in t, made in a if s is new (a NULL: s itself, when
 * rehashing); NULL for a NULL s. Never fails (dies on out of memory). */
const char *strtab_intern(struct arena *a, struct strtab *t, const char *s);
/* Frees t's slots (the strings are the arena's). */
void strtab_free(struct strtab *t);

void buf_push(struct buf *b, const void *p, size_t n);
void buf_putc(struct buf *b, int c);
void buf_puts(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
/* Returns the NUL-terminated contents ("" when empty). */
const char *buf_str(struct buf *b);
/* Removes the first n bytes (at most len). */
void buf_drop(struct buf *b, size_t n);
void buf_free(struct buf *b);

bool str_eq(struct str a, const char *b);
struct str str_from(const char *s);

/* "kunai: msg" on stderr; a trailing ':' in fmt appends strerror(errno). */
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* $name as a whole number from min to max: *out when set and valid (and
 * def when unset or empty); a value that is not one dies with "kunai:
 * NAME='VALUE' is not a whole number from MIN to MAX" (exit 1): a setting
 * is never silently ignored. */
long long env_number(const char *name, long long min, long long max, long long def);
/* $name as one of the NULL-ended words (def when unset or empty); any
 * other value dies naming the words. */
const char *env_word(const char *name, const char *const *words, const char *def);
/* "path:line:col: error: msg" on stderr. */
void error_at(const char *path, int line, int col, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Opens path (under dirfd: AT_FDCWD, or a dir's fd) for reading only when
 * it is a regular file, with more open flags (O_NOFOLLOW): a FIFO, device,
 * socket or dir planted there is refused (-1, errno EINVAL or EISDIR), and
 * a FIFO never hangs the open (O_NONBLOCK, cleared again). */
int file_open_regular(int dirfd, const char *path, int flags);
/* Reads a whole file (path "-" is stdin); returns false after reporting. */
bool read_file(const char *path, struct buf *out);
/* As read_file, but refuses (reporting "larger than max bytes, the limit
 * for what") a file longer than max bytes; 0: no limit. */
bool read_file_max(const char *path, struct buf *out, size_t max, const char *what);
/* Writes via path.tmp + rename, creating missing parent directories; leaves
 * an identical file untouched. Returns false after reporting. */
bool write_file_atomic(const char *path, const void *data, size_t len);
struct stat;
/* write_file_atomic (through a unique O_EXCL|O_NOFOLLOW temporary; a
 * symbolic link at path is an error naming it, never written through),
 * and *st (if not NULL) gets the stat of the file written, st_size -1 if
 * none. */
bool write_file_atomic_st(const char *path, const void *data, size_t len, struct stat *st);
/* Creates rel under the directory dirfd (AT_FDCWD: the working dir; path
 * names it in messages), a file known not to exist (its directory was just
 * made): no temporary, no comparison; write_file_atomic when it exists
 * after all. A failed write removes it. *st (if not NULL) gets the file's
 * stat, st_size -1 if none. */
bool write_file_new_at(int dirfd, const char *rel, const char *path, const void *data, size_t len,
                       struct stat *st);
/* Creates rel under dirfd (path names it in messages) with data, never
 * through a link and never over a file that exists (an error then too);
 * *st (if not NULL) gets the stat of the written descriptor, st_size -1 if
 * none. A failed write removes it. Returns false after reporting. */
bool write_file_excl_at(int dirfd, const char *rel, const char *path, const void *data, size_t len,
                        struct stat *st);
/* write_file_atomic_st of path, which is rel under the directory dirfd,
 * when rel is believed absent: written as an unnamed file in dirfd
 * (O_TMPFILE) and linked as rel when complete, so that a crash leaves no
 * partial file and no temporary, and the directory changes once (a
 * temporary and a rename change it twice). Where the kernel or the file
 * system refuses that, or rel exists after all: write_file_atomic_st.
 * Returns false after reporting. */
bool write_file_fresh_at(int dirfd, const char *rel, const char *path, const void *data, size_t len,
                         struct stat *st);
/* Writes all of data to fd; false with errno set when it could not. */
bool file_write_all(int fd, const void *data, size_t len);
/* Whether rel under dirfd (not a link) holds exactly these bytes; *st (if
 * not NULL) gets the stat of the file it read. */
bool file_same_at(int dirfd, const char *rel, const void *data, size_t len, struct stat *st);
/* A file written piece by piece with write_file_atomic's promises: the
 * bytes appended to b go out at each file_out_flush (all: whatever b holds;
 * else only once it holds 64 KiB) and are compared with the file already
 * there until they differ; only then is a temporary written (the matching
 * part copied), renamed over path at file_out_close. An identical file is
 * never touched. */
struct file_out {
	char *path;
	struct buf b, tmp;
	int old, fd; /* the file at path while it matches; the temporary */
	long long same; /* bytes equal to the old file so far */
	bool failed;
};
/* Returns false after reporting (a link at path, no temporary). */
bool file_out_open(struct file_out *o, const char *path);
void file_out_flush(struct file_out *o, bool all);
/* Returns false after reporting a failed write; frees o either way. */
bool file_out_close(struct file_out *o);
/* Appends to tmp a name beside path that no other writer uses (this
 * process's id and a counter), ending in .suffix. */
void file_temp_name(struct buf *tmp, const char *path, const char *suffix);
/* Makes dir and any missing parent; *made tells whether dir is new (so
 * every file in it is new too). Returns false after reporting. */
bool make_dir(const char *dir, bool *made);
/* make_dir of rel under dirfd (dir is the same directory by its path). */
bool make_dir_at(int dirfd, const char *rel, const char *dir, bool *made);
/* Removes rel under dirfd: a file, or a directory with all it holds (not
 * following links); best effort, reports nothing. */
void remove_tree_at(int dirfd, const char *rel);
/* dir/name in a: dir "." gives name alone, and dir's trailing slashes go. */
char *path_join(struct arena *a, const char *dir, const char *name);

/* The directory holding rules/ and conf/: $KUNAI_DATADIR, else the source
 * tree the binary was built in (binary at its top), else the installed one
 * ($(PREFIX)/share/kunai). May use out; never NULL. */
const char *kunai_datadir(struct buf *out);

/* A fast 64-bit hash of n bytes (not cryptographic): the manifest's
 * content check and a run's script identity. */
unsigned long long util_hash(const void *p, size_t n);
/* util_hash as 16 hex digits and a NUL into out. */
void util_hash_hex(const void *p, size_t n, char out[17]);

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (Howard Hinnant's days_from_civil; timegm is not POSIX). */
/* Writes "%.{prec}g" of d (prec 1 to 15) into out[24] without printf
 * where that text is a plain decimal (as most measurements are); false,
 * out untouched or not, where it cannot tell: then printf must. */
bool util_decimal_text(double d, int prec, char *out);
/* Writes the finite double d as Python's repr() does (the shortest text
 * that reads back as d; 200.0, 0.8, 1e+16, 1e-05) into out[n], n >= 32. */
void util_float_repr(char *out, size_t n, double d);
/* Parses a size in bytes: a number followed by nothing or B (bytes), or
 * by K, M, G, T, P or E, alone as nccl-tests writes them ("1G") or with
 * iB ("1GiB", "1.5MiB"); every unit is a power of 1024. Returns false
 * when s is not such a size. */
bool util_parse_size(const char *s, double *bytes);
long util_days_from_civil(long y, long m, long d);
/* d truncated to an int (a long), or dflt when d is NaN or outside the
 * type's range: converting such a double is undefined behaviour, and
 * numbers read back from summary.json or an archive can be anything. */
/* Reads 1 to 9 decimal digits at *s and moves *s past them; returns -1
 * (leaving *s) when there are none or more than 9 (no overflow). */
long util_digits(const char **s);
int util_to_int(double d, int dflt);
long util_to_long(double d, long dflt);

#endif
