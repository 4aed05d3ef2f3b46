/* history/export.c: `kunai export BUILD_DIR -o FILE.tar.gz` (export_open.c is the
 * way back in for the commands that read results).
 *
 * The archive is ustar written here and compressed by gzip(1) (Debian's
 * base system has it; `gzip -n` keeps names and times out of its header):
 * writing the tar format ourselves decides exactly which files go in and
 * with which names, and reading it ourselves lets every entry be checked
 * before a byte of it reaches the disk, instead of trusting tar(1)'s
 * defaults about "..", absolute names and links. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/history/export.h"
#include "reports/history/export_priv.h"
#include "reports/results/results.h"
#include "reports/results/plan.h"
#include "gen/base/lock.h"
#include "gen/base/util.h"

enum {
	MAX_DEPTH = 16, /* of report/ and phases/ folders */
};

/* What a later analysis needs from each run dir (and its attempt-N/). */
static const char *const run_files[] = {
	"job.json", "report.json", "stdout.txt", "stderr.txt",
	/* each scheduler's job script */
	"run.sh", "cloudai_sbatch_script.sh", "bsub_script.sh",
	/* a refused submission's whole answer */
	"sbatch.txt", "bsub.txt", "kubectl.txt", "runai.txt", NULL,
};

struct entries {
	char **v;
	size_t len, cap;
};

static void
add(struct entries *e, const char *rel)
{
	e->v = xreserve(e->v, e->len + 1, &e->cap, sizeof(*e->v));
	e->v[e->len++] = xstrdup(rel);
}

