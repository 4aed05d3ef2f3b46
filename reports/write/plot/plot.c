/* plot.c: `kunai plot KIND DIR/report.json OUT.svg`, the command of the
 * plot edges: the run's values as a gnuplot data block, then
 * reports/write/plot/common.gp and KIND.gp, on gnuplot's standard input. The SVG
 * goes through OUT.tmp and replaces OUT only when its bytes changed. With
 * no gnuplot the SVG says so, and the build goes on. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/results/format.h"
#include "reports/write/plot/plot.h"
#include "reports/report.h"
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

static const struct metric *
find(const struct run_report *r, const char *name, double x)
{
	size_t i;

	for (i = 0; i < r->n_metrics; i++)
		if (r->metrics[i].x == x && strcmp(r->metrics[i].name, name) == 0)
			return &r->metrics[i];
	return NULL;
}

/* Appends the value or NaN (gnuplot's missing). */
static void
val(struct buf *d, const struct metric *m)
{
	if (m) {
		buf_putc(d, ' ');
		fmt_data(d, m->value);
	} else
		buf_puts(d, " NaN");
}

/* A series of name against x: one row per distinct x, in order. */
static size_t
series(struct buf *d, const struct run_report *r, const char *name, const char *second)
{
	size_t i, rows = 0;

	for (i = 0; i < r->n_metrics; i++) {
		const struct metric *m = &r->metrics[i];
		if (m->x < 0 || strcmp(m->name, name) != 0)
			continue;
		fmt_data(d, m->x);
		val(d, m);
		if (second)
			val(d, find(r, second, m->x));
		buf_putc(d, '\n');
		rows++;
	}
	return rows;
}

/* GEMM: per precision, one block of (x, "node GPU n", value). */
static size_t
gemm(struct buf *d, struct buf *vars, const struct run_report *r)
{
	struct buf names = {0}, label = {0};
	const char *unit = "TFLOP/s";
	size_t i, j, blocks = 0, rows = 0, x;

	for (i = 0; i < r->n_metrics; i++) {
		const struct metric *m = &r->metrics[i];
		size_t n = strlen(m->name);
		bool per_gpu = n > 7 && strcmp(m->name + n - 7, "_tflops") == 0 && m->gpu >= 0;
		bool cpu = n > 7 && strcmp(m->name + n - 7, "_gflops") == 0;
		if (!per_gpu && !cpu)
			continue;
		for (j = 0; j < i && strcmp(r->metrics[j].name, m->name) != 0; j++)
			;
		if (j < i)
			continue; /* this precision's block is written */
		if (cpu)
			unit = "GFLOP/s";
		if (blocks++)
			buf_puts(d, "\n\n");
		buf_printf(&names, "%s%.*s", names.len ? " " : "", (int)(n - 7), m->name);
		for (j = i, x = 0; j < r->n_metrics; j++) {
			const struct metric *o = &r->metrics[j];
			if (strcmp(o->name, m->name) != 0)
				continue;
			label.len = 0;
			buf_puts(&label, o->node ? o->node : "?");
			if (o->gpu >= 0)
				buf_printf(&label, " GPU %d", o->gpu);
			else
				buf_puts(&label, " cpu");
			buf_printf(d, "%zu \"", x++);
			for (const char *p = label.data; *p; p++)
				if (*p != '"' && (unsigned char)*p >= 0x20)
					buf_putc(d, *p);
			buf_puts(d, "\" ");
			fmt_data(d, o->value);
			buf_putc(d, '\n');
			rows++;
		}
	}
	buf_printf(vars, "nblocks = %zu\nnames = ", blocks);
	plot_quote(vars, names.data ? names.data : "");
	buf_puts(vars, "\nylabel = ");
	plot_quote(vars, unit);
	buf_putc(vars, '\n');
	buf_free(&names);
	buf_free(&label);
	return rows;
}

