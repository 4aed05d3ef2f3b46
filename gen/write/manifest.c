/* manifest.c: .kunai/manifest, one line per file gen wrote:
 *     HASH SIZE MTIME_NS CTIME_NS INODE PATH
 * (hash in hex, the rest in decimal, PATH relative to the build dir and
 * last, so it may hold blanks). It is a cache: a file is trusted unchanged
 * only when its stat is exactly the recorded one and older than the
 * manifest (git's rule for racily clean files); anything else is compared
 * by reading, as without a manifest. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest.h"

struct mf_entry {
	const char *path;
	uint64_t hash, size, ino;
	int64_t mtime_ns, ctime_ns;
};

/* util_hash's mixing, with the length mixed in last instead of first, so
 * that a file streamed out is hashed as it goes. */
static uint64_t
mix(uint64_t h, const unsigned char *s)
{
	uint64_t w;

	memcpy(&w, s, 8);
	h = (h ^ w) * 0xff51afd7ed558ccdu;
	return h ^ h >> 29;
}

void
manifest_hash_init(struct manifest_hasher *m)
{
	m->h = 0x9e3779b97f4a7c15u;
	m->len = 0;
	m->n_tail = 0;
}

void
manifest_hash_add(struct manifest_hasher *m, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t k;

	m->len += n;
	if (m->n_tail) {
		k = 8 - m->n_tail < n ? 8 - m->n_tail : n;
		memcpy(m->tail + m->n_tail, s, k);
		m->n_tail += k;
		s += k;
		n -= k;
		if (m->n_tail < 8)
			return;
		m->h = mix(m->h, m->tail);
		m->n_tail = 0;
	}
	for (; n >= 8; n -= 8, s += 8)
		m->h = mix(m->h, s);
	memcpy(m->tail, s, n);
	m->n_tail = n;
}

uint64_t
manifest_hash_end(const struct manifest_hasher *m)
{
	uint64_t w = 0, h;

	memcpy(&w, m->tail, m->n_tail);
	h = (m->h ^ w ^ m->len) * 0xc4ceb9fe1a85ec53u;
	return h ^ h >> 32;
}

uint64_t
manifest_hash(const void *p, size_t n)
{
	struct manifest_hasher m;

	manifest_hash_init(&m);
	manifest_hash_add(&m, p, n);
	return manifest_hash_end(&m);
}

static uint64_t
path_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325u;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3u;
	return h;
}

static int64_t
ns(struct timespec t)
{
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Parses an unsigned decimal (or hex) field and the blank after it. */
static bool
field(char **s, int base, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(*s, &end, base);
	if (end == *s || *end != ' ' || errno)
		return false;
	*s = end + 1;
	return true;
}

void
manifest_load(struct manifest *m, const char *root)
{
	struct buf path = {0};
	struct stat st;
	char *s, *nl;
	size_t n = 0, i;
	bool ok;

	memset(m, 0, sizeof(*m));
	/* stats relative to the build dir skip the lookup of its own path */
	m->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	buf_printf(&path, "%s/.kunai/manifest", root);
	ok = m->rootfd >= 0 && stat(path.data, &st) == 0 && S_ISREG(st.st_mode);
	if (ok)
		ok = read_file(path.data, &m->text);
	buf_free(&path);
	if (!ok)
		return;
	m->written_ns = ns(st.st_mtim);
	if (!m->text.len)
		return;
	for (s = m->text.data; (s = strchr(s, '\n')); s++)
		n++;
	m->old = xcalloc(n + 1, sizeof(*m->old));
	for (s = m->text.data; (nl = strchr(s, '\n')); s = nl + 1) {
		struct mf_entry *e = &m->old[m->n_old];
		uint64_t mt, ct;

		*nl = '\0';
		if (!field(&s, 16, &e->hash) || !field(&s, 10, &e->size) || !field(&s, 10, &mt) ||
		    !field(&s, 10, &ct) || !field(&s, 10, &e->ino) || !*s)
			continue; /* a malformed line trusts nothing */
		e->mtime_ns = (int64_t)mt;
		e->ctime_ns = (int64_t)ct;
		e->path = s;
		m->n_old++;
	}
	for (m->n_slots = 16; m->n_slots < 2 * m->n_old; m->n_slots *= 2)
		;
	m->slots = xcalloc(m->n_slots, sizeof(*m->slots));
	for (i = 0; i < m->n_old; i++) {
		size_t k = (size_t)path_hash(m->old[i].path) & (m->n_slots - 1);
		while (m->slots[k])
			k = (k + 1) & (m->n_slots - 1);
		m->slots[k] = i + 1;
	}
}

static const struct mf_entry *
find(const struct manifest *m, const char *rel)
{
	size_t k;

	if (!m->n_old)
		return NULL;
	for (k = (size_t)path_hash(rel) & (m->n_slots - 1); m->slots[k]; k = (k + 1) & (m->n_slots - 1))
		if (strcmp(m->old[m->slots[k] - 1].path, rel) == 0)
			return &m->old[m->slots[k] - 1];
	return NULL;
}

/* Appends v in decimal and a blank (printf is a tenth of a big regeneration). */
static void
put_u64(struct buf *b, uint64_t v)
{
	char d[24], *p = d + sizeof(d);

	*--p = ' ';
	do
		*--p = (char)('0' + v % 10);
	while ((v /= 10));
	buf_push(b, p, (size_t)(d + sizeof(d) - p));
}

static void
add(struct buf *out, const char *rel, uint64_t hash, const struct stat *st)
{
	static const char hex[] = "0123456789abcdef";
	char h[17];
	int i;

	for (i = 15; i >= 0; i--, hash >>= 4)
		h[i] = hex[hash & 15];
	h[16] = ' ';
	buf_push(out, h, sizeof(h));
	put_u64(out, (uint64_t)st->st_size);
	put_u64(out, (uint64_t)ns(st->st_mtim));
	put_u64(out, (uint64_t)ns(st->st_ctim));
	put_u64(out, (uint64_t)st->st_ino);
	buf_puts(out, rel);
	buf_putc(out, '\n');
}

bool
manifest_unchanged(const struct manifest *m, struct buf *out, const char *rel, uint64_t hash, size_t len)
{
	const struct mf_entry *e = find(m, rel);
	struct stat st;

	if (!e || e->hash != hash || e->size != len || e->mtime_ns >= m->written_ns ||
	    e->ctime_ns >= m->written_ns)
		return false;
	if (fstatat(m->rootfd, rel, &st, 0) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != e->size ||
	    ns(st.st_mtim) != e->mtime_ns || ns(st.st_ctim) != e->ctime_ns || (uint64_t)st.st_ino != e->ino)
		return false;
	add(out, rel, hash, &st);
	return true;
}

void
manifest_record(const struct manifest *m, struct buf *out, const char *rel, const char *path, uint64_t hash,
                size_t len, const struct stat *known)
{
	struct stat st;

	/* a file that cannot be stat'ed is left out: next time it is read */
	if (known) {
		if (known->st_size >= 0 && (uint64_t)known->st_size == len)
			add(out, rel, hash, known);
	} else if ((m->rootfd >= 0 ? fstatat(m->rootfd, rel, &st, 0) : stat(path, &st)) == 0 &&
	           (uint64_t)st.st_size == len) {
		add(out, rel, hash, &st);
	}
}

void
manifest_free(struct manifest *m)
{
	buf_free(&m->text);
	free(m->old);
	free(m->slots);
	if (m->rootfd >= 0)
		close(m->rootfd);
	memset(m, 0, sizeof(*m));
	m->rootfd = -1;
}
