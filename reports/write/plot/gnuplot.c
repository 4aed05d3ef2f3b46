/* write/plot/gnuplot.c: the seam to gnuplot that every plot of the reports goes
 * through (see plot.h): its scripts in the data dir
 * (reports/write/plot/NAME.gp), quoting for them, running it on a script,
 * and an SVG that says why there is no plot when it is not installed. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/results/format.h"
#include "reports/write/plot/gnuplot.h"
#include "gen/base/util.h"

/* Appends s as a gnuplot single-quoted string: '' for ', no control
 * bytes, bytes beyond ASCII kept (gnuplot passes them through). */
void
plot_quote(struct buf *out, const char *s)
{
	buf_putc(out, '\'');
	for (; s && *s; s++) {
		if (*s == '\'')
			buf_puts(out, "''");
		else if ((unsigned char)*s >= 0x20 && *s != 0x7F)
			buf_putc(out, *s);
	}
	buf_putc(out, '\'');
}

/* Is prog an executable in PATH? */
bool
plot_have_gnuplot(void)
{
	const char *path = getenv("PATH"), *p, *e;
	struct buf b = {0};
	bool found = false;

	for (p = path ? path : "/usr/bin:/bin"; !found; p = e + 1) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		b.len = 0;
		buf_printf(&b, "%.*s/gnuplot", (int)(e - p), p);
		found = access(b.data, X_OK) == 0;
		if (!*e)
			break;
	}
	buf_free(&b);
	return found;
}

/* An SVG with one line of text: no gnuplot, or nothing to draw. */
void
plot_placeholder(struct buf *svg, const char *msg)
{
	buf_puts(svg, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
	              "width=\"800\" height=\"60\" viewBox=\"0 0 800 60\">\n<rect width=\"800\" height=\"60\" "
	              "fill=\"#f4f4f4\"/>\n<text x=\"12\" y=\"35\" font-family=\"sans-serif\" font-size=\"14\">");
	xml_escape(svg, msg, strlen(msg), false);
	buf_puts(svg, "</text>\n</svg>\n");
}

/* Runs gnuplot with script on its standard input. Returns false after
 * reporting. */
bool
plot_gnuplot(const char *script, size_t len)
{
	int fd[2], status;
	size_t off = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(fd) != 0) {
		warn("plot: pipe:");
		return false;
	}
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		dup2(fd[0], 0);
		close(fd[0]);
		close(fd[1]);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(fd[0]);
	if (pid < 0) {
		close(fd[1]);
		warn("plot: fork:");
		return false;
	}
	while (off < len && (n = write(fd[1], script + off, len - off)) > 0)
		off += (size_t)n;
	close(fd[1]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return false;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		warn("plot: gnuplot failed (status %d)", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return false;
	}
	return true;
}

/* Appends the text of reports/write/plot/NAME.gp. Returns false after reporting. */
bool
plot_script(const char *name, struct buf *out)
{
	struct buf dd = {0}, path = {0};
	bool ok;

	buf_printf(&path, "%s/reports/write/plot/%s.gp", kunai_datadir(&dd), name);
	ok = read_file(path.data, out);
	buf_free(&dd);
	buf_free(&path);
	return ok;
}

/* Renders script (which sets output to tmp) and moves tmp to out when its
 * bytes differ; with no gnuplot, a placeholder saying so. */
bool
plot_render(const char *out, const char *tmp, struct buf *script, bool empty, const char *empty_msg)
{
	struct buf svg = {0}, old = {0};
	bool ok;

	if (empty || !plot_have_gnuplot()) {
		if (!empty)
			fprintf(stderr, "kunai: plot: gnuplot is not installed: %s says so (apt-get install gnuplot-nox)\n",
			        out);
		plot_placeholder(&svg, empty ? empty_msg : "no plot: gnuplot is not installed on the machine that ran "
		                                           "kunai report (apt-get install gnuplot-nox)");
		ok = write_file_atomic(out, svg.data, svg.len);
		buf_free(&svg);
		return ok;
	}
	ok = plot_gnuplot(script->data, script->len) && read_file(tmp, &svg);
	if (ok)
		ok = write_file_atomic(out, svg.data, svg.len);
	unlink(tmp);
	buf_free(&svg);
	buf_free(&old);
	return ok;
}