/* Fills the data block and the kind's variables; returns the row count. */
static size_t
data_for(const char *kind, const struct run_report *r, struct buf *d, struct buf *vars)
{
	size_t i;

	if (strcmp(kind, "busbw") == 0)
		return series(d, r, "busbw", "busbw_inplace");
	if (strcmp(kind, "loss") == 0)
		return series(d, r, "epoch_loss", NULL);
	if (strcmp(kind, "gemm") == 0)
		return gemm(d, vars, r);
	if (strcmp(kind, "osu") == 0 || strcmp(kind, "ucc") == 0) {
		const char *name = strcmp(kind, "ucc") == 0 ? "time_avg" : NULL;
		for (i = 0; !name && i < r->n_metrics; i++)
			if (r->metrics[i].x >= 0)
				name = r->metrics[i].name;
		if (!name)
			return 0;
		for (i = 0; i < r->n_metrics; i++)
			if (strcmp(r->metrics[i].name, name) == 0)
				break;
		buf_puts(vars, "names = ");
		plot_quote(vars, name);
		buf_puts(vars, "\nylabel = ");
		{
			struct buf y = {0};
			buf_printf(&y, "%s (%s)", name, i < r->n_metrics && r->metrics[i].unit ? r->metrics[i].unit : "");
			plot_quote(vars, y.data);
			buf_free(&y);
		}
		buf_putc(vars, '\n');
		return series(d, r, name, NULL);
	}
	return 0;
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

/* Appends run report in's plot (to tmp) to script, or when it has nothing
 * to plot, writes out's placeholder. Returns false after reporting. */
static bool
plot_one(const char *kind, const char *in, const char *out, const char *tmp, struct buf *script, bool *drawn)
{
	struct arena a = {0};
	struct run_report r;
	struct buf why = {0}, data = {0}, vars = {0}, title = {0};
	size_t rows = 0;
	bool ok = true;

	if (json_load_report(&a, in, &r, &why)) {
		rows = data_for(kind, &r, &data, &vars);
		buf_printf(&title, "%s iteration %d", r.id, r.iteration);
		if (r.step > 0)
			buf_printf(&title, " step %d", r.step);
		buf_printf(&title, " (%s)", outcome_name(r.outcome));
	} else
		buf_printf(&title, "%s: %s", in, buf_str(&why));
	*drawn = rows > 0;
	if (rows) {
		/* a batch's plots are drawn by one gnuplot: each from the defaults */
		buf_puts(script, script->len ? "reset\noutfile = " : "outfile = ");
		plot_quote(script, tmp);
		buf_puts(script, "\nplottitle = ");
		plot_quote(script, title.data);
		buf_putc(script, '\n');
		buf_push(script, vars.data ? vars.data : "", vars.len);
		buf_puts(script, "$data << EOD\n");
		buf_push(script, data.data ? data.data : "", data.len);
		buf_puts(script, "EOD\n");
		ok = plot_script("common", script) && plot_script(kind, script);
	} else {
		buf_printf(&title, ": nothing to plot");
		ok = plot_render(out, tmp, script, true, title.data);
	}
	buf_free(&why);
	buf_free(&data);
	buf_free(&vars);
	buf_free(&title);
	arena_free(&a);
	return ok;
}

/* `kunai plot KIND IN... OUT...`: the plots of a batch of runs (as many
 * report.json files as SVGs, in the same order) in one gnuplot: its start
 * costs more than a plot. */
int
cmd_plot(int argc, char **argv)
{
	struct buf script = {0}, svg = {0}, *tmp;
	bool *drawn, ok = true, any = false;
	size_t n, i;

	if (argc == 5 && strcmp(argv[2], "--test") == 0)
		return plot_test_cmd(argv[1], argv[3], argv[4]);
	if (argc < 4 || argc % 2) {
		fputs("usage: kunai plot KIND DIR/report.json... OUT.svg...   (KIND: busbw, gemm, loss, osu, ucc)\n"
		      "       kunai plot KIND --test ID OUT.svg               (every run of test ID, in the build dir)\n",
		      stderr);
		return 2;
	}
	n = (size_t)(argc - 2) / 2;
	tmp = xcalloc(n, sizeof(*tmp));
	drawn = xcalloc(n, sizeof(*drawn));
	for (i = 0; i < n && ok; i++) {
		/* a name no concurrent plot of the same file uses */
		buf_printf(&tmp[i], "%s.%ld.tmp", argv[2 + n + i], (long)getpid());
		ok = plot_one(argv[1], argv[2 + i], argv[2 + n + i], tmp[i].data, &script, &drawn[i]);
		any = any || drawn[i];
	}
	if (ok && any && !plot_have_gnuplot()) {
		for (i = 0; i < n && ok; i++)
			ok = !drawn[i] || plot_render(argv[2 + n + i], tmp[i].data, &script, false, NULL);
	} else if (ok && any) {
		ok = plot_gnuplot(script.data, script.len);
		for (i = 0; i < n; i++) {
			if (!drawn[i])
				continue;
			svg.len = 0;
			if (ok)
				ok = read_file(tmp[i].data, &svg) && write_file_atomic(argv[2 + n + i], svg.data, svg.len);
			unlink(tmp[i].data);
		}
	}
	for (i = 0; i < n; i++)
		buf_free(&tmp[i]);
	free(tmp);
	free(drawn);
	buf_free(&script);
	buf_free(&svg);
	return ok ? 0 : 1;
}
