/* install.c: `kunai installable install|uninstall`, what ninja runs for the
 * install edges that kunai gen writes (gen/write/install.c): one
 * installable, described by installables/NAME.spec, into the install dir.
 * Whatever is present already is used as it is (never downloaded again);
 * what is made is made under a hidden temporary name beside its place and
 * renamed there only when complete, so an interrupted or failed install
 * leaves nothing that looks installed. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "job.h"
#include "gen/base/beneath.h"
#include "gen/base/util.h"

struct spec {
	const char *path; /* installables/NAME.spec */
	struct buf text;
	const char *kind, *url, *commit, *repo, *install_dir, *dest, *srun;
	bool submodules;
	struct buf full; /* install_dir/dest */
	struct buf tmp;  /* its temporary name */
};

static volatile sig_atomic_t stop_sig;
static volatile pid_t child_pid;

static void
on_stop(int sig)
{
	stop_sig = sig;
	if (child_pid > 0)
		kill(child_pid, sig);
}

/* Returns false after reporting a spec that is not gen's. */
static bool
spec_read(struct spec *s, const char *path)
{
	char *p, *nl;

	s->path = path;
	if (!read_file(path, &s->text))
		return false;
	for (p = s->text.data; p && *p; p = nl) {
		char *sp;
		nl = strchr(p, '\n');
		if (nl)
			*nl++ = '\0';
		if (*p == '#' || !*p || !(sp = strchr(p, ' ')))
			continue;
		*sp++ = '\0';
		if (!strcmp(p, "kind"))
			s->kind = sp;
		else if (!strcmp(p, "url"))
			s->url = sp;
		else if (!strcmp(p, "commit"))
			s->commit = sp;
		else if (!strcmp(p, "repo"))
			s->repo = sp;
		else if (!strcmp(p, "install_dir"))
			s->install_dir = sp;
		else if (!strcmp(p, "dest"))
			s->dest = sp;
		else if (!strcmp(p, "srun"))
			s->srun = sp;
		else if (!strcmp(p, "submodules"))
			s->submodules = !strcmp(sp, "1");
	}
	if (!s->kind || !s->url || !s->install_dir || !s->dest) {
		warn("%s: not an installable spec of kunai gen (regenerate the build dir)", path);
		return false;
	}
	/* nothing outside the install dir, whatever the spec says */
	for (p = (char *)s->dest;;) {
		size_t n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.')) {
			warn("%s: '%s' is not a path under install_path", path, s->dest);
			return false;
		}
		if (!p[n])
			break;
		p += n + 1;
	}
	buf_printf(&s->full, "%s/%s", s->install_dir, s->dest);
	/* hidden, beside its place (one file system: rename is atomic) */
	{
		const char *slash = strrchr(s->dest, '/');
		if (slash)
			buf_printf(&s->tmp, "%s/%.*s/.%s.kunai-part-%ld", s->install_dir,
			           (int)(slash - s->dest), s->dest, slash + 1, (long)getpid());
		else
			buf_printf(&s->tmp, "%s/.%s.kunai-part-%ld", s->install_dir, s->dest, (long)getpid());
	}
	return true;
}

static void
spec_free(struct spec *s)
{
	buf_free(&s->text);
	buf_free(&s->full);
	buf_free(&s->tmp);
}

/* Runs argv (its output on our stderr, which ninja shows); out, when not
 * NULL, gets its stdout. Returns whether it exited 0. */