/* Adds root/rel when it is a regular file (links are not followed). */
static void
add_file(struct entries *e, const char *root, const char *rel)
{
	struct buf p = {0};
	struct stat st;

	buf_printf(&p, "%s/%s", root, rel);
	if (lstat(p.data, &st) == 0 && S_ISREG(st.st_mode))
		add(e, rel);
	buf_free(&p);
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether name is a file being written (NAME.tmp, NAME.PID.N.tmp): an
 * interrupted writer's leftover, never a result. */
static bool
temporary(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && strcmp(name + n - 4, ".tmp") == 0;
}

/* Adds every regular file under root/rel (sorted, links not followed, no
 * temporaries). */
static void
add_tree(struct entries *e, const char *root, const char *rel, int depth)
{
	struct buf p = {0}, r = {0};
	struct entries names = {0};
	struct dirent *d;
	struct stat st;
	DIR *dir;
	size_t i;

	buf_printf(&p, "%s/%s", root, rel);
	if (depth > MAX_DEPTH || !(dir = opendir(p.data))) {
		buf_free(&p);
		return;
	}
	while ((d = readdir(dir)))
		if (strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0 && !temporary(d->d_name))
			add(&names, d->d_name);
	closedir(dir);
	if (names.len)
		qsort(names.v, names.len, sizeof(*names.v), cmp_name);
	for (i = 0; i < names.len; i++) {
		r.len = 0;
		buf_printf(&r, "%s/%s", rel, names.v[i]);
		p.len = 0;
		buf_printf(&p, "%s/%s", root, r.data);
		if (lstat(p.data, &st) == 0 && S_ISDIR(st.st_mode))
			add_tree(e, root, r.data, depth + 1);
		else if (S_ISREG(st.st_mode))
			add(e, r.data);
		free(names.v[i]);
	}
	free(names.v);
	buf_free(&p);
	buf_free(&r);
}

/* A run dir's files, then those of its attempt-N/ dirs. */
static void
add_run(struct entries *e, const char *root, const char *dir)
{
	struct buf p = {0}, r = {0};
	struct entries att = {0};
	struct dirent *d;
	DIR *dd;
	size_t i, j;

	for (i = 0; run_files[i]; i++) {
		r.len = 0;
		buf_printf(&r, "%s/%s", dir, run_files[i]);
		add_file(e, root, r.data);
	}
	buf_printf(&p, "%s/%s", root, dir);
	if ((dd = opendir(p.data))) {
		while ((d = readdir(dd)))
			if (strncmp(d->d_name, "attempt-", 8) == 0)
				add(&att, d->d_name);
		closedir(dd);
	}
	if (att.len)
		qsort(att.v, att.len, sizeof(*att.v), cmp_name);
	for (i = 0; i < att.len; i++) {
		for (j = 0; run_files[j]; j++) {
			r.len = 0;
			buf_printf(&r, "%s/%s/%s", dir, att.v[i], run_files[j]);
			add_file(e, root, r.data);
		}
		free(att.v[i]);
	}
	free(att.v);
	buf_free(&p);
	buf_free(&r);
}

/* Writes v as n-1 octal digits and a NUL (the caller checked that it fits). */
static void
octal(char *field, size_t n, unsigned long long v)
{
	size_t i;

	field[n - 1] = '\0';
	for (i = n - 1; i > 0; i--, v >>= 3)
		field[i - 1] = (char)('0' + (v & 7));
}

/* The ustar header of a regular file; false when its name does not fit
 * ustar's 100 + 155 bytes. */
static bool
header(unsigned char h[BLOCK], const char *name, const struct stat *st)
{
	size_t len = strlen(name), cut;
	unsigned sum = 0;
	size_t i;

	memset(h, 0, BLOCK);
	/* 11 octal digits: 8 GiB (kunai's files are logs and JSON) */
	if ((unsigned long long)st->st_size >= (1ULL << 33))
		return false;
	if (len <= 100) {
		memcpy(h, name, len);
	} else {
		/* prefix/name, split at a '/' */
		for (cut = len > 156 ? 155 : len - 1; cut > 0 && name[cut] != '/'; cut--)
			;
		if (!cut || len - cut - 1 > 100 || len - cut - 1 == 0)
			return false;
		memcpy(h + 345, name, cut);
		memcpy(h, name + cut + 1, len - cut - 1);
	}
	octal((char *)h + 100, 8, st->st_mode & 0777);
	octal((char *)h + 108, 8, 0);
	octal((char *)h + 116, 8, 0);
	octal((char *)h + 124, 12, (unsigned long long)st->st_size);
	octal((char *)h + 136, 12, st->st_mtime > 0 ? (unsigned long long)st->st_mtime : 0);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < BLOCK; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	return true;
}


/* Writes the tar stream of root's entries to fd. */
static bool
write_tar(int fd, const char *root, const struct entries *e, unsigned long long *bytes)
{
	unsigned char h[BLOCK], tmp[65536];
	struct buf p = {0};
	struct stat st;
	size_t i;
	ssize_t n;
	bool ok = true;

	for (i = 0; ok && i < e->len; i++) {
		int in;
		unsigned long long left;

		p.len = 0;
		buf_printf(&p, "%s/%s", root, e->v[i]);
		/* files only: a FIFO in a run dir is not waited on */
		in = file_open_regular(AT_FDCWD, p.data, O_NOFOLLOW);
		if (in < 0 || fstat(in, &st) != 0) {
			warn("export: %s:", p.data);
			if (in >= 0)
				close(in);
			ok = false;
			break;
		}
		if (!header(h, e->v[i], &st)) {
			warn("export: %s: name longer than 255 bytes or file of 8 GiB or more", e->v[i]);
			close(in);
			ok = false;
			break;
		}
		ok = export_write_all(fd, h, BLOCK);
		/* exactly the size in the header, even if the file grows meanwhile */
		for (left = (unsigned long long)st.st_size; ok && left;) {
			n = read(in, tmp, left < sizeof(tmp) ? (size_t)left : sizeof(tmp));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				/* shrank: pad with zeros to keep the archive well formed */
				memset(tmp, 0, sizeof(tmp));
				n = (ssize_t)(left < sizeof(tmp) ? left : sizeof(tmp));
			}
			ok = export_write_all(fd, tmp, (size_t)n);
			left -= (unsigned long long)n;
		}
		memset(tmp, 0, BLOCK);
		if (ok && st.st_size % BLOCK)
			ok = export_write_all(fd, tmp, BLOCK - (size_t)(st.st_size % BLOCK));
		*bytes += (unsigned long long)st.st_size;
		close(in);
	}
	memset(h, 0, BLOCK);
	if (ok)
		ok = export_write_all(fd, h, BLOCK) && export_write_all(fd, h, BLOCK);
	buf_free(&p);
	return ok;
}

static int
export_usage(const char *msg)
{
	fprintf(stderr, "kunai: export: %s\nusage: kunai export BUILD_DIR -o FILE.tar.gz\n"
	                "       kunai export --list ARCHIVE|BUILD_DIR\n",
	        msg);
	return 2;
}

