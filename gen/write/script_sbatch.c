/* script_sbatch.c: the #SBATCH lines of a run's batch script (partition,
 * nodes, GPUs, time, account, reservation, CloudAI's extra directives) and
 * its stable job name; every value checked for what sbatch reads on a line. */
#include <stdbool.h>
#include <string.h>

#include "script.h"
#include "gen/base/escape.h"
#include "gen/base/util.h"
#include "gen/model/expand.h"
#include "gen/model/model.h"
#include "gen/workloads/workload.h"

/* A value for an #SBATCH (#BSUB) line: sbatch (bsub) reads those lines itself, so a
 * newline would start a shell line and blanks would split the option. */
static bool
directive_ok(const struct run *r, const char *what, const char *v, bool blanks_ok)
{
	const char *p;

	for (p = v; *p; p++)
		if (*p == '\n' || *p == '\r' || (!blanks_ok && (*p == ' ' || *p == '\t'))) {
			warn("%s: %s '%s' cannot go on an %s line (test '%s')", r->c->system->path, what, v,
			     r->c->system->scheduler == SCHED_LSF ? "#BSUB" : "#SBATCH", r->tc->id);
			return false;
		}
	return true;
}

/* The reservation named in the system's extra_srun_args ("--reservation X"
 * as CloudAI reads it, or "--reservation=X"), copied into b. */
static bool
reservation(struct buf *b, const char *args)
{
	const char *p = args ? strstr(args, "--reservation") : NULL;
	size_t n;

	if (!p || (p[13] != ' ' && p[13] != '='))
		return false;
	p += 14;
	while (*p == ' ')
		p++;
	n = strcspn(p, " \t\r\n"); /* a word, as Python's split() makes them */
	if (!n)
		return false;
	buf_push(b, p, n);
	return true;
}

/* A stable job name (no timestamp, unlike CloudAI's): account-scenario.id.iteration[.step],
 * with bytes Slurm or a shell could trip on replaced by '_'. */
static void
job_name(struct buf *out, const struct run *r, const char *directive)
{
	const struct system *sys = r->c->system;
	struct buf n = {0};
	size_t i;

	if (sys->account)
		buf_printf(&n, "%s-", sys->account);
	buf_printf(&n, "%s.%s.%d", r->c->scenario->name, r->tc->id, r->iteration);
	if (r->step)
		buf_printf(&n, ".%d", r->step);
	for (i = 0; i < n.len; i++) {
		char c = n.data[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr("_.+-", c)))
			n.data[i] = '_';
	}
	buf_printf(out, "%s%s\n", directive, n.data);
	buf_free(&n);
}