static bool
run(char *const argv[], struct buf *out)
{
	int fd[2] = {-1, -1}, status;
	pid_t pid;
	char chunk[512];
	ssize_t n;

	if (out && pipe(fd) != 0)
		return warn("pipe:"), false;
	pid = fork();
	if (pid < 0)
		return warn("fork:"), false;
	if (pid == 0) {
		if (out) {
			dup2(fd[1], 1);
			close(fd[0]);
			close(fd[1]);
		} else
			dup2(2, 1);
		execvp(argv[0], argv);
		fprintf(stderr, "kunai: exec %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	child_pid = pid;
	if (out) {
		close(fd[1]);
		while ((n = read(fd[0], chunk, sizeof(chunk))) != 0) {
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				break;
			buf_push(out, chunk, (size_t)n);
		}
		close(fd[0]);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return warn("waitpid:"), false;
	child_pid = 0;
	return !stop_sig && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static bool
is(const char *path, mode_t type)
{
	struct stat st;

	return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == type;
}

/* The commit a repository's HEAD is at, or "" when git cannot tell. */
static void
rev(const char *repo, const char *what, struct buf *out)
{
	char *argv[] = {"git", "-C", (char *)repo, "rev-parse", "--verify", "-q", (char *)what, NULL};

	out->len = 0;
	if (!run(argv, out))
		out->len = 0;
	while (out->len && (out->data[out->len - 1] == '\n'))
		out->len--;
	buf_putc(out, '\0');
	out->len--;
}

/* Whether the installable is in place; false, reporting, for a repository
 * at another commit (which is not replaced: uninstall removes it). */
static bool
present(struct spec *s, bool *ok)
{
	struct buf head = {0}, want = {0}, c = {0};
	bool in;

	*ok = true;
	if (!strcmp(s->kind, "image") || !strcmp(s->kind, "file"))
		return is(s->full.data, S_IFREG);
	if (!is(s->full.data, S_IFDIR))
		return false;
	if (strcmp(s->kind, "git") != 0)
		return true;
	buf_printf(&c, "%s^{commit}", s->commit ? s->commit : "HEAD");
	rev(s->full.data, "HEAD", &head);
	rev(s->full.data, c.data, &want);
	in = head.len && want.len && !strcmp(head.data, want.data);
	if (!in) {
		warn("%s is there but not a checkout of %s at %s; `kunai uninstall` (or rm -r) removes it",
		     s->full.data, s->url, s->commit ? s->commit : "HEAD");
		*ok = false;
	}
	buf_free(&head);
	buf_free(&want);
	buf_free(&c);
	return in;
}

static bool
make_parent(const char *path)
{
	struct buf d = {0};
	const char *slash = strrchr(path, '/');
	bool made, ok = true;

	if (slash) {
		buf_push(&d, path, (size_t)(slash - path));
		ok = make_dir(buf_str(&d), &made);
	}
	buf_free(&d);
	return ok;
}

static bool
install_image(struct spec *s)
{
	struct buf docker = {0}, cmd = {0}, abs = {0};
	char cwd[PATH_MAX];
	bool ok;

	buf_printf(&docker, "docker://%s", s->url);
	if (s->tmp.data[0] != '/' && getcwd(cwd, sizeof(cwd)))
		buf_printf(&abs, "%s/%s", cwd, s->tmp.data);
	else
		buf_puts(&abs, s->tmp.data);
	if (s->srun) {
		/* on a compute node, as CloudAI does; the srun line is gen's */
		buf_printf(&cmd, "%s enroot import -o \"$1\" \"$2\"", s->srun);
		char *argv[] = {"sh", "-c", cmd.data, "sh", abs.data, docker.data, NULL};
		ok = run(argv, NULL);
	} else {
		char *argv[] = {"enroot", "import", "-o", abs.data, docker.data, NULL};
		ok = run(argv, NULL);
	}
	if (ok && !is(s->tmp.data, S_IFREG)) {
		warn("enroot import of %s succeeded but made no file %s", s->url, s->tmp.data);
		ok = false;
	}
	buf_free(&docker);
	buf_free(&cmd);
	buf_free(&abs);
	return ok;
}

static bool
install_git(struct spec *s)
{
	char *clone[] = {"git", "clone", "-q", (char *)s->url, s->tmp.data, NULL};
	char *co[] = {"git", "-C", s->tmp.data, "checkout", "-q", (char *)(s->commit ? s->commit : "HEAD"),
	              NULL};
	char *sub[] = {"git", "-C", s->tmp.data, "submodule", "update", "-q", "--init", "--recursive", NULL};

	return run(clone, NULL) && run(co, NULL) && (!s->submodules || run(sub, NULL));
}

/* python -m venv, then the repository's requirements.txt, else its
 * project, as CloudAI does. Scripts call its bin/python, which works from
 * the final place (pip's own entry scripts keep the temporary name). */
static bool
install_venv(struct spec *s)
{
	struct buf repo = {0}, req = {0}, py = {0};
	char *venv[] = {"python3", "-m", "venv", s->tmp.data, NULL};
	bool ok;

	buf_printf(&repo, "%s/%s", s->install_dir, s->repo ? s->repo : "");
	buf_printf(&req, "%s/requirements.txt", repo.data);
	buf_printf(&py, "%s/bin/python", s->tmp.data);
	ok = run(venv, NULL);
	if (ok && !s->repo) {
		/* no repository: url is the pip requirements themselves, words apart
		 * (commit: the python version CloudAI asks for, not enforced here) */
		struct buf words = {0};
		char *w, *save = NULL;
		buf_puts(&words, s->url);
		for (w = strtok_r(words.data, " ", &save); ok && w; w = strtok_r(NULL, " ", &save)) {
			char *pip[] = {py.data, "-m", "pip", "install", "-q", w, NULL};
			ok = run(pip, NULL);
		}
		buf_free(&words);
	} else if (ok && is(req.data, S_IFREG)) {
		char *pip[] = {py.data, "-m", "pip", "install", "-q", "-r", req.data, NULL};
		ok = run(pip, NULL);
	} else if (ok) {
		req.len = 0;
		buf_printf(&req, "%s/pyproject.toml", repo.data);
		if (is(req.data, S_IFREG)) {
			char *pip[] = {py.data, "-m", "pip", "install", "-q", repo.data, NULL};
			ok = run(pip, NULL);
		}
	}
	buf_free(&repo);
	buf_free(&req);
	buf_free(&py);
	return ok;
}

/* A helper file kunai ships in its rules dir, copied when its bytes differ. */
static bool
install_file(struct spec *s, const char *rules_dir)
{
	struct buf src = {0}, data = {0};
	bool ok = false;

	buf_printf(&src, "%s/%s", rules_dir, s->url);
	if (!is(src.data, S_IFREG)) {
		/* a workload's helper (workloads/serve/...): under kunai's datadir */
		struct buf dd = {0};
		src.len = 0;
		buf_printf(&src, "%s/%s", kunai_datadir(&dd), s->url);
		buf_free(&dd);
	}
	if (!is(src.data, S_IFREG)) {
		if (is(s->full.data, S_IFREG))
			ok = true; /* not kunai's to ship (CloudAI's): the one there is used */
		else
			warn("kunai ships no %s (not in %s); put it at %s yourself", s->url, rules_dir,
			     s->full.data);
	} else if (read_file(src.data, &data))
		ok = write_file_atomic(s->full.data, data.data ? data.data : "", data.len);
	buf_free(&src);
	buf_free(&data);
	return ok;
}

/* Where the stamps and specs live, below the build dir (ninja's working
 * dir): never through a link. */
static const char *const inst_dirs[] = {"installables", NULL};

static int
do_install(const char *stamp, const char *rules_dir)
{
	struct spec s = {0};
	struct buf sp = {0};
	struct sigaction sa = {0};
	size_t n = strlen(stamp);
	bool ok = false, fine;
	int rc = 1;

	if (n < 6 || strcmp(stamp + n - 6, ".stamp") != 0) {
		warn("installable install: '%s' is not an installables/NAME.stamp", stamp);
		return 2;
	}
	buf_printf(&sp, "%.*s.spec", (int)(n - 6), stamp);
	if (!beneath_dirs_ok(".", inst_dirs) || !spec_read(&s, sp.data))
		goto out;
	if (!make_dir(s.install_dir, &fine))
		goto out;
	if (!strcmp(s.kind, "file")) {
		ok = install_file(&s, rules_dir);
	} else if (present(&s, &fine)) {
		printf("kunai: %s is installed already\n", s.full.data);
		ok = true;
	} else if (fine) {
		sa.sa_handler = on_stop;
		sigemptyset(&sa.sa_mask);
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		ok = make_parent(s.full.data);
		remove_tree_at(AT_FDCWD, s.tmp.data);
		if (ok && !strcmp(s.kind, "image"))
			ok = install_image(&s);
		else if (ok && !strcmp(s.kind, "git"))
			ok = install_git(&s);
		else if (ok && !strcmp(s.kind, "venv"))
			ok = install_venv(&s);
		else if (ok) {
			warn("%s: unknown kind '%s' (regenerate the build dir)", s.path, s.kind);
			ok = false;
		}
		if (ok && !stop_sig && rename(s.tmp.data, s.full.data) != 0) {
			warn("rename %s to %s:", s.tmp.data, s.full.data);
			ok = false;
		}
		if (!ok || stop_sig)
			remove_tree_at(AT_FDCWD, s.tmp.data);
		if (ok && !stop_sig)
			printf("kunai: installed %s\n", s.full.data);
	}
	if (stop_sig) {
		rc = 128 + stop_sig;
		goto out;
	}
	if (!ok) {
		warn("installing %s (%s) failed", s.full.data, s.url);
		goto out;
	}
	/* the stamp holds the spec: it changes only when the installable does */
	{
		/* (spec_read cut its text into lines: the file's bytes again) */
		struct buf again = {0};
		rc = read_file(sp.data, &again) && write_file_atomic(stamp, again.data ? again.data : "", again.len)
		         ? 0
		         : 1;
		buf_free(&again);
	}
out:
	spec_free(&s);
	buf_free(&sp);
	return rc;
}

/* Removes what each spec names from its install dir, its leftovers of
 * interrupted installs and its stamp. */
static int
do_uninstall(int argc, char **argv)
{
	int i, rc = 0;

	if (!beneath_dirs_ok(".", inst_dirs))
		return 1;
	for (i = 0; i < argc; i++) {
		struct spec s = {0};
		struct buf stamp = {0}, dir = {0}, pre = {0};
		const char *base, *slash;
		size_t n = strlen(argv[i]);
		DIR *d;
		struct dirent *e;

		if (!spec_read(&s, argv[i])) {
			rc = 1;
			spec_free(&s);
			continue;
		}
		if (is(s.full.data, S_IFDIR) || is(s.full.data, S_IFREG) || is(s.full.data, S_IFLNK)) {
			remove_tree_at(AT_FDCWD, s.full.data);
			if (access(s.full.data, F_OK) == 0) {
				warn("could not remove %s", s.full.data);
				rc = 1;
			} else
				printf("kunai: removed %s\n", s.full.data);
		}
		slash = strrchr(s.full.data, '/');
		buf_push(&dir, s.full.data, (size_t)(slash - s.full.data));
		base = slash + 1;
		buf_printf(&pre, ".%s.kunai-part-", base);
		if ((d = opendir(buf_str(&dir)))) {
			while ((e = readdir(d)))
				if (!strncmp(e->d_name, pre.data, pre.len)) {
					struct buf p = {0};
					buf_printf(&p, "%s/%s", dir.data, e->d_name);
					remove_tree_at(AT_FDCWD, p.data);
					buf_free(&p);
				}
			closedir(d);
		}
		/* the folders a dest with a '/' needed, when nothing else is there */
		while ((slash = strrchr(dir.data, '/')) && dir.len > strlen(s.install_dir) &&
		       rmdir(dir.data) == 0) {
			dir.len = (size_t)(slash - dir.data);
			dir.data[dir.len] = '\0';
		}
		if (n > 5 && !strcmp(argv[i] + n - 5, ".spec")) {
			buf_printf(&stamp, "%.*s.stamp", (int)(n - 5), argv[i]);
			unlink(stamp.data);
		}
		buf_free(&stamp);
		buf_free(&dir);
		buf_free(&pre);
		spec_free(&s);
	}
	return rc;
}

int
cmd_installable(int argc, char **argv)
{
	const char *rules = NULL;
	struct buf dd = {0}, rd = {0};
	int rc;

	if (argc >= 2 && !strcmp(argv[1], "uninstall"))
		return do_uninstall(argc - 2, argv + 2);
	if (argc < 3 || strcmp(argv[1], "install") != 0) {
		fprintf(stderr, "usage: kunai installable install [--rules-dir DIR] installables/NAME.stamp\n"
		                "       kunai installable uninstall installables/NAME.spec...\n");
		return 2;
	}
	if (argc == 5 && !strcmp(argv[2], "--rules-dir"))
		rules = argv[3];
	else if (argc != 3) {
		fprintf(stderr, "usage: kunai installable install [--rules-dir DIR] installables/NAME.stamp\n");
		return 2;
	}
	if (!rules) {
		buf_printf(&rd, "%s/rules", kunai_datadir(&dd));
		rules = rd.data;
	}
	rc = do_install(argv[argc - 1], rules);
	buf_free(&dd);
	buf_free(&rd);
	return rc;
}