/* kunai export --list: opens the way report --history and compare do,
 * and prints the files (what a user checks before sending an archive on). */
static int
list(const char *path)
{
	struct export_src s;
	struct entries e = {0};
	size_t i;

	if (!export_open(path, &s))
		return 1;
	add_tree(&e, s.dir, ".", 0);
	for (i = 0; i < e.len; i++) {
		puts(e.v[i] + 2);
		free(e.v[i]);
	}
	free(e.v);
	export_close(&s);
	return fflush(stdout) == 0 ? 0 : 1;
}

int
cmd_export(int argc, char **argv)
{
	const char *dir = NULL, *out = NULL;
	char *gz_argv[] = {"gzip", "-n", "-c", NULL};
	struct arena a = {0};
	struct entries e = {0};
	struct plan p;
	struct buf tmp = {0};
	struct stat st;
	unsigned long long bytes = 0;
	void (*old)(int);
	int fd[2], outfd = -1, rc = 1, i, lockfd = -1;
	size_t j;
	pid_t pid;
	bool ok;

	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--list") == 0) {
			if (i + 2 != argc)
				return export_usage("--list takes one ARCHIVE or BUILD_DIR");
			return list(argv[i + 1]);
		} else if (strcmp(argv[i], "-o") == 0 || strcmp(argv[i], "--output") == 0) {
			if (++i == argc)
				return export_usage("-o needs FILE.tar.gz");
			out = argv[i];
		} else if (argv[i][0] == '-') {
			return export_usage("unknown option");
		} else if (dir) {
			return export_usage("one BUILD_DIR only");
		} else {
			dir = argv[i];
		}
	}
	if (!dir || !out)
		return export_usage(dir ? "missing -o FILE.tar.gz" : "missing BUILD_DIR");
	/* shared: a kunai gen does not rewrite what is being packed; taken
	 * (and an interrupted gen undone) before kunai.json is read */
	buf_printf(&tmp, "%s/kunai.json", dir);
	if (access(tmp.data, F_OK) == 0 && (lockfd = lock_take(dir, false, "export")) < 0)
		goto done;
	if (!json_load_plan(&a, tmp.data, &p))
		goto done;
	add(&e, "kunai.json");
	add_file(&e, dir, "build.ninja");
	for (j = 0; j < p.n_runs; j++)
		add_run(&e, dir, p.runs[j].dir);
	add_tree(&e, dir, "phases", 0);
	add_tree(&e, dir, "report", 0);
	tmp.len = 0;
	buf_printf(&tmp, "%s.%ld.tmp", out, (long)getpid());
	outfd = open(tmp.data, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (outfd < 0) {
		warn("export: %s:", tmp.data);
		goto done;
	}
	if (pipe(fd) != 0) {
		warn("export: pipe:");
		goto done;
	}
	pid = export_spawn_gzip(gz_argv, fd[0], outfd, fd[1]);
	close(fd[0]);
	if (pid < 0) {
		close(fd[1]);
		goto done;
	}
	old = signal(SIGPIPE, SIG_IGN);
	ok = write_tar(fd[1], dir, &e, &bytes);
	close(fd[1]);
	signal(SIGPIPE, old);
	if (export_wait_status(pid) != 0) {
		warn("export: gzip failed writing %s", tmp.data);
		ok = false;
	}
	if (ok && (fsync(outfd) != 0 || fstat(outfd, &st) != 0)) {
		warn("export: %s:", tmp.data);
		ok = false;
	}
	if (close(outfd) != 0 && ok) {
		warn("export: %s:", tmp.data);
		ok = false;
	}
	outfd = -1;
	if (ok && rename(tmp.data, out) != 0) {
		warn("export: rename to %s:", out);
		ok = false;
	}
	if (!ok) {
		unlink(tmp.data);
		goto done;
	}
	printf("kunai: %zu files (%llu bytes) of %s in %s (%lld bytes)\n", e.len, bytes, dir, out,
	       (long long)st.st_size);
	rc = 0;
done:
	if (outfd >= 0) {
		close(outfd);
		unlink(tmp.data);
	}
	if (lockfd >= 0)
		close(lockfd);
	for (j = 0; j < e.len; j++)
		free(e.v[j]);
	free(e.v);
	buf_free(&tmp);
	arena_free(&a);
	return rc;
}