bool
script_sbatch_directives(struct buf *out, const struct run *r)
{
	const struct system *sys = r->c->system;
	const struct test_case *tc = r->tc;
	struct buf t = {0};
	const char *part;
	size_t i;
	bool ok = true;

	job_name(out, r, "#SBATCH --job-name=");
	/* relative: the job runs in the directory it was submitted from */
	buf_puts(out, "#SBATCH --output=stdout.txt\n#SBATCH --error=stderr.txt\n");
	part = r->partition ? r->partition : sys->default_partition;
	if (part && (ok &= directive_ok(r, "partition", part, false)))
		buf_printf(out, "#SBATCH --partition=%s\n", part);
	if (sys->account && (ok &= directive_ok(r, "account", sys->account, false)))
		buf_printf(out, "#SBATCH --account=%s\n", sys->account);
	if (reservation(&t, sys->extra_srun_args) && (ok &= directive_ok(r, "reservation", t.data, false)))
		buf_printf(out, "#SBATCH --reservation=%s\n", t.data);
	if (sys->distribution && (ok &= directive_ok(r, "distribution", sys->distribution, false)))
		buf_printf(out, "#SBATCH --distribution=%s\n", sys->distribution);
	if (r->nodes.len) {
		buf_puts(out, "#SBATCH --nodelist=");
		for (i = 0; i < r->nodes.len; i++) {
			ok &= directive_ok(r, "node", r->nodes.items[i], false);
			buf_printf(out, "%s%s", i ? "," : "", r->nodes.items[i]);
		}
		buf_putc(out, '\n');
	} else {
		buf_printf(out, "#SBATCH -N %d\n", r->num_nodes);
		if (tc->exclude_nodes.len) {
			buf_puts(out, "#SBATCH --exclude=");
			for (i = 0; i < tc->exclude_nodes.len; i++) {
				ok &= directive_ok(r, "excluded node", tc->exclude_nodes.items[i], false);
				buf_printf(out, "%s%s", i ? "," : "", tc->exclude_nodes.items[i]);
			}
			buf_putc(out, '\n');
		}
	}
	if (sys->gpus_per_node > 0 && sys->supports_gpu_directives != 0)
		buf_printf(out, "#SBATCH --gpus-per-node=%d\n#SBATCH --gres=gpu:%d\n", sys->gpus_per_node,
		           sys->gpus_per_node);
	if (sys->ntasks_per_node > 0)
		buf_printf(out, "#SBATCH --ntasks-per-node=%d\n", sys->ntasks_per_node);
	if (r->time_limit > 0) {
		char tl[32];
		model_format_time(r->time_limit, tl, sizeof(tl));
		buf_printf(out, "#SBATCH --time=%s\n", tl);
	}
	for (i = 0; i < sys->extra_sbatch_args.len; i++)
		if ((ok &= directive_ok(r, "extra_sbatch_args entry", sys->extra_sbatch_args.items[i], true)))
			buf_printf(out, "#SBATCH %s\n", sys->extra_sbatch_args.items[i]);
	buf_free(&t);
	return ok;
}

/* LSF's equivalents (CloudAI's LSF options: -J, -W minutes, -P
 * project_name, -q default_queue, -app, -m os_version), each checked as
 * the #SBATCH ones are. */
bool
script_bsub_directives(struct buf *out, const struct run *r)
{
	const struct system *sys = r->c->system;
	const char *q = r->partition ? r->partition : sys->default_queue;
	size_t i;
	bool ok = true;

	job_name(out, r, "#BSUB -J ");
	/* relative: the job runs in the directory it was submitted from */
	buf_puts(out, "#BSUB -o stdout.txt\n#BSUB -e stderr.txt\n");
	if (q && (ok &= directive_ok(r, "queue", q, false)))
		buf_printf(out, "#BSUB -q %s\n", q);
	if (sys->project_name && (ok &= directive_ok(r, "project_name", sys->project_name, false)))
		buf_printf(out, "#BSUB -P %s\n", sys->project_name);
	if (sys->lsf_app && (ok &= directive_ok(r, "app", sys->lsf_app, false)))
		buf_printf(out, "#BSUB -app %s\n", sys->lsf_app);
	/* one slot per host: -n is the number of nodes */
	buf_printf(out, "#BSUB -n %d\n#BSUB -R \"span[ptile=1]\"\n", r->nodes.len ? (int)r->nodes.len : r->num_nodes);
	if (r->nodes.len) {
		buf_puts(out, "#BSUB -m \"");
		for (i = 0; i < r->nodes.len; i++) {
			ok &= directive_ok(r, "node", r->nodes.items[i], false);
			buf_printf(out, "%s%s", i ? " " : "", r->nodes.items[i]);
		}
		buf_puts(out, "\"\n");
	} else if (sys->os_version && (ok &= directive_ok(r, "os_version", sys->os_version, false))) {
		buf_printf(out, "#BSUB -m %s\n", sys->os_version);
	}
	/* minutes, rounded up: the limit is never shorter than asked */
	if (r->time_limit > 0)
		buf_printf(out, "#BSUB -W %ld\n", (r->time_limit + 59) / 60);
	return ok;
}
